"""Exercising a page's tools: calls with valid and invalid input, each judged, the page restored;
the tools a call makes appear checked in turn."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from ..core.errors import ToolErrorCode
from ..core.records import CallRecord, Tool
from ..core.schema import validate_args
from ..core.urls import defrag_url
from ..core.waits import bounded
from ..session import WebMCPSession
from . import ids
from .behaviour import BEHAVIOUR_CHECKS, Purpose, answered_normally, check_call
from .findings import Collector, Finding, excerpt
from .forms import with_html_rules
from .inputs import invalid_input, valid_input
from .metadata import frame_of
from .options import CheckOptions
from .safety import check_result
from .static import CHUNK, check_statically
from .visit import PageGone, PageVisit, went_away

__all__ = ["Exerciser"]


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


_LATE_ANSWER_WAIT = 3.0  # seconds to wait for the answer of a tool removed mid-call


_MAX_EXPLORED = 200  # tools known on a page at most, those found by exploring included


_MAX_HANGS = 3  # tools that did not answer before the rest of a page is skipped


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


class Exerciser:
    """Calls the tools of one visit's page (those options.call allows) with valid and invalid
    input, judges each call, and brings the page back after a call moved, hung or crashed it;
    tools a call makes appear are checked and called in turn (options.explore calls deep).

    Findings go to col, each check at most once per tool and frame (reported: those the page
    has already); the calls get their numbers from numbers (the report's, across pages).
    """

    def __init__(
        self,
        visit: PageVisit,
        options: CheckOptions,
        col: Collector,
        *,
        numbers: Iterator[int],
        script_free: bool = False,
        reported: Iterable[Finding] = (),
    ) -> None:
        self.visit = visit
        self.options = options
        self.col = col
        self.hangs = 0  # tools that did not answer
        self.explored: list[Tool] = []  # tools that appeared after a call
        self._numbers = numbers
        self._script_free = script_free  # the page has no <script>: its forms are the browser's
        self._reported = {_key(f) for f in reported}
        self._led_by: dict[tuple[str, str], str] = {}  # explored tool -> the call that led to it
        self._last_call: tuple[Tool, CallRecord] | None = None
        self._unresponsive: CallRecord | None = None  # the timed-out call after which it hung

    def _why_not_called(self, tool: Tool) -> str | None:
        mode = self.options.call
        if mode == "none":
            return "tools are not called (--call none); use --call readonly or all to call them"
        if mode == "readonly" and not tool.read_only:
            return "not marked readOnlyHint; use --call all to call them"
        return None

    async def run(self, tools: list[Tool]) -> None:
        """Call tools (and those they make appear), each judged."""
        col, visit = self.col, self.visit
        called = 0
        stop: str | None = None
        queue = [(tool, 0) for tool in tools]
        known = _Known(visit.url, tools)
        index = 0
        while index < len(queue):
            tool, depth = queue[index]
            index += 1
            if index % CHUNK == CHUNK - 1:
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
                await self._exercise(tool, frame)
            except PageGone as gone:
                stop = f"{gone} after calling {excerpt(tool.name, 60)}"
                for check_id in _call_checks(tool):
                    col.skip(check_id, str(gone), tool.name, frame)
            if stop is None and self.hangs >= _MAX_HANGS:
                stop = f"{self.hangs} tools did not answer; the rest were not called"
            if stop is None and depth < self.options.explore and known.count < _MAX_EXPLORED:
                for found in await self._new_tools(tool, known):
                    queue.append((found, depth + 1))
        # A navigation the last call set off after answering (it never meets a next call).
        if called and stop is None and self._last_call and await visit.navigated_late():
            await self._late_navigation(reload=False)

    async def _new_tools(self, after: Tool, known: _Known) -> list[Tool]:
        """Tools that appeared after calling `after` (explore): statically checked, each finding
        saying which call led to it; returned to be called in turn."""
        visit = self.visit
        listed = await visit.tools() if visit.session is not None else None
        fresh = [t for t in listed or [] if not known.has(t)]
        fresh = fresh[: max(0, _MAX_EXPLORED - known.count)]
        if not fresh:
            return []
        record = self._last_call[1] if self._last_call is not None else None
        led_by = (
            f"call #{record.shown_number} of {excerpt(after.name, 60)}" if record else after.name
        )
        for tool in fresh:
            known.add(tool)
            self._led_by[(tool.name, frame_of(tool, visit.url) or "")] = led_by
        forms = any(t.declarative for t in fresh)
        static = await check_statically(visit, fresh, tool_forms=forms, explored=True)
        self._keep_new(static)
        self.explored.extend(fresh)
        return fresh

    async def _exercise(self, tool: Tool, frame: str | None) -> None:
        col = self.col
        schema = tool.input_schema
        rejects = ids.BEHAVIOUR_REJECTS_INVALID_INPUT
        if tool.declarative:  # what the form's HTML also asks, which the browser's schema omits
            form = (await self.visit.read_forms([tool]))[0]
            schema = with_html_rules(schema, form)
        args = await asyncio.to_thread(valid_input, schema, budget=1.0)
        bad = await asyncio.to_thread(invalid_input, tool.input_schema, budget=1.0)
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
            record = await self._call(tool, _with_examples(schema, args), validate=True)
            if record is None:
                for check_id in _call_checks(tool):
                    col.skip(check_id, "the tool was gone when it was called", tool.name, frame)
                return
            col.ran_all([c for c in _call_checks(tool) if c != rejects], tool.name, frame)
            fine = self._judge(tool, record, purpose="valid")
            if not fine:
                col.skip(
                    rejects, "not tried: the call with valid input went wrong", tool.name, frame
                )
            try:
                await self._restore(record)
            except PageGone:
                col.skip(rejects, "not tried: the page could not be opened again", tool.name, frame)
                raise
            if not fine:
                return
        if bad is None:
            return
        record = await self._call(tool, bad.value, validate=False)
        if record is None:
            col.skip(rejects, "the tool was gone when it was called", tool.name, frame)
            return
        col.ran_all(_call_checks(tool), tool.name, frame)
        self._judge(tool, record, purpose="invalid", reason=bad.reason)
        await self._restore(record)

    async def _call(self, tool: Tool, args: dict[str, Any], *, validate: bool) -> CallRecord | None:
        """Call the tool on the page as first loaded (then judge it, then `_restore` the page)."""
        visit = self.visit
        if visit.moved_since_settled and self._last_call is not None:
            # The page moved after the last call answered: that call navigated, late.
            await self._late_navigation()
        session = visit.session
        if session is None:
            raise PageGone("the page is gone")
        limit = self.options.timeout
        if await bounded(session.wait_for_tool(tool.name, timeout=min(limit, 5)), 6) is None:
            return None
        where = await self._frame_of_call(session, tool)
        if tool.declarative:
            await visit.reset_form(tool)
        before = visit.navigations
        errors = visit.call_begins(tool.name)
        try:
            called = await bounded(
                session.call(tool.name, args, timeout=limit, frame=where, validate=validate),
                limit + 10,
            )
            if called is None:
                return None
            record = called.record
            await self._late_answer(session, record)
            record.number = next(self._numbers)
            if record.code == ToolErrorCode.TIMEOUT and not await visit.alive():
                self._unresponsive = record  # it would not answer a listing: _restore reopens it
            else:  # a navigation the call began shows
                await bounded(session.tools(), self.options.look_timeout)
            visit.call_named(errors, f"call #{record.shown_number} of {excerpt(tool.name, 60)}")
        finally:
            visit.call_ends()
        if visit.navigations != before:
            record.event("pageNavigated", count=visit.navigations - before)
            landed = visit.current_url or ""
            if tool.declarative and landed:
                visit.add_link(landed)  # a form's result page: the crawl goes there too
        self._last_call = (tool, record)
        return record

    async def _frame_of_call(self, session: WebMCPSession, tool: Tool) -> str | None:
        """The id of the frame to call tool in (None: the page itself). Frames are matched by
        id; a frame that was opened again since (a reload) is found by its URL, fragment aside."""
        if session.is_main_frame(tool) or frame_of(tool, self.visit.url) is None:
            return None
        listed = await bounded(session.tools(settle=0), self.options.look_timeout) or []
        same = [t for t in listed if t.name == tool.name]
        if any(t.frame_id == tool.frame_id for t in same):
            return tool.frame_id
        bare = defrag_url(tool.frame_url)[0]
        again = next((t for t in same if defrag_url(t.frame_url)[0] == bare), None)
        return again.frame_id if again is not None else tool.frame_id

    async def _late_answer(self, session: WebMCPSession, record: CallRecord) -> None:
        """For a call whose tool was removed mid-call (a re-render that registers it again):
        wait, bounded, for the page's answer, so the verdict does not depend on which of the
        two reached the checker first."""
        if record.browser.status is not None or not any(
            e.type == "toolRemoved" for e in record.events
        ):
            return
        limit = min(self.options.timeout, _LATE_ANSWER_WAIT)
        await bounded(session.settle(record, timeout=limit), limit + 1)

    async def _restore(self, record: CallRecord) -> None:
        """Bring the page back to its first state if a call crashed, hung or moved it."""
        visit = self.visit
        gone = went_away(record)
        hung = record.code == ToolErrorCode.TIMEOUT
        if gone or (hung and (self._unresponsive is record or not await visit.alive())):
            await visit.reload(fresh=True)
        elif visit.moved_since_settled or record.pending:
            await visit.reload(fresh=False)
        visit.mark_settled()

    async def _late_navigation(self, *, reload: bool = True) -> None:
        assert self._last_call is not None
        tool, record = self._last_call
        if not tool.declarative:
            frame = frame_of(tool, self.visit.url)
            self._add_once(
                ids.BEHAVIOUR_NO_NAVIGATION,
                tool,
                frame,
                f"Calling {excerpt(tool.name, 60)} navigated the page soon after it answered "
                f"(call #{record.shown_number}), which ends the agent's tools and context mid-task. "
                "Let the agent decide to navigate, or make it a declarative form.",
                record=record,
            )
        if reload:
            await self.visit.reload(fresh=False)
        self.visit.mark_settled()

    def _add_once(
        self, check_id: str, tool: Tool, frame: str | None, message: str, *, record: CallRecord
    ) -> None:
        judged = Collector(self.visit.url)
        judged.add(
            check_id,
            message,
            tool=tool.name,
            frame=frame,
            detail={"call": record.shown_number, "input": excerpt(repr(record.input), 300)},
        )
        self._keep_new(judged)

    def _judge(
        self, tool: Tool, record: CallRecord, *, purpose: Purpose, reason: str | None = None
    ) -> bool:
        """Findings from one call (by `check_call`, once per check and tool); whether the tool
        answered normally (worth calling again)."""
        page = self.visit.url
        judged = Collector(page)
        check_call(
            record,
            tool,
            page=page,
            purpose=purpose,
            reason=reason,
            timeout=self.options.timeout,
            script_free=self._script_free,
            out=judged,
        )
        if record.code is None and record.browser.status == "Completed":
            check_result(record, tool, page=page, out=judged)
        self._keep_new(judged)
        fine = answered_normally(record, tool)
        if record.code == ToolErrorCode.TIMEOUT and not fine:
            self.hangs += 1
        return fine

    def _keep_new(self, judged: Collector) -> None:
        """judged's findings into the page's, each check at most once per tool and frame."""
        fresh = []
        for finding in judged.findings:
            key = _key(finding)
            if key in self._reported:
                continue
            self._reported.add(key)
            led_by = self._led_by.get((finding.tool or "", finding.frame or ""))
            if led_by is not None:
                finding = dataclasses.replace(
                    finding,
                    message=f"{finding.message} (This tool appeared after {led_by}.)",
                    detail={**finding.detail, "after": led_by},
                )
            fresh.append(finding)
        judged.findings[:] = fresh
        self.col.extend(judged)
