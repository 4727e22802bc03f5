"""`webmcp-harness check` beside Lighthouse's agentic-browsing audits, page by page.

Run with `.venv/bin/python -m bench.check_vs_lighthouse` (options: `--json`). Not in the suite.

Lighthouse runs through chrome-devtools-mcp's `lighthouse_audit` tool (pinned in
`bench.mcp_peers.PINS`, installed from the npm registry into the same cache, given this machine's
Chromium with the WebMCP flags), in navigation mode, desktop. `check URL --json` runs as a user
runs it (a new process: launch included). The two alternate page by page, on the demo shop's home
page and 10 pages of tests/pages/ (served from 127.0.0.1).

It prints a defect x tool table: each row a page and a defect, named by the Lighthouse audit id
where the check has a counterpart (`findings.Check.lighthouse`) and by the check id otherwise; a
tick where the tool flags it. The target: no row where Lighthouse flags a defect and `check` does
not (exit status 1 if there is one). Then the time ratio, check / Lighthouse, over the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import ClientSession

from webmcp_harness import find_browser
from webmcp_harness.conformance.findings import CHECKS
from webmcp_harness.testing.demo import serve_demo

from .check_scale import serve
from .mcp_peers import _browser_args, _stdio, _text, install_peers

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "tests" / "pages"
TEST_PAGES = [
    "ready/not-agent-ready.html",
    "ready/painted-nothing.html",
    "ready/late-tool.html",
    "ready/located.html",
    "defects/good.html",
    "defects/no-tools.html",
    "defects/form-browser-issues.html",
    "defects/hostile-invalid-schemas.html",
    "defects/permissions-policy.html",
    "defects/names-unique.html",
]
CATEGORY = "agentic-browsing"
# Informative audits whose items are defects (webmcp-registered-tools lists the tools: not one).
INFORMATIVE_DEFECTS = {"webmcp-form-coverage"}
AUDITED = "the page is audited at all"  # a row of its own: Lighthouse stops on some pages


def lighthouse_flags(lhr: dict[str, Any]) -> set[str]:
    """The agentic-browsing audits that flag something: failed, or informative with items."""
    flagged = set()
    if lhr.get("runtimeError"):  # (NO_FCP: the page painted nothing)
        flagged.add(f"{AUDITED} ({lhr['runtimeError'].get('code', '?')}: not by Lighthouse)")
    refs = lhr.get("categories", {}).get(CATEGORY, {}).get("auditRefs", [])
    for ref in refs:
        audit = lhr.get("audits", {}).get(ref.get("id"), {})
        score, details = audit.get("score"), audit.get("details") or {}
        informative = audit.get("id") in INFORMATIVE_DEFECTS and details.get("items")
        if (isinstance(score, (int, float)) and score < 1) or informative:
            flagged.add(str(audit.get("id")))
    return flagged


def check_flags(report: dict[str, Any]) -> set[str]:
    """What check flags: each finding's Lighthouse counterpart, else its check id."""
    flagged = set()
    for finding in report.get("findings", []):
        check = CHECKS.get(finding["check"])
        flagged.add((check.lighthouse if check else None) or finding["check"])
    return flagged


def _clear(out: Path) -> None:
    for old in out.glob("*"):
        old.unlink()


def _flags_in(out: Path) -> set[str] | None:
    reports = sorted(out.glob("*.json"))
    return lighthouse_flags(json.loads(reports[-1].read_text("utf-8"))) if reports else None


async def _audit(client: ClientSession, url: str, out: Path) -> tuple[set[str], float]:
    await asyncio.to_thread(_clear, out)
    opened = _text(await client.call_tool("new_page", {"url": url}))
    found = re.search(rf"^(\d+): .*\({re.escape(url)}\)", opened, re.M)
    if found is None:
        return {f"(could not open the page: {opened[:120]})"}, 0.0
    started = time.perf_counter()
    result = await client.call_tool(
        "lighthouse_audit",
        {
            "pageId": int(found.group(1)),
            "mode": "navigation",
            "device": "desktop",
            "outputDirPath": str(out),
        },
    )
    took = time.perf_counter() - started
    flags = await asyncio.to_thread(_flags_in, out)
    if flags is None:
        return {f"(lighthouse_audit failed: {_text(result)[:120]})"}, took
    return flags, took


def _check(url: str) -> tuple[set[str], float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "webmcp_harness", "check", url, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    took = time.perf_counter() - started
    return check_flags(json.loads(done.stdout)) if done.stdout else {"(check failed)"}, took


async def run() -> dict[str, Any]:
    modules = install_peers()
    devtools_js = (
        modules / "chrome-devtools-mcp" / "build" / "src" / "bin" / "chrome-devtools-mcp.js"
    )
    env = {**os.environ, "CI": "1", "PUPPETEER_SKIP_DOWNLOAD": "1"}
    args = [
        str(devtools_js),
        *("--headless", "--isolated", "--executablePath", str(find_browser())),
        *("--categoryExperimentalWebmcp", "--usageStatistics=false", "--performanceCrux=false"),
        *(f"--chromeArg={a}" for a in _browser_args()),
    ]
    rows: list[dict[str, Any]] = []
    times = {"check": 0.0, "lighthouse": 0.0}
    demo = serve_demo()
    try:
        with (
            serve(PAGES) as base,
            tempfile.TemporaryDirectory() as cwd,
            tempfile.TemporaryFile("w+") as log,
        ):
            urls = [demo.url.rstrip("/") + "/", *(f"{base}/{p}" for p in TEST_PAGES)]
            out = Path(cwd) / "reports"
            out.mkdir()
            node = shutil.which("node") or "node"
            async with _stdio(node, args, cwd, env, log) as client:
                await client.initialize()
                for index, url in enumerate(urls):  # alternating which goes first
                    if index % 2:
                        theirs, lh_s = await _audit(client, url, out)
                        ours, check_s = await asyncio.to_thread(_check, url)
                    else:
                        ours, check_s = await asyncio.to_thread(_check, url)
                        theirs, lh_s = await _audit(client, url, out)
                    times["check"] += check_s
                    times["lighthouse"] += lh_s
                    for defect in sorted(ours | theirs):
                        stopped = defect.startswith(AUDITED)  # Lighthouse did not, check did
                        rows.append(
                            {
                                "page": url.rsplit("/", 1)[-1] or "demo",
                                "defect": defect,
                                "lighthouse": defect in theirs and not stopped,
                                "check": defect in ours or stopped,
                            }
                        )
    finally:
        demo.stop()
    return {"rows": rows, "seconds": times, "ratio": times["check"] / times["lighthouse"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    options = parser.parse_args()
    out = asyncio.run(run())
    if options.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"{'page':32} {'defect':42} lighthouse check")
        for row in out["rows"]:
            marks = ["✓" if row[k] else "✗" for k in ("lighthouse", "check")]
            print(f"{row['page'][:32]:32} {row['defect'][:42]:42} {marks[0]:^10} {marks[1]:^5}")
        seconds = out["seconds"]
        print(
            f"\ncheck / lighthouse time: {out['ratio']:.2f}x "
            f"({seconds['check']:.1f} s / {seconds['lighthouse']:.1f} s, interleaved)"
        )
    missed = [r for r in out["rows"] if r["lighthouse"] and not r["check"]]
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
