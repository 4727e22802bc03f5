"""The crawl: the pages of its frontier checked by its workers, on one browser or several (a grid),
each worker in its lane (a context used page after page); it yields each page's outcome."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..core.waits import cancelled_from_outside
from .findings import Severity
from .frontier import Frontier
from .options import CheckOptions, ContextHook, Progress, ProgressCallback
from .page import PageCheck, PageJob, PageOutcome
from .visit import Lane

if TYPE_CHECKING:
    from playwright.async_api import Browser

__all__ = ["BrowserSource", "Crawl"]


@dataclass
class _Node:
    """One browser of a grid run, and whether it disconnected."""

    browser: Browser
    name: str
    dead: asyncio.Event = field(default_factory=asyncio.Event)


class BrowserSource(Protocol):
    """Browsers that join a run while it goes (a Selenium Grid's sessions, as the grid gives
    them), and that can replace one that is lost."""

    @property
    def pending(self) -> bool:
        """Whether a browser may still come."""
        ...

    def arrivals(self) -> AsyncIterator[tuple[Browser, str] | None]:
        """Each browser (and its name) as it comes; None when one that was coming did not."""
        ...

    def lost(self, name: str) -> None:
        """The browser called name is gone (the source may bring another)."""
        ...


_LOST_WAIT = 1.0  # seconds a failed page waits for its browser's disconnected event (grid)


class Crawl:
    """Checks the pages of the frontier with `options.workers` workers per browser, each in its
    lane (a context used page after page), and yields each page's outcome as it is done.

    With several browsers (a grid), a browser that disconnects mid-run has its pages checked
    again on another, once; names (their endpoints) say which one it was. With sessions (a
    Selenium Grid's), more browsers join as they come, and one that is lost is replaced when the
    source can. on_progress hears when pages start and finish.
    """

    def __init__(
        self,
        browsers: Sequence[Browser],
        options: CheckOptions,
        *,
        numbers: Iterator[int],
        names: Sequence[str] = (),
        on_progress: ProgressCallback | None = None,
        prepare_context: ContextHook | None = None,
        sessions: BrowserSource | None = None,
    ) -> None:
        self.browsers = list(browsers)
        self.options = options
        self.names = list(names)
        self.on_progress = on_progress
        self.prepare_context = prepare_context
        self.frontier = Frontier(options)
        self.finished = 0  # pages checked so far
        self.retried: list[dict[str, str]] = []  # pages checked again, and why
        self._numbers = numbers
        self._nodes: list[_Node] = []
        self._source = sessions
        self._workers: list[asyncio.Task[None]] = []
        self._out: collections.deque[PageOutcome] = collections.deque()
        self._more = asyncio.Event()  # set when an outcome is ready
        self._first_lane = asyncio.Event()  # set once the first worker's lane is open

    @property
    def found(self) -> list[str]:
        """Every page queued, in the order found."""
        return self.frontier.found

    async def pages(self, urls: Sequence[str]) -> AsyncGenerator[PageOutcome, None]:
        """Check urls (and, with options.crawl, the same-origin pages they link to); each page's
        outcome as soon as it is done."""
        for url in urls:
            self.frontier.add(url, 0, seed=True)
        if len(self.browsers) == 1 and self._source is None:
            count = max(1, self.options.workers)
            warm = self._warm_lanes(urls, count)
            workers = [
                asyncio.ensure_future(self._worker(warm=i < warm, first=i == 0))
                for i in range(count)
            ]
        else:
            workers = self._grid_workers()
        joined = asyncio.ensure_future(self.frontier.queue.join())
        try:
            while self._out or not joined.done():
                if self._out:
                    yield self._out.popleft()
                    continue
                self._more.clear()
                more = asyncio.ensure_future(self._more.wait())
                await asyncio.wait({joined, more}, return_when=asyncio.FIRST_COMPLETED)
                more.cancel()
        finally:
            joined.cancel()
            for worker in workers:
                worker.cancel()
            await asyncio.gather(joined, *workers, return_exceptions=True)

    def _warm_lanes(self, urls: Sequence[str], workers: int) -> int:
        """How many workers open their lane at once, before they have a page: as many as may
        get one (a crawl may find a page for each), so that the pages the first one links to
        do not wait for a new context after it has loaded (a context costs as much as a load)."""
        pages = min(self.options.max_pages, len(set(urls)) if self.options.crawl == 0 else workers)
        return min(workers, pages)

    async def _worker(
        self, node: _Node | None = None, *, warm: bool = False, first: bool = False
    ) -> None:
        """Check pages from the queue (in node's browser, until it disconnects), one after the
        other in the worker's lane (with warm, opened before it has a page, in the first browser:
        at once when first, else once the first worker's lane is open)."""
        queue = self.frontier.queue
        dead = asyncio.ensure_future(node.dead.wait()) if node is not None else None
        lane = Lane(self.options, self.prepare_context)
        try:
            if warm:
                if not first:  # (not at once with the first page's context: it is in a hurry)
                    await self._first_lane.wait()
                await lane.warm(self.browsers[0])
                self._first_lane.set()
            while True:
                url, depth, seed = await queue.get()
                try:
                    if not await self._take(url, depth, seed, node, dead, lane):
                        return
                except asyncio.CancelledError:
                    if cancelled_from_outside():
                        raise
                except Exception:  # the checker reports the page as not checked
                    pass
                finally:
                    queue.task_done()
        finally:
            if dead is not None:
                dead.cancel()
            await asyncio.shield(lane.discard())

    def _check(self, url: str, depth: int, seed: bool, browser: Browser, lane: Lane) -> PageCheck:
        job = PageJob(url, browser, depth, seed, lane)
        return PageCheck(
            job,
            self.options,
            numbers=self._numbers,
            prepare_context=self.prepare_context,
            links=self.frontier,
        )

    async def _take(
        self,
        url: str,
        depth: int,
        seed: bool,
        node: _Node | None,
        dead: asyncio.Future[Any] | None,
        lane: Lane,
    ) -> bool:
        """Check one page; False when node's browser is gone (the page then goes back)."""
        if node is None or dead is None:
            self._progress("start", url)
            outcome = await self._check(url, depth, seed, self.browsers[0], lane).run()
        else:
            if node.dead.is_set():
                self._again(url, depth, seed, node, started=False)
                return False
            self._progress("start", url)
            page = asyncio.ensure_future(self._check(url, depth, seed, node.browser, lane).run())
            await asyncio.wait({page, dead}, return_when=asyncio.FIRST_COMPLETED)
            if page.done() and page.result().may_be_lost() and not node.dead.is_set():
                # Playwright closes a lost browser's pages first, the browser a task later:
                # a page that failed, or whose call saw its page crash or close, may have
                # failed for that.
                await asyncio.wait({dead}, timeout=_LOST_WAIT)
            if not node.browser.is_connected():
                self._lost(node)
            if node.dead.is_set():  # its findings are those of a browser going away
                page.cancel()
                await asyncio.gather(page, return_exceptions=True)
                self._again(url, depth, seed, node, started=True)
                return False
            outcome = page.result()
        self._finish(outcome, depth)
        return True

    def _finish(self, outcome: PageOutcome, depth: int) -> None:
        """A page done: the links it found since the crawl was last told (a form's result page)
        are queued, and its outcome goes out."""
        self.finished += 1
        self.frontier.follow(outcome.url, depth, outcome.links)
        self._progress("done", outcome.url, outcome)
        self._out.append(outcome)
        self._more.set()

    # -- a grid: several browsers --------------------------------------------------------
    @property
    def browser_count(self) -> int:
        """How many browsers the run had: those given, and those a source brought."""
        return max(len(self.browsers), len(self._nodes))

    def _grid_workers(self) -> list[asyncio.Task[None]]:
        """options.workers workers per browser, all taking pages from the one queue (and those
        of each browser the source brings, as it comes)."""
        self._workers = []
        for index, browser in enumerate(self.browsers):
            name = self.names[index] if index < len(self.names) else f"browser {index + 1}"
            self._add_node(browser, name)
        if self._source is not None:
            self._workers.append(asyncio.create_task(self._join(self._source)))
        return self._workers

    def _add_node(self, browser: Browser, name: str) -> None:
        node = _Node(browser, name)
        self._nodes.append(node)
        browser.on("disconnected", functools.partial(self._lost_browser, node))
        if not browser.is_connected():
            self._lost(node)
        for _ in range(max(1, self.options.workers)):
            self._workers.append(asyncio.create_task(self._worker(node)))

    async def _join(self, source: BrowserSource) -> None:
        """The source's browsers join as they come; when one that was coming does not and none
        is left, the queued pages cannot be checked."""
        async for arrival in source.arrivals():
            if arrival is not None:
                self._add_node(*arrival)
            elif self._nodes:
                self._drain(self._nodes[-1])

    def _lost_browser(self, node: _Node, _browser: Browser) -> None:
        self._lost(node)

    def _lost(self, node: _Node) -> None:
        """node's browser disconnected: the source may bring another; when it was the last and
        none is coming, the queued pages cannot be checked."""
        if not node.dead.is_set():
            node.dead.set()
            if self._source is not None:
                self._source.lost(node.name)
        self._drain(node)

    def _drain(self, node: _Node) -> None:
        if self._left():
            return
        queue = self.frontier.queue
        while not queue.empty():
            url, depth, seed = queue.get_nowait()
            self._again(url, depth, seed, node, started=False)
            queue.task_done()

    def _left(self) -> bool:
        """Whether a browser is left, or may still come."""
        coming = self._source is not None and self._source.pending
        return coming or any(not n.dead.is_set() for n in self._nodes)

    def _again(self, url: str, depth: int, seed: bool, node: _Node, *, started: bool) -> None:
        """Check url on another browser, once; with none left (or a second time), report it as
        not checked."""
        if started:
            before = next((r for r in self.retried if r["url"] == url), None)
            if before is not None:
                self._not_checked(
                    url,
                    depth,
                    f"This page could not be checked: its browser disconnected twice while "
                    f"checking it ({before['browser']}, then {node.name}).",
                )
                return
            self.retried.append(
                {
                    "url": url,
                    "reason": f"{node.name} disconnected while checking it",
                    "browser": node.name,
                }
            )
        if self._left():
            self.frontier.queue.put_nowait((url, depth, seed))
            return
        message = f"This page could not be checked: every browser disconnected ({node.name} last)."
        self._not_checked(url, depth, message)

    def _not_checked(self, url: str, depth: int, message: str) -> None:
        outcome = PageOutcome.not_checked(url, message)
        outcome.result.error = message
        self._finish(outcome, depth)

    def _progress(
        self, event: Literal["start", "done"], url: str, outcome: PageOutcome | None = None
    ) -> None:
        if self.on_progress is None:
            return
        errors = warnings = 0
        if outcome is not None:
            errors = sum(1 for f in outcome.col.findings if f.severity is Severity.ERROR)
            warnings = sum(1 for f in outcome.col.findings if f.severity is Severity.WARNING)
        with contextlib.suppress(Exception):
            self.on_progress(
                Progress(
                    event,
                    url,
                    self.finished,
                    len(self.frontier.found),
                    outcome.result if outcome is not None else None,
                    errors,
                    warnings,
                )
            )
