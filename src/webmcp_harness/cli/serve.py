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
@browser_options
def serve(
    url: str | None,
    http_port: int | None,
    owner: str,
    transcript: Path | None,
    confirm: bool,
    untrusted_labels: bool,
    **kwargs: Any,
) -> None:
    """Serve the WebMCP tools of the page at URL (default: the demo shop) as an MCP server."""
    options = options_from(kwargs)
    writer: TranscriptWriter | None = None
    if transcript is not None:
        try:
            writer = TranscriptWriter(transcript)
        except OSError as exc:
            raise click.BadParameter(
                f"can't write {str(transcript)!r}: {exc.strerror or exc}", param_hint="--transcript"
            ) from None
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
                )
            )
    finally:
        if writer is not None:
            writer.close()


async def _serve(
    url: str,
    demo: bool,
    options: BrowserOptions,
    http_port: int | None,
    owner: str,
    confirm: bool,
    writer: TranscriptWriter | None,
    labels: bool,
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
        async with open_browser(options) as browser, open_context(browser, options) as context:
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


def _announce(port: int) -> None:
    err.print(f"Serving MCP over streamable HTTP at http://127.0.0.1:{port}/mcp", soft_wrap=True)
    sys.stderr.flush()
