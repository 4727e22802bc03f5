"""What the subcommands share: browser options, opening pages, printing, exit statuses."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Final, TypeVar
from urllib.parse import urlparse

import click
from rich.console import Console

from ._text import markup, safe_text, write_json
from .errors import Error
from .session import DEFAULT_TIMEOUT, WebMCPSession

__all__ = [
    "MAX_TIMEOUT",
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
    "parse_json_args",
    "print_json",
    "run",
]

T = TypeVar("T")
err = Console(stderr=True, highlight=False, emoji=False)
out = Console(highlight=False, soft_wrap=True, emoji=False)

MAX_TIMEOUT: Final = 3600.0
"""The longest --timeout, in seconds (an hour)."""
MAX_ARGS_BYTES: Final = 10_000_000
"""The largest JSON_ARGS, in bytes."""


class _Timeout(click.ParamType[float, Any]):
    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{safe_text(value)!r} is not a number of seconds.", param, ctx)
        if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT:
            self.fail(
                f"{safe_text(value)!r} is not a number of seconds above 0 and at most "
                f"{MAX_TIMEOUT:g}.",
                param,
                ctx,
            )
        return seconds


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
            type=_Timeout(),
            default=DEFAULT_TIMEOUT,
            show_default=True,
            help=f"Seconds a tool call (and page load) may take (at most {MAX_TIMEOUT:g}).",
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
            help="How calls reach the page: native WebMCP (cdp) or page script (inpage, polyfills).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


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
            f"{safe_text(url)!r} is not an http(s) URL. WebMCP needs a page served over https, or http on "
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
            err.print(f"[yellow]warning:[/] {markup(url)} did not finish loading in {timeout:g} s")
            return
        raise Error(f"Could not open {safe_text(url)}: {safe_text(message)}") from exc


@contextlib.contextmanager
def demo_or(url: str | None) -> Any:
    """url, or the embedded demo shop served for the command's duration."""
    if url:
        yield check_url(url)
        return
    from .demo import serve_demo

    server = serve_demo()
    try:
        err.print(f"Using the demo shop at {markup(server.url)}")
        yield server.url
    finally:
        server.stop()


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a command's coroutine; harness errors become a message and exit status 2."""
    try:
        return asyncio.run(coro)
    except Error as exc:
        err.print(f"[red]error:[/] {markup(exc.message)}")
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


def print_json(data: Any) -> None:
    """Exactly one JSON document on stdout: always valid JSON, safe on a terminal."""
    write_json(data, sys.stdout)


def parse_json_args(text: str, param_hint: str = "JSON_ARGS") -> dict[str, Any]:
    """JSON_ARGS as an object, or a usage error: not JSON, too big or deep, NaN or Infinity."""
    from .schema import args_problem

    if len(text) > MAX_ARGS_BYTES:
        raise click.BadParameter(
            f"is longer than {MAX_ARGS_BYTES} characters.", param_hint=param_hint
        )

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number; give a finite number")

    try:
        args = json.loads(text, parse_constant=no_constant)
    except RecursionError:
        raise click.BadParameter("nests too deep.", param_hint=param_hint) from None
    except ValueError as exc:
        raise click.BadParameter(
            f"not valid JSON: {safe_text(exc)}", param_hint=param_hint
        ) from None
    if not isinstance(args, dict):
        raise click.BadParameter(
            'must be a JSON object, like \'{"q": "tea"}\'', param_hint=param_hint
        )
    problem = args_problem(args)
    if problem is not None:
        raise click.BadParameter(problem.removeprefix("arguments ") + ".", param_hint=param_hint)
    return args
