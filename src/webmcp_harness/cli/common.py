"""What the subcommands share: browser options, opening pages, printing, exit statuses.

Exit statuses, the same in every command: ``EXIT_OK`` (0) the command did its job,
``EXIT_FAILED`` (1) checks or expectations failed, ``EXIT_USAGE`` (2) the command line, a script
or a report path was wrong, ``EXIT_UNREACHABLE`` (3) the browser or the page could not be
reached (no browser, it did not start, the page did not load, the page went away).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar
from urllib.parse import urlparse

import click
from rich.console import Console

from ..core.errors import Error, UsageError, WebMCPUnavailableError
from ..core.records import BACKEND_CHOICES, BackendChoice
from ..core.text import safe_text, write_json
from ..core.timeouts import DEFAULT_TIMEOUT, MAX_TIMEOUT
from ..session.limits import DEFAULT_SETTLE, EMPTY_WAIT, HORIZON, SETTLE_MAX
from ..session.selenium import CAPABILITIES_ENV, GRID_ENV
from .text import cell, markup

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

    from ..agent.transcript import TranscriptWriter
    from ..session import WebMCPSession
    from ..session.selenium import GridSessions, SeleniumGrid

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNREACHABLE",
    "EXIT_USAGE",
    "BrowserOptions",
    "Seconds",
    "browser_options",
    "cache_folder",
    "cell",
    "check_url",
    "demo_or",
    "err",
    "fail",
    "goto",
    "open_browser",
    "open_page",
    "options_from",
    "out",
    "parse_json_args",
    "print_json",
    "run",
    "settle_option",
    "use_node_compile_cache",
]

T = TypeVar("T")
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
err = Console(stderr=True, highlight=False, emoji=False)
out = Console(highlight=False, soft_wrap=True, emoji=False)

"""The longest --timeout, in seconds (an hour)."""
MAX_ARGS_BYTES: Final = 10_000_000
"""The largest JSON_ARGS, in bytes."""


@dataclass
class BrowserOptions:
    """How to get a browser and how long to wait; shared by every subcommand."""

    timeout: float = DEFAULT_TIMEOUT
    browser_path: str | None = None
    headed: bool = False
    connect: str | None = None
    cdp: str | None = None
    backend: BackendChoice = "auto"
    webmcp: bool = True
    browser_path_source: str = "--browser-path"
    grid: SeleniumGrid | None = None  # --selenium-grid: a Selenium Grid 4's Chromium
    downloads: bool = False  # --downloads: let pages download (denied by default)


class Seconds(click.ParamType[float]):
    """A number of seconds, more than 0 and at most MAX_TIMEOUT (``--timeout 10``)."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        option = param.opts[0] if param is not None and param.opts else "the option"
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(
                f"{safe_text(value)!r} is not a number of seconds; give one like {option} 10.",
                param,
                ctx,
            )
        if not (math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT):
            self.fail(
                f"must be more than 0 and at most {MAX_TIMEOUT:g} seconds, like {option} 10; "
                f"got {safe_text(value)!r}.",
                param,
                ctx,
            )
        return seconds


def browser_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The options every subcommand shares."""
    return _browser_options(func, many=False)


def grid_browser_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The shared options, with --connect repeatable and --connect-file (see endpoints_from)."""
    return _browser_options(func, many=True)


