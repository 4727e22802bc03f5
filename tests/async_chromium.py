"""Async Playwright beside sync Playwright: an event loop in a thread of its own (`LoopThread`),
one Chromium with WebMCP per worker on it (`AsyncChromium`, the `async_chromium` fixture of
tests/conftest.py), and a page a test file keeps for its tests (`KeptPage`; `SyncKeptPage` in
sync Playwright)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Frame, Page, Playwright
    from playwright.sync_api import Browser as SyncBrowser
    from playwright.sync_api import BrowserContext as SyncContext
    from playwright.sync_api import Frame as SyncFrame
    from playwright.sync_api import Page as SyncPage

    from webmcp_harness import WebMCPSession

__all__ = ["AsyncChromium", "KeptPage", "KeptPages", "LoopThread", "SyncKeptPage"]

T = TypeVar("T")


class LoopThread:
    """An asyncio event loop running in a thread of its own (sync Playwright's fixtures own the
    test's thread and its loop), with a bounded `run`."""

    BOUND = 120.0  # seconds a coroutine may run

    def __init__(self, name: str = "async-playwright") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Awaitable[T], bound: float = BOUND) -> T:
        """coro's value, run on the loop; a coro still running after bound seconds is cancelled
        (what it opened closes before the next test's opens) and TimeoutError raised."""

        async def wrapped() -> T:
            return await coro

        future = asyncio.run_coroutine_threadsafe(wrapped(), self.loop)
        try:
            return future.result(bound)
        except TimeoutError:
            future.cancel()
            raise

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():
            self.loop.close()


class AsyncChromium:
    """A Chromium with WebMCP, launched as the harness launches it, driven by async Playwright on
    a `LoopThread`.

    A test runs its coroutine with `run`, and opens (and closes) a context of its own in
    `browser`, or keeps a page for its file (`KeptPage`)."""

    BOUND = LoopThread.BOUND

    def __init__(self) -> None:
        self._loop = LoopThread("async-chromium")
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    @property
    def browser(self) -> Browser:
        assert self._browser is not None, "not started"
        return self._browser

    @property
    def playwright(self) -> Playwright:
        """The Playwright that drives `browser`, on the same loop (to connect to other browsers)."""
        assert self._playwright is not None, "not started"
        return self._playwright

    def run(self, coro: Awaitable[T], bound: float = BOUND) -> T:
        """coro's value, run on the browser's loop (`LoopThread.run`)."""
        return self._loop.run(coro, bound)

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
            self._loop.close()


