"""What the harness knows about a tool, and what every call leaves behind."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast, get_args

from .errors import ToolErrorCode
from .results import ToolResult
from .urls import defrag_url

__all__ = [
    "BACKEND_CHOICES",
    "BackendChoice",
    "BackendName",
    "BrowserReport",
    "CallReason",
    "CallRecord",
    "CallResult",
    "EventType",
    "FrameEventType",
    "PageEventType",
    "Tool",
    "ToolEvent",
    "ToolLocation",
    "ToolsChange",
    "normalise_annotations",
]

BackendName = Literal["cdp", "inpage"]
"""Which source a tool came from: Chromium's own registry over CDP, or a script object in the page."""

BackendChoice = Literal["auto", BackendName]
"""Which sources a session uses: all of them ("auto"), or only one kind. The command line's
``--backend``, the pytest plugin's ``--webmcp-backend`` and ``WebMCPSession.attach`` take these."""
BACKEND_CHOICES: Final[tuple[BackendChoice, ...]] = get_args(BackendChoice)
"""The values of `BackendChoice`, in order: ("auto", "cdp", "inpage")."""

Source = Literal[
    "native", "document.modelContext", "navigator.modelContext", "navigator.modelContextTesting"
]
"""Where a tool lives: Chromium's own registry, or the page script object that holds it."""

# The DevTools protocol spells the spec's hints without "Hint"; everything else keeps its name.
_SPEC_NAMES = {
    "readOnly": "readOnlyHint",
    "untrustedContent": "untrustedContentHint",
    "consequential": "consequentialHint",
}


def normalise_annotations(raw: Any) -> dict[str, Any]:
    """A tool's annotations under the spec's names (readOnlyHint, ...), whatever the source."""
    if not isinstance(raw, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = _SPEC_NAMES.get(str(key), str(key))
        if name != key and name in raw:
            continue  # the spec's own spelling wins
        out[name] = value
    return out


@dataclass(frozen=True)
class ToolLocation:
    """Where a tool was registered: the script's URL, and the line and column (from 1) of the
    `registerTool` call in it. From the browser's stack trace; a page string, shown as text."""

    url: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.url}:{self.line}:{self.column}"

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "line": self.line, "column": self.column}

    @classmethod
    def from_stack(cls, stack: Any) -> ToolLocation | None:
        """The innermost frame of a DevTools `Runtime.StackTrace` that names a script (the
        harness's own wrappers have none; CDP counts from 0). None when none does."""
        frames = stack.get("callFrames") if isinstance(stack, dict) else None
        for frame in frames if isinstance(frames, list) else ():
            url = frame.get("url") if isinstance(frame, dict) else None
            if isinstance(url, str) and url:
                line, column = frame.get("lineNumber"), frame.get("columnNumber")
                return cls(
                    url[:2_000],
                    (line if isinstance(line, int) else 0) + 1,
                    (column if isinstance(column, int) else 0) + 1,
                )
        return None


@dataclass(frozen=True)
class Tool:
    """One tool a page exposes, as the browser (or polyfill) reports it."""

    name: str
    description: str
    input_schema: dict[str, Any] | None
    annotations: dict[str, Any]
    frame_id: str
    frame_url: str = ""
    declarative: bool = False
    backend: BackendName = "cdp"
    backend_node_id: int | None = None
    frame_origin: str = ""
    """The origin of the tool's frame (`http://localhost:8001` for a cross-site widget)."""
    page_id: str = ""
    """The id of the main frame of the page the tool is on (a popup has its own); "" = unknown."""
    page_url: str = ""
    """The URL of that page (the attached page, or a popup it opened)."""
    source: Source = "native"
    title: str | None = None
    origin: str | None = None
    location: ToolLocation | None = None
    """Where the page registered it (the CDP source; None where the source cannot tell: the
    in-page source, polyfills, forms)."""
    form: Any = field(default=None, compare=False, repr=False)
    """A declarative tool's ``<form>``, as a Playwright ``Locator`` in the tool's frame (None for
    an imperative tool, or where the form's frame is not known). Not part of ``to_dict``; a
    pickled or copied tool leaves it out (a locator belongs to its live page)."""

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "form": None}

    @property
    def read_only(self) -> bool:
        """Whether the page marked the tool read-only."""
        return bool(self.annotations.get("readOnlyHint"))

    @property
    def autosubmit(self) -> bool:
        """Whether a declarative form submits itself (imperative tools always run)."""
        return not self.declarative or bool(self.annotations.get("autosubmit"))

    def in_frame(self, frame: str | None) -> bool:
        """Whether the tool is in the frame named by id, origin or URL (a part of it); any frame
        when frame is None. The one rule for a call's or a script's ``frame``. A URL's fragment
        never decides a frame: pages rewrite it (``#view=...``) as they run."""
        if frame is None:
            return True
        if frame in (self.frame_id, self.frame_origin, self.frame_url):
            return True
        bare = defrag_url(frame)[0] if "#" in frame else frame
        return bool(bare) and bare in defrag_url(self.frame_url)[0]

    def to_dict(self) -> dict[str, Any]:
        """The tool as JSON-ready data (camelCase, as on the wire)."""
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": dict(self.annotations),
            "frameId": self.frame_id,
            "frameUrl": self.frame_url,
            "frameOrigin": self.frame_origin,
            "pageId": self.page_id,
            "pageUrl": self.page_url,
            "declarative": self.declarative,
            "backend": self.backend,
            "source": self.source,
        }
        if self.title is not None:
            data["title"] = self.title
        if self.origin is not None:
            data["origin"] = self.origin
        if self.location is not None:
            data["location"] = self.location.to_dict()
        return data


