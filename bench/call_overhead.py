"""What a WebMCPSession call costs next to raw CDP and Playwright's `page.webmcp`, in one run.

Run with `.venv/bin/python -m bench.call_overhead` (options: `--rounds`, `--trials`, `--json`).

On one page with an echo tool, served from 127.0.0.1, it times, interleaved round-robin after a
warm-up:
- per-call latency of `session.call`, of raw `WebMCP.invokeTool` -> `WebMCP.toolResponded` on a CDP
  session of the same page, and of Playwright's `page.webmcp.call_tool`;
- per-call latency of `session.call` to the same echo tool in a cross-site (out-of-process) iframe,
  `http://localhost:<port>` inside a page on 127.0.0.1, against the main-frame call;
- throughput (calls/s with 1, 4 and 16 calls in flight) of `session.call` against raw CDP;
- discovery of a page with 1,000 tools: `WebMCPSession.attach` + navigate + `tools()` seeing all of
  them, against raw `WebMCP.enable` + navigate until `toolsAdded` brought all of them;
- where the in-page backend works: per-call latency through a polyfilled page against the native
  CDP path.

It prints ratios first; absolute medians are secondary columns.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import http.server
import json
import statistics
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, CDPSession, Page, async_playwright

from webmcp_harness import WebMCPSession
from webmcp_harness.session.browser import launch

ROOT = Path(__file__).resolve().parent.parent
POLYFILL = ROOT / "tests" / "polyfills" / "webmcp-polyfill" / "index.iife.js"
MANY = 1000

ECHO_TOOL_JS = """
document.modelContext.registerTool({
  name: "echo", description: "Echo the text back.",
  inputSchema: {type: "object", properties: {text: {type: "string", minLength: 1}},
                required: ["text"]},
  execute: async (a) => ({echo: a.text}),
});
window.toolsReady = true;
"""
MANY_TOOLS_JS = f"""
for (let i = 0; i < {MANY}; i++) {{
  document.modelContext.registerTool({{
    name: "tool_" + i, description: "Tool number " + i + ".",
    inputSchema: {{type: "object", properties: {{n: {{type: "integer"}}}}}},
    execute: async (a) => ({{i, n: a.n}}),
  }});
}}
window.toolsReady = true;
"""


def _html(body: str, head: str = "") -> bytes:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title>'
        f"{head}</head><body><script>{body}</script></body></html>"
    ).encode()


CROSS_SITE_JS = """
const frame = document.createElement("iframe");
frame.allow = "tools";
frame.src = `http://localhost:${location.port}/echo.html`;
document.body.append(frame);
"""

PAGES: dict[str, tuple[bytes, str]] = {
    "/xsite.html": (_html(CROSS_SITE_JS), "text/html; charset=utf-8"),
    "/echo.html": (_html(ECHO_TOOL_JS), "text/html; charset=utf-8"),
    "/many.html": (_html(MANY_TOOLS_JS), "text/html; charset=utf-8"),
    "/poly.html": (
        _html(ECHO_TOOL_JS, '<script src="/polyfill.js"></script>'),
        "text/html; charset=utf-8",
    ),
}
if POLYFILL.is_file():
    PAGES["/polyfill.js"] = (POLYFILL.read_bytes(), "text/javascript; charset=utf-8")


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        found = PAGES.get(self.path.split("?")[0])
        if found is None:
            self.send_error(404)
            return
        body, kind = found
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve() -> Iterator[str]:
    """The bench pages on http://127.0.0.1:<free port> (a secure context, as WebMCP needs)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


