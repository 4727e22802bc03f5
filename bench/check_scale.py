"""How `webmcp-harness check` scales: a page with 200 tools, and a 20-page crawl by worker count.

Run with `.venv/bin/python -m bench.check_scale` (options: `--repeat`, `--json`).

A generated site is served from 127.0.0.1:
- `/many.html`: 200 tools (half marked readOnlyHint, each with an input schema), checked with
  `--call readonly` (100 tools called twice: valid and invalid input), `--call all` (200 tools) and
  `--call none` (no calls: discovery, metadata and safety only);
- `/index.html` linking to 19 more pages with 5 tools each (2 read-only): a 20-page crawl at
  depth 1, with 1, 2 and 4 workers (one browser, one context per worker, page after page).

And the bare `webmcp-harness check` of the demo shop, as a user runs it (a new process: imports,
demo server, browser launch, the crawl, the reports), against a floor: a new process that starts
the same demo server, launches the same browser with the same flags, and opens the same pages
(4 at a time, a context each, to their load event), with nothing else. Target: at most 2x.

With `--grid`: a 40-page site checked over one and over two `webmcp-harness browser-server`
nodes (`--grid-workers`, default 2, per browser both times; pages per second, target >= 1.6x), once as served
from disk and once with `--latency` ms (default 300) before each response, as a real site's
server takes; with the CPU seconds per page of each process (the checker, its Playwright driver,
each node with its browser) and how busy the machine's cores were, which say what limits it.
And the peak RSS of the harness process (`webmcp-harness check` in a new process, VmHWM) over a
100- and a 1,000-page site (target: within 1.2x). `--rss-pages 100,300` picks the sizes
(`--rss-pages ""`: none).

With `--selenium-grid`: the same 40-page site, with `--latency` ms before each response, checked
over one and over two sessions of a Selenium Grid 4 (a hub with two nodes of one slot each on
127.0.0.1, from the jar `scripts/setup.sh` installs; `--workers 1` per session, so one node against
two: pages per second, target >= 1.6x); and the grid's own cost, in the same run: a `call` of the
demo's get_product through the grid against a local one, as a user runs it (a new process each,
alternating), and one tool call on a page already open (the CDP proxy's hop).

It prints the ratios first; the medians of the runs are the seconds in the columns after them.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, async_playwright

from webmcp_harness.conformance.runner import CheckOptions, check_urls
from webmcp_harness.session.browser import launch

MANY = 200
PAGES = 20
PER_PAGE = 5

TOOL_JS = """
document.modelContext.registerTool({
  name: "%(name)s",
  description: "Get the forecast for region %(name)s, by day: temperature, rain and wind.",
  inputSchema: {
    type: "object",
    properties: {
      region: { type: "string", description: "The region, like north-west." },
      days: { type: "integer", minimum: 1, maximum: 7, description: "How many days ahead." },
    },
    required: ["region"],
  },
  %(annotations)s
  execute: async (input) => typeof input.region === "string"
    ? { region: input.region, forecast: "sunny" }
    : "Error [invalid_input]: give the region as a string, like north-west.",
});
"""


def _page(title: str, tools: list[tuple[str, bool]], links: list[str] | None = None) -> str:
    scripts = "".join(
        TOOL_JS
        % {"name": name, "annotations": "annotations: { readOnlyHint: true }," if ro else ""}
        for name, ro in tools
    )
    nav = "".join(f'<a href="{href}">{href}</a>\n' for href in links or [])
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"</head><body><h1>{title}</h1><nav>{nav}</nav><script>{scripts}</script></body></html>"
    )


def write_site(root: Path) -> None:
    """The generated pages: many.html, and index.html with its 19 linked pages."""
    (root / "many.html").write_text(
        _page("200 tools", [(f"get_forecast_{i}", i % 2 == 0) for i in range(MANY)]), "utf-8"
    )
    others = [f"page-{i}.html" for i in range(1, PAGES)]
    for index, name in enumerate(["index.html", *others]):
        tools = [(f"get_forecast_{index}_{k}", k < 2) for k in range(PER_PAGE)]
        links = others if name == "index.html" else ["index.html"]
        (root / name).write_text(_page(name, tools, links), "utf-8")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    delay = 0.0  # seconds before each response (a remote server's latency)

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.delay:
            time.sleep(self.delay)  # the latency being simulated, in the server's own thread
        super().do_GET()


@contextmanager
def serve(root: Path, delay: float = 0.0) -> Iterator[str]:
    quiet = type("_Delayed", (_Quiet,), {"delay": delay}) if delay else _Quiet
    handler = functools.partial(quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


async def _timed(browser: Browser, urls: list[str], options: CheckOptions) -> dict[str, Any]:
    started = time.perf_counter()
    report = await check_urls(browser, urls, options)
    took = time.perf_counter() - started
    return {
        "seconds": took,
        "pages": len(report.pages),
        "tools": sum(len(p.tools) for p in report.pages),
        "calls": len(report.records),
        "findings": len(report.findings),
    }


async def measure(base: str, repeat: int) -> list[dict[str, Any]]:
    scenarios: list[tuple[str, list[str], CheckOptions]] = [
        ("200 tools, --call none", [f"{base}/many.html"], CheckOptions(call="none")),
        ("200 tools, --call readonly", [f"{base}/many.html"], CheckOptions(call="readonly")),
        (
            "200 tools, --call all",
            [f"{base}/many.html"],
            CheckOptions(call="all", max_called_tools=MANY),
        ),
    ]
    for workers in (1, 2, 4):
        scenarios.append(
            (
                f"20-page crawl, --workers {workers}",
                [f"{base}/index.html"],
                CheckOptions(crawl=1, workers=workers),
            )
        )
    rows: list[dict[str, Any]] = []
    async with async_playwright() as p:
        browser = await launch(p)
        await _timed(browser, [f"{base}/index.html"], CheckOptions())  # warm-up
        for name, urls, options in scenarios:
            options.timeout = 10
            runs = [await _timed(browser, urls, options) for _ in range(repeat)]
            row = dict(runs[0])
            row["name"] = name
            row["seconds"] = statistics.median(r["seconds"] for r in runs)
            row["runs"] = [round(r["seconds"], 3) for r in runs]
            rows.append(row)
        await browser.close()
    return rows


# The floor: the same demo server (demo.py has only standard-library imports, so it is loaded
# by path, without the package), the same browser and flags, the same pages; nothing else.
FLOOR_JS = r"""
import asyncio, importlib.util, sys
spec = importlib.util.spec_from_file_location("demo_floor", sys.argv[1])
demo = importlib.util.module_from_spec(spec); spec.loader.exec_module(demo)
from playwright.async_api import async_playwright
paths, args, path = sys.argv[3].split("\n"), sys.argv[2].split("\n"), sys.argv[4]
async def main():
    server = demo.serve_demo()
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=path, headless=True, args=args)
            gate = asyncio.Semaphore(4)
            async def one(rel):
                async with gate:
                    context = await browser.new_context()
                    page = await context.new_page()
                    await page.goto(server.url.rstrip("/") + rel, wait_until="load")
                    await context.close()
            await asyncio.gather(*(one(rel) for rel in paths))
            await browser.close()
    finally:
        server.stop()
