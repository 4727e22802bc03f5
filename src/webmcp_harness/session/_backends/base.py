"""What a backend gives the session: tools, invocations, and signs that a call was interrupted."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from ...core.records import BackendName, BrowserReport, FrameEventType, Tool

ToolsChanged = Callable[[list[Tool], list[Tool]], None]
"""Called with (added, removed) whenever the backend sees the page's tools change."""

Interrupted = Callable[[FrameEventType, str, dict[str, Any]], None]
"""Called with (kind, frame_id, detail) when a frame navigates or goes away, or the page ends.

frame_id is "" for
the whole page; "crashed" or "closed" with a frame_id is that frame's own process or popup only.
"""


class InvocationObserver(Protocol):
    """Told of every call the browser reports on the page, whoever made it (an agent, an MCP
    client on another connection, an extension, the page itself); ``ours`` says the session's
    own calls apart."""

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
        """A tool began to run; tool is the one known there (None if it is not, or no more);
        ours: the session itself made the call (or one to that tool is being started)."""

    def responded(self, report: BrowserReport) -> None:
        """An invocation ended; report carries its invocation id, and an error's name, code and
        message where the page threw one (a call may be told twice: keep the first)."""


class Invocation(Protocol):
    """One running call in the page."""

    id: str
    answered: asyncio.Future[BrowserReport]
    """Resolves with the browser's report; never raises."""
    waiting: asyncio.Future[None] | None
    """Resolves when a declarative form is filled and waits for a person (None: never waits)."""

    async def cancel(self) -> None:
        """Ask the page to cancel the call (best effort, bounded, never raises)."""

    async def confirm(self) -> bool:
        """Submit a waiting form as the person would; False when there is nothing to submit."""


class Backend(Protocol):
    """How calls reach the page: everything the session uses of a backend."""

    name: BackendName
    main_frame_id: str
    """The frame id of the attached page's main frame (tools there win a name clash)."""

    async def open(self, on_tools: ToolsChanged, on_interrupt: Interrupted) -> None:
        """Start watching the page; report tools and interruptions through the callbacks."""

    async def list_tools(self) -> list[Tool]:
        """Every tool in the page, its frames and the popups it opened, as of now."""

    def main_frame_tool(self, name: str) -> Tool | None:
        """The main frame's tool called name, without copying the list (the call's fast path)."""

    def ancestors(self, frame_id: str) -> list[str]:
        """frame_id, then its parent, and so on up to the main frame (as far as known)."""

    async def sync(self) -> None:
        """Return once every event the page sent before has been handled."""

    async def invoke(
        self, tool: Tool, args: dict[str, Any], *, on_start: Callable[[], None] | None = None
    ) -> Invocation:
        """Start a call; raise a BackendError subclass when it cannot start.

        on_start() is called once the tool starts in the page, no later than this returns:
        changes to the tool the page reported before then happened before the call."""

    async def close(self) -> None:
        """Stop watching the page and drop every listener added to it; never raises."""


class BackendError(Exception):
    """The backend could not start a call; `report` says what the browser said."""

    def __init__(self, message: str, report: BrowserReport | None = None) -> None:
        super().__init__(message)
        self.report = report or BrowserReport(protocol_error=message)


class ToolNotFoundError(BackendError):
    """The page has no such tool (any more) in that frame."""


class TargetGoneError(BackendError):
    """The page, the tool's frame, its process or the session to it went away."""


class CallRefusedError(BackendError):
    """The page is there and has the tool, but refused to start the call."""


def frame_chain(parents: dict[str, str | None], frame_id: str) -> list[str]:
    """frame_id, then its parent, and so on up to the main frame (at most 64, loops cut)."""
    chain: list[str] = []
    current: str | None = frame_id
    while current is not None and current not in chain and len(chain) < 64:
        chain.append(current)
        current = parents.get(current)
    return chain
