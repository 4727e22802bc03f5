"""`webmcp-harness serve` beside the other MCP servers that give an agent a page's WebMCP tools.

Run with `.venv/bin/python -m bench.mcp_peers` (options: `--rounds`, `--no-playwright-mcp`,
`--json`).

On one page with an echo tool, served from 127.0.0.1, each server with its own Chromium (the
same binary, the same WebMCP flags), every call through the MCP Python SDK's own client, it times
one `tools/call` round trip, interleaved round-robin in a shuffled order after a warm-up:
- `webmcp-harness serve` over stdio: the page tool as an MCP tool of its own name (`echo`),
  validated, checked, coded and recorded;
- `webmcp-harness serve --http`: the same over streamable HTTP on 127.0.0.1;
- `webmcp-harness serve --no-debugging-port` over stdio: the same through Playwright's driver
  (what the browser's own DevTools port buys, docs/mcp.md);
- chrome-devtools-mcp (pinned below) over stdio: `execute_webmcp_tool {pageId, toolName, input}`,
  the input as a JSON string; no validation, timeout, cancel or frame;
- Playwright MCP (pinned below) over stdio: `webmcp_echo`, which also takes a page snapshot;
- `session.call` in this process: the floor, a call with no MCP at all.

The peers are installed, pinned, from the npm registry with the machine's Node into a cache
folder (`$XDG_CACHE_HOME/webmcp-harness/bench-peers`), once; no browser is downloaded (they are
given this machine's Chromium). Each runs in a temporary working folder, since Playwright MCP
writes its snapshots there.

It prints a table of medians and ratios. The target: serve over stdio <= 1.0x
chrome-devtools-mcp. Exit status 1 when it is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import async_playwright

from webmcp_harness import WebMCPSession, find_browser
from webmcp_harness.cli.common import cache_folder
from webmcp_harness.session.browser import launch

from .call_overhead import median_ms, pct_ms, serve
from .mcp_bridge import finish, interleaved

ROOT = Path(__file__).resolve().parent.parent
PINS = {"chrome-devtools-mcp": "1.11.0", "@playwright/mcp": "0.0.83"}
FEATURES = "--enable-features=WebMCP,WebMCPTesting,DevToolsWebMCPSupport"
QUIET = ("--disable-background-networking", "--disable-component-update")
ARGS = {"text": "hello"}
TARGET = 1.0
READY_WAIT = 60.0  # how long a server may take to start, open the page and list its tools

Call = Callable[[], Awaitable[Any]]


def _cache() -> Path:
    return cache_folder() / "bench-peers"


def install_peers() -> Path:
    """The pinned peers' node_modules, installed once from the npm registry."""
    folder = _cache()
    wanted = {name: version for name, version in PINS.items()}
    have = {}
    for name in wanted:
        manifest = folder / "node_modules" / name / "package.json"
        if manifest.is_file():
            have[name] = json.loads(manifest.read_text()).get("version")
    if have == wanted:
        return folder / "node_modules"
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("bench.mcp_peers needs Node.js and npm on PATH to install the peers")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text('{"private": true}\n')
    env = {**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}
    specs = [f"{name}@{version}" for name, version in wanted.items()]
    print(f"installing {', '.join(specs)} into {folder} ...", file=sys.stderr)
    subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", *specs],
        cwd=folder,
        env=env,
        check=True,
        timeout=600,
    )
    return folder / "node_modules"


def _browser_args() -> list[str]:
    args = [FEATURES, *QUIET]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def _until(what: str, check: Callable[[], Awaitable[bool]]) -> None:
    """Ask check() until it says yes, for at most READY_WAIT (a server's page loads on its own)."""
    deadline = time.monotonic() + READY_WAIT
    while not await check():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench.mcp_peers: {what} was not ready in {READY_WAIT:.0f} s")
        await asyncio.sleep(0.05)


async def _ours(client: ClientSession) -> Call:
    await client.initialize()
    await client.call_tool("browser_wait_for_tool", {"name": "echo", "timeout": 30})
    await client.list_tools()  # the client checks results against listed schemas

    async def call() -> Any:
        result = await client.call_tool("echo", ARGS)
        assert not result.is_error, _text(result)

    return call


