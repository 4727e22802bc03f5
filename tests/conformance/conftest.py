"""Fixtures for the conformance tests: pages written per test, served on 127.0.0.1, and Chromium."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright

WEBMCP_ARGS = [
    "--enable-features=WebMCP,WebMCPTesting,DevToolsWebMCPSupport",
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
]


def _chromium_path() -> str | None:
    for candidate in (os.environ.get("WEBMCP_BROWSER_PATH"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    return shutil.which("chromium") or shutil.which("chromium-browser")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 (typeshed declares it an instance variable)
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html; charset=utf-8",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A folder served on a free port of 127.0.0.1 (a secure context): (folder, base URL)."""
    root = tmp_path_factory.mktemp("site")
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def serve(site: tuple[Path, str]) -> Callable[[str, str], str]:
    """Write a page into the served folder and return its URL."""
    root, base = site

    def write(name: str, body: str) -> str:
        (root / name).write_text(body, encoding="utf-8")
        return f"{base}/{name}"

    return write


@pytest.fixture(scope="session")
def chromium(playwright: Playwright) -> Iterator[Browser]:
    """Headless Chromium with WebMCP on: one per worker (each test has a context of its own)."""
    path = _chromium_path()
    if path is None:
        pytest.skip("no Chromium on this machine")
    browser = playwright.chromium.launch(executable_path=path, args=WEBMCP_ARGS, headless=True)
    yield browser
    browser.close()


@pytest.fixture
def tab(chromium: Browser) -> Iterator[Page]:
    """A fresh page in its own context."""
    context = chromium.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()
