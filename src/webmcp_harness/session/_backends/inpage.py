"""The in-page backend: tools reached through the page's own script API, in every frame.

It works wherever a page's tools are visible to its own scripts: a JavaScript polyfill
(`@mcp-b/webmcp-polyfill`, `@mcp-b/global`), a `navigator.modelContextTesting` shim, or native
WebMCP. Per frame it uses, in this order: `document.modelContext.getTools()` + `executeTool()`;
`navigator.modelContextTesting.listTools()` + `executeTool(name, json)`. What each polyfill
gives and lacks: docs/polyfills.md.

Frame ids are the harness's own: `inpage:<n>`, numbered as frames are first seen, the main frame
first (`inpage:0`); a frame keeps its id across its navigations. They are not CDP frame ids.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Callable
from importlib import resources
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from ...core.caps import loads_page
from ...core.coding import EXECUTE_FAILED
from ...core.records import (
    BackendName,
    BrowserReport,
    FrameEventType,
    Source,
    Tool,
    normalise_annotations,
)
from ...core.urls import origin_of
from ..adapters import as_async, impl_of
from .base import (
    BackendError,
    CallRefusedError,
    Interrupted,
    TargetGoneError,
    ToolNotFoundError,
    ToolsChanged,
    frame_chain,
)

__all__ = [
    "CANCEL_GRACE",
    "DESCRIBE_JS",
    "EVAL_TIMEOUT",
    "InPageBackend",
    "InPageInvocation",
    "detect_implementation",
]

log = logging.getLogger(__name__)

AGENT_SOURCE = (
    resources.files("webmcp_harness.session._backends")
    .joinpath("inpage.js")
    .read_text("utf-8")
    .strip()
    .rstrip(";")
)
"""The page-side agent (inpage.js): a function `(bindingName, quiet) => token`."""

_INSTALL = f"([binding, quiet, skip]) => ({AGENT_SOURCE})(binding, quiet, skip)"
_H = "window.__webmcpHarness && window.__webmcpHarness.version === 1 && window.__webmcpHarness"
_OP_TOOLS = f"(skip) => {{ const h = {_H}; return h ? h.tools(skip) : null; }}"
_OP_START = (
    f"([id, name, json]) => {{ const h = {_H}; return h ? h.start(id, name, json) : null; }}"
)
_OP_WAIT = f"(id) => {{ const h = {_H}; return h ? h.wait(id) : null; }}"
_OP_ACTIVATED = f"(id) => {{ const h = {_H}; return h ? h.activated(id) : false; }}"
_OP_CONFIRM = f"(id) => {{ const h = {_H}; return h ? h.confirm(id) : false; }}"
_OP_CANCEL = f"(id) => {{ const h = {_H}; return h ? h.cancel(id) : false; }}"
_OP_LANDED = f"(token) => {{ const h = {_H}; return !!h && h.token !== token; }}"
_OP_JSONLD = """() => JSON.stringify(Array.from(
  document.querySelectorAll('script[type="application/ld+json"]')).flatMap((s) => {
    try { return [JSON.parse(s.textContent)]; } catch { return []; }
  }))"""
_OP_IMPLEMENTATION = f"""() => {{
  const had = Object.prototype.hasOwnProperty.call(window, "__webmcpHarness");
  ({AGENT_SOURCE})(null, true);
  const s = window.__webmcpHarness.surface();
  if (!had) delete window.__webmcpHarness;
  return s.implementation;
}}"""

DESCRIBE_JS = f"""() => {{
  const had = Object.prototype.hasOwnProperty.call(window, "__webmcpHarness");
  ({AGENT_SOURCE})(null, true);
  const d = window.__webmcpHarness.describe();
  if (!had) delete window.__webmcpHarness;
  return d;
}}"""
"""What a frame's WebMCP is (for `webmcp_harness.probe`), leaving nothing behind."""

EVAL_TIMEOUT = 10.0
"""Seconds any single short page round trip (list, start, cancel, confirm) may take."""

CANCEL_GRACE = 5.0
"""Seconds a cancelled call has to answer before its invocation resolves without an answer."""

