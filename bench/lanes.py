"""`check`'s workers open page after page in one tab: against a context for every page.

Run with `.venv/bin/python -m bench.lanes` (options: `--repeat`, `--json`).

The demo shop's 7 pages, each checked in full (the same options as a bare `check`), one page at
a time, in one browser:
- page after page: `check_urls` with one worker, which keeps its context and tab from page to
  page and puts them back as they began between pages (storage, cookies, windows);
- a context per page: `Checker.check_page` for each page in turn, which opens a context of its
  own each time (as every page was checked before).

Both ways run in turn in each round. It prints the ratios of the wall time and of the CPU time
the whole machine spent (`/proc/stat`: the checker, its Playwright driver and the browser's
processes), then the medians. Run it on a quiet machine: the CPU figure counts everything.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from typing import Any

from webmcp_harness.conformance.runner import Checker, CheckOptions, check_urls
from webmcp_harness.session.browser import launch
from webmcp_harness.testing.demo import serve_demo

from .check_scale import _machine_busy

PATHS = ["/", "/track", "/returns", "/cart", "/product?id=harbor-mug", "/checkout", "/order"]


async def _rounds(repeat: int) -> dict[str, list[tuple[float, float]]]:
    from playwright.async_api import async_playwright

    demo = serve_demo()
    urls = [demo.url.rstrip("/") + path for path in PATHS]
    options = CheckOptions(workers=1)
    found: dict[str, list[tuple[float, float]]] = {"page after page": [], "a context per page": []}
    try:
        async with async_playwright() as p:
            browser = await launch(p)

            async def lanes() -> int:
                report = await check_urls(browser, urls, options)
                return len(report.findings)

            async def contexts() -> int:
                checker = Checker(browser, options)
                visits = [await checker.check_page(url) for url in urls]
                return sum(len(v.col.findings) for v in visits)

            ways = {"page after page": lanes, "a context per page": contexts}
            for way in ways.values():  # warm-up: disk caches, the HTTP cache of a fresh browser
                await way()
            for _ in range(repeat):
                for name, way in ways.items():
                    cpu, wall = _machine_busy()[0], time.perf_counter()
                    findings = await way()
                    found[name].append((time.perf_counter() - wall, _machine_busy()[0] - cpu))
                    if findings:
                        raise SystemExit(f"{name}: {findings} findings on the demo (expected 0)")
            await browser.close()
    finally:
        demo.stop()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lanes", description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="rounds of both ways (default 5)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    found = asyncio.run(_rounds(max(1, args.repeat)))
    medians: dict[str, dict[str, Any]] = {
        name: {
            "wall": statistics.median(w for w, _ in runs),
            "cpu": statistics.median(c for _, c in runs),
            "runs": [[round(w, 3), round(c, 3)] for w, c in runs],
        }
        for name, runs in found.items()
    }
    new, old = medians["page after page"], medians["a context per page"]
    ratios = {
        "wall: page after page / a context per page": new["wall"] / old["wall"],
        "CPU: page after page / a context per page": new["cpu"] / old["cpu"],
    }
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"ratios": ratios, "medians": medians, "load": load}, indent=2))
        return 0
    print(f"lanes: {len(PATHS)} demo pages one at a time, median of {args.repeat}, load {load:.1f}")
    print()
    print(f"{'ratio':50s} {'value':>6s}")
    for name, value in ratios.items():
        print(f"{name:50s} {value:6.2f}")
    print()
    print(f"{'way':22s} {'wall s':>7s} {'CPU s':>7s}")
    for name, row in medians.items():
        print(f"{name:22s} {row['wall']:7.2f} {row['cpu']:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
