"""Every check on one page: what a page to check is (`PageJob`), the check itself (`PageCheck`:
the page visited, probed, its tools checked and exercised, its errors read), and what it gives
back (`PageOutcome`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core.records import CallRecord
from ..core.urls import origin_of, split_origin
from ..core.waits import cancelled_from_outside
from ..session.probe import why_no_tools
from . import ids
from .exercise import Exerciser
from .findings import Collector, Finding, excerpt
from .metadata import DISCOVERY_CHECKS, check_discovery, frame_of
from .options import CheckOptions, ContextHook
from .pageerrors import check_page_errors
from .readiness import check_readiness
from .reports import PageResult
from .static import check_statically
from .visit import Lane, LinkSink, PageVisit, went_away

if TYPE_CHECKING:
    from playwright.async_api import Browser

__all__ = ["PageCheck", "PageJob", "PageOutcome"]

_PAGE_CHECKS = (ids.DISCOVERY_PAGE_LOAD, ids.DISCOVERY_MODEL_CONTEXT, ids.DISCOVERY_SECURE_CONTEXT)


@dataclass(frozen=True)
class PageJob:
    """One page to check, and where: its browser, and the worker's lane it opens in."""

    url: str
    browser: Browser
    depth: int = 0  # crawl steps from a URL the user gave
    seed: bool = True  # a URL the user gave
    lane: Lane | None = None  # None: a context of its own, closed after


@dataclass
class PageOutcome:
    """What checking one page gave: its result, findings and checks run, call records, the
    findings --config left uncounted, and the links found since the crawl was last told."""

    url: str
    result: PageResult
    col: Collector
    records: list[CallRecord] = field(default_factory=list)
    ignored: list[Finding] = field(default_factory=list)
    links: list[str] = field(default_factory=list)

    @classmethod
    def not_checked(cls, url: str, message: str) -> PageOutcome:
        """A page that could not be checked at all, and why (a page-load finding)."""
        col = Collector(url)
        col.add(ids.DISCOVERY_PAGE_LOAD, message)
        return cls(url, PageResult(url=url, calls=[]), col)

    def may_be_lost(self) -> bool:
        """Whether the page's failure may be its browser going away: then wait to hear of it."""
        return bool(self.result.error) or any(map(went_away, self.records))


