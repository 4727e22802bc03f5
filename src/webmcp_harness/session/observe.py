"""Calls that others make on the page, recorded as the session records its own.

The browser reports every tool call on a page through the DevTools protocol (`WebMCP.toolInvoked`,
then `WebMCP.toolResponded`), whoever made it: the browser's own agent, an MCP client on another
DevTools connection (`webmcp-harness serve`), an extension, or the page's own
`document.modelContext.executeTool`. `CallObserver` turns each into a `CallRecord`: input, frame,
what the browser reported, the coded result (by `core.coding`, the rules of the session's own
calls), timings and the events seen during the call (navigations, tools removed or replaced).

Only native tools are observed: calls to a polyfill's script-object tools never reach the
browser's registry, so nothing reports them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..core.coding import code_report, report_reason
from ..core.records import BrowserReport, CallRecord, Tool
from ..core.results import ToolErrorCode, ToolResult, code_of, tool_error
from . import outcomes
from .watch import CallWatch

__all__ = ["CallObserver", "OnCall"]

OnCall = Callable[[CallRecord], None]
"""Told of an observed call's record: when it starts (no result yet), and when it ends."""

_KEPT_ENDED = 1000  # invocation ids of ended calls kept, so a second report of one is ignored


class CallObserver:
    """Turns the browser's reports of calls others make into records, told to on_invoked (the
    call started) and on_responded (it ended, coded). The session's own calls are left out:
    they return their records."""

    def __init__(
        self,
        ids: Iterator[int],
        watches: set[CallWatch],
        on_invoked: OnCall,
        on_responded: OnCall,
    ) -> None:
        self._ids = ids  # the session's numbers for calls: observed calls share them
        self._watches = watches  # the session's running calls: frame events reach these
        self._on_invoked = on_invoked
        self._on_responded = on_responded
        self._open: dict[str, tuple[CallRecord, CallWatch | None, float]] = {}
        self._ended: dict[str, None] = {}

    @property
    def pending(self) -> list[CallRecord]:
        """Calls that started and have not ended, oldest first."""
        return [record for record, _watch, _t0 in self._open.values()]

    def invoked(
        self,
        invocation_id: str,
        frame_id: str,
        tool_name: str,
        tool: Tool | None,
        input_text: Any,
        *,
        ours: bool,
    ) -> None:
        if ours or invocation_id in self._open or invocation_id in self._ended:
            return
        record = CallRecord(id=next(self._ids), tool=tool_name, input=_input(input_text))
        record.observed = True
        record.frame_id = frame_id
        record.browser.invocation_id = invocation_id
        watch: CallWatch | None = None
        if tool is not None:
            record.frame_url, record.frame_origin = tool.frame_url, tool.frame_origin
            record.page_url, record.backend = tool.page_url, tool.backend
            record.declarative, record.source = tool.declarative, tool.source
            watch = CallWatch(record, tool)
            watch.start()
            self._watches.add(watch)
        self._open[invocation_id] = (record, watch, time.perf_counter())
        self._on_invoked(record)

    def responded(self, report: BrowserReport) -> None:
        entry = self._open.pop(report.invocation_id or "", None)
        if entry is None:
            return
        record, watch, started = entry
        self._end(report.invocation_id or "", record, watch, started)
        record.answered_with(report)
        record.result = self._coded(record, watch, report)
        record.code = code_of(record.result)
        self._on_responded(record)

    def finish(self, why: str) -> list[CallRecord]:
        """End every call still open (the watch is over): a form that waits for its person is
        `needs_user`, any other call `timeout` (no answer while watched). Returns them."""
        ended = []
        for invocation_id, (record, watch, started) in list(self._open.items()):
            del self._open[invocation_id]
            self._end(invocation_id, record, watch, started)
            record.pending = True
            waits = watch is not None and not watch.tool.autosubmit
            seconds = record.timings["totalMs"] / 1000
            record.result = (
                tool_error(
                    ToolErrorCode.NEEDS_USER,
                    f"{record.tool} was filled in and waited for the person to submit it.",
                )
                if waits
                else tool_error(
                    ToolErrorCode.TIMEOUT,
                    f"no answer in {seconds:.3g} s, until {why}; it may or may not have worked.",
                )
            )
            record.code = code_of(record.result)
            ended.append(record)
            self._on_responded(record)
        return ended

    def _end(
        self, invocation_id: str, record: CallRecord, watch: CallWatch | None, started: float
    ) -> None:
        record.timings["totalMs"] = (time.perf_counter() - started) * 1000
        if watch is not None:
            self._watches.discard(watch)
        self._ended[invocation_id] = None
        while len(self._ended) > _KEPT_ENDED:
            del self._ended[next(iter(self._ended))]

    @staticmethod
    def _coded(record: CallRecord, watch: CallWatch | None, report: BrowserReport) -> ToolResult:
        """The coded result, by the rules of the session's own calls (`session._await_answer`)."""
        answer = code_report(report, declarative=record.declarative)
        if watch is None:
            return answer
        if watch.interrupted.done():
            return outcomes.interrupted(watch.interrupted.result())
        if watch.replaced:
            return outcomes.changed(record, watch, report_result=answer)
        record.reason = report_reason(report)
        return answer


def _input(text: Any) -> Any:
    """The call's input: the browser sends it as JSON text."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text
