"""The agent gateway: ``use_tool(name, input)`` for scripted and model-driven agent runs.

``await gateway.use_tool(name, input, source="owner")`` returns JSON-ready data and never
raises, except for the caller's own cancellation (``asyncio.CancelledError``):

- the tool's result (MCP shape) when it worked;
- ``{"error": KIND, "message": ..., "card"?}`` when it didn't, the kind picked by the one table
  of ``kinds.py``;
- ``{"not_done_yet": ...}`` or ``{"refused": ...}`` when the check held it back; then nothing
  ran in the page.

Order of a call (``run``, the one path that ``use_tool`` and ``serve`` take): the tool is looked
up (a tool not listed is waited for up to ``LATE_TOOL_WAIT`` within the call's timeout; one still
not there is ``unavailable``, kind ``not_found``, and the check is never asked), the check decides
(an owner's approval turns an ask into allow; never a stop; ``ask``, when given, puts an ask to
the person), then the session calls the tool that was looked up. An approval is used up by the
call it lets through, and given back when that call never reached the tool (no such tool, bad
input, no WebMCP). An unknown ``source`` counts as ``"page"``. A result whose compact JSON is over
``max_output_bytes`` (default 1,000,000) is ``too_large``. Every call leaves a ``GatewayCall`` in
``gateway.calls``: the decision, the answer, the code, the kind and the session's ``CallRecord``.

What the gateway tells apart beyond the code (the conditions of ``kinds.py``): a page or
browser without ``document.modelContext`` (``not_connected``, with a card); a page whose
permissions policy blocks the ``tools`` feature, so its tools could not register, or a tool
whose own work a permissions policy refused (``forbidden``); a form that waits for a person
but has no submit button (``unsupported``); a page closed, or a browser gone, before the call
reached it, or a session that failed (``unavailable``).

``tool_specs()`` renders each tool with ``agent.specs.tool_spec``, the renderer ``serve`` uses:
MCP annotations by one rule (``consequentialHint`` becomes ``destructiveHint``).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from ..core.errors import Error, WebMCPUnavailableError
from ..core.records import CallRecord, Tool
from ..core.results import ToolErrorCode, code_of, first_text, tool_error
from .kinds import (
    NO_BROWSER,
    NO_CONFIRM,
    NO_WEBMCP,
    PERMISSIONS_POLICY,
    TOO_LARGE,
    connect_card,
    failure,
    failure_message,
    kind_for,
)
from .outcome import Outcome
from .policy import (
    DEFAULT_CHECK_TIMEOUT,
    Approvals,
    Check,
    CheckRequest,
    Decision,
    decide,
    default_check,
    fingerprint,
    hold_message,
)
from .specs import tool_spec

if TYPE_CHECKING:
    from ..session import WebMCPSession
    from ..session import sync as sync_api

__all__ = [
    "DEFAULT_MAX_OUTPUT_BYTES",
    "LATE_TOOL_WAIT",
    "Ask",
    "Gateway",
    "GatewayCall",
    "Ran",
    "SyncGateway",
    "held_result",
    "output_size",
]

T = TypeVar("T")
DEFAULT_MAX_OUTPUT_BYTES: Final = 1_000_000
_PREFIX = re.compile(r"^Error(?: \[[^\]\r\n]*\])?:\s*")
_POLICY = re.compile(r"permissions?[- ]policy", re.IGNORECASE)
_NEVER_RAN: Final = frozenset({ToolErrorCode.UNAVAILABLE, ToolErrorCode.INVALID_INPUT})
LATE_TOOL_WAIT: Final = 1.0  # how long a call waits for a tool that is not listed yet


class _Owner(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def instructions(self) -> str: ...


@dataclass
class GatewayCall:
    """One ``use_tool`` call: what was asked, what the check said, what came back."""

    index: int
    tool: str
    input: Any
    source: str
    started_at: float = field(default_factory=time.time)
    decision: Decision | None = None
    answer: dict[str, Any] | None = None
    code: ToolErrorCode | None = None
    kind: str | None = None
    condition: str | None = None
    record: CallRecord | None = None
    ms: float = 0.0

    @property
    def code_text(self) -> str | None:
        """The code as the plain text that answers, transcripts and outcomes carry."""
        return None if self.code is None else self.code.value

    @property
    def outcome(self) -> Outcome:
        """The coded outcome of the answer."""
        return Outcome.of(self.answer, code=self.code_text)

    def to_dict(self) -> dict[str, Any]:
        """The call as JSON-ready data (for transcripts; redact before writing)."""
        return {
            "index": self.index,
            "tool": self.tool,
            "input": self.input,
            "source": self.source,
            "startedAt": self.started_at,
            "decision": self.decision.to_dict() if self.decision else None,
            "answer": self.answer,
            "code": self.code_text,
            "kind": self.kind,
            "condition": self.condition,
            "outcome": self.outcome.to_dict(),
            "record": self.record.to_dict() if self.record else None,
            "ms": round(self.ms, 3),
        }


Ask = Callable[[GatewayCall], Awaitable[bool | None]]
"""Ask the person about a call the check asks about (its ``decision`` says why): True is yes (the
owner's approval, for this call once), False no, None when the person cannot be asked."""


@dataclass
class Ran:
    """One call through ``Gateway.run``: the last ``GatewayCall`` (after an ask the person
    answered yes, the call that ran) and the coded MCP result (a held call's is an ``isError``
    result whose text and ``structuredContent`` are the seed's JSON). ``answer`` is what
    ``use_tool`` returns."""

    call: GatewayCall
    result: dict[str, Any]

    @property
    def answer(self) -> dict[str, Any]:
        return self.call.answer if self.call.answer is not None else {}

    @property
    def held(self) -> bool:
        return self.call.decision is not None and self.call.decision.outcome != "allow"


class Gateway:
    """``use_tool`` over a ``WebMCPSession``, with the check in front.

    ``owner`` is the owner's name (or an object with ``name`` and ``instructions``, such as a
    script's ``Owner``); ``instructions`` what they asked for. ``check`` defaults to
    ``default_check``. ``session`` may be None: every call is then ``not_connected``.
    """

    def __init__(
        self,
        session: WebMCPSession | None,
        *,
        owner: str | _Owner = "",
        instructions: str | None = None,
        check: Check | None = None,
        approvals: Approvals | None = None,
        check_timeout: float = DEFAULT_CHECK_TIMEOUT,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        timeout: float | None = None,
        url: str | None = None,
    ) -> None:
        self.session = session
        if isinstance(owner, str):
            self.owner = owner
            self.instructions = instructions or ""
        else:
            self.owner = str(getattr(owner, "name", ""))
            own = getattr(owner, "instructions", "")
            self.instructions = instructions if instructions is not None else str(own or "")
        self.check: Check = check if check is not None else default_check
        self.approvals = approvals if approvals is not None else Approvals()
        self.check_timeout = check_timeout
        self.max_output_bytes = max_output_bytes
        self.timeout = timeout
        self.url = url
        self.calls: list[GatewayCall] = []
        self._held: dict[str, GatewayCall] = {}
        self._stopped: set[str] = set()

    # -- the agent's side ------------------------------------------------------------------
    async def use_tool(
        self,
        name: str,
        input: Any = None,
        *,
        source: str = "owner",
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Run a tool for the agent; see the module docs. Never raises but for cancellation.

        Whatever the agent passes is copied as plain JSON data first (hostile objects whose
        ``__eq__`` or ``__repr__`` raise never get further); what JSON can't carry is
        ``bad_input``."""
        return (await self.run(name, input, source=source, timeout=timeout)).answer

    async def run(
        self,
        name: str,
        input: Any,
        *,
        source: str = "owner",
        ask: Ask | None = None,
        tool: Tool | None = None,
        frame: str | None = None,
        timeout: float | None = None,
    ) -> Ran:
        """The one call path of an agent (``use_tool``, ``serve``): look the tool up, the check,
        the call, the record, approvals given back. Never raises but for cancellation.

        The tool is looked up first (``tool``, when the caller has it, else by ``name`` in
        ``frame``: a frame id, origin or part of its URL; main frame first). One that is not
        listed is waited for up to ``LATE_TOOL_WAIT`` within the call's timeout; one still not
        there is ``unavailable`` (``not_found``) and the check is never asked. When the check
        asks and ``ask`` is given, the person's yes approves the call once and it runs; a no (or
        no ``ask``) answers with the check's ``not_done_yet``.
        """
        data, problem = plain_input({} if input is None else input)
        call = GatewayCall(
            len(self.calls) + 1,
            str.__str__(name) if isinstance(name, str) else _describe(name),
            data,
            "owner" if type(source) is str and str.__eq__(source, "owner") else "page",
        )
        self.calls.append(call)
        started = time.perf_counter()
        result: Mapping[str, Any] | None = None
        try:
            if problem is not None:
                answer = failure("bad_input", f"The input can't be sent: {problem}.")
            else:
                own = call.tool if isinstance(name, str) else None
                call, answer, result = await self._run(call, own, tool, frame, ask, timeout)
        except asyncio.CancelledError:
            call.ms = (time.perf_counter() - started) * 1000
            raise
        except Exception as err:  # a harness bug must still not reach the agent as an exception
            answer = self._fail(call, None, NO_BROWSER, f"The harness failed: {type(err).__name__}")
        call.answer = answer
        call.ms = (time.perf_counter() - started) * 1000
        return Ran(call, _coded(call, answer, result))

    async def tool_specs(self) -> list[dict[str, Any]]:
        """The page's tools as a model's function list (MCP ``tools/list`` shape; one spec a
        name, main frame first; ``agent.specs.tool_spec`` renders each)."""
        if self.session is None:
            return []
        try:
            tools = await self.session.tools()
        except WebMCPUnavailableError:
            return []
        specs: list[dict[str, Any]] = []
        seen: set[str] = set()
        for tool in sorted(tools, key=lambda t: not self._is_main(t)):
            if tool.name not in seen:
                seen.add(tool.name)
                specs.append(tool_spec(tool))
        return specs

    # -- the owner's and the person's side -------------------------------------------------
    def approve(self, tool: str, input: Any = ..., *, times: int = 1) -> bool:
        """The owner says yes: the same call goes through next time.

        Without ``input``, approves the last call to ``tool`` the check asked about. False when
        there is nothing to approve, or the call was stopped (a stop cannot be approved).
        """
        if input is ...:
            held = self._held.get(tool)
            if held is None:
                return False
            input = held.input
        if fingerprint(tool, input) in self._stopped:
            return False
        self.approvals.approve(tool, input, times=times)
        return True

    def held(self, tool: str) -> GatewayCall | None:
        """The last call to ``tool`` the check held back (ask or stop), if any."""
        return self._held.get(tool)

    async def confirm(self, tool: str, *, timeout: float | None = None) -> dict[str, Any]:
        """Act as the person: submit the form of ``tool`` that waits for them (a ``needs_user``
        call), and answer as ``use_tool`` would. Never raises but for cancellation."""
        call = GatewayCall(len(self.calls) + 1, tool, None, "owner")
        call.decision = Decision.allow(rule="confirm")
        self.calls.append(call)
        started = time.perf_counter()
        try:
            answer = await self._confirm(call, tool, timeout)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            answer = self._fail(call, None, NO_BROWSER, f"The harness failed: {err!r}")
        call.answer = answer
        call.ms = (time.perf_counter() - started) * 1000
        return answer

    async def hold(self, call: GatewayCall, tool: Tool | None) -> dict[str, Any] | None:
        """Ask the check about ``call`` (``tool`` as the page lists it, or None).

        Returns the hold message (``not_done_yet`` or ``refused``) when the check holds the call
        back, None when it may run. Sets ``call.decision``; a held call is kept for ``held`` and
        ``approve`` (a stopped one can never be approved).
        """
        request = CheckRequest(
            tool=call.tool,
            input=call.input,
            annotations=dict(tool.annotations) if tool else {},
            source="owner" if call.source == "owner" else "page",
            owner_instructions=self.instructions,
            owner=self.owner,
            description=tool.description if tool else "",
        )
        decision = await decide(self.check, request, self.approvals, timeout=self.check_timeout)
        call.decision = decision
        if decision.outcome == "allow":
            return None
        self._held[call.tool] = call
        if decision.outcome == "stop":
            self._stopped.add(fingerprint(call.tool, call.input))
        return hold_message(decision, self.owner)

    # -- inside ----------------------------------------------------------------------------
    async def _run(
        self,
        call: GatewayCall,
        name: str | None,
        tool: Tool | None,
        frame: str | None,
        ask: Ask | None,
        timeout: float | None,
    ) -> tuple[GatewayCall, dict[str, Any], Mapping[str, Any] | None]:
        """The call (the last one, after an ask), use_tool's answer, and the session's result."""
        if name is None or not name:
            return call, failure("bad_input", "The tool name must be non-empty text."), None
        session = self.session
        if session is None:
            return call, self._fail(call, None, NO_WEBMCP, "There is no page with WebMCP."), None
        limit = timeout or self.timeout or session.timeout
        if tool is None:
            try:
                tool = await asyncio.wait_for(self._look_up(name, frame, limit), limit)
            except WebMCPUnavailableError as err:
                return call, self._fail(call, None, NO_WEBMCP, str(err)), None
            except Error as err:
                return call, self._fail(call, None, NO_BROWSER, str(err)), None
            except asyncio.TimeoutError:
                message = f"The page didn't list its tools in {limit:g} s."
                return call, self._fail(call, None, NO_BROWSER, message), None
        if tool is None:  # not there: nothing to ask the check about, nothing to run
            missing = await session.not_there(name, call.input, frame)
            call.record = missing.record
            return call, self._answer(call, missing), missing
        held = await self.hold(call, tool)
        if held is not None and ask is not None and "not_done_yet" in held:
            call.answer = held
            if await ask(call):
                self.approve(call.tool, call.input)
                call = GatewayCall(len(self.calls) + 1, call.tool, call.input, call.source)
                self.calls.append(call)
                held = await self.hold(call, tool)
        if held is not None:
            return call, held, None
        decision = call.decision or Decision.allow()
        where = None if self._is_main(tool) else tool.frame_id  # not a same-named tool elsewhere
        result: Mapping[str, Any] | None = None
        try:
            result = await session.call(
                tool.name, call.input, frame=where, timeout=timeout or self.timeout
            )
        except WebMCPUnavailableError as err:
            answer = self._fail(call, None, NO_WEBMCP, str(err))
        except Error as err:
            answer = self._fail(call, None, NO_BROWSER, str(err))
        else:
            call.record = result.record
            answer = self._answer(call, result)
        if decision.approved and (call.kind == "not_connected" or call.code in _NEVER_RAN):
            self.approvals.give_back(call.tool, call.input)
        return call, answer, result

    async def _look_up(self, name: str, frame: str | None, limit: float) -> Tool | None:
        """The page's tool called name (in frame; main frame first), waiting for a late one up
        to LATE_TOOL_WAIT within limit; None if it is not there."""
        session = self.session
        assert session is not None
        found = self._find(await session.tools(), name, frame)
        if found is None:
            late = await session.wait_for_tool(name, timeout=min(LATE_TOOL_WAIT, limit))
            if late is not None:
                found = self._find(await session.tools(settle=0), name, frame)
        return found

    def _find(self, tools: list[Tool], name: str, frame: str | None) -> Tool | None:
        matches = [t for t in tools if t.name == name and t.in_frame(frame)]
        matches.sort(key=lambda t: not self._is_main(t))
        return matches[0] if matches else None

    def _is_main(self, tool: Tool) -> bool:
        return self.session is None or self.session.is_main_frame(tool)

    async def _confirm(self, call: GatewayCall, tool: str, timeout: float | None) -> dict[str, Any]:
        session = self.session
        if session is None:
            return self._fail(call, None, NO_WEBMCP, "There is no page with WebMCP to use.")
        waiting = next((r for r in reversed(session.records) if r.tool == tool and r.pending), None)
        if waiting is None:
            return failure("not_found", f"No call to {tool} waits for the person to confirm.")
        call.input = waiting.input
        call.record = waiting
        try:
            result = await session.confirm_pending(waiting, timeout=timeout or self.timeout)
        except Error as err:
            return self._fail(call, None, NO_BROWSER, str(err))
        return self._answer(call, result)

    def _answer(self, call: GatewayCall, result: Mapping[str, Any]) -> dict[str, Any]:
        record = call.record
        code = code_of(result)  # the session's rule; a confirmed form's record keeps needs_user
        call.code = code
        if code is None:
            size = output_size(result)
            if size > self.max_output_bytes:
                return self._fail(
                    call,
                    None,
                    TOO_LARGE,
                    f"The result is {size:,} bytes, over the limit of "
                    f"{self.max_output_bytes:,} bytes for an answer.",
                )
            call.kind = None
            return dict(result)
        message = _PREFIX.sub("", first_text(result), count=1)
        condition, blocked = self._condition(code, message, record)
        if blocked:
            message = (
                f"The page's permissions policy doesn't allow WebMCP tools (its \"tools\" "
                f"feature is blocked), so there is no {call.tool} to use. {message}"
            )
        elif condition == NO_WEBMCP:
            where = _page_url(self.session)
            message = f"The page{f' at {where}' if where else ''} has no WebMCP: "
            message += "document.modelContext is missing, so it has no tools to use."
        return self._fail(call, code, condition, message)

    def _condition(
        self, code: ToolErrorCode, message: str, record: CallRecord | None
    ) -> tuple[str | None, bool]:
        """What the browser did beyond the code, and whether the page's policy blocks tools.

        The session's record says it (`CallRecord.reason`); a tool's own refusal by a
        permissions policy is in what the page threw."""
        said = [message]
        if record is not None:
            said.append(record.browser.error_text or "")
            exc = record.browser.exception or {}
            said.append(str(exc.get("description") or exc.get("value") or ""))
        if _POLICY.search("\n".join(said)):
            return PERMISSIONS_POLICY, False
        reason = record.reason if record is not None else None
        if code is ToolErrorCode.UNAVAILABLE and reason == "no_submit_button":
            return NO_CONFIRM, False
        if (
            code is ToolErrorCode.INTERRUPTED
            and _never_reached(record)
            and _page_gone(self.session)
        ):
            return NO_BROWSER, False
        if code is ToolErrorCode.UNAVAILABLE and reason == "tools_blocked":
            return PERMISSIONS_POLICY, True
        if code is ToolErrorCode.UNAVAILABLE and reason == "no_webmcp":
            return NO_WEBMCP, False
        return None, False

    def _fail(
        self, call: GatewayCall, code: ToolErrorCode | None, condition: str | None, message: str
    ) -> dict[str, Any]:
        kind = kind_for(code, condition=condition)
        call.code, call.kind, call.condition = code, kind, condition
        card = None
        if kind == "not_connected":
            card = connect_card(self.url or _page_url(self.session))
        return failure(kind, failure_message(code, message, condition=condition), card)


def _describe(value: object) -> str:
    """A name for any object, even one whose ``__repr__`` raises."""
    try:
        return repr(value)[:200]
    except Exception:
        return f"<{type(value).__name__}>"


def plain_input(value: object) -> tuple[Any, str | None]:
    """value as plain JSON data (exact dicts, lists, strings, numbers), and why not if it can't
    be; never raises, never calls the value's own methods."""
    from ..core.schema import MAX_ARGS_DEPTH

    def plain(item: object, depth: int) -> Any:
        if depth > MAX_ARGS_DEPTH:
            raise ValueError(f"it nests deeper than {MAX_ARGS_DEPTH} levels")
        if item is None or item is True or item is False:
            return item
        if isinstance(item, str):
            return str.__str__(item)
        if isinstance(item, int):
            return int.__int__(item)
        if isinstance(item, float):
            number = float.__float__(item)
            if not math.isfinite(number):
                raise ValueError(f"{float.__repr__(number)} is not a JSON number")
            return number
        if isinstance(item, dict):
            out: dict[str, Any] = {}
            for key, child in dict.items(item):
                if isinstance(key, str):
                    name = str.__str__(key)
                elif key is None or isinstance(key, (bool, int)):
                    name = json.dumps(
                        key if key is None or isinstance(key, bool) else int.__int__(key)
                    )
                else:
                    raise ValueError(f"a key is {type(key).__name__}, not text")
                out[name] = plain(child, depth + 1)
            return out
        if isinstance(item, (list, tuple)):
            children = list.__iter__(item) if isinstance(item, list) else tuple.__iter__(item)
            return [plain(child, depth + 1) for child in children]
        raise ValueError(f"a value is {type(item).__name__}, not JSON")

    try:
        return plain(value, 0), None
    except ValueError as err:
        return _describe_safe(value), str(err)
    except Exception as err:
        return _describe_safe(value), f"it could not be read ({type(err).__name__})"


def _describe_safe(value: object) -> str:
    return f"<unsendable {type(value).__name__}>"


def _never_reached(record: CallRecord | None) -> bool:
    """Whether a call ended before the browser started it (no invocation)."""
    return record is None or record.browser.invocation_id is None


def _page_gone(session: WebMCPSession | None) -> bool:
    """Whether the session's page is closed, or its browser went away."""
    if session is None:
        return False
    page = session.page
    try:
        if page.is_closed():
            return True
        browser = page.context.browser
        return browser is not None and not browser.is_connected()
    except Exception:
        return False


def output_size(result: Mapping[str, Any]) -> int:
    """The size in bytes of result's compact JSON (what the output limit measures)."""
    try:  # a CallResult is a Mapping, not a dict: json takes its dict
        text = json.dumps(dict(result), ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        return 0
    return len(text.encode("utf-8", "surrogatepass"))


def held_result(held: Mapping[str, Any]) -> dict[str, Any]:
    """A held call's answer as an MCP result: ``isError``, the seed's JSON as its text and as
    its ``structuredContent``."""
    text = json.dumps(dict(held), ensure_ascii=False, separators=(",", ":"), default=str)
    return {
        "content": [{"type": "text", "text": text}],
        "isError": True,
        "structuredContent": dict(held),
    }


def _coded(
    call: GatewayCall, answer: Mapping[str, Any], result: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The coded MCP result of a call whose use_tool answer is answer (result: the session's)."""
    if len(answer) == 1 and ("not_done_yet" in answer or "refused" in answer):
        return held_result(answer)
    if result is not None and call.kind != "too_large":
        return dict(result)
    if call.code is not None:
        code = call.code
    elif call.kind == "bad_input" or answer.get("error") == "bad_input":
        code = ToolErrorCode.INVALID_INPUT
    elif call.kind == "too_large":
        code = ToolErrorCode.FAILED
    else:
        code = ToolErrorCode.UNAVAILABLE
    return dict(tool_error(code, str(answer.get("message", ""))))


def _page_url(session: WebMCPSession | None) -> str | None:
    if session is None:
        return None
    try:
        url = session.page.url
    except Exception:
        return None
    return url or None


class SyncGateway:
    """The gateway for a sync ``webmcp_harness.sync_api.WebMCPSession``: same core, run in place."""

    def __init__(self, session: sync_api.WebMCPSession, **options: Any) -> None:
        self._session = session
        self.gateway = Gateway(session.core, **options)

    @property
    def calls(self) -> list[GatewayCall]:
        return self.gateway.calls

    def use_tool(
        self, name: str, input: Any = None, *, source: str = "owner", timeout: float | None = None
    ) -> dict[str, Any]:
        """``Gateway.use_tool``, synchronously."""
        return self._run(self.gateway.use_tool(name, input, source=source, timeout=timeout))

    def tool_specs(self) -> list[dict[str, Any]]:
        return self._run(self.gateway.tool_specs())

    def approve(self, tool: str, input: Any = ..., *, times: int = 1) -> bool:
        return self.gateway.approve(tool, input, times=times)

    def held(self, tool: str) -> GatewayCall | None:
        return self.gateway.held(tool)

    def confirm(self, tool: str, *, timeout: float | None = None) -> dict[str, Any]:
        return self._run(self.gateway.confirm(tool, timeout=timeout))

    def _run(self, awaitable: Awaitable[T]) -> T:
        from ..session.adapters import run_sync

        return run_sync(self._session.page, awaitable)
