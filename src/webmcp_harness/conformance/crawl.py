"""The crawl: the queue of pages to check, its workers (one browser, or a grid), links followed."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..core.urls import split_url
from . import ids
from .findings import Collector, Severity
from .options import CheckerBase, Progress, _cancelled_from_outside, normalise_url
from .reports import PageResult
from .visit import _Lane, _may_be_lost, _Visit

if TYPE_CHECKING:
    from playwright.async_api import Browser

__all__ = ["Crawl"]


@dataclass
class _Node:
    """One browser of a grid run, and whether it disconnected."""

    browser: Browser
    name: str
    dead: asyncio.Event = field(default_factory=asyncio.Event)


def _origin(url: str) -> tuple[str, str]:
    parts = split_url(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _is_page_link(url: str, origin: tuple[str, str]) -> bool:
    parts = split_url(url)
    if parts.scheme not in ("http", "https") or (parts.scheme, parts.netloc.lower()) != origin:
        return False
    return _NOT_PAGES.search(parts.path) is None


_NOT_PAGES = re.compile(  # links to files, not pages: the crawl skips them
    r"\.(?:png|jpe?g|gif|svg|webp|ico|bmp|css|m?js|json|xml|txt|pdf|zip|t?gz|bz2|xz|7z|rar|tar|"
    r"mp3|mp4|m4a|webm|ogg|wav|avi|mov|woff2?|ttf|otf|eot|exe|dmg|apk|msi|csv|docx?|xlsx?|pptx?|"
    r"wasm)$",
    re.IGNORECASE,
)


_LOST_WAIT = 1.0  # seconds a failed page waits for its browser's disconnected event (grid)


class Crawl(CheckerBase):
    """The crawl's part of the checker: which page is checked next, on which browser."""

    _queue: asyncio.Queue[tuple[str, int, bool]] | None
    _seen: set[str]
    _order: list[str]
    _done: dict[str, _Visit]  # pages checked, until they are in the report
    _finished: int  # pages checked so far
    _not_visited: set[str]  # pages over max_pages
    _per_path: dict[tuple[str, str, str], int]
    _nodes: list[_Node]
    _retried: list[dict[str, str]]

    def _enqueue(self, url: str, depth: int, *, seed: bool = False) -> None:
        key = normalise_url(url, keep_fragment=seed)
        if key in self._seen:
            return
        parts = split_url(key)
        path = (parts.scheme, parts.netloc.lower(), parts.path)
        limit = self.options.max_per_path
        if not seed and limit is not None and self._per_path.get(path, 0) >= limit:
            return
        if len(self._seen) >= self.options.max_pages:
            if len(self._not_visited) < 100_000:  # (a count, not a list, past that)
                self._not_visited.add(key)
            return
        self._per_path[path] = self._per_path.get(path, 0) + 1
        self._seen.add(key)
        self._order.append(key)
        assert self._queue is not None
        self._queue.put_nowait((key, depth, seed))

    async def _worker(self, node: _Node | None = None) -> None:
        """Check pages from the queue (in node's browser, until it disconnects), one after the
        other in the worker's lane."""
        assert self._queue is not None
        dead = asyncio.ensure_future(node.dead.wait()) if node is not None else None
        lane = _Lane()
        try:
            while True:
                url, depth, seed = await self._queue.get()
                try:
                    if not await self._take(url, depth, seed, node, dead, lane):
                        return
                except asyncio.CancelledError:
                    if _cancelled_from_outside():
                        raise
                except Exception:  # run() reports the page as not checked
                    pass
                finally:
                    self._queue.task_done()
        finally:
            if dead is not None:
                dead.cancel()
            await asyncio.shield(self._discard(lane))

    async def _take(
        self,
        url: str,
        depth: int,
        seed: bool,
        node: _Node | None,
        dead: asyncio.Future[Any] | None,
        lane: _Lane,
    ) -> bool:
        """Check one page; False when node's browser is gone (the page then goes back)."""
        if node is None or dead is None:
            self._progress("start", url)
            visit = await self.check_page(url, depth=depth, seed=seed, lane=lane)
        else:
            if node.dead.is_set():
                self._again(url, depth, seed, node, started=False)
                return False
            self._progress("start", url)
            page = asyncio.ensure_future(
                self.check_page(url, depth=depth, seed=seed, browser=node.browser, lane=lane)
            )
            await asyncio.wait({page, dead}, return_when=asyncio.FIRST_COMPLETED)
            if page.done() and _may_be_lost(page.result()) and not node.dead.is_set():
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
            visit = page.result()
        self._done[url] = visit
        self._finished += 1
        self._follow(visit)  # the links found since the probe (a form's result page)
        self._progress("done", url, visit)
        self._to_report()
        return True

    # -- a grid: several browsers --------------------------------------------------------
    def _grid_workers(self) -> list[asyncio.Task[None]]:
        """options.workers workers per browser, all taking pages from the one queue."""
        workers: list[asyncio.Task[None]] = []
        for index, browser in enumerate(self.browsers):
            name = self.names[index] if index < len(self.names) else f"browser {index + 1}"
            node = _Node(browser, name)
            self._nodes.append(node)
            browser.on("disconnected", functools.partial(self._lost_browser, node))
            if not browser.is_connected():
                self._lost(node)
            for _ in range(max(1, self.options.workers)):
                workers.append(asyncio.create_task(self._worker(node)))
        return workers

    def _lost_browser(self, node: _Node, _browser: Browser) -> None:
        self._lost(node)

    def _lost(self, node: _Node) -> None:
        """node's browser disconnected: when it was the last, the queued pages cannot be checked."""
        node.dead.set()
        if any(not n.dead.is_set() for n in self._nodes) or self._queue is None:
            return
        while not self._queue.empty():
            url, depth, seed = self._queue.get_nowait()
            self._again(url, depth, seed, node, started=False)
            self._queue.task_done()

    def _again(self, url: str, depth: int, seed: bool, node: _Node, *, started: bool) -> None:
        """Check url on another browser, or, with none left, report it as not checked."""
        if started:
            self._retried.append(
                {"url": url, "reason": f"{node.name} disconnected while checking it"}
            )
        if any(not n.dead.is_set() for n in self._nodes):
            assert self._queue is not None
            self._queue.put_nowait((url, depth, seed))
            return
        visit = _Visit(url, depth, seed, Collector(url), PageResult(url=url, calls=[]))
        message = f"This page could not be checked: every browser disconnected ({node.name} last)."
        visit.col.add(ids.DISCOVERY_PAGE_LOAD, message)
        visit.result.error = message
        self._done[url] = visit
        self._finished += 1
        self._progress("done", url, visit)
        self._to_report()

    def _follow(self, visit: _Visit) -> None:
        """Queue the same-origin pages visit links to (as soon as they are known, so the next
        crawl level loads while this page's tools are still being called)."""
        if visit.depth >= self.options.crawl or self._queue is None:
            return
        origin = _origin(visit.url)
        for link in visit.links[visit.followed :]:
            if _is_page_link(link, origin):
                self._enqueue(link, visit.depth + 1)
        visit.followed = len(visit.links)

    def _progress(
        self, event: Literal["start", "done"], url: str, visit: _Visit | None = None
    ) -> None:
        if self.on_progress is None:
            return
        errors = warnings = 0
        if visit is not None:
            errors = sum(1 for f in visit.col.findings if f.severity is Severity.ERROR)
            warnings = sum(1 for f in visit.col.findings if f.severity is Severity.WARNING)
        with contextlib.suppress(Exception):
            self.on_progress(
                Progress(
                    event,
                    url,
                    self._finished,
                    len(self._order),
                    visit.result if visit is not None else None,
                    errors,
                    warnings,
                )
            )
