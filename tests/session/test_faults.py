"""Faults in real Chromium: every call still ends in a coded result inside its timeout.

Each test runs on both ways a page's own session reaches Chromium: through Playwright's driver,
and straight over the browser's DevTools port (`session.direct`, what `serve` uses).

The async API runs on the worker's loop of async Playwright (`async_chromium`, tests/conftest.py;
the sync Playwright of other modules owns the main thread's loop). Every test is bounded twice: by
the call's own timeout, and by `Loop.run`, which turns a hang into a failure instead of a stuck run.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from playwright.async_api import Browser, Page, Playwright
from playwright.async_api import Error as PlaywrightError

from async_chromium import AsyncChromium
from webmcp_harness import WebMCPSession, tool_error_code
from webmcp_harness.session.browser import find_browser, launch, launch_args
from webmcp_harness.session.direct import DEBUGGING_PORT_ARGS, remember_port

T = TypeVar("T")

CALL_TIMEOUT = 5.0  # every call's own bound
TEST_BOUND = 30.0  # a test that has not ended by then has hung
SLOW_ACTIVATED = "window.seen.activated.includes('slow')"


def code(result: Any) -> str | None:
    found = tool_error_code(result)
    return found.value if found else None


def text(result: Any) -> str:
    return str(result["content"][0]["text"]) if result.get("content") else ""


class Loop:
    """One way a page's own session reaches Chromium (`path`), on the worker's loop of async
    Playwright (`async_chromium`): its Chromium for "playwright", for "direct" one launched with
    its DevTools port open. The tests open contexts of their own (they close and crash pages)."""

    def __init__(self, chromium: AsyncChromium, path: str, browser: Browser) -> None:
        self.path = path  # "playwright" or "direct": how the page's own session reaches Chromium
        self.chromium = chromium
        self.browser = browser

    @property
    def playwright(self) -> Playwright:
        return self.chromium.playwright

    def run(self, coro: Awaitable[T], bound: float = TEST_BOUND) -> T:
        """Run coro on the loop; a coro still running after bound seconds fails the test."""
        try:
            return self.chromium.run(coro, bound)
        except TimeoutError:
            pytest.fail(f"hung: no end after {bound} s")


@pytest.fixture(scope="module", params=["playwright", "direct"])
def loop(request: pytest.FixtureRequest, async_chromium: AsyncChromium) -> Iterator[Loop]:
    if request.param == "playwright":
        yield Loop(async_chromium, "playwright", async_chromium.browser)
        return
    browser = async_chromium.run(launch(async_chromium.playwright, debugging_port=True), 60)
    try:
        yield Loop(async_chromium, "direct", browser)
    finally:
        async_chromium.run(browser.close(), 60)


async def open_tools(browser: Browser, url: str, path: str) -> tuple[Page, WebMCPSession]:
    """A fresh page of tools.html with a session attached before navigating, on path."""
    context = await browser.new_context()
    page = await context.new_page()
    session = await WebMCPSession.attach(page, timeout=CALL_TIMEOUT)
    assert session.backend.cdp is not None
    assert session.backend.cdp.path == path
    await page.goto(url)
    await page.wait_for_function("window.toolsReady === true")
    return page, session


def with_page(loop: Loop, url: str, body: Callable[[Page, WebMCPSession], Awaitable[T]]) -> T:
    async def main() -> T:
        page, session = await open_tools(loop.browser, url, loop.path)
        try:
            return await body(page, session)
        finally:
            await session.close()
            await page.context.close()

    return loop.run(main())


async def timed(coro: Awaitable[T]) -> tuple[T, float]:
    t0 = time.monotonic()
    value = await coro
    return value, time.monotonic() - t0


# -- the page goes away ---------------------------------------------------------------------
def test_a_renderer_crash_mid_call_is_interrupted(loop: Loop, pages_url: str) -> None:
    async def body(page: Page, session: WebMCPSession) -> tuple[Any, float]:
        call = asyncio.ensure_future(timed(session.call("slow")))
        await page.wait_for_function(SLOW_ACTIVATED)
        cdp = await page.context.new_cdp_session(page)
        crash = asyncio.ensure_future(cdp.send("Page.crash"))  # the renderer never answers it
        try:
            return await call
        finally:
            crash.cancel()
            await asyncio.gather(crash, return_exceptions=True)

    result, took = with_page(loop, f"{pages_url}/tools.html", body)
    assert code(result) == "interrupted", result
    assert "crashed" in text(result)
    assert took < CALL_TIMEOUT


def test_closing_the_page_mid_call_is_interrupted(loop: Loop, pages_url: str) -> None:
    async def body(page: Page, session: WebMCPSession) -> tuple[Any, float, str | None]:
        call = asyncio.ensure_future(timed(session.call("slow")))
        await page.wait_for_function(SLOW_ACTIVATED)
        await page.close()
        result, took = await call
        after = await session.call("echo", {"text": "x"})
        return result, took, code(after)

    result, took, after = with_page(loop, f"{pages_url}/tools.html", body)
    assert code(result) == "interrupted", result
    assert took < CALL_TIMEOUT
    assert after == "interrupted"  # a call on a closed page is coded at once, too


def _pids_with(token: str) -> list[int]:
    """Processes whose command line holds token."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if token.encode() in cmdline:
            found.append(int(entry.name))
    return found


