"""The bounded wait: every wait on a page, a browser or a callback ends, one way or another."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["bounded"]

T = TypeVar("T")

_MIN_WAIT = 0.05
"""Seconds a bounded wait is given at least (a deadline already past still gets one look)."""


async def bounded(awaitable: Awaitable[T], limit: float) -> T | None:
    """awaitable's value, or None if it failed or took longer than limit seconds.

    The caller's own cancellation propagates. A CancelledError that is not the caller's (Playwright
    ends a call with one when its page or context goes away: the page's doing) is a failure: None.
    """
    try:
        return await asyncio.wait_for(awaitable, max(limit, _MIN_WAIT))
    except asyncio.CancelledError:
        if _cancelled_from_outside():
            raise
        return None
    except Exception:  # asyncio.TimeoutError included
        return None


def _cancelled_from_outside() -> bool:
    """Whether the running task is being cancelled (not just hit by a stray CancelledError).

    Before Python 3.11 the two cannot be told apart: that is taken as a real cancellation.
    """
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return cancelling is None or bool(cancelling())