asyncio.run(main())
"""


def _wall(argv: list[str], what: str) -> float:
    """Seconds argv took; a run that fails stops the bench, saying why (its time means nothing)."""
    started = time.perf_counter()
    ran = subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = time.perf_counter() - started
    if ran.returncode != 0:
        said = ran.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise SystemExit(f"{what} failed (exit {ran.returncode}): " + " / ".join(said))
    return took


def measure_bare_check(repeat: int) -> list[dict[str, Any]]:
    """Bare `check` of the demo shop against the floor, each a new process, alternating."""
    from urllib.parse import urlsplit

    from webmcp_harness.session.browser import find_browser, launch_args
    from webmcp_harness.testing import demo

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.json"
        check = [sys.executable, "-m", "webmcp_harness", "check", "--json-report", str(out)]
        _wall(check, "the bare check")  # warm-up (disk caches), and the pages it visits
        pages = [p["url"] for p in json.loads(out.read_text("utf-8"))["pages"]]
        rels = [urlsplit(u)._replace(scheme="", netloc="").geturl() for u in pages]
        floor = [
            sys.executable, "-c", FLOOR_JS, demo.__file__, "\n".join(launch_args()),
            "\n".join(rels), find_browser(),
        ]  # fmt: skip
        checks, floors = [], []
        for _ in range(repeat):
            checks.append(_wall(check, "the bare check"))
            floors.append(_wall(floor, "the floor script"))
    row = {"pages": len(pages), "tools": 0, "calls": 0}
    return [
        {**row, "name": "bare check of the demo shop", "seconds": statistics.median(checks),
         "runs": [round(x, 3) for x in checks]},
        {**row, "name": "floor: launch + open its pages", "seconds": statistics.median(floors),
         "runs": [round(x, 3) for x in floors]},
    ]  # fmt: skip


def write_flat_site(root: Path, pages: int) -> None:
    """index.html linking to pages - 1 more, each with two read-only tools (a crawl at depth 1)."""
    others = [f"flat-{i}.html" for i in range(1, pages)]
    for index, name in enumerate(["index.html", *others]):
        tools = [(f"page_{index}_{k}", True) for k in range(2)]
        (root / name).write_text(
            _page(name, tools, others if name == "index.html" else None), "utf-8"
        )


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_table() -> dict[int, tuple[int, float]]:
    """Every process, from /proc: pid -> (its parent's pid, its CPU seconds, user + system, with
    its reaped children's)."""
    found: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        found[int(entry.name)] = (int(fields[1]), sum(int(x) for x in fields[11:15]) / _TICK)
    return found


def _cpu_by_tree(roots: dict[str, int]) -> dict[str, float]:
    """CPU seconds (user + system, reaped children included) of each root process with all its
    descendants (a browser's processes are its launcher's descendants, though in a process group
    of their own); a root inside another's tree is left out of that one."""
    table = process_table()
    owner = {pid: name for name, pid in roots.items()}
    totals = dict.fromkeys(roots, 0.0)
    for pid, (_, seconds) in table.items():
        walk = pid
        while walk not in owner and walk in table and walk > 1:
            walk = table[walk][0]
        if walk in owner:
            totals[owner[walk]] += seconds
    return totals


def _own_cpu() -> float:
    """CPU seconds of this process alone (the checker, and the site's HTTP server threads)."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def _machine_busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far, from /proc/stat."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]
    return (sum(ticks) - idle) / _TICK, sum(ticks) / _TICK


async def _grid_rate(
    url: str, endpoints: list[str], options: CheckOptions, groups: dict[str, int]
) -> dict[str, float]:
    """Pages per second of a check of url spread over the browsers of endpoints, and the CPU
    seconds per page of each process (groups: node name -> its process group)."""
    from webmcp_harness.session.browser import connect

    roots = {**groups, "ours": os.getpid()}
    before, own, machine = _cpu_by_tree(roots), _own_cpu(), _machine_busy()
    async with async_playwright() as p:
        grid = [await connect(p, ws_endpoint=ws) for ws in endpoints]
        started = time.perf_counter()
        report = await check_urls(grid, [url], options, names=endpoints)
        took = time.perf_counter() - started
        for browser in grid:
            await browser.close()
    after, own_after, machine_after = _cpu_by_tree(roots), _own_cpu(), _machine_busy()
    pages = max(len(report.pages), 1)
    used = {name: after[name] - before[name] for name in roots}  # "ours": checker + driver
    row = {"pages_per_second": len(report.pages) / took, "checker": (own_after - own) / pages}
    row["driver"] = (used.pop("ours") - (own_after - own)) / pages
    row.update({name: seconds / pages for name, seconds in used.items()})
    busy, total = machine_after[0] - machine[0], machine_after[1] - machine[1]
    row["machine_busy"] = busy / total if total else float("nan")
    row["ours_cores"] = (row["checker"] + row["driver"] + sum(used.values()) / pages) * pages / took
    return row


def _median_row(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(r.get(key, 0.0) for r in runs) for key in runs[0]}


def measure_grid(
    repeat: int, latency: float, workers: int = 2
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Pages per second over one and two grid nodes (workers per browser), alternating runs,
    for the pages as served from disk and with latency seconds before each response."""
    from webmcp_harness.session.grid import BrowserServer

    options = CheckOptions(crawl=1, workers=workers, timeout=20)
    ratios: dict[str, float] = {}
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder, BrowserServer() as a, BrowserServer() as b:
        write_flat_site(Path(folder), 40)
        groups = {"node A": a.pid or 0, "node B": b.pid or 0}  # each with its browser
        for delay in (0.0, latency):
            label = f"{delay * 1000:.0f} ms latency" if delay else "from disk"
            with serve(Path(folder), delay) as base:
                url = f"{base}/index.html"
                asyncio.run(_grid_rate(url, [a.ws_endpoint], options, groups))  # warm-up
                one, two = [], []
                for _ in range(repeat):
                    one.append(asyncio.run(_grid_rate(url, [a.ws_endpoint], options, groups)))
                    both = [a.ws_endpoint, b.ws_endpoint]
                    two.append(asyncio.run(_grid_rate(url, both, options, groups)))
            first, second = _median_row(one), _median_row(two)
            rows.append({"name": f"grid: 40 pages, {label}, 1 server", **first})
            rows.append({"name": f"grid: 40 pages, {label}, 2 servers", **second})
            key = (
                f"grid, {label}, --workers {workers}: 2 servers / 1 server, pages/s (target >= 1.6)"
            )
            ratios[key] = second["pages_per_second"] / first["pages_per_second"]
    return ratios, rows


async def _selenium_rate(url: str, grid: Any, sessions: int, options: CheckOptions) -> float:
    """Pages per second of a check of url over that many sessions of grid (opened first)."""
    from webmcp_harness.session.selenium import open_session

    async with async_playwright() as p:
        opened = await asyncio.gather(*(open_session(p, grid) for _ in range(sessions)))
        try:
            browsers = [o.browser for o in opened]
            started = time.perf_counter()
            report = await check_urls(
                browsers, [url], options, names=[o.session.name for o in opened]
            )
            took = time.perf_counter() - started
        finally:
            await asyncio.gather(*(o.close() for o in opened))
    if any(page.error for page in report.pages):
        raise SystemExit(
            f"a page failed on the grid: {next(p.error for p in report.pages if p.error)}"
        )
    return len(report.pages) / took


async def _call_seconds(grid: Any, demo: str, calls: int) -> float:
    """Median seconds of one get_product call on the demo's page, open in a grid session's
    browser (grid) or a local one (None)."""
    from webmcp_harness import WebMCPSession
    from webmcp_harness.session.selenium import open_session

    async with async_playwright() as p:
        opened = await open_session(p, grid) if grid is not None else None
        browser = opened.browser if opened is not None else await launch(p)
        try:
            page = await (await browser.new_context()).new_page()
            session = await WebMCPSession.attach(page)
            await page.goto(demo)
            args = {"product_id": "beacon-lantern"}
            await session.call("get_product", args)  # warm-up
            times = []
            for _ in range(calls):
                started = time.perf_counter()
                await session.call("get_product", args)
                times.append(time.perf_counter() - started)
            await session.close()
            return statistics.median(times)
        finally:
            if opened is not None:
                await opened.close()
            else:
                await browser.close()


def measure_selenium_grid(
    repeat: int, latency: float
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """One node against two (a session each, --workers 1), alternating runs, and the grid's cost
    of a `call`: the command, and one call on an open page."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from selenium_grid import Hub, why_no_grid
    from webmcp_harness.session.selenium import SeleniumGrid
    from webmcp_harness.testing.demo import DemoServer

    why = why_no_grid()
    if why:
        raise SystemExit(f"no Selenium Grid here: {why}")
    options = CheckOptions(crawl=1, workers=1, timeout=20)
    with tempfile.TemporaryDirectory() as folder:
        hub = Hub(Path(folder))
        try:
            grid = SeleniumGrid.at(hub.url)
            write_flat_site(Path(folder), 40)
            with serve(Path(folder), latency) as base, DemoServer() as demo:
                url = f"{base}/index.html"
                asyncio.run(_selenium_rate(url, grid, 1, options))  # warm-up (caches, the JIT)
                one, two = [], []
                for _ in range(repeat):
                    one.append(asyncio.run(_selenium_rate(url, grid, 1, options)))
                    two.append(asyncio.run(_selenium_rate(url, grid, 2, options)))
                argv = [sys.executable, "-m", "webmcp_harness", "call", demo.url, "get_product"]
                argv.append('{"product_id": "beacon-lantern"}')
                _wall(argv, "a local call")  # warm-up
                local, through = [], []
                for _ in range(repeat):
                    local.append(_wall(argv, "a local call"))
                    through.append(_wall([*argv, "--selenium-grid", hub.url], "a grid call"))
                open_local = asyncio.run(_call_seconds(None, demo.url, 50))
                open_grid = asyncio.run(_call_seconds(grid, demo.url, 50))
        finally:
            hub.stop()
    label = f"{latency * 1000:.0f} ms latency"
    rows = [
        {"name": f"selenium grid: 40 pages, {label}, 1 node", "value": statistics.median(one),
         "unit": "pages/s", "runs": [round(x, 2) for x in one]},
        {"name": f"selenium grid: 40 pages, {label}, 2 nodes", "value": statistics.median(two),
         "unit": "pages/s", "runs": [round(x, 2) for x in two]},
        {"name": "`call` command, local", "value": statistics.median(local), "unit": "s",
         "runs": [round(x, 2) for x in local]},
        {"name": "`call` command, through the grid", "value": statistics.median(through),
         "unit": "s", "runs": [round(x, 2) for x in through]},
        {"name": "one call on an open page, local", "value": open_local * 1000, "unit": "ms"},
        {"name": "one call on an open page, through the grid", "value": open_grid * 1000,
         "unit": "ms"},
    ]  # fmt: skip
    ratios = {
        f"selenium grid, {label}, --workers 1: 2 nodes / 1 node, pages/s (target >= 1.6)": (
            statistics.median(two) / statistics.median(one)
        ),
        "`call` command: through the grid / local, seconds": (
            statistics.median(through) / statistics.median(local)
        ),
        "one call on an open page: through the grid / local, seconds": open_grid / open_local,
    }
    return ratios, rows


def _load() -> str:
    """The machine's load averages (1, 5 and 15 minutes), as /proc/loadavg gives them."""
    where = Path("/proc/loadavg")
    return " ".join(where.read_text().split()[:3]) if where.exists() else "unknown"


def _print_selenium_grid(args: argparse.Namespace) -> int:
    before = _load()
    ratios, rows = measure_selenium_grid(max(1, args.repeat), args.latency / 1000)
    if args.json:
        print(json.dumps({"ratios": ratios, "rows": rows}, indent=2))
        return 0
    print(
        f"check_scale --selenium-grid: {os.cpu_count()} CPUs, load average {before} before and "
        f"{_load()} after, median of {args.repeat} run(s)"
    )
    print()
    print(f"{'ratio':72} {'value':>6}")
    for name, value in ratios.items():
        print(f"{name:72} {value:6.2f}")
    print()
    for row in rows:
        runs = f"  runs {row['runs']}" if "runs" in row else ""
        print(f"{row['name']:52} {row['value']:8.2f} {row['unit']}{runs}")
    return 0


def _peak_rss(argv: list[str]) -> int:
    """The peak resident memory (VmHWM, kB) of the process argv starts, read as it runs."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    status = Path(f"/proc/{process.pid}/status")
    while process.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.2)  # a sampling interval, not a wait on the check
    return peak


def measure_rss(sizes: list[int]) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Peak RSS of `webmcp-harness check` (its own process, not the browser's) by site size."""
    rows: list[dict[str, Any]] = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            write_flat_site(Path(folder), size)
            out = Path(folder) / "report.json"
            with serve(Path(folder)) as base:
                argv = [sys.executable, "-m", "webmcp_harness", "check", f"{base}/index.html"]
                argv += ["--crawl", "1", "--max-pages", str(size), "--json-report", str(out)]
                peak = _peak_rss(argv)
            pages = len(json.loads(out.read_text("utf-8"))["pages"])
        rows.append({"name": f"peak RSS, {size}-page site", "pages": pages, "rss_mb": peak / 1024})
    ratio = rows[-1]["rss_mb"] / rows[0]["rss_mb"] if rows[0]["rss_mb"] else float("nan")
    return {f"peak RSS: {sizes[-1]} / {sizes[0]} pages (target <= 1.2)": ratio}, rows


def _ratio(rows: list[dict[str, Any]], a: str, b: str) -> float:
    by = {r["name"]: r["seconds"] for r in rows}
    return by[a] / by[b] if by.get(b) else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per scenario (median)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--only-check", action="store_true", help="only the bare check against its floor"
    )
    parser.add_argument(
        "--grid", action="store_true", help="only the grid rows: 1 vs 2 servers, peak RSS"
    )
    parser.add_argument(
        "--selenium-grid",
        action="store_true",
        help="only the Selenium Grid rows: 2 nodes vs 1, and the grid's cost of a call",
    )
    parser.add_argument("--rss-pages", default="100,1000", help="site sizes for the RSS rows")
    parser.add_argument(
        "--grid-workers", type=int, default=2, help="--workers per browser in the grid rows"
    )
    parser.add_argument(
        "--latency",
        type=float,
        default=300,
        help="ms before each response (grid and Selenium Grid rows)",
    )
    args = parser.parse_args(argv)
    if args.selenium_grid:
        return _print_selenium_grid(args)
    if args.grid:
        return _print_grid(args)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_site(root)
        with serve(root) as base:
            rows = [] if args.only_check else asyncio.run(measure(base, max(1, args.repeat)))
    rows += measure_bare_check(max(1, args.repeat))
    ratios = {
        "bare check / floor (target <= 2)": _ratio(
            rows, "bare check of the demo shop", "floor: launch + open its pages"
        ),
        "crawl: --workers 1 / --workers 4 (speed-up)": _ratio(
            rows, "20-page crawl, --workers 1", "20-page crawl, --workers 4"
        ),
        "crawl: --workers 1 / --workers 2 (speed-up)": _ratio(
            rows, "20-page crawl, --workers 1", "20-page crawl, --workers 2"
        ),
        "200 tools: readonly calls / no calls": _ratio(
            rows, "200 tools, --call readonly", "200 tools, --call none"
        ),
        "200 tools: all calls / no calls": _ratio(
            rows, "200 tools, --call all", "200 tools, --call none"
        ),
    }
    if args.json:
        print(json.dumps({"ratios": ratios, "rows": rows}, indent=2))
        return 0
    cpus = os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"check_scale: {cpus} CPUs, load average {load:.1f}, median of {args.repeat} run(s)")
    print()
    print(f"{'ratio':48} {'value':>8}")
    for name, value in ratios.items():
        print(f"{name:48} {value:8.2f}")
    print()
    header = f"{'scenario':32} {'pages':>5} {'tools':>6} {'calls':>6} {'seconds':>8} {'s/page':>7}"
    print(header)
    for row in rows:
        print(
            f"{row['name']:32} {row['pages']:5d} {row['tools']:6d} {row['calls']:6d} "
            f"{row['seconds']:8.2f} {row['seconds'] / max(row['pages'], 1):7.2f}"
        )
    return 0


