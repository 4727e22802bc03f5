"""`webmcp-harness check`: are a site's WebMCP tools right, and can agents use them?"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from . import common

if TYPE_CHECKING:
    from ..conformance.config import PageConfig
    from ..conformance.reports import CheckReport
    from ..conformance.runner import CallMode, CheckOptions, Progress

__all__ = ["check"]

DEMO_CRAWL = 2  # with no URL: the demo shop, crawled this deep...
DEMO_PER_PATH = 1  # ...one page per path (its product pages all offer the same tools)
# Each worker's context is a renderer process: past the CPUs + 1, they only wait for each other
# (2 cores: 3 workers checked the demo in 0.83x the time of 4, and a 20-page crawl in 0.94x).
DEFAULT_WORKERS = min(4, (os.cpu_count() or 1) + 1)
# The checking code: loaded in a thread while the browser starts (a quarter of a bare check's
# start-up otherwise), after the main thread has loaded what starting the browser runs.
_CHECKER = (
    "webmcp_harness.conformance.runner",
    "webmcp_harness.conformance.reports",
    "webmcp_harness.cli.summary",
)


def _load_checker() -> None:
    for name in _CHECKER:
        importlib.import_module(name)


class _Display:
    """Progress while pages are checked: a live bar on a terminal, else a line per page."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.live = console.is_terminal
        self.bar: RichProgress | None = None
        self.task: Any = None
        self.running: list[str] = []  # pages being checked, oldest first
        if self.live:
            self.bar = RichProgress(
                TextColumn("checking"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.description}"),
                console=console,
                transient=True,
            )
            self.task = self.bar.add_task("", total=1)

    def __enter__(self) -> _Display:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, event: Progress) -> None:
        url = cli_url(event.url)
        if event.event == "start":
            self.running.append(url)
        elif url in self.running:
            self.running.remove(url)
        if self.bar is not None:
            shown = self.running[-1] if self.running else ""
            more = f" (+{len(self.running) - 1})" if len(self.running) > 1 else ""
            self.bar.update(
                self.task,
                total=max(event.total, 1),
                completed=event.done,
                description=escape(shown + more),
            )
            return
        if event.event == "done" and event.page is not None:
            page = event.page
            self.console.print(
                f"[{event.done}/{event.total}] {url}: {len(page.tools)} tools, "
                f"{event.errors} errors, {event.warnings} warnings ({page.elapsed:.1f} s)",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )


def _summary_console(stderr: bool) -> Console:
    """Where the summary goes: stdout (stderr when stdout carries the JSON), as wide as the terminal
    (or $COLUMNS; 80 when neither says)."""
    return Console(stderr=stderr, highlight=False)


def cli_url(url: str, limit: int = 100) -> str:
    """A URL for one terminal line."""
    flat = "".join(c if c.isprintable() else "?" for c in url)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@click.command()
