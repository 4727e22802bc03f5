"""Exercising a page's tools: calls with valid and invalid input, each judged, the page restored."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

from ..core.errors import ToolErrorCode
from ..core.records import CallRecord, Tool
from ..core.schema import validate_args
from ..session import WebMCPSession
from . import ids
from .behaviour import (
    BEHAVIOUR_CHECKS,
    Purpose,
    answered_normally,
    check_call,
)
from .findings import Collector, Finding, excerpt
from .inputs import invalid_input, valid_input
from .metadata import DISCOVERY_CHECKS, frame_of
from .options import _PAGE_CHECKS, CheckerBase, _bounded
from .safety import check_result
from .visit import _MAX_LINKS, _NAVIGATION_GRACE, _STARTED_JS, _PageGone, _Visit, _went

__all__ = ["Exercises"]


_CALL_CHECKS = (*BEHAVIOUR_CHECKS, ids.SAFETY_OUTPUT_INJECTION)


def _call_checks(tool: Tool) -> tuple[str, ...]:
    """The checks calling tool runs (a form may navigate; only a form has a result page)."""
    left_out = ids.BEHAVIOUR_NO_NAVIGATION if tool.declarative else ids.BEHAVIOUR_FORM_RESULT_DATA
    return tuple(c for c in _CALL_CHECKS if c != left_out)


def _with_examples(schema: Any, args: dict[str, Any]) -> dict[str, Any]:
    """args with each property's first `examples` (or `default`) value, where the schema allows."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return args
    better = dict(args)
    for key, sub in schema["properties"].items():
        if not isinstance(sub, dict) or key not in better:
            continue
        examples = sub.get("examples")
        candidates = list(examples[:3]) if isinstance(examples, list) else []
        if "default" in sub:
            candidates.append(sub["default"])
        for candidate in candidates:
            trial = {**better, key: candidate}
            if validate_args(schema, trial) is None:
                better = trial
                break
    return better


def _key(finding: Finding) -> tuple[str, str]:
    """A finding's check, tool and frame: reported once per page."""
    return (finding.check, (finding.tool or "") + "\x00" + (finding.frame or ""))


def _unresponsive(col: Collector, visit: _Visit, message: str) -> None:
    """A page that stopped answering: one page-load finding, every other page check skipped."""
    col.add(ids.DISCOVERY_PAGE_LOAD, message)
    visit.result.error = message
    for check_id in (*_PAGE_CHECKS[1:], *DISCOVERY_CHECKS):
        col.skip(check_id, "the page does not respond")


_LATE_ANSWER_WAIT = 3.0  # seconds to wait for the answer of a tool removed mid-call


_MAX_EXPLORED = 200  # tools known on a page at most, those found by exploring included


_MAX_HANGS = 3  # tools that did not answer before the rest of a page is skipped


# Static checks run on the event loop, a few tools at a time: in a thread they would hold the GIL
# against the loop, and other pages' calls would time out while it waits.
_CHUNK = 20


class _Known:
    """The tools a page's exploration has seen: by frame id, and by name and place (the page
    itself, or an iframe's URL). A tool seen in that place before is not new in a new document:
    the page reloaded after a crash, or a call navigated away and back."""

    def __init__(self, page: str, tools: list[Tool]) -> None:
        self.page = page
        self.ids: set[tuple[str, str]] = set()
        self.places: set[tuple[str, str]] = set()
        for tool in tools:
            self.add(tool)

    @property
    def count(self) -> int:
        return len(self.places)

    def _place(self, tool: Tool) -> tuple[str, str]:
        return (frame_of(tool, self.page) or "", tool.name)

    def has(self, tool: Tool) -> bool:
        return (tool.frame_id, tool.name) in self.ids or self._place(tool) in self.places

    def add(self, tool: Tool) -> None:
        self.ids.add((tool.frame_id, tool.name))
        self.places.add(self._place(tool))