class PageCheck:
    """Checks one page: opens it in the job's lane (or a context of its own), probes it, checks
    its tools statically, exercises them, reads the page's errors, and closes it. Never raises
    for the page: whatever goes wrong ends as findings.

    The page's links go to links as soon as they are found; its calls are numbered by numbers.
    """

    def __init__(
        self,
        job: PageJob,
        options: CheckOptions,
        *,
        numbers: Iterator[int],
        prepare_context: ContextHook | None = None,
        links: LinkSink | None = None,
    ) -> None:
        self.job = job
        self.options = options
        self.col = Collector(job.url)
        self.result = PageResult(url=job.url, calls=[])
        self.visit = PageVisit(
            job.url,
            browser=job.browser,
            lane=job.lane or Lane(options, prepare_context),
            options=options,
            depth=job.depth,
            links=links,
        )
        self._numbers = numbers
        self._exerciser: Exerciser | None = None

    async def run(self) -> PageOutcome:
        """Every check on the page; its outcome."""
        started = time.monotonic()
        col, result, visit = self.col, self.result, self.visit
        ignored: list[Finding] = []
        try:
            await self._check()
            seen = await visit.readiness()  # (as the page settled: before any call; painted or not)
            if seen is not None:
                check_readiness(seen, page=visit.url, out=col)
            attempts, without = await visit.registrations()
            check_page_errors(
                visit.errors, attempts, without, result.tools, page=visit.url, out=col
            )
        except (Exception, asyncio.CancelledError) as exc:  # trouble must not end the run
            if isinstance(exc, asyncio.CancelledError) and cancelled_from_outside():
                raise
            first = str(exc).splitlines()[0] if str(exc) else ""
            message = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
            col.add(
                ids.DISCOVERY_PAGE_LOAD,
                f"The check of this page stopped early: {excerpt(message, 300)}. The findings "
                "before that stand; check the page by hand, or report this to webmcp-harness.",
            )
            result.error = result.error or message[:1_000]
        finally:
            links = visit.unfollowed_links()  # (for the crawl, once the page is done)
            await visit.close(keep=self.job.lane is not None and self._went_well())
            result.elapsed = time.monotonic() - started
            result.calls = [r.shown_number for r in visit.records]
            col.locate(
                {(t.name, frame_of(t, visit.url)): t.location for t in result.tools if t.location}
            )
            if self.options.pages is not None:
                ignored = self.options.pages.ignore(col)
        return PageOutcome(visit.url, result, col, visit.records, ignored, links)

    def _went_well(self) -> bool:
        """Whether the page may serve its lane's next page: it loaded and answered every call,
        and nothing crashed or hung."""
        hangs = self._exerciser.hangs if self._exerciser is not None else 0
        return not self.result.error and hangs == 0 and self.visit.went_well()

    async def _check(self) -> None:
        col, result, visit, options = self.col, self.result, self.visit, self.options
        col.ran_all(_PAGE_CHECKS)
        problem, fatal = await visit.open()
        visit.mark_settled()
        if problem:
            col.add(ids.DISCOVERY_PAGE_LOAD, problem)
            result.error = problem
        if fatal:
            for check_id in (*_PAGE_CHECKS[1:], *DISCOVERY_CHECKS):
                col.skip(check_id, "the page did not load")
            return
        landed = visit.current_url or visit.url
        if split_origin(landed) != split_origin(visit.url):
            why = (
                f"the page went to another origin ({excerpt(landed, 120)}): only "
                f"{origin_of(visit.url)} is checked"
            )
            result.error = f"skipped: {why}"
            col.skip_instead((*_PAGE_CHECKS, *DISCOVERY_CHECKS), why)
            return
        probe = await visit.probe()
        if probe is None:
            col.findings[:] = [f for f in col.findings if f.check != ids.DISCOVERY_PAGE_LOAD]
            self._unresponsive(
                f"The page did not answer a simple script within {options.look_timeout:g} s "
                "(its main thread is busy or it crashed), so nothing else could be checked. Keep "
                "the main thread free: move long work off it or split it up."
            )
            return
        result.title = probe.title
        visit.take_links(probe.links)
        result.screenshot = await visit.screenshot()
        listed = await visit.tools(settle=0)  # (settled after load: `PageVisit.open`)
        if listed is None:
            self._unresponsive(
                f"The page's tools could not be listed within {options.look_timeout:g} s (the "
                "page stopped responding), so nothing else could be checked."
            )
            return
        tools = result.tools = listed
        hints = []  # what the page's scripts say of why it has none (navigator-only, a 404)
        if not tools and visit.page is not None:
            hints = (await why_no_tools(visit.page, timeout=options.look_timeout)).hints()
        said = "".join(f" Also, {h}." for h in hints)
        if not probe.secure:
            col.add(
                ids.DISCOVERY_SECURE_CONTEXT,
                "The page is not a secure context, so browsers do not give it "
                "document.modelContext and agents cannot see its tools. Serve it over https (or "
                "http on localhost while developing).",
            )
        if not probe.model_context and not tools:
            if probe.secure and not probe.api:
                col.add(
                    ids.DISCOVERY_MODEL_CONTEXT,
                    "This browser has no WebMCP (no ModelContext interface: the WebMCP feature "
                    "flag is off), so the page cannot register tools. Run Chromium 146+ with "
                    "--enable-features=WebMCP, or load a polyfill before your tool scripts." + said,
                )
            elif probe.secure:
                col.add(
                    ids.DISCOVERY_MODEL_CONTEXT,
                    "document.modelContext is not there, so the page cannot register tools. Use a "
                    "browser with WebMCP (Chromium 146+ with the WebMCP feature), or load a "
                    "polyfill before your tool scripts; make sure no script hides it." + said,
                )
            else:
                col.skip(ids.DISCOVERY_MODEL_CONTEXT, "not a secure context")
            for check_id in DISCOVERY_CHECKS:
                col.skip(check_id, "no document.modelContext")
            return
        crashed = [e for e in visit.errors if e.during is None]
        whys = list(hints)
        if crashed:
            first = crashed[0]
            whys.append(
                f"its script threw while loading ({excerpt(f'{first.name}: {first.message}', 120)})"
                ", which may have stopped it before it registered them"
            )
        why_none = "; ".join(whys) or None
        check_discovery(
            tools,
            page=visit.url,
            out=col,
            expect_tools=self.job.seed and not options.allows_no_tools(visit.url),
            why_none=why_none,
        )
        if not tools:
            return
        static = await check_statically(visit, tools, tool_forms=probe.tool_forms > 0)
        col.extend(static)
        self._exerciser = Exerciser(
            visit,
            options,
            col,
            numbers=self._numbers,
            script_free=probe.scripts == 0,
            reported=static.findings,  # (so that exploring reports none of them again)
        )
        try:
            await self._exerciser.run(tools)
        finally:
            result.tools = [*result.tools, *self._exerciser.explored]

    def _unresponsive(self, message: str) -> None:
        """A page that stopped answering: one page-load finding, every other page check skipped."""
        self.col.add(ids.DISCOVERY_PAGE_LOAD, message)
        self.result.error = message
        for check_id in (*_PAGE_CHECKS[1:], *DISCOVERY_CHECKS):
            self.col.skip(check_id, "the page does not respond")