class _Visits:
    """What a kept page did during a test, for its cleaning after it: the http(s) origins its
    frames visited, and whether its renderer crashed."""

    def __init__(self) -> None:
        self.origins: set[str] = set()
        self.crashed = False

    def watch(self, page: Page | SyncPage) -> None:
        page.on("framenavigated", self._navigated)
        page.on("crash", self._crash)

    def _navigated(self, frame: Frame | SyncFrame) -> None:
        parts = urlsplit(frame.url)
        if parts.scheme in ("http", "https"):
            self.origins.add(f"{parts.scheme}://{parts.netloc}")

    def _crash(self, _page: object) -> None:
        self.crashed = True

    def unused(self, url: str) -> bool:
        """Whether nothing was opened in the page since it was last blank."""
        return not self.origins and url == "about:blank"

    def clearing(self) -> list[tuple[str, dict[str, str]]]:
        """The CDP commands that clear what the page stored, an origin each (then forgotten)."""
        origins, self.origins = sorted(self.origins), set()
        return [
            ("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            for origin in origins
        ]


class KeptPage:
    """A page a test file keeps for its tests, in a context of its own (the async `reused_page`
    of tests/conftest.py, which keeps a `SyncKeptPage`).

    Each test opens its own document in `page`; `clean` then leaves the page blank, with the
    pages the test opened beside it closed, the routes it added removed, the cookies and storage
    of every origin its frames visited cleared (not the tab's session storage, which no test page
    uses), and a page that was closed or crashed replaced, so the next test sees what a new
    context would show. Chromium starts the page's renderer once per file instead of once per
    test (bench/page_cost.py). A test that
    changes the context otherwise (init scripts, permissions, listeners) opens a context of its
    own.
    """

    def __init__(self, browser: Browser, init_script: Path | None, options: dict[str, Any]):
        self._browser = browser
        self._init_script = init_script
        self._options = options
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._visits = _Visits()

    @classmethod
    async def open(
        cls, browser: Browser, *, init_script: Path | None = None, **options: Any
    ) -> KeptPage:
        """A page in a new context of browser (made with options, init_script run before every
        document's own scripts)."""
        kept = cls(browser, init_script, options)
        await kept._new()
        return kept

    @property
    def page(self) -> Page:
        assert self._page is not None, "closed"
        return self._page

    @property
    def context(self) -> BrowserContext:
        assert self._context is not None, "closed"
        return self._context

    async def _new(self) -> None:
        self._context = await self._browser.new_context(**self._options)
        if self._init_script is not None:
            await self._context.add_init_script(path=str(self._init_script))
        self._page, self._visits = await self._context.new_page(), _Visits()
        self._visits.watch(self._page)

    async def clean(self) -> None:
        """Leave the page as a new context's: blank, its origins' data cleared (or a new page, when
        the test closed or crashed it, or the page cannot go blank: e.g. a navigation it started
        interrupts ours)."""
        page = self.page
        if not page.is_closed() and not self._visits.crashed:
            try:
                await self._blank(page)
                return
            except PlaywrightError:
                pass
        await self.close()
        await self._new()

    async def _blank(self, page: Page) -> None:
        for other in self.context.pages:
            if other != page:
                await other.close()  # (a popup the test opened)
        await page.unroute_all(behavior="ignoreErrors")
        await self.context.unroute_all(behavior="ignoreErrors")
        if self._visits.unused(page.url):
            return
        await page.goto("about:blank")
        cdp = await self.context.new_cdp_session(page)
        try:
            for method, params in self._visits.clearing():
                await cdp.send(method, params)
        finally:
            await cdp.detach()
        await self.context.clear_cookies()

    async def close(self) -> None:
        if self._context is not None:
            with contextlib.suppress(Exception):
                await self._context.close()
        self._context = self._page = None


class SyncKeptPage:
    """`KeptPage` for sync Playwright (pytest-playwright's `browser`): the page of
    tests/conftest.py's `reused_page`, cleaned after each test as `KeptPage.clean` says."""

    def __init__(self, browser: SyncBrowser) -> None:
        self._browser = browser
        self._context: SyncContext | None = None
        self._page: SyncPage | None = None
        self._visits = _Visits()
        self._new()

    @property
    def page(self) -> SyncPage:
        assert self._page is not None, "closed"
        return self._page

    def _new(self) -> None:
        self._context = self._browser.new_context()
        self._page, self._visits = self._context.new_page(), _Visits()
        self._visits.watch(self._page)

    def clean(self) -> None:
        """As `KeptPage.clean`."""
        page = self.page
        if not page.is_closed() and not self._visits.crashed:
            try:
                self._blank(page)
                return
            except PlaywrightError:
                pass
        self.close()
        self._new()

    def _blank(self, page: SyncPage) -> None:
        context = page.context
        for other in context.pages:
            if other != page:
                other.close()  # (a popup the test opened)
        page.unroute_all(behavior="ignoreErrors")
        context.unroute_all(behavior="ignoreErrors")
        if self._visits.unused(page.url):
            return
        page.goto("about:blank")
        cdp = context.new_cdp_session(page)
        try:
            for method, params in self._visits.clearing():
                cdp.send(method, params)
        finally:
            cdp.detach()
        context.clear_cookies()

    def close(self) -> None:
        if self._context is not None:
            with contextlib.suppress(Exception):
                self._context.close()
        self._context = self._page = None


class KeptPages:
    """The pages a test file keeps (`KeptPage`), by name, on `AsyncChromium`'s loop."""

    def __init__(self, chromium: AsyncChromium, pages: dict[str, KeptPage]) -> None:
        self.chromium = chromium
        self._pages = pages

    @classmethod
    @contextlib.contextmanager
    def opened(cls, chromium: AsyncChromium, **pages: Awaitable[KeptPage]) -> Iterator[KeptPages]:
        """The pages named, opened at once; closed after the block."""

        async def open_all() -> dict[str, KeptPage]:
            return dict(zip(pages, await asyncio.gather(*pages.values()), strict=True))

        kept = cls(chromium, chromium.run(open_all()))
        try:
            yield kept
        finally:
            chromium.run(kept._all("close"))

    def __getitem__(self, name: str) -> KeptPage:
        return self._pages[name]

    def run(self, coro: Awaitable[T], bound: float = LoopThread.BOUND) -> T:
        return self.chromium.run(coro, bound)

    def for_a_test(self) -> Iterator[KeptPages]:
        """The pages for one test (a fixture's body), each left as a new context's after it."""
        yield self
        self.run(self._all("clean"))

    async def _all(self, step: str) -> None:
        await asyncio.gather(*(getattr(kept, step)() for kept in self._pages.values()))
