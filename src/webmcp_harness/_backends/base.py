"""What a backend gives the session: tools, invocations, and signs that a call was interrupted."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from ..records import BackendName, BrowserReport, Tool

ToolsChanged = Callable[[list[Tool], list[Tool]], None]
"""Called with (added, removed) whenever the backend sees the page's tools change."""

Interrupted = Callable[[str, str, dict[str, Any]], None]
"""Called with (kind, frame_id, detail) when a frame navigates, the page closes or crashes.

kind is one of "navigated", "closed", "crashed", "disconnected"; frame_id is "" for the whole page.
"""


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
    """How calls reach the page."""

    name: BackendName

    async def open(self, on_tools: ToolsChanged, on_interrupt: Interrupted) -> None:
        """Start watching the page; report tools and interruptions through the callbacks."""

    async def list_tools(self) -> list[Tool]:
        """Every tool in the page and its frames, as of now."""

    async def invoke(self, tool: Tool, args: dict[str, Any]) -> Invocation:
        """Start a call; raise BackendError when the page refuses it outright."""

    async def close(self) -> None:
        """Stop watching the page; never raises."""


class BackendError(Exception):
    """The backend could not start a call; `report` says what the browser said."""

    def __init__(self, message: str, report: BrowserReport | None = None) -> None:
        super().__init__(message)
        self.report = report or BrowserReport(protocol_error=message)
