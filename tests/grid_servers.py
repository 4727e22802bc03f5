"""Browser servers for the grid tests: Playwright's `run-server` and the harness's node.

`run-server` is given this machine's Chromium where it looks for its own (a PLAYWRIGHT_BROWSERS_PATH
layout); the node is `webmcp-harness browser-server` (BrowserServer). Each runs in its own process
group, so a test can kill one whole server. One of each per xdist worker, for the whole run.
"""

from __future__ import annotations

import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from webmcp_harness.session.browser import find_browser
from webmcp_harness.session.grid import BrowserServer

__all__ = ["RunServer", "browsers", "free_port", "node", "stock_server", "unsafe_server"]

DRIVER = Path(__import__("playwright").__file__).parent / "driver" / "package"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _browsers_dir_with(chromium: str, into: Path) -> Path:
    """A PLAYWRIGHT_BROWSERS_PATH in which Playwright's server finds this machine's Chromium."""
    revisions = json.loads((DRIVER / "browsers.json").read_text())["browsers"]
    arch = "linux-arm64" if platform.machine() in ("aarch64", "arm64") else "linux64"
    for entry in revisions:
        if entry["name"] == "chromium-headless-shell":
            exe = into / f"chromium_headless_shell-{entry['revision']}"
            exe = exe / f"chrome-headless-shell-{arch}" / "chrome-headless-shell"
        elif entry["name"] == "chromium":
            exe = into / f"chromium-{entry['revision']}" / f"chrome-{arch}" / "chrome"
        else:
            continue
        exe.parent.mkdir(parents=True, exist_ok=True)
        exe.symlink_to(chromium)
    return into


class RunServer:
    """`playwright run-server` in its own process group, on a free port."""

    def __init__(self, *, unsafe: bool, browsers: Path) -> None:
        port = free_port()
        command = [sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1"]
        command += ["--port", str(port), *(["--unsafe"] if unsafe else [])]
        env = {**os.environ, "PLAYWRIGHT_BROWSERS_PATH": str(browsers)}
        self.process = subprocess.Popen(
            command,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # "Listening on ws://…"
        match = re.search(r"(ws://\S+)", line)
        assert match, f"run-server said {line!r}"
        self.ws = match.group(1)

    def stop(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(10)


@pytest.fixture(scope="session")
def browsers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _browsers_dir_with(find_browser(), tmp_path_factory.mktemp("browsers"))


@pytest.fixture(scope="session")
def unsafe_server(browsers: Path) -> Iterator[str]:
    server = RunServer(unsafe=True, browsers=browsers)
    yield server.ws
    server.stop()


@pytest.fixture(scope="session")
def stock_server(browsers: Path) -> Iterator[str]:
    server = RunServer(unsafe=False, browsers=browsers)
    yield server.ws
    server.stop()


@pytest.fixture(scope="session")
def node() -> Iterator[str]:
    with BrowserServer(port=free_port()) as server:
        yield server.ws_endpoint
