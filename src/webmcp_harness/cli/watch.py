"""``webmcp-harness watch URL``: record every tool call anyone makes on a page, as a transcript.

It opens URL (``--headed`` for a person to use it), or with ``--cdp`` finds the tab at URL in a
browser someone is already using (opening it there when no tab shows it), and prints each call
the browser reports, whoever made it: the browser's own agent, an MCP client through ``serve``,
an extension. Each call is written, as it ends, to a transcript ``replay`` runs again. It ends on
Ctrl-C or SIGTERM, after ``--duration`` seconds, or when the page or browser goes away.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.markup import escape

from ..agent.transcript import TranscriptWriter
from ..agent.watching import WatchResult, watch_page
from ..core.records import CallRecord
from ..core.results import first_text
from ..core.text import dumps
from .common import (
    BrowserOptions,
    browser_options,
    check_url,
    err,
    fail,
    goto,
    options_from,
    out,
    run,
)
from .text import markup

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

__all__ = ["watch"]

_SHOWN = 200  # characters of an input or answer shown on a call's line


@click.command("watch")
@click.argument("url")
@click.option(
    "--transcript",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the calls here (default: webmcp-watch-<time>.jsonl); `replay` runs it again.",
)
@click.option(
    "--duration",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Stop after this long (default: until Ctrl-C, or the page or browser goes away).",
)
@browser_options
def watch(url: str, transcript: Path | None, duration: float | None, **kwargs: Any) -> None:
    """Record every tool call anyone makes on the page at URL, and write it as a transcript."""
    check_url(url)
    options = options_from(kwargs)
    path = transcript or Path(time.strftime("webmcp-watch-%Y%m%d-%H%M%S.jsonl"))
    try:
        writer = TranscriptWriter(path)
    except OSError as exc:
        fail(f"can't write the transcript {str(path)!r}: {exc.strerror or exc}")
        return
    try:
        writer.run(
            script="webmcp-harness watch",
            url=url,
            owner={"name": "", "instructions": ""},
            timeout=options.timeout,
            watched=True,
        )
        result = run(_watch(url, options, writer, duration))
    finally:
        writer.close()
    err.print(
        f"{len(result.calls)} call(s) seen; the watch ended: {escape(result.ended_by)}. "
        f"transcript: {markup(str(path))}",
        soft_wrap=True,
    )


async def _watch(
    url: str, options: BrowserOptions, writer: TranscriptWriter, duration: float | None
) -> WatchResult:
    from ..session import WebMCPSession
    from .common import open_browser

    watching = False
    try:
        async with open_browser(options) as browser:
            page, ours = await _the_page(browser, url)
            try:
                session = await WebMCPSession.attach(
                    page, timeout=options.timeout, backend=options.backend
                )
                if ours:
                    await goto(page, url, options.timeout)
                err.print(
                    f"Watching {markup(page.url)}: each tool call is printed as it ends. "
                    "Ctrl-C stops.",
                    soft_wrap=True,
                )
                watching = True  # from here on, watch_page writes the transcript's end
                return await watch_page(
                    session,
                    writer,
                    _stopped(duration),
                    on_invoked=_print_invoked,
                    on_responded=_print_responded,
                    on_open=lambda where: err.print(f"page: {markup(where)}", soft_wrap=True),
                )
            finally:
                if ours:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(page.context.close(), 10)
    except BaseException as exc:
        if not watching:  # the browser or page could not be reached: the transcript still ends
            writer.end(passed=False, ran=0, calls=0, endedBy=f"error: {exc}")
        raise


async def _the_page(browser: Browser, url: str) -> tuple[Page, bool]:
    """The tab already at url in a browser someone uses (and False), else a new page of our own
    (and True) that the caller opens url in once it is attached."""
    for context in browser.contexts:
        for page in context.pages:
            if page.url == url or page.url.rstrip("/") == url.rstrip("/"):
                return page, False
    context = await browser.new_context()
    return await context.new_page(), True


async def _stopped(duration: float | None) -> None:
    """Resolves on Ctrl-C, SIGTERM, or after duration seconds."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    signals = [signal.SIGINT, signal.SIGTERM] if sys.platform != "win32" else []
    for sig in signals:
        loop.add_signal_handler(sig, stop.set)
    try:
        if duration is None:
            await stop.wait()
        else:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), duration)
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)


def _short(value: object) -> str:
    """value as JSON on one line (a page's text too: its new lines can't fake a call's line)."""
    shown = dumps(value)
    return shown if len(shown) <= _SHOWN else shown[: _SHOWN - 1] + "…"


def _where(record: CallRecord) -> str:
    return f" in {markup(record.frame_url)}" if record.frame_url else ""


def _print_invoked(record: CallRecord) -> None:
    out.print(
        f"#{record.shown_number} {markup(record.tool)} {markup(_short(record.input))}"
        f"{_where(record)}",
        soft_wrap=True,
    )


def _print_responded(record: CallRecord) -> None:
    code = record.code
    status = f"[red]{code.value}[/]" if code else "[green]ok[/]"
    ms = record.timings.get("totalMs", 0.0)
    said = first_text(record.result) if record.result else ""
    out.print(
        f"#{record.shown_number} {markup(record.tool)}: {status} in {ms:.0f} ms"
        f"{': ' + markup(_short(said)) if said else ''}",
        soft_wrap=True,
    )
