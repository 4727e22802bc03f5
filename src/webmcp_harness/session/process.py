"""A browser's process id, as the browser itself tells it (Playwright does not expose it)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from .adapters import async_view, impl_of

__all__ = ["browser_pid"]


async def browser_pid(browser: Any, wait: float = 5.0) -> int | None:
    """The process id of browser (a Playwright Browser, either face): `SystemInfo.getProcessInfo`
    on a browser session, its one entry of type ``browser``. None when it does not say, within
    wait seconds for each step."""
    try:
        cdp = await asyncio.wait_for(async_view(impl_of(browser)).new_browser_cdp_session(), wait)
        try:
            info = await asyncio.wait_for(cdp.send("SystemInfo.getProcessInfo"), wait)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(cdp.detach(), wait)
    except Exception:
        return None
    pids = [p.get("id") for p in info.get("processInfo", []) if p.get("type") == "browser"]
    return pids[0] if len(pids) == 1 and type(pids[0]) is int else None
