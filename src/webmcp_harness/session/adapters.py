"""Every reach into a dependency's internals, in one place; tests/test_adapters.py pins each one.

Playwright (its ``_impl`` package, and attributes its API objects keep private):

- both of its APIs wrap one implementation object (``_impl_obj``): the async core drives a sync
  page through it (`as_async`), keys a page or frame by it whichever wrapper it came in
  (`impl_of`), listens on it (it hands out no API wrappers) and views it in the async API
  (`async_view`), or in the sync API (`sync_view`: a tool's form locator for the sync face);
- a sync API object runs a coroutine on its own event loop (``_sync``): `run_sync`;
- a CDP session's message goes to its connection without the API call's wrapping (the stack
  capture, zones and logging of every API call): `cdp_call`, the hot path's one message;
- ``SyncBase`` tells a sync API object (`is_sync`), ``TargetClosedError`` a target that closed
  (`is_target_closed`); the types the tracing group takes (``Location``, the async ``Tracing``).

The MCP SDK (``mcp``, used by ``mcp_server``; nothing here imports it):

- a request's ``ServerSession`` is made anew for each request; its ``_connection`` is the client's
  one connection (`client_key`);
- ``Server.middleware`` is a provisional attribute, on by default with a tracing middleware
  (`without_middleware`).

Python's own regex parser (``re._parser``; ``sre_parse`` before 3.11), whose parse tree the
checker's input generator walks to write a string a schema's pattern matches (`parse_regex`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from playwright._impl._api_structures import Location as Location
    from playwright.async_api._generated import Tracing as Tracing

T = TypeVar("T")

__all__ = [
    "as_async",
    "async_view",
    "cdp_call",
    "client_key",
    "impl_of",
    "is_sync",
    "is_target_closed",
    "parse_regex",
    "run_sync",
    "sync_view",
    "without_middleware",
]


# -- Playwright ------------------------------------------------------------------------------
def is_sync(obj: Any) -> bool:
    """Whether obj is an object of Playwright's sync API."""
    from playwright._impl._sync_base import SyncBase

    return isinstance(obj, SyncBase)


def impl_of(obj: Any) -> Any:
    """Playwright's implementation object behind an API object (sync or async); obj itself when
    it is one already. The same page or frame gives the same object, whichever wrapper."""
    return getattr(obj, "_impl_obj", obj)


def async_view(impl: Any) -> Any:
    """A new async-API object for a Playwright implementation object (not kept by Playwright)."""
    from playwright.async_api import _generated  # every API class, Tracing too (not exported)

    return getattr(_generated, type(impl).__name__)(impl)


def sync_view(obj: Any) -> Any:
    """A new sync-API object for a Playwright API object (async or sync) or implementation
    object: usable from the sync API's thread."""
    import playwright.sync_api as sync_api

    impl = impl_of(obj)
    return getattr(sync_api, type(impl).__name__)(impl)


def as_async(obj: T) -> T:
    """The async-API object for obj (a sync-API Page, Frame, BrowserContext, ...), or obj itself.

    Both APIs wrap the same implementation object, so the async core can drive a sync page from
    inside the sync API's own event loop. Objects Playwright hands out later may again be sync
    wrappers (events, `page.context`, `page.frames`): pass them through this too.
    """
    if obj is None or not is_sync(obj):
        return obj
    wrapped: T = async_view(impl_of(obj))
    return wrapped


def run_sync(obj: Any, awaitable: Awaitable[T]) -> T:
    """Run awaitable on the event loop of a sync-API object (a Page), from the sync API's thread."""
    sync: Callable[[Awaitable[T]], T] = obj._sync
    return sync(awaitable)


def is_target_closed(exc: BaseException) -> bool:
    """Whether Playwright says the target of a call (page, frame, browser) has closed."""
    from playwright._impl._errors import TargetClosedError

    return isinstance(exc, TargetClosedError)


def cdp_call(cdp: Any, method: str, params: dict[str, Any]) -> Awaitable[Any]:
    """What ``cdp.send(method, params)`` answers, sent straight to Playwright's connection as
    an internal call: no stack capture, zone or API log for it. Errors are Playwright's own, and
    cancelling the awaitable aborts the call, as with send."""
    impl = getattr(cdp, "_impl_obj", cdp)
    reply = impl._connection.send_message_to_server(
        impl, "send", {"method": method, "params": params}, {"internal": True, "timeout": 0}
    )
    return _result_of(reply)


async def _result_of(reply: Awaitable[dict[str, Any]]) -> Any:
    return (await reply)["result"]


# -- the MCP SDK -----------------------------------------------------------------------------
def client_key(session: Any) -> int:
    """One key per connected client, from the ServerSession of any of its requests."""
    return id(getattr(session, "_connection", session))


def without_middleware(server: Any) -> None:
    """Take the SDK server's default middleware off (a tracing span per message)."""
    server.middleware = []


# -- Python's regular expressions ------------------------------------------------------------
def parse_regex(pattern: str) -> Any:
    """pattern's parse tree, by Python's own regex parser: a list of (opcode, argument) pairs
    whose opcodes read as their names (``str(op) == "LITERAL"``). Raises re.error as re does."""
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse  # type: ignore[no-redef,unused-ignore]
    return sre_parse.parse(pattern)
