"""Watching a page: every call someone else makes on it, written as a transcript `replay` runs.

`watch_page` attaches a session to a page, listens for the calls the browser reports
(`WebMCPSession.on("toolresponded")`: the browser's agent, an MCP client through ``serve``, an
extension, the page itself) and writes each, as it ends, as a ``call`` step of the transcript
format of scripted runs (`agent/transcript.py`). Its outcome is coded as the gateway codes an
answer (`Outcome`): ``replay`` repeats the calls and compares. The page's own navigations (when
no watched call is running, so not a form's submit or a tool that moves the page) become
``open`` steps, so the replay is on the page where each call was made.

It ends when ``until`` resolves (Ctrl-C, a duration), or when the page or browser goes away;
calls still running then end as the session says (``needs_user`` for a form waiting for its
person, else ``timeout``). The transcript is always complete: its ``end`` line is written last.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.records import CallRecord
from ..core.results import first_text
from .kinds import failure, kind_for
from .outcome import Outcome
from .transcript import TranscriptWriter, step_entry

if TYPE_CHECKING:
    from playwright.async_api import Frame, Page

    from ..session import WebMCPSession

__all__ = ["WatchResult", "observed_step", "watch_page"]

_ENDS = ("closed", "crashed", "disconnected")


@dataclass
class WatchResult:
    """What a watch saw: the calls, in the order they ended, and why it ended."""

    calls: list[CallRecord] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    ended_by: str = ""
    ms: float = 0.0


def observed_step(index: int, record: CallRecord) -> dict[str, Any]:
    """A transcript ``call`` step for a call someone else made, coded as the gateway codes the
    same result (so a replay's outcome compares with it)."""
    code = None if record.code is None else record.code.value
    result = record.result or {}
    answer: dict[str, Any]
    if code is None:
        answer = dict(result)
    else:
        answer = failure(kind_for(code), first_text(result) if result else "")
    return step_entry(
        index,
        "call",
        tool=record.tool,
        input=record.input,
        source="owner",
        answer=answer,
        code=code,
        outcome=Outcome.of(answer, code=code),
        record=record.to_dict(),
        observed=True,
        ms=round(record.timings.get("totalMs", 0.0), 3),
    )


async def watch_page(
    session: WebMCPSession,
    writer: TranscriptWriter | None,
    until: Awaitable[Any],
    *,
    on_invoked: Callable[[CallRecord], None] | None = None,
    on_responded: Callable[[CallRecord], None] | None = None,
    on_open: Callable[[str], None] | None = None,
) -> WatchResult:
    """Record the calls others make on session's page until ``until`` resolves or the page or
    browser goes away; then close the session (ending the calls still running). Each ended call
    is written to writer (with an ``open`` step for the page first and after each of its own
    navigations), then told to on_responded."""
    page: Page = session.page
    result = WatchResult()
    started = time.perf_counter()
    running: set[int] = set()
    gone: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def opened(url: str) -> None:
        result.opened.append(url)
        if writer is not None:
            index = len(result.calls) + len(result.opened)
            entry = step_entry(index, "open", answer={"url": url}, outcome=Outcome(True))
            writer.step({**entry, "target": url, "url": url})
        if on_open is not None:
            on_open(url)

    def invoked(record: CallRecord) -> None:
        running.add(id(record))
        if on_invoked is not None:
            on_invoked(record)

    def responded(record: CallRecord) -> None:
        running.discard(id(record))
        result.calls.append(record)
        if writer is not None:
            writer.step(observed_step(len(result.calls) + len(result.opened), record))
        if on_responded is not None:
            on_responded(record)

    def navigated(frame: Frame) -> None:
        if frame.parent_frame is None and not running and frame.url != result.opened[-1]:
            opened(frame.url)

    def changed(what: str) -> None:
        if what in _ENDS and not gone.done():
            gone.set_result(what)

    opened(page.url)
    stops = [
        session.on("toolinvoked", invoked),
        session.on("toolresponded", responded),
        session.on_change(changed),
    ]
    page.on("framenavigated", navigated)
    ending = asyncio.ensure_future(until)
    try:
        await asyncio.wait((ending, gone), return_when=asyncio.FIRST_COMPLETED)
        result.ended_by = gone.result() if gone.done() else "stopped"
    finally:
        ending.cancel()
        with contextlib.suppress(Exception):
            page.remove_listener("framenavigated", navigated)
        with contextlib.suppress(Exception):
            await session.close()  # ends the calls still running: told to responded
        for stop in stops:
            stop()
        result.ms = (time.perf_counter() - started) * 1000
        if writer is not None:
            writer.end(
                passed=True,
                ran=len(result.calls) + len(result.opened),
                calls=len(result.calls),
                endedBy=result.ended_by or "stopped",
                ms=round(result.ms, 3),
            )
    return result
