"""Each internal of Playwright and of the MCP SDK that `session/adapters.py` reaches into is still
there, with the shape used, on the installed versions: an upgrade that moves one fails here first.
"""

from __future__ import annotations

import asyncio
import inspect

import playwright.async_api as async_api
import pytest
from mcp.server.lowlevel import Server
from mcp.server.session import ServerSession
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from webmcp_harness.session.adapters import (
    as_async,
    async_view,
    cdp_call,
    client_key,
    impl_of,
    is_sync,
    is_target_closed,
    parse_regex,
    run_sync,
    sync_view,
    without_middleware,
)


def test_both_apis_wrap_one_implementation_object_with_what_the_backends_use(page: Page) -> None:
    impl = impl_of(page)
    assert impl is not page
    assert impl_of(as_async(page)) is impl  # one key, whichever wrapper
    assert impl_of(impl) is impl
    view = async_view(impl)
    assert isinstance(view, async_api.Page)
    assert isinstance(as_async(page), async_api.Page)
    assert is_sync(page)
    assert not is_sync(view)
    # What the CDP source reads and calls on implementation objects.
    for name in ("context", "frames", "main_frame", "on", "remove_listener", "opener"):
        assert hasattr(impl, name), name
    frame = impl.main_frame
    assert frame.parent_frame is None
    assert callable(frame.is_detached)
    assert frame.page is impl
    assert hasattr(impl.context, "browser")
    assert isinstance(async_view(impl.context), async_api.BrowserContext)


def test_an_async_locator_has_a_sync_view_that_the_sync_api_uses(page: Page) -> None:
    page.set_content("<form toolname='find'><input name=q></form>")
    locator = async_view(impl_of(page).main_frame).locator("form")
    view = sync_view(locator)
    assert view.count() == 1
    assert view.get_attribute("toolname") == "find"


def test_a_sync_page_runs_a_coroutine_on_its_own_loop(page: Page) -> None:
    async def answer() -> int:
        await asyncio.sleep(0)  # sleep-ok: a yield to the loop, so the coroutine really suspends
        return 42

    assert run_sync(page, answer()) == 42


def test_a_cdp_call_answers_and_fails_as_send_does(page: Page) -> None:
    cdp = page.context.new_cdp_session(page)
    params = {"expression": "6 * 7", "returnByValue": True}
    assert run_sync(cdp, cdp_call(cdp, "Runtime.evaluate", params)) == cdp.send(
        "Runtime.evaluate", params
    )
    with pytest.raises(PlaywrightError) as sent:
        cdp.send("WebMCP.invokeTool", {"frameId": "nope", "toolName": "x", "input": {}})
    with pytest.raises(PlaywrightError) as called:
        run_sync(cdp, cdp_call(cdp, "WebMCP.invokeTool", {"frameId": "nope", "toolName": "x"}))
    assert "Protocol error (WebMCP.invokeTool): " in str(called.value)
    assert type(called.value) is type(sent.value)


def test_a_closed_target_is_told_by_its_error_class(page: Page) -> None:
    other = page.context.new_page()
    other.close()
    with pytest.raises(PlaywrightError) as caught:
        other.evaluate("1")
    assert is_target_closed(caught.value)
    assert not is_target_closed(PlaywrightError("something else"))


def test_the_tracing_group_types_are_importable() -> None:
    from playwright._impl._api_structures import Location
    from playwright.async_api._generated import Tracing

    assert "file" in Location.__annotations__
    assert callable(Tracing.group)


def test_an_mcp_server_session_keeps_its_clients_connection() -> None:
    assert "_connection" in ServerSession.__init__.__code__.co_names  # self._connection = ...
    assert "connection" in inspect.signature(ServerSession).parameters

    class Connection:
        protocol_version = "2025-06-18"

    connection = Connection()
    session = ServerSession(request_outbound=object(), connection=connection)  # type: ignore[arg-type]
    assert client_key(session) == id(connection)


def test_an_mcp_server_has_a_middleware_list_to_empty() -> None:
    server: Server[object] = Server("test")
    assert isinstance(server.middleware, list)
    without_middleware(server)
    assert server.middleware == []


def test_pythons_regex_parser_gives_the_tree_the_input_generator_walks() -> None:
    tree = list(parse_regex(r"^a[0-9]{2,}(ab|cd)$"))
    assert [str(op) for op, _ in tree] == ["AT", "LITERAL", "MAX_REPEAT", "SUBPATTERN", "AT"]
    low, high, sub = tree[2][1]
    assert (low, str(high)) == (2, "MAXREPEAT")
    assert [str(op) for op, _ in sub] == ["IN"]
    assert [(str(op), arg) for op, arg in sub[0][1]] == [("RANGE", (48, 57))]
    group, _add, _del, inside = tree[3][1]
    assert group == 1
    [(op, (_, branches))] = list(inside)
    assert str(op) == "BRANCH"
    assert [[chr(arg) for _, arg in b] for b in branches] == [["a", "b"], ["c", "d"]]
