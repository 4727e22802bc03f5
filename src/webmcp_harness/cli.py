"""`webmcp-harness`: a thin command line over the library. Diagnostics go to stderr."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.table import Table

from ._cli import (
    browser_options,
    check_url,
    err,
    open_page,
    options_from,
    out,
    print_json,
    run,
    settle_option,
)
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
@settle_option
@browser_options
def tools(url: str, as_json: bool, settle: float | None, **kwargs: Any) -> None:
    """List the WebMCP tools of the page at URL (every source: native and page script)."""
    options = options_from(kwargs)
    check_url(url)

    async def body() -> list[dict[str, Any]]:
        async with open_page(url, options) as session:
            return [t.to_dict() for t in await session.tools(settle=settle)]

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
@settle_option
@browser_options
def call(
    url: str,
    tool: str,
    json_args: str,
    as_json: bool,
    frame: str | None,
    confirm: bool,
    settle: float | None,
    **kwargs: Any,
) -> None:
    """Call TOOL on the page at URL with JSON_ARGS and print the coded result."""
    options = options_from(kwargs)
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
            if settle is not None:  # the tools the page ends up with, not the first ones
                await session.tools(settle=settle)
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


main.add_command(check)
main.add_command(run_script)
main.add_command(replay)
