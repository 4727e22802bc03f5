"""A page's DevTools session on a websocket of its own, straight to Chromium: the call's fast path.

Through Playwright, a CDP message goes Python → Playwright's Node driver → Chromium and back, one
process more than a DevTools client needs. A browser launched with `DEBUGGING_PORT_ARGS` also
listens on a DevTools port of its own choosing on 127.0.0.1 (`--remote-debugging-port=0`);
`remember_port` finds that port in the browser's private profile folder (Playwright makes it
with mode 0700) and keeps it for the browser. `open_page_session` then opens a session to one
page's target over that port: the page's tool, tool-change, frame and crash events all come on it,
in the order the page sent them, beside the calls' own answers.

Only browsers the harness launched itself with the port (`serve` does) are reached this way. A
browser connected to (`--connect`, `--cdp`, a grid), or one whose port cannot be found or
reached, keeps Playwright's sessions: `open_page_session` answers None and the caller falls back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from .adapters import async_view, cdp_call, impl_of
from .process import browser_pid

__all__ = [
    "DEBUGGING_PORT_ARGS",
    "DirectCdpClosedError",
    "DirectCdpError",
    "DirectSession",
    "open_page_session",
    "remember_port",
]

DEBUGGING_PORT_ARGS = ("--remote-debugging-port=0",)
"""Chromium picks a free port and listens on 127.0.0.1 only (its default address)."""

_WAIT = 5.0  # bound for finding the port, connecting and closing
_MAX_MESSAGE = (
    1 << 30
)  # as Chromium's own limit on a DevTools message; no lower cap than Playwright
_ENDPOINTS: WeakKeyDictionary[Any, str] = WeakKeyDictionary()  # browser -> ws://127.0.0.1:PORT

log = logging.getLogger(__name__)


class DirectCdpError(Exception):
    """Chromium answered a command with an error; the message is the protocol's own."""


class DirectCdpClosedError(DirectCdpError):
    """The session's websocket closed (the page or the browser went away, or it was detached)."""


async def remember_port(browser: Any, pid: int | None = None) -> str | None:
    """The DevTools port of a browser launched with DEBUGGING_PORT_ARGS, kept for its pages.

    Found through the browser process's own command line (its `--user-data-dir`; pid, when the
    caller knows it, else asked of the browser) and the `DevToolsActivePort` file Chromium writes
    there. None, and nothing kept, when any part of that is not as expected: the folder must be
    ours and private, the port a port."""
    if pid is None:
        pid = await browser_pid(browser, _WAIT)
    try:
        port = _port_of(pid) if pid is not None else None
    except Exception as exc:  # any failure here only means the slower path
        log.debug("no DevTools port found: %s", exc)
        return None
    if port is None:
        return None
    endpoint = f"ws://127.0.0.1:{port}"
    _ENDPOINTS[impl_of(browser)] = endpoint
    return endpoint


def _port_of(pid: int) -> int | None:
    args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    folders = [a.split("=", 1)[1] for a in args if a.startswith("--user-data-dir=")]
    if len(folders) != 1:
        return None
    folder = Path(folders[0])
    seen = folder.stat()
    if not stat.S_ISDIR(seen.st_mode) or seen.st_uid != os.getuid() or seen.st_mode & 0o077:
        return None  # not a private folder of ours: the file in it could be anyone's
    first = (folder / "DevToolsActivePort").read_text().splitlines()[0].strip()
    port = int(first)
    return port if 0 < port < 65536 else None


async def open_page_session(page: Any) -> DirectSession | None:
    """A new DevTools session to page's target over its browser's own port; None when the browser
    has no port of ours or the session cannot be opened (the caller keeps Playwright's)."""
    impl = impl_of(page)
    browser = impl.context.browser
    endpoint = _ENDPOINTS.get(browser) if browser is not None else None
    if endpoint is None:
        return None
    probe = None
    try:
        probe = await async_view(impl.context).new_cdp_session(async_view(impl))
        info = await asyncio.wait_for(probe.send("Target.getTargetInfo"), _WAIT)
        target_id = str(info["targetInfo"]["targetId"])
        return await DirectSession.connect(f"{endpoint}/devtools/page/{target_id}", probe)
    except Exception as exc:
        log.debug("no direct DevTools session: %s", exc)
        if probe is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(probe.detach(), _WAIT)
        return None


