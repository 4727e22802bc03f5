"""Assertions in Playwright's `expect` style, for coded results and sessions.

    expect(result).to_have_code("timeout")
    expect(result).to_succeed()
    expect(webmcp).to_have_tool("place_order")          # waits, up to timeout seconds
    expect(webmcp).to_match_tool_snapshot()             # the tools' contracts, against a file
    await expect(async_session).to_have_tool("place_order")

Each has a `not_to_...` form (but the snapshot). A failed result assertion shows the call's
record: its input, what the browser reported and the coded result.

Timeouts are in seconds, as everywhere in webmcp-harness (Playwright's `expect` takes
milliseconds): a wait of 100 s or more reads as milliseconds and is refused with a message.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, overload

from ..core.errors import UsageError
from ..core.records import CallRecord, CallResult
from ..core.results import ToolErrorCode, ToolResult, code_of
from ..core.timeouts import EXPECT_MOST, EXPECT_TIMEOUT, seconds_problem
from ..session import WebMCPSession as AsyncSession
from ..session.adapters import run_sync
from ..session.sync import WebMCPSession as SyncSession
from .snapshots import SnapshotPlace, match_snapshot, place_of

__all__ = ["AsyncSessionAssertions", "ResultAssertions", "SessionAssertions", "expect"]

_POLL = 0.05
_QUOTE = 800


# -- results -------------------------------------------------------------------------------
def _record_of(result: object) -> CallRecord | None:
    """The record of the call that gave result (a `CallResult`); None for any other mapping."""
    return result.record if isinstance(result, CallResult) else None


def _code(result: Mapping[str, Any]) -> str | None:
    """The result's code as text; None for success."""
    code = code_of(result)
    return None if code is None else code.value