# -- raw CDP: the floor ---------------------------------------------------------------------
class RawCdp:
    """The least a client must do: invokeTool, then wait for its toolResponded."""

    def __init__(self, cdp: CDPSession, frame_id: str) -> None:
        self.cdp = cdp
        self.frame_id = frame_id
        self._waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._early: OrderedDict[str, dict[str, Any]] = OrderedDict()
        cdp.on("WebMCP.toolResponded", self._responded)

    def _responded(self, params: dict[str, Any]) -> None:
        waiter = self._waiters.pop(params["invocationId"], None)
        if waiter is not None:
            if not waiter.done():
                waiter.set_result(params)
            return
        # An answer before invokeTool's reply (or another client's): keep it by invocationId.
        self._early[params["invocationId"]] = params
        if len(self._early) > 1000:
            self._early.popitem(last=False)

    async def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        reply = await self.cdp.send(
            "WebMCP.invokeTool", {"frameId": self.frame_id, "toolName": name, "input": args}
        )
        invocation_id = reply["invocationId"]
        early = self._early.pop(invocation_id, None)
        if early is not None:
            return early
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters[invocation_id] = waiter
        return await waiter


# -- measuring ------------------------------------------------------------------------------
Call = Callable[[], Awaitable[Any]]


async def interleaved(
    calls: dict[str, Call], *, warmup: int, rounds: int
) -> dict[str, list[float]]:
    """Per-call seconds of each call, round-robin, the starting one rotating every round."""
    names = list(calls)
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(warmup + rounds):
        start = r % len(names)
        for name in names[start:] + names[:start]:
            fn = calls[name]
            t0 = time.perf_counter()
            await fn()
            dt = time.perf_counter() - t0
            if r >= warmup:
                samples[name].append(dt)
    return samples


async def batch_seconds_per_call(fn: Call, in_flight: int, total: int) -> float:
    """Seconds per call over total calls run with in_flight of them always running."""
    left = total

    async def worker() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            await fn()

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(in_flight)))
    return (time.perf_counter() - t0) / total


async def discover_ours(context: BrowserContext, url: str) -> float:
    page = await context.new_page()
    try:
        t0 = time.perf_counter()
        session = await WebMCPSession.attach(page, timeout=30)
        await page.goto(url, wait_until="commit")
        last = await session.wait_for_tool(f"tool_{MANY - 1}")
        assert last is not None, "the last tool never showed up"
        # settle=0: discovery itself, not the deliberate quiet window of tools()'s default settle
        tools = await session.tools(settle=0)
        while len(tools) < MANY and time.perf_counter() - t0 < 30:
            tools = await session.tools(settle=0)
        dt = time.perf_counter() - t0
        assert len(tools) == MANY, len(tools)
        await session.close()
        return dt
    finally:
        await page.close()


async def discover_raw(context: BrowserContext, url: str) -> float:
    page = await context.new_page()
    try:
        t0 = time.perf_counter()
        cdp = await context.new_cdp_session(page)
        seen: set[str] = set()
        all_there: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def added(params: dict[str, Any]) -> None:
            seen.update(t["name"] for t in params["tools"])
            if len(seen) >= MANY and not all_there.done():
                all_there.set_result(None)

        cdp.on("WebMCP.toolsAdded", added)
        await cdp.send("WebMCP.enable")
        await page.goto(url, wait_until="commit")
        await asyncio.wait_for(all_there, 30)
        dt = time.perf_counter() - t0
        await cdp.detach()
        return dt
    finally:
        await page.close()


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def pct_ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


# -- the run ----------------------------------------------------------------------------------
async def echo_page(context: BrowserContext, url: str) -> Page:
    page = await context.new_page()
    await page.goto(url)
    await page.wait_for_function("window.toolsReady === true")
    return page