async def _devtools(client: ClientSession, url: str) -> Call:
    await client.initialize()
    opened = _text(await client.call_tool("new_page", {"url": url}))
    found = re.search(rf"^(\d+): .*\({re.escape(url)}\)", opened, re.M)
    if found is None:
        raise SystemExit(f"bench.mcp_peers: chrome-devtools-mcp did not open the page: {opened!r}")
    page_id = int(found.group(1))

    async def listed() -> bool:
        tools = await client.call_tool("list_webmcp_tools", {"pageId": page_id})
        return 'name="echo"' in _text(tools)

    await _until("chrome-devtools-mcp's echo tool", listed)
    text = json.dumps(ARGS)

    async def call() -> Any:
        result = await client.call_tool(
            "execute_webmcp_tool", {"pageId": page_id, "toolName": "echo", "input": text}
        )
        assert not result.is_error, _text(result)
        assert '"Completed"' in _text(result), _text(result)

    return call


async def _playwright_mcp(client: ClientSession, url: str) -> Call:
    await client.initialize()
    await client.call_tool("browser_navigate", {"url": url})

    async def listed() -> bool:
        return any(t.name == "webmcp_echo" for t in (await client.list_tools()).tools)

    await _until("Playwright MCP's webmcp_echo tool", listed)

    async def call() -> Any:
        result = await client.call_tool("webmcp_echo", ARGS)
        assert not result.is_error, _text(result)

    return call


@contextlib.asynccontextmanager
async def _stdio(
    command: str, args: list[str], cwd: str, env: dict[str, str], log: Any
) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=command, args=args, cwd=cwd, env=env)
    async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as c:
        yield c