def _dump(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _QUOTE else text[: _QUOTE - 1] + "…"


def _describe(result: Mapping[str, Any], record: CallRecord | None) -> str:
    if record is None:
        return f"result:  {_dump(result)}\n(not a call of a live session: no record to show)"
    lines = [
        f"call #{record.shown_number}: {record.tool}"
        + (f" in frame {record.frame_url}" if record.frame_url else ""),
        f"  input:   {_dump(record.input)}",
        f"  browser: {_dump(record.browser.to_dict())}",
        f"  result:  {_dump(record.result)}",
    ]
    if record.events:
        lines.append(f"  events:  {_dump([e.to_dict() for e in record.events])}")
    if record.pending:
        lines.append("  pending: the page has not answered yet")
    if record.late_answer is not None:
        lines.append(f"  late:    {_dump(record.late_answer)}")
    if record.note:
        lines.append(f"  note:    {record.note}")
    return "\n".join(lines)


class ResultAssertions:
    """Assertions about one coded result (a call's return value)."""

    def __init__(self, result: Mapping[str, Any], *, negate: bool = False) -> None:
        self._result = result
        self._negate = negate

    def _check(self, passed: bool, wanted: str, record: CallRecord | None) -> None:
        __tracebackhide__ = True
        if passed == self._negate:
            got = _code(self._result) or "success"
            raise AssertionError(
                f"expected the result {'not ' if self._negate else ''}{wanted}, got {got!r}\n"
                + _describe(self._result, record)
            )

    def to_have_code(self, code: ToolErrorCode | str) -> None:
        """The result is coded `code` (one of the seven `ToolErrorCode`s)."""
        __tracebackhide__ = True
        want = ToolErrorCode.parse(code).value
        record = _record_of(self._result)
        self._check(_code(self._result) == want, f"to have code {want!r}", record)

    def not_to_have_code(self, code: ToolErrorCode | str) -> None:
        """The result is not coded `code` (a success passes)."""
        __tracebackhide__ = True
        ResultAssertions(self._result, negate=not self._negate).to_have_code(code)

    def to_succeed(self) -> None:
        """The tool ran and answered without an error."""
        __tracebackhide__ = True
        record = _record_of(self._result)
        self._check(_code(self._result) is None, "to succeed", record)

    def not_to_succeed(self) -> None:
        """The result is an error, whatever its code."""
        __tracebackhide__ = True
        ResultAssertions(self._result, negate=not self._negate).to_succeed()


# -- tools ---------------------------------------------------------------------------------
def _seconds(timeout: float) -> float:
    """timeout, refused with a clear message when it reads as milliseconds (or is no number)."""
    problem = seconds_problem(timeout, most=EXPECT_MOST)
    if problem:
        raise UsageError(f"expect(...): {problem}")
    return float(timeout)


def _snapshot_file(
    session: AsyncSession, name: str | None, path: str | os.PathLike[str] | None
) -> tuple[Path, SnapshotPlace]:
    place = place_of(session)
    if path is not None:
        return Path(path), place or SnapshotPlace(Path(path).parent, "")
    if place is None:
        raise UsageError(
            "to_match_tool_snapshot() names its file after the test of the webmcp fixture; "
            "for a session of your own, pass path='tools.json'"
        )
    return place.next_path(name), place


async def _snapshot(
    session: AsyncSession, name: str | None, path: str | os.PathLike[str] | None, timeout: float
) -> str | None:
    limit = _seconds(timeout)
    file, place = _snapshot_file(session, name, path)
    return await match_snapshot(session, file, place, timeout=limit)


async def _settle(session: AsyncSession, name: str, present: bool, timeout: float) -> str | None:
    """Wait until the page has (or lacks) tool `name`; None when it did, else what went wrong."""
    timeout = _seconds(timeout)
    if present and await session.wait_for_tool(name, timeout=timeout) is not None:
        return None
    deadline = time.monotonic() + (0 if present else timeout)
    while True:
        names = sorted({t.name for t in await session.tools()})
        if (name in names) == present:
            return None
        if time.monotonic() >= deadline:
            break
        await asyncio.sleep(_POLL)  # a removal has no event to wait on: poll, as Playwright does
    try:
        url = session.page.url
    except Exception:
        url = "a closed page"
    return (
        f"expected {'a' if present else 'no'} tool {name!r} within {timeout:g} s; "
        f"the page has: {', '.join(names) or 'no tools'} ({url})"
    )


class SessionAssertions:
    """Assertions about the tools of a sync session's page."""

    def __init__(self, session: SyncSession) -> None:
        self._session = session

    def _expect(self, name: str, present: bool, timeout: float) -> None:
        __tracebackhide__ = True
        problem = run_sync(self._session.page, _settle(self._session.core, name, present, timeout))
        if problem:
            raise AssertionError(problem)

    def to_have_tool(self, name: str, *, timeout: float = EXPECT_TIMEOUT) -> None:
        """The page has tool `name` now or within `timeout` seconds."""
        __tracebackhide__ = True
        self._expect(name, True, timeout)

    def not_to_have_tool(self, name: str, *, timeout: float = EXPECT_TIMEOUT) -> None:
        """The page has no tool `name` now or within `timeout` seconds."""
        __tracebackhide__ = True
        self._expect(name, False, timeout)

    def to_match_tool_snapshot(
        self,
        name: str | None = None,
        *,
        timeout: float = EXPECT_TIMEOUT,
        path: str | os.PathLike[str] | None = None,
    ) -> None:
        """The page's tool contracts match the snapshot beside the test, within `timeout` s.

        The file is `<test file>-snapshots/<test name>-<n>.json` (or `name`, or `path`). A missing
        one is written and the test fails once; `--webmcp-update-snapshots` rewrites them.
        """
        __tracebackhide__ = True
        problem = run_sync(self._session.page, _snapshot(self._session.core, name, path, timeout))
        if problem:
            raise AssertionError(problem)


class AsyncSessionAssertions:
    """Awaitable assertions about the tools of an async session's page."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def _expect(self, name: str, present: bool, timeout: float) -> None:
        __tracebackhide__ = True
        problem = await _settle(self._session, name, present, timeout)
        if problem:
            raise AssertionError(problem)

    async def to_have_tool(self, name: str, *, timeout: float = EXPECT_TIMEOUT) -> None:
        """The page has tool `name` now or within `timeout` seconds."""
        __tracebackhide__ = True
        await self._expect(name, True, timeout)

    async def not_to_have_tool(self, name: str, *, timeout: float = EXPECT_TIMEOUT) -> None:
        """The page has no tool `name` now or within `timeout` seconds."""
        __tracebackhide__ = True
        await self._expect(name, False, timeout)

    async def to_match_tool_snapshot(
        self,
        name: str | None = None,
        *,
        timeout: float = EXPECT_TIMEOUT,
        path: str | os.PathLike[str] | None = None,
    ) -> None:
        """The page's tool contracts match the snapshot at `path` (see the sync form)."""
        __tracebackhide__ = True
        problem = await _snapshot(self._session, name, path, timeout)
        if problem:
            raise AssertionError(problem)


@overload
def expect(subject: SyncSession) -> SessionAssertions: ...
@overload
def expect(subject: AsyncSession) -> AsyncSessionAssertions: ...
@overload
def expect(subject: ToolResult | Mapping[str, Any]) -> ResultAssertions: ...
def expect(subject: object) -> object:
    """Assertions about a call's coded result, or about a session's tools."""
    if isinstance(subject, SyncSession):
        return SessionAssertions(subject)
    if isinstance(subject, AsyncSession):
        return AsyncSessionAssertions(subject)
    if isinstance(subject, Mapping):
        return ResultAssertions(subject)
    raise TypeError(
        f"expect() takes a call's result or a WebMCPSession, not {type(subject).__name__}"
    )
