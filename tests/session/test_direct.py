"""A page's own session straight over the browser's DevTools port, when the harness opened one.

The faults of `test_faults.py` run on this path too; here: when it is taken, when it is not, and
that the port it needs listens on the loopback address only.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, async_playwright
from playwright.sync_api import sync_playwright

from webmcp_harness import WebMCPSession
from webmcp_harness.session.adapters import run_sync
from webmcp_harness.session.browser import find_browser, launch, launch_args
from webmcp_harness.session.direct import DEBUGGING_PORT_ARGS, remember_port
from webmcp_harness.session.sync import WebMCPSession as SyncSession

BOUND = 60.0


async def _path_and_echo(browser: Browser, url: str) -> tuple[str, Any]:
    """How a new session on browser reaches its page, and what an echo call answers."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        session = await WebMCPSession.attach(page, timeout=10)
        try:
            await page.goto(url)
            assert await session.wait_for_tool("echo", timeout=10) is not None
            result = await session.call("echo", {"text": "over the port"})
            assert session.backend.cdp is not None
            return session.backend.cdp.path, result
        finally:
            await session.close()
    finally:
        await context.close()


def _listening_addresses(port: int) -> list[str]:
    """The local addresses (hex, as /proc/net/tcp* has them) that listen on port."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if int(hex_port, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.append(address)
    return found


def test_a_browser_launched_with_its_port_is_called_over_it_and_it_listens_on_loopback_only(
    pages_url: str,
) -> None:
    async def main() -> tuple[str, Any, str, list[str]]:
        async with async_playwright() as p:
            browser = await launch(p, debugging_port=True)
            try:
                endpoint = await remember_port(browser)
                assert endpoint is not None
                port = int(endpoint.rsplit(":", 1)[1])
                path, result = await _path_and_echo(browser, f"{pages_url}/tools.html")
                return path, result, endpoint, _listening_addresses(port)
            finally:
                await browser.close()

    path, result, endpoint, listening = asyncio.run(asyncio.wait_for(main(), BOUND))
    assert path == "direct"
    assert result == {"content": [{"type": "text", "text": '{"echo":"over the port"}'}]}
    assert endpoint.startswith("ws://127.0.0.1:")
    assert listening == ["0100007F"]  # 127.0.0.1, and nothing else (no 0.0.0.0, no ::)


def test_without_a_port_of_ours_the_page_keeps_playwrights_session(pages_url: str) -> None:
    """A browser launched without the port, and one reached over CDP (as `--cdp` does, here the
    very browser that has the port): both go through Playwright, and their calls still answer."""

    async def main() -> tuple[tuple[str, Any], tuple[str, Any]]:
        async with async_playwright() as p:
            plain = await launch(p)
            try:
                without = await _path_and_echo(plain, f"{pages_url}/tools.html")
            finally:
                await plain.close()
            owned = await launch(p, debugging_port=True)
            try:
                endpoint = await remember_port(owned)
                assert endpoint is not None
                remote = await p.chromium.connect_over_cdp(endpoint.replace("ws:", "http:"))
                try:
                    connected = await _path_and_echo(remote, f"{pages_url}/tools.html")
                finally:
                    await remote.close()
            finally:
                await owned.close()
            return without, connected

    without, connected = asyncio.run(asyncio.wait_for(main(), BOUND))
    answer = {"content": [{"type": "text", "text": '{"echo":"over the port"}'}]}
    assert without == ("playwright", answer)
    assert connected == ("playwright", answer)


def test_after_a_call_that_navigated_playwright_already_shows_the_new_page(pages_url: str) -> None:
    """The answer overtakes Playwright's own news of the navigation on its faster way; the call
    still returns only once `page.url` is the page the answer came from (in the sync API, whose
    loop runs only inside a call, a late event would stay unread)."""
    with sync_playwright() as p:
        args = [*launch_args(), *DEBUGGING_PORT_ARGS]
        browser = p.chromium.launch(executable_path=find_browser(), args=args)
        try:
            page = browser.new_context().new_page()
            assert run_sync(page, remember_port(browser)) is not None
            session = SyncSession.attach(page, timeout=10)
            page.goto(f"{pages_url}/forms.html")
            assert session.wait_for_tool("lookup_other", timeout=10) is not None
            result = session.call("lookup_other", {"id": "7"})
            url = page.url
            assert session.core.backend.cdp is not None
            path = session.core.backend.cdp.path
            session.close()
        finally:
            browser.close()
    assert path == "direct"
    assert '"name":"Other"' in result["content"][0]["text"]
    assert url.endswith("/other.html?id=7")
