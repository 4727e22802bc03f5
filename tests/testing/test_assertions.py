"""`expect`: results built by hand (no browser), and an async session's awaitable assertions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from async_chromium import AsyncChromium
from webmcp_harness import WebMCPSession, expect, tool_error
from webmcp_harness.testing.assertions import ResultAssertions

SUCCESS = {"content": [{"type": "text", "text": '{"ok":true}'}]}


def test_to_have_code_reads_a_coded_result() -> None:
    expect(tool_error("timeout", "no answer in 1 s")).to_have_code("timeout")
    expect(tool_error("timeout", "no answer in 1 s")).not_to_have_code("failed")
    expect(SUCCESS).not_to_have_code("timeout")


def test_a_failed_assertion_shows_the_result_when_no_call_made_it() -> None:
    with pytest.raises(AssertionError) as caught:
        expect(SUCCESS).to_have_code("needs_user")
    assert str(caught.value).splitlines() == [
        "expected the result to have code 'needs_user', got 'success'",
        'result:  {"content": [{"type": "text", "text": "{\\"ok\\":true}"}]}',
        "(not a call of a live session: no record to show)",
    ]


def test_uncoded_errors_count_as_failed() -> None:
    for result in (
        {"content": [{"type": "text", "text": "nope"}], "isError": True},
        {"content": [{"type": "text", "text": "Error: the kettle is broken"}]},
    ):
        expect(result).not_to_succeed()
        expect(result).to_have_code("failed")
    with pytest.raises(AssertionError, match="expected the result to succeed, got 'failed'"):
        expect({"content": [], "isError": True}).to_succeed()


def test_negated_forms_fail_with_their_own_wording() -> None:
    with pytest.raises(AssertionError, match="expected the result not to succeed, got 'success'"):
        expect(SUCCESS).not_to_succeed()
    with pytest.raises(AssertionError, match="not to have code 'timeout', got 'timeout'"):
        expect(tool_error("timeout", "late")).not_to_have_code("timeout")


def test_an_unknown_code_or_subject_is_misuse() -> None:
    with pytest.raises(ValueError, match="Unknown tool error code 'slow'"):
        expect(SUCCESS).to_have_code("slow")
    with pytest.raises(TypeError, match="not int"):
        expect(42)  # type: ignore[call-overload]
    assert isinstance(expect(SUCCESS), ResultAssertions)


def run_async(
    chromium: AsyncChromium, body: Callable[[WebMCPSession], Awaitable[Any]], url: str
) -> Any:
    """body(session)'s value, on url in a context of its own of the worker's Chromium."""

    async def on(session: WebMCPSession, _page: Any) -> Any:
        return await body(session)

    return chromium.on_page(url, on)


def test_an_async_session_gets_awaitable_tool_assertions(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    async def body(session: WebMCPSession) -> str:
        await expect(session).to_have_tool("echo")
        await expect(session).not_to_have_tool("no_such_tool", timeout=0.1)
        expect(await session.call("echo", {"text": "hi"})).to_succeed()
        with pytest.raises(AssertionError) as caught:
            await expect(session).to_have_tool("no_such_tool", timeout=0.2)
        return str(caught.value)

    message = run_async(async_chromium, body, f"{pages_url}/tools.html")
    assert message.startswith("expected a tool 'no_such_tool' within 0.2 s; the page has: ")
    assert "echo" in message
    assert message.endswith("/tools.html)")


def test_an_async_session_matches_a_snapshot_at_a_path_of_its_own(
    async_chromium: AsyncChromium, pages_url: str, tmp_path: Path
) -> None:
    snapshot = tmp_path / "tools.json"

    async def body(session: WebMCPSession) -> list[str]:
        await expect(session).to_have_tool("echo")
        messages = []
        for _ in range(2):
            try:
                await expect(session).to_match_tool_snapshot(path=snapshot, timeout=1)
                messages.append("matched")
            except AssertionError as failed:
                messages.append(str(failed))
        return messages

    first, second = run_async(async_chromium, body, f"{pages_url}/tools.html")
    assert first.startswith(f"A snapshot doesn't exist at {snapshot}, writing actual (")
    assert second == "matched"
    assert '"name": "echo"' in snapshot.read_text(encoding="utf-8")


def test_expect_refuses_a_timeout_that_reads_as_milliseconds(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    from webmcp_harness.core.errors import UsageError

    async def body(session: WebMCPSession) -> str:
        with pytest.raises(UsageError) as caught:
            await expect(session).to_have_tool("echo", timeout=2000)
        return str(caught.value)

    message = run_async(async_chromium, body, f"{pages_url}/tools.html")
    assert "timeout=2000 looks like milliseconds" in message
    assert "Write timeout=2 for 2000 ms" in message
