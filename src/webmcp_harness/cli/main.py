"""`webmcp-harness`: a thin command line over the library. Diagnostics go to stderr."""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
from typing import Any
from urllib.parse import urlunsplit

import click
from rich.console import Group
from rich.text import Text

from ..core.results import ToolErrorCode, code_of, tool_error
from ..core.text import dumps
from ..core.urls import split_url
from .common import (
    browser_options,
    check_url,
    err,
    open_page,
    options_from,
    out,
    parse_json_args,
    print_json,
    run,
    settle_option,
    use_node_compile_cache,
)
from .text import cell, markup, text

__all__ = ["main"]


# -- commands ------------------------------------------------------------------------------
class _Commands(click.Group):
    """The commands, those of other modules loaded when asked for (each start stays quick)."""

    LAZY: dict[str, tuple[str, str]] = {  # noqa: RUF012 (read only)
        "check": ("webmcp_harness.cli.check", "check"),
        "run": ("webmcp_harness.cli.run", "run_script"),
        "replay": ("webmcp_harness.cli.run", "replay"),
        "serve": ("webmcp_harness.cli.serve", "serve"),
        "watch": ("webmcp_harness.cli.watch", "watch"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in self.LAZY:
            module, name = self.LAZY[cmd_name]
            found = getattr(importlib.import_module(module), name)
            assert isinstance(found, click.Command)
        return found


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="webmcp-harness")
def main() -> None:
    """Test and script web pages that expose tools to AI agents through WebMCP."""
    use_node_compile_cache()


def start() -> None:
    """The console script (and ``python -m webmcp_harness``): the command line, then the exit,
    once its output is flushed, without tearing the interpreter down module by module (a tenth
    of a second per run, after the browser is already closed). A command is done by then: its
    browser, driver and servers are stopped and its files closed. A worker thread still
    running (a schema check past its bound) does not hold the exit up. An error that is not a
    usage or exit status goes up as Python reports it."""
    try:
        main()
        status = 0
    except SystemExit as done:
        code = done.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        if not isinstance(code, int) and code is not None:
            sys.stderr.write(f"{code}\n")
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # (a closed pipe: nothing more can be said)
            stream.flush()
    logging.shutdown()
    os._exit(status)


@main.command()
@click.argument("url")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@settle_option
@browser_options
def tools(url: str, as_json: bool, settle: float | None, **kwargs: Any) -> None:
    """List the WebMCP tools of the page at URL (every source): one line each (--json: all)."""
    options = options_from(kwargs)
    check_url(url)

    async def body() -> tuple[list[dict[str, Any]], str, list[str]]:
        from ..session.probe import why_no_tools

        async with open_page(url, options) as session:
            found = [t.to_dict() for t in await session.tools(settle=settle)]
            hints = [] if found or as_json else (await why_no_tools(session.page)).hints()
            return found, session.page.url, hints

    found, main_url, hints = run(body())
    if as_json:
        print_json(found)
        return
    if not found:
        err.print(f"0 tools at {markup(url)}.", soft_wrap=True)
        for hint in hints:  # what the page's own scripts say: exactly why
            err.print(f"{hint[:1].upper()}{hint[1:]}.", soft_wrap=True, markup=False)
        err.print(NO_TOOLS_HINT, soft_wrap=True, markup=False)
        return
    out.print(tools_table(found, main_url, title=f"{len(found)} tools at {url}"))


NO_TOOLS_HINT = (
    "The page showed no tool, though the harness waited for late ones. If it should have some: it "
    "may register them later still (try --settle 5, or `call URL TOOL`, which waits for the tool), "
    "the browser may lack WebMCP (Chromium 146+; see the README), its script may have failed "
    "(`webmcp-harness check URL` reports the page's errors), or the tools may live in a "
    'cross-site iframe without allow="tools".'
)


def kind_of(tool: dict[str, Any]) -> str:
    """The one word for how a tool is made: ``declarative`` (a form) or ``imperative`` (script)."""
    return "declarative" if tool.get("declarative") else "imperative"


def _short_frame(frame_url: str, main_url: str) -> str:
    """A frame's URL as the table shows it: empty for the main frame, a path on the same origin,
    host and path on another."""
    if frame_url == main_url:
        return ""
    here, there = split_url(main_url), split_url(frame_url)
    if (here.scheme, here.netloc) == (there.scheme, there.netloc):
        return urlunsplit(("", "", there.path or "/", there.query, there.fragment))
    if there.netloc:  # another origin: its host says where (the path follows if there is room)
        return there.netloc + (there.path if there.path != "/" else "")
    return frame_url


def tools_table(
    found: list[dict[str, Any]],
    main_url: str,
    *,
    title: str | None = None,
    width: int | None = None,
) -> Group:
    """One line per tool that fits ``width`` columns (the console's by default).

    Descriptions and long parameter lists are cut with an ellipsis (the full text is in --json).
    The frame column is there only when a tool lives outside the main frame. Every page string
    goes through ``cell``.
    """
    width = width or out.width
    title = f"{len(found)} tools at {main_url}" if title is None else title
    framed = any(t.get("frameUrl") not in ("", None, main_url) for t in found)
    rows: list[list[Text]] = []
    for tool in found:
        schema = tool.get("inputSchema")
        props = schema.get("properties") if isinstance(schema, dict) else None
        params = ", ".join(str(p) for p in props) if isinstance(props, dict) else ""
        frame = tool.get("frameUrl")
        row = [cell(tool.get("name")), Text(kind_of(tool)), cell(params)]
        if framed:
            row.append(cell(_short_frame(frame if isinstance(frame, str) else "", main_url)))
        rows.append([*row, cell(tool.get("description") or "")])
    headers = ["name", "kind", "parameters", *(["frame"] if framed else []), "description"]
    caps = [32, 11, 24, *([24] if framed else [])]
    widths = [
        min(cap, max(len(header), *(r[i].cell_len for r in rows)))
        for i, (header, cap) in enumerate(zip(headers, caps, strict=False))
    ]
    gap = "  "
    room = width - len(gap) * len(widths) - 16  # leave 16 columns at least to the description
    # the parameters shrink first, never below their header
    floors = [widths[0], widths[1], 10, *([16] if framed else [])]
    for i in range(2, len(widths)):
        while sum(widths) > room and widths[i] > floors[i]:
            widths[i] -= 1
    widths.append(max(len("description"), width - sum(widths) - len(gap) * len(widths)))

    def line(cells: list[Text], style: str = "") -> Text:
        parts: list[Text] = []
        for i, (value, column) in enumerate(zip(cells, widths, strict=True)):
            value = value.copy()
            value.truncate(column, overflow="ellipsis", pad=i < len(widths) - 1)
            parts.append(value)
        joined = Text(gap).join(parts)
        joined.stylize(style)
        joined.rstrip()
        return joined

    lines = [cell(title), line([Text(h) for h in headers], "bold")]
    lines.append(Text("─" * min(width, sum(widths) + len(gap) * (len(widths) - 1))))
    lines.extend(line(row) for row in rows)
    return Group(*lines)


@main.command()
@click.argument("url")
@click.argument("tool")
@click.argument("json_args", required=False, default="{}")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the coded result as one JSON document."
)
@click.option(
    "--frame", help="The frame that owns the tool: its id, its origin, or (part of) its URL."
)
@click.option(
    "--confirm", is_flag=True, help="Act as the person: submit a form that waits for one."
)
@click.option(
    "--no-validate",
    "no_validate",
    is_flag=True,
    help="Send JSON_ARGS to the page as given, unchecked against the tool's inputSchema.",
)
@settle_option
@browser_options
def call(
    url: str,
    tool: str,
    json_args: str,
    as_json: bool,
    frame: str | None,
    confirm: bool,
    no_validate: bool,
    settle: float | None,
    **kwargs: Any,
) -> None:
    """Call TOOL on the page at URL with JSON_ARGS and print the coded result.

    JSON_ARGS that are valid JSON but not an object are a coded invalid_input, as at every door.
    """
    options = options_from(kwargs)
    check_url(url)
    args = parse_json_args(json_args)

    async def body() -> tuple[dict[str, Any], dict[str, Any]]:
        if args is None:  # the API's None means "no arguments"; JSON null is not an object
            from ..core.schema import validate_args

            return dict(
                tool_error(ToolErrorCode.INVALID_INPUT, validate_args(None, None) or "")
            ), {}
        async with open_page(url, options) as session:
            if settle is not None:  # the tools the page ends up with, not the first ones
                await session.tools(settle=settle)
            # Tools may register after the load event, through a polyfill too: wait a little.
            wait = min(options.timeout, 5.0)
            if all(t.name != tool for t in await session.tools(settle=0)):
                err.print(
                    f"waiting up to {wait:g} s for the tool {markup(repr(tool))} to appear on the "
                    "page…",
                    soft_wrap=True,
                )
            await session.wait_for_tool(tool, timeout=wait)
            result = await session.call(
                tool, args, frame=frame, confirm=confirm, validate=not no_validate
            )
            return dict(result), result.record.to_dict()

    result, record = run(body())
    if as_json:
        print_json(result)
        return
    print_result(tool, result, record)


