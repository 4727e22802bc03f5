"""`webmcp-harness serve` says in its log which way the page's tool calls reach the browser."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def _serve_log(url: str, *extra: str) -> str:
    """serve's stderr for a run whose client hangs up at once (stdin at its end)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    ran = subprocess.run(
        [sys.executable, "-m", "webmcp_harness", "serve", url, *extra],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=90,
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stderr


def test_serve_calls_over_its_browsers_devtools_port_and_says_so(pages_url: str) -> None:
    log = _serve_log(f"{pages_url}/tools.html")
    assert "Page tools are called over the browser's DevTools port on 127.0.0.1 (direct)" in log


def test_with_no_debugging_port_serve_calls_through_playwright_and_says_so(
    pages_url: str,
) -> None:
    log = _serve_log(f"{pages_url}/tools.html", "--no-debugging-port")
    assert "Page tools are called through Playwright's driver" in log
    assert "DevTools port" not in log
