"""Chromium's native WebMCP, reached through the DevTools-protocol domain `WebMCP`.

One CDP session ("target") per renderer process the page uses: the page's own, one for each
out-of-process (cross-site) iframe, found as Playwright attaches them, and the same again for each
popup the page opens. Each target reports the tools of the frames it hosts; a call goes to the
target that hosts the tool's frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, get_args

from playwright.async_api import Error as PlaywrightError

from ...core.caps import loads_page
from ...core.errors import WebMCPUnavailableError
from ...core.records import (
    BackendName,
    BrowserReport,
    FrameEventType,
    PageEventType,
    Tool,
    ToolLocation,
    normalise_annotations,
)
from ...core.urls import origin_of
from ..adapters import as_async, async_view, cdp_call, impl_of, is_target_closed
from ..direct import DirectCdpClosedError, DirectCdpError, DirectSession, open_page_session
from ..limits import POPUPS_FOLLOWED
from .base import (
    CallRefusedError,
    Interrupted,
    InvocationObserver,
    TargetGoneError,
    ToolNotFoundError,
    ToolsChanged,
    frame_chain,
)

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Frame, Page

__all__ = ["CdpBackend", "CdpPath", "PageNoted"]

CdpPath = Literal["direct", "playwright"]
PageNoted = Callable[[str, str, dict[str, Any]], None]
"""Told of what the page did that a running call's record notes: ("dialog", frame id, {dialog:
its type, text, frameUrl}) for each dialog a frame opens (Playwright dismisses it), and
("popupNotFollowed", opener's frame id, {url}) for each popup past POPUPS_FOLLOWED (closed)."""
PageEvents = list[tuple[PageEventType, float]]
_PAGE_EVENT_TYPES: tuple[PageEventType, ...] = get_args(PageEventType)

_SMALL_WAIT = 5.0  # bound for housekeeping round trips (reading an exception, cancelling)
_EARLY_KEEP = 1000
_TOOL_NOT_FOUND = "Tool not found"  # the protocol's whole answer to invokeTool for an unknown tool
_WORLD = "webmcp-harness"  # our isolated world in each frame (Page.createIsolatedWorld reuses it)
_DRAIN_WAIT = 1.0  # bound for reading a form call's page events before its answer is handed on

# In our isolated world of every document: keep the trusted toolactivated / toolcancel events
# that document.modelContext fires (the DevTools protocol sends neither). The page's own script
# runs in another world: it can neither read this list nor add to it (an event it dispatches is
# not trusted).
_PAGE_EVENTS_JS = """(() => {
  const mc = document.modelContext;
  if (!mc || typeof mc.addEventListener !== 'function' || globalThis.__webmcpHarnessEvents) return;
  const kept = [];
  const types = {toolactivated: 'toolActivated', toolcancel: 'toolCancel'};
  for (const type of Object.keys(types)) {
    mc.addEventListener(type, (event) => {
      if (!event.isTrusted) return;
      kept.push([types[type], String(event.toolName), Date.now() / 1000]);
      if (kept.length > 256) kept.shift();
    });
  }
  Object.defineProperty(globalThis, '__webmcpHarnessEvents', {value: (name) => {
    const mine = kept.filter((e) => e[1] === name);
    for (const e of mine) kept.splice(kept.indexOf(e), 1);
    return mine.map((e) => [e[0], e[2]]);
  }});
})()"""

_OWN_TOOLS_JS = """
(async () => {
  const mc = document.modelContext;
  if (!mc || typeof mc.getTools !== 'function') return null;
  const tools = await mc.getTools();
  return tools.filter(t => t.window === window).map(t => ({
    name: t.name, description: t.description, inputSchema: t.inputSchema,
    annotations: t.annotations,
  }));
})()
"""
_EXCEPTION_PROPS_JS = """function () {
  const out = {};
  for (const k of ['name', 'code', 'message']) {
    try { const v = this[k]; if (v !== undefined && v !== null) out[k] = String(v); } catch (e) {}
  }
  return out;
}"""
_FORM_WAITING_JS = """function () {
  return new Promise(resolve => {
    let tries = 0;
    const look = () => {
      if (this.matches(':tool-form-active')) return resolve(true);
      if (++tries > 20) return resolve(false);
      setTimeout(look, 10);
    };
    look();
  });
}"""
_FORM_SUBMIT_BOX_JS = """function () {
  const b = this.querySelector(':tool-submit-active')
    || Array.from(this.elements).find(e => e.type === 'submit');
  if (!b) return null;
  b.scrollIntoView({block: 'center'});
  const r = b.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2};
}"""


class _Target:
    """One CDP session: a page's own (root = its main frame) or an out-of-process frame's."""

    def __init__(self, cdp: CDPSession | DirectSession, *, page: Page, is_page: bool) -> None:
        self.cdp = cdp
        self.page = page
        self.is_page = is_page
        self.root = ""  # the frame id this session was opened for
        self.gone = False
        self.listeners: list[tuple[str, Callable[..., Any]]] = []

    async def send(
        self, method: str, params: dict[str, Any], *, timeout: float = _SMALL_WAIT * 6
    ) -> dict[str, Any]:
        if self.gone:
            raise TargetGoneError("the frame's session is gone")
        return await asyncio.wait_for(self.cdp.send(method, params), timeout)

    async def quiet_send(self, method: str, params: dict[str, Any]) -> None:
        """Send and forget the answer: bounded, never raises."""
        with contextlib.suppress(Exception):
            if not self.gone:
                await asyncio.wait_for(self.cdp.send(method, params), _SMALL_WAIT)

    def drop_listeners(self) -> None:
        for event, handler in self.listeners:
            with contextlib.suppress(Exception):
                impl_of(self.cdp).remove_listener(event, handler)
        self.listeners.clear()


class _CdpInvocation:
    def __init__(
        self,
        backend: CdpBackend,
        target: _Target,
        tool: Tool,
        on_start: Callable[[], None] | None = None,
    ) -> None:
        loop = asyncio.get_running_loop()
        self.id = ""
        self.tool = tool
        self.on_start = on_start
        self.answered: asyncio.Future[BrowserReport] = loop.create_future()
        self.waiting: asyncio.Future[None] | None = (
            None if tool.autosubmit else loop.create_future()
        )
        self._backend = backend
        self._target = target

    def invoked(self) -> None:
        if self.waiting is not None and not self.waiting.done():
            self._backend.spawn(self._watch_form())

    async def _watch_form(self) -> None:
        active = await self._backend.on_form(self.tool, _FORM_WAITING_JS)
        if active is True and self.waiting is not None and not self.waiting.done():
            self.waiting.set_result(None)

    def respond(self, report: BrowserReport) -> None:
        if not self.answered.done():
            self.answered.set_result(report)

    async def cancel(self) -> None:
        if self.answered.done() or not self.id:
            return
        await self._target.quiet_send("WebMCP.cancelInvocation", {"invocationId": self.id})

    async def confirm(self) -> bool:
        box = await self._backend.on_form(self.tool, _FORM_SUBMIT_BOX_JS)
        if not isinstance(box, dict):
            return False
        for kind in ("mousePressed", "mouseReleased"):
            params = {"type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1}
            await self._target.quiet_send("Input.dispatchMouseEvent", params)
        return True


@dataclasses.dataclass(frozen=True)
class _FrameTree:
    """A `Page.getFrameTree` answer's root node, and the count of navigation events
    (`CdpBackend._navigations`) when it was asked for."""

    node: dict[str, Any]
    asked: int


class CdpBackend:
    """Tools and calls through `WebMCP.*` on CDP sessions of the page, its frames and popups."""

    name: BackendName = "cdp"

    def __init__(self, page: Page) -> None:
        self._page = as_async(page)
        self._main: _Target | None = None
        self._targets: dict[str, _Target] = {}  # root frame id -> target
        self._by_frame: dict[object, _Target] = {}  # Playwright frame of an OOPIF -> its target
        self._owner: dict[str, _Target] = {}  # frame id -> the target hosting it
        self._tools: dict[tuple[str, str], Tool] = {}
        self._frames: dict[str, str] = {}  # frame id -> URL
        self._origins: dict[str, str] = {}  # frame id -> origin
        self._names: dict[str, str] = {}  # frame id -> its name (the iframe's name attribute)
        # How many navigation events have come, and the count at each frame's last one: a frame
        # tree read must not undo what an event after its request said (_read_tree).
        self._navigations = 0
        self._navigated: dict[str, int] = {}
        self._parents: dict[str, str | None] = {}
        self._pages: dict[object, tuple[Page, str]] = {}  # the page and popups -> main frame id
        self._pending: dict[str, _CdpInvocation] = {}
        self._starting: dict[tuple[str, str], list[_CdpInvocation]] = {}  # sent, not yet answered
        self._early: OrderedDict[str, tuple[dict[str, Any], PageEvents]] = OrderedDict()
        self._forms: OrderedDict[str, tuple[str, str]] = OrderedDict()  # invocation -> form's key
        self._early_invoked: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._adopting: set[asyncio.Task[Any]] = set()
        self._in_process: set[object] = set()  # Playwright frames seen to share a parent's process
        self._adopt_lock = asyncio.Lock()
        self._listeners: list[tuple[Any, str, Callable[..., Any]]] = []
        self._on_tools: ToolsChanged = _no_tools
        self._on_interrupt: Interrupted = _no_interrupt
        self._observers: list[InvocationObserver] = []
        self._closed = False
        self._ended: str | None = None  # "closed" | "crashed" | "disconnected"
        self.main_frame_id = ""
        self._moved = False  # a frame of a direct session navigated since a call was answered
        self.path: CdpPath = "playwright"
        """How the page's own session reaches Chromium: "direct" on a websocket of its own to
        the browser's DevTools port (only a browser launched with one, `session.direct`), else
        "playwright" (through Playwright's driver, as every frame and popup session is)."""
        self.on_note: PageNoted = _no_note
        self._popups = 0  # popups followed

    # -- lifecycle -------------------------------------------------------------------------
    async def open(self, on_tools: ToolsChanged, on_interrupt: Interrupted) -> None:
        self._on_tools, self._on_interrupt = on_tools, on_interrupt
        page = self._page
        context = impl_of(page).context
        direct = await open_page_session(page)
        if direct is not None:
            main = self._target(direct, page, is_page=True)
            direct.on_close(lambda: self._direct_lost(main))
            self.path = "direct"
        else:
            main = await self._attach(page, page, is_page=True)
        self._main = main
        try:
            await self._open_main(main, page, context)
        except BaseException:
            if self._targets.get(main.root) is not main:  # close() would not find it
                await self._detach(main)
            raise

    async def _open_main(self, main: _Target, page: Page, context: Any) -> None:
        self._listen(page, "close", lambda _: self._gone("closed"))
        self._listen(page, "crash", lambda _: self._gone("crashed"))
        self._listen(page, "framenavigated", self._pw_frame_navigated)
        self._listen(context, "page", self._pw_new_page)
        browser = context.browser
        if browser is not None:
            self._listen(browser, "disconnected", lambda _: self._gone("disconnected"))
        await main.send("Page.enable", {})
        self._read_tree(main, await self._frame_tree(main))
        main.root = self.main_frame_id
        self._targets[main.root] = main
        self._pages[impl_of(page)] = (page, main.root)
        try:
            await main.send("WebMCP.enable", {})
        except Exception as exc:
            raise WebMCPUnavailableError(
                "This browser has no WebMCP DevTools domain: use Chromium 146+ launched with "
                "--enable-features=WebMCP,WebMCPTesting,DevToolsWebMCPSupport, or backend='inpage' "
                f"for a polyfilled page ({str(exc).splitlines()[0]})."
            ) from exc
        await self._scan_child_frames(main)
        for frame in impl_of(page).frames:
            if frame.parent_frame is not None:
                await self._adopt(frame)

    async def close(self) -> None:
        self._closed = True
        for emitter, event, handler in self._listeners:
            with contextlib.suppress(Exception):
                emitter.remove_listener(event, handler)
        self._listeners.clear()
        for task in list(self._tasks | self._adopting):
            task.cancel()
        targets, self._targets = list(self._targets.values()), {}
        self._by_frame.clear()
        self._owner.clear()
        self._pages.clear()
        self._on_tools, self._on_interrupt = _no_tools, _no_interrupt
        self.on_note = _no_note
        self._main = None
        # At once: a renderer that does not answer costs one detach's bound, not one per target.
        await asyncio.gather(*(self._detach(target) for target in targets))

    async def _attach(self, page: Page, what: Page | Frame, *, is_page: bool) -> _Target:
        """A new CDP session for a page or an out-of-process frame, with our handlers on it."""
        cdp = await async_view(impl_of(page).context).new_cdp_session(async_view(impl_of(what)))
        return self._target(cdp, page, is_page=is_page)

    def _target(self, cdp: CDPSession | DirectSession, page: Page, *, is_page: bool) -> _Target:
        """A target on cdp, with our handlers on it."""
        target = _Target(cdp, page=page, is_page=is_page)
        handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "WebMCP.toolsAdded": lambda p: self._tools_added(target, p),
            "WebMCP.toolsRemoved": lambda p: self._tools_removed(target, p),
            "WebMCP.toolInvoked": lambda p: self._tool_invoked(p, target),
            "WebMCP.toolResponded": lambda p: self._tool_responded(p, target),
            "Page.frameNavigated": lambda p: self._frame_navigated(target, p),
            "Page.navigatedWithinDocument": lambda p: self._navigated_within(target, p),
            "Page.frameAttached": lambda p: self._frame_attached(target, p),
            "Page.frameDetached": lambda p: self._frame_detached(target, p),
            "Inspector.targetCrashed": lambda p: self._target_crashed(target),
            "Page.javascriptDialogOpening": lambda p: self._dialog_opening(target, p),
        }
        # On Playwright's implementation object: the API object would copy each event's params
        # whole before our handler sees them (a million-item answer took seconds to copy).
        emitter = impl_of(cdp)
        for event, handler in handlers.items():
            emitter.on(event, handler)
            target.listeners.append((event, handler))
        return target

    async def _detach(self, target: _Target) -> None:
        was_gone, target.gone = target.gone, True
        target.drop_listeners()
        if isinstance(target.cdp, DirectSession):  # its own websocket: always closed (bounded)
            await target.cdp.detach()
            return
        if not was_gone and self._ended is None:  # a crashed page never answers a detach
            with contextlib.suppress(Exception):
                await asyncio.wait_for(target.cdp.detach(), _SMALL_WAIT)

    # -- tools -----------------------------------------------------------------------------
    async def list_tools(self) -> list[Tool]:
        return list(self._tools.values())

    @property
    def parents(self) -> dict[str, str | None]:
        """Frame id -> its parent frame's id (None for the main frame)."""
        return self._parents

    def main_frame_tool(self, name: str) -> Tool | None:
        """The main frame's tool called name, without copying the list (the call's fast path)."""
        return self._tools.get((self.main_frame_id, name))

    def ancestors(self, frame_id: str) -> list[str]:
        return frame_chain(self._parents, frame_id)

    async def sync(self) -> None:
        """Round trip to every target once frames being attached are, so their events are in."""
        if not self._closed:
            self._adopt_unknown_frames()
        if self._adopting:
            await asyncio.wait(list(self._adopting), timeout=_SMALL_WAIT)
        targets = list(self._targets.values())
        await asyncio.gather(*(t.quiet_send("Browser.getVersion", {}) for t in targets))
        if self._main is not None and isinstance(self._main.cdp, DirectSession):
            await self._main.cdp.catch_up()  # and Playwright's view of the page has caught up

    async def _frame_tree(self, target: _Target) -> _FrameTree:
        """target's frame tree, with the page events of its documents heard from now on."""
        asked = self._navigations
        tree, _ = await asyncio.gather(
            target.send("Page.getFrameTree", {}), self._hear_page_events(target)
        )
        return _FrameTree(tree["frameTree"], asked)

    def _read_tree(self, target: _Target, tree: _FrameTree) -> None:
        """Take in target's frame tree. A frame that navigated after the tree was asked for keeps
        the URL, origin and name its event gave: an event handled between the answer and this
        read may be newer than the answer (a frame just attached was in it without its URL, and
        the tools it then registered got none). Where each frame sits, and which target hosts
        it, is the tree's."""

        def take(node: dict[str, Any]) -> None:
            frame = node["frame"]
            newer = self._navigated.get(frame["id"], 0) > tree.asked
            self._set_frame(target, frame, document=not newer)
            if frame.get("parentId") is None and target is self._main:
                self.main_frame_id = frame["id"]
            for child in node.get("childFrames", []):
                take(child)

        take(tree.node)

    def _navigation(self, frame_id: str) -> None:
        """Count a navigation event of frame_id, for _read_tree."""
        self._navigations += 1
        self._navigated[frame_id] = self._navigations

    def _set_frame(self, target: _Target, frame: dict[str, Any], *, document: bool = True) -> None:
        """frame's place and host; with document, also its URL, origin and name."""
        frame_id = frame["id"]
        if document:
            url = frame.get("url", "") + frame.get("urlFragment", "")
            self._frames[frame_id] = url
            self._origins[frame_id] = _frame_origin(frame.get("securityOrigin"), url)
            self._names[frame_id] = str(frame.get("name") or "")
        self._parents[frame_id] = frame.get("parentId")
        self._owner[frame_id] = target

    async def _hear_page_events(self, target: _Target) -> None:
        """Keep the page events of form calls in our isolated world of each of target's
        documents, from now on and in those already there (`_PAGE_EVENTS_JS`)."""
        await target.quiet_send(
            "Page.addScriptToEvaluateOnNewDocument",
            {"source": _PAGE_EVENTS_JS, "worldName": _WORLD, "runImmediately": True},
        )

    async def _page_events(self, target: _Target, frame_id: str, name: str) -> PageEvents:
        """The page events kept for the form tool called name in frame_id since they were last
        read, and forget them: two round trips, bounded; none if the frame can't be reached (a
        form that submitted and navigated took its document's with it)."""
        take = f"(globalThis.__webmcpHarnessEvents || (() => []))({json.dumps(name)})"
        try:
            found = await self._in_world(target, frame_id, take, _DRAIN_WAIT)
        except Exception:
            return []
        return [
            (e[0], float(e[1]))
            for e in (found if isinstance(found, list) else [])
            if isinstance(e, list)
            and len(e) == 2
            and e[0] in _PAGE_EVENT_TYPES
            and isinstance(e[1], (int, float))
        ]

    @staticmethod
    async def _in_world(target: _Target, frame_id: str, expression: str, timeout: float) -> Any:
        """expression's value in our isolated world of frame_id (two round trips, each bounded
        by timeout); raises when the frame can't be reached."""
        world = await target.send(
            "Page.createIsolatedWorld",
            {"frameId": frame_id, "worldName": _WORLD},
            timeout=timeout,
        )
        reply = await target.send(
            "Runtime.evaluate",
            {
                "contextId": world["executionContextId"],
                "expression": expression,
                "awaitPromise": True,
                "returnByValue": True,
            },
            timeout=timeout,
        )
        return reply.get("result", {}).get("value")

    async def _scan_child_frames(self, target: _Target) -> None:
        """Tools that child frames registered before WebMCP.enable (which reports only the root's)."""
        frames = [f for f, t in self._owner.items() if t is target and f != target.root]
        await asyncio.gather(*(self._scan_frame(target, frame_id) for frame_id in frames))

    async def _scan_frame(self, target: _Target, frame_id: str) -> None:
        """One frame's own tools, read in an isolated world; bounded, as a frame that is being
        replaced may never answer. Dropped if the frame moved on meanwhile (its events did)."""
        url = self._frames.get(frame_id)
        try:
            found = await self._in_world(target, frame_id, _OWN_TOOLS_JS, _SMALL_WAIT) or []
        except Exception:
            return
        if self._owner.get(frame_id) is not target or self._frames.get(frame_id) != url:
            return
        tools = [dict(t, frameId=frame_id) for t in found if isinstance(t, dict)]
        self._tools_added(target, {"tools": tools}, only_new=True)

    def _make_tool(self, raw: dict[str, Any]) -> Tool:
        schema = raw.get("inputSchema")
        if isinstance(schema, str):
            schema = _json_or_none(schema)
        frame_id = str(raw.get("frameId") or self.main_frame_id)
        page_id = self._page_of(frame_id)
        return Tool(
            name=str(raw.get("name", "")),
            description=str(raw.get("description") or ""),
            input_schema=schema if isinstance(schema, dict) else None,
            annotations=normalise_annotations(raw.get("annotations")),
            frame_id=frame_id,
            frame_url=self._frames.get(frame_id, ""),
            declarative=raw.get("backendNodeId") is not None,
            backend="cdp",
            backend_node_id=raw.get("backendNodeId"),
            frame_origin=self._origins.get(frame_id, ""),
            page_id=page_id,
            page_url=self._frames.get(page_id, ""),
            location=ToolLocation.from_stack(raw.get("stackTrace")),
            form=self._form(frame_id, raw),
        )

    def _form(self, frame_id: str, raw: dict[str, Any]) -> Any:
        """A Locator for a declarative tool's form (the ``backendNodeId`` the browser gives):
        ``form[toolname="…"]`` in the tool's frame, the attribute that makes the form the tool.
        Made without a round trip; None where the frame has no Playwright frame known to be it
        (two child frames in one process with the same URL and name: docs/chromium-webmcp-notes.md)."""
        if raw.get("backendNodeId") is None:
            return None
        frame = self._frame_of(frame_id)
        if frame is None:
            return None
        return frame.locator(f"form[toolname={_css_string(str(raw.get('name', '')))}]")

    def _frame_of(self, frame_id: str) -> Frame | None:
        """The Playwright frame of a CDP frame id: a page's main frame; an out-of-process frame's,
        whose session was opened for that Playwright frame; else the one child frame with that
        URL, or with that URL and name."""
        own = self._targets.get(frame_id)
        for frame, target in self._by_frame.items():
            if target is own:
                return async_view(frame)  # type: ignore[no-any-return]
        url = self._frames.get(frame_id)
        matches = []
        for page, root in self._pages.values():
            if root == frame_id:
                return async_view(impl_of(page).main_frame)  # type: ignore[no-any-return]
            matches += [
                f
                for f in impl_of(page).frames
                if f.parent_frame and f.url == url and f not in self._by_frame
            ]
        if len(matches) > 1:
            matches = [f for f in matches if f.name == self._names.get(frame_id, "")]
        return async_view(matches[0]) if len(matches) == 1 else None

    def _page_of(self, frame_id: str) -> str:
        return self.ancestors(frame_id)[-1]

    def _tools_added(
        self, target: _Target, params: dict[str, Any], *, only_new: bool = False
    ) -> None:
        if target.gone:
            return
        added = []
        for raw in params.get("tools", []):
            tool = self._make_tool(raw)
            key = (tool.frame_id, tool.name)
            if only_new and key in self._tools:
                continue
            self._tools[key] = tool
            added.append(tool)
        if added:
            self._on_tools(added, [])

    def _tools_removed(self, target: _Target, params: dict[str, Any]) -> None:
        if target.gone:
            return
        removed = []
        for raw in params.get("tools", []):
            key = (str(raw.get("frameId") or self.main_frame_id), str(raw.get("name")))
            tool = self._tools.pop(key, None)
            if tool is not None:
                removed.append(tool)
        if removed:
            self._on_tools([], removed)

    def _drop_tools(self, frame_ids: set[str]) -> None:
        removed = [t for key, t in self._tools.items() if key[0] in frame_ids]
        for tool in removed:
            del self._tools[(tool.frame_id, tool.name)]
        if removed:
            self._on_tools([], removed)

    def _subtree(self, frame_id: str) -> set[str]:
        """frame_id and every frame below it."""
        return {f for f in self._parents if frame_id in self.ancestors(f)} | {frame_id}

    # -- frames and the page ---------------------------------------------------------------
    def _frame_attached(self, target: _Target, params: dict[str, Any]) -> None:
        if target.gone:
            return
        frame_id = params["frameId"]
        self._parents[frame_id] = params.get("parentFrameId")
        self._frames.setdefault(frame_id, "")
        self._owner.setdefault(frame_id, target)

    def _frame_navigated(self, target: _Target, params: dict[str, Any]) -> None:
        if target.gone:
            return
        self._moved = self._moved or isinstance(target.cdp, DirectSession)
        frame = params["frame"]
        frame_id = frame["id"]
        self._set_frame(target, frame)
        self._navigation(frame_id)
        if target is self._main and frame.get("parentId") is None:
            self.main_frame_id = frame_id
        child = self._targets.get(frame_id)
        if child is not None and child is not target:
            # an out-of-process frame came back into this process: its old session is done
            self._forget(child)
        self._on_interrupt("navigated", frame_id, {"url": self._frames[frame_id]})
        below = self._subtree(frame_id)
        self._drop_tools(below)
        # The old document's iframes went with it; Chromium sends no frameDetached for them.
        self._forget_frames(below - {frame_id}, target)

    def _navigated_within(self, target: _Target, params: dict[str, Any]) -> None:
        """pushState, replaceState or a hash change: same document and tools, a new URL."""
        if target.gone:
            return
        self._moved = self._moved or isinstance(target.cdp, DirectSession)
        frame_id, url = params.get("frameId", ""), str(params.get("url", ""))
        if frame_id not in self._frames:
            return
        self._frames[frame_id] = url
        self._navigation(frame_id)
        for key, tool in list(self._tools.items()):
            if tool.frame_id == frame_id or tool.page_id == frame_id:
                self._tools[key] = dataclasses.replace(
                    tool,
                    frame_url=self._frames.get(tool.frame_id, tool.frame_url),
                    page_url=self._frames.get(tool.page_id, tool.page_url),
                )

    def _frame_detached(self, target: _Target, params: dict[str, Any]) -> None:
        if target.gone:
            return
        frame_id = params["frameId"]
        below = self._subtree(frame_id)
        if params.get("reason") == "swap":
            # the frame moved to another process (a cross-site navigation): its document, and
            # the tools in it, are gone; the frame itself stays and gets its own target, which
            # may have reported it (and its tools) already
            if self._owner.get(frame_id) is not target:
                return
            self._on_interrupt("navigated", frame_id, {"url": self._frames.get(frame_id, "")})
            self._drop_tools({f for f in below if self._owner.get(f) is target})
            self._in_process.clear()
            self._adopt_unknown_frames()
            return
        self._on_interrupt("detached", frame_id, {})
        self._drop_tools(below)
        self._forget_frames(below, target)

    def _forget_frames(self, frames: set[str], target: _Target) -> None:
        """Frames that are gone, with any out-of-process target of theirs."""
        for gone in frames:
            child = self._targets.get(gone)
            if child is not None and child is not target:
                self._forget(child)
            self._parents.pop(gone, None)
            self._frames.pop(gone, None)
            self._origins.pop(gone, None)
            self._names.pop(gone, None)
            self._navigated.pop(gone, None)
            self._owner.pop(gone, None)

    def _dialog_opening(self, target: _Target, params: dict[str, Any]) -> None:
        """A dialog (alert, confirm, prompt, beforeunload) opened in one of target's frames."""
        frame_id = str(params.get("frameId") or target.root)
        self.on_note(
            "dialog",
            frame_id,
            {
                "dialog": str(params.get("type", "")),
                "text": params.get("message", ""),
                "frameUrl": self._frames.get(frame_id, str(params.get("url", ""))),
            },
        )

    def _target_crashed(self, target: _Target) -> None:
        if target.gone or target is self._main:
            return  # the page's own crash comes as Playwright's "crash"
        self._on_interrupt("crashed", target.root, {})
        self._drop_tools(self._hosted_by(target))
        self._forget(target)

    def _hosted_by(self, target: _Target) -> set[str]:
        return {f for f, t in self._owner.items() if t is target}

    def _forget(self, target: _Target) -> None:
        """Stop using a target: its frames' tools go, its session is detached."""
        self._drop_tools(self._hosted_by(target))
        if self._targets.get(target.root) is target:
            del self._targets[target.root]
        for frame, known in list(self._by_frame.items()):
            if known is target:
                del self._by_frame[frame]
        for frame_id in self._hosted_by(target):
            del self._owner[frame_id]
        self.spawn(self._detach(target))

    def _gone(self, kind: FrameEventType) -> None:
        self._ended = self._ended or kind
        self._on_interrupt(kind, "", {})

    def _direct_lost(self, target: _Target) -> None:
        """The page's own websocket closed under us: its page closed or crashed, or its browser
        went, each of which Playwright reports too, and says which. Calls on it end now as gone;
        if Playwright has said nothing within a grace, the page counts as disconnected."""
        target.gone = True
        if not self._closed and self._ended is None:
            self.spawn(self._lost_for_good())

    async def _lost_for_good(self) -> None:
        await asyncio.sleep(_SMALL_WAIT / 5)  # sleep-ok: a grace for Playwright's own, exact event
        if not self._closed and self._ended is None:
            self._gone("disconnected")

    # -- out-of-process frames and popups --------------------------------------------------
    def _pw_frame_navigated(self, frame: Frame) -> None:
        if self._closed or impl_of(frame).parent_frame is None:
            return
        self._in_process.discard(impl_of(frame))
        task = asyncio.ensure_future(self._adopt(frame))
        self._adopting.add(task)
        task.add_done_callback(self._adopting.discard)

    def _adopt_unknown_frames(self) -> None:
        """Try every frame that has no target and is not known to share its parent's process.

        A second trigger beside Playwright's `framenavigated`: a frame's move to its own process
        (the page's `frameDetached {reason: swap}`) may be seen before Playwright has its target.
        """
        for page, _root in list(self._pages.values()):
            for frame in impl_of(page).frames:
                key = impl_of(frame)
                if frame.parent_frame is None or key in self._by_frame or key in self._in_process:
                    continue
                task = asyncio.ensure_future(self._adopt(frame))
                self._adopting.add(task)
                task.add_done_callback(self._adopting.discard)

    async def _adopt(self, frame: Frame) -> None:
        """Open a session for frame when it runs in a process of its own (and has none yet).

        Only the session's opening holds the lock: the scan of its child frames may wait on a
        frame that is being replaced, and must not hold back the adoption of other frames.
        """
        async with self._adopt_lock:
            target = await self._open_frame_target(frame)
        if target is not None:
            await self._scan_child_frames(target)

    async def _open_frame_target(self, frame: Frame) -> _Target | None:
        """The new, WebMCP-enabled session of an out-of-process frame; None if it needs none."""
        if self._closed or impl_of(frame).is_detached():
            return None
        old = self._by_frame.get(impl_of(frame))
        if old is not None and not old.gone:
            try:
                await asyncio.wait_for(old.cdp.send("Browser.getVersion", {}), _SMALL_WAIT)
                return None  # same process: its own session saw the navigation
            except Exception:
                pass
        page = self._page_of_frame(frame)
        if page is None:
            return None
        try:
            target = await self._attach(page, frame, is_page=False)
        except Exception:
            self._in_process.add(impl_of(frame))
            return None  # part of its parent's process: that target reports it
        try:
            await target.send("Page.enable", {})
            await target.quiet_send("Inspector.enable", {})
            tree = await self._frame_tree(target)
        except Exception:
            await self._detach(target)
            return None
        root = tree.node["frame"]["id"]
        target.root = root
        previous = old if old is not None else self._targets.get(root)
        if previous is not None:
            if not previous.gone:
                self._on_interrupt("navigated", root, {"url": self._frames.get(root, "")})
            self._forget(previous)
        self._drop_tools(self._subtree(root))
        self._read_tree(target, tree)
        self._targets[root] = target
        self._by_frame[impl_of(frame)] = target
        try:
            await target.send("WebMCP.enable", {})
        except Exception:
            return None
        return target

    def _page_of_frame(self, frame: Frame) -> Page | None:
        known = self._pages.get(impl_of(impl_of(frame).page))
        return None if known is None else known[0]

    def _pw_new_page(self, page: Page) -> None:
        if self._closed:
            return
        task = asyncio.ensure_future(self._follow_popup(page))
        self._adopting.add(task)
        task.add_done_callback(self._adopting.discard)

    async def _follow_popup(self, page: Page) -> None:
        """Follow a page that one of ours opened (window.open, target=_blank)."""
        try:
            opener = await asyncio.wait_for(impl_of(page).opener(), _SMALL_WAIT)
        except Exception:
            return
        if opener is None or impl_of(opener) not in self._pages or self._closed:
            return
        if self._popups >= POPUPS_FOLLOWED:  # a popup storm: the rest are closed, and noted
            self.on_note("popupNotFollowed", self._pages[impl_of(opener)][1], {"url": page.url})
            with contextlib.suppress(Exception):
                await asyncio.wait_for(page.close(), _SMALL_WAIT)
            return
        self._popups += 1
        try:
            target = await self._attach(page, page, is_page=True)
            await target.send("Page.enable", {})
            tree = await self._frame_tree(target)
        except Exception:
            return
        root = tree.node["frame"]["id"]
        target.root = root
        self._read_tree(target, tree)
        self._targets[root] = target
        self._pages[impl_of(page)] = (page, root)
        self._listen(page, "close", lambda _: self._popup_gone(page, target, "closed"))
        self._listen(page, "crash", lambda _: self._popup_gone(page, target, "crashed"))
        self._listen(page, "framenavigated", self._pw_frame_navigated)
        try:
            await target.send("WebMCP.enable", {})
        except Exception:
            return
        await self._scan_child_frames(target)
        for frame in impl_of(page).frames:
            if frame.parent_frame is not None:
                await self._adopt(frame)

    def _popup_gone(self, page: Page, target: _Target, kind: FrameEventType) -> None:
        if self._closed:
            return
        known = self._pages.pop(impl_of(page), None)
        if known is None:
            return
        root = known[1]
        self._on_interrupt(kind, root, {})
        below = self._subtree(root)
        for frame_id in below:
            child = self._targets.get(frame_id)
            if child is not None:
                self._forget(child)
        self._drop_tools(below)
        target.gone = True

    # -- calls -----------------------------------------------------------------------------
    async def invoke(
        self, tool: Tool, args: dict[str, Any], *, on_start: Callable[[], None] | None = None
    ) -> _CdpInvocation:
        if self._closed:
            raise TargetGoneError("the session is closed")
        if self._ended:
            raise TargetGoneError(f"the page is {self._ended}")
        target = self._owner.get(tool.frame_id)
        if target is None or target.gone:
            raise TargetGoneError(f"the frame of {tool.name} is gone")
        inv = _CdpInvocation(self, target, tool, on_start)
        params = {"frameId": tool.frame_id, "toolName": tool.name, "input": args}
        key = (tool.frame_id, tool.name)
        self._starting.setdefault(key, []).append(inv)
        try:
            # Not bounded here: the session races this against the call's deadline and the
            # page's interruptions (and a wait_for task would cost every call loop turns).
            if isinstance(target.cdp, DirectSession):
                reply = await target.cdp.send("WebMCP.invokeTool", params)
            else:
                reply = await cdp_call(target.cdp, "WebMCP.invokeTool", params)
        except (PlaywrightError, DirectCdpError) as exc:
            message = str(exc).split("Protocol error (WebMCP.invokeTool): ")[-1].splitlines()[0]
            closed = is_target_closed(exc) or isinstance(exc, DirectCdpClosedError)
            if target.gone or self._ended or self._closed or closed:
                raise TargetGoneError(message) from exc
            if message.strip() == _TOOL_NOT_FOUND:
                raise ToolNotFoundError(message) from exc
            raise CallRefusedError(message) from exc
        finally:
            starting = self._starting.get(key, [])
            with contextlib.suppress(ValueError):
                starting.remove(inv)
            if not starting:
                self._starting.pop(key, None)
        inv.id = str(reply["invocationId"])
        self._pending[inv.id] = inv
        early = self._early.pop(inv.id, None)
        if self._early_invoked.pop(inv.id, 0) is None:
            inv.invoked()
        if early is not None:
            self._responded(*early, target)
        return inv

    def observe(self, observer: InvocationObserver) -> Callable[[], None]:
        """Tell observer of every call the page's targets report, from now on; returns a
        function that stops it."""
        self._observers.append(observer)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                self._observers.remove(observer)

        return stop

    def _tool_invoked(self, params: dict[str, Any], target: _Target) -> None:
        """The tool began to run. Its session sends this after every tools event that came
        before the call, so this is where changes to the tool start to count as mid-call."""
        key = (str(params.get("frameId", "")), str(params.get("toolName", "")))
        invocation_id = str(params.get("invocationId", ""))
        tool = self._tools.get(key)
        if tool is not None and tool.declarative:
            _remember(self._forms, invocation_id, key)
        if self._observers and not target.gone:
            ours = invocation_id in self._pending or key in self._starting
            for observer in list(self._observers):
                observer.invoked(invocation_id, *key, tool, params.get("input"), ours=ours)
        for sent in self._starting.get(key, []):
            if sent.on_start is not None:
                sent.on_start()
        inv = self._pending.get(params.get("invocationId", ""))
        if inv is None:
            _remember(self._early_invoked, params.get("invocationId", ""), None)
            return
        if inv.on_start is not None:
            inv.on_start()
        inv.invoked()

    def _answer(self, inv: _CdpInvocation, report: BrowserReport) -> None:
        """Hand inv its report; on a direct session that saw the page navigate, only once
        Playwright has caught up, so `page.url` and its frames are the ones the answer came from."""
        cdp = inv._target.cdp
        if isinstance(cdp, DirectSession) and self._moved:
            self._moved = False
            self.spawn(self._answer_after(cdp, inv, report))
        else:
            inv.respond(report)

    async def _answer_after(
        self, cdp: DirectSession, inv: _CdpInvocation, report: BrowserReport
    ) -> None:
        try:
            await cdp.catch_up()
        finally:
            inv.respond(report)

    def _tool_responded(self, params: dict[str, Any], target: _Target) -> None:
        """A call ended; a form's is handed on once its page events are read (only form calls
        pay for that)."""
        form = self._forms.pop(str(params.get("invocationId", "")), None)
        if form is None:
            inv = self._pending.get(params.get("invocationId", ""))
            if inv is not None and inv.tool.declarative:
                form = (inv.tool.frame_id, inv.tool.name)
        if form is None or target.gone:
            self._responded(params, [], target)
        else:
            self.spawn(self._responded_after(params, form, target))

    async def _responded_after(
        self, params: dict[str, Any], form: tuple[str, str], target: _Target
    ) -> None:
        events = await self._page_events(self._owner.get(form[0], target), *form)
        self._responded(params, events, target)

    def _responded(self, params: dict[str, Any], events: PageEvents, target: _Target) -> None:
        invocation_id = params.get("invocationId", "")
        if self._observers and not target.gone:
            self._tell_responded(params, events, target)
        inv = self._pending.pop(invocation_id, None)
        if inv is None:
            _remember(self._early, invocation_id, (params, events))
            return
        report = _report_of(params, events)
        object_id = (report.exception or {}).get("objectId")
        if object_id:
            self.spawn(
                self._read_exception(
                    inv._target, report, object_id, lambda done: self._answer(inv, done)
                )
            )
        else:
            self._answer(inv, report)

    def _tell_responded(self, params: dict[str, Any], events: PageEvents, target: _Target) -> None:
        """Tell the observers of an answer (with the thrown error read, as for our own calls)."""

        def tell(report: BrowserReport) -> None:
            for observer in list(self._observers):
                observer.responded(report)

        report = _report_of(params, events)  # a report of its own: ours may be read into meanwhile
        object_id = (report.exception or {}).get("objectId")
        if object_id and params.get("invocationId", "") not in self._pending:
            self.spawn(self._read_exception(target, report, object_id, tell, release=False))
        else:
            tell(report)

    async def _read_exception(
        self,
        target: _Target,
        report: BrowserReport,
        oid: str,
        then: Callable[[BrowserReport], None],
        *,
        release: bool = True,
    ) -> None:
        """Read a thrown error's name, code and message through the protocol."""
        try:
            reply = await target.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": oid,
                    "functionDeclaration": _EXCEPTION_PROPS_JS,
                    "returnByValue": True,
                },
            )
            props = reply.get("result", {}).get("value") or {}
            report.exception = {**(report.exception or {}), **props}
        except Exception:
            pass
        finally:
            then(report)
            if release:
                self.spawn(target.quiet_send("Runtime.releaseObject", {"objectId": oid}))

    async def on_form(self, tool: Tool, function: str) -> Any:
        """Run function with `this` = the tool's <form>; None when that cannot be done."""
        target = self._owner.get(tool.frame_id)
        if tool.backend_node_id is None or target is None:
            return None
        try:
            node = await target.send("DOM.resolveNode", {"backendNodeId": tool.backend_node_id})
            reply = await target.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": node["object"]["objectId"],
                    "functionDeclaration": function,
                    "awaitPromise": True,
                    "returnByValue": True,
                },
            )
        except Exception:
            return None
        return reply.get("result", {}).get("value")

    # -- plumbing --------------------------------------------------------------------------
    def _listen(self, emitter: Any, event: str, handler: Callable[..., Any]) -> None:
        """Listen on Playwright's implementation object, which hands out no API wrappers.

        A handler on an API object would wrap each new frame or page in that API's class first,
        and Playwright keeps the first wrapper: a sync-API user would then get async objects.
        """
        impl = impl_of(emitter)
        impl.on(event, handler)
        self._listeners.append((impl, event, handler))

    def spawn(self, coro: Any) -> None:
        if self._closed:
            coro.close()
            return
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _css_string(text: str) -> str:
    """text as a quoted CSS string (for an attribute selector)."""
    escaped = "".join(
        f"\\{c}" if c in '"\\' else f"\\{ord(c):x} " if ord(c) < 0x20 or ord(c) == 0x7F else c
        for c in text
    )
    return f'"{escaped}"'