@contextlib.asynccontextmanager
async def _serve_http(url: str, cwd: str, env: dict[str, str]) -> AsyncIterator[ClientSession]:
    """`webmcp-harness serve URL --http 0`, its address read from its stderr."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "webmcp_harness",
        "serve",
        url,
        "--http",
        "0",
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    try:
        endpoint = None
        deadline = time.monotonic() + READY_WAIT
        while endpoint is None:
            line = await asyncio.wait_for(proc.stderr.readline(), deadline - time.monotonic())
            if not line:
                raise SystemExit("bench.mcp_peers: serve --http exited before it listened")
            found = re.search(rb"http://127\.0\.0\.1:\d+/mcp", line)
            endpoint = found.group(0).decode() if found else None
        drain = asyncio.ensure_future(_drain(proc.stderr))
        async with (
            streamable_http_client(endpoint) as (read, write),
            ClientSession(read, write) as client,
        ):
            yield client
        drain.cancel()
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


async def run(rounds: int, with_playwright_mcp: bool) -> dict[str, Any]:
    modules = install_peers()
    browser_path = str(find_browser())
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env["CI"] = env.get("CI", "1")  # chrome-devtools-mcp: no usage statistics
    env["PUPPETEER_SKIP_DOWNLOAD"] = "1"
    env["PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD"] = "1"
    devtools_js = (
        modules / "chrome-devtools-mcp" / "build" / "src" / "bin" / "chrome-devtools-mcp.js"
    )
    playwright_js = modules / "@playwright" / "mcp" / "cli.js"
    node = shutil.which("node") or "node"
    with (
        serve() as base,
        tempfile.TemporaryDirectory() as cwd,
        tempfile.TemporaryFile("w+") as log,
    ):
        url = f"{base}/echo.html"
        config = Path(cwd) / "playwright-mcp.json"
        config.write_text(
            json.dumps(
                {
                    "browser": {
                        "browserName": "chromium",
                        "isolated": True,
                        "launchOptions": {
                            "executablePath": browser_path,
                            "headless": True,
                            "chromiumSandbox": False,
                            "args": [a for a in _browser_args() if a != "--no-sandbox"],
                        },
                    }
                }
            )
        )
        devtools_args = [
            str(devtools_js),
            "--headless",
            "--isolated",
            "--executablePath",
            browser_path,
            "--categoryExperimentalWebmcp",
            "--usageStatistics=false",
            "--performanceCrux=false",
            *(f"--chromeArg={a}" for a in _browser_args()),
        ]
        async with contextlib.AsyncExitStack() as stack:
            ours = await stack.enter_async_context(
                _stdio(sys.executable, ["-m", "webmcp_harness", "serve", url], cwd, env, log)
            )
            ours_http = await stack.enter_async_context(_serve_http(url, cwd, env))
            no_port = ["-m", "webmcp_harness", "serve", url, "--no-debugging-port"]
            ours_driver = await stack.enter_async_context(
                _stdio(sys.executable, no_port, cwd, env, log)
            )
            devtools = await stack.enter_async_context(_stdio(node, devtools_args, cwd, env, log))
            calls: dict[str, Call] = {
                "serve": await _ours(ours),
                "serve --http": await _ours(ours_http),
                "serve --no-debugging-port": await _ours(ours_driver),
                "chrome-devtools-mcp": await _devtools(devtools, url),
            }
            if with_playwright_mcp:
                pw = await stack.enter_async_context(
                    _stdio(node, [str(playwright_js), "--config", str(config)], cwd, env, log)
                )
                calls["Playwright MCP"] = await _playwright_mcp(pw, url)
            p = await stack.enter_async_context(async_playwright())
            browser = await launch(p)
            stack.push_async_callback(browser.close)
            page = await (await browser.new_context()).new_page()
            session = await WebMCPSession.attach(page)
            await page.goto(url, wait_until="load")
            assert await session.wait_for_tool("echo", timeout=30) is not None

            async def direct() -> Any:
                result = await session.call("echo", ARGS)
                assert not result.get("isError"), result

            calls["session.call"] = direct
            times = await interleaved(calls, rounds, warmup=20)
    return {"rounds": rounds, "times": times, "pins": PINS}


HOW = {
    "serve": "`echo` over stdio: validated, checked, coded, recorded",
    "serve --http": "`echo` over streamable HTTP on 127.0.0.1",
    "serve --no-debugging-port": "`echo` over stdio, through Playwright's driver",
    "chrome-devtools-mcp": "`execute_webmcp_tool {pageId, toolName, input: <json string>}`",
    "Playwright MCP": "`webmcp_echo` (a page snapshot each call)",
    "session.call": "in process, no MCP: the floor",
}


def report(out: dict[str, Any]) -> tuple[str, bool]:
    times = out["times"]
    medians = {name: median_ms(values) for name, values in times.items()}
    ours = medians["serve"]
    rows = [
        (
            name,
            HOW[name],
            f"{medians[name]:.2f} ms",
            f"{pct_ms(times[name], 0.9):.2f} ms",
            f"{medians[name] / ours:.2f}x",
        )
        for name in times
    ]
    head = ("server", "how a page tool is called", "median", "p90", "vs serve")
    widths = [max(len(r[i]) for r in [*rows, head]) for i in range(len(head))]
    pins = ", ".join(f"{k} {v}" for k, v in out["pins"].items())
    lines = [
        f"tools/call round trip, {out['rounds']} interleaved rounds, one Chromium each ({pins})",
        "",
    ]
    for row in [head, *rows]:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    peer = medians["chrome-devtools-mcp"]
    ratio = ours / peer
    ok = ratio <= TARGET
    lines += [
        "",
        f"serve / chrome-devtools-mcp: {ratio:.2f}x (target <= {TARGET:.2f}x): "
        + ("ok" if ok else "MISSED"),
        "serve --no-debugging-port / chrome-devtools-mcp: "
        f"{medians['serve --no-debugging-port'] / peer:.2f}x; the port buys "
        f"{medians['serve --no-debugging-port'] - ours:.2f} ms a call",
        f"serve --http / session.call: {medians['serve --http'] / medians['session.call']:.2f}x; "
        f"serve / session.call: {ours / medians['session.call']:.2f}x",
    ]
    if "Playwright MCP" in medians:
        lines.append(f"Playwright MCP / serve: {medians['Playwright MCP'] / ours:.1f}x")
    return "\n".join(lines), ok


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="timed rounds (default 200)")
    parser.add_argument(
        "--no-playwright-mcp",
        action="store_true",
        help="leave Playwright MCP out (it takes about half a second a call)",
    )
    parser.add_argument("--json", action="store_true", help="print the raw times as JSON")
    options = parser.parse_args()
    out = asyncio.run(run(options.rounds, not options.no_playwright_mcp))
    finish(out, report, as_json=options.json)


if __name__ == "__main__":
    main()