def _wait_gone(pids: list[int], bound: float) -> list[int]:
    """Wait (on pidfds, no polling) until pids have exited; the ones still alive after bound."""
    left = []
    deadline = time.monotonic() + bound
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except (ProcessLookupError, OSError):
            continue
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                left.append(pid)
        finally:
            os.close(fd)
    return left


def test_killing_the_browser_mid_call_is_interrupted(loop: Loop, pages_url: str) -> None:
    if not hasattr(os, "pidfd_open") or not Path("/proc/self/cmdline").exists():
        pytest.skip("finds and watches the browser's processes through Linux's /proc and pidfds")
    token = f"--webmcp-fault-test={uuid.uuid4().hex}"  # Chromium ignores it; we find it by it

    async def main() -> tuple[Any, float, list[int]]:
        port = list(DEBUGGING_PORT_ARGS) if loop.path == "direct" else []
        browser = await loop.playwright.chromium.launch(
            executable_path=find_browser(), args=[*launch_args(), *port, token]
        )
        try:
            if port:
                assert await remember_port(browser) is not None
            page, session = await open_tools(browser, f"{pages_url}/tools.html", loop.path)
            mains = [p for p in _pids_with(token) if b"--type=" not in _cmdline(p)]
            assert len(mains) == 1, mains
            group = os.getpgid(mains[0])
            call = asyncio.ensure_future(timed(session.call("slow")))
            await page.wait_for_function(SLOW_ACTIVATED)
            members = _group_members(group)
            os.kill(mains[0], signal.SIGKILL)
            result, took = await call
            await session.close()
            return result, took, members
        finally:
            await browser.close()

    result, took, members = loop.run(main())
    assert code(result) == "interrupted", result
    assert took < CALL_TIMEOUT
    # The browser's helpers (renderers, zygotes) follow it out; none is left behind.
    left = _wait_gone(members, bound=10)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"browser processes left after the browser was killed: {left}"


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getpgid(int(entry.name)) == pgid:
                    members.append(int(entry.name))
            except OSError:
                continue
    return members


# -- the page keeps moving ------------------------------------------------------------------
def test_calls_during_a_navigation_storm_all_end_with_a_code(loop: Loop, pages_url: str) -> None:
    """Chromium 156, seen here: an invokeTool racing a navigation may never be answered, may
    abort the navigation (net::ERR_ABORTED), or may crash the renderer. None of it may leave a
    call without a code."""
    url = f"{pages_url}/tools.html"

    async def body(page: Page, session: WebMCPSession) -> list[tuple[str, Any, float]]:
        outcomes: list[tuple[str, Any, float]] = []
        storming = True

        async def caller(n: int) -> None:
            i = 0
            while storming:
                word = f"w{n}-{i}"
                i += 1
                result, took = await timed(session.call("echo", {"text": word}))
                outcomes.append((word, result, took))
                await asyncio.sleep(0)  # sleep-ok: a yield; a call on a gone page answers at once

        callers = [asyncio.ensure_future(caller(n)) for n in range(8)]
        try:
            for i in range(12):
                await page.goto(f"{url}?storm={i}", wait_until="commit")
        except PlaywrightError:
            pass  # Chromium 156 may abort the navigation or crash the renderer: calls stay coded
        finally:
            storming = False
            await asyncio.gather(*callers)
        return outcomes

    outcomes = with_page(loop, url, body)
    assert len(outcomes) >= 8
    for word, result, took in outcomes:
        assert took < CALL_TIMEOUT, (word, result, took)
        if code(result) is None:
            assert result == {"content": [{"type": "text", "text": f'{{"echo":"{word}"}}'}]}
        else:
            assert code(result) in ("interrupted", "unavailable"), (word, result)


def test_a_ten_megabyte_answer_arrives_whole_or_coded(loop: Loop, pages_url: str) -> None:
    async def body(page: Page, session: WebMCPSession) -> tuple[Any, float]:
        return await timed(session.call("returns_big", {"mb": 10}, timeout=CALL_TIMEOUT * 2))

    result, took = with_page(loop, f"{pages_url}/tools.html", body)
    assert took < CALL_TIMEOUT * 2
    if code(result) is None:
        answer = text(result)
        assert len(answer) == 10 * 1024 * 1024
        assert answer.count("x") == len(answer)
    else:
        assert code(result) in ("failed", "timeout"), result


def test_two_hundred_concurrent_calls_all_complete_correctly(loop: Loop, pages_url: str) -> None:
    async def body(page: Page, session: WebMCPSession) -> tuple[list[Any], list[Any]]:
        # a generous per-call bound: this is about answers not getting mixed up or lost, and a
        # busy machine must not turn that into timeouts
        echoes = [session.call("echo", {"text": f"m{i}"}, timeout=15) for i in range(150)]
        waits = [session.call("delayed", {"ms": i}, timeout=15) for i in range(50)]
        got = await asyncio.gather(*echoes, *waits)
        return list(got[:150]), list(got[150:])

    echoes, waits = with_page(loop, f"{pages_url}/tools.html", body)
    assert echoes == [
        {"content": [{"type": "text", "text": f'{{"echo":"m{i}"}}'}]} for i in range(150)
    ]
    assert waits == [
        {"content": [{"type": "text", "text": f'{{"waited":{i or 10}}}'}]} for i in range(50)
    ]