class DirectSession:
    """One DevTools session on its own websocket: `send`, `on`, `remove_listener`, `detach`, as a
    Playwright CDPSession has them. Events are handed to their listeners in the order they came,
    each before the next message is read; answers resolve the sender's future.

    Playwright hears the page's own events on its connection, which this one overtakes: after a
    navigation seen here, `catch_up` lets Playwright's view (`page.url`, its frames) reach it."""

    def __init__(self, socket: Any, playwright_session: Any) -> None:
        self._socket = socket
        self._playwright_session = playwright_session  # the same page's, through the driver
        self._next = 0
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._listeners: dict[str, list[Callable[[dict[str, Any]], None]]] = {}
        self._on_close: list[Callable[[], None]] = []
        self.closed = False
        self._detaching = False
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def connect(cls, url: str, playwright_session: Any) -> DirectSession:
        from websockets.asyncio.client import connect

        # No Origin header (Chromium refuses a websocket with one it was not told to allow), no
        # compression, no keep-alive pings (a busy machine must not close a live session).
        socket = await connect(
            url,
            open_timeout=_WAIT,
            close_timeout=_WAIT,
            ping_interval=None,
            compression=None,
            max_size=_MAX_MESSAGE,
            max_queue=None,
        )
        return cls(socket, playwright_session)

    def on(self, event: str, handler: Callable[[dict[str, Any]], None]) -> None:
        self._listeners.setdefault(event, []).append(handler)

    def remove_listener(self, event: str, handler: Callable[[dict[str, Any]], None]) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self._listeners[event].remove(handler)

    def on_close(self, handler: Callable[[], None]) -> None:
        """handler() once the websocket has closed other than by `detach`."""
        self._on_close.append(handler)

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The command's result; DirectCdpError with Chromium's message when it failed.

        Unbounded, as a CDPSession's send is: the caller bounds it. Cancelling it forgets the
        answer."""
        if self.closed:
            raise DirectCdpClosedError("the page's DevTools connection is closed")
        self._next += 1
        key = self._next
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[key] = answer
        try:
            message = {"id": key, "method": method, "params": params or {}}
            await self._socket.send(json.dumps(message, separators=(",", ":")))
            return await answer
        except DirectCdpError:
            raise
        except Exception as exc:
            if isinstance(exc, asyncio.CancelledError):
                raise
            raise DirectCdpClosedError(f"the page's DevTools connection failed: {exc}") from exc
        finally:
            self._waiting.pop(key, None)

    async def catch_up(self) -> None:
        """Return once Playwright has had every event the page sent before now (a round trip on
        the page's Playwright session, which Chromium answers after those events); bounded,
        never raises."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                cdp_call(self._playwright_session, "Browser.getVersion", {}), _WAIT
            )

    async def detach(self) -> None:
        """Close the websocket and the Playwright session (bounded); pending commands fail as
        closed."""
        self._detaching = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._playwright_session.detach(), _WAIT)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._socket.close(), _WAIT)
        self._reader.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self._reader, _WAIT)
        self._end()

    async def _read(self) -> None:
        try:
            async for raw in self._socket:
                self._dispatch(json.loads(raw))
        except Exception as exc:
            log.debug("the direct DevTools connection ended: %s", exc)
        finally:
            self._end()

    def _dispatch(self, message: dict[str, Any]) -> None:
        key = message.get("id")
        if key is not None:
            answer = self._waiting.get(key)
            if answer is None or answer.done():
                return
            error = message.get("error")
            if error is not None:
                answer.set_exception(DirectCdpError(str(error.get("message", error))))
            else:
                answer.set_result(message.get("result") or {})
            return
        for handler in list(self._listeners.get(str(message.get("method")), ())):
            try:
                handler(message.get("params") or {})
            except Exception:  # one listener's bug must not stop the session's events
                log.exception("a DevTools event listener failed")

    def _end(self) -> None:
        if self.closed:
            return
        self.closed = True
        for answer in self._waiting.values():
            if not answer.done():
                answer.set_exception(DirectCdpClosedError("the page's DevTools connection closed"))
        if not self._detaching:
            for handler in self._on_close:
                handler()
