"""The crawl: the pages a page links to start loading as soon as its links are known."""

from __future__ import annotations

import asyncio
import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from webmcp_harness.conformance.reports import CheckReport
from webmcp_harness.conformance.runner import CheckOptions, check_urls
from webmcp_harness.session.browser import launch

CRAWL = Path(__file__).parents[1] / "pages" / "crawl"

# A 1x1 transparent PNG: the slow picture, once it comes.
_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000b49444154789c6360000200000500017a5eab3f0000000049454e44ae426082"
)
_SLOW_WAIT = 5.0  # seconds the slow picture waits, at most, for the next page to be asked for


class _Site(http.server.SimpleHTTPRequestHandler):
    """Serves the folder; slow.png waits until next.html has been asked for (bounded)."""

    said: list[tuple[str, str]]  # ("asked", path) and ("answered", path), in order
    next_asked: threading.Event

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.said.append(("asked", self.path))
        if self.path == "/next.html":
            self.next_asked.set()
        if self.path != "/slow.png":
            super().do_GET()
            return
        self.next_asked.wait(_SLOW_WAIT)
        self.said.append(("answered", self.path))
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(_PNG)))
        self.end_headers()
        self.wfile.write(_PNG)


@pytest.fixture
def said() -> list[tuple[str, str]]:
    return []


@pytest.fixture
def site(tmp_path: Path, said: list[tuple[str, str]]) -> Iterator[str]:
    """tests/pages/crawl/ served on 127.0.0.1: its base URL."""
    root = tmp_path / "site"
    shutil.copytree(CRAWL, root)
    served = type("_Served", (_Site,), {"said": said, "next_asked": threading.Event()})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(served, directory=str(root))
    )
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def _crawl(url: str) -> CheckReport:
    async def body() -> CheckReport:
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await launch(p)
            try:
                options = CheckOptions(crawl=1, workers=2, timeout=10)
                return await check_urls(browser, [url], options)
            finally:
                await browser.close()

    return asyncio.run(body())


def test_a_linked_page_starts_loading_while_the_page_that_links_to_it_still_loads(
    site: str, said: list[tuple[str, str]]
) -> None:
    # The start page's load waits for a picture, which comes only once next.html was asked for:
    # its links are read once it is parsed, not once it has loaded.
    report = _crawl(f"{site}/slow-start.html")
    assert said.index(("asked", "/next.html")) < said.index(("answered", "/slow.png"))
    tools = {p.url.rsplit("/", 1)[1]: [t.name for t in p.tools] for p in report.pages}
    assert tools == {"slow-start.html": ["get_start_info"], "next.html": ["get_next_info"]}
    assert not report.failed(), [f.message for f in report.findings]
