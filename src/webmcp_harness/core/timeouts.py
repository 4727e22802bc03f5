"""Timeouts are seconds everywhere in webmcp-harness; a value that reads as milliseconds is refused.

Playwright's `expect(...)` and `page` methods take milliseconds, and this package's `expect` sits
beside them in the same tests. So that `timeout=5000` cannot silently wait 83 minutes, a wait
too long to be meant as seconds is refused with a message that says so.
"""

from __future__ import annotations

import math

__all__ = [
    "DEFAULT_TIMEOUT",
    "EXPECT_MOST",
    "EXPECT_TIMEOUT",
    "MAX_TIMEOUT",
    "SETTING_MOST",
    "seconds_problem",
]

DEFAULT_TIMEOUT = 30.0
"""A call's bound, and the default of every timeout: the session, scripts, the command line,
the pytest plugin, the gateway and the checker."""
MAX_TIMEOUT = 3600.0
"""The longest timeout a script or the command line takes."""
EXPECT_TIMEOUT = 5.0
"""How long an `expect(...)` assertion waits by default (Playwright's 5000 ms)."""

EXPECT_MOST = 100.0
"""An `expect(...)` wait of this many seconds or more is taken for milliseconds, and refused."""
SETTING_MOST = 1000.0
"""A call timeout (option, ini, marker, fixture call) of this many seconds or more: the same."""


def seconds_problem(value: object, *, most: float) -> str | None:
    """What is wrong with `value` as a timeout in seconds; None when it is fine."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"timeout must be a number of seconds, like 5 or 0.5; got {value!r}"
    if not (value > 0 and math.isfinite(value)):
        return f"timeout must be more than 0 seconds; got {value!r}"
    if value >= most:
        return (
            f"timeout={value:g} looks like milliseconds: webmcp-harness takes seconds "
            f"(Playwright takes milliseconds), and {value:g} s is {_long(value)}. "
            f"Write timeout={value / 1000:g} for {value:g} ms; "
            f"waits of {most:g} s or more are refused here."
        )
    return None


def _long(value: float) -> str:
    minutes = value / 60
    return f"{minutes:.0f} minutes" if minutes < 120 else f"{minutes / 60:.0f} hours"
