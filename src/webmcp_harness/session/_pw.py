"""Small bridges to Playwright: one async core serves both its async and its sync pages."""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["as_async", "is_sync"]


def is_sync(obj: Any) -> bool:
    """Whether obj is an object of Playwright's sync API."""
    from playwright._impl._sync_base import SyncBase

    return isinstance(obj, SyncBase)


def as_async(obj: T) -> T:
    """The async-API object for obj (a sync-API Page, Frame, BrowserContext, ...), or obj itself.

    Both APIs wrap the same implementation object, so the async core can drive a sync page from
    inside the sync API's own event loop. Objects Playwright hands out later may again be sync
    wrappers (events, `page.context`, `page.frames`): pass them through this too.
    """
    if obj is None or not is_sync(obj):
        return obj
    import playwright.async_api as async_api

    cls = getattr(async_api, type(obj).__name__)
    wrapped: T = cls(obj._impl_obj)  # type: ignore[attr-defined]
    return wrapped