# Chromium's script `executeTool()` rejects with EXECUTE_FAILED when the tool threw. Chromium
# logs the thrown value to the console as `WebMCP tool execution failed: Uncaught <Name>: <message>`
# (measured on Chromium 156); the backend reads it back from there.
_NATIVE_THROWN = "WebMCP tool execution failed: Uncaught "
_THROWN_WAIT = 1.0  # seconds a lost message may trail its call's answer (bounded, event-ended)
_THROWN_KEEP = 64  # console entries kept for calls to claim


class _Gone(Exception):
    """The frame did not answer: it went away (`timed_out` False) or is busy (True)."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


class InPageInvocation:
    """One call running in a frame; `answered` resolves with what the page said, or why not."""

    def __init__(
        self, backend: InPageBackend, id_: str, frame: Frame, tool: Tool, token: str
    ) -> None:
        loop = asyncio.get_running_loop()
        self.id = id_
        self.tool = tool
        self.frame = frame
        self.frame_id = tool.frame_id
        self.token = token
        self.answered: asyncio.Future[BrowserReport] = loop.create_future()
        self.waiting: asyncio.Future[None] | None = (
            None if tool.autosubmit else loop.create_future()
        )
        self._backend = backend
        self._grace: asyncio.TimerHandle | None = None
        self._since = backend._thrown_seen

    def resolve(self, report: BrowserReport) -> None:
        """Settle the call once; later answers are dropped."""
        if self.answered.done():
            return
        report.invocation_id = self.id
        self.answered.set_result(report)
        if self._grace is not None:
            self._grace.cancel()
        self._backend._invocations.pop(self.id, None)

    async def cancel(self) -> None:
        """Abort the call's AbortSignal in the page; bounded and never raises.

        If no answer follows within CANCEL_GRACE seconds, `answered` resolves without one.
        """
        if self.answered.done():
            return
        delivered = False
        try:
            delivered = bool(
                await asyncio.wait_for(
                    self.frame.evaluate(_OP_CANCEL, self.id), self._backend.eval_timeout
                )
            )
        except Exception as exc:  # page busy, gone, or navigating
            log.debug("cancel of %s not delivered: %s", self.id, exc)
        if self.answered.done() or self._grace is not None:
            return
        note = "" if delivered else " (the cancel did not reach the page)"
        self._grace = asyncio.get_running_loop().call_later(
            CANCEL_GRACE,
            self.resolve,
            BrowserReport(protocol_error=f"no answer {CANCEL_GRACE:g} s after cancel{note}"),
        )

    async def confirm(self) -> bool:
        """Submit the waiting form with its submit button; False when there is nothing to submit."""
        if self.answered.done():
            return False
        try:
            return bool(
                await asyncio.wait_for(
                    self.frame.evaluate(_OP_CONFIRM, self.id), self._backend.eval_timeout
                )
            )
        except Exception as exc:
            log.debug("confirm of %s failed: %s", self.id, exc)
            return False

    async def _wait(self) -> None:
        try:
            raw = await self.frame.evaluate(_OP_WAIT, self.id)
        except asyncio.CancelledError:
            return
        except Exception as exc:
            self._backend._lost(self, str(exc))
            return
        if raw is None:
            self._backend._lost(self, "the document that ran the call is gone")
            return
        data = _json(raw)
        report = _report(data, raw)
        if report.status == "Error" and report.error_text == EXECUTE_FAILED:
            await self._backend._native_thrown(report, self._since)
        if isinstance(data, dict) and data.get("toolRemoved"):
            self._backend._tool_gone(self.tool)  # tell the session before the answer lands
            if data.get("toolReplaced"):
                await self._backend._refresh(self.frame)  # and of the new version, too
        if isinstance(data, dict) and data.get("submittedAway"):
            report = await self.next_page()
        if isinstance(data, dict) and data.get("unregistered"):
            # The polyfills reject a call at once when its tool is unregistered, whatever the
            # tool goes on to do: the tool's own answer is lost, not given.
            report.protocol_error = f"the call was dropped when its tool went: {report.error_text}"
            report.status = None
        self.resolve(report)

    async def next_page(self) -> BrowserReport:
        """A form submitted and its frame moved on: the new page's JSON-LD, as native reports it.

        Bounded; where the new page cannot be read, the report says the form was submitted (so
        it may have worked) and carries no answer.
        """
        limit = self._backend.eval_timeout
        try:
            await self.frame.wait_for_function(_OP_LANDED, arg=self.token, timeout=limit * 1000)
            await self.frame.wait_for_load_state("load", timeout=limit * 1000)
            raw = await asyncio.wait_for(self.frame.evaluate(_OP_JSONLD), limit)
        except Exception as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return BrowserReport(
                protocol_error=f"the form was submitted, but its next page could not be read: {why}",
                submitted=True,
            )
        return BrowserReport(status="Completed", output=_json(raw))

    async def _watch_form(self) -> None:
        try:
            activated = await self.frame.evaluate(_OP_ACTIVATED, self.id)
        except Exception:  # the answer (or its absence) is reported by _wait
            return
        if activated is True and self.waiting is not None and not self.waiting.done():
            self.waiting.set_result(None)


class InPageBackend:
    """Reach a page's tools through page script, frame by frame (see the module docstring)."""

    name: BackendName = "inpage"

    def __init__(self, page: Page, *, eval_timeout: float = EVAL_TIMEOUT) -> None:
        self.page = as_async(page)
        self.eval_timeout = eval_timeout
        self.main_frame_id = "inpage:0"
        self.implementations: dict[str, str | None] = {}
        """frame_id -> what answered there: native, @mcp-b/global, @mcp-b/webmcp-polyfill, ..."""
        self.skip_native = False
        """Leave native tools out of the listing (another source lists them)."""
        self.errors: dict[str, str] = {}
        """frame_id -> why that frame's tools could not be read (e.g. the polyfill refused)."""
        self._parents: dict[str, str | None] = {}
        self._binding = f"__webmcpHarnessNotify_{uuid.uuid4().hex[:12]}"
        self._on_tools: ToolsChanged | None = None
        self._on_interrupt: Interrupted | None = None
        self._ids: dict[object, str] = {}
        self._frames: dict[str, Frame] = {}
        self._next_frame = 0
        self._tokens: dict[str, str | None] = {}
        self._reported_away: set[str] = set()
        self._tools: dict[str, dict[str, Tool]] = {}
        self._invocations: dict[str, InPageInvocation] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._refreshing: set[str] = set()
        self._dirty: set[str] = set()
        self._disposables: list[Any] = []
        self._listeners: list[tuple[Any, str, Any]] = []
        self._gone: str | None = None
        self._thrown: list[tuple[int, str]] = []  # Chromium's console lines for thrown tools
        self._thrown_seen = 0
        self._thrown_event = asyncio.Event()
        self._opened = False
        self._closed = False

    # -- Backend protocol -------------------------------------------------------------------

    async def open(self, on_tools: ToolsChanged, on_interrupt: Interrupted) -> None:
        """Install the page-side agent and the watchers, then report the tools seen so far."""
        if self._opened:
            raise RuntimeError("InPageBackend.open() called twice")
        self._opened = True
        self._on_tools, self._on_interrupt = on_tools, on_interrupt
        page = self.page
        self._frame_id(page.main_frame)
        self._listen(page, "frameattached", self._frame_id)
        self._listen(page, "framenavigated", self._frame_navigated)
        self._listen(page, "framedetached", self._frame_detached)
        self._listen(page, "close", lambda _page: self._page_gone("closed"))
        self._listen(page, "crash", lambda _page: self._page_gone("crashed"))
        self._listen(page, "console", self._console)
        browser = as_async(page.context).browser
        if browser is not None:
            self._listen(
                as_async(browser), "disconnected", lambda _b: self._page_gone("disconnected")
            )
        try:
            self._disposables.append(await page.expose_binding(self._binding, self._notified))
            self._disposables.append(
                await page.add_init_script(
                    f"({AGENT_SOURCE})({json.dumps(self._binding)}, false, "
                    f"{json.dumps(self.skip_native)});"
                )
            )
        except PlaywrightError as exc:
            raise BackendError(f"cannot watch the page: {exc}") from exc
        await asyncio.gather(*(self._install(f) for f in self._page_frames()))
        await self.list_tools()

    async def list_tools(self) -> list[Tool]:
        """Every tool of every frame, read now (frames that cannot answer are skipped)."""
        frames = [] if self._gone or self._closed else self._page_frames()
        await asyncio.gather(*(self._refresh(f) for f in frames))
        tools: list[Tool] = []
        for frame in frames:
            fid = self._ids.get(impl_of(frame))
            if fid is not None:
                tools.extend(self._tools.get(fid, {}).values())
        return tools

    async def invoke(
        self, tool: Tool, args: dict[str, Any], *, on_start: Callable[[], None] | None = None
    ) -> InPageInvocation:
        """Start `tool` in its frame; raise BackendError when the page refuses at once.

        on_start is called once the page has taken the call (when this returns)."""
        if self._closed:
            raise TargetGoneError("the in-page backend is closed")
        if self._gone:
            raise TargetGoneError(f"the {_subject(self._gone)}")
        frame = self._frames.get(tool.frame_id)
        if frame is None or frame.is_detached():
            raise ToolNotFoundError(
                f"Tool not found: {tool.name} (its frame {tool.frame_id} is gone)"
            )
        try:
            payload = json.dumps(args, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            raise CallRefusedError(f"the arguments are not JSON: {exc}") from exc
        id_ = uuid.uuid4().hex
        try:
            started = await self._eval(frame, _OP_START, [id_, tool.name, payload])
        except _Gone as exc:
            kind = CallRefusedError if exc.timed_out else TargetGoneError
            raise kind(f"could not start {tool.name}: {exc}") from exc
        if not isinstance(started, dict) or not started.get("ok"):
            why = started.get("error") if isinstance(started, dict) else None
            if isinstance(started, dict) and started.get("notFound") is True:
                raise ToolNotFoundError(str(why or f"Tool not found: {tool.name}"))
            raise CallRefusedError(str(why or f"could not start {tool.name}"))
        token = str(started.get("token") or "")
        if self._tokens.get(tool.frame_id) is None:
            self._tokens[tool.frame_id] = token
        invocation = InPageInvocation(self, id_, frame, tool, token)
        self._invocations[id_] = invocation
        if on_start is not None:
            on_start()
        self._spawn(invocation._wait())
        if invocation.waiting is not None:
            self._spawn(invocation._watch_form())
        return invocation

    async def close(self) -> None:
        """Stop watching; pending invocations resolve without an answer. Never raises."""
        if self._closed:
            return
        self._closed = True
        for emitter, event, handler in self._listeners:
            with contextlib.suppress(Exception):
                emitter.remove_listener(event, handler)
        self._listeners.clear()
        self._settle_all("the in-page backend was closed")
        self._on_tools = self._on_interrupt = None
        for task in list(self._tasks):
            task.cancel()
        for disposable in self._disposables:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(disposable.close(), self.eval_timeout)
        self._disposables.clear()

    def main_frame_tool(self, name: str) -> Tool | None:
        """None: the in-page list is read fresh for every call (no fast path)."""
        return None

    def ancestors(self, frame_id: str) -> list[str]:
        """frame_id, then its parent, and so on up to the main frame."""
        return frame_chain(self._parents, frame_id)

    async def sync(self) -> None:
        """Nothing to flush: list_tools reads every frame now."""

    # -- frames ------------------------------------------------------------------------------

    def frame_id(self, frame: Frame) -> str:
        """The harness's id for a Playwright frame (the main frame is `inpage:0`)."""
        return self._frame_id(frame)

    @property
    def parents(self) -> dict[str, str | None]:
        """Frame id -> its parent frame's id (None for the main frame)."""
        return self._parents

    def frame(self, frame_id: str) -> Frame | None:
        """The Playwright frame with that id, while it is attached."""
        return self._frames.get(frame_id)

    def _frame_id(self, frame: Frame) -> str:
        frame = as_async(frame)
        fid = self._ids.get(impl_of(frame))
        if fid is None:
            fid = f"inpage:{self._next_frame}"
            self._next_frame += 1
            self._ids[impl_of(frame)] = fid
            self._frames[fid] = frame
            parent = frame.parent_frame
            self._parents[fid] = None if parent is None else self._frame_id(parent)
        return fid

    def _page_frames(self) -> list[Frame]:
        return [as_async(f) for f in self.page.frames]

    async def _install(self, frame: Frame) -> None:
        fid = self._frame_id(frame)
        with contextlib.suppress(_Gone):
            token = await self._eval(
                frame, _INSTALL, [self._binding, True, self.skip_native], install=True
            )
            if isinstance(token, str) and self._tokens.get(fid) is None:
                self._tokens[fid] = token

    async def _eval(
        self, frame: Frame, expression: str, arg: Any = None, *, install: bool = False
    ) -> Any:
        """One bounded round trip; `_Gone` when the frame does not answer."""
        try:
            result = await asyncio.wait_for(frame.evaluate(expression, arg), self.eval_timeout)
            if result is None and not install:
                # A document the init script never ran in (one already there, about:blank, ...).
                await asyncio.wait_for(
                    frame.evaluate(_INSTALL, [self._binding, True, self.skip_native]),
                    self.eval_timeout,
                )
                result = await asyncio.wait_for(frame.evaluate(expression, arg), self.eval_timeout)
        except asyncio.TimeoutError as exc:
            message = f"no answer from the frame in {self.eval_timeout:g} s"
            raise _Gone(message, timed_out=True) from exc
        except PlaywrightError as exc:
            raise _Gone(str(exc)) from exc
        return result

    # -- watching ----------------------------------------------------------------------------

    def _notified(self, source: dict[str, Any], *_args: Any) -> None:
        """A frame's tools changed (or its ModelContext appeared): read that frame again."""
        frame = source.get("frame")
        if frame is not None and not self._closed and not self._gone:
            self._schedule_refresh(as_async(frame))

    def _frame_navigated(self, frame: Frame) -> None:
        if not self._closed and not self._gone:
            self._schedule_refresh(as_async(frame))

    def _frame_detached(self, frame: Frame) -> None:
        frame = as_async(frame)
        fid = self._ids.pop(impl_of(frame), None)
        if fid is None or self._closed:
            return
        self._frames.pop(fid, None)
        self._parents.pop(fid, None)
        self._tokens.pop(fid, None)
        self.implementations.pop(fid, None)
        self.errors.pop(fid, None)
        removed = list(self._tools.pop(fid, {}).values())
        self._interrupt("detached", fid, {"url": frame.url})
        self._changed([], removed)

    def _schedule_refresh(self, frame: Frame) -> None:
        fid = self._frame_id(frame)
        if fid in self._refreshing:
            self._dirty.add(fid)
            return
        self._refreshing.add(fid)

        async def run() -> None:
            try:
                while True:
                    self._dirty.discard(fid)
                    await self._refresh(frame)
                    if fid not in self._dirty or self._closed or self._gone:
                        break
            finally:
                self._refreshing.discard(fid)

        self._spawn(run())

    async def _refresh(self, frame: Frame) -> None:
        """Read one frame's tools; report a cross-document navigation, then the tool changes."""
        if frame.is_detached():
            return
        fid = self._frame_id(frame)
        listing: Any = None
        try:
            raw = await self._eval(frame, _OP_TOOLS, self.skip_native)
            listing = loads_page(raw) if isinstance(raw, str) else None
        except _Gone as exc:
            self.errors[fid] = str(exc)
            if exc.timed_out:  # a busy page has not navigated: keep what we knew
                return
        except ValueError as exc:
            self.errors[fid] = f"unreadable tool list: {exc}"
            return
        if self._closed or self._gone or frame.is_detached():
            return
        token = listing.get("token") if isinstance(listing, dict) else None
        old = self._tokens.get(fid)
        if old is not None and token != old:
            self._navigated(fid, old, frame.url)
        self._tokens[fid] = token
        if not isinstance(listing, dict):
            return
        self.implementations[fid] = listing.get("implementation")
        if listing.get("error"):
            self.errors[fid] = str(listing["error"])
        else:
            self.errors.pop(fid, None)
        fresh: dict[str, Tool] = {}
        for item in listing.get("tools") or []:
            tool = _tool(item, fid, frame.url)
            if tool is not None and tool.name not in fresh:
                fresh[tool.name] = tool
        current = self._tools.get(fid, {})
        removed = [t for n, t in current.items() if fresh.get(n) != t]
        added = [t for n, t in fresh.items() if current.get(n) != t]
        self._tools[fid] = fresh
        self._changed(added, removed)

    def _navigated(self, fid: str, away_from: str, url: str) -> None:
        """The document `away_from` left frame `fid`: say so once and drop its tools."""
        if away_from in self._reported_away:
            return
        self._reported_away.add(away_from)
        removed = list(self._tools.pop(fid, {}).values())
        self._interrupt("navigated", fid, {"url": url})
        self._changed([], removed)

    def _tool_gone(self, tool: Tool) -> None:
        """The page says `tool` was unregistered or replaced during a call."""
        current = self._tools.get(tool.frame_id, {})
        known = current.get(tool.name)
        if known is not None:
            del current[tool.name]
            self._changed([], [known])
            frame = self._frames.get(tool.frame_id)
            if frame is not None:
                self._schedule_refresh(frame)  # pick up a replacement

    def _lost(self, invocation: InPageInvocation, message: str) -> None:
        """Waiting for an answer failed: the document, the frame or the page went away."""
        frame = invocation.frame
        if self._gone:
            kind = self._gone
        elif self.page.is_closed():
            kind = "closed"
        elif frame.is_detached() or "detached" in message.lower():
            kind = "detached"
        else:
            kind = "navigated"
            if invocation.token:
                fid = invocation.frame_id
                self._navigated(fid, invocation.token, frame.url)
                if self._tokens.get(fid) == invocation.token:
                    self._tokens[fid] = None
                self._schedule_refresh(frame)
            if invocation.tool.declarative:
                # a form answers by submitting and navigating: its answer is the next page's
                self._spawn(_resolve_with(invocation, invocation.next_page()))
                return
        invocation.resolve(
            BrowserReport(protocol_error=f"no answer: the {_subject(kind)} ({message})")
        )

    def _page_gone(self, kind: FrameEventType) -> None:
        if self._gone or self._closed:
            return
        self._gone = kind
        self._interrupt(kind, "", {})
        self._settle_all(f"the {_subject(kind)}")
        for task in list(self._tasks):
            task.cancel()

    def _settle_all(self, why: str) -> None:
        for invocation in list(self._invocations.values()):
            invocation.resolve(BrowserReport(protocol_error=f"no answer: {why}"))

    # -- plumbing ----------------------------------------------------------------------------

    def _console(self, message: Any) -> None:
        """Keep what Chromium logs when a native tool throws (its script API drops it)."""
        text = str(message.text)
        if message.type != "error" or not text.startswith(_NATIVE_THROWN):
            return
        self._thrown_seen += 1
        self._thrown = [*self._thrown, (self._thrown_seen, text.removeprefix(_NATIVE_THROWN))]
        del self._thrown[:-_THROWN_KEEP]
        self._thrown_event.set()

    async def _native_thrown(self, report: BrowserReport, since: int) -> None:
        """Give a native call that threw the thrown value Chromium logged, as CDP reports it.

        The oldest line logged since the call started is its own (calls that throw log in the
        order they reject); none within _THROWN_WAIT seconds leaves the report as it is.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _THROWN_WAIT
        while not (mine := [entry for entry in self._thrown if entry[0] > since]):
            self._thrown_event.clear()
            left = deadline - loop.time()
            if left <= 0:
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._thrown_event.wait(), left)
        self._thrown.remove(mine[0])
        name, sep, message = mine[0][1].partition(": ")
        if not sep or not name.isidentifier():
            name, message = "", mine[0][1]
        report.error_text = message
        report.exception = {
            "className": name or None,
            "name": name or None,
            "message": message,
            "description": mine[0][1],
        }

    def _listen(self, emitter: Any, event: str, handler: Any) -> None:
        emitter.on(event, handler)
        self._listeners.append((emitter, event, handler))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _changed(self, added: list[Tool], removed: list[Tool]) -> None:
        if (added or removed) and self._on_tools is not None and not self._closed:
            try:
                self._on_tools(added, removed)
            except Exception:
                log.exception("on_tools callback failed")

    def _interrupt(self, kind: FrameEventType, frame_id: str, detail: dict[str, Any]) -> None:
        if self._on_interrupt is not None and not self._closed:
            try:
                self._on_interrupt(kind, frame_id, detail)
            except Exception:
                log.exception("on_interrupt callback failed")


async def detect_implementation(page: Page, *, timeout: float = EVAL_TIMEOUT) -> str | None:
    """What answers for WebMCP in the main frame's script, without leaving anything behind.

    One of "native", "@mcp-b/global", "@mcp-b/global+native" (@mcp-b/global wrapping native
    WebMCP), "@mcp-b/webmcp-polyfill", "script" (another script object), "modelContextTesting"
    (only that shim), or None (nothing, or no answer in time).
    """
    try:
        result = await asyncio.wait_for(
            as_async(page).main_frame.evaluate(_OP_IMPLEMENTATION), timeout
        )
    except (asyncio.TimeoutError, PlaywrightError):
        return None
    return result if isinstance(result, str) else None


def _subject(kind: str) -> str:
    return {
        "navigated": "frame navigated",
        "closed": "page was closed",
        "crashed": "page crashed",
        "disconnected": "browser went away",
        "detached": "frame went away",
    }.get(kind, kind)


def _tool(item: Any, frame_id: str, frame_url: str) -> Tool | None:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return None
    schema = item.get("inputSchema")
    annotations = normalise_annotations(item.get("annotations"))
    declarative = bool(item.get("declarative"))
    if declarative:
        annotations.setdefault("autosubmit", bool(item.get("autosubmit")))
    return Tool(
        name=item["name"],
        description=str(item.get("description") or ""),
        input_schema=schema if isinstance(schema, dict) else None,
        annotations=annotations,
        frame_id=frame_id,
        frame_url=frame_url,
        declarative=declarative,
        backend="inpage",
        frame_origin=origin_of(frame_url),
        source=_source(item),
        title=_text_or_none(item.get("title")),
        origin=_text_or_none(item.get("origin")),
    )


_SURFACES: dict[str, Source] = {
    "document.modelContext": "document.modelContext",
    "navigator.modelContext": "navigator.modelContext",
    "navigator.modelContextTesting": "navigator.modelContextTesting",
}


def _source(item: dict[str, Any]) -> Source:
    """native when the tool lives in Chromium's registry, else the script object holding it."""
    if item.get("native"):
        return "native"
    return _SURFACES.get(str(item.get("surface")), "document.modelContext")


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None  # "" is the polyfills' "none"


async def _resolve_with(invocation: InPageInvocation, report: Any) -> None:
    invocation.resolve(await report)


def _json(raw: Any) -> Any:
    if isinstance(raw, str):
        with contextlib.suppress(ValueError):  # TooDeep is one
            return loads_page(raw)
    return None


def _report(data: Any, raw: Any) -> BrowserReport:
    if not isinstance(data, dict):
        return BrowserReport(protocol_error=f"unreadable answer from the page: {str(raw)[:200]}")
    exception = data.get("exception")
    return BrowserReport(
        status=data.get("status"),
        output=data.get("output"),
        error_text=data.get("errorText"),
        exception=exception if isinstance(exception, dict) else None,
        protocol_error=data.get("protocolError"),
    )
