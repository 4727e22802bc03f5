"""The check runner: `Checker` checks pages (crawling if asked) and builds the report.

The checker is thin: it owns the report, and composes the parts that do the work, each with
one job: the crawl (`crawl.py`: the frontier of pages to check, the workers on one browser or
a grid, each in its lane), the check of one page (`page.py`), the page's visit (`visit.py`:
the page opened, probed, read and closed), the checks that call nothing (`static.py`) and the
exercise of its tools (`exercise.py`: called, judged, the page restored).

Everything that waits on the page is bounded, so a hostile or broken page (one that never
finishes loading, hangs a tool, navigates away mid-call, crashes its renderer, registers 10,000
tools) ends as findings, never as a hang or a crash of the checker.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .behaviour import BEHAVIOUR_CHECKS
from .crawl import BrowserSource, Crawl
from .options import CallMode, CheckOptions, ContextHook, Progress, ProgressCallback, normalise_url
from .page import PageCheck, PageJob, PageOutcome
from .reports import CheckReport, PageSpool

if TYPE_CHECKING:
    from playwright.async_api import Browser

__all__ = [
    "BEHAVIOUR_CHECKS",
    "CallMode",
    "CheckOptions",
    "Checker",
    "PageOutcome",
    "Progress",
    "check_urls",
    "normalise_url",
]


class Checker:
    """Checks pages in one browser (or spread over several) and returns a CheckReport.

    With several browsers, `options.workers` pages run at once in each; names (their endpoints)
    say in the report which one disconnected. prepare_context is awaited with each new browser
    context before its page opens (to add cookies, routes or bindings). on_progress hears when
    pages start and finish. With stream, each page goes to disk as soon as it and the pages
    before it are done (CheckReport.spool), so memory stays flat however many pages there are.
    With sessions (a Selenium Grid's), more browsers join as they come, and one that is lost is
    replaced when the source can.
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
        sessions: BrowserSource | None = None,
    ) -> None:
        browsers = list(browser) if isinstance(browser, Sequence) else [browser]
        if not browsers:
            raise ValueError("Checker needs at least one browser")
        self.browser = browsers[0]
        self.browsers = browsers
        self.names = list(names or ())
        self.options = options or CheckOptions()
        self.on_progress = on_progress
        self.prepare_context = prepare_context
        self._stream = stream
        self._sessions = sessions
        self._numbers = itertools.count(1)  # of the calls, across the report's pages

    async def run(self, urls: Sequence[str]) -> CheckReport:
        """Check urls (and, with crawl, the same-origin pages they link to)."""
        report = CheckReport(started=time.time(), options=self.options.to_dict())
        report.spool = PageSpool() if self._stream else None
        report.options["urls"] = list(urls)
        crawl = Crawl(
            self.browsers,
            self.options,
            numbers=self._numbers,
            names=self.names,
            on_progress=self.on_progress,
            prepare_context=self.prepare_context,
            sessions=self._sessions,
        )
        done: dict[str, PageOutcome] = {}  # pages checked, until they are in the report
        async with contextlib.aclosing(crawl.pages(urls)) as pages:
            async for outcome in pages:
                done[outcome.url] = outcome
                if self._stream:
                    self._to_report(report, crawl.found, done)
        self._to_report(report, crawl.found, done, final=True)
        if crawl.frontier.not_visited:
            report.options["pagesNotVisited"] = len(crawl.frontier.not_visited)
        if crawl.browser_count > 1:
            report.options["browsers"] = crawl.browser_count
        if crawl.retried:
            report.options["retried"] = list(crawl.retried)
        report.ended = time.time()
        return report

    @staticmethod
    def _to_report(
        report: CheckReport,
        found: Sequence[str],
        done: dict[str, PageOutcome],
        *,
        final: bool = False,
    ) -> None:
        """The checked pages into the report, in the order they were found, as far as they are
        done (final: all of them)."""
        while len(report.pages) + len(report.spool or ()) < len(found):
            key = found[len(report.pages) + len(report.spool or ())]
            outcome = done.pop(key, None)
            if outcome is None:
                if not final:
                    return
                # The checker failed on it (a bug): say so rather than drop it.
                outcome = PageOutcome.not_checked(
                    key,
                    "This page could not be checked (an error in the checker). Check it by hand, "
                    "or report this to webmcp-harness.",
                )
            report.add_page(outcome.result, outcome.col, outcome.records, outcome.ignored)

    async def check_page(
        self, url: str, *, depth: int = 0, seed: bool = True, browser: Browser | None = None
    ) -> PageOutcome:
        """Every check on one page, in a context of its own (in browser, else the first).
        Never raises for the page."""
        job = PageJob(url, browser or self.browser, depth, seed)
        check = PageCheck(
            job, self.options, numbers=self._numbers, prepare_context=self.prepare_context
        )
        return await check.run()


async def check_urls(
    browser: Browser | Sequence[Browser],
    urls: Sequence[str],
    options: CheckOptions | None = None,
    *,
    on_progress: ProgressCallback | None = None,
    prepare_context: ContextHook | None = None,
    names: Sequence[str] | None = None,
    stream: bool = False,
    sessions: BrowserSource | None = None,
) -> CheckReport:
    """Check urls in browser (or spread over several browsers, and those sessions brings) and
    return the report (Checker; with stream, the pages are on disk: CheckReport.spool)."""
    checker = Checker(
        browser,
        options,
        on_progress=on_progress,
        prepare_context=prepare_context,
        names=names,
        stream=stream,
        sessions=sessions,
    )
    return await checker.run(urls)