def _print_grid(args: argparse.Namespace) -> int:
    ratios, rows = measure_grid(max(1, args.repeat), args.latency / 1000, max(1, args.grid_workers))
    sizes = [int(n) for n in args.rss_pages.split(",") if n.strip()]
    more, rss = measure_rss(sizes) if sizes else ({}, [])
    ratios.update(more)
    if args.json:
        print(json.dumps({"ratios": ratios, "rows": rows + rss}, indent=2))
        return 0
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"check_scale --grid: {os.cpu_count()} CPUs, load average {load:.1f}")
    for name, value in ratios.items():
        print(f"{name:56} {value:6.2f}")
    for row in rows:
        print(f"{row['name']:56} {row['pages_per_second']:6.2f} pages/s")
    print()
    print("CPU seconds per page, by process; cores busy (of the machine, and ours):")
    print(
        f"{'':44} {'checker':>8} {'driver':>7} {'node A':>7} {'node B':>7} {'busy':>5} {'ours':>5}"
    )
    for row in rows:
        print(
            f"{row['name']:44} {row['checker']:8.3f} {row['driver']:7.3f} {row['node A']:7.3f} "
            f"{row['node B']:7.3f} {row['machine_busy']:5.0%} {row['ours_cores']:5.2f}"
        )
    for row in rss:
        print(f"{row['name']:56} {row['rss_mb']:6.1f} MB ({row['pages']} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