def _browser_options(func: Callable[..., Any], *, many: bool) -> Callable[..., Any]:
    connect = click.option(
        "--connect", metavar="WS_ENDPOINT", help="Use a Playwright browser server."
    )
    if many:
        connect = click.option(
            "--connect",
            metavar="WS_ENDPOINT",
            multiple=True,
            help="Use a Playwright browser server; give it again for more (pages are spread "
            "over all of them).",
        )
    options = [
        click.option(
            "--timeout",
            type=Seconds(),
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
        connect,
        *(
            [
                click.option(
                    "--connect-file",
                    type=click.Path(exists=True, dir_okay=False),
                    metavar="PATH",
                    help="Browser servers to use, one WS_ENDPOINT a line (# starts a comment).",
                )
            ]
            if many
            else []
        ),
        click.option("--cdp", metavar="URL", help="Use a running Chromium over CDP."),
        *selenium_options(),
        click.option(
            "--backend",
            type=click.Choice(BACKEND_CHOICES),
            default="auto",
            show_default=True,
            help="Which tool sources to use: all of them (auto), only the browser's native "
            "WebMCP (cdp), or only the page's script objects (inpage: polyfills, shims).",
        ),
        click.option(
            "--downloads",
            is_flag=True,
            help="Let pages download files (denied by default, so a page's tools cannot fill "
            "the disk).",
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
        help="Read the tools once none has been added or removed for SECONDS. Default: as a "
        f"browser auditor, once no tool changed, no request was in flight and no timer of up to "
        f"{HORIZON:g} s was pending for {DEFAULT_SETTLE:g} s, at most {SETTLE_MAX:g} s; while the "
        f"page has none, up to {EMPTY_WAIT:g} s for a first one; never past --timeout. 0 reads "
        "at once.",
    )(func)


def endpoints_from(kwargs: dict[str, Any]) -> list[str]:
    """The browser servers of repeated --connect and --connect-file, in order, each once.

    Leaves the first as kwargs["connect"], for options_from.
    """
    endpoints = list(kwargs.get("connect") or ())
    path = kwargs.pop("connect_file", None)
    if path:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                endpoints.append(line)
        if not endpoints:
            raise click.BadParameter(f"{path!r} names no endpoint.", param_hint="--connect-file")
    for endpoint in endpoints:
        if not endpoint.startswith(("ws://", "wss://")):
            raise click.BadParameter(
                f"{safe_text(endpoint)!r} is not a ws:// or wss:// endpoint; give the one the "
                "browser server printed.",
                param_hint="--connect",
            )
    unique = list(dict.fromkeys(endpoints))
    kwargs["connect"] = unique[0] if unique else None
    return unique


def options_from(kwargs: dict[str, Any]) -> BrowserOptions:
    if kwargs.get("connect") and kwargs.get("cdp"):
        raise click.UsageError("Give --connect or --cdp, not both.")
    ctx = click.get_current_context(silent=True)
    source = ctx.get_parameter_source("browser_path") if ctx is not None else None
    from_env = source is not None and source.name == "ENVIRONMENT"
    options = BrowserOptions(
        browser_path_source="WEBMCP_BROWSER_PATH" if from_env else "--browser-path",
        timeout=kwargs.pop("timeout"),
        browser_path=kwargs.pop("browser_path"),
        headed=kwargs.pop("headed"),
        connect=kwargs.pop("connect"),
        cdp=kwargs.pop("cdp"),
        backend=kwargs.pop("backend"),
        downloads=kwargs.pop("downloads", False),
    )
    options.grid = grid_from(kwargs, options)
    return options


def check_url(url: str, param_hint: str = "URL") -> str:
    """The URL, or a usage error saying why it can't be opened and what to do."""
    try:
        parsed = urlparse(url)
    except ValueError as exc:
        raise click.BadParameter(
            f"{safe_text(url)!r} is not a URL ({exc}). Give a page's address, such as "
            "http://127.0.0.1:8000/.",
            param_hint=param_hint,
        ) from None
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        fix = (
            " Serve the folder over http (webmcp_harness.serve_folder(path), or `python -m "
            "http.server -b 127.0.0.1 8000`) and give http://127.0.0.1:8000/…"
            if parsed.scheme == "file"
            else ""
        )
        raise click.BadParameter(
            f"{safe_text(url)!r} is not an http(s) URL. WebMCP needs a page served over https, or "
            f"http on localhost/127.0.0.1 (not file:, data: or about:blank).{fix}",
            param_hint=param_hint,
        )
    return url


NODE_COMPILE_CACHE: Final = "NODE_COMPILE_CACHE"


def cache_folder() -> Path:
    """The harness's cache folder: $XDG_CACHE_HOME/webmcp-harness, else ~/.cache/webmcp-harness
    (RuntimeError where there is no home folder), as scripts/setup.sh and npm-tools.sh have it."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "webmcp-harness"


def use_node_compile_cache() -> None:
    """Let the Playwright driver (Node.js) that a command starts keep its compiled code between
    runs (Node's compile cache), unless NODE_COMPILE_CACHE is set already: each start then costs
    about 0.1 s of CPU less. The cache holds Playwright's own code, never a page's; a folder that
    cannot be written only turns it off."""
    if NODE_COMPILE_CACHE in os.environ:
        return
    with contextlib.suppress(RuntimeError):  # (no home folder: no cache)
        os.environ[NODE_COMPILE_CACHE] = str(cache_folder() / "node-compile-cache")


def load_browser_code() -> None:
    """Load what opening a browser runs, now: `check` loads its checking code in a thread while
    the browser starts, and the two threads must not import the same modules at once."""
    import playwright.async_api  # noqa: F401

    from ..session import browser  # noqa: F401


@contextlib.asynccontextmanager
async def open_browser(
    options: BrowserOptions, *, debugging_port: bool = False
) -> AsyncIterator[Any]:
    """A browser from the options: launched (with its DevTools port on 127.0.0.1 open when
    debugging_port, see `session.direct`), or connected to."""
    from playwright.async_api import async_playwright

    from ..session.browser import close_browser, launch

    async with async_playwright() as p:
        if options.grid is not None:
            async with grid_browser(p, options) as browser:
                yield browser
            return
        if options.connect or options.cdp:
            browser = await _connected(p, options, options.connect)
        else:
            browser = await launch(
                p,
                browser_path=options.browser_path,
                headless=not options.headed,
                webmcp=options.webmcp,
                source=options.browser_path_source,
                debugging_port=debugging_port,
            )
        try:
            yield browser
        finally:
            await close_browser(browser)


async def _connected(p: Any, options: BrowserOptions, ws_endpoint: str | None) -> Any:
    """The remote browser at ws_endpoint (else options.cdp), checked to have WebMCP."""
    from ..session.browser import (
        NO_WEBMCP_CDP,
        NO_WEBMCP_REMOTE,
        browser_has_webmcp,
        connect,
    )

    browser = await connect(
        p, ws_endpoint=ws_endpoint, cdp_url=options.cdp, headless=not options.headed
    )
    if options.backend != "inpage" and not await browser_has_webmcp(browser):
        why = (
            f"{ws_endpoint}: {NO_WEBMCP_REMOTE}"
            if ws_endpoint
            else NO_WEBMCP_CDP.format(where=options.cdp)
        )
        await without_webmcp(browser, options, why)
    return browser


async def without_webmcp(browser: Any, options: BrowserOptions, why: str) -> None:
    """A remote browser has no WebMCP: an error with --backend cdp (it is closed), else a
    warning (a polyfilled page still has tools of its own)."""
    from ..session.browser import close_browser

    if options.backend == "cdp":  # native tools only: nothing can be found
        await close_browser(browser)
        raise WebMCPUnavailableError(why)
    err.print(f"[yellow]warning:[/] {markup(why)}", soft_wrap=True)


@contextlib.asynccontextmanager
async def open_browsers(options: BrowserOptions, endpoints: list[str]) -> AsyncIterator[list[Any]]:
    """The browsers of several browser servers, connected at once (one Playwright for all)."""
    from playwright.async_api import async_playwright

    from ..session.browser import close_browser

    async with async_playwright() as p:
        tries = await asyncio.gather(
            *(_connected(p, options, endpoint) for endpoint in endpoints), return_exceptions=True
        )
        browsers = [b for b in tries if not isinstance(b, BaseException)]
        try:
            for failed in tries:
                if isinstance(failed, BaseException):
                    raise failed
            yield browsers
        finally:
            await asyncio.gather(*(close_browser(browser) for browser in browsers))


LET_GO = 0.5  # seconds a command's session may take to let go of a page its browser closes next


@contextlib.asynccontextmanager
async def open_page(url: str, options: BrowserOptions) -> AsyncIterator[WebMCPSession]:
    """A session on a new page at url (attached before navigating, so no tool is missed)."""
    from ..core.waits import bounded
    from ..session import WebMCPSession
    from ..session.browser import new_context

    async with open_browser(options) as browser:
        # The page's context and its DevTools sessions end with the browser, closed (or let go)
        # right after: waiting for them first only waits, up to their bounds (seconds), on a
        # page that keeps its browser busy, like a navigation flood.
        context = await new_context(browser, downloads=options.downloads)
        page = await context.new_page()
        session = await WebMCPSession.attach(
            page,
            timeout=options.timeout,
            backend=options.backend,
        )
        try:
            await goto(page, url, options.timeout)
            yield session
        finally:
            # (its records are final at once; only letting go of the page is cut short)
            await bounded(session.close(), LET_GO)


@contextlib.asynccontextmanager
async def open_context(browser: Any, options: BrowserOptions) -> AsyncIterator[Any]:
    """A new browser context (downloads denied unless --downloads), closed bounded."""
    from ..session.browser import close_context, new_context

    context = await new_context(browser, downloads=options.downloads)
    try:
        yield context
    finally:
        await close_context(context)


async def goto(page: Any, url: str, timeout: float) -> Any:
    """Open url, bounded (`session.browser.goto`), warning when it only partly loaded."""
    from ..session.browser import goto as open_url

    def partly() -> None:
        err.print(
            f"[yellow]warning:[/] {markup(url)} did not finish loading in {timeout:g} s; "
            "using it as far as it got",
            soft_wrap=True,
        )

    return await open_url(page, url, timeout, partly=partly)


@contextlib.contextmanager
def demo_or(url: str | None) -> Any:
    """url, or the embedded demo shop served for the command's duration."""
    if url:
        yield check_url(url)
        return
    from ..testing.demo import serve_demo

    server = serve_demo()
    try:
        err.print(f"Using the demo shop at {markup(server.url)}")
        yield server.url
    finally:
        server.stop()


def fail(message: str, status: int = EXIT_USAGE) -> None:
    """Print ``error: message`` on stderr, on one line however wide, and exit with status."""
    err.print(f"[red]error:[/] {markup(message)}", soft_wrap=True)
    sys.exit(status)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a command's coroutine; a harness error becomes a message and its exit status.

    A misuse (UsageError) exits EXIT_USAGE; anything else the harness raises means the browser or
    the page could not be reached or kept: EXIT_UNREACHABLE.
    """
    try:
        return asyncio.run(coro)
    except Error as exc:
        fail(exc.message, EXIT_USAGE if isinstance(exc, UsageError) else EXIT_UNREACHABLE)
        raise  # unreachable: fail exits
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


def print_json(data: Any) -> None:
    """Exactly one JSON document on stdout: always valid JSON, safe on a terminal."""
    write_json(data, sys.stdout)


def output_path(value: str | None, option: str) -> str | None:
    """A path a command will write, checked before anything starts: not a folder, in a folder
    that exists, and one this process can write (tried: a file made for the try is removed)."""
    if value is None:
        return value
    path = Path(value)
    if path.is_dir():
        raise click.BadParameter(f"{value!r} is a folder; give a file name.", param_hint=option)
    if not path.parent.is_dir():
        raise click.BadParameter(
            f"the folder {str(path.parent)!r} does not exist.", param_hint=option
        )
    existed = path.exists()
    try:
        with open(path, "a"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        raise click.BadParameter(
            f"can't write {value!r}: {exc.strerror or exc}.", param_hint=option
        ) from None
    return value


def open_transcript(path: Path | None, option: str = "--transcript") -> TranscriptWriter | None:
    """The transcript a command keeps, opened before anything starts (a usage error if not)."""
    if path is None:
        return None
    from ..agent.transcript import TranscriptWriter

    output_path(str(path), option)
    try:
        return TranscriptWriter(path)
    except OSError as exc:
        raise click.BadParameter(
            f"can't write {str(path)!r}: {exc.strerror or exc}.", param_hint=option
        ) from None


def parse_json_args(text: str, param_hint: str = "JSON_ARGS") -> Any:
    """JSON_ARGS as a JSON value, or a usage error: not JSON, too big or deep, NaN or Infinity.

    A value that is not an object is left to the call, which codes it invalid_input.
    """
    from ..core.schema import args_problem

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
    problem = args_problem(args)
    if problem is not None:
        raise click.BadParameter(problem.removeprefix("arguments ") + ".", param_hint=param_hint)
    return args


# -- a Selenium Grid 4: --selenium-grid URL and --selenium-capabilities JSON ----------------
# Both default to the variables Playwright reads for its own grid support (SELENIUM_REMOTE_URL,
# SELENIUM_REMOTE_CAPABILITIES): the harness reads them, and sets nothing (see session.selenium).
def selenium_options() -> list[Any]:
    """--selenium-grid and --selenium-capabilities, for every command."""
    return [
        click.option(
            "--selenium-grid",
            metavar="URL",
            envvar=GRID_ENV,
            help="Use Chromium from a Selenium Grid 4: the URL of its hub, router or standalone "
            f"server (http://user:password@host:4444 for one that asks) [env {GRID_ENV}].",
        ),
        click.option(
            "--selenium-capabilities",
            metavar="JSON",
            envvar=CAPABILITIES_ENV,
            help="More capabilities to ask the grid for, a JSON object; merged with the "
            "harness's own (its switches and yours both kept) [env "
            f"{CAPABILITIES_ENV}].",
        ),
    ]


def grid_from(kwargs: dict[str, Any], options: BrowserOptions) -> SeleniumGrid | None:
    """The grid of --selenium-grid (None without it), its capabilities made from the options,
    and asked for its /status: a usage error, saying what to do, when anything is wrong."""
    url = kwargs.pop("selenium_grid", None)
    given = kwargs.pop("selenium_capabilities", None)
    if not url:
        if given:
            raise click.UsageError(
                "--selenium-capabilities needs --selenium-grid URL (or $SELENIUM_REMOTE_URL)."
            )
        return None
    if options.connect or options.cdp:
        raise click.UsageError("Give one of --selenium-grid, --connect and --cdp.")
    from ..session.selenium import SeleniumGrid, capabilities, parse_capabilities

    # A path of $WEBMCP_BROWSER_PATH is this machine's: only --browser-path names a node's.
    explicit = options.browser_path if options.browser_path_source == "--browser-path" else None
    hint = "--selenium-grid"
    try:
        hint = "--selenium-capabilities"
        caps = capabilities(
            parse_capabilities(given) if given else None,
            headless=not options.headed,
            webmcp=options.webmcp,
            browser_path=explicit,
        )
        hint = "--selenium-grid"
        grid = SeleniumGrid.at(url, caps)
        grid.status()
    except UsageError as exc:
        raise click.BadParameter(exc.message, param_hint=hint) from None
    return grid


@contextlib.asynccontextmanager
async def grid_browser(playwright: Playwright, options: BrowserOptions) -> AsyncIterator[Browser]:
    """The Chromium of a new session of the options' grid, checked to have WebMCP (as
    `--connect`'s: an error with --backend cdp, else a warning); the session ends after."""
    from ..session.selenium import no_webmcp_message, open_session

    assert options.grid is not None
    opened = await open_session(playwright, options.grid, probe=options.backend != "inpage")
    try:
        if opened.webmcp is False:
            await without_webmcp(opened.browser, options, no_webmcp_message(opened.session))
        yield opened.browser
    finally:
        await opened.close()


@contextlib.asynccontextmanager
async def grid_sessions(
    playwright: Playwright, options: BrowserOptions, count: int
) -> AsyncIterator[tuple[Browser, str, GridSessions]]:
    """count sessions of the options' grid for a check: the first one's browser and name once it
    comes (checked as in `grid_browser`), and the source of the others; all end after, and
    sessions that did not come are named in warnings."""
    from ..session.selenium import GridSessions, no_webmcp_message

    assert options.grid is not None
    sessions = GridSessions(playwright, options.grid, count, probe=options.backend != "inpage")
    try:
        first = await sessions.first()  # (none: its error says why)
    except BaseException:
        await sessions.aclose()
        raise
    try:
        if first.webmcp is False:
            await without_webmcp(first.browser, options, no_webmcp_message(first.session))
        yield first.browser, first.session.name, sessions
    finally:
        await sessions.aclose()
        for failure in dict.fromkeys(sessions.failures):
            err.print(f"[yellow]warning:[/] a session of the grid was not used: {markup(failure)}")