def print_result(tool: str, result: dict[str, Any], record: dict[str, Any]) -> None:
    """`call`'s output: the code and time on stderr, the content as text on stdout. An answer
    that is a refusal says failed there (the result itself stays as the page gave it)."""
    from ..conformance.behaviour import reads_as_failure

    code = code_of(result)
    why = None if code else reads_as_failure(result)
    status = f"[red]{code.value}[/]" if code else "[green]ok[/]"
    if why is not None:
        status = f"[red]failed[/] ({markup(why)}, though not marked isError)"
    timings = record.get("timings")
    ms = timings.get("totalMs", 0) if isinstance(timings, dict) else 0
    err.print(f"{markup(tool)}: {status} in {ms if isinstance(ms, (int, float)) else 0:.0f} ms")
    content = result.get("content")
    for item in content if isinstance(content, list) else []:
        if (
            isinstance(item, dict)
            and item.get("type") == "text"
            and isinstance(item.get("text"), str)
        ):
            out.print(text(item["text"]))
        else:
            out.print(text(dumps(item)))


@main.command()
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one)."
)
@click.option("--json", "as_json", is_flag=True, help='Print {"url": ...} as one JSON document.')
def demo(port: int, as_json: bool) -> None:
    """Serve the demo shop until Ctrl-C; prints its URL."""
    from ..testing.demo import serve_demo

    try:
        server = serve_demo(port=port)
    except OSError as exc:
        raise click.UsageError(f"cannot serve on port {port}: {exc.strerror or exc}") from None
    try:  # Ctrl-C at any moment from here on is the normal way to stop: exit 0, quietly
        if as_json:
            print_json({"url": server.url})
        else:
            click.echo(server.url)
        sys.stdout.flush()
        err.print("Serving the demo shop; press Ctrl-C to stop.")
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


