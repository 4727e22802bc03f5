"""`webmcp-harness`: a thin command line over the library. Diagnostics go to stderr."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from ._cli import (
    browser_options,
    check_url,
    err,
    open_page,
    options_from,
    out,
    parse_json_args,
    print_json,
    run,
)
from ._text import cell, dumps, markup, text
from .agent.command import replay, run_script
from .conformance.command import check
from .results import tool_error_code

__all__ = ["main"]


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
    options = options_from(kwargs)
    check_url(url)

    async def body() -> list[dict[str, Any]]:
        async with open_page(url, options) as session:
            return [t.to_dict() for t in await session.tools()]

    found = run(body())
    if as_json:
        print_json(found)
        return
    out.print(tools_table(found, url))


def tools_table(found: list[dict[str, Any]], url: str) -> Table:
    """The `tools` table; every page string goes in through `cell`."""
    table = Table(title=Text(f"{len(found)} tools at ") + text(url), title_justify="left")
    for column in ("name", "kind", "description", "parameters", "frame"):
        table.add_column(column, overflow="fold")
    for tool in found:
        schema = tool.get("inputSchema")
        props = schema.get("properties") if isinstance(schema, dict) else None
        params = ", ".join(str(p) for p in props) if isinstance(props, dict) else ""
        kind = "form" if tool.get("declarative") else "script"
        frame = tool.get("frameUrl") if tool.get("frameUrl") != url else ""
        table.add_row(
            cell(tool.get("name")),
            cell(kind),
            cell(tool.get("description")),
            cell(params),
            cell(frame),
        )
    return table


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
    options = options_from(kwargs)
    check_url(url)
    args = parse_json_args(json_args)

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
    print_result(tool, result, record)


def print_result(tool: str, result: dict[str, Any], record: dict[str, Any]) -> None:
    """`call`'s output: the code and time on stderr, the content as text on stdout."""
    code = tool_error_code(result)
    status = f"[red]{code.value}[/]" if code else "[green]ok[/]"
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


main.add_command(check)
main.add_command(run_script)
main.add_command(replay)
