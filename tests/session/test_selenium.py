"""A Selenium Grid's Chromium: the capabilities asked for (WebMCP on, the user's kept), a session
through a real standalone grid on 127.0.0.1, and a session the grid ends seen as a disconnect."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import playwright
import pytest
from playwright.async_api import async_playwright

from selenium_grid import Standalone
from webmcp_harness.core.errors import UsageError
from webmcp_harness.session import WebMCPSession
from webmcp_harness.session.browser import WEBMCP_FEATURES
from webmcp_harness.session.selenium import (
    HEADLESS_SWITCHES,
    PLAYWRIGHT_SWITCHES,
    SeleniumGrid,
    capabilities,
    merge_args,
    open_session,
    parse_capabilities,
)
from webmcp_harness.testing.demo import DemoServer

DRIVER = Path(playwright.__file__).parent / "driver" / "package" / "lib"


def _args(caps: dict[str, object], key: str = "goog:chromeOptions") -> list[str]:
    options = caps[key]
    assert isinstance(options, dict)
    return list(options["args"])


def _features(args: list[str], switch: str) -> list[str]:
    found = [a for a in args if a.startswith(f"--{switch}-features=")]
    assert len(found) == 1, found
    return found[0].split("=", 1)[1].split(",")


def test_the_capabilities_ask_for_a_headless_chromium_with_webmcp_on() -> None:
    caps = capabilities()
    args = _args(caps)
    assert caps["browserName"] == "chrome"
    assert set(WEBMCP_FEATURES.split(",")) <= set(_features(args, "enable"))
    assert {"--no-sandbox", "--headless", "--disable-background-networking"} <= set(args)
    assert "--disable-component-update" in args
    assert "binary" not in caps["goog:chromeOptions"]  # type: ignore[operator]
    headed = capabilities(headless=False, browser_path="/opt/chromium/chrome")
    assert "--headless" not in _args(headed)
    assert headed["goog:chromeOptions"]["binary"] == "/opt/chromium/chrome"  # type: ignore[index]


def test_the_users_capabilities_are_merged_and_neither_side_is_lost() -> None:
    given = parse_capabilities(
        '{"platformName": "linux", "se:name": "shop", "goog:chromeOptions": {'
        '"args": ["--lang=de", "--enable-features=Foo", "--disable-features=WebMCPTesting,Bar",'
        ' "--enable-features=Baz"], "prefs": {"intl.accept_languages": "de"}}}'
    )
    caps = capabilities(given)
    args = _args(caps)
    assert caps["platformName"] == "linux"
    assert caps["se:name"] == "shop"
    assert caps["goog:chromeOptions"]["prefs"] == {"intl.accept_languages": "de"}  # type: ignore[index]
    assert "--lang=de" in args
    assert "--no-sandbox" in args
    enabled, disabled = _features(args, "enable"), _features(args, "disable")
    assert {"Foo", "Baz", "WebMCP", "DevToolsWebMCPSupport"} <= set(enabled)
    # The user's word stands where the two sides differ; Playwright's own list is kept too.
    assert "WebMCPTesting" not in enabled
    assert {"WebMCPTesting", "Bar", "HttpsUpgrades"} <= set(disabled)


def test_a_switch_both_sides_give_ends_with_the_users_value() -> None:
    merged = merge_args(["--headless", "--window-size=800,600"], ["--window-size=1280,720"])
    assert merged.index("--window-size=1280,720") > merged.index("--window-size=800,600")


def test_an_edge_capability_carries_the_switches_as_edge_options() -> None:
    caps = capabilities({"browserName": "MicrosoftEdge"})
    assert caps["browserName"] == "MicrosoftEdge"
    assert "goog:chromeOptions" not in caps
    assert set(WEBMCP_FEATURES.split(",")) <= set(
        _features(_args(caps, "ms:edgeOptions"), "enable")
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "not valid JSON"),
        ('["--headless"]', "not a JSON object of capabilities"),
        ('{"alwaysMatch": {"browserName": "chrome"}}', "give the capabilities themselves"),
    ],
)
def test_capabilities_that_are_not_an_object_of_capabilities_are_refused(
    text: str, said: str
) -> None:
    with pytest.raises(UsageError, match=said):
        parse_capabilities(text)


def test_a_browser_that_is_not_chromium_is_refused() -> None:
    with pytest.raises(UsageError, match="WebMCP needs Chromium"):
        capabilities({"browserName": "firefox"})


@pytest.mark.parametrize("url", ["grid:4444", "ws://127.0.0.1:4444", "http://", "http://h:x/"])
def test_a_grid_address_that_is_not_an_http_url_is_refused(url: str) -> None:
    with pytest.raises(UsageError, match="http"):
        SeleniumGrid.at(url)


def test_credentials_in_the_grid_url_become_basic_auth_and_leave_the_url() -> None:
    grid = SeleniumGrid.at("https://ci:s%40cret@grid.example:4444/wd/hub/")
    assert grid.url == "https://grid.example:4444/wd/hub"
    assert grid.headers == {"Authorization": "Basic Y2k6c0BjcmV0"}


def test_a_cdp_address_on_loopback_is_reached_at_the_grids_host() -> None:
    grid = SeleniumGrid.at("http://grid.example:4444")
    cdp = "ws://127.0.0.1:4444/session/ab/se/cdp"
    assert grid._cdp_address(cdp) == "ws://grid.example:4444/session/ab/se/cdp"
    assert grid._cdp_address("ws://node-3:5555/x") == "ws://node-3:5555/x"
    assert SeleniumGrid.at("http://127.0.0.1:4444")._cdp_address(cdp) == cdp


def test_our_switches_repeat_the_installed_playwrights() -> None:
    # A node's chromedriver launches this Chromium: without Playwright's switches, pages would
    # behave otherwise than in a local run (background timers, the back-forward cache).
    for bundle in sorted(DRIVER.glob("*.js")):
        text = bundle.read_text(encoding="utf-8", errors="replace")
        found = re.search(r"chromiumSwitches = \(options\) => \[(.*?)\]\.filter", text, re.S)
        if found:
            break
    else:
        raise AssertionError(f"chromiumSwitches not found in Playwright's driver under {DRIVER}")
    body = re.sub(r"//[^\n]*", "", found.group(1))
    switches = {s for s in re.findall(r'"(--[^"]+)"', body) if "-features=" not in s}
    assert switches
    assert switches <= set(PLAYWRIGHT_SWITCHES)
    headless = re.search(r"if \(options\.headless\) \{(.*?)\n        \}", text, re.S)
    assert headless is not None
    assert set(re.findall(r'"(--[^"]+)"', headless.group(1))) <= set(HEADLESS_SWITCHES)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        yield int(server.getsockname()[1])


def test_a_grid_that_does_not_answer_in_time_is_named(silent_port: int) -> None:
    grid = SeleniumGrid.at(f"http://127.0.0.1:{silent_port}")
    with pytest.raises(UsageError, match=r"did not answer within 0\.3 s"):
        grid.status(timeout=0.3)


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    with DemoServer() as server:
        yield server.url


def _sessions(grid: SeleniumGrid) -> list[str]:
    nodes = grid.status()["nodes"]
    return [s["session"]["sessionId"] for n in nodes for s in n["slots"] if s["session"]]


def test_a_grid_session_lists_the_demos_tools_and_ends_with_the_browser(
    selenium_standalone: Standalone, shop: str
) -> None:
    grid = SeleniumGrid.at(selenium_standalone.url)

    async def tools() -> tuple[set[str], str]:
        async with async_playwright() as p:
            opened = await open_session(p, grid, probe=True)
            try:
                assert opened.webmcp
                assert opened.session.id in _sessions(grid)
                page = await (await opened.browser.new_context()).new_page()
                async with await WebMCPSession.attach(page) as session:
                    await page.goto(shop)
                    return {t.name for t in await session.tools()}, opened.session.id
            finally:
                await opened.close()

    names, session_id = asyncio.run(tools())
    assert {"search_products", "get_product"} <= names
    # The node has stopped the session when DELETE answers; the grid frees its slot a moment
    # later, on the node's event (a /status read in between still showed it: a loaded CI run).
    selenium_standalone.server.wait_for(rf"Releasing slot for session id {session_id}", 15)
    assert session_id not in _sessions(grid)


def test_a_session_the_grid_ends_disconnects_its_browser_and_the_watch_says_why(
    selenium_standalone: Standalone,
) -> None:
    # (The grid does not close the CDP connection of a session that its inactivity timeout
    # ends, or whose node dies: the watch's answer is what disconnects the browser then. A
    # node killed mid-check: tests/conformance/test_selenium_check.py.)
    grid = SeleniumGrid.at(selenium_standalone.url)

    async def ended() -> tuple[bool, str | None]:
        async with async_playwright() as p:
            opened = await open_session(p, grid)
            try:
                gone = asyncio.Event()
                opened.browser.on("disconnected", lambda _: gone.set())
                threading.Thread(target=grid.end_session, args=(opened.session.id,)).start()
                await asyncio.wait_for(gone.wait(), 15)
                await asyncio.to_thread(opened.watch.ended.wait, 15)
                return opened.browser.is_connected(), opened.watch.gone
            finally:
                await opened.close()

    connected, why = asyncio.run(ended())
    assert not connected
    assert why is not None
    assert "the grid ended it" in why
