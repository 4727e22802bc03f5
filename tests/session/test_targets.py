"""Every target of a page: cross-site frames, nested frames, frames that navigate, popups, SPAs.

The pages in `pages/sites/` are served from 127.0.0.1; their widgets come from `localhost` on the
same port, which is another site, so Chromium runs them in their own renderer process.
"""

from __future__ import annotations

import gc
import json
import weakref
from typing import Any

from playwright.async_api import Browser
from playwright.sync_api import Page

from async_chromium import AsyncChromium
from webmcp_harness import WebMCPSession, tool_error_code
from webmcp_harness.core.records import Tool
from webmcp_harness.sync_api import WebMCPSession as SyncSession


def code(result: Any) -> str | None:
    found = tool_error_code(result)
    return found.value if found else None


def text(result: Any) -> str:
    return str(result["content"][0]["text"]) if result.get("content") else ""


def cross(pages_url: str) -> str:
    return pages_url.replace("127.0.0.1", "localhost")


def open_shop(page: Page, pages_url: str, query: str = "") -> dict[str, Any]:
    page.goto(f"{pages_url}/sites/shop.html{query}")
    ready: dict[str, Any] = page.evaluate("window.chatReady")
    return ready


def by_name(session: SyncSession) -> dict[str, Tool]:
    return {t.name: t for t in session.tools()}


def chat_frame(page: Page) -> Any:
    return next(f for f in page.frames if "/sites/chat.html" in f.url)


