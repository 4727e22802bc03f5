"""Assertions in Playwright's `expect` style, for coded results and sessions."""

from __future__ import annotations

import json
from typing import Any, overload

from .records import CallRecord
from .results import ToolErrorCode, ToolResult, tool_error_code
from .session import WebMCPSession as AsyncSession
from .session import live_sessions
from .sync_api import WebMCPSession as SyncSession

__all__ = ["ResultAssertions", "SessionAssertions", "expect"]


def _record_of(result: Any) -> CallRecord | None:
    for session in list(live_sessions()):
        for record in reversed(session.records):
            if record.result is result:
                return record
    return None


def _describe(result: Any) -> str:
    record = _record_of(result)
    if record is None:
        return "result: " + json.dumps(result, ensure_ascii=False, default=str)[:2000]
    data = record.to_dict()
    lines = [
        f"call #{data['id']}: {data['tool']}",
        f"  input:   {json.dumps(data['input'], ensure_ascii=False, default=str)[:500]}",
        f"  browser: {json.dumps(data['browser'], ensure_ascii=False, default=str)[:800]}",
        f"  result:  {json.dumps(data['result'], ensure_ascii=False, default=str)[:800]}",
    ]
    if data["events"]:
        lines.append(f"  events:  {json.dumps(data['events'], default=str)[:500]}")
    return "\n".join(lines)


def _code(result: Any) -> str | None:
    code = tool_error_code(result)
    if code is not None:
        return code.value
    record = _record_of(result)
    if record is not None:
        return record.code
    return "failed" if isinstance(result, dict) and result.get("isError") else None


class ResultAssertions:
    """Assertions about one coded result."""

    def __init__(self, result: ToolResult, *, negate: bool = False) -> None:
        self._result = result
        self._negate = negate

    @property
    def not_(self) -> ResultAssertions:
        return ResultAssertions(self._result, negate=not self._negate)

    def _check(self, ok: bool, message: str) -> None:
        __tracebackhide__ = True
        if ok == self._negate:
            raise AssertionError(f"{message}\n{_describe(self._result)}")

    def to_have_code(self, code: ToolErrorCode | str) -> None:
        """The result is coded with code."""
        __tracebackhide__ = True
        want = ToolErrorCode.parse(code).value
        got = _code(self._result)
        verb = "not to have" if self._negate else "to have"
        self._check(
            got == want, f"expected the result {verb} code {want!r}, got {got or 'success'!r}"
        )

    def not_to_have_code(self, code: ToolErrorCode | str) -> None:
        __tracebackhide__ = True
        self.not_.to_have_code(code)

    def to_succeed(self) -> None:
        """The tool ran and answered without an error."""
        __tracebackhide__ = True
        got = _code(self._result)
        verb = "not to succeed" if self._negate else "to succeed"
        self._check(got is None, f"expected the call {verb}, got code {got or 'success'!r}")

    def not_to_succeed(self) -> None:
        __tracebackhide__ = True
        self.not_.to_succeed()


class SessionAssertions:
    """Assertions about a page's tools."""

    def __init__(self, session: SyncSession | AsyncSession, *, negate: bool = False) -> None:
        self._session = session
        self._negate = negate

    def to_have_tool(self, name: str, *, timeout: float = 5.0) -> None:
        """The tool is registered now, or within timeout seconds (sync sessions)."""
        __tracebackhide__ = True
        session = self._session
        if not isinstance(session, SyncSession):
            raise TypeError(
                "expect(session).to_have_tool needs the sync session; await wait_for_tool"
            )
        if self._negate:
            names = [t.name for t in session.tools()]
            if name in names:
                raise AssertionError(f"expected no tool {name!r}; the page has: {', '.join(names)}")
            return
        if session.wait_for_tool(name, timeout=timeout) is None:
            names = sorted({t.name for t in session.tools()})
            raise AssertionError(
                f"expected a tool {name!r} within {timeout:g} s; the page has: "
                f"{', '.join(names) or 'none'} ({session.page.url})"
            )

    def not_to_have_tool(self, name: str) -> None:
        __tracebackhide__ = True
        SessionAssertions(self._session, negate=not self._negate).to_have_tool(name)


@overload
def expect(subject: SyncSession | AsyncSession) -> SessionAssertions: ...
@overload
def expect(subject: ToolResult | dict[str, Any]) -> ResultAssertions: ...
def expect(subject: Any) -> Any:
    """Assertions about a coded result or a session."""
    if isinstance(subject, (SyncSession, AsyncSession)):
        return SessionAssertions(subject)
    if isinstance(subject, dict):
        return ResultAssertions(subject)  # type: ignore[arg-type]
    raise TypeError(
        f"expect() takes a call result or a WebMCPSession, not {type(subject).__name__}"
    )