async def run(rounds: int, trials: int, batches: int) -> dict[str, Any]:
    out: dict[str, Any] = {"rounds": rounds, "trials": trials, "batches": batches}
    with serve() as base:
        async with async_playwright() as p:
            browser = await launch(p)
            out["browser"] = browser.version
            try:
                context = await browser.new_context()
                page = await context.new_page()
                session = await WebMCPSession.attach(page, timeout=30)
                await page.goto(f"{base}/echo.html")
                await page.wait_for_function("window.toolsReady === true")
                cdp = await context.new_cdp_session(page)
                tree = await cdp.send("Page.getFrameTree")
                await cdp.send("WebMCP.enable")
                raw = RawCdp(cdp, tree["frameTree"]["frame"]["id"])
                pw = page.webmcp
                xpage = await context.new_page()
                xsession = await WebMCPSession.attach(xpage, timeout=30)
                await xpage.goto(f"{base}/xsite.html")
                xtool = await xsession.wait_for_tool("echo", timeout=30)
                assert xtool is not None, "the cross-site frame's tool never showed up"
                assert xtool.frame_origin.startswith("http://localhost:"), xtool

                args = {"text": "hello"}
                ours_result = await session.call("echo", args)
                raw_result = await raw.call("echo", args)
                pw_result = await pw.call_tool("echo", args)
                assert ours_result == {"content": [{"type": "text", "text": '{"echo":"hello"}'}]}, (
                    ours_result
                )
                assert raw_result["status"] == "Completed", raw_result
                assert pw_result == {"echo": "hello"}, pw_result
                assert await xsession.call("echo", args) == ours_result

                latency_calls: dict[str, Call] = {
                    "ours": lambda: session.call("echo", args),
                    "raw": lambda: raw.call("echo", args),
                    "playwright": lambda: pw.call_tool("echo", args),
                    "cross_site": lambda: xsession.call("echo", args),
                }
                gc.collect()
                out["latency"] = await interleaved(
                    latency_calls, warmup=max(20, rounds // 10), rounds=rounds
                )

                # Throughput in many short batches, ours and raw side by side (the order swapping
                # every batch): a machine busy with other work slows both alike, and the median
                # batch shrugs off the stalls that would swamp one long run.
                out["throughput"] = {}
                fns = {"ours": latency_calls["ours"], "raw": latency_calls["raw"]}
                for in_flight in (1, 4, 16):
                    got: dict[str, list[float]] = {"ours": [], "raw": []}
                    for batch in range(batches + 3):
                        order = ["ours", "raw"] if batch % 2 == 0 else ["raw", "ours"]
                        for name in order:
                            per_call = await batch_seconds_per_call(
                                fns[name], in_flight, 4 * in_flight
                            )
                            if batch >= 3:  # the first ones are warm-up
                                got[name].append(per_call)
                    out["throughput"][in_flight] = got

                discovered: dict[str, list[float]] = {"ours": [], "raw": []}
                many = f"{base}/many.html"
                for trial in range(trials + 1):
                    order = ["ours", "raw"] if trial % 2 == 0 else ["raw", "ours"]
                    for name in order:
                        fn = discover_ours if name == "ours" else discover_raw
                        dt = await fn(context, many)
                        if trial > 0:
                            discovered[name].append(dt)
                out["discovery"] = discovered
                await xsession.close()
                await session.close()
                await context.close()
                out["inpage"] = await inpage_row(p, browser, base, rounds)
            finally:
                await browser.close()
    return out


async def inpage_row(p: Any, native: Any, base: str, rounds: int) -> dict[str, Any]:
    """Per-call latency through a polyfilled page against the native CDP path, or why not."""
    try:
        from webmcp_harness.session._backends import inpage  # noqa: F401
    except ImportError as exc:
        return {"skipped": f"no in-page backend ({exc})"}
    if not POLYFILL.is_file():
        return {"skipped": f"no polyfill at {POLYFILL.relative_to(ROOT)}"}
    plain = await launch(p, webmcp=False)  # the polyfill steps aside where WebMCP is native
    try:
        native_page = await echo_page(await native.new_context(), f"{base}/echo.html")
        native_session = await WebMCPSession.attach(native_page, timeout=30, backend="cdp")
        poly_page = await plain.new_page()
        try:
            poly_session = await WebMCPSession.attach(poly_page, timeout=30, backend="inpage")
            await poly_page.goto(f"{base}/poly.html")
            await poly_page.wait_for_function("window.toolsReady === true")
            args = {"text": "hello"}
            got = await poly_session.call("echo", args)
            want = await native_session.call("echo", args)
            if got != want:
                return {"skipped": f"the in-page backend answered {got!r}, not {want!r}"}
        except Exception as exc:
            return {"skipped": f"the in-page backend does not work yet: {exc!r}"[:300]}
        samples = await interleaved(
            {
                "inpage": lambda: poly_session.call("echo", args),
                "native": lambda: native_session.call("echo", args),
            },
            warmup=max(10, rounds // 20),
            rounds=max(50, rounds // 4),
        )
        await poly_session.close()
        await native_session.close()
        return samples
    finally:
        await plain.close()


# -- the table ------------------------------------------------------------------------------
def report(out: dict[str, Any]) -> tuple[str, bool]:
    lat = out["latency"]
    ours, raw, pw = (median_ms(lat[k]) for k in ("ours", "raw", "playwright"))
    rows: list[tuple[str, str, str, str, str]] = []
    ok = True

    def row(what: str, ratio: float, target: str, met: bool | None, absolute: str) -> None:
        nonlocal ok
        verdict = "" if met is None else ("ok" if met else "MISSED")
        ok = ok and met is not False
        rows.append((what, f"{ratio:.2f}x", target, verdict, absolute))

    row(
        "per call: session.call / raw CDP",
        ours / raw,
        "<= 1.15x",
        ours / raw <= 1.15,
        f"{ours:.3f} ms vs {raw:.3f} ms (p90 {pct_ms(lat['ours'], 0.9):.3f} vs "
        f"{pct_ms(lat['raw'], 0.9):.3f})",
    )
    row(
        "per call: session.call / page.webmcp.call_tool",
        ours / pw,
        "<= 0.50x",
        ours / pw <= 0.5,
        f"{ours:.3f} ms vs {pw:.3f} ms (p90 {pct_ms(lat['playwright'], 0.9):.3f})",
    )
    row("per call: raw CDP / page.webmcp.call_tool", raw / pw, "(floor)", None, "")
    cross = median_ms(lat["cross_site"])
    row(
        "per call: cross-site frame / main frame (session.call)",
        cross / ours,
        "<= 1.20x",
        cross / ours <= 1.2,
        f"{cross:.3f} ms vs {ours:.3f} ms (p90 {pct_ms(lat['cross_site'], 0.9):.3f})",
    )
    for in_flight, got in out["throughput"].items():
        o, r = statistics.median(got["ours"]), statistics.median(got["raw"])
        row(
            f"throughput, {in_flight:>2} in flight: time per call ours / raw",
            o / r,
            "(info)",
            None,
            f"{1 / o:,.0f} vs {1 / r:,.0f} calls/s",
        )
    disc = out["discovery"]
    do, dr = median_ms(disc["ours"]), median_ms(disc["raw"])
    row(
        f"discovery of {MANY:,} tools: ours / raw",
        do / dr,
        "<= 2.00x",
        do / dr <= 2.0,
        f"{do:.1f} ms vs {dr:.1f} ms",
    )
    inpage = out.get("inpage") or {}
    skipped = inpage.get("skipped")
    if skipped is None:
        ip, nat = median_ms(inpage["inpage"]), median_ms(inpage["native"])
        row(
            "per call: in-page (polyfill) / native CDP",
            ip / nat,
            "(info)",
            None,
            f"{ip:.3f} ms vs {nat:.3f} ms",
        )
    widths = [max(len(r[i]) for r in [*rows, _HEAD]) for i in range(5)]
    lines = [
        f"webmcp-harness call overhead ({out['browser']}, {out['rounds']} interleaved rounds, "
        f"{out['batches']} batches of 4x in-flight calls per throughput point, "
        f"{out['trials']} discovery trials)",
        "  ".join(h.ljust(w) for h, w in zip(_HEAD, widths, strict=True)),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    if skipped is not None:
        lines.append(f"per call: in-page (polyfill) / native CDP: not measured: {skipped}")
    return "\n".join(lines), ok


_HEAD = ("measure", "ratio", "target", "", "absolute (median)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.call_overhead", description=__doc__)
    parser.add_argument("--rounds", type=int, default=1000, help="interleaved latency rounds")
    parser.add_argument("--trials", type=int, default=11, help="discovery trials")
    parser.add_argument("--batches", type=int, default=100, help="throughput batches per point")
    parser.add_argument("--json", action="store_true", help="also print the raw samples as JSON")
    options = parser.parse_args(argv)
    out = asyncio.run(run(options.rounds, options.trials, options.batches))
    table, ok = report(out)
    print(table)
    if options.json:
        print(json.dumps(out, default=str))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
