"""WebMCPSession against real pages in real Chromium: every row of the semantics table."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from playwright.sync_api import Page

from async_chromium import AsyncChromium
from webmcp_harness import RETRYABLE, CallResult, WebMCPSession, tool_error_code
from webmcp_harness.core.errors import SessionClosedError, UsageError
from webmcp_harness.sync_api import WebMCPSession as SyncSession


def code(result: Any) -> str | None:
    found = tool_error_code(result)
    return found.value if found else None


def text(result: Any) -> str:
    return str(result["content"][0]["text"]) if result.get("content") else ""


@pytest.fixture
def page(reused_page: Page) -> Page:
    """One page for the whole file: each test opens its own document in it (tests/conftest.py)."""
    return reused_page


@pytest.fixture
def tools_page(page: Page, webmcp: SyncSession, pages_url: str) -> SyncSession:
    page.goto(f"{pages_url}/tools.html")
    page.wait_for_function("window.toolsReady === true")
    return webmcp


def test_tools_lists_every_imperative_tool_with_its_schema(tools_page: SyncSession) -> None:
    tools = {t.name: t for t in tools_page.tools()}
    assert {"echo", "slow", "navigates", "removes_itself"} <= set(tools)
    echo = tools["echo"]
    assert echo.description == "Echo the text back."
    assert echo.input_schema is not None
    assert echo.input_schema["required"] == ["text"]
    assert echo.declarative is False
    assert echo.backend == "cdp"
    assert echo.frame_url.endswith("/tools.html")


def test_a_returned_object_becomes_compact_json_text(tools_page: SyncSession) -> None:
    result = tools_page.call("echo", {"text": "hi"})
    assert result == {"content": [{"type": "text", "text": '{"echo":"hi"}'}]}


def test_non_ascii_objects_arrive_as_objects_not_json_strings(tools_page: SyncSession) -> None:
    result = tools_page.call("returns_object")
    assert json.loads(text(result)) == {"city": "Zürich", "n": 1.5}
    assert tools_page.call("returns_text") == {
        "content": [{"type": "text", "text": "Grüße, 日本 😀"}]
    }


def test_a_closed_session_leaves_nothing_in_the_pages_next_documents(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    counter = 'typeof window[Symbol.for("webmcp-harness:pending-timers")]'  # (quiet.PENDING_JS)
    page.goto(f"{pages_url}/tools.html")
    assert page.evaluate(counter) == "function"
    webmcp.close()
    page.goto(f"{pages_url}/tools.html")
    assert page.evaluate(counter) == "undefined"


def test_the_default_settle_waits_for_a_tool_that_a_timer_leaves_to_later_tasks(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    # A timer stores data, and the framework renders it in slices of their own tasks before an
    # effect registers the tool, about 35 ms after the timer ran: the quiet window (0.1 s) starts
    # when the timer ran, however late the session looks (a timer seen pending, then gone, had
    # just run).
    page.goto(f"{pages_url}/ready/late-render.html")
    assert {t.name for t in webmcp.tools()} == {"list_orders", "count_orders"}


def test_a_page_that_rewrites_set_keeps_its_timers_and_its_late_tool_is_listed(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    page.goto(f"{pages_url}/hostile/sabotage-set.html")
    assert {t.name for t in webmcp.tools()} == {"opening_hours", "store_address"}


def test_undefined_means_no_content(tools_page: SyncSession) -> None:
    assert tools_page.call("returns_undefined") == {"content": []}


def test_an_mcp_shaped_result_passes_through(tools_page: SyncSession) -> None:
    result = tools_page.call("returns_mcp")
    assert result == {"content": [{"type": "text", "text": "already shaped"}], "isError": True}


def test_coded_text_is_returned_as_is_and_reads_back_its_code(tools_page: SyncSession) -> None:
    result = tools_page.call("returns_error_text")
    assert text(result) == "Error [needs_user]: Ask which size."
    assert code(result) == "needs_user"
    assert tools_page.records[-1].code == "needs_user"


def test_uncoded_error_text_is_kept_and_recorded_as_failed(tools_page: SyncSession) -> None:
    result = tools_page.call("returns_plain_error_text")
    assert text(result) == "Error: something broke"
    assert code(result) is None
    assert tools_page.records[-1].code == "failed"


def test_an_unknown_tool_is_unavailable_and_the_message_lists_the_tools(
    tools_page: SyncSession,
) -> None:
    result = tools_page.call("place_order", {})
    assert code(result) == "unavailable"
    assert RETRYABLE["unavailable"] is True
    assert 'No tool "place_order"' in text(result)
    assert "echo" in text(result)
    assert "slow" in text(result)


def test_bad_arguments_are_invalid_input_and_the_tool_never_runs(
    tools_page: SyncSession, page: Page
) -> None:
    result = tools_page.call("echo", {"text": 5})
    assert code(result) == "invalid_input"
    assert "(at /text)" in text(result)
    missing = tools_page.call("echo", {})
    assert "'text' is a required property" in text(missing)
    assert page.evaluate("window.seen.activated") == []


def test_arguments_that_are_not_an_object_are_invalid_input(tools_page: SyncSession) -> None:
    result = tools_page.call("echo", ["not", "an", "object"])  # type: ignore[arg-type]
    assert code(result) == "invalid_input"
    assert "must be a JSON object" in text(result)


def test_a_thrown_error_with_a_code_property_keeps_its_code(tools_page: SyncSession) -> None:
    result = tools_page.call("throws_coded")
    assert text(result) == "Error [needs_user]: Pick a size first."
    assert tools_page.records[-1].browser.exception is not None
    assert tools_page.records[-1].browser.exception["code"] == "needs_user"


def test_a_thrown_error_with_a_coded_message_keeps_its_code(tools_page: SyncSession) -> None:
    result = tools_page.call("throws_coded_text")
    assert text(result) == "Error [unavailable]: Go to /checkout first."


def test_a_plain_throw_is_failed_with_its_message(tools_page: SyncSession) -> None:
    assert text(tools_page.call("throws_plain")) == "Error [failed]: disk full"
    assert text(tools_page.call("throws_string")) == "Error [failed]: just a string"


def test_an_unserialisable_result_is_failed(tools_page: SyncSession) -> None:
    result = tools_page.call("returns_circular")
    assert code(result) == "failed"
    assert "circular" in text(result).lower()


def test_the_tools_own_abort_error_is_cancelled(tools_page: SyncSession) -> None:
    result = tools_page.call("throws_abort")
    assert text(result) == "Error [cancelled]: The person stopped it."
    assert RETRYABLE["cancelled"] is False


def test_a_call_times_out_and_cancels_the_tool_in_the_page(
    tools_page: SyncSession, page: Page
) -> None:
    result = tools_page.call("slow", timeout=1)
    assert code(result) == "timeout"
    assert "no answer in 1 s; it may or may not have worked" in text(result)
    page.wait_for_function("window.seen.cancelled.length === 1 && window.seen.aborted.length === 1")
    assert "timeout" in [e.type for e in tools_page.records[-1].events]


def test_a_hung_main_thread_still_ends_in_a_timeout(tools_page: SyncSession) -> None:
    result = tools_page.call("spins", {"ms": 1500}, timeout=0.3)
    assert code(result) == "timeout"


def test_a_tool_that_navigates_is_interrupted(tools_page: SyncSession, page: Page) -> None:
    result = tools_page.call("navigates")
    assert code(result) == "interrupted"
    assert "navigated" in text(result)
    record = tools_page.records[-1]
    assert any(e.type == "navigated" for e in record.events)
    page.wait_for_url("**/other.html")


def test_a_reload_mid_call_is_interrupted(tools_page: SyncSession) -> None:
    assert code(tools_page.call("reloads")) == "interrupted"


def test_a_one_shot_tool_that_removes_itself_then_answers_gives_its_answer(
    tools_page: SyncSession,
) -> None:
    result = tools_page.call("removes_itself")
    assert result == {"content": [{"type": "text", "text": "done anyway"}]}
    record = tools_page.records[-1]
    assert record.code is None
    assert any(e.type == "toolRemoved" for e in record.events)


def test_a_tool_replaced_mid_call_is_interrupted_and_the_old_answer_is_kept_and_quoted(
    tools_page: SyncSession,
) -> None:
    result = tools_page.call("replaces_itself")
    assert code(result) == "interrupted"
    assert "replaced during the call; the old version answered: old answer" in text(result)
    record = tools_page.records[-1]
    assert record.browser.output == "old answer"
    assert any(e.type == "toolReplaced" for e in record.events)


def test_a_tool_removed_mid_call_that_never_answers_is_interrupted_after_a_grace(
    tools_page: SyncSession,
) -> None:
    result = tools_page.call("removes_itself_silently", timeout=20)
    assert code(result) == "interrupted"
    assert "removed during the call and gave no answer; it may or may not have worked" in text(
        result
    )
    assert tools_page.records[-1].timings["totalMs"] < 10_000  # the grace, not the timeout


def test_argument_keys_reach_the_page_in_the_order_given_where_the_path_keeps_it(
    tools_page: SyncSession,
) -> None:
    result = tools_page.call("key_order", {"c": 1, "b": 2, "a": 3})
    # Chromium's WebMCP.invokeTool reads its input into a sorted dictionary: the native path
    # cannot keep the order (measured; docs/chromium-webmcp-notes.md). The harness sends it as given.
    assert json.loads(text(result)) == {"keys": ["a", "b", "c"]}
    assert list(tools_page.records[-1].input) == ["c", "b", "a"]


def test_the_tool_list_follows_navigation(
    tools_page: SyncSession, page: Page, pages_url: str
) -> None:
    page.goto(f"{pages_url}/other.html")
    assert tools_page.wait_for_tool("other_tool", timeout=5) is not None
    assert [t.name for t in tools_page.tools()] == ["other_tool"]
    assert code(tools_page.call("echo", {"text": "x"})) == "unavailable"


def test_every_call_leaves_a_record(tools_page: SyncSession) -> None:
    tools_page.call("echo", {"text": "hi"})
    tools_page.call("throws_plain")
    first, second = tools_page.records[-2:]
    assert first.input == {"text": "hi"}
    assert first.browser.status == "Completed"
    assert first.result == {"content": [{"type": "text", "text": '{"echo":"hi"}'}]}
    assert second.browser.status == "Error"
    assert second.code == "failed"
    assert first.timings["totalMs"] > 0
    assert json.loads(json.dumps(second.to_dict()))["browser"]["status"] == "Error"


def test_tools_in_an_iframe_are_found_and_called(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    page.goto(f"{pages_url}/frames.html")
    assert webmcp.wait_for_tool("widget_tool", timeout=5) is not None
    widget = next(t for t in webmcp.tools() if t.name == "widget_tool")
    assert widget.frame_url.endswith("/widget.html")
    result = webmcp.call("widget_tool", {"q": "hi"})
    assert result == {"content": [{"type": "text", "text": '{"answer":"widget says hi"}'}]}
    assert code(webmcp.call("widget_tool", {"q": "hi"}, frame="nowhere")) == "unavailable"
    assert code(webmcp.call("widget_tool", {"q": "hi"}, frame="widget.html")) is None


def test_an_iframe_that_navigates_interrupts_only_its_own_call(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    page.goto(f"{pages_url}/frames.html")
    webmcp.wait_for_tool("widget_navigates", timeout=5)
    assert code(webmcp.call("widget_navigates")) == "interrupted"
    assert code(webmcp.call("main_tool")) is None


def test_attaching_after_load_still_finds_iframe_tools(page: Page, pages_url: str) -> None:
    page.goto(f"{pages_url}/frames.html")
    page.wait_for_function(
        "document.querySelector('iframe').contentWindow.document.readyState === 'complete'"
    )
    with SyncSession.attach(page) as late:
        names = {t.name for t in late.tools()}
        assert {"main_tool", "widget_tool"} <= names
        assert code(late.call("widget_tool", {"q": "late"})) is None


def test_a_closed_session_refuses_calls_with_a_clear_error(page: Page) -> None:
    session = SyncSession.attach(page)
    session.close()
    with pytest.raises(SessionClosedError, match="closed"):
        session.call("echo", {})


def test_a_bad_timeout_is_misuse(tools_page: SyncSession) -> None:
    with pytest.raises(UsageError, match="more than 0 seconds"):
        tools_page.call("echo", {"text": "x"}, timeout=-1)


def test_within_reads_a_list_that_never_goes_quiet_as_it_is_by_then(
    page: Page, pages_url: str
) -> None:
    page.goto(f"{pages_url}/hostile/sizes/flicker.html")  # a tool comes and goes all the time
    with SyncSession.attach(page, timeout=10) as session:
        started = time.monotonic()
        names = {t.name for t in session.tools(within=0.5)}
        took = time.monotonic() - started
    assert "stop_flicker" in names
    assert took < 0.5 + 1.5  # within, and a margin (the settle alone runs to its 3 s cap)


def test_a_bad_within_is_misuse(tools_page: SyncSession) -> None:
    with pytest.raises(UsageError, match="within must be a number of seconds"):
        tools_page.tools(within=-1)


# -- async: concurrency and the caller's own cancellation ---------------------------------
def run(chromium: AsyncChromium, coro_fn: Any, url: str) -> Any:
    """coro_fn(session, page)'s value, on url once its tools are ready."""
    return chromium.on_page(url, coro_fn, ready="window.toolsReady === true")