@main.command("browser-server")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one)."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--path", "ws_path", default="/webmcp", show_default=True, help="Endpoint path.")
@click.option(
    "--browser-path",
    envvar="WEBMCP_BROWSER_PATH",
    help="Chromium to launch [env WEBMCP_BROWSER_PATH].",
)
@click.option("--headed", is_flag=True, help="Show the browsers' windows.")
def browser_server(
    port: int, host: str, ws_path: str, browser_path: str | None, headed: bool
) -> None:
    """Run a WebMCP-ready grid node: a Playwright browser server, no --unsafe needed.

    Prints the WebSocket endpoint for --connect, then serves until Ctrl-C.
    """
    from ..core.errors import Error
    from ..session.grid import BrowserServer

    try:
        node = BrowserServer(
            port=port, host=host, ws_path=ws_path, browser_path=browser_path, headless=not headed
        )
        endpoint = node.start()
    except Error as exc:
        err.print(f"[red]error:[/] {exc.message}", markup=True)
        sys.exit(2)
    import signal

    # A supervisor's SIGTERM stops the node's browsers too, as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    click.echo(endpoint)
    sys.stdout.flush()
    err.print("Serving WebMCP-ready browsers; press Ctrl-C to stop.")
    try:
        node.wait()
    except KeyboardInterrupt:
        pass
    finally:
        node.stop()
