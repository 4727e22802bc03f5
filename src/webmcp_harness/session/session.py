"""WebMCPSession: one Playwright page, its tools, and calls that always end in a coded result."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast, overload

from ..core.coding import code_refusal, code_report, report_reason
from ..core.errors import AttachError, SessionClosedError, UsageError
from ..core.records import (
    BACKEND_CHOICES,
    BackendChoice,
    CallReason,
    CallRecord,
    CallResult,
    FrameEventType,
    Tool,
    ToolsChange,
)
from ..core.results import ToolErrorCode, ToolResult, code_of, tool_error
from ..core.schema import PATTERN_BUDGET, args_problem, fits, validate_args, validator_for
from ..core.timeouts import DEFAULT_TIMEOUT
from ..core.waits import bounded
from . import outcomes
from ._backends.base import (
    BackendError,
    CallRefusedError,
    Invocation,
    TargetGoneError,
    ToolNotFoundError,
)
from ._backends.sources import Sources
from .adapters import as_async
from .limits import CLOSE_WAIT, DEFAULT_SETTLE, EMPTY_WAIT, SETTLE_MAX
from .observe import CallObserver
from .quiet import PageQuiet
from .watch import INTERRUPTIONS, CallWatch, first, left

if TYPE_CHECKING:
    from playwright.async_api import Page
    from playwright.sync_api import Page as SyncPage

__all__ = [
    "DEFAULT_SETTLE",
    "DEFAULT_TIMEOUT",
    "EMPTY_WAIT",
    "BackendChoice",
    "SessionEvent",
    "WebMCPSession",
]

SessionEvent = Literal["toolschanged", "toolinvoked", "toolresponded"]
"""What `WebMCPSession.on` can tell of: the page's tools changed (a `ToolsChange`), or a call
someone else made on the page started or ended (its `CallRecord`)."""
_EVENTS: tuple[SessionEvent, ...] = ("toolschanged", "toolinvoked", "toolresponded")

_REMOVAL_GRACE = 0.5  # after a tool is removed mid-call, how long to wait for its last answer
_CANCEL_WAIT = 2.0  # how long cancelling in the page may take after a timeout
_ATTACH_WAIT = 30.0  # attaching may take this long even when calls have a shorter timeout
_ABANDONED_START = 30.0  # how long a call that already returned waits for its invokeTool reply
_DETECT_WAIT = 5.0  # how long asking the page which WebMCP it has may take
_LATE_TOOL_WAIT = 1.0  # how long a call to a tool not (yet) there waits for it, within its timeout
_RELIST = 0.1  # while settling, list again this often (some sources send no change events)
_VALIDATORS_KEPT = 4096


class WebMCPSession:
    """Lists and calls a page's WebMCP tools; every call is coded and recorded.

    Create one with `await WebMCPSession.attach(page)`.
    """

    def __init__(self, page: Page, backend: Sources, *, timeout: float, confirm: bool) -> None:
        self.page = page
        self.backend = backend
        self.timeout = timeout
        self.confirm = confirm
        self.records: list[CallRecord] = []
        self._ids = itertools.count(1)
        self._watches: set[CallWatch] = set()
        self._tool_waiters: list[tuple[str, asyncio.Future[Tool]]] = []
        self._closed = False
        self._gone: str | None = None
        # Calls that returned before the page answered, by their record (its identity: a caller
        # may renumber a record, never move it to another call).
        self._open_calls: dict[int, tuple[CallRecord, Invocation]] = {}
        self._lacks: CallReason | None = None  # what the last probe found missing: WebMCP, tools
        self._changed_at = time.monotonic()  # when the tool list, or the page's load, last changed
        self._audited = False  # whether a default settle has run since the page last loaded
        self._change = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._validators: dict[int, tuple[Any, Any]] = {}  # id(schema) -> (schema, validator)
        self._listeners: list[Callable[[str], None]] = []
        self._handlers: dict[SessionEvent, list[Callable[[Any], None]]] = {e: [] for e in _EVENTS}
        self._change_waiters: list[asyncio.Future[ToolsChange]] = []
        self._observer: CallObserver | None = None
        self._stop_observing: Callable[[], None] | None = None
        self._quiet = PageQuiet(page)  # its requests and short timers (the default settle)

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    async def attach(
        cls,
        page: Page | SyncPage,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        backend: BackendChoice = "auto",
        confirm: bool = False,
    ) -> WebMCPSession:
        """Watch page's tools. Attach before navigating to see every tool from the start."""
        _check_timeout(timeout)
        async_page = cast("Page", as_async(page))
        if backend not in BACKEND_CHOICES:
            *most, last = (repr(choice) for choice in BACKEND_CHOICES)
            raise UsageError(f"backend must be {', '.join(most)} or {last}, not {backend!r}")
        sources = Sources(async_page, backend)
        session = cls(async_page, sources, timeout=timeout, confirm=confirm)
        await _open(sources, session, max(timeout, _ATTACH_WAIT))
        sources.on_note(session._noted)
        async_page.on("domcontentloaded", session._on_load)
        async_page.on("load", session._on_load)
        return session

    async def close(self) -> None:
        """Stop watching the page. Pending calls end as interrupted. Bounded: at most CLOSE_WAIT
        seconds, however busy or gone the page and browser are."""
        if self._closed:
            return
        self._closed = True
        self.page.remove_listener("domcontentloaded", self._on_load)
        self.page.remove_listener("load", self._on_load)
        self._quiet.close()
        for watch in list(self._watches):
            watch.interrupt("the session was closed")
        if self._observer is not None and self._stop_observing is not None:
            self._stop_observing()
            self._observer.finish("the watch ended")
        # The timer counter comes off the page beside the backend's close (in a task of its own:
        # see PageQuiet.close), within CLOSE_WAIT and at most _DISPOSE_GRACE after the backend
        # is done: a page too busy to answer keeps it, as it keeps the documents it has.
        ends = time.monotonic() + CLOSE_WAIT
        dispose = asyncio.ensure_future(self._quiet.dispose())
        dispose.add_done_callback(_retrieved)
        await bounded(self.backend.close(), CLOSE_WAIT)
        left = min(_DISPOSE_GRACE, ends - time.monotonic())
        if left > 0 and not dispose.done():
            await asyncio.wait({dispose}, timeout=left)

    async def __aenter__(self) -> WebMCPSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- tools -----------------------------------------------------------------------------
    async def tools(
        self, *, settle: float | None = None, within: float | None = None
    ) -> list[Tool]:
        """Every tool in the page and its frames, once the list has settled.

        By default (settle None) as a browser auditor settles: answers once no tool has been
        added or removed, the page has not loaded, and it had no request in flight and no short
        timer pending (`quiet.PageQuiet`) for DEFAULT_SETTLE seconds; at most SETTLE_MAX. The
        requests and timers count once per page load (what a page registers as it loads): once
        that settle has run, as on each later call of an agent's run, the list alone must have
        been quiet for DEFAULT_SETTLE, and a settled page is read without a round trip.
        A number instead answers once the list alone has been quiet for `settle` seconds. While
        the page has no tool at all, either waits up to EMPTY_WAIT (or `settle`, if longer) for a
        first one. Never longer than the session's timeout. `settle=0` lists at once.
        `within` bounds the settle further: after that many seconds the list is read as it is
        (an MCP server's ``tools/list`` on a page whose list never goes quiet).
        """
        self._check_open()
        quiet = DEFAULT_SETTLE if settle is None else _check_settle(settle)
        start = time.monotonic()
        auditor = settle is None and not self._audited
        deadline = start + (min(self.timeout, SETTLE_MAX) if settle is None else self.timeout)
        if within is not None:
            deadline = min(deadline, start + _check_settle(within, "within"))
        asked_by = start + self.timeout  # a page too busy to list: what was found by then
        found = await self._listed(asked_by, None)
        if quiet == 0:
            return found
        while not self._gone and not self._closed:
            since = self._changed_at
            if auditor:  # (a busy page is a change: the quiet window starts again)
                await self._quiet.busy()
                since = max(since, self._quiet.busy_at)
            ready = since + quiet if found else start + max(quiet, EMPTY_WAIT)
            wait = min(ready, deadline) - time.monotonic()
            if wait <= 0:
                break
            self._change.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._change.wait(), min(wait, _RELIST))
            found = await self._listed(asked_by, found)
        if auditor and not self._gone and not self._closed:
            self._audited = True
        return found

    async def _listed(self, deadline: float, before: list[Tool] | None) -> list[Tool]:
        """Every source's tools, asked until deadline; a page too busy to answer in time gives
        what was found before (else the native tools, which need no round trip)."""

        async def ask() -> list[Tool]:
            await self.backend.sync()
            return await self.backend.list_tools()

        found = await bounded(ask(), left(deadline))
        if found is not None:
            return found
        return before if before is not None else await self.backend.native_tools()

    def _note_change(self) -> None:
        """The tool list changed: settling starts again."""
        self._changed_at = time.monotonic()
        self._change.set()

    def _on_load(self, _page: Page) -> None:
        """The page's document loaded: pages register tools in their load handlers, so settling
        starts again (a tool registered 100 ms after load is not missed for having come after a
        slow load)."""
        self._audited = False
        self._note_change()

    async def wait_for_tool(self, name: str, *, timeout: float | None = None) -> Tool | None:
        """The tool called name once it is registered; None if it is not there in time."""
        self._check_open()
        limit = self._timeout(timeout)
        # Waiting before listing: a tool that arrives while the sources are asked is not missed.
        waiter: asyncio.Future[Tool] = asyncio.get_running_loop().create_future()
        entry = (name, waiter)
        self._tool_waiters.append(entry)
        try:
            found = self._find(await self.tools(settle=0), name, None)
            if found is not None:
                return found
            return await asyncio.wait_for(waiter, limit)
        except asyncio.TimeoutError:
            return None
        finally:
            with contextlib.suppress(ValueError):
                self._tool_waiters.remove(entry)

    def is_main_frame(self, tool: Tool) -> bool:
        """Whether tool is in the attached page's main frame (not an iframe, not a popup)."""
        return tool.frame_id in self.backend.main_frame_ids

    def on_change(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call listener("tools") when tools are added or removed, and listener(kind) when a
        frame navigates, detaches, or the page closes or crashes. Returns a function that stops
        it. A listener that raises is dropped."""
        self._listeners.append(listener)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return stop

    @overload
    def on(
        self, event: Literal["toolschanged"], handler: Callable[[ToolsChange], None]
    ) -> Callable[[], None]: ...
    @overload
    def on(
        self,
        event: Literal["toolinvoked", "toolresponded"],
        handler: Callable[[CallRecord], None],
    ) -> Callable[[], None]: ...
    def on(self, event: SessionEvent, handler: Callable[[Any], None]) -> Callable[[], None]:
        """Call handler on each event of its kind; returns a function that stops it.

        - ``"toolschanged"``: the page registered or unregistered tools, in any frame;
          handler gets a `ToolsChange` (``.added``, ``.removed``: tuples of `Tool`).
        - ``"toolinvoked"`` / ``"toolresponded"``: a call someone else made on the page (the
          browser's agent, an MCP client on another connection, an extension, the page's own
          ``executeTool``) started / ended; handler gets its `CallRecord` (``observed`` is
          true; at the end with its coded result, as this session's own calls have). Native
          tools only (the ``cdp`` source): calls to a polyfill's tools are not reported.
          Calls still running when the session closes end then (``needs_user`` for a form
          waiting for its person, else ``timeout``).

        A handler that raises is dropped.
        """
        self._check_open()
        if event not in _EVENTS:
            *most, last = (repr(e) for e in _EVENTS)
            raise UsageError(f"event must be {', '.join(most)} or {last}, not {event!r}")
        if event != "toolschanged" and self._observer is None:
            self._start_observing()
        handlers = self._handlers[event]
        handlers.append(handler)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                handlers.remove(handler)

        return stop

    async def wait_for_tools_changed(self, *, timeout: float | None = None) -> ToolsChange | None:
        """The next change to the page's tools (a `ToolsChange`); None if none comes within
        timeout (default: the session's)."""
        self._check_open()
        limit = self._timeout(timeout)
        waiter: asyncio.Future[ToolsChange] = asyncio.get_running_loop().create_future()
        self._change_waiters.append(waiter)
        try:
            return await asyncio.wait_for(waiter, limit)
        except asyncio.TimeoutError:
            return None
        finally:
            with contextlib.suppress(ValueError):
                self._change_waiters.remove(waiter)

    def _start_observing(self) -> None:
        cdp = self.backend.cdp
        if cdp is None:
            raise UsageError(
                "Calls others make are seen through the browser's DevTools protocol: attach "
                "with backend='auto' or 'cdp' to a Chromium with WebMCP."
            )
        self._observer = CallObserver(
            self._ids,
            self._watches,
            lambda record: self._emit("toolinvoked", record),
            lambda record: self._emit("toolresponded", record),
        )
        self._stop_observing = cdp.observe(self._observer)

    def _emit(self, event: SessionEvent, value: Any) -> None:
        handlers = self._handlers[event]
        for handler in list(handlers):
            try:
                handler(value)
            except Exception:
                with contextlib.suppress(ValueError):
                    handlers.remove(handler)

    def _tell(self, what: str) -> None:
        for listener in list(self._listeners):
            try:
                listener(what)
            except Exception:
                with contextlib.suppress(ValueError):
                    self._listeners.remove(listener)

    def _tools_changed(self, added: list[Tool], removed: list[Tool]) -> None:
        if added or removed:
            self._tell("tools")
            if self._handlers["toolschanged"] or self._change_waiters:
                change = ToolsChange(tuple(added), tuple(removed))
                self._emit("toolschanged", change)
                for changed in self._change_waiters:
                    if not changed.done():
                        changed.set_result(change)
        for watch in list(self._watches):
            watch.tools_changed(added, removed)
        for tool in added:
            for name, waiter in self._tool_waiters:
                if name == tool.name and not waiter.done():
                    waiter.set_result(tool)

    def _noted(self, kind: str, frame_id: str, detail: dict[str, Any]) -> None:
        """A frame of the page, or of a popup, opened a dialog, or a popup that is not followed:
        an event of every call running."""
        for watch in list(self._watches):
            if kind == "dialog":
                watch.dialog(frame_id, detail)
            else:
                watch.popup_not_followed()

    def _interrupt(self, kind: FrameEventType, frame_id: str, detail: dict[str, Any]) -> None:
        if kind in ("closed", "crashed", "disconnected") and not frame_id:
            self._gone = kind
        self._tell(kind)
        for watch in list(self._watches):
            if frame_id and frame_id not in self.backend.ancestors(watch.tool.frame_id):
                continue  # another frame, or a popup, than the one the tool is in
            watch.frame_event(kind, frame_id, detail)

    # -- calls -----------------------------------------------------------------------------
    async def call(
        self,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        frame: str | None = None,
        confirm: bool | None = None,
        validate: bool = True,
    ) -> CallResult:
        """Call a tool and return its coded MCP result, with its record. Never raises for what
        the page did.

        The result reads as the MCP result dict; `.record` is the call's `CallRecord`.
        frame picks among tools of that name: a frame id, an origin, or (part of) a frame URL.
        A tool that is not there is waited for up to a second, within timeout.
        """
        self._check_open()
        if not isinstance(name, str):
            raise UsageError(f"tool name must be a string, not {type(name).__name__}")
        limit = self._timeout(timeout)
        record = CallRecord(id=next(self._ids), tool=name, input=args if args is not None else {})
        self.records.append(record)
        started = time.perf_counter()
        try:
            result = await self._call(record, name, record.input, limit, frame, confirm, validate)
        except asyncio.CancelledError:
            record.note = "cancelled by the caller"
            record.result = tool_error(ToolErrorCode.CANCELLED, "The caller cancelled the call.")
            record.code = ToolErrorCode.CANCELLED
            record.timings["totalMs"] = (time.perf_counter() - started) * 1000
            raise
        record.result = result
        record.code = code_of(result)
        record.timings["totalMs"] = (time.perf_counter() - started) * 1000
        return CallResult(result, record)

    async def not_there(self, name: str, args: Any, frame: str | None) -> CallResult:
        """What `call` answers for a tool that is not there (`unavailable`, naming the tools that
        are; the page's lack of WebMCP on its record), with its record, calling nothing: for a
        caller that looked the tool up first and must not run one that appears meanwhile. Bounded
        by the session's timeout (the probe for WebMCP, by its own shorter bound)."""
        self._check_open()
        started = time.perf_counter()
        deadline = time.monotonic() + self.timeout
        record = CallRecord(id=next(self._ids), tool=name, input=args if args is not None else {})
        self.records.append(record)
        if self._gone:
            result = tool_error(ToolErrorCode.INTERRUPTED, f"The page is {self._gone}.")
        else:
            tools = await self.backend.list_tools()
            if not tools and left(deadline) > 0:
                self._lacks = await self._what_the_page_lacks(left(deadline))
            result = self._unavailable(record, name, frame, tools)
        record.result, record.code = result, code_of(result)
        record.timings["totalMs"] = (time.perf_counter() - started) * 1000
        return CallResult(result, record)

    async def _call(
        self,
        record: CallRecord,
        name: str,
        args: Any,
        limit: float,
        frame: str | None,
        confirm: bool | None,
        validate: bool,
    ) -> ToolResult:
        deadline = time.monotonic() + limit
        if self._gone:
            return tool_error(ToolErrorCode.INTERRUPTED, f"The page is {self._gone}.")
        tool = self.backend.main_frame_tool(name) if frame is None else None
        if tool is None:
            looked = await bounded(self._look_up(name, frame, deadline), left(deadline))
            tool, tools = (
                looked if looked is not None else (None, await self.backend.native_tools())
            )
        if tool is None:
            return self._unavailable(record, name, frame, tools)
        record.frame_id, record.frame_url = tool.frame_id, tool.frame_url
        record.frame_origin, record.page_url = tool.frame_origin, tool.page_url
        record.backend, record.declarative = tool.backend, tool.declarative
        record.source = tool.source
        if args_problem(args) is not None or (validate and not isinstance(args, dict)):
            # Deep or non-finite arguments are refused even unvalidated: JSON can't carry them.
            refused = args_problem(args) or validate_args(None, args) or "bad input"
            return tool_error(ToolErrorCode.INVALID_INPUT, refused)
        # Patterns get at most PATTERN_BUDGET of the call's time: the tool needs the rest.
        check_by = min(deadline, time.monotonic() + PATTERN_BUDGET)
        if (
            validate
            and isinstance(args, dict)
            and not self._fits(tool.input_schema, args, check_by)
        ):
            problem = validate_args(tool.input_schema, args, deadline=check_by)
            if problem:
                return tool_error(ToolErrorCode.INVALID_INPUT, f"{name}: {problem}")
        watch = CallWatch(record, tool)
        self._watches.add(watch)
        inv: Invocation | None = None
        try:
            t0 = time.perf_counter()
            # Chromium may never answer an invokeTool sent while the frame is navigating: watch
            # for the interruption while the invocation is being started, too.
            invoking = asyncio.ensure_future(self.backend.invoke(tool, args, on_start=watch.start))
            try:
                await first((invoking, watch.interrupted), left(deadline))
            except asyncio.CancelledError:
                invoking.cancel()
                raise
            if not invoking.done():
                if watch.interrupted.done():
                    self._when_started(record, invoking, cancel=False)
                    why = watch.interrupted.result()
                    return outcomes.interrupted(why)
                record.event("timeout", afterS=limit)
                self._when_started(record, invoking, cancel=True)
                return outcomes.timed_out(limit)
            try:
                inv = invoking.result()
            except BackendError as exc:
                record.browser = exc.report
                if isinstance(exc, ToolNotFoundError):
                    return self._unavailable(record, name, frame, await self.backend.list_tools())
                refusal = code_refusal(str(exc)) if isinstance(exc, CallRefusedError) else None
                if refusal is not None:
                    return refusal  # e.g. input that is not an object, sent with validate=False
                if watch.interrupted.done() or self._gone or isinstance(exc, TargetGoneError):
                    why = (
                        watch.interrupted.result()
                        if watch.interrupted.done()
                        else INTERRUPTIONS[self._gone or "closed"]
                    )
                    return outcomes.interrupted(why)
                return tool_error(ToolErrorCode.FAILED, f"The browser refused the call: {exc}")
            watch.start()
            record.browser.invocation_id = inv.id
            record.timings["invokeMs"] = (time.perf_counter() - t0) * 1000
            return await self._await_answer(record, watch, inv, deadline, limit, confirm)
        except asyncio.CancelledError:
            if inv is not None:
                await bounded(inv.cancel(), _CANCEL_WAIT)
                record.event("cancelledInPage")
            raise
        finally:
            self._watches.discard(watch)

    async def _await_answer(
        self,
        record: CallRecord,
        watch: CallWatch,
        inv: Invocation,
        deadline: float,
        limit: float,
        confirm: bool | None,
    ) -> ToolResult:
        act_as_person = self.confirm if confirm is None else confirm
        waiting = inv.waiting
        while True:
            if waiting is None:
                await first((inv.answered, watch.interrupted, watch.removed), left(deadline))
            else:
                await first(
                    (inv.answered, watch.interrupted, watch.removed, waiting), left(deadline)
                )
            if inv.answered.done():
                report = inv.answered.result()
                record.answered_with(report)
                if watch.interrupted.done():
                    return self._interrupted(record, inv, watch.interrupted.result())
                answer = code_report(report, declarative=watch.tool.declarative)
                if watch.removed.done() and report.status is None:  # the answer was lost
                    return outcomes.changed(record, watch, report_result=None)
                if watch.replaced:
                    return outcomes.changed(record, watch, report_result=answer)
                record.reason = report_reason(report)
                return answer  # a removal before the answer is an event in the record
            if watch.interrupted.done():
                return self._interrupted(record, inv, watch.interrupted.result())
            if watch.removed.done() and not inv.answered.done():
                # a one-shot tool answers just after its removal; a replaced one may answer too
                await first((inv.answered, watch.interrupted), min(_REMOVAL_GRACE, left(deadline)))
                if inv.answered.done() or watch.interrupted.done():
                    continue
                self._keep_late_answer(record, inv)
                return outcomes.changed(record, watch, report_result=None)
            if waiting is not None and waiting.done():
                record.event("waitingForPerson")
                if act_as_person:
                    record.event("confirmedAsPerson")
                    if not await bounded(inv.confirm(), left(deadline)):
                        record.reason = "no_submit_button"
                        return tool_error(
                            ToolErrorCode.UNAVAILABLE,
                            f"{watch.tool.name} waits for a person, but has no submit button.",
                        )
                    waiting = None
                    continue
                record.pending = True
                self._keep_late_answer(record, inv)
                return tool_error(
                    ToolErrorCode.NEEDS_USER,
                    f"{watch.tool.name} is filled in and waits for the person to submit it.",
                )
            # timed out
            record.event("timeout", afterS=limit)
            await bounded(inv.cancel(), _CANCEL_WAIT)
            record.event("cancelledInPage")
            if inv.answered.done():
                record.answered_with(inv.answered.result())
            else:
                self._keep_late_answer(record, inv)
            return outcomes.timed_out(limit)

    def _when_started(
        self, record: CallRecord, invoking: asyncio.Future[Invocation], *, cancel: bool
    ) -> None:
        """A call returned before the browser took it: once it does, cancel it or keep its answer."""

        # a start the browser never answers (seen mid-navigation) is given up after a while
        give_up = asyncio.get_running_loop().call_later(_ABANDONED_START, invoking.cancel)

        def started(future: asyncio.Future[Invocation]) -> None:
            give_up.cancel()
            if future.cancelled() or future.exception() is not None:
                return
            inv = future.result()
            record.browser.invocation_id = inv.id
            self._keep_late_answer(record, inv)
            if cancel:
                record.event("cancelledInPage")
                task = asyncio.ensure_future(bounded(inv.cancel(), _CANCEL_WAIT))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

        invoking.add_done_callback(started)

    def _keep_late_answer(self, record: CallRecord, inv: Invocation) -> None:
        """An answer that comes after the call returned still lands in the record."""
        self._open_calls[id(record)] = (record, inv)

        def landed(future: asyncio.Future[Any]) -> None:
            self._open_calls.pop(id(record), None)
            if future.cancelled():
                return
            report = future.result()
            record.answered_with(report)
            record.late_answer = code_report(report, declarative=record.declarative)
            record.pending = False
            record.event("lateAnswer", status=report.status)

        inv.answered.add_done_callback(landed)

    async def settle(
        self, record: CallRecord, *, timeout: float | None = None
    ) -> ToolResult | None:
        """Wait for the page's late answer to a call that already returned; None if none came."""
        self._check_open()
        inv = self._open_call(record)
        if inv is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(inv.answered), self._timeout(timeout))
            await asyncio.sleep(0)  # let the record take the answer
        return record.late_answer

    async def confirm_pending(
        self, record: CallRecord, *, timeout: float | None = None
    ) -> ToolResult:
        """Submit a form that waits for the person (a needs_user call), and return its answer."""
        self._check_open()
        inv = self._open_call(record)
        if inv is None or not record.pending:
            raise UsageError(
                f"call #{record.shown_number} ({record.tool}) is not waiting for a person"
            )
        record.event("confirmedAsPerson")
        if not await bounded(inv.confirm(), self._timeout(timeout)):
            record.reason = "no_submit_button"
            return tool_error(ToolErrorCode.UNAVAILABLE, f"{record.tool} has no submit button.")
        answer = await self.settle(record, timeout=timeout)
        if answer is None:
            return outcomes.timed_out(self._timeout(timeout))
        return answer

    def _open_call(self, record: CallRecord) -> Invocation | None:
        """The invocation of record's call, while the page may still answer it."""
        entry = self._open_calls.get(id(record))
        return entry[1] if entry is not None and entry[0] is record else None

    # -- coded outcomes the harness decides ------------------------------------------------
    def _unavailable(
        self, record: CallRecord, name: str, frame: str | None, tools: list[Tool]
    ) -> ToolResult:
        if not tools and not self._gone:
            record.reason = self._lacks  # the page has no WebMCP, or its policy blocks tools
        no_webmcp = self._lacks == "no_webmcp"
        return outcomes.unavailable(
            name, frame, tools, url=self._url(), gone=self._gone, no_webmcp=no_webmcp
        )

    def _interrupted(self, record: CallRecord, inv: Invocation, why: str) -> ToolResult:
        if inv.answered.done():
            record.answered_with(inv.answered.result())
        else:
            self._keep_late_answer(record, inv)
        return outcomes.interrupted(why)

    # -- helpers ---------------------------------------------------------------------------
    def _fits(self, schema: Any, args: dict[str, Any], deadline: float) -> bool:
        """Whether args fit schema; the validator is found once per schema object, not per call."""
        if not isinstance(schema, dict):
            return True
        entry = self._validators.get(id(schema))
        if entry is None or entry[0] is not schema:
            if len(self._validators) >= _VALIDATORS_KEPT:
                self._validators.clear()
            entry = (schema, validator_for(schema))
            self._validators[id(schema)] = entry
        validator = entry[1]
        if isinstance(validator, str):
            return True  # a broken schema is not held against the caller (validate_args agrees)
        return fits(validator, args, deadline=deadline)  # bounded: patterns, $ref, no fetches

    def _find(self, tools: list[Tool], name: str, frame: str | None) -> Tool | None:
        matches = [t for t in tools if t.name == name and t.in_frame(frame)]
        if not matches:
            return None
        mains = self.backend.main_frame_ids
        matches.sort(key=lambda t: (t.frame_id not in mains, t.page_id not in ("", *mains)))
        return matches[0]

    async def _look_up(
        self, name: str, frame: str | None, deadline: float
    ) -> tuple[Tool | None, list[Tool]]:
        """The tool to call, waiting for a late one within the deadline; and the tools there."""
        # A native tool of any frame is known without a round trip (a cross-site widget's, say);
        # listing every source asks each frame's script.
        native = await self.backend.native_tools()
        tool = self._find(native, name, frame)
        if tool is not None:
            return tool, native
        tools = await self.backend.list_tools()
        tool = self._find(tools, name, frame)
        if tool is not None:
            return tool, tools
        await self.backend.sync()
        tools = await self.backend.list_tools()
        tool = self._find(tools, name, frame)
        if tool is None and not self._gone and left(deadline) > 0:
            tool = await self._late_tool(name, frame, min(left(deadline), _LATE_TOOL_WAIT))
            tools = await self.backend.list_tools()
        if tool is None and not tools and not self._gone and left(deadline) > 0:
            # No tools at all: say whether the page has WebMCP at all (bounded by the call).
            self._lacks = await self._what_the_page_lacks(left(deadline))
        return tool, tools

    async def _late_tool(self, name: str, frame: str | None, limit: float) -> Tool | None:
        """The tool called name (in frame) if it is registered within limit seconds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + limit
        while True:
            waiter: asyncio.Future[Tool] = loop.create_future()
            entry = (name, waiter)
            self._tool_waiters.append(entry)
            try:
                tool = await asyncio.wait_for(waiter, max(0.0, end - loop.time()))
            except asyncio.TimeoutError:
                return None
            finally:
                with contextlib.suppress(ValueError):
                    self._tool_waiters.remove(entry)
            if tool.in_frame(frame):
                return tool

    async def _what_the_page_lacks(self, limit: float = _DETECT_WAIT) -> CallReason | None:
        """What the page's main frame lacks, by the probe: WebMCP at all (no_webmcp), or the
        `tools` feature, which its permissions policy turns off (tools_blocked); None if neither,
        or unsure."""
        from .probe import probe

        try:
            found = await asyncio.wait_for(
                probe(self.page, timeout=min(limit, _DETECT_WAIT), frames=False),
                max(min(limit, _DETECT_WAIT), 0.05),
            )
        except asyncio.TimeoutError:
            return None
        main = found.main
        if main is None:
            return None
        if not main.surfaces:
            return "no_webmcp"
        return "tools_blocked" if main.blocked else None

    def _url(self) -> str:
        try:
            return self.page.url
        except Exception:
            return "page closed"

    def _timeout(self, timeout: float | None) -> float:
        if timeout is None:
            return self.timeout
        _check_timeout(timeout)
        return float(timeout)

    def _check_open(self) -> None:
        if self._closed:
            raise SessionClosedError("This WebMCPSession is closed; attach a new one.")


async def _open(sources: Sources, session: WebMCPSession, limit: float) -> None:
    """Open the page's sources for session, bounded; a page that does not let us in is a clear error."""

    def changed(added: list[Tool], removed: list[Tool]) -> None:
        session._note_change()
        session._tools_changed(added, removed)

    async def start() -> None:
        await session._quiet.install()
        await sources.open(changed, session._interrupt)

    # In a task of its own (wait_for's), not the caller's: Playwright reads the locals of every
    # frame on an API call's stack, and CPython 3.11 then keeps that copy of the caller's locals
    # (a session it has since dropped, say) alive until its next Playwright call.
    try:
        await asyncio.wait_for(start(), limit)
    except asyncio.TimeoutError:
        await sources.close()
        raise AttachError(
            f"Could not attach to the page in {limit:g} s: it, or the browser, does not answer."
        ) from None
    except BackendError as exc:
        await sources.close()
        raise AttachError(f"Could not attach to the page: {exc}") from exc


_DISPOSE_GRACE = 0.25  # seconds a session's close waits for its init script to come off


def _retrieved(task: asyncio.Future[Any]) -> None:
    """Done with task, whatever it raised (the page or browser went away meanwhile)."""
    if not task.cancelled():
        task.exception()


def _check_settle(settle: Any, name: str = "settle") -> float:
    if isinstance(settle, bool) or not isinstance(settle, (int, float)) or not settle >= 0:
        raise UsageError(f"{name} must be a number of seconds (0 or more), not {settle!r}")
    return float(settle)


def _check_timeout(timeout: Any) -> None:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise UsageError(f"timeout must be a positive number of seconds, not {timeout!r}")