class Exercises(CheckerBase):
    """The exercise's part of the checker: a page's tools called and judged."""

    # -- behaviour -------------------------------------------------------------------------
    def _why_not_called(self, tool: Tool) -> str | None:
        mode = self.options.call
        if mode == "none":
            return "tools are not called (--call none); use --call readonly or all to call them"
        if mode == "readonly" and not tool.read_only:
            return "not marked readOnlyHint; use --call all to call them"
        return None

    async def _check_behaviour(self, visit: _Visit, tools: list[Tool]) -> None:
        col = visit.col
        called = 0
        stop: str | None = None
        queue = [(tool, 0) for tool in tools]
        known = _Known(visit.url, tools)
        index = 0
        while index < len(queue):
            tool, depth = queue[index]
            index += 1
            if index % _CHUNK == _CHUNK - 1:
                await asyncio.sleep(0)
            frame = frame_of(tool, visit.url)
            why = self._why_not_called(tool)
            if why is None and called >= self.options.max_called_tools:
                why = f"more than {self.options.max_called_tools} tools to call on the page"
            if why is None and stop is not None:
                why = stop
            if why is not None:
                for check_id in _call_checks(tool):
                    col.skip(check_id, why, tool.name, frame)
                continue
            called += 1
            try:
                await self._exercise(visit, tool, frame)
            except _PageGone as gone:
                stop = f"{gone} after calling {excerpt(tool.name, 60)}"
                for check_id in _call_checks(tool):
                    col.skip(check_id, str(gone), tool.name, frame)
            if stop is None and visit.hangs >= _MAX_HANGS:
                stop = f"{visit.hangs} tools did not answer; the rest were not called"
            if stop is None and depth < self.options.explore and known.count < _MAX_EXPLORED:
                for found in await self._new_tools(visit, tool, known):
                    queue.append((found, depth + 1))
        # A navigation the last call set off after answering (it never meets a next call).
        if called and stop is None and visit.last_call and await self._navigated_late(visit):
            await self._late_navigation(visit, reload=False)

    async def _new_tools(self, visit: _Visit, after: Tool, known: _Known) -> list[Tool]:
        """Tools that appeared after calling `after` (explore): statically checked, each finding
        saying which call led to it; returned to be called in turn."""
        listed = await self._tools(visit) if visit.session is not None else None
        fresh = [t for t in listed or [] if not known.has(t)]
        fresh = fresh[: max(0, _MAX_EXPLORED - known.count)]
        if not fresh:
            return []
        record = visit.last_call[1] if visit.last_call is not None else None
        led_by = f"call #{record.id} of {excerpt(after.name, 60)}" if record else after.name
        for tool in fresh:
            known.add(tool)
            visit.led_by[(tool.name, frame_of(tool, visit.url) or "")] = led_by
        forms = any(t.declarative for t in fresh)
        static = await self._static_checks(visit, fresh, tool_forms=forms, explored=True)
        self._keep_new(visit, static)
        visit.result.tools = [*visit.result.tools, *fresh]
        return fresh

    async def _navigated_late(self, visit: _Visit) -> bool:
        """Whether the page started a new document since the last call ended (bounded)."""
        if visit.navigations != visit.settled:
            return True
        visit.moved.clear()
        started = await _bounded(visit.page.evaluate(_STARTED_JS), self.wait) if visit.page else 0
        if isinstance(started, int) and not isinstance(started, bool) and started > 0:
            return True
        if started is None:  # the document went away under the question
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(visit.moved.wait(), _NAVIGATION_GRACE)
        return visit.navigations != visit.settled

    async def _exercise(self, visit: _Visit, tool: Tool, frame: str | None) -> None:
        col = visit.col
        schema = tool.input_schema
        rejects = ids.BEHAVIOUR_REJECTS_INVALID_INPUT
        args = await asyncio.to_thread(valid_input, schema, budget=1.0)
        bad = await asyncio.to_thread(invalid_input, schema, budget=1.0)
        if args is None:
            col.skip(
                ids.BEHAVIOUR_ACCEPTS_VALID_INPUT,
                "no schema-valid input could be made from the inputSchema",
                tool.name,
                frame,
            )
        if bad is None:
            col.skip(
                rejects, "the inputSchema accepts any object: nothing to reject", tool.name, frame
            )
        if args is None and bad is None:
            for check_id in _call_checks(tool):
                col.skip(check_id, "no input to call the tool with", tool.name, frame)
            return
        if args is not None:
            record = await self._call(visit, tool, _with_examples(schema, args), validate=True)
            if record is None:
                for check_id in _call_checks(tool):
                    col.skip(check_id, "the tool was gone when it was called", tool.name, frame)
                return
            col.ran_all([c for c in _call_checks(tool) if c != rejects], tool.name, frame)
            fine = self._judge(visit, tool, record, purpose="valid")
            if not fine:
                col.skip(
                    rejects, "not tried: the call with valid input went wrong", tool.name, frame
                )
            try:
                await self._restore(visit, record)
            except _PageGone:
                col.skip(rejects, "not tried: the page could not be opened again", tool.name, frame)
                raise
            if not fine:
                return
        if bad is None:
            return
        record = await self._call(visit, tool, bad.value, validate=False)
        if record is None:
            col.skip(rejects, "the tool was gone when it was called", tool.name, frame)
            return
        col.ran_all(_call_checks(tool), tool.name, frame)
        self._judge(visit, tool, record, purpose="invalid", reason=bad.reason)
        await self._restore(visit, record)

    async def _call(
        self, visit: _Visit, tool: Tool, args: dict[str, Any], *, validate: bool
    ) -> CallRecord | None:
        """Call the tool on the page as first loaded (then judge it, then `_restore` the page)."""
        if visit.navigations != visit.settled and visit.last_call is not None:
            # The page moved after the last call answered: that call navigated, late.
            await self._late_navigation(visit)
        session = visit.session
        if session is None:
            raise _PageGone("the page is gone")
        where = None if frame_of(tool, visit.url) is None else tool.frame_url
        limit = self.options.timeout
        if await _bounded(session.wait_for_tool(tool.name, timeout=min(limit, 5)), 6) is None:
            return None
        before = visit.navigations
        count = len(session.records)
        first_error = len(visit.errors)
        visit.during = (f"a call of {excerpt(tool.name, 60)}", tool.name)
        try:
            await _bounded(
                session.call(tool.name, args, timeout=limit, frame=where, validate=validate),
                limit + 10,
            )
            if len(session.records) <= count:
                return None
            record = session.records[-1]
            await self._late_answer(session, record)  # (before the id changes: it is the key)
            record.id = next(self._ids)
            if record.code == ToolErrorCode.TIMEOUT.value and not await self._alive(visit):
                visit.unresponsive = record  # it would not answer a listing: _restore reopens it
            else:
                await _bounded(session.tools(), self.wait)  # a navigation the call began shows
            during = f"call #{record.id} of {excerpt(tool.name, 60)}"
            visit.errors[first_error:] = [
                dataclasses.replace(e, during=during) for e in visit.errors[first_error:]
            ]
        finally:
            visit.during = None
        if visit.navigations != before:
            record.event("pageNavigated", count=visit.navigations - before)
            landed = visit.page.url if visit.page is not None else ""
            if tool.declarative and landed and len(visit.links) < _MAX_LINKS:
                visit.links.append(landed)  # a form's result page: the crawl goes there too
        visit.last_call = (tool, record)
        return record

    async def _late_answer(self, session: WebMCPSession, record: CallRecord) -> None:
        """For a call whose tool was removed mid-call (a re-render that registers it again):
        wait, bounded, for the page's answer, so the verdict does not depend on which of the
        two reached the checker first."""
        if record.browser.status is not None or not any(
            e.type == "toolRemoved" for e in record.events
        ):
            return
        limit = min(self.options.timeout, _LATE_ANSWER_WAIT)
        await _bounded(session.settle(record, timeout=limit), limit + 1)

    async def _restore(self, visit: _Visit, record: CallRecord) -> None:
        """Bring the page back to its first state if a call crashed, hung or moved it."""
        gone = _went(record)
        hung = record.code == ToolErrorCode.TIMEOUT.value
        if gone or (hung and (visit.unresponsive is record or not await self._alive(visit))):
            await self._reload(visit, fresh=True)
        elif visit.navigations != visit.settled or record.pending:
            await self._reload(visit, fresh=False)
        visit.settled = visit.navigations

    async def _late_navigation(self, visit: _Visit, *, reload: bool = True) -> None:
        assert visit.last_call is not None
        tool, record = visit.last_call
        if not tool.declarative:
            frame = frame_of(tool, visit.url)
            self._add_once(
                visit,
                ids.BEHAVIOUR_NO_NAVIGATION,
                tool,
                frame,
                f"Calling {excerpt(tool.name, 60)} navigated the page soon after it answered "
                f"(call #{record.id}), which ends the agent's tools and context mid-task. Let "
                "the agent decide to navigate, or make it a declarative form.",
                record=record,
            )
        if reload:
            await self._reload(visit, fresh=False)
        visit.settled = visit.navigations

    def _add_once(
        self,
        visit: _Visit,
        check_id: str,
        tool: Tool,
        frame: str | None,
        message: str,
        *,
        record: CallRecord,
    ) -> None:
        judged = Collector(visit.url)
        judged.add(
            check_id,
            message,
            tool=tool.name,
            frame=frame,
            detail={"call": record.id, "input": excerpt(repr(record.input), 300)},
        )
        self._keep_new(visit, judged)

    def _judge(
        self,
        visit: _Visit,
        tool: Tool,
        record: CallRecord,
        *,
        purpose: Purpose,
        reason: str | None = None,
    ) -> bool:
        """Findings from one call (by `check_call`, once per check and tool); whether the tool
        answered normally (worth calling again)."""
        judged = Collector(visit.url)
        check_call(
            record,
            tool,
            page=visit.url,
            purpose=purpose,
            reason=reason,
            timeout=self.options.timeout,
            script_free=visit.script_free,
            out=judged,
        )
        if record.code is None and record.browser.status == "Completed":
            check_result(record, tool, page=visit.url, out=judged)
        self._keep_new(visit, judged)
        fine = answered_normally(record, tool)
        if record.code == ToolErrorCode.TIMEOUT.value and not fine:
            visit.hangs += 1
        return fine

    def _keep_new(self, visit: _Visit, judged: Collector) -> None:
        """judged's findings into the page's, each check at most once per tool and frame."""
        fresh = []
        for finding in judged.findings:
            key = _key(finding)
            if key in visit.reported:
                continue
            visit.reported.add(key)
            led_by = visit.led_by.get((finding.tool or "", finding.frame or ""))
            if led_by is not None:
                finding = dataclasses.replace(
                    finding,
                    message=f"{finding.message} (This tool appeared after {led_by}.)",
                    detail={**finding.detail, "after": led_by},
                )
            fresh.append(finding)
        judged.findings[:] = fresh
        visit.col.extend(judged)