@dataclass(frozen=True)
class ToolsChange:
    """Tools the page registered (added) and unregistered (removed) at once, as the browser
    reported them: what `WebMCPSession.on("toolschanged", ...)` hands its handler."""

    added: tuple[Tool, ...] = ()
    removed: tuple[Tool, ...] = ()


FrameEventType = Literal["navigated", "detached", "closed", "crashed", "disconnected"]
"""What happened to a frame, or to the whole page: the sources report these during any call."""

PageEventType = Literal["toolActivated", "toolCancel"]
"""The page events of a declarative call that a record keeps: the browser's ``toolactivated``
and ``toolcancel`` on ``document.modelContext``, which the DevTools protocol does not send."""


EventType = Literal[
    FrameEventType,
    PageEventType,
    "toolsAdded",  # tools registered during the call (names)
    "toolRemoved",  # the call's own tool went, after it started
    "toolRemovedBeforeStart",  # it went before the page started the call
    "toolReplaced",  # registered again under its name, in its frame, before the answer
    "timeout",  # no answer within the call's timeout (afterS)
    "cancelledInPage",  # the harness cancelled the invocation in the page
    "waitingForPerson",  # a declarative form is filled and waits for its submit
    "confirmedAsPerson",  # the harness submitted it, as the person would
    "lateAnswer",  # the page answered after the call had returned (status)
    "pageNavigated",  # the page moved after the call answered (count; a check notes it)
    "dialog",  # a frame opened a dialog, which was dismissed (dialog, text, frameId, frameUrl)
    "dialogsNotKept",  # more dialogs than a record keeps: how many more (count)
    "popupsNotFollowed",  # popups past the session's limit, closed unfollowed (count)
]
"""The type of a `ToolEvent`: what a call's record can say happened during it."""


@dataclass
class ToolEvent:
    """Something seen during a call: a navigation, tools added or removed, a crash."""

    type: EventType
    detail: dict[str, Any] = field(default_factory=dict)
    at_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "atMs": round(self.at_ms, 3), **self.detail}


@dataclass
class BrowserReport:
    """What the browser (or polyfill) said about a call, kept verbatim."""

    status: str | None = None  # Completed | Canceled | Error | None (no answer)
    output: Any = None
    error_text: str | None = None
    exception: dict[str, Any] | None = None
    invocation_id: str | None = None
    protocol_error: str | None = None
    submitted: bool = False  # no answer, but a form was submitted: it may have worked
    page_events: list[tuple[PageEventType, float]] = field(default_factory=list)
    """What the page's ``document.modelContext`` fired for a declarative call (toolactivated,
    toolcancel), with when (epoch seconds), as heard in the harness's isolated world; the record
    keeps them as its events (`CallRecord.answered_with`), not in ``to_dict``."""

    def to_dict(self) -> dict[str, Any]:
        data = {
            "status": self.status,
            "output": self.output,
            "errorText": self.error_text,
            "exception": self.exception,
            "invocationId": self.invocation_id,
            "protocolError": self.protocol_error,
        }
        if self.submitted:
            data["submitted"] = True
        return data


