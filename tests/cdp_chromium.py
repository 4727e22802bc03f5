"""A Chromium someone else started, reachable over CDP (as `--cdp URL` takes it)."""

from __future__ import annotations

import contextlib
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from webmcp_harness.session.browser import find_browser, launch_args

WAIT = 60.0


@contextlib.contextmanager
def chromium_over_cdp(profile: Path, *, webmcp: bool = True) -> Iterator[str]:
    """Launch Chromium with a debugging port; yield its http://HOST:PORT endpoint; end it."""
    chromium = subprocess.Popen(
        [
            find_browser(),
            "--headless",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--no-default-browser-check",
            *launch_args(webmcp=webmcp),
            "about:blank",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert chromium.stderr is not None
    endpoint = None
    for line in chromium.stderr:  # ends at the line below, or when Chromium exits
        found = re.search(r"DevTools listening on ws://([^/\s]+)/", line)
        if found:
            endpoint = f"http://{found.group(1)}"
            break
    # Keep draining stderr so Chromium never blocks on a full pipe.
    threading.Thread(target=chromium.stderr.read, daemon=True).start()
    try:
        assert endpoint, f"Chromium exited with {chromium.poll()} before listening"
        yield endpoint
    finally:
        chromium.terminate()
        try:
            chromium.wait(WAIT)
        except subprocess.TimeoutExpired:
            chromium.kill()
            chromium.wait(WAIT)