# -- a cross-site widget ------------------------------------------------------------------
def test_a_cross_site_widgets_tools_are_listed_with_their_frame(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    tools = by_name(webmcp)
    assert {"search_products", "open_help", "chat_send", "chat_wait", "chat_leave"} <= set(tools)
    chat = tools["chat_send"]
    assert chat.frame_origin == cross(pages_url)
    assert chat.frame_url == f"{cross(pages_url)}/sites/chat.html"
    assert chat.frame_id != next(iter(webmcp.core.backend.main_frame_ids))
    assert chat.page_url == f"{pages_url}/sites/shop.html"
    shop = tools["search_products"]
    assert shop.frame_origin == pages_url
    assert shop.page_id == shop.frame_id == chat.page_id
    assert chat.to_dict()["frameOrigin"] == cross(pages_url)


def test_a_cross_site_widgets_tool_is_called_in_its_own_process(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    result = webmcp.call("chat_send", {"text": "where is my order?"})
    assert code(result) is None
    assert json.loads(text(result)) == {
        "reply": "agent got: where is my order?",
        "origin": cross(pages_url),
    }
    record = webmcp.records[-1]
    assert record.frame_origin == cross(pages_url)
    assert record.page_url == f"{pages_url}/sites/shop.html"


def test_frame_picks_a_tool_by_frame_id_origin_or_url(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    chat = by_name(webmcp)["chat_send"]
    for frame in (chat.frame_id, cross(pages_url), chat.frame_url, "chat.html"):
        assert code(webmcp.call("chat_send", {"text": "hi"}, frame=frame)) is None, frame
    missing = webmcp.call("chat_send", {"text": "hi"}, frame=pages_url)
    assert code(missing) == "unavailable"


def test_a_cross_site_call_is_cancelled_in_the_widget_on_timeout(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    result = webmcp.call("chat_wait", timeout=0.5)
    assert code(result) == "timeout"
    assert "cancelledInPage" in [e.type for e in webmcp.records[-1].events]
    chat_frame(page).wait_for_function("window.seen.cancelled.includes('chat_wait')")


def test_a_widget_that_navigates_interrupts_its_call_and_brings_its_new_tools(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    result = webmcp.call("chat_leave", timeout=10)
    assert code(result) == "interrupted"
    faq = webmcp.wait_for_tool("faq_lookup", timeout=10)
    assert faq is not None
    assert faq.frame_url == f"{cross(pages_url)}/sites/faq.html"
    assert "chat_send" not in by_name(webmcp)
    answer = webmcp.call("faq_lookup", {"topic": "returns"})
    assert json.loads(text(answer))["origin"] == cross(pages_url)
    assert code(webmcp.call("search_products", {"q": "tea"})) is None


def test_a_widget_without_allow_tools_has_no_tools_and_does_not_hang(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    ready = open_shop(page, pages_url, "?allow=0")
    assert ready["error"].startswith("NotAllowedError")
    assert set(by_name(webmcp)) == {"search_products", "open_help"}
    result = webmcp.call("chat_send", {"text": "hi"}, timeout=1)
    assert code(result) == "unavailable"
    assert "search_products" in text(result)
    assert webmcp.records[-1].timings["totalMs"] < 1500


# -- nested frames and frames that come back ----------------------------------------------
def test_nested_frames_inside_a_cross_site_widget_are_all_followed(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url, "?nested=1")
    frames = {f.url.split("/")[-1]: f for f in page.frames}
    frames["rating.html"].wait_for_load_state()
    frames["transcript.html"].wait_for_load_state()
    rate = webmcp.wait_for_tool("rate_chat", timeout=10)
    transcript = webmcp.wait_for_tool("email_transcript", timeout=10)
    assert rate is not None
    assert transcript is not None
    assert rate.frame_origin == pages_url  # back on the shop's site, two levels down
    assert transcript.frame_origin == cross(pages_url)  # in-process with the chat
    assert json.loads(text(webmcp.call("rate_chat", {"stars": 5}))) == {
        "thanks": 5,
        "origin": pages_url,
    }
    assert json.loads(text(webmcp.call("email_transcript")))["origin"] == cross(pages_url)


def test_a_frame_that_leaves_for_the_pages_own_site_and_comes_back_is_followed(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    assert webmcp.wait_for_tool("chat_send", timeout=10) is not None
    page.evaluate(f"document.getElementById('chat').src = '{pages_url}/sites/faq.html'")
    local = webmcp.wait_for_tool("faq_lookup", timeout=10)
    assert local is not None
    assert local.frame_origin == pages_url
    assert "chat_send" not in by_name(webmcp)
    assert json.loads(text(webmcp.call("faq_lookup", {"topic": "x"})))["origin"] == pages_url
    page.evaluate(f"document.getElementById('chat').src = '{cross(pages_url)}/sites/chat.html'")
    back = webmcp.wait_for_tool("chat_send", timeout=10)
    assert back is not None
    assert back.frame_origin == cross(pages_url)
    assert "faq_lookup" not in by_name(webmcp)
    assert code(webmcp.call("chat_send", {"text": "again"})) is None


def test_a_widget_removed_mid_call_interrupts_the_call(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    assert webmcp.wait_for_tool("chat_wait", timeout=10) is not None
    page.evaluate("setTimeout(() => document.getElementById('chat').remove(), 300)")
    result = webmcp.call("chat_wait", timeout=10)
    assert code(result) == "interrupted"
    assert "chat_send" not in by_name(webmcp)


# -- popups ---------------------------------------------------------------------------------
def test_a_popup_a_tool_opens_is_followed_and_its_tools_say_which_page(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    with page.context.expect_page() as opened:
        assert code(webmcp.call("open_help")) is None
    popup = opened.value
    popup.wait_for_load_state()
    help_tool = webmcp.wait_for_tool("help_search", timeout=10)
    assert help_tool is not None
    assert help_tool.page_url == f"{pages_url}/sites/help.html"
    assert help_tool.page_id != next(iter(webmcp.core.backend.main_frame_ids))
    answer = webmcp.call("help_search", {"q": "return a mug"})
    assert json.loads(text(answer)) == {"article": "How to return a mug"}
    popup.evaluate("setTimeout(() => window.close(), 300)")
    assert code(webmcp.call("help_wait", timeout=10)) == "interrupted"
    assert "help_search" not in by_name(webmcp)
    assert code(webmcp.call("search_products", {"q": "tea"})) is None


# -- single-page apps -----------------------------------------------------------------------
def test_a_pushstate_route_change_keeps_the_frame_url_current(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    page.goto(f"{pages_url}/sites/spa.html")
    page.wait_for_function("window.toolsReady === true")
    assert code(webmcp.call("go_to", {"route": "cart"})) is None
    cart = webmcp.wait_for_tool("view_cart", timeout=10)
    assert cart is not None
    assert cart.frame_url == f"{pages_url}/sites/spa/cart"
    assert by_name(webmcp)["go_to"].frame_url == f"{pages_url}/sites/spa/cart"
    assert "list_deals" not in by_name(webmcp)
    assert json.loads(text(webmcp.call("view_cart")))["path"] == "/sites/spa/cart"
    assert webmcp.records[-1].frame_url == f"{pages_url}/sites/spa/cart"
    page.evaluate("location.hash = 'top'")
    page.wait_for_function("location.hash === '#top'")
    webmcp.tools()
    assert by_name(webmcp)["go_to"].frame_url == f"{pages_url}/sites/spa/cart#top"


# -- unknown tools --------------------------------------------------------------------------
def test_an_unknown_tool_is_unavailable_within_the_timeout_and_suggests_a_close_name(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    webmcp.tools()
    result = webmcp.call("chat_sned", {"text": "hi"}, timeout=1)
    assert code(result) == "unavailable"
    assert 'Did you mean "chat_send"?' in text(result)
    assert "search_products" in text(result)
    assert webmcp.records[-1].timings["totalMs"] < 1500


def test_a_tool_registered_shortly_after_the_call_is_still_found(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    open_shop(page, pages_url)
    page.evaluate(
        """setTimeout(() => document.modelContext.registerTool({
             name: "late_tool", description: "Comes late.", execute: async () => "late" }), 200)"""
    )
    assert text(webmcp.call("late_tool", timeout=5)) == "late"


# -- closing --------------------------------------------------------------------------------
def test_closed_sessions_are_garbage_after_many_rounds(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    async def main(browser: Browser) -> int:
        context = await browser.new_context()
        try:
            page = await context.new_page()
            await page.goto(f"{pages_url}/sites/shop.html")
            await page.evaluate("window.chatReady")
            closed: list[weakref.ref[WebMCPSession]] = []
            for _ in range(5):
                session = await WebMCPSession.attach(page, timeout=10)
                assert code(await session.call("chat_send", {"text": "x"})) is None
                await session.close()
                closed.append(weakref.ref(session))
            del session
            gc.collect()
            return sum(ref() is not None for ref in closed)
        finally:
            await context.close()

    alive = async_chromium.run(main(async_chromium.browser))
    assert alive == 0