@click.argument("urls", nargs=-1, metavar="[URL ...]")
@click.option(
    "--crawl",
    type=click.IntRange(min=0),
    default=None,
    metavar="DEPTH",
    help=f"Follow same-origin links up to DEPTH steps from each URL [default: 0; the demo: "
    f"{DEMO_CRAWL}].",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 32),
    default=DEFAULT_WORKERS,
    help="Pages checked at once in each browser (a context each, page after page; with "
    "--selenium-grid: sessions of the grid, a page at a time in each) [default: 4, or the "
    f"CPUs + 1 if that is fewer: {DEFAULT_WORKERS} here].",
)
@click.option(
    "--call",
    "call_mode",
    type=click.Choice(["readonly", "all", "none"]),
    default="readonly",
    show_default=True,
    help="Which tools the behaviour checks call: those marked readOnlyHint, all of them "
    "(side effects! only on a site you may change), or none.",
)
@click.option(
    "--explore",
    type=click.IntRange(0, 5),
    default=1,
    show_default=True,
    metavar="N",
    help="Check the tools a call makes appear too, up to N calls deep (0: only the first list).",
)
@click.option(
    "--allow-no-tools",
    is_flag=True,
    help="A page without tools is fine (for pages meant to have none); else it is an error.",
)
@click.option(
    "--config",
    "config_path",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Per-URL rules (TOML [[page]] entries: path or url glob; allow-no-tools, ignore).",
)
@click.option("--strict", is_flag=True, help="Warnings fail the run too.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the JSON report on stdout (the summary: stderr)."
)
@click.option("--json-report", "json_path", metavar="PATH", help="Write the JSON report to PATH.")
@click.option("--junit", "junit_path", metavar="PATH", help="Write a JUnit XML report.")
@click.option(
    "--html", "html_path", metavar="PATH", help="Write an HTML report (with screenshots)."
)
@click.option(
    "--max-pages",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Check at most this many pages, crawl included.",
)
@click.option(
    "--max-per-path",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help=f"Crawl at most N pages per path (URLs that differ only in the query) [default: no "
    f"limit; the demo: {DEMO_PER_PATH}].",
)
@common.settle_option
@common.grid_browser_options
def check(
    urls: tuple[str, ...],
    crawl: int | None,
    workers: int,
    call_mode: CallMode,
    explore: int,
    allow_no_tools: bool,
    config_path: str | None,
    strict: bool,
    as_json: bool,
    json_path: str | None,
    junit_path: str | None,
    html_path: str | None,
    max_pages: int,
    max_per_path: int | None,
    settle: float | None,
    **kwargs: Any,
) -> None:
    """Check the WebMCP tools of the pages at URL (none: the demo shop) and report findings.

    Exit status: 0 when no error was found (with --strict: no warning either), 1 when one was,
    2 for a usage error, 3 when the browser or the page could not be reached.
    With --connect given several times (or --connect-file), the pages are spread over all those
    browser servers; a page whose browser disconnects is checked again on another one. With
    --selenium-grid, over --workers sessions of the grid, as it gives them.
    """
    endpoints = common.endpoints_from(kwargs)
    browser = common.options_from(kwargs)
    for url in urls:
        common.check_url(url)
    json_path = common.output_path(json_path, "--json-report")
    junit_path = common.output_path(junit_path, "--junit")
    html_path = common.output_path(html_path, "--html")
    pages = _config(config_path)
    demo = not urls

    def make_options() -> CheckOptions:
        """The run's options, made once the checking code has loaded."""
        from ..conformance.runner import CheckOptions

        return CheckOptions(
            timeout=browser.timeout,
            call=call_mode,
            explore=explore,
            allow_no_tools=allow_no_tools,
            pages=pages,
            crawl=crawl if crawl is not None else (DEMO_CRAWL if demo else 0),
            workers=1 if browser.grid is not None else workers,  # a grid: a session a worker
            strict=strict,
            max_pages=max_pages,
            max_per_path=max_per_path if max_per_path is not None or not demo else DEMO_PER_PATH,
            backend=browser.backend,
            screenshots=html_path is not None,
            settle=settle,
            downloads=browser.downloads,
        )

    summary_console = _summary_console(stderr=as_json)

    async def body(targets: list[str]) -> CheckReport:
        common.load_browser_code()
        loading = asyncio.get_running_loop().run_in_executor(None, _load_checker)

        async def check_in(opened: Any, **grid: Any) -> CheckReport:
            await loading
            from ..conformance.runner import check_urls

            return await check_urls(
                opened, targets, make_options(), on_progress=display, stream=True, **grid
            )

        with _Display(common.err) as display:
            if browser.grid is not None:
                from playwright.async_api import async_playwright

                from .common import grid_sessions

                async with (
                    async_playwright() as p,
                    grid_sessions(p, browser, workers) as (first, name, sessions),
                ):
                    return await check_in([first], names=[name], sessions=sessions)
            if len(endpoints) > 1:
                async with common.open_browsers(browser, endpoints) as browsers:
                    return await check_in(browsers, names=endpoints)
            async with common.open_browser(browser) as opened:
                return await check_in(opened)

    with common.demo_or(None if demo else urls[0]) as first:
        targets = [first.rstrip("/") + "/"] if demo else list(urls)
        report = common.run(body(targets))
    from ..conformance.reports import write_html, write_json, write_junit
    from .summary import print_summary

    if demo:
        report.options["demo"] = True
    try:
        if as_json:
            write_json(report, sys.stdout)
            sys.stdout.flush()
        if json_path:
            write_json(report, json_path)
        if junit_path:
            write_junit(report, junit_path, strict=strict)
        if html_path:
            write_html(report, html_path, strict=strict)
    except OSError as exc:
        common.fail(f"could not write a report: {exc}")
    print_summary(report, summary_console, strict=strict)
    for label, path in (("JSON", json_path), ("JUnit", junit_path), ("HTML", html_path)):
        if path:
            common.err.print(f"{label} report: {escape(path)}", highlight=False)
    sys.exit(_exit_status(report, strict))


def _config(path: str | None) -> PageConfig | None:
    """The --config file's page rules (a usage error, before anything starts, if it is wrong)."""
    if path is None:
        return None
    from ..conformance.config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as exc:
        common.fail(f"--config {exc.message}")
        raise  # unreachable: fail exits


def _exit_status(report: CheckReport, strict: bool) -> int:
    """The report's status, or EXIT_UNREACHABLE when not one page could be opened."""
    errors = [bool(page.error) for page in report.iter_pages()]
    if errors and all(errors):
        return common.EXIT_UNREACHABLE
    return report.exit_code(strict)
