"""The bridge: a session's page tools and the harness's browser tools, behind the check.

``Bridge(session, owner=..., transcript=...)`` knows nothing of MCP's wire or transports
(``server.py`` does): it lists tools in the ``tools/list`` shape and answers calls with coded
MCP results (plain dicts), never raising for anything the page did.

A page tool's call (under its own name, or through ``webmcp_call_tool``) takes the gateway's one
path, ``Gateway.run``: the tool is looked up first (one that is not there is ``unavailable`` and
the check is never asked), then the check (seed 003). When it asks and the client can ask the
person (``ask``, MCP elicitation), the person's yes is the owner's approval: the call runs once. A
no, or no way to ask, answers with the check's ``not_done_yet`` text. A stop is never asked about
and never runs: its ``refused`` text is the answer. Held answers are ``isError`` results whose text
is the seed's JSON word for word and whose ``structuredContent`` is the same object. Then the
session calls the tool in its frame. With ``labels`` (the default), page tools' descriptions and
results carry the untrusted labels of ``agent.specs``.

Results over ``max_output_bytes`` (default 1,000,000, as the gateway) are coded ``failed``
rather than sent; strings with lone surrogates are mended (U+FFFD). The transcript gets a
``request`` line for every request, and a ``step`` line for every open, call, hold, approval,
wait and confirm, in the format ``webmcp-harness replay`` reads.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from ..agent.gateway import (
    DEFAULT_MAX_OUTPUT_BYTES,
    Gateway,
    GatewayCall,
    output_size,
)
from ..agent.kinds import kind_for, kind_for_http
from ..agent.outcome import Outcome
from ..agent.policy import Check, Decision
from ..agent.specs import labelled_result
from ..agent.transcript import TranscriptWriter, step_entry
from ..core.errors import Error
from ..core.records import CallRecord, Tool
from ..core.results import ToolErrorCode, code_of, tool_error
from ..core.text import safe_text
from ..core.urls import join_url, split_url
from ..session.browser import goto
from .tools import BROWSER_TOOLS, CALL_TOOL, GENERIC_TOOLS, LIST_TOOLS, clean, expose, tool_spec

if TYPE_CHECKING:
    from ..session import WebMCPSession

__all__ = ["DEFAULT_MAX_OUTPUT_BYTES", "LIST_CHANGED_EVERY", "LIST_WAIT", "Ask", "Bridge"]

LIST_CHANGED_EVERY: Final = 0.25
"""Seconds between two ``notifications/tools/list_changed`` at least (at most 4 a second)."""
LIST_WAIT: Final = 1.0
"""Seconds ``tools/list`` waits for the page's list to settle before it lists it as it is."""

_SHOWN: Final = 500
_BROWSER = {spec["name"] for spec in BROWSER_TOOLS}
_HARNESS: Final = (*BROWSER_TOOLS, *GENERIC_TOOLS)

Ask = Callable[[str], Awaitable[bool | None]]
"""Ask the person a yes/no question: True yes, False no, None when they cannot be asked."""


