"""The session's API where the peers have one, on its sync face: a form tool's form as a
Locator, and tool changes as events and waits, on a page with a form and a late tool and on the
demo shop. (The async core's: tests/session/test_observe.py.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from webmcp_harness.core.records import ToolsChange
from webmcp_harness.sync_api import WebMCPSession as SyncSession
from webmcp_harness.testing.demo import DemoServer

WAIT = 30.0


@pytest.fixture
def late_page(page: Page, webmcp: SyncSession, pages_url: str) -> SyncSession:
    page.goto(f"{pages_url}/api/late.html")
    assert webmcp.wait_for_tool("find_room") is not None
    return webmcp


@pytest.fixture
def shop() -> Iterator[str]:
    with DemoServer() as server:
        yield server.url


def test_a_form_tool_gives_its_form_as_a_locator_and_an_imperative_tool_none(
    late_page: SyncSession, page: Page
) -> None:
    page.evaluate("addLateTool()")
    assert late_page.wait_for_tool("book_room") is not None
    tools = {t.name: t for t in late_page.tools(settle=0)}
    form = tools["find_room"].form
    assert form.get_attribute("id") == "rooms"
    form.locator("input[name=people]").fill("4")
    assert page.input_value("#rooms input[name=people]") == "4"
    assert tools["book_room"].form is None


def test_the_demo_shops_search_form_is_its_tools_form(page: Page, shop: str) -> None:
    with SyncSession.attach(page) as session:
        page.goto(shop)
        search = session.wait_for_tool("search_products")
        assert search is not None
        assert search.form.count() == 1
        assert search.form.locator("input[name=q]").count() == 1


def test_on_toolschanged_tells_of_the_late_tool_and_of_the_form_removed(
    late_page: SyncSession, page: Page
) -> None:
    changes: list[ToolsChange] = []
    stop = late_page.on("toolschanged", changes.append)
    page.evaluate("addLateTool()")
    assert late_page.wait_for_tool("book_room") is not None
    page.evaluate("dropForm()")
    gone = late_page.wait_for_tools_changed(timeout=WAIT)
    stop()
    added = [t.name for c in changes for t in c.added]
    removed = [t.name for c in changes for t in c.removed]
    assert added == ["book_room"]
    assert removed == ["find_room"] or (gone is not None and gone.removed[0].name == "find_room")


def test_a_form_tool_in_one_of_two_child_frames_with_one_url_gets_its_own_frames_form(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    page.goto(f"{pages_url}/api/twin-frames.html")
    for name in ("note_left", "note_right"):
        assert webmcp.wait_for_tool(name, timeout=WAIT) is not None
    tools = {t.name: t for t in webmcp.tools()}
    far = sorted(name for name in tools if name.startswith("note_far_"))
    near = sorted(name for name in tools if name.startswith("note_anon_"))
    assert (len(far), len(near)) == (2, 2), sorted(tools)
    # Named frames are told apart by name, frames in processes of their own by their session:
    # each tool's form is found in its own frame, where no other frame's tool is.
    for name in ("note_left", "note_right", *far):
        form = tools[name].form
        assert form is not None, name
        assert form.count() == 1, name
        assert form.get_attribute("toolname") == name
    assert tools["note_left"].form.evaluate("form => window.name") == "left"
    # Two frames in the page's process with one URL and no name: nothing tells which is which
    # without marking the page's DOM, so neither gives a form (docs/chromium-webmcp-notes.md).
    assert [tools[name].form for name in near] == [None, None]
