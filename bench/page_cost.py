"""What one browser test pays for its page, in CPU (every process: Python, Playwright's driver,
Chromium's browser, renderers, GPU and utility processes), measured in one run.

Run with `.venv/bin/python -m bench.page_cost` (options: `--rounds`, `--block`, `--json`,
`--flag ARG` to add a browser launched with ARG as one more variant, repeatable; `--flag
exe:PATH` launches the executable at PATH instead, with the same switches).

Each variant is a round of what a test does with a page: a new context, a page, the demo's
catalog (or `/track`), a session and its tools, closing. The variants take turns in blocks of
`--block` rounds, so each sees the same machine (it is noisy). A block's CPU is the change in
user + system time of this process and all its descendants (a process that ended counts in its
parent's, once reaped); a block ends when Chromium is back to the processes it had before it, so
a context's teardown counts in its own block. It prints CPU and wall per round, and each variant's
ratio to the first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page, Route, async_playwright

from webmcp_harness import WebMCPSession
from webmcp_harness.session import quiet
from webmcp_harness.session.browser import find_browser, launch, launch_args, merge_features
from webmcp_harness.testing.demo import DemoServer

from .check_scale import process_table

_SETTLE_WAIT = 5.0  # seconds a block waits for Chromium to be back to its processes
_POLL = 0.05


def _kind(pid: int) -> str:
    """What a process is: python, node (Playwright's driver), browser, or Chromium's --type."""
    if pid == os.getpid():
        return "python"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
    except OSError:
        return "gone"
    kind = next((w[7:].decode() for w in words if w.startswith(b"--type=")), "")
    if kind == "utility":
        sub = next((w for w in words if w.startswith(b"--utility-sub-type=")), b"")
        kind = "utility:" + sub.decode().rsplit(".", 1)[-1]
    if kind:
        return kind  # a renderer that ended counts in the zygote, which reaps it
    return "node" if words and words[0].endswith(b"node") else "browser"


def tree(by_kind: dict[str, float] | None = None) -> tuple[float, int]:
    """CPU seconds of this process and all its descendants, and how many there are; by_kind, when
    given, gets each kind's seconds added."""
    procs = process_table()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in procs.items():
        children.setdefault(parent, []).append(pid)
    total, count, todo = 0.0, 0, [os.getpid()]
    while todo:
        pid = todo.pop()
        if pid in procs:
            total += procs[pid][1]
            count += 1
            if by_kind is not None:
                kind = _kind(pid)
                by_kind[kind] = by_kind.get(kind, 0.0) + procs[pid][1]
        todo.extend(children.get(pid, ()))
    return total, count


async def _back_to(count: int) -> None:
    """Until the process tree is back to count processes (bounded)."""
    for _ in range(int(_SETTLE_WAIT / _POLL)):
        if tree()[1] <= count:
            return
        await asyncio.sleep(_POLL)  # sleep-ok: polling /proc (no event tells a process ended)


def _with(args: list[str], flag: str) -> list[str]:
    """args and flag; a feature list is merged into args' own (Chromium reads only the last)."""
    for switch in ("enable", "disable"):
        prefix = f"--{switch}-features="
        if flag.startswith(prefix):
            features = flag[len(prefix) :].split(",")
            return merge_features(
                args,
                enable=features if switch == "enable" else [],
                disable=features if switch == "disable" else [],
            )
    return [*args, flag]


Round = Callable[[], Awaitable[None]]


class Bench:
    def __init__(self, browser: Browser, demo: DemoServer) -> None:
        self.browser = browser
        self.demo = demo
        self.shared: BrowserContext | None = None
        self.kept: Page | None = None

    @property
    def catalog(self) -> str:
        return self.demo.url + "/"

    async def ctx_goto(self, url: str, *, browser: Browser | None = None, **options: Any) -> None:
        context = await (browser or self.browser).new_context(**options)
        page = await context.new_page()
        await page.goto(url)
        await context.close()

    async def ctx_goto_no_frame(self) -> None:
        """The catalog with its cross-site support frame left empty (about:blank): what the
        frame's own renderer and page cost."""
        context = await self.browser.new_context()

        async def without_widget(route: Route) -> None:
            response = await route.fetch()
            body = re.sub(r'src="[^"]*/support-widget"', 'src="about:blank"', await response.text())
            await route.fulfill(response=response, body=body)

        await context.route(self.catalog, without_widget)
        page = await context.new_page()
        await page.goto(self.catalog)
        await context.close()

    async def ctx_goto_unstyled(self) -> None:
        """The catalog with an empty stylesheet: what painting its styles costs."""
        context = await self.browser.new_context()

        async def empty(route: Route) -> None:
            await route.fulfill(body="", content_type="text/css")

        await context.route("**/style.css", empty)
        page = await context.new_page()
        await page.goto(self.catalog)
        await context.close()

    async def shared_page_goto(self) -> None:
        if self.shared is None:
            self.shared = await self.browser.new_context()
        page = await self.shared.new_page()
        await page.goto(self.catalog)
        await page.close()

    async def kept_page_goto(self) -> None:
        if self.kept is None:
            self.kept = await (await self.browser.new_context()).new_page()
        await self.kept.goto(self.catalog)

    async def kept_page_blank_between(self) -> None:
        """One page kept: about:blank (as a test's end would leave it), then the catalog."""
        if self.kept is None:
            self.kept = await (await self.browser.new_context()).new_page()
        await self.kept.goto("about:blank")
        await self.kept.goto(self.catalog)

    async def own_browser(self) -> None:
        """As a test that starts its own Playwright and Chromium does."""
        async with async_playwright() as p:
            browser = await launch(p)
            try:
                page = await browser.new_page()
                await page.goto(self.catalog)
            finally:
                await browser.close()

    async def session(
        self, url: str, *, browser: Browser | None = None, settle: float | None = None
    ) -> None:
        context = await (browser or self.browser).new_context()
        page = await context.new_page()
        session = await WebMCPSession.attach(page, backend="cdp")
        await page.goto(url)
        tools = await session.tools(settle=settle)
        assert tools, "the demo has tools"
        await session.close()
        await context.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--block", type=int, default=5)
    parser.add_argument("--flag", action="append", default=[])
    parser.add_argument("--only", default="", help="comma-separated variant names")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with DemoServer() as demo:
        async with async_playwright() as p:
            browser = await launch(p)
            bench = Bench(browser, demo)
            track = demo.url + "/track"
            variants: dict[str, Round] = {
                "context+goto catalog": lambda: bench.ctx_goto(bench.catalog),
                "context+goto /track": lambda: bench.ctx_goto(track),
                "context+goto catalog, no cross-site frame": bench.ctx_goto_no_frame,
                "context+goto catalog, no stylesheet": bench.ctx_goto_unstyled,
                "context 640x360+goto catalog": lambda: bench.ctx_goto(
                    bench.catalog, viewport={"width": 640, "height": 360}
                ),
                "page in a shared context+goto catalog": bench.shared_page_goto,
                "one page kept, goto catalog again": bench.kept_page_goto,
                "one page kept, about:blank then catalog": bench.kept_page_blank_between,
                "context+session+goto catalog+tools": lambda: bench.session(bench.catalog),
                "context+session+goto /track+tools": lambda: bench.session(track),
            }

            original = quiet.PageQuiet.install

            async def no_script(self: quiet.PageQuiet) -> None:
                self.page.on("request", self._started)
                self.page.on("requestfinished", self._ended)
                self.page.on("requestfailed", self._ended)

            async def without_quiet_script() -> None:
                quiet.PageQuiet.install = no_script  # type: ignore[method-assign]
                try:
                    await bench.session(bench.catalog)
                finally:
                    quiet.PageQuiet.install = original  # type: ignore[method-assign]

            variants["context+session (no timer script)+catalog+tools"] = without_quiet_script
            for flag in args.flag:
                if flag.startswith("exe:"):  # another executable, the same switches
                    exe, extra = flag[4:], launch_args()
                else:
                    exe, extra = find_browser(), _with(launch_args(), flag)
                try:
                    other = await p.chromium.launch(executable_path=exe, args=extra)
                except Exception as exc:  # a switch this Chromium refuses: say so, go on
                    print(f"{flag}: did not launch ({str(exc).splitlines()[0]})")
                    continue

                def flagged(b: Browser = other) -> Awaitable[None]:
                    return bench.session(bench.catalog, browser=b)

                variants[f"context+session+catalog+tools, {flag}"] = flagged
            variants["own Playwright+Chromium+page+catalog"] = bench.own_browser
            if args.only:
                keep = [v.strip() for v in args.only.split(",")]
                variants = {k: v for k, v in variants.items() if any(w in k for w in keep)}

            for run in variants.values():  # warm-up
                await run()
            cpu: dict[str, list[float]] = {name: [] for name in variants}
            wall: dict[str, list[float]] = {name: [] for name in variants}
            kinds: dict[str, dict[str, float]] = {name: {} for name in variants}
            load_before = os.getloadavg()[0]
            for _ in range(max(1, args.rounds // args.block)):
                for name, run in variants.items():
                    before: dict[str, float] = {}
                    base = tree(before)
                    t0 = time.perf_counter()
                    for _ in range(args.block):
                        await run()
                    t1 = time.perf_counter()
                    await _back_to(base[1])
                    after: dict[str, float] = {}
                    cpu[name].append((tree(after)[0] - base[0]) / args.block)
                    wall[name].append((t1 - t0) / args.block)
                    for kind, seconds in after.items():
                        spent = (seconds - before.get(kind, 0.0)) / args.block
                        kinds[name][kind] = kinds[name].get(kind, 0.0) + spent
            load_after = os.getloadavg()[0]
            await browser.close()

    first = next(iter(variants))
    ref = statistics.median(cpu[first])
    rows: list[dict[str, Any]] = []
    for name in variants:
        c, w = statistics.median(cpu[name]), statistics.median(wall[name])
        blocks = len(cpu[name])
        split = {k: round(v / blocks, 3) for k, v in sorted(kinds[name].items()) if v > 0}
        rows.append(
            {"variant": name, "cpu_s": c, "wall_s": w, "cpu_ratio": c / ref, "by_process": split}
        )
    if args.json:
        print(json.dumps({"load": [load_before, load_after], "rows": rows}, indent=2))
        return
    print(f"load average {load_before:.1f} -> {load_after:.1f}; medians of blocks of {args.block}")
    print(f"{'variant':55} {'CPU/round':>9} {'wall':>7} {'CPU ratio':>9}")
    for row in rows:
        print(
            f"{row['variant']:55} {row['cpu_s']:8.3f}s {row['wall_s']:6.3f}s "
            f"{row['cpu_ratio']:8.2f}x"
        )
        print("    " + ", ".join(f"{k} {v:.3f}" for k, v in row["by_process"].items()))


if __name__ == "__main__":
    asyncio.run(main())
