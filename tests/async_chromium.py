"""One Chromium with WebMCP per worker, for the tests of the async API that run beside sync
Playwright: the `async_chromium` fixture (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page, Playwright

    from webmcp_harness import WebMCPSession

__all__ = ["AsyncChromium"]

T = TypeVar("T")


class AsyncChromium:
    """A Chromium with WebMCP, launched as the harness launches it, driven by async Playwright on
    an event loop in a thread of its own (sync Playwright's fixtures own the test's thread).

    A test runs its coroutine with `run`, and opens (and closes) a context of its own in
    `browser`."""

    BOUND = 120.0  # seconds a test's coroutine may run

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    @property
    def browser(self) -> Browser:
        assert self._browser is not None, "not started"
        return self._browser

    def run(self, coro: Awaitable[T], bound: float = BOUND) -> T:
        """coro's value, run on the browser's loop; a coro still running after bound seconds is
        cancelled (its context closes before the next test's opens) and the test fails."""

        async def wrapped() -> T:
            return await coro

        future = asyncio.run_coroutine_threadsafe(wrapped(), self.loop)
        try:
            return future.result(bound)
        except TimeoutError:
            future.cancel()
            raise

    def on_page(
        self,
        url: str,
        body: Callable[[WebMCPSession, Page], Awaitable[T]],
        *,
        ready: str | None = None,
    ) -> T:
        """body(session, page)'s value, on url in a context of its own: the session attached
        before the page loads, and ready (a script expression, if given) true."""

        async def main() -> T:
            from webmcp_harness import WebMCPSession

            context = await self.browser.new_context()
            try:
                page = await context.new_page()
                async with await WebMCPSession.attach(page, timeout=10) as session:
                    await page.goto(url)
                    if ready is not None:
                        await page.wait_for_function(ready)
                    return await body(session, page)
            finally:
                await context.close()

        return self.run(main())

    def start(self) -> None:
        from playwright.async_api import async_playwright

        from webmcp_harness.session.browser import launch

        async def begin() -> None:
            self._playwright = await async_playwright().start()
            self._browser = await launch(self._playwright)

        self.run(begin())

    def stop(self) -> None:
        async def end() -> None:
            with contextlib.suppress(Exception):
                if self._browser is not None:
                    await self._browser.close()
            if self._playwright is not None:
                await self._playwright.stop()

        try:
            self.run(end(), 30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
            self.loop.close()
