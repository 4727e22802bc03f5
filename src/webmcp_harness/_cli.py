"""What the subcommands share: browser options, opening pages, printing, exit statuses."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlparse

import click
from rich.console import Console

from .errors import Error
from .session import DEFAULT_SETTLE, DEFAULT_TIMEOUT, EMPTY_WAIT, WebMCPSession

__all__ = [
    "BrowserOptions",
    "browser_options",
    "check_url",
    "demo_or",
    "err",
    "goto",
    "open_browser",
    "open_page",
    "options_from",
    "out",
    "print_json",
    "run",
    "settle_option",
]

T = TypeVar("T")
err = Console(stderr=True, highlight=False)
out = Console(highlight=False, soft_wrap=True)


@dataclass
class BrowserOptions:
    """How to get a browser and how long to wait; shared by every subcommand."""

    timeout: float = DEFAULT_TIMEOUT
    browser_path: str | None = None
    headed: bool = False
    connect: str | None = None
    cdp: str | None = None
    backend: str = "auto"
    webmcp: bool = True


def browser_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The options every subcommand shares."""
    options = [
        click.option(
            "--timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=DEFAULT_TIMEOUT,
            show_default=True,
            help="Seconds a tool call (and page load) may take.",
        ),
        click.option(
            "--browser-path",
            envvar="WEBMCP_BROWSER_PATH",
            help="Chromium to launch [env WEBMCP_BROWSER_PATH].",
        ),
        click.option("--headed", is_flag=True, help="Show the browser window."),
        click.option("--connect", metavar="WS_ENDPOINT", help="Use a Playwright browser server."),
        click.option("--cdp", metavar="URL", help="Use a running Chromium over CDP."),
        click.option(
            "--backend",
            type=click.Choice(["auto", "cdp", "inpage"]),
            default="auto",
            show_default=True,
            help="Which tool sources to use: all of them (auto), only the browser's native "
            "WebMCP (cdp), or only the page's script objects (inpage: polyfills, shims).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def settle_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """--settle SECONDS: how long the tool list must be quiet before it is read."""
    return click.option(
        "--settle",
        type=click.FloatRange(min=0),
        default=None,
        metavar="SECONDS",
        help=f"Read the tools once none has been added or removed for SECONDS (default "
        f"{DEFAULT_SETTLE:g}; while the page has none, up to {EMPTY_WAIT:g} s for a first one; "
        "never past --timeout). 0 reads at once.",
    )(func)


def options_from(kwargs: dict[str, Any]) -> BrowserOptions:
    if kwargs.get("connect") and kwargs.get("cdp"):
        raise click.UsageError("Give --connect or --cdp, not both.")
    return BrowserOptions(
        timeout=kwargs.pop("timeout"),
        browser_path=kwargs.pop("browser_path"),
        headed=kwargs.pop("headed"),
        connect=kwargs.pop("connect"),
        cdp=kwargs.pop("cdp"),
        backend=kwargs.pop("backend"),
    )


def check_url(url: str) -> str:
    """The URL, or a usage error saying why it can't be opened."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise click.BadParameter(
            f"{url!r} is not an http(s) URL. WebMCP needs a page served over https, or http on "
            "localhost/127.0.0.1 (not file:, data: or about:blank).",
            param_hint="URL",
        )
    return url


@contextlib.asynccontextmanager
async def open_browser(options: BrowserOptions) -> AsyncIterator[Any]:
    """A browser from the options: launched, or connected to."""
    from playwright.async_api import async_playwright

    from .browser import connect, launch

    async with async_playwright() as p:
        if options.connect or options.cdp:
            browser = await connect(p, ws_endpoint=options.connect, cdp_url=options.cdp)
        else:
            browser = await launch(
                p,
                browser_path=options.browser_path,
                headless=not options.headed,
                webmcp=options.webmcp,
            )
        try:
            yield browser
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close(), 10)


@contextlib.asynccontextmanager
async def open_page(url: str, options: BrowserOptions) -> AsyncIterator[WebMCPSession]:
    """A session on a new page at url (attached before navigating, so no tool is missed)."""
    async with open_browser(options) as browser:
        context = await browser.new_context()
        page = await context.new_page()
        session = await WebMCPSession.attach(
            page,
            timeout=options.timeout,
            backend=options.backend,  # type: ignore[arg-type]
        )
        try:
            await goto(page, url, options.timeout)
            yield session
        finally:
            await session.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(context.close(), 10)


async def goto(page: Any, url: str, timeout: float) -> None:
    """Open url, bounded; a page that never finishes loading is used as far as it got."""
    try:
        await page.goto(url, timeout=timeout * 1000, wait_until="load")
    except Exception as exc:
        message = str(exc).splitlines()[0]
        if "Timeout" in message and page.url != "about:blank":
            err.print(f"[yellow]warning:[/] {url} did not finish loading in {timeout:g} s")
            return
        raise Error(f"Could not open {url}: {message}") from exc


@contextlib.contextmanager
def demo_or(url: str | None) -> Any:
    """url, or the embedded demo shop served for the command's duration."""
    if url:
        yield check_url(url)
        return
    from .demo import serve_demo

    server = serve_demo()
    try:
        err.print(f"Using the demo shop at {server.url}")
        yield server.url
    finally:
        server.stop()


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a command's coroutine; harness errors become a message and exit status 2."""
    try:
        return asyncio.run(coro)
    except Error as exc:
        err.print(f"[red]error:[/] {exc.message}")
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


def print_json(data: Any) -> None:
    """Exactly one JSON document on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
    sys.stdout.flush()
