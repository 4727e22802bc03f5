"""Every source of a page's tools at once (issue 12): native WebMCP beside the page's script objects.

Pages of tests/pages/sources/ load `@mcp-b/global` 1.x, 3.x and 5.x (pinned from npm, vendored in
tests/polyfills/), each in a Chromium WITH the WebMCP flag and one WITHOUT. Every tool is listed once,
with its source and the spec's annotation names, and is called, cancelled on timeout and interrupted
by navigation through its own source. Also: a page mixing native and script tools, tools registered
100 ms and 1.5 s after load (the settle of `tools()`), `backend=` as a filter, and the probe.
Each browser keeps one page for the module (`KeptPage`), left as a new context's after each test.
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

from async_chromium import KeptPage
from webmcp_harness import WebMCPSession, tool_error_code
from webmcp_harness.core.results import ToolResult
from webmcp_harness.session.browser import find_browser, launch_args
from webmcp_harness.session.probe import probe

pytestmark = pytest.mark.asyncio(loop_scope="module")

TESTS = Path(__file__).parents[1]
WAIT = 10.0  # upper bound of any wait on the browser; the waits end on events
CDP_SPELLINGS = {"readOnly", "untrustedContent", "consequential"}

# (version, WebMCP flag) -> where the page's tools are: (Tool.backend, Tool.source)
WHERE = {
    (1, True): ("inpage", "navigator.modelContext"),  # beside native: native registry stays empty
    (1, False): ("inpage", "navigator.modelContext"),
    (3, True): ("cdp", "native"),  # wraps native WebMCP and mirrors its tools into it
    (3, False): ("inpage", "document.modelContext"),
    (5, True): ("cdp", "native"),
    (5, False): ("inpage", "document.modelContext"),
}
CASES = [pytest.param(v, f, id=f"{v}.x-{'flag' if f else 'no-flag'}") for v, f in WHERE]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """tests/ on a free port: the pages at /pages/sources/, the vendored builds at /polyfills/."""
    handler = functools.partial(_Quiet, directory=str(TESTS))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/pages/sources"
    server.shutdown()
    server.server_close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browsers() -> AsyncIterator[dict[bool, Browser]]:
    """Chromium with the WebMCP flag (True) and without it (False)."""
    async with async_playwright() as p:
        found = {
            flag: await p.chromium.launch(
                executable_path=find_browser(), args=launch_args(webmcp=flag)
            )
            for flag in (True, False)
        }
        yield found
        for browser in found.values():
            await browser.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def kept(browsers: dict[bool, Browser]) -> AsyncIterator[dict[bool, KeptPage]]:
    """A page kept for the module in each browser (`KeptPage`): each test opens its own
    documents in it, and leaves it as a new context's (`pages`)."""
    found = {flag: await KeptPage.open(browser) for flag, browser in browsers.items()}
    yield found
    for each in found.values():
        await each.close()


@pytest_asyncio.fixture(loop_scope="module")
async def pages(kept: dict[bool, KeptPage]) -> AsyncIterator[dict[bool, KeptPage]]:
    yield kept
    for each in kept.values():
        await each.clean()


def _text(result: ToolResult) -> str:
    content = result.get("content") or []
    return str(content[0].get("text", "")) if content else ""


def _code(result: ToolResult) -> str | None:
    found = tool_error_code(result)
    return found.value if found else None


# -- each @mcp-b/global version, with and without the flag ------------------------------------


@pytest.mark.parametrize(("version", "flag"), CASES)
async def test_each_global_version_lists_its_tools_once_with_source_and_spec_hints(
    pages: dict[bool, KeptPage], site: str, version: int, flag: bool
) -> None:
    page = pages[flag].page
    async with await WebMCPSession.attach(page, timeout=WAIT) as session:
        await page.goto(f"{site}/global-{version}.html")
        await page.evaluate("window.toolsReady")
        tools = await session.tools()
        assert sorted(t.name for t in tools) == ["boom", "echo", "navigates", "slow"]
        assert {(t.backend, t.source) for t in tools} == {WHERE[version, flag]}
        echo = next(t for t in tools if t.name == "echo")
        assert echo.read_only
        assert echo.annotations["readOnlyHint"] is True
        assert echo.annotations["untrustedContentHint"] is True
        listed = json.dumps([t.to_dict() for t in tools])
        assert not CDP_SPELLINGS & {k for t in tools for k in t.to_dict()["annotations"]}
        assert '"readOnly"' not in listed


@pytest.mark.parametrize(("version", "flag"), CASES)
async def test_each_global_version_calls_cancels_and_is_interrupted_through_its_source(
    pages: dict[bool, KeptPage], site: str, version: int, flag: bool
) -> None:
    page = pages[flag].page
    backend, source = WHERE[version, flag]
    async with await WebMCPSession.attach(page, timeout=WAIT) as session:
        await page.goto(f"{site}/global-{version}.html")
        await page.evaluate("window.toolsReady")
        assert await session.wait_for_tool("echo", timeout=WAIT) is not None

        echo = await session.call("echo", {"text": "hi"})
        assert _code(echo) is None, echo
        assert _text(echo) == '{"echo":"hi"}'
        record = session.records[-1]
        assert (record.backend, record.source) == (backend, source)
        assert record.to_dict()["source"] == source

        boom = await session.call("boom")
        assert _code(boom) == "failed", boom
        assert "the kettle is broken" in _text(boom)

        slow = await session.call("slow", timeout=1)
        assert _code(slow) == "timeout", slow
        assert "cancelledInPage" in [e.type for e in session.records[-1].events]
        assert await page.evaluate("window.calls.slow") == 1

        navigates = await session.call("navigates")
        assert _code(navigates) == "interrupted", navigates
        await page.wait_for_url("**/other.html")


