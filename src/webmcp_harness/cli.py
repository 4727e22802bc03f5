"""`webmcp-harness`: a thin command line over the library. Diagnostics go to stderr."""

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
from rich.table import Table

from .errors import Error
from .results import tool_error_code
from .session import DEFAULT_TIMEOUT, WebMCPSession

__all__ = ["main"]

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
            help="How calls reach the page: native WebMCP (cdp) or page script (inpage, polyfills).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _options(kwargs: dict[str, Any]) -> BrowserOptions:
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


# -- commands ------------------------------------------------------------------------------
@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="webmcp-harness")
def main() -> None:
    """Test and script web pages that expose tools to AI agents through WebMCP."""


@main.command()
@click.argument("url")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@browser_options
def tools(url: str, as_json: bool, **kwargs: Any) -> None:
    """List the WebMCP tools of the page at URL."""
    options = _options(kwargs)
    check_url(url)

    async def body() -> list[dict[str, Any]]:
        async with open_page(url, options) as session:
            return [t.to_dict() for t in await session.tools()]

    found = run(body())
    if as_json:
        print_json(found)
        return
    table = Table(title=f"{len(found)} tools at {url}", title_justify="left")
    for column in ("name", "kind", "description", "parameters", "frame"):
        table.add_column(column, overflow="fold")
    for tool in found:
        params = ", ".join((tool["inputSchema"] or {}).get("properties", {}) or {})
        kind = "form" if tool["declarative"] else "script"
        frame = tool["frameUrl"] if tool["frameUrl"] != url else ""
        table.add_row(tool["name"], kind, tool["description"], params, frame)
    out.print(table)


@main.command()
@click.argument("url")
@click.argument("tool")
@click.argument("json_args", required=False, default="{}")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the coded result as one JSON document."
)
@click.option("--frame", help="The frame that owns the tool (frame id or part of its URL).")
@click.option(
    "--confirm", is_flag=True, help="Act as the person: submit a form that waits for one."
)
@browser_options
def call(
    url: str,
    tool: str,
    json_args: str,
    as_json: bool,
    frame: str | None,
    confirm: bool,
    **kwargs: Any,
) -> None:
    """Call TOOL on the page at URL with JSON_ARGS and print the coded result."""
    options = _options(kwargs)
    check_url(url)
    try:
        args = json.loads(json_args)
    except ValueError as exc:
        raise click.BadParameter(f"not valid JSON: {exc}", param_hint="JSON_ARGS") from None
    if not isinstance(args, dict):
        raise click.BadParameter(
            'must be a JSON object, like \'{"q": "tea"}\'', param_hint="JSON_ARGS"
        )

    async def body() -> tuple[dict[str, Any], dict[str, Any]]:
        async with open_page(url, options) as session:
            # Tools may register after the load event, through a polyfill too: wait a little.
            await session.wait_for_tool(tool, timeout=min(options.timeout, 5.0))
            result = await session.call(tool, args, frame=frame, confirm=confirm)
            return dict(result), session.records[-1].to_dict()

    result, record = run(body())
    if as_json:
        print_json(result)
        return
    code = tool_error_code(result)
    status = f"[red]{code.value}[/]" if code else "[green]ok[/]"
    err.print(f"{tool}: {status} in {record['timings'].get('totalMs', 0):.0f} ms")
    for item in result.get("content", []):
        if item.get("type") == "text":
            out.print(item.get("text", ""), markup=False)
        else:
            out.print(json.dumps(item, ensure_ascii=False), markup=False)


@main.command()
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one)."
)
def demo(port: int) -> None:
    """Serve the demo shop until Ctrl-C."""
    from .demo import serve_demo

    try:
        server = serve_demo(port=port)
    except OSError as exc:
        raise click.UsageError(f"cannot serve on port {port}: {exc.strerror or exc}") from None
    click.echo(server.url)
    sys.stdout.flush()
    err.print("Serving the demo shop; press Ctrl-C to stop.")
    try:
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def _register_optional_commands() -> None:
    """Commands whose modules are larger live beside their libraries."""
    from .agent.command import replay, run_script
    from .conformance.command import check

    main.add_command(check)
    main.add_command(run_script)
    main.add_command(replay)


with contextlib.suppress(ImportError):
    _register_optional_commands()
