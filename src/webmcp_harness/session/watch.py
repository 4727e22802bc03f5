"""The call watch: what one running call watches for, and waiting on whichever comes first."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..core.records import CallRecord, FrameEventType, Tool, ToolEvent
from ..core.text import clip, safe_text
from .limits import DIALOG_TEXT_KEPT, DIALOGS_KEPT

__all__ = ["FRAME_ENDED", "INTERRUPTIONS", "CallWatch", "first", "left"]

FRAME_ENDED = {
    "crashed": "The tool's frame crashed",
    "closed": "The tool's page (a popup) was closed",
}
"""What ended a call when the tool's own frame (not the page) crashed or closed."""
INTERRUPTIONS = {
    "navigated": "The page navigated",
    "detached": "The tool's frame went away",
    "closed": "The page was closed",
    "crashed": "The page crashed",
    "disconnected": "The browser went away",
}
"""What interrupted a call, by the kind of event the sources reported."""


class CallWatch:
    """What one running call is watching for.

    A tool removed during its call (`removed`) is not yet an interruption: a one-shot tool
    unregisters itself and then answers, and Chromium delivers that answer. Only a tool
    `replaced` (registered again under its name, in its frame, after the removal and before the
    answer) changed mid-call; and a removed tool that never answers is one too (after a grace).

    Changes the page reported before the tool started (`start`) came before the call: a tool
    registered again then is simply the version the call reached.
    """

    def __init__(self, record: CallRecord, tool: Tool) -> None:
        self.record = record
        self.tool = tool
        self.interrupted: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.removed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.replaced = False
        self.form_navigated = False  # a form that submits and navigates takes its tool with it
        self.started = False
        self._gone_before = False  # the tool was removed before the call, and not registered again
        self._dialogs = 0
        self._not_kept: ToolEvent | None = None
        self._popups: ToolEvent | None = None

    def start(self) -> None:
        """The tool started in the page: from now on its removal is a change mid-call."""
        if self.started:
            return
        self.started = True
        if self._gone_before and not self.removed.done():
            self.removed.set_result(None)

    def interrupt(self, why: str) -> None:
        if not self.interrupted.done():
            self.interrupted.set_result(why)

    def tools_changed(self, added: list[Tool], removed: list[Tool]) -> None:
        """Tools were added or removed: note the call's own tool going, or coming back."""
        key = (self.tool.frame_id, self.tool.name)
        if any((t.frame_id, t.name) == key for t in removed) and not self.form_navigated:
            if not self.started:  # its own event: readers of toolRemoved take it as mid-call
                self.record.event(
                    "toolRemovedBeforeStart", name=self.tool.name, frameId=self.tool.frame_id
                )
                self._gone_before = True
            else:
                self.record.event("toolRemoved", name=self.tool.name, frameId=self.tool.frame_id)
                if not self.removed.done():
                    self.removed.set_result(None)
        if added:
            self.record.event("toolsAdded", names=[t.name for t in added])
            back = any((t.frame_id, t.name) == key for t in added)
            if back and not self.started:
                self._gone_before = False
            elif back and self.removed.done() and not self.form_navigated:
                self.replaced = True
                self.record.event("toolReplaced", name=self.tool.name)

    def dialog(self, frame_id: str, detail: dict[str, Any]) -> None:
        """A frame opened a dialog during the call (and it was dismissed): an event, its text
        escaped and cut; past DIALOGS_KEPT, one event counts the rest."""
        self._dialogs += 1
        if self._dialogs <= DIALOGS_KEPT:
            text = safe_text(clip(str(detail.get("text", "")), DIALOG_TEXT_KEPT))
            self.record.event(
                "dialog",
                dialog=safe_text(detail.get("dialog", "")),
                text=text,
                frameId=frame_id,
                frameUrl=safe_text(detail.get("frameUrl", "")),
            )
        elif self._not_kept is None:
            self.record.event("dialogsNotKept", count=1)
            self._not_kept = self.record.events[-1]
        else:
            self._not_kept.detail["count"] = self._dialogs - DIALOGS_KEPT

    def popup_not_followed(self) -> None:
        """The page opened a popup past the session's limit (closed unfollowed): counted."""
        if self._popups is None:
            self.record.event("popupsNotFollowed", count=1)
            self._popups = self.record.events[-1]
        else:
            self._popups.detail["count"] += 1

    def frame_event(self, kind: FrameEventType, frame_id: str, detail: dict[str, Any]) -> None:
        """The tool's frame (or one of its ancestors, or the page) navigated, went or crashed."""
        self.record.event(kind, frameId=frame_id, **detail)
        if kind == "navigated" and self.tool.declarative:
            self.form_navigated = True
            return  # a form answers by submitting and navigating: not an interruption
        why = INTERRUPTIONS.get(kind, kind)
        if frame_id and kind in ("crashed", "closed"):
            why = FRAME_ENDED[kind]
        self.interrupt(why)


async def first(futures: tuple[asyncio.Future[Any], ...], timeout: float) -> None:
    """Return once any of futures is done, or after timeout (asyncio.wait, without its sets)."""
    for future in futures:
        if future.done():
            return
    loop = asyncio.get_running_loop()
    woken: asyncio.Future[None] = loop.create_future()

    def wake(_: Any = None) -> None:
        if not woken.done():
            woken.set_result(None)

    timer = loop.call_later(timeout, wake)
    for future in futures:
        future.add_done_callback(wake)
    try:
        await woken
    finally:
        timer.cancel()
        for future in futures:
            future.remove_done_callback(wake)


def left(deadline: float) -> float:
    """Seconds left until deadline (a time.monotonic() value), never below 0."""
    return max(0.0, deadline - time.monotonic())
