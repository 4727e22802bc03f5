"""The gateway's own logic, over a stand-in session (no browser).

These tests pin what the gateway decides by itself: the check before the page, approvals,
code→kind mapping, never raising. The same flows against the demo site in real Chromium belong
with the session tests.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from webmcp_harness.agent.check import (
    COULDNT_BE_REACHED,
    COULDNT_DECIDE,
    FROM_WHAT_YOU_READ,
    REMOVES_UNPOINTED,
    CheckRequest,
    Decision,
    allow_all,
)
from webmcp_harness.agent.gateway import Gateway
from webmcp_harness.agent.kinds import KINDS, ROWS
from webmcp_harness.errors import SessionClosedError, WebMCPUnavailableError
from webmcp_harness.records import BrowserReport, CallRecord, Tool
from webmcp_harness.results import tool_error

OWNER = "Sam Rivera"
SAYS = "Buy the harbor mug. My email is sam@example.com."
OK = {"content": [{"type": "text", "text": '{"order":"TW-10042"}'}]}


def run_async(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async test in its own event loop (no asyncio plugin needed)."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))  # type: ignore[arg-type]

    return wrapper


class FakePage:
    def __init__(self, webmcp: bool = True) -> None:
        self.webmcp = webmcp
        self.url = "http://127.0.0.1:8000/"

    async def evaluate(self, script: str) -> bool:
        return self.webmcp


class FakeSession:
    """Answers calls from a table; counts what ran in the 'page'."""

    def __init__(self, tools: list[Tool] | None = None, **answers: Any) -> None:
        self._tools = tools if tools is not None else [tool("place_order"), tool("search")]
        self.answers = answers
        self.records: list[CallRecord] = []
        self.ran: list[tuple[str, Any]] = []
        self.page = FakePage()
        self.browser: dict[str, BrowserReport] = {}

    async def tools(self) -> list[Tool]:
        return list(self._tools)

    async def call(self, name: str, args: Any = None, *, timeout: float | None = None) -> Any:
        record = CallRecord(id=len(self.records) + 1, tool=name, input=args)
        record.browser = self.browser.get(name, BrowserReport())
        self.records.append(record)
        self.ran.append((name, args))
        answer = self.answers.get(name, OK)
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            answer = await answer()
        record.result = answer
        return answer

    async def confirm_pending(self, record: CallRecord, *, timeout: float | None = None) -> Any:
        record.pending = False
        return OK


def tool(name: str, **annotations: Any) -> Tool:
    return Tool(name, f"{name} tool", {"type": "object"}, annotations, "frame-1")


def gateway(session: Any, **kw: Any) -> Gateway:
    return Gateway(session, owner=OWNER, instructions=SAYS, **kw)


# -- results and failures -------------------------------------------------------------------
@run_async
async def test_a_result_comes_back_as_the_page_gave_it() -> None:
    session = FakeSession()
    answer = await gateway(session).use_tool("search", {"q": "mug"})
    assert answer == OK
    assert session.ran == [("search", {"q": "mug"})]


CODE_ROWS = [r for r in ROWS if not r.is_condition and r.key is not None]


@pytest.mark.parametrize("row", CODE_ROWS, ids=[str(r.key) for r in CODE_ROWS])
@run_async
async def test_each_code_comes_back_as_its_kind(row: Any) -> None:
    session = FakeSession(search=tool_error(row.key, "what the page said"))
    answer = await gateway(session).use_tool("search", {})
    assert answer["error"] == row.kind
    assert answer["message"].endswith("what the page said")
    assert set(answer) == {"error", "message"}


@run_async
async def test_plain_error_text_is_a_vendor_failure_with_its_message() -> None:
    session = FakeSession(search={"content": [{"type": "text", "text": "Error: Out of stock"}]})
    gw = gateway(session)
    assert await gw.use_tool("search") == {"error": "vendor", "message": "Out of stock"}
    assert gw.calls[-1].code == "failed"


@run_async
async def test_a_browser_without_webmcp_is_not_connected_with_a_card() -> None:
    session = FakeSession()

    async def no_webmcp() -> list[Tool]:
        raise WebMCPUnavailableError()

    session.tools = no_webmcp  # type: ignore[method-assign]
    answer = await gateway(session).use_tool("search")
    assert answer["error"] == "not_connected"
    assert "--enable-features=WebMCP" in answer["card"]["text"]
    assert session.ran == []


@run_async
async def test_a_page_without_model_context_is_not_connected() -> None:
    session = FakeSession(tools=[], search=tool_error("unavailable", "No tool. Tools here: none."))
    session.page.webmcp = False
    answer = await gateway(session).use_tool("search")
    assert answer["error"] == "not_connected"
    assert "http://127.0.0.1:8000/" in answer["card"]["text"]


@run_async
async def test_a_page_with_webmcp_but_not_this_tool_is_not_found() -> None:
    session = FakeSession(tools=[], search=tool_error("unavailable", "No tool. Tools here: none."))
    assert (await gateway(session).use_tool("search"))["error"] == "not_found"


@run_async
async def test_a_permissions_policy_refusal_is_forbidden() -> None:
    session = FakeSession(search=tool_error("failed", "x"))
    session.browser["search"] = BrowserReport(
        status="Error", error_text="The tool is blocked by the page's Permissions Policy."
    )
    assert (await gateway(session).use_tool("search"))["error"] == "forbidden"


@run_async
async def test_a_form_with_nothing_to_confirm_on_is_unsupported() -> None:
    session = FakeSession(search=tool_error("unavailable", "search has no submit button."))
    assert (await gateway(session).use_tool("search"))["error"] == "unsupported"


@run_async
async def test_an_output_over_the_size_limit_is_too_large() -> None:
    big = {"content": [{"type": "text", "text": "x" * 2000}]}
    session = FakeSession(search=big)
    answer = await gateway(session, max_output_bytes=1000).use_tool("search")
    assert answer["error"] == "too_large"
    assert "over the limit of 1,000 bytes" in answer["message"]


@run_async
async def test_a_session_that_fails_is_an_answer_never_an_exception() -> None:
    session = FakeSession(search=SessionClosedError(), place_order=RuntimeError("bug"))
    gw = gateway(session)
    assert (await gw.use_tool("search"))["error"] == "unavailable"
    assert (await gw.use_tool("place_order", {}))["error"] == "unavailable"
    assert (await gw.use_tool(3, {}))["error"] == "bad_input"  # type: ignore[arg-type]


@run_async
async def test_no_session_at_all_is_not_connected() -> None:
    answer = await Gateway(None).use_tool("search")
    assert answer["error"] == "not_connected"
    assert answer["error"] in KINDS


@run_async
async def test_the_callers_cancellation_propagates() -> None:
    started = asyncio.Event()

    async def hang() -> Any:
        started.set()
        await asyncio.Event().wait()

    session = FakeSession(search=hang)
    task = asyncio.create_task(gateway(session).use_tool("search"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


# -- the check in front ---------------------------------------------------------------------
@run_async
async def test_a_held_call_runs_nothing_in_the_page() -> None:
    session = FakeSession(tools=[tool("remove_from_cart")])
    answer = await gateway(session).use_tool("remove_from_cart", {"product_id": "kelp-tote"})
    assert answer == {
        "not_done_yet": f"Check with Sam first: {REMOVES_UNPOINTED}. Ask in your reply, saying "
        "what you would do. Once they say yes, do it again."
    }
    assert session.ran == []


@run_async
async def test_once_the_owner_says_yes_the_same_call_goes_through_once() -> None:
    session = FakeSession(tools=[tool("remove_from_cart")])
    gw = gateway(session)
    call = {"product_id": "kelp-tote"}
    assert "not_done_yet" in await gw.use_tool("remove_from_cart", call)
    assert gw.approve("remove_from_cart")
    assert "not_done_yet" in await gw.use_tool("remove_from_cart", {"product_id": "driftwood-cap"})
    assert await gw.use_tool("remove_from_cart", dict(call)) == OK
    assert session.ran == [("remove_from_cart", call)]
    assert gw.calls[-1].decision is not None
    assert gw.calls[-1].decision.approved
    assert "not_done_yet" in await gw.use_tool("remove_from_cart", call)


@run_async
async def test_a_stop_cannot_be_approved_away() -> None:
    session = FakeSession()
    gw = gateway(session)
    call = {"payment": {"card_number": "4111 1111 1111 1111"}}
    answer = await gw.use_tool("place_order", call)
    assert answer == {
        "refused": "Not done: it would send a password, card or bank number, or an ID number. "
        "Tell Sam, and don't try another way."
    }
    assert not gw.approve("place_order")
    assert not gw.approve("place_order", call)
    assert "refused" in await gw.use_tool("place_order", call)
    assert session.ran == []


@run_async
async def test_an_approval_comes_back_when_the_call_never_reached_the_tool() -> None:
    session = FakeSession(remove_from_cart=tool_error("unavailable", "not on this page"))
    gw = gateway(session)
    call = {"product_id": "kelp-tote"}
    await gw.use_tool("remove_from_cart", call)
    gw.approve("remove_from_cart")
    assert (await gw.use_tool("remove_from_cart", call))["error"] == "not_found"
    assert gw.approvals.approved("remove_from_cart", call)


@run_async
async def test_a_call_that_came_from_the_page_is_held() -> None:
    session = FakeSession()
    answer = await gateway(session).use_tool("search", {"q": "mug"}, source="page")
    assert FROM_WHAT_YOU_READ in answer["not_done_yet"]
    assert session.ran == []


@run_async
async def test_the_check_sees_the_tools_annotations_and_the_owner() -> None:
    seen: list[CheckRequest] = []

    def check(request: CheckRequest) -> Decision:
        seen.append(request)
        return Decision.allow()

    session = FakeSession(tools=[tool("search", readOnlyHint=True)])
    await gateway(session, check=check).use_tool("search", {"q": "mug"})
    assert seen == [
        CheckRequest(
            "search", {"q": "mug"}, {"readOnlyHint": True}, "owner", SAYS, OWNER, "search tool"
        )
    ]


@run_async
async def test_a_check_that_raises_holds_the_call_as_undecided() -> None:
    def check(request: CheckRequest) -> Decision:
        raise ValueError("bug")

    session = FakeSession()
    answer = await gateway(session, check=check).use_tool("search")
    assert COULDNT_DECIDE in answer["not_done_yet"]
    assert session.ran == []


@run_async
async def test_a_check_that_does_not_answer_in_time_holds_the_call_as_unreached() -> None:
    async def check(request: CheckRequest) -> Decision:
        await asyncio.Event().wait()
        return Decision.allow()

    session = FakeSession()
    answer = await gateway(session, check=check, check_timeout=0.05).use_tool("search")
    assert COULDNT_BE_REACHED in answer["not_done_yet"]
    assert session.ran == []


@run_async
async def test_the_owner_may_be_a_scripts_owner() -> None:
    from webmcp_harness.agent.script import Owner

    session: Any = FakeSession()
    gw = Gateway(session, owner=Owner("Dana Reyes", "Remove kelp-tote."))
    assert (gw.owner, gw.instructions) == ("Dana Reyes", "Remove kelp-tote.")


# -- the person's side and the model's view -------------------------------------------------
@run_async
async def test_confirm_submits_the_form_that_waits_for_the_person() -> None:
    session = FakeSession(search=tool_error("needs_user", "search waits for the person."))
    gw = gateway(session, check=allow_all)
    assert (await gw.use_tool("search", {"q": "x"}))["error"] == "vendor"
    session.records[-1].pending = True
    assert await gw.confirm("search") == OK
    assert (await gw.confirm("search"))["error"] == "not_found"


@run_async
async def test_tool_specs_are_an_mcp_tools_list() -> None:
    session = FakeSession(tools=[tool("search", readOnly=True), tool("search"), tool("pay")])
    specs = await gateway(session).tool_specs()
    assert specs == [
        {
            "name": "search",
            "description": "search tool",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnly": True, "readOnlyHint": True},
        },
        {"name": "pay", "description": "pay tool", "inputSchema": {"type": "object"}},
    ]


@run_async
async def test_every_call_leaves_a_json_ready_record() -> None:
    session = FakeSession()
    gw = gateway(session)
    await gw.use_tool("search", {"q": "mug"})
    await gw.use_tool("search", {"q": "mug"}, source="page")
    first, second = (c.to_dict() for c in gw.calls)
    assert first["outcome"]["ok"] is True
    assert first["record"]["tool"] == "search"
    assert second["outcome"]["held"] == "ask"
    assert second["record"] is None
    assert second["decision"]["rule"] == "source"