def _report_of(params: dict[str, Any], events: PageEvents) -> BrowserReport:
    """A `WebMCP.toolResponded` event's report, with the page events of its call."""
    return BrowserReport(
        status=params.get("status"),
        output=params.get("output"),
        error_text=params.get("errorText"),
        exception=params.get("exception"),
        invocation_id=params.get("invocationId", ""),
        page_events=list(events),
    )


def _no_tools(added: list[Tool], removed: list[Tool]) -> None:
    pass


def _no_interrupt(kind: str, frame_id: str, detail: dict[str, Any]) -> None:
    pass


def _no_note(kind: str, frame_id: str, detail: dict[str, Any]) -> None:
    pass


def _frame_origin(security_origin: Any, url: str) -> str:
    """The frame's origin as the browser gives it (an about:blank frame has its parent's), else
    its URL's."""
    if isinstance(security_origin, str) and security_origin and security_origin != "://":
        return security_origin
    return origin_of(url)


def _remember(store: OrderedDict[str, Any], key: str, value: Any) -> None:
    store[key] = value
    while len(store) > _EARLY_KEEP:
        store.popitem(last=False)


def _json_or_none(text: str) -> Any:
    try:
        return loads_page(text)
    except ValueError:  # not JSON, or nested past the cap (TooDeep)
        return None
