"""The check runner: visits pages (crawling if asked), runs every check family, builds a report.

The runner is thin: `Checker` is the crawl (`crawl.py`: which page next, on which browser), the
visit (`visit.py`: one page opened, looked at, closed) and the exercise (`exercise.py`: its
tools called and judged) put together, with the run and the checks of one page here.

One browser, or several (a grid: the pages are spread over them, and a browser that disconnects
mid-run has its pages checked again on another); `workers` pages at a time per browser, each
worker in its own browser context, page after page (`visit._Lane`). Everything that waits on
the page is bounded, so a hostile or broken page (one that never finishes loading, hangs a tool,
navigates away mid-call, crashes its renderer, registers 10,000 tools) ends as findings, never as
a hang or a crash of the checker.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.records import Tool
from . import ids
from .behaviour import (
    BEHAVIOUR_CHECKS,
)
from .crawl import Crawl, _origin
from .exercise import _CHUNK, Exercises, _key, _unresponsive
from .findings import Collector, excerpt
from .forms import (
    check_browser_form_issues,
)
from .metadata import DISCOVERY_CHECKS, check_discovery, check_tool_metadata
from .options import (
    _PAGE_CHECKS,
    CallMode,
    CheckOptions,
    ContextHook,
    Progress,
    ProgressCallback,
    _cancelled_from_outside,
    normalise_url,
)
from .reports import CheckReport, PageResult
from .safety import check_tool_safety
from .spool import PageSpool
from .visit import Visits, _Lane, _Visit, _went_well

if TYPE_CHECKING:
    from playwright.async_api import Browser

__all__ = [
    "BEHAVIOUR_CHECKS",
    "CallMode",
    "CheckOptions",
    "Checker",
    "Progress",
    "check_urls",
    "normalise_url",
]


class Checker(Crawl, Visits, Exercises):
    """Checks pages in one browser (or spread over several) and returns a CheckReport.

    With several browsers, `options.workers` pages run at once in each; names (their endpoints)
    say in the report which one disconnected. prepare_context is awaited with each new browser
    context before its page opens (to add cookies, routes or bindings). on_progress hears when
    pages start and finish. With stream, each page goes to disk as soon as it and the pages
    before it are done (CheckReport.spool), so memory stays flat however many pages there are.
    """

    def __init__(
        self,
        browser: Browser | Sequence[Browser],
        options: CheckOptions | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        prepare_context: ContextHook | None = None,
        names: Sequence[str] | None = None,
        stream: bool = False,
    ) -> None:
        browsers = list(browser) if isinstance(browser, Sequence) else [browser]
        if not browsers:
            raise ValueError("Checker needs at least one browser")
        self.browser = browsers[0]
        self.browsers = browsers
        self.names = list(names or ())
        self._retried = []
        self._nodes = []
        self.options = options or CheckOptions()
        self.on_progress = on_progress
        self.prepare_context = prepare_context
        self._ids = itertools.count(1)
        self._seen = set()
        self._order = []
        self._done = {}  # pages checked, until they are in the report
        self._finished = 0  # pages checked so far
        self._stream = stream
        self._report: CheckReport | None = None
        self._not_visited = set()  # pages over max_pages
        self._per_path = {}
        self._queue = None

    # -- the run ---------------------------------------------------------------------------
    async def run(self, urls: Sequence[str]) -> CheckReport:
        """Check urls (and, with crawl, the same-origin pages they link to)."""
        report = CheckReport(started=time.time(), options=self.options.to_dict())
        report.spool = PageSpool() if self._stream else None
        report.options["urls"] = list(urls)
        self._report = report
        self._queue = asyncio.Queue()
        for url in urls:
            self._enqueue(url, 0, seed=True)
        if len(self.browsers) == 1:
            workers = [
                asyncio.ensure_future(self._worker()) for _ in range(max(1, self.options.workers))
            ]
        else:
            workers = self._grid_workers()
        try:
            await self._queue.join()
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
        self._to_report(final=True)
        if self._not_visited:
            report.options["pagesNotVisited"] = len(self._not_visited)
        if len(self.browsers) > 1:
            report.options["browsers"] = len(self.browsers)
        if self._retried:
            report.options["retried"] = list(self._retried)
        report.ended = time.time()
        return report

    def _to_report(self, *, final: bool = False) -> None:
        """The checked pages into the report, in the order they were found (streaming: each
        as soon as the pages before it are done; else all at the end)."""
        report = self._report
        if report is None or not (final or self._stream):
            return
        while len(report.pages) + len(report.spool or ()) < len(self._order):
            key = self._order[len(report.pages) + len(report.spool or ())]
            visit = self._done.pop(key, None)
            if visit is None:
                if not final:
                    return
                # The checker failed on it (a bug): say so rather than drop it.
                visit = _Visit(key, 0, False, Collector(key), PageResult(url=key, calls=[]))
                visit.col.add(
                    ids.DISCOVERY_PAGE_LOAD,
                    "This page could not be checked (an error in the checker). Check it by hand, "
                    "or report this to webmcp-harness.",
                )
            report.add_page(visit.result, visit.col, visit.records, visit.ignored)

    # -- one page --------------------------------------------------------------------------
    async def check_page(
        self,
        url: str,
        *,
        depth: int = 0,
        seed: bool = True,
        browser: Browser | None = None,
        lane: _Lane | None = None,
    ) -> _Visit:
        """Every check on one page (in browser, else the first). Never raises for the page.
        With lane, the page opens in the lane's page and, when all went well, stays open there
        for the lane's next one; without, it gets a context of its own."""
        started = time.monotonic()
        visit = _Visit(url, depth, seed, Collector(url), PageResult(url=url, calls=[]))
        visit.browser = browser
        if lane is not None:
            visit.lane = lane
        try:
            await self._check_page(visit)
            await self._check_errors(visit)
        except (Exception, asyncio.CancelledError) as exc:  # trouble must not end the run
            if isinstance(exc, asyncio.CancelledError) and _cancelled_from_outside():
                raise
            first = str(exc).splitlines()[0] if str(exc) else ""
            message = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
            visit.col.add(
                ids.DISCOVERY_PAGE_LOAD,
                f"The check of this page stopped early: {excerpt(message, 300)}. The findings "
                "before that stand; check the page by hand, or report this to webmcp-harness.",
            )
            visit.result.error = visit.result.error or message[:1_000]
        finally:
            await self._close(visit, keep=lane is not None and _went_well(visit))
            visit.result.elapsed = time.monotonic() - started
            visit.result.calls = [r.id for r in visit.records]
            if self.options.pages is not None:
                visit.ignored = self.options.pages.ignore(visit.col)
        return visit

    async def _check_page(self, visit: _Visit) -> None:
        col = visit.col
        col.ran_all(_PAGE_CHECKS)
        problem, fatal = await self._open(visit)
        visit.settled = visit.navigations
        if problem:
            col.add(ids.DISCOVERY_PAGE_LOAD, problem)
            visit.result.error = problem
        if fatal:
            for check_id in (*_PAGE_CHECKS[1:], *DISCOVERY_CHECKS):
                col.skip(check_id, "the page did not load")
            return
        landed = visit.page.url if visit.page is not None else visit.url
        if _origin(landed) != _origin(visit.url):
            why = (
                f"the page went to another origin ({excerpt(landed, 120)}): only "
                f"{_origin(visit.url)[0]}://{_origin(visit.url)[1]} is checked"
            )
            visit.result.error = f"skipped: {why}"
            col.skip_instead((*_PAGE_CHECKS, *DISCOVERY_CHECKS), why)
            return
        probe = await self._probe(visit)
        if probe is None:
            col.findings[:] = [f for f in col.findings if f.check != ids.DISCOVERY_PAGE_LOAD]
            message = (
                f"The page did not answer a simple script within {self.wait:g} s (its main "
                "thread is busy or it crashed), so nothing else could be checked. Keep the main "
                "thread free: move long work off it or split it up."
            )
            _unresponsive(col, visit, message)
            return
        visit.result.title = probe["title"]
        visit.links, visit.followed = probe["links"], 0  # (those already followed: seen)
        self._follow(visit)
        await self._screenshot(visit)
        assert visit.session is not None
        listed = await self._tools(visit, settle=self.options.settle or None)  # (as _settle)
        if listed is None:
            message = (
                f"The page's tools could not be listed within {self.wait:g} s (the page stopped "
                "responding), so nothing else could be checked."
            )
            _unresponsive(col, visit, message)
            return
        tools = visit.result.tools = listed
        secure, has_context = probe["secure"], probe["modelContext"]
        if not secure:
            col.add(
                ids.DISCOVERY_SECURE_CONTEXT,
                "The page is not a secure context, so browsers do not give it "
                "document.modelContext and agents cannot see its tools. Serve it over https (or "
                "http on localhost while developing).",
            )
        visit.script_free = probe["scripts"] == 0
        if not has_context and not tools:
            if secure and not probe["api"]:
                col.add(
                    ids.DISCOVERY_MODEL_CONTEXT,
                    "This browser has no WebMCP (no ModelContext interface: the WebMCP feature "
                    "flag is off), so the page cannot register tools. Run Chromium 146+ with "
                    "--enable-features=WebMCP, or load a polyfill before your tool scripts.",
                )
            elif secure:
                col.add(
                    ids.DISCOVERY_MODEL_CONTEXT,
                    "document.modelContext is not there, so the page cannot register tools. Use a "
                    "browser with WebMCP (Chromium 146+ with the WebMCP feature), or load a "
                    "polyfill before your tool scripts; make sure no script hides it.",
                )
            else:
                col.skip(ids.DISCOVERY_MODEL_CONTEXT, "not a secure context")
            for check_id in DISCOVERY_CHECKS:
                col.skip(check_id, "no document.modelContext")
            return
        crashed = [e for e in visit.errors if e.during is None]
        why_none = None
        if crashed:
            first = crashed[0]
            why_none = (
                f"its script threw while loading ({excerpt(f'{first.name}: {first.message}', 120)})"
                ", which may have stopped it before it registered them"
            )
        check_discovery(
            tools,
            page=visit.url,
            out=col,
            expect_tools=visit.seed and not self._allows_no_tools(visit.url),
            why_none=why_none,
        )
        if not tools:
            return
        static = await self._static_checks(visit, tools, tool_forms=probe["toolForms"] > 0)
        for finding in static.findings:  # (so that exploring reports none of them again)
            visit.reported.add(_key(finding))
        col.extend(static)
        await self._check_behaviour(visit, tools)

    def _allows_no_tools(self, url: str) -> bool:
        pages = self.options.pages
        return self.options.allow_no_tools or (pages is not None and pages.allows_no_tools(url))

    async def _static_checks(
        self, visit: _Visit, tools: list[Tool], *, tool_forms: bool, explored: bool = False
    ) -> Collector:
        """The checks that call nothing: metadata, safety, and declarative forms (with Chromium's
        own issues with them when there are tool forms); explored: tools a call made appear."""
        static = Collector(visit.url)
        for index, tool in enumerate(tools):
            check_tool_metadata(tool, page=visit.url, out=static)
            check_tool_safety(tool, page=visit.url, out=static)
            if index % _CHUNK == _CHUNK - 1:
                await asyncio.sleep(0)  # let other pages' events and timers through
        forms = Collector(visit.url)
        await self._check_forms(visit, tools, forms)
        if tool_forms:
            check_browser_form_issues(await self._form_issues(visit), page=visit.url, out=forms)
        elif not explored:
            forms.skip(ids.FORM_BROWSER_ISSUES, "no <form toolname> or <form tooldescription>")
        # A form control without a description is one problem: report it where it is fixed
        # (the control's label), not also as an undescribed schema property.
        by_form = {
            (f.tool, f.frame) for f in forms.findings if f.check == ids.FORM_PARAMS_DESCRIBED
        }
        static.findings[:] = [
            f
            for f in static.findings
            if f.check != ids.METADATA_PARAMS_DESCRIBED or (f.tool, f.frame) not in by_form
        ]
        static.extend(forms)
        return static


async def check_urls(
    browser: Browser | Sequence[Browser],
    urls: Sequence[str],
    options: CheckOptions | None = None,
    *,
    on_progress: ProgressCallback | None = None,
    prepare_context: ContextHook | None = None,
    names: Sequence[str] | None = None,
    stream: bool = False,
) -> CheckReport:
    """Check urls in browser (or spread over several browsers) and return the report (Checker;
    with stream, the pages are on disk: CheckReport.spool)."""
    checker = Checker(
        browser,
        options,
        on_progress=on_progress,
        prepare_context=prepare_context,
        names=names,
        stream=stream,
    )
    return await checker.run(urls)
