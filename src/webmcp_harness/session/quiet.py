"""When a page is quiet, as a browser auditor decides it: no request of its own in flight and no
short timer of its own pending, so no tool is about to be registered by either.

`PageQuiet` watches one page: its requests (Playwright's page events, every frame) and, through
an init script (`PENDING_JS`), the timers its main frame set. A page may lie about its timers; it
only makes the session wait longer, never past the bound its caller sets (`tools()`: SETTLE_MAX).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from typing import TYPE_CHECKING, Any

from ..core.waits import bounded
from .adapters import as_async
from .limits import HORIZON

if TYPE_CHECKING:
    from playwright.async_api import Page, Request

__all__ = ["PENDING_JS", "PageQuiet"]

_READ_WAIT = 1.0  # seconds reading the timers may take (a page that does not answer is busy)

_KEY = "webmcp-harness:pending-timers"

# Counts the main frame's pending setTimeout timers of at most HORIZON, and notes when one last ran
# (a tool registered by a timer that has just run is still on its way): the symbol's value reads
# [pending, milliseconds since one last ran, or -1 while none has].
PENDING_JS = """(() => {
  if (window.top !== window) return;
  const key = Symbol.for("KEY"), horizon = HORIZON_MS;
  if (window[key]) return;
  // (no Set: a page that rewrites Set.prototype would break its own setTimeout through ours)
  const pending = Object.create(null), now = performance.now.bind(performance);
  let count = 0, ran = -1;
  const settled = (id) => { if (id in pending) { delete pending[id]; count--; } };
  const set = window.setTimeout, clear = window.clearTimeout;
  Object.defineProperty(window, key, { value: () => [count, ran < 0 ? -1 : now() - ran] });
  window.setTimeout = function (callback, delay, ...rest) {
    const ms = Number(delay) || 0;
    if (typeof callback !== "function" || !(ms <= horizon)) {
      return set.call(this, callback, delay, ...rest);
    }
    let id = 0;
    id = set.call(this, function (...args) {
      try { return callback.apply(this, args); } finally { settled(id); ran = now(); }
    }, delay, ...rest);
    pending[id] = true;
    count++;
    return id;
  };
  window.clearTimeout = function (id) { settled(id); return clear.call(this, id); };
})();""".replace("KEY", _KEY).replace("HORIZON_MS", str(int(HORIZON * 1000)))

_PENDING_READ_JS = f"() => {{ const f = window[Symbol.for({_KEY!r})]; return f ? f() : [0, -1]; }}"


class PageQuiet:
    """A page's requests in flight and short timers pending: whether it is busy."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self._inflight: dict[int, float] = {}  # id(request) -> when it started
        self.busy_at = time.monotonic()  # when the page was last seen busy
        self._script: Any = None  # what added PENDING_JS to the page (to take it off again)

    async def install(self) -> None:
        """Watch the page's requests, and count the timers of its next documents (those loaded
        already are not seen). Called in a task of the session's own (see `close`)."""
        self.page.on("request", self._started)
        self.page.on("requestfinished", self._ended)
        self.page.on("requestfailed", self._ended)
        self._script = await self.page.add_init_script(PENDING_JS)

    async def dispose(self) -> None:
        """Take the timer counter off the page's next documents, as the session closes (a page
        that outlives its sessions would otherwise run one more copy per session on every load).
        A Playwright whose add_init_script returns a Disposable can (1.65 does); with one that
        does not, the script stays. The documents loaded already keep theirs. Run it in a task of
        its own, not the caller's (see `close`)."""
        script, self._script = self._script, None
        close = getattr(script, "close", None)  # (Playwright's Disposable)
        if close is not None:
            await close()

    def close(self) -> None:
        """Stop watching, from the event loop rather than the caller's task: adding or removing a
        request listener is a Playwright call, which reads the locals of every frame on its stack,
        and CPython 3.11 keeps that copy of the caller's locals (a session it has since dropped)
        alive until the caller's next Playwright call."""
        with contextlib.suppress(RuntimeError):  # no running loop: nothing to stop listening to
            asyncio.get_running_loop().call_soon(self._stop)

    def _stop(self) -> None:
        for event, handler in (
            ("request", self._started),
            ("requestfinished", self._ended),
            ("requestfailed", self._ended),
        ):
            with contextlib.suppress(Exception):
                self.page.remove_listener(event, handler)

    def _started(self, request: Request) -> None:
        if len(self._inflight) < 1_000:
            self._inflight[id(request)] = time.monotonic()
        self.busy_at = time.monotonic()

    def _ended(self, request: Request) -> None:
        if self._inflight.pop(id(request), None) is not None:
            self.busy_at = time.monotonic()

    def loading(self) -> bool:
        """Whether a request younger than HORIZON is in flight."""
        now = time.monotonic()
        return any(now - began < HORIZON for began in self._inflight.values())

    async def timers(self) -> tuple[int, float | None]:
        """The main frame's pending short timers, and seconds since one of them last ran (None
        while none has); (-1, None) when it does not answer in time (a page too busy to answer
        is busy: the caller's bound, not this, ends the wait)."""
        # (as_async: Playwright hands out the frame's first wrapper, which is a sync one once a
        # sync test's own listener was given it: calling that from the loop would stall)
        frame = as_async(self.page.main_frame)
        read: Any = await bounded(frame.evaluate(_PENDING_READ_JS), _READ_WAIT)
        if read is None:
            return -1, None
        pending, ran_ms = read if isinstance(read, list) and len(read) == 2 else (0, -1)
        if not isinstance(pending, int) or isinstance(pending, bool):
            pending = 0  # (not what the counter answers, which the page cannot reach)
        ran = ran_ms / 1000 if _finite(ran_ms) and ran_ms >= 0 else None
        return pending, ran

    async def busy(self) -> bool:
        """Whether the page may still register a tool soon (a request or a short timer); notes
        when it last was: now, or when its last short timer ran (what that timer registered may
        still be on its way to the session, so the quiet window starts then, not at the last
        time it was seen pending)."""
        if self.loading():
            self.busy_at = time.monotonic()
            return True
        pending, ran = await self.timers()
        if pending != 0:
            self.busy_at = time.monotonic()
            return True
        if ran is not None:
            self.busy_at = max(self.busy_at, time.monotonic() - ran)
        return False


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