class Bridge:
    """Page tools and browser tools for an MCP server, on one session."""

    def __init__(
        self,
        session: WebMCPSession,
        *,
        owner: str = "",
        check: Check | None = None,
        transcript: TranscriptWriter | None = None,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        labels: bool = True,
    ) -> None:
        self.session = session
        self.gateway = Gateway(session, owner=owner, check=check, max_output_bytes=max_output_bytes)
        self.transcript = transcript
        self.max_output_bytes = max_output_bytes
        self.labels = labels
        self._exposed: dict[str, Tool] | None = None
        self._listeners: list[Callable[[], None]] = []
        self.steps = 0
        self._notify_soon = False
        self._told_at = -LIST_CHANGED_EVERY
        self._stop = session.on_change(self._page_changed)

    # -- the tool list ---------------------------------------------------------------------
    def on_list_changed(self, listener: Callable[[], None]) -> None:
        """Call listener (soon, once per burst) when the tool list may have changed."""
        self._listeners.append(listener)

    def _page_changed(self, what: str) -> None:
        """Coalesced: at most one notice per LIST_CHANGED_EVERY, and always one after the last
        change (a notice waits for its turn; changes before it is sent ride on it)."""
        self._exposed = None
        if self._notify_soon:
            return
        self._notify_soon = True
        loop = asyncio.get_running_loop()
        loop.call_later(max(0.0, self._told_at + LIST_CHANGED_EVERY - loop.time()), self._tell)

    def _tell(self) -> None:
        self._notify_soon = False
        self._told_at = asyncio.get_running_loop().time()
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):
                listener()

    async def exposed(self) -> dict[str, Tool]:
        """MCP name → page tool, as of now."""
        if self._exposed is None:
            tools = await self._tools()
            self._exposed = expose(tools, self.session.is_main_frame)
        return self._exposed

    async def _tools(self) -> list[Tool]:
        """The page's tools once settled, or as they are after LIST_WAIT (a list that never
        goes quiet is still listed fast). The bound is the session's own (`within`), not a
        cancel: Python 3.11's wait_for loses a cancel that comes as the page's list changes,
        and a restless page's list changes all the time (the settle then ran to its 3 s cap)."""
        return await self.session.tools(within=LIST_WAIT)

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every page tool (every frame), then the browser tools, in ``tools/list`` shape."""
        self.request("tools/list")
        try:
            exposed = await self.exposed()
        except Error:
            exposed = {}
        return self._specs(exposed) + [dict(spec) for spec in _HARNESS]

    # -- calls -----------------------------------------------------------------------------
    async def call(
        self, name: str, args: Mapping[str, Any] | None, *, ask: Ask | None = None
    ) -> dict[str, Any]:
        """Answer a ``tools/call``: a coded MCP result. Never raises but for cancellation."""
        data: dict[str, Any] = dict(args) if isinstance(args, Mapping) else {}
        self.request("tools/call", tool=name, input=data)
        try:
            if name in _BROWSER:
                result = await self._browser(name, data)
            elif name == LIST_TOOLS:
                result = await self._list_generic()
            elif name == CALL_TOOL:
                result = await self._call_generic(data, ask)
            else:
                result = await self._page_tool(name, data, ask)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a harness bug must not end the server, nor the call uncoded
            result = dict(tool_error(ToolErrorCode.FAILED, f"The harness failed: {err!r}"))
        return self._sendable(result)

    async def _page_tool(
        self, name: str, data: dict[str, Any], ask: Ask | None, frame: str | None = None
    ) -> dict[str, Any]:
        """A page tool's call through the gateway's one path (``Gateway.run``)."""
        tool = None
        if frame is None:
            tool = (await self.exposed()).get(name)
            if tool is None:  # the list may be behind the page: look again
                self._exposed = None
                tool = (await self.exposed()).get(name)
        page_name = tool.name if tool is not None else name
        asked: set[int] = set()

        async def ask_person(call: GatewayCall) -> bool:
            self._step(
                "call", tool=page_name, input=data, answer=call.answer, call=call,
                outcome=call.outcome,
            )  # fmt: skip
            asked.add(call.index)
            said = await ask(self._question(page_name, data, call.decision)) if ask else None
            if said:
                self._step(
                    "approve",
                    tool=page_name,
                    input=data,
                    answer={"approved": True, "tool": page_name},
                    outcome=Outcome(True),
                    explicit=True,
                    via="elicitation",
                )
            return bool(said)

        ran = await self.gateway.run(
            page_name,
            data,
            ask=ask_person if ask is not None else None,
            tool=tool,
            frame=frame,
            timeout=self.session.timeout,
        )
        call = ran.call
        if call.index not in asked:
            answer = ran.answer if ran.held else ran.result
            self._step(
                "call", tool=page_name, input=data, answer=answer, call=call, outcome=call.outcome
            )
        if self.labels and not ran.held and ran.result.get("isError") is not True:
            return labelled_result(ran.result)
        return ran.result

    async def _list_generic(self) -> dict[str, Any]:
        """webmcp_list_tools: the page's tools now, with their frames (read fresh)."""
        self._exposed = None
        try:
            exposed = await self.exposed()
        except Error as err:
            return dict(tool_error(ToolErrorCode.UNAVAILABLE, err.message))
        tools = []
        for mcp_name, tool in exposed.items():
            spec = tool_spec(tool, labels=self.labels)
            spec["frame"] = {
                "id": tool.frame_id,
                "url": tool.frame_url,
                "main": self.session.is_main_frame(tool),
            }
            spec["mcpName"] = mcp_name
            tools.append(spec)
        value = {"url": self.session.page.url, "tools": tools}
        result = {
            "content": [{"type": "text", "text": _compact(value)}],
            "structuredContent": value,
        }
        return labelled_result(result) if self.labels else result

    async def _call_generic(self, data: Mapping[str, Any], ask: Ask | None) -> dict[str, Any]:
        """webmcp_call_tool {name, input, frame?}: a page tool through the same path."""
        name, args, frame = data.get("name"), data.get("input"), data.get("frame")
        if not isinstance(name, str) or not name:
            return dict(tool_error(ToolErrorCode.INVALID_INPUT, "name must be non-empty text."))
        if args is not None and not isinstance(args, Mapping):
            return dict(tool_error(ToolErrorCode.INVALID_INPUT, "input must be an object."))
        if frame is not None and not isinstance(frame, str):
            return dict(tool_error(ToolErrorCode.INVALID_INPUT, "frame must be text."))
        return await self._page_tool(name, dict(args or {}), ask, frame or None)

    def _question(self, tool: str, data: Mapping[str, Any], decision: Decision | None) -> str:
        reason = decision.reason if decision is not None and decision.reason else "the check asks"
        shown = _compact(data)
        if len(shown) > _SHOWN:
            shown = shown[: _SHOWN - 3] + "..."
        return f"Let {tool} run once? The check asks first: {reason}. Input: {shown}"

    # -- browser tools ---------------------------------------------------------------------
    async def _browser(self, name: str, data: dict[str, Any]) -> dict[str, Any]:
        if name == "browser_open":
            return await self.open(data.get("url"))
        if name == "browser_wait_for_tool":
            return await self._wait_for_tool(data.get("name"), data.get("timeout"))
        if name == "browser_confirm":
            return await self._confirm(data.get("tool"))
        return await self._screenshot(bool(data.get("full_page")))

    async def open(self, url: object) -> dict[str, Any]:
        """Navigate the page to url; the answer lists the new page's tools."""
        page = self.session.page
        if not isinstance(url, str) or not url.strip():
            return dict(tool_error(ToolErrorCode.INVALID_INPUT, "url must be non-empty text."))
        target = url.strip()
        current = page.url
        absolute = join_url(current, target) if current.startswith("http") else target
        parts = split_url(absolute)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return dict(
                tool_error(
                    ToolErrorCode.INVALID_INPUT,
                    f"{target!r} is not an http(s) URL. WebMCP needs https, or http on "
                    "localhost/127.0.0.1.",
                )
            )
        try:
            response = await goto(
                page, absolute, self.session.timeout, partly=_partly(absolute, self.session.timeout)
            )
        except Error as err:
            result = dict(tool_error(ToolErrorCode.UNAVAILABLE, err.message))
            failed = {"error": "unavailable", "message": err.message}
            self._step("open", answer=failed, outcome=Outcome(False, kind="unavailable"),
                       target=target, url=absolute)  # fmt: skip
            return result
        status = _status(response)
        self._exposed = None
        specs = [
            {k: s[k] for k in ("name", "title", "description") if k in s}
            for s in (await self.list_tools_quietly())
        ]
        kind = kind_for_http(status) if status is not None else None
        value = {"url": page.url, "status": status, "tools": specs}
        answer: dict[str, Any] = {"url": page.url, "status": status}
        if kind is None:
            outcome = Outcome(True)
        else:
            answer = {"error": kind, "message": f"{absolute} answered HTTP {status}."}
            outcome = Outcome(False, kind=kind)
        self._step("open", answer=answer, outcome=outcome, target=target, url=absolute)
        return {"content": [{"type": "text", "text": _compact(value)}], "structuredContent": value}

    async def list_tools_quietly(self) -> list[dict[str, Any]]:
        """The page tools' specs, without a transcript line."""
        try:
            exposed = await self.exposed()
        except Error:
            return []
        return self._specs(exposed)

    def _specs(self, exposed: Mapping[str, Tool]) -> list[dict[str, Any]]:
        return [tool_spec(t, name, meta=True, labels=self.labels) for name, t in exposed.items()]

    async def _wait_for_tool(self, name: object, timeout: object) -> dict[str, Any]:
        if not isinstance(name, str) or not name:
            return dict(tool_error(ToolErrorCode.INVALID_INPUT, "name must be non-empty text."))
        seconds = self.session.timeout
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
            seconds = float(timeout)
        found = await self.session.wait_for_tool(name, timeout=seconds)
        if found is None:
            message = f"No tool {name} appeared within {seconds:g} s."
            answer: dict[str, Any] = {"error": "not_found", "message": message}
            self._step("wait_for_tool", tool=name, answer=answer,
                       outcome=Outcome(False, kind="not_found"), timeout=seconds)  # fmt: skip
            return dict(tool_error(ToolErrorCode.UNAVAILABLE, message))
        self._exposed = None
        exposed = await self.exposed()
        mcp_name = next((n for n, t in exposed.items() if t == found), found.name)
        value = {"tool": mcp_name, "frameUrl": found.frame_url}
        self._step("wait_for_tool", tool=name, answer={"tool": found.name, "frameUrl": found.frame_url},
                   outcome=Outcome(True), timeout=seconds)  # fmt: skip
        return {"content": [{"type": "text", "text": _compact(value)}], "structuredContent": value}

    async def _confirm(self, name: object) -> dict[str, Any]:
        if not isinstance(name, str) or not name:
            return dict(tool_error(ToolErrorCode.INVALID_INPUT, "tool must be non-empty text."))
        exposed = await self.exposed()
        page_name = exposed[name].name if name in exposed else name
        waiting = _waiting(self.session.records, page_name)
        if waiting is None:
            message = f"No call to {name} waits for the person to submit it."
            answer: dict[str, Any] = {"error": "not_found", "message": message}
            self._step("confirm", tool=page_name, answer=answer,
                       outcome=Outcome(False, kind="not_found"))  # fmt: skip
            return dict(tool_error(ToolErrorCode.UNAVAILABLE, message))
        result: dict[str, Any] = dict(await self.session.confirm_pending(waiting))
        code = code_of(result)
        call = GatewayCall(len(self.gateway.calls) + 1, page_name, waiting.input, "owner")
        call.decision = Decision.allow(rule="confirm")
        call.record, call.code, call.answer = waiting, code, result
        call.kind = kind_for(code) if code is not None else None
        self.gateway.calls.append(call)
        self._step("confirm", tool=page_name, input=waiting.input, answer=result, call=call)
        return result

    async def _screenshot(self, full_page: bool) -> dict[str, Any]:
        try:
            png = await asyncio.wait_for(
                self.session.page.screenshot(type="png", full_page=full_page),
                self.session.timeout,
            )
        except asyncio.TimeoutError:
            return dict(tool_error(ToolErrorCode.TIMEOUT, "The page gave no screenshot in time."))
        except Exception as err:
            first = (str(err).strip().splitlines() or [repr(err)])[0]
            return dict(tool_error(ToolErrorCode.UNAVAILABLE, f"No screenshot: {first}"))
        data = base64.b64encode(png).decode("ascii")
        return {"content": [{"type": "image", "data": data, "mimeType": "image/png"}]}

    # -- results and the transcript ----------------------------------------------------------
    def _sendable(self, result: dict[str, Any]) -> dict[str, Any]:
        cleaned: dict[str, Any] = clean(result)
        if "image" in {c.get("type") for c in cleaned.get("content", []) if isinstance(c, dict)}:
            return cleaned
        size = output_size(cleaned)
        if size > self.max_output_bytes:
            return dict(
                tool_error(
                    ToolErrorCode.FAILED,
                    f"The page answered with {size:,} bytes, over the limit of "
                    f"{self.max_output_bytes:,} bytes for one result.",
                )
            )
        return cleaned

    def request(self, method: str, **info: Any) -> None:
        """A transcript line for one MCP request (replay skips these)."""
        if self.transcript is not None:
            self.transcript.write({"type": "request", "method": method, "at": time.time(), **info})

    def _step(
        self,
        action: str,
        *,
        answer: Any = None,
        call: GatewayCall | None = None,
        outcome: Outcome | None = None,
        **extra: Any,
    ) -> None:
        """A step line (``extra``: step_entry's tool, input and the rest)."""
        if self.transcript is None:
            return
        self.steps += 1
        if call is not None:
            code = call.code_text
            if outcome is None:
                outcome = _outcome(answer, code)
            extra.update(
                decision=call.decision.to_dict() if call.decision else None,
                kind=call.kind,
                record=call.record.to_dict() if call.record else None,
                ms=round(call.ms, 3),
            )
        else:
            code = None
        self.transcript.step(
            step_entry(
                self.steps,
                action,
                source="owner" if action == "call" else None,
                answer=answer,
                code=code,
                outcome=outcome,
                **extra,
            )
        )

    async def close(self) -> None:
        """Stop following the page (the session stays open)."""
        self._stop()


def _outcome(answer: Any, code: str | None) -> Outcome:
    """The coded outcome the gateway would give the same answer (so replays compare)."""
    if isinstance(answer, Mapping) and ("not_done_yet" in answer or "refused" in answer):
        return Outcome.of(answer)
    if code is None:
        return Outcome(True)
    return Outcome(False, code, kind_for(code))


def _waiting(records: list[CallRecord], tool: str) -> CallRecord | None:
    return next((r for r in reversed(records) if r.tool == tool and r.pending), None)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _status(response: Any) -> int | None:
    try:
        return int(response.status) if response is not None else None
    except Exception:
        return None


def _partly(url: str, timeout: float) -> Callable[[], None]:
    """The warning on stderr for a page that only partly loaded (as the command line words it)."""

    def warn() -> None:
        print(
            f"warning: {safe_text(url)} did not finish loading in {timeout:g} s; "
            "using it as far as it got",
            file=sys.stderr,
        )

    return warn
