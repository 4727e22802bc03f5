"""Calls others make on the page, seen by the async core (`session/observe.py`), and waits for
tool changes, on a page with a form and a late tool."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page, async_playwright

from webmcp_harness import WebMCPSession
from webmcp_harness.core.records import CallRecord
from webmcp_harness.session.browser import launch

pytestmark = pytest.mark.asyncio(loop_scope="module")
WAIT = 30.0


@pytest_asyncio.fixture(loop_scope="module")
async def late(pages_url: str) -> AsyncIterator[tuple[WebMCPSession, Page]]:
    async with async_playwright() as p:
        browser = await launch(p)
        try:
            page = await browser.new_page()
            session = await WebMCPSession.attach(page, timeout=WAIT)
            await page.goto(f"{pages_url}/api/late.html")
            assert await session.wait_for_tool("find_room") is not None
            yield session, page
            await session.close()
        finally:
            await browser.close()


async def test_wait_for_tools_changed_answers_with_the_change_and_none_when_none_comes(
    late: tuple[WebMCPSession, Page],
) -> None:
    session, page = late
    waiting = asyncio.ensure_future(session.wait_for_tools_changed(timeout=WAIT))
    await asyncio.sleep(0)  # sleep-ok: let the wait start before the page changes
    await page.evaluate("addLateTool()")
    change = await waiting
    assert change is not None
    assert [t.name for t in change.added] == ["book_room"]
    assert change.removed == ()
    assert await session.wait_for_tools_changed(timeout=0.2) is None


async def test_calls_the_page_makes_itself_are_recorded_and_the_sessions_own_are_not(
    late: tuple[WebMCPSession, Page],
) -> None:
    session, page = late
    started: list[CallRecord] = []
    ended: list[CallRecord] = []
    session.on("toolinvoked", started.append)
    session.on("toolresponded", ended.append)
    await page.evaluate("addLateTool()")
    assert await session.wait_for_tool("book_room") is not None

    own = await session.call("find_room", {"people": 3})
    assert not own.get("isError")
    said: list[Any] = [
        await page.evaluate("callAsThePage('book_room', {room: 'Harbour'})"),
        await page.evaluate("callAsThePage('book_room', {room: 'Attic'})"),
    ]
    await session.tools(settle=0)  # a round trip: the page's reports are in

    assert said[1].startswith("threw: ")
    assert [r.tool for r in started] == ["book_room", "book_room"]
    ok, failed = ended
    assert ok.observed
    assert ok.input == {"room": "Harbour"}
    assert ok.result == {"content": [{"type": "text", "text": '{"booked":"Harbour"}'}]}
    assert ok.code is None
    assert ok.frame_url.endswith("/api/late.html")  # type: ignore[union-attr]
    assert ok.timings["totalMs"] > 0
    assert failed.code is not None
    assert failed.code.value == "failed"
    assert "The Attic is closed." in failed.result["content"][0]["text"]  # type: ignore[index]
    assert failed.browser.exception is not None
    assert failed.browser.exception.get("message") == "The Attic is closed."
    assert own.record not in ended
