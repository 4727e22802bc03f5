"""Waiting for a demo scenario's tool, on events: until it is registered, or until the demo page
that registers it says the browser refused it (then it can never come).

The demo's pages register their tools through `Shop.registerTools`, which records each refusal in
`window.__demo.errors` (the polyfills refuse WebMCP in a cross-site frame, for one). Without that,
a scenario whose tool is refused would wait the whole timeout for a tool that cannot appear.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from webmcp_harness import WebMCPSession

__all__ = ["scenario_frame", "wait_for_tool_or_refusal"]

_REFUSED = "name => ((window.__demo && window.__demo.errors) || []).some(e => e.tool === name)"


def scenario_frame(page: Page, scenario: dict[str, Any]) -> Frame | None:
    """The frame a scenario's tool lives in (its `frame` names part of the URL), if loaded."""
    if not scenario.get("frame"):
        return page.main_frame
    return next((f for f in page.frames if scenario["frame"] in f.url), None)


async def _refused(frame: Frame, tool: str, timeout: float) -> bool:
    """Whether the frame's demo page says it was refused tool within timeout seconds."""
    try:
        await frame.wait_for_function(_REFUSED, arg=tool, polling=50, timeout=timeout * 1000)
    except PlaywrightError:  # the time ran out, or the frame went away: no refusal seen
        return False
    return True


async def wait_for_tool_or_refusal(
    session: WebMCPSession, page: Page, scenario: dict[str, Any], timeout: float
) -> None:
    """Wait up to timeout seconds for the scenario's tool, and no longer than it takes the demo
    page to say the browser refused it. A page that says nothing keeps the whole wait."""
    waiting = asyncio.ensure_future(session.wait_for_tool(scenario["tool"], timeout=timeout))
    frame = scenario_frame(page, scenario)
    refusal = asyncio.ensure_future(_refused(frame, scenario["tool"], timeout)) if frame else None
    try:
        if refusal is not None:
            await asyncio.wait({waiting, refusal}, return_when=asyncio.FIRST_COMPLETED)
            if refusal.done() and refusal.result():
                return
        await waiting
    finally:
        for task in (waiting, refusal):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, PlaywrightError):
                    await task