# -- native and script tools on one page -------------------------------------------------------


async def _mixed(pages: dict[bool, KeptPage], site: str, backend: Any) -> list[Any]:
    page = pages[True].page
    try:
        async with await WebMCPSession.attach(page, timeout=WAIT, backend=backend) as session:
            await page.goto(f"{site}/mixed.html")
            await page.evaluate("window.toolsReady")
            tools = sorted(await session.tools(), key=lambda t: t.name)
            results = [await session.call(t.name, {"text": "hi"}) for t in tools]
            return [
                (t.name, t.backend, t.source, _text(r)) for t, r in zip(tools, results, strict=True)
            ]
    finally:
        await pages[True].clean()  # (called twice in one test)


async def test_a_page_mixing_native_and_script_tools_lists_and_calls_each_from_its_source(
    pages: dict[bool, KeptPage], site: str
) -> None:
    assert await _mixed(pages, site, "auto") == [
        ("native_echo", "cdp", "native", '{"native":"hi"}'),
        ("script_echo", "inpage", "navigator.modelContext", '{"script":"hi"}'),
    ]


async def test_backend_filters_the_sources(pages: dict[bool, KeptPage], site: str) -> None:
    assert await _mixed(pages, site, "cdp") == [("native_echo", "cdp", "native", '{"native":"hi"}')]
    # in-page only: the native tool is reached through native document.modelContext
    assert await _mixed(pages, site, "inpage") == [
        ("native_echo", "inpage", "native", '{"native":"hi"}'),
        ("script_echo", "inpage", "navigator.modelContext", '{"script":"hi"}'),
    ]


# -- tools that come later ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "page_name",
    # late-slow-load: the list is quiet for 0.6 s before the load, so settling must count from
    # the load, not from the first tool.
    ["late.html", "late-slow-load.html"],
    ids=["quick-load", "slow-load"],
)
async def test_a_tool_registered_100_ms_after_load_is_listed(
    pages: dict[bool, KeptPage], site: str, page_name: str
) -> None:
    page = pages[True].page
    async with await WebMCPSession.attach(page, timeout=WAIT) as session:
        await page.goto(f"{site}/{page_name}", wait_until="load")
        assert sorted(t.name for t in await session.tools()) == ["first", "soon"]


@pytest.mark.parametrize(
    ("via", "flag"),
    [("native", True), ("navigator", True), ("navigator", False)],
    ids=["native", "navigator-flag", "navigator-no-flag"],
)
async def test_a_page_whose_only_tool_comes_at_1_5_s_has_that_tool(
    pages: dict[bool, KeptPage], site: str, via: str, flag: bool
) -> None:
    page = pages[flag].page
    async with await WebMCPSession.attach(page, timeout=WAIT) as session:
        await page.goto(f"{site}/late-only.html?via={via}", wait_until="load")
        assert await session.tools(settle=0) == []  # read at once: not there yet
        assert [t.name for t in await session.tools()] == ["later"]
        result = await session.call("later")
        assert _text(result) == '{"later":true}'


async def test_cli_tools_settle_lists_a_late_tool(site: str, browser_server: str) -> None:
    done = await asyncio.to_thread(
        subprocess.run,
        [
            *(sys.executable, "-m", "webmcp_harness", "tools", f"{site}/late-only.html", "--json"),
            *("--settle", "0.3", "--timeout", f"{WAIT:g}", "--connect", browser_server),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (tool,) = json.loads(done.stdout)
    assert (tool["name"], tool["backend"], tool["source"]) == ("later", "cdp", "native")


# -- the probe ---------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", [True, False], ids=["flag", "no-flag"])
async def test_the_probe_names_every_surface_of_a_global_1_page(
    pages: dict[bool, KeptPage], site: str, flag: bool
) -> None:
    page = pages[flag].page
    await page.goto(f"{site}/global-1.html")
    found = await probe(page)
    assert found.flag_missing is not flag
    assert found.native is flag
    main = found.main
    assert main is not None
    assert main.secure
    surfaces = [(s.name, s.implementation, s.native) for s in main.surfaces]
    expected = [
        ("navigator.modelContext", "@mcp-b/global", False),
        ("navigator.modelContextTesting", "modelContextTesting", False),
    ]
    if flag:
        expected.insert(0, ("document.modelContext", "native", True))
    assert surfaces == expected
    # nothing left behind in the page
    assert await page.evaluate("'__webmcpHarness' in window") is False


async def test_the_docs_say_where_each_global_versions_tools_live() -> None:
    docs = (TESTS.parent / "docs" / "polyfills.md").read_text(encoding="utf-8")
    rows = {
        (int(m.group(1)), m.group(2) == "on"): (m.group(3), m.group(4))
        for m in re.finditer(
            r"^\| `(\d)\.x` \| (on|off) \| `(\w+)` \| `([\w.]+)` \|", docs, re.MULTILINE
        )
    }
    assert rows == WHERE
