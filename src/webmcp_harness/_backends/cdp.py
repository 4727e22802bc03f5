"""Chromium's native WebMCP, reached through the DevTools-protocol domain `WebMCP`."""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from .._pw import as_async
from ..errors import WebMCPUnavailableError
from ..records import BackendName, BrowserReport, Tool, normalise_annotations
from .base import BackendError, Interrupted, ToolsChanged

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Page

__all__ = ["CdpBackend"]

_SMALL_WAIT = 5.0  # bound for housekeeping round trips (reading an exception, cancelling)
_EARLY_KEEP = 1000

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


class _CdpInvocation:
    def __init__(self, backend: CdpBackend, tool: Tool) -> None:
        loop = asyncio.get_running_loop()
        self.id = ""
        self.tool = tool
        self.answered: asyncio.Future[BrowserReport] = loop.create_future()
        self.waiting: asyncio.Future[None] | None = (
            None if tool.autosubmit else loop.create_future()
        )
        self._backend = backend

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
        await self._backend.quiet_send("WebMCP.cancelInvocation", {"invocationId": self.id})

    async def confirm(self) -> bool:
        box = await self._backend.on_form(self.tool, _FORM_SUBMIT_BOX_JS)
        if not isinstance(box, dict):
            return False
        for kind in ("mousePressed", "mouseReleased"):
            params = {"type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1}
            await self._backend.quiet_send("Input.dispatchMouseEvent", params)
        return True


class CdpBackend:
    """Tools and calls through `WebMCP.*` on a CDP session of the page."""

    name: BackendName = "cdp"

    def __init__(self, page: Page) -> None:
        self._page = as_async(page)
        self._cdp: CDPSession | None = None
        self._tools: dict[tuple[str, str], Tool] = {}
        self._frames: dict[str, str] = {}
        self._parents: dict[str, str | None] = {}
        self._pending: dict[str, _CdpInvocation] = {}
        self._early: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._early_invoked: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._on_tools: ToolsChanged = lambda added, removed: None
        self._on_interrupt: Interrupted = lambda kind, frame, detail: None
        self._closed = False
        self._ended: str | None = None  # "closed" | "crashed" | "disconnected"
        self.main_frame_id = ""

    # -- lifecycle -------------------------------------------------------------------------
    async def open(self, on_tools: ToolsChanged, on_interrupt: Interrupted) -> None:
        self._on_tools, self._on_interrupt = on_tools, on_interrupt
        page = self._page
        context = as_async(page.context)
        cdp = await context.new_cdp_session(page)
        self._cdp = cdp
        handlers = {
            "WebMCP.toolsAdded": self._tools_added,
            "WebMCP.toolsRemoved": self._tools_removed,
            "WebMCP.toolInvoked": self._tool_invoked,
            "WebMCP.toolResponded": self._tool_responded,
            "Page.frameNavigated": self._frame_navigated,
            "Page.frameAttached": self._frame_attached,
            "Page.frameDetached": self._frame_detached,
        }
        for event, handler in handlers.items():
            cdp.on(event, handler)
        page.on("close", lambda _: self._gone("closed"))
        page.on("crash", lambda _: self._gone("crashed"))
        browser = as_async(context.browser)
        if browser is not None:
            browser.on("disconnected", lambda _: self._gone("disconnected"))
        await cdp.send("Page.enable")
        tree = await cdp.send("Page.getFrameTree")
        self._read_tree(tree["frameTree"], None)
        try:
            await cdp.send("WebMCP.enable")
        except Exception as exc:
            raise WebMCPUnavailableError(
                "This browser has no WebMCP DevTools domain: use Chromium 146+ launched with "
                "--enable-features=WebMCP,WebMCPTesting,DevToolsWebMCPSupport, or backend='inpage' "
                f"for a polyfilled page ({str(exc).splitlines()[0]})."
            ) from exc
        await self._scan_child_frames()

    async def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        cdp, self._cdp = self._cdp, None
        if cdp is not None and self._ended is None:  # a crashed page never answers a detach
            with contextlib.suppress(Exception):
                await asyncio.wait_for(cdp.detach(), _SMALL_WAIT)

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

    async def sync(self) -> None:
        """Round trip to the browser, so every event it sent before is handled."""
        await self.quiet_send("Browser.getVersion", {})

    def _read_tree(self, node: dict[str, Any], parent: str | None) -> None:
        frame = node["frame"]
        self._frames[frame["id"]] = frame.get("url", "") + frame.get("urlFragment", "")
        self._parents[frame["id"]] = parent
        if parent is None:
            self.main_frame_id = frame["id"]
        for child in node.get("childFrames", []):
            self._read_tree(child, frame["id"])

    async def _scan_child_frames(self) -> None:
        """Tools that iframes registered before WebMCP.enable (which reports only the root's)."""
        for frame_id in [f for f, parent in self._parents.items() if parent is not None]:
            try:
                world = await self._send(
                    "Page.createIsolatedWorld", {"frameId": frame_id, "worldName": "webmcp-harness"}
                )
                reply = await self._send(
                    "Runtime.evaluate",
                    {
                        "contextId": world["executionContextId"],
                        "expression": _OWN_TOOLS_JS,
                        "awaitPromise": True,
                        "returnByValue": True,
                    },
                )
            except Exception:
                continue
            found = reply.get("result", {}).get("value") or []
            tools = [dict(t, frameId=frame_id) for t in found if isinstance(t, dict)]
            self._tools_added({"tools": tools}, only_new=True)

    def _make_tool(self, raw: dict[str, Any]) -> Tool:
        schema = raw.get("inputSchema")
        if isinstance(schema, str):
            schema = _json_or_none(schema)
        frame_id = str(raw.get("frameId") or self.main_frame_id)
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
        )

    def _tools_added(self, params: dict[str, Any], *, only_new: bool = False) -> None:
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

    def _tools_removed(self, params: dict[str, Any]) -> None:
        removed = []
        for raw in params.get("tools", []):
            key = (str(raw.get("frameId") or self.main_frame_id), str(raw.get("name")))
            tool = self._tools.pop(key, None)
            if tool is not None:
                removed.append(tool)
        if removed:
            self._on_tools([], removed)

    def _drop_frame_tools(self, frame_id: str) -> None:
        removed = [t for key, t in self._tools.items() if key[0] == frame_id]
        for tool in removed:
            del self._tools[(tool.frame_id, tool.name)]
        if removed:
            self._on_tools([], removed)

    # -- frames and the page ---------------------------------------------------------------
    def _frame_attached(self, params: dict[str, Any]) -> None:
        self._parents[params["frameId"]] = params.get("parentFrameId")
        self._frames.setdefault(params["frameId"], "")

    def _frame_navigated(self, params: dict[str, Any]) -> None:
        frame = params["frame"]
        frame_id = frame["id"]
        self._frames[frame_id] = frame.get("url", "") + frame.get("urlFragment", "")
        if frame.get("parentId") is None:
            self.main_frame_id = frame_id
        self._parents[frame_id] = frame.get("parentId")
        self._on_interrupt("navigated", frame_id, {"url": self._frames[frame_id]})
        self._drop_frame_tools(frame_id)

    def _frame_detached(self, params: dict[str, Any]) -> None:
        frame_id = params["frameId"]
        if params.get("reason") == "swap":
            return
        self._on_interrupt("detached", frame_id, {})
        self._drop_frame_tools(frame_id)
        self._parents.pop(frame_id, None)
        self._frames.pop(frame_id, None)

    def _gone(self, kind: str) -> None:
        self._ended = self._ended or kind
        self._on_interrupt(kind, "", {})

    # -- calls -----------------------------------------------------------------------------
    async def invoke(self, tool: Tool, args: dict[str, Any]) -> _CdpInvocation:
        inv = _CdpInvocation(self, tool)
        params = {"frameId": tool.frame_id, "toolName": tool.name, "input": args}
        cdp = self._cdp
        try:
            if cdp is None:
                raise BackendError("the session is closed")
            # Not bounded here: the session races this against the call's deadline and the
            # page's interruptions (and a wait_for task would cost every call loop turns).
            reply = await cdp.send("WebMCP.invokeTool", params)
        except Exception as exc:
            message = str(exc).split("Protocol error (WebMCP.invokeTool): ")[-1].splitlines()[0]
            raise BackendError(message) from exc
        inv.id = str(reply["invocationId"])
        self._pending[inv.id] = inv
        early = self._early.pop(inv.id, None)
        if self._early_invoked.pop(inv.id, 0) is None:
            inv.invoked()
        if early is not None:
            self._tool_responded(early)
        return inv

    def _tool_invoked(self, params: dict[str, Any]) -> None:
        inv = self._pending.get(params.get("invocationId", ""))
        if inv is None:
            _remember(self._early_invoked, params.get("invocationId", ""), None)
            return
        inv.invoked()

    def _tool_responded(self, params: dict[str, Any]) -> None:
        invocation_id = params.get("invocationId", "")
        inv = self._pending.pop(invocation_id, None)
        if inv is None:
            _remember(self._early, invocation_id, params)
            return
        report = BrowserReport(
            status=params.get("status"),
            output=params.get("output"),
            error_text=params.get("errorText"),
            exception=params.get("exception"),
            invocation_id=invocation_id,
        )
        object_id = (report.exception or {}).get("objectId")
        if object_id:
            self.spawn(self._read_exception(inv, report, object_id))
        else:
            inv.respond(report)

    async def _read_exception(self, inv: _CdpInvocation, report: BrowserReport, oid: str) -> None:
        """Read a thrown error's name, code and message through the protocol."""
        try:
            reply = await self._send(
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
            inv.respond(report)
            self.spawn(self.quiet_send("Runtime.releaseObject", {"objectId": oid}))

    async def on_form(self, tool: Tool, function: str) -> Any:
        """Run function with `this` = the tool's <form>; None when that cannot be done."""
        if tool.backend_node_id is None:
            return None
        try:
            node = await self._send("DOM.resolveNode", {"backendNodeId": tool.backend_node_id})
            reply = await self._send(
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
    async def _send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if self._cdp is None:
            raise BackendError("the session is closed")
        return await asyncio.wait_for(self._cdp.send(method, params), _SMALL_WAIT * 6)

    async def quiet_send(self, method: str, params: dict[str, Any]) -> None:
        """Send and forget the answer: bounded, never raises."""
        with contextlib.suppress(Exception):
            if self._cdp is not None:
                await asyncio.wait_for(self._cdp.send(method, params), _SMALL_WAIT)

    def spawn(self, coro: Any) -> None:
        if self._closed:
            coro.close()
            return
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _remember(store: OrderedDict[str, Any], key: str, value: Any) -> None:
    store[key] = value
    while len(store) > _EARLY_KEEP:
        store.popitem(last=False)


def _json_or_none(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except ValueError:
        return None
