"""``webmcp-harness serve [URL]``: the page's WebMCP tools as an MCP server.

Opens URL (the demo shop when none is given) in a fresh browser context and serves its tools
over stdio, or over streamable HTTP on 127.0.0.1 with ``--http PORT`` (0: a free port; the
address is printed on stderr). Diagnostics go to stderr: stdout is the MCP channel.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from ..agent.transcript import TranscriptWriter
from .common import (
    BrowserOptions,
    browser_options,
    demo_or,
    err,
    open_browser,
    open_context,
    open_transcript,
    options_from,
    run,
)

__all__ = ["serve"]


@click.command("serve")
@click.argument("url", required=False)
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(0, 65535),
    default=None,
    metavar="PORT",
    help="Serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio (0: a free port).",
)
@click.option("--owner", default="", help="The owner's name, as the check's messages give it.")
@click.option(
    "--transcript",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Keep every request, held call, approval and result here (JSON Lines, redacted).",
)
@click.option("--confirm", is_flag=True, help="Act as the person: submit forms that wait for one.")
@click.option(
    "--untrusted-labels/--no-untrusted-labels",
    default=True,
    help="Label page tools' descriptions and results as page-provided, not instructions "
    "(default: on; turn off for clients that add their own).",
)
@click.option(
    "--debugging-port/--no-debugging-port",
    default=True,
    help="When serve launches its browser, open its DevTools port on 127.0.0.1 (a free port) "
    "and call the page's tools over it, without Playwright's driver (default: on). Any local "
    "process can drive the browser through that port while serve runs: see docs/mcp.md.",
)
@browser_options
def serve(
    url: str | None,
    http_port: int | None,
    owner: str,
    transcript: Path | None,
    confirm: bool,
    untrusted_labels: bool,
    debugging_port: bool,
    **kwargs: Any,
) -> None:
    """Serve the WebMCP tools of the page at URL (default: the demo shop) as an MCP server."""
    options = options_from(kwargs)
    writer = open_transcript(transcript)
    try:
        with demo_or(url) as target:
            run(
                _serve(
                    target,
                    url is None,
                    options,
                    http_port,
                    owner,
                    confirm,
                    writer,
                    untrusted_labels,
                    debugging_port,
                )
            )
    finally:
        if writer is not None:
            writer.close()
            if writer.error is not None:
                err.print(f"[yellow]warning:[/] {escape(writer.error)}", soft_wrap=True)


async def _serve(
    url: str,
    demo: bool,
    options: BrowserOptions,
    http_port: int | None,
    owner: str,
    confirm: bool,
    writer: TranscriptWriter | None,
    labels: bool,
    debugging_port: bool,
) -> None:
    from ..mcp_server.bridge import Bridge
    from ..mcp_server.server import serve_http, serve_stdio
    from ..session import WebMCPSession

    if writer is not None:
        writer.run(
            script="webmcp-harness serve",
            url=url,
            owner={"name": owner, "instructions": ""},
            timeout=options.timeout,
            demo=demo,
        )
    bridge: Bridge | None = None
    try:
        async with (
            open_browser(options, debugging_port=debugging_port) as browser,
            open_context(browser, options) as context,
        ):
            page = await context.new_page()
            session = await WebMCPSession.attach(
                page,
                timeout=options.timeout,
                backend=options.backend,
                confirm=confirm,
            )
            bridge = Bridge(session, owner=owner, transcript=writer, labels=labels)
            opened = await bridge.open(url)
            if opened.get("isError"):
                err.print(f"[yellow]warning:[/] {escape(str(opened['content'][0]['text']))}")
            try:
                err.print(_path_of(session), soft_wrap=True)
                if http_port is None:
                    err.print(f"Serving the tools of {escape(url)} over stdio", soft_wrap=True)
                    await serve_stdio(bridge)
                else:
                    await serve_http(bridge, http_port, ready=_announce)
            finally:
                await bridge.close()
                with contextlib.suppress(Exception):
                    await session.close()
    finally:
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.end(passed=True, ran=bridge.steps if bridge is not None else 0)


def _path_of(session: Any) -> str:
    """Which way the page's tool calls reach the browser, for the server's log."""
    cdp = session.backend.cdp
    if cdp is None:
        return "Page tools are called in the page (the in-page source)"
    if cdp.path == "direct":
        return "Page tools are called over the browser's DevTools port on 127.0.0.1 (direct)"
    return "Page tools are called through Playwright's driver"


def _announce(port: int) -> None:
    err.print(f"Serving MCP over streamable HTTP at http://127.0.0.1:{port}/mcp", soft_wrap=True)
    sys.stderr.flush()
