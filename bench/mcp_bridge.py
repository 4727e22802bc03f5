"""What a `tools/call` through `webmcp-harness serve` costs next to `session.call`, in one run.

Run with `.venv/bin/python -m bench.mcp_bridge` (options: `--rounds`, `--json`).

On a page with an echo tool, served from 127.0.0.1, it times, interleaved round-robin after a
warm-up:
- `session.call("echo", ...)` on a session of this process (its own Chromium);
- `Bridge.call("echo", ...)` on that same session: the bridge without the wire (the check, the
  naming, the result's cleaning);
- `ClientSession.call_tool("echo", ...)` over stdio to a `webmcp-harness serve` process (its own
  Chromium): the MCP SDK's client and server, JSON-RPC over pipes, and the bridge;
- the floor: `call_tool` over stdio to a bare SDK server (the same transport) whose tool answers
  at once, with no browser behind it. What stdio costs whatever the server does.

It prints ratios first (target: stdio / session.call <= 1.5x); absolute medians are secondary.
Then it splits the allowance over session.call (0.5x) into the floor, the bridge and the rest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from playwright.async_api import async_playwright

from webmcp_harness import WebMCPSession
from webmcp_harness.mcp_server import Bridge
from webmcp_harness.session.browser import launch

from .call_overhead import median_ms, pct_ms, serve

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.5
ARGS = {"text": "hello"}

Call = Callable[[], Awaitable[Any]]


async def interleaved(
    calls: dict[str, Call], rounds: int, warmup: int = 30
) -> dict[str, list[float]]:
    """Seconds per call of each, taken in turn (in a shuffled order each round) so the
    machine's load falls on all alike."""
    for _ in range(warmup):
        for fn in calls.values():
            await fn()
    times: dict[str, list[float]] = {name: [] for name in calls}
    order = list(calls)
    shuffle = random.Random(16).shuffle
    for _ in range(rounds):
        shuffle(order)  # what one call leaves running must not always land on the same next one
        for name in order:
            t0 = time.perf_counter()
            await calls[name]()
            times[name].append(time.perf_counter() - t0)
    return times


async def run(rounds: int) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    with serve() as base, tempfile.TemporaryFile("w+") as log:
        url = f"{base}/echo.html"
        params = StdioServerParameters(
            command=sys.executable,
            args=[
                *os.environ.get("BENCH_SERVER_PREFIX", "").split(),
                "-m",
                "webmcp_harness",
                "serve",
                url,
            ],
            env=env,
        )
        floor = StdioServerParameters(
            command=sys.executable, args=["-m", "bench.mcp_bridge", "--floor-server"], env=env
        )
        async with async_playwright() as p:
            browser = await launch(p)
            context = await browser.new_context()
            page = await context.new_page()
            session = await WebMCPSession.attach(page)
            await page.goto(url, wait_until="load")
            await page.wait_for_function("window.toolsReady === true")
            assert await session.wait_for_tool("echo", timeout=30) is not None
            bridge = Bridge(session)
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write) as client,
                stdio_client(floor, errlog=log) as (floor_read, floor_write),
                ClientSession(floor_read, floor_write) as bare,
            ):
                await bare.initialize()
                await bare.list_tools()
                await client.initialize()
                await client.call_tool("browser_wait_for_tool", {"name": "echo", "timeout": 30})
                await client.list_tools()  # the client checks results against listed schemas

                async def direct() -> Any:
                    result = await session.call("echo", ARGS)
                    assert not result.get("isError"), result

                async def bridged() -> Any:
                    result = await bridge.call("echo", ARGS)
                    assert not result.get("isError"), result

                async def stdio() -> Any:
                    result = await client.call_tool("echo", ARGS)
                    assert not getattr(result, "is_error", True), result

                async def floor_call() -> Any:
                    await bare.call_tool("echo", ARGS)

                calls = {"session": direct, "bridge": bridged, "stdio": stdio, "floor": floor_call}
                times = await interleaved(calls, rounds)
            await browser.close()
    return {"rounds": rounds, "times": times}


def report(out: dict[str, Any]) -> tuple[str, bool]:
    times = out["times"]
    session, bridge, stdio = (median_ms(times[k]) for k in ("session", "bridge", "stdio"))
    ratio = stdio / session
    rows = [
        (
            "tools/call over stdio / session.call",
            f"{ratio:.2f}x",
            f"<= {TARGET:.2f}x",
            "ok" if ratio <= TARGET else "MISSED",
            f"{stdio:.3f} ms vs {session:.3f} ms (p90 {pct_ms(times['stdio'], 0.9):.3f} vs "
            f"{pct_ms(times['session'], 0.9):.3f})",
        ),
        (
            "Bridge.call in process / session.call",
            f"{bridge / session:.2f}x",
            "(info)",
            "",
            f"{bridge:.3f} ms vs {session:.3f} ms",
        ),
    ]
    floor = median_ms(times["floor"])
    rows.append(
        (
            "(session.call + stdio floor) / session.call",
            f"{(session + floor) / session:.2f}x",
            "(info)",
            "",
            f"floor {floor:.3f} ms: a bare SDK server over the same stdio transport",
        )
    )
    # Where the allowance over session.call (TARGET - 1) goes, each part / session.call:
    # the bare transport, the bridge in process, and what is left (serve's SDK server
    # around the bridge, its own process's scheduling).
    rest = stdio - floor - bridge
    for label, part in (
        ("  of which the stdio floor", floor),
        ("  of which the bridge (check, naming, cleaning)", bridge - session),
        ("  of which the rest (serve's SDK server, scheduling)", rest),
    ):
        rows.append(
            (label, f"{part / session:.2f}x", f"({TARGET - 1:.2f}x in all)", "", f"{part:.3f} ms")
        )
    head = ("measure", "ratio", "target", "", "medians")
    widths = [max(len(r[i]) for r in [*rows, head]) for i in range(5)]
    lines = [f"webmcp-harness MCP bridge overhead ({out['rounds']} interleaved rounds)", ""]
    for row in [head, *rows]:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    return "\n".join(lines), ratio <= TARGET


async def floor_server() -> None:
    """A bare SDK server on stdio whose `echo` answers at once (the transport's floor)."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from webmcp_harness.mcp_server.server import _Pipes

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name="echo", input_schema={"type": "object"})]
        )

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        text = json.dumps({"echo": (params.arguments or {}).get("text")}, separators=(",", ":"))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    from mcp.server.stdio import stdio_server

    server: Server[Any] = Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware = []
    pipes = await _Pipes.open()
    async with stdio_server(pipes, pipes) as (read, write):  # type: ignore[arg-type]
        await server.run(read, write, server.create_initialization_options())


def finish(
    out: dict[str, Any], report: Callable[[dict[str, Any]], tuple[str, bool]], *, as_json: bool
) -> None:
    """Print the raw times as JSON, or the report's table; exit 1 when its target was missed."""
    if as_json:
        print(json.dumps(out))
        return
    text, ok = report(out)
    print(text)
    sys.exit(0 if ok else 1)


def main() -> None:
    if "--floor-server" in sys.argv:
        asyncio.run(floor_server())
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300, help="timed rounds (default 300)")
    parser.add_argument("--json", action="store_true", help="print the raw times as JSON")
    options = parser.parse_args()
    out = asyncio.run(run(options.rounds))
    finish(out, report, as_json=options.json)


if __name__ == "__main__":
    main()
