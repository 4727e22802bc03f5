"""A form call's toolactivated and toolcancel (fired on document.modelContext, never sent by the
DevTools protocol) are events of the call, heard in the harness's isolated world, in real
Chromium: with and without toolautosubmit, cancelled, made by the page itself, and on a page the
session attached to after it loaded. The page can neither forge them nor read what is kept."""

from __future__ import annotations

import asyncio

from playwright.async_api import async_playwright
from playwright.sync_api import Page

from webmcp_harness import WebMCPSession
from webmcp_harness.core.records import CallRecord
from webmcp_harness.session.browser import launch
from webmcp_harness.sync_api import WebMCPSession as SyncSession


def types(record: CallRecord) -> list[str]:
    return [event.type for event in record.events]


def open_page(page: Page, webmcp: SyncSession, pages_url: str) -> SyncSession:
    page.goto(f"{pages_url}/api/activated.html")
    assert webmcp.wait_for_tool("slow_search", timeout=10) is not None
    return webmcp


def test_a_form_that_submits_itself_records_toolactivated_once_before_its_answer(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    session = open_page(page, webmcp, pages_url)
    result = session.call("find_room", {"people": 4})
    assert result.get("isError") is not True
    assert types(result.record) == ["toolActivated"]  # the page's forged one is not there
    assert 0 <= result.record.events[0].at_ms <= result.record.timings["totalMs"] + 50
    assert page.evaluate("window.seen") == [
        "toolactivated find_room",
        "toolactivated find_room",
        "toolcancel find_room",
    ]
    assert page.evaluate("harnessKept()") == "undefined"


def test_a_form_that_waits_for_its_person_records_toolactivated_before_it_waits(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    session = open_page(page, webmcp, pages_url)
    result = session.call("sign_up", {"email": "ann@example.com"}, confirm=True)
    assert result.get("isError") is not True
    assert types(result.record) == ["toolActivated", "waitingForPerson", "confirmedAsPerson"]


def test_a_cancelled_form_call_records_toolactivated_then_toolcancel(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    session = open_page(page, webmcp, pages_url)
    result = session.call("slow_search", {"q": "tea"}, timeout=1)
    assert result["content"][0]["text"].startswith("Error [timeout]")
    session.settle(result.record, timeout=10)
    assert result.record.browser.status == "Canceled"
    events = types(result.record)
    assert events.index("toolActivated") < events.index("timeout") < events.index("toolCancel")
    assert events.count("toolCancel") == 1


def test_a_form_call_the_page_makes_itself_is_observed_with_toolactivated(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    session = open_page(page, webmcp, pages_url)
    ended: list[CallRecord] = []
    session.on("toolresponded", ended.append)
    assert (
        page.evaluate("callAsThePage('find_room', {people: 2})") == '{"room":"Harbour","people":2}'
    )
    for _ in range(100):  # round trips to the page, until its events were read and handed on
        if ended:
            break
        session.tools(settle=0)
    assert [(r.tool, types(r)) for r in ended] == [("find_room", ["toolActivated"])]


def test_a_session_attached_to_a_loaded_page_hears_its_forms_too(
    page: Page, pages_url: str
) -> None:
    page.goto(f"{pages_url}/api/activated.html")
    with SyncSession.attach(page) as session:
        assert session.wait_for_tool("find_room", timeout=10) is not None
        result = session.call("find_room", {"people": 3})
        assert types(result.record) == ["toolActivated"]


def test_over_the_browsers_own_devtools_port_a_form_call_records_its_page_events_too(
    pages_url: str,
) -> None:
    async def main() -> tuple[str, list[str], list[str]]:
        async with async_playwright() as p:
            browser = await launch(p, debugging_port=True)
            try:
                page = await browser.new_page()
                async with await WebMCPSession.attach(page, timeout=10) as session:
                    await page.goto(f"{pages_url}/api/activated.html")
                    assert await session.wait_for_tool("slow_search", timeout=10) is not None
                    done = await session.call("find_room", {"people": 5})
                    cancelled = await session.call("slow_search", {"q": "tea"}, timeout=1)
                    await session.settle(cancelled.record, timeout=10)
                    assert session.backend.cdp is not None
                    return session.backend.cdp.path, types(done.record), types(cancelled.record)
            finally:
                await browser.close()

    path, done, cancelled = asyncio.run(asyncio.wait_for(main(), 60))
    assert path == "direct"
    assert done == ["toolActivated"]
    assert cancelled.index("toolActivated") < cancelled.index("timeout")
    assert cancelled.index("timeout") < cancelled.index("toolCancel")
    assert sorted(cancelled) == sorted(
        ["toolActivated", "timeout", "toolCancel", "cancelledInPage", "lateAnswer"]
    )
