"""A WebMCP-ready grid node on Playwright's own browser-server machinery."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from types import TracebackType

from ..core.errors import BrowserNotFoundError, UsageError
from .browser import find_browser, launch_args

__all__ = ["BrowserServer", "server_config"]

_START_WAIT = 60.0  # seconds a node may take to launch its browser and listen
_ENDPOINT = re.compile(r"^(wss?://\S+)\s*$")


def server_config(
    *,
    port: int = 0,
    host: str = "127.0.0.1",
    ws_path: str = "/webmcp",
    browser_path: str | None = None,
    headless: bool = True,
) -> dict[str, object]:
    """`launchServer` options for a node whose browser has WebMCP on, whatever clients send."""
    if not ws_path.startswith("/"):
        raise UsageError(f"the endpoint path must start with '/', like '/webmcp', not {ws_path!r}")
    return {
        "executablePath": find_browser(browser_path),
        "args": launch_args(),
        "headless": headless,
        "port": port,
        "host": host,
        "wsPath": ws_path,
    }


class BrowserServer:
    """A Playwright browser server launching this machine's Chromium with WebMCP on.

    Use it as a context manager, or call `start()` and `stop()`; `ws_endpoint` is what clients
    pass to `--connect`. Each client gets its own browser of the node.
    """

    def __init__(self, **config: object) -> None:
        self.config = server_config(**config)  # type: ignore[arg-type]
        self.ws_endpoint = ""
        self._process: subprocess.Popen[str] | None = None
        self._config_file: Path | None = None
        self._output: list[str] = []

    def start(self) -> str:
        """Start the node; returns its WebSocket endpoint. Raises BrowserNotFoundError on failure."""
        fd, name = tempfile.mkstemp(prefix="webmcp-node-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(self.config, f)
        self._config_file = Path(name)
        command = [sys.executable, "-m", "playwright", "launch-server", "--browser", "chromium"]
        self._process = subprocess.Popen(
            [*command, "--config", name],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # stop() ends the driver and the browser it launched
        )
        found = threading.Event()
        threading.Thread(target=self._read, args=(found,), daemon=True).start()
        if not found.wait(_START_WAIT) or not self.ws_endpoint:
            said = " ".join(line.strip() for line in self._output[-5:])[:500]
            self.stop()
            raise BrowserNotFoundError(
                f"The browser server did not start within {_START_WAIT:g} s"
                + (f": {said}" if said else ".")
            )
        return self.ws_endpoint

    def _read(self, found: threading.Event) -> None:
        assert self._process is not None
        assert self._process.stdout is not None
        for line in self._process.stdout:
            match = _ENDPOINT.match(line)
            if match and not self.ws_endpoint:
                self.ws_endpoint = match.group(1)
                found.set()
            else:
                self._output.append(line)
                del self._output[:-50]
        found.set()  # the process ended

    @property
    def pid(self) -> int | None:
        """The node's process id while it runs (also its process group, its browsers' too)."""
        return self._process.pid if self._process is not None else None

    def wait(self) -> int:
        """Block until the node stops; returns its exit status."""
        assert self._process is not None
        return self._process.wait()

    def stop(self) -> None:
        """Stop the node and its browsers; never raises."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)
        if self._config_file is not None:
            self._config_file.unlink(missing_ok=True)
            self._config_file = None

    def __enter__(self) -> BrowserServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
