"""Ctrl-C for a command a test starts, wherever the test runs."""

from __future__ import annotations

import signal


def hears_ctrl_c() -> None:
    """For `subprocess.Popen(preexec_fn=...)`: the child gets SIGINT's default disposition back.

    A shell's background job (a CI runner's, a detached session's) starts with SIGINT ignored,
    and a child inherits that: Python then never raises KeyboardInterrupt, and a test that stops
    a command with Ctrl-C would wait for nothing. The user's Ctrl-C is what these tests mimic.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