def test_calls_run_concurrently_on_one_page(async_chromium: AsyncChromium, pages_url: str) -> None:
    async def body(session: WebMCPSession, page: Any) -> list[Any]:
        calls = [session.call("delayed", {"ms": 200 - i * 10}) for i in range(16)]
        return list(await asyncio.gather(*calls))

    results = run(async_chromium, body, f"{pages_url}/tools.html")
    assert [json.loads(text(r))["waited"] for r in results] == [200 - i * 10 for i in range(16)]


def test_the_callers_cancellation_cancels_in_the_page_and_propagates(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    async def body(session: WebMCPSession, page: Any) -> tuple[bool, Any, str | None]:
        task = asyncio.create_task(session.call("slow"))
        await page.wait_for_function("window.seen.activated.includes('slow')")
        task.cancel()
        try:
            await task
            raised = False
        except asyncio.CancelledError:
            raised = True
        await page.wait_for_function("window.seen.aborted.length === 1")
        return raised, await page.evaluate("window.seen.cancelled"), session.records[-1].code

    raised, cancelled, recorded = run(async_chromium, body, f"{pages_url}/tools.html")
    assert raised is True
    assert cancelled == ["slow"]
    assert recorded == "cancelled"


# -- a call hands back its own record ------------------------------------------------------
def test_overlapping_calls_each_hand_back_their_own_record(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    async def body(session: WebMCPSession, page: Any) -> list[CallResult]:
        async def let_go_in_reverse() -> None:
            await page.wait_for_function("Object.keys(window.held).length === 2", timeout=10_000)
            await page.evaluate("window.release('second')")
            await page.wait_for_function("!('second' in window.held)", timeout=10_000)
            await page.evaluate("window.release('first')")

        first, second, _ = await asyncio.gather(
            session.call("held_echo", {"text": "first"}),
            session.call("held_echo", {"text": "second"}),
            let_go_in_reverse(),
        )
        return [first, second]

    results = run(async_chromium, body, f"{pages_url}/held.html")
    for result, text in zip(results, ("first", "second"), strict=True):
        assert result == {"content": [{"type": "text", "text": f'{{"echo":"{text}"}}'}]}
        record = result.record
        assert record.input == {"text": text}
        assert record.result == result
        assert record.code is None
        assert record.browser.status == "Completed"
        assert record.timings["totalMs"] > 0
    assert results[0].record is not results[1].record


def test_a_call_result_reads_as_the_mcp_result_dict(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    async def body(session: WebMCPSession, page: Any) -> CallResult:
        calling = asyncio.ensure_future(session.call("held_echo", {"text": "x"}))
        await page.wait_for_function("'x' in window.held", timeout=10_000)
        await page.evaluate("window.release('x')")
        return await calling

    result = run(async_chromium, body, f"{pages_url}/held.html")
    plain = {"content": [{"type": "text", "text": '{"echo":"x"}'}]}
    assert result == plain
    assert plain == result
    assert dict(result) == plain
    assert json.dumps(result) == json.dumps(plain)  # as a plain dict, as before
    assert isinstance(result, dict)
    assert result.result == plain
    assert result.record.result == plain
    assert result["content"] == plain["content"]
    assert result.get("isError") is None
    assert "isError" not in result
    assert list(result) == ["content"]
    assert len(result) == 1
    assert tool_error_code(result) is None
    assert repr(result).startswith("CallResult({'content'")


def test_renumbering_a_record_leaves_the_other_open_call_alone(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    async def body(session: WebMCPSession, page: Any) -> tuple[Any, ...]:
        first, second = await asyncio.gather(
            session.call("confirm_first", {"note": "a"}),
            session.call("confirm_second", {"note": "b"}),
        )
        assert [first.record.pending, second.record.pending] == [True, True]
        # A checker numbers calls across pages: it gives the first call the second's number.
        first.record.number = second.record.id
        first.record.id = second.record.id  # as it once did, to the session's own id
        second_answer = await session.confirm_pending(second.record, timeout=5)
        first_answer = await session.confirm_pending(first.record, timeout=5)
        return first, second, first_answer, second_answer

    first, second, first_answer, second_answer = run(async_chromium, body, f"{pages_url}/held.html")
    assert tool_error_code(first) == tool_error_code(second) == "needs_user"
    assert json.loads(first_answer["content"][0]["text"]) == {"form": "first", "note": "a"}
    assert json.loads(second_answer["content"][0]["text"]) == {"form": "second", "note": "b"}
    assert first.record.late_answer == first_answer
    assert second.record.late_answer == second_answer
    assert first.record.to_dict()["id"] == second.record.to_dict()["id"]  # shown as renumbered