CallReason = Literal["no_submit_button", "no_webmcp", "tools_blocked"]
"""Why a call ended as it did, where callers branch on it (the result's text says it for people):

- ``no_submit_button``: a form waits for a person but has no submit button (``unavailable``);
- ``no_webmcp``: the page has no WebMCP at all, no ``document.modelContext`` (``unavailable``);
- ``tools_blocked``: the page's permissions policy turns the ``tools`` feature off, so it has no
  tools (``unavailable``).
"""


@dataclass
class CallRecord:
    """One call: input, what the browser reported, the coded result, timings and events.

    `id` is the session's number for the call; the session tells its open calls apart by the
    record itself, not by `id`. `number` is a caller's own number for it (a check numbers calls
    across pages); `shown_number` (``to_dict()``'s ``"id"``, messages) is `number` once set, else
    `id`.
    """

    id: int
    tool: str
    input: Any
    frame_id: str | None = None
    frame_url: str | None = None
    frame_origin: str | None = None
    page_url: str | None = None
    backend: str | None = None
    source: str | None = None
    declarative: bool = False
    started_at: float = field(default_factory=time.time)
    browser: BrowserReport = field(default_factory=BrowserReport)
    result: ToolResult | None = None
    code: ToolErrorCode | None = None
    """`code_of(result)`: the result's code, FAILED for an uncoded failure, None for success."""
    events: list[ToolEvent] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    pending: bool = False
    note: str | None = None
    late_answer: ToolResult | None = None
    reason: CallReason | None = None
    """The condition behind the result, where callers branch on one (not in ``to_dict``)."""
    number: int | None = None
    """A caller's own number for the call, shown instead of `id` (None: not set)."""
    observed: bool = False
    """Someone else made the call (an agent, another client, the page); the session saw it."""

    @property
    def shown_number(self) -> int:
        """The call's number as shown: `number` once a caller set one, else `id`."""
        return self.id if self.number is None else self.number

    def event(self, type_: EventType, **detail: Any) -> None:
        """Add an event, stamped with the time since the call began."""
        self.events.append(ToolEvent(type_, detail, (time.time() - self.started_at) * 1000))

    def answered_with(self, report: BrowserReport) -> None:
        """Take the browser's report of the call, and the page events it carries as events, in
        time order with those already recorded (a report taken twice adds them once)."""
        if self.browser is not report:
            for type_, at in report.page_events:
                self.events.append(ToolEvent(type_, {}, (at - self.started_at) * 1000))
            self.events.sort(key=lambda e: e.at_ms)
        self.browser = report

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data."""
        return {
            "id": self.shown_number,
            "tool": self.tool,
            "input": self.input,
            "frameId": self.frame_id,
            "frameUrl": self.frame_url,
            "frameOrigin": self.frame_origin,
            "pageUrl": self.page_url,
            "backend": self.backend,
            "source": self.source,
            "declarative": self.declarative,
            "startedAt": self.started_at,
            "browser": self.browser.to_dict(),
            "result": self.result,
            "code": None if self.code is None else str(self.code),
            "events": [e.to_dict() for e in self.events],
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "pending": self.pending,
            "note": self.note,
            "lateAnswer": self.late_answer,
            **({"observed": True} if self.observed else {}),
        }


class CallResult(dict[str, Any]):
    """What a call returns: its coded MCP result, as that result's dict, with the call's record.

    It is the MCP result dict wherever one is expected (``result["content"]``,
    ``result.get("isError")``, ``dict(result)``, ``result == {...}``, ``json.dumps(result)``);
    ``.result`` is the same result typed as a `ToolResult`, and ``.record`` the call's
    `CallRecord` (as Playwright's ``response.request``), so nobody has to find the record of a
    call afterwards.
    """

    __slots__ = ("record",)

    def __init__(self, result: ToolResult, record: CallRecord) -> None:
        super().__init__(result)
        self.record: CallRecord = record
        """The call that gave it: input, what the browser reported, events, timings."""

    @property
    def result(self) -> ToolResult:
        """The coded MCP result (``{content, isError?, structuredContent?}``)."""
        return cast("ToolResult", self)

    def __repr__(self) -> str:
        return f"CallResult({dict.__repr__(self)}, record=#{self.record.id} {self.record.tool!r})"
