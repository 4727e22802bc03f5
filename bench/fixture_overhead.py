"""What the `webmcp` fixture adds to a test, as a ratio to `page` alone, measured in one run.

Run with `.venv/bin/python -m bench.fixture_overhead` (options: `--tests`, `--rounds`, `--json`,
`--coverage` to run the suite with `--webmcp-coverage` on).

It writes one small suite into a temporary folder whose tests take turns: one asks for `page`,
the next for `page` and `webmcp`, and so on, so both see the same machine at the same moment (it
is noisy). Each round runs the suite with pytest in a fresh process. A test's cost is what pytest
reports for it (setup + call + teardown), so process start is left out; a warm-up test first
launches the browser (and lets the plugin check once that the browser has WebMCP) and is not
counted. Two kinds of test are timed:

- empty: the test body does nothing, so the ratio is fixture against fixture;
- opens a page: the test navigates to a page with a tool, as every WebMCP test does.

It prints, per round, the median over the pairs of (page + webmcp) / page, then the median over
rounds; absolute medians are secondary columns.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET = 1.3

CONFTEST = """
import functools
import http.server
import json
import os
import threading
from pathlib import Path

import pytest

COSTS = {}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site():
    handler = functools.partial(_Quiet, directory=str(Path(__file__).parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()


def pytest_runtest_logreport(report):
    COSTS[report.nodeid] = COSTS.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    Path(os.environ["FIXTURE_BENCH_OUT"]).write_text(json.dumps(COSTS))
"""

PAGE = """<!doctype html><title>bench</title><script>
document.modelContext.registerTool({name: "echo", description: "Echo the text back.",
  execute: async (a) => ({echo: a.text})});
</script>"""

BODIES = {"empty": "pass", "opens a page": "page.goto(site)"}
FIXTURES = {"page": "page, site", "page+webmcp": "page, webmcp, site"}


def write_suite(root: Path, tests: int) -> None:
    """One file whose tests take turns, in pairs: each kind of body with `page`, and with `webmcp`
    too (which of the pair goes first alternates)."""
    (root / "conftest.py").write_text(CONFTEST)
    (root / "index.html").write_text(PAGE)
    source = "\n\ndef test_warm_up(page, webmcp, site):\n    page.goto(site)\n"
    for n in range(tests):
        for k, body in enumerate(BODIES.values()):
            pair = list(enumerate(FIXTURES.values()))
            for f, args in pair if n % 2 == 0 else pair[::-1]:
                source += f"\n\ndef test_{n}_{k}_{f}({args}):\n    {body}\n"
    (root / "test_bench.py").write_text(source)


def run_suite(root: Path, extra: list[str]) -> dict[str, list[tuple[float, float]]]:
    """One run's per-test costs in seconds, by kind of body: (page, page+webmcp) per pair."""
    out = root / "costs.json"
    env = {**os.environ, "FIXTURE_BENCH_OUT": str(out)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    command += ["-p", "no:playwright-asyncio"]  # installed for its own tests; not beside ours
    command += extra
    done = subprocess.run(
        [*command, str(root)], cwd=root, env=env, capture_output=True, text=True, timeout=900
    )
    if done.returncode != 0:
        raise SystemExit(f"the bench suite failed:\n{done.stdout[-3000:]}{done.stderr}")
    costs: dict[str, float] = {
        nodeid.split("::")[-1].split("[")[0]: cost
        for nodeid, cost in json.loads(out.read_text()).items()
    }
    tests = max(int(name.split("_")[1]) for name in costs if name != "test_warm_up") + 1
    return {
        kind: [(costs[f"test_{n}_{k}_0"], costs[f"test_{n}_{k}_1"]) for n in range(tests)]
        for k, kind in enumerate(BODIES)
    }


def measure(
    tests: int, rounds: int, extra: list[str] | None = None
) -> dict[str, list[dict[str, float]]]:
    """Per round and kind: the median of the pairs' ratios, and the median costs in ms."""
    results: dict[str, list[dict[str, float]]] = {kind: [] for kind in BODIES}
    with tempfile.TemporaryDirectory(prefix="fixture-bench-") as tmp:
        write_suite(Path(tmp), tests)
        for n in range(rounds):
            for kind, pairs in run_suite(Path(tmp), extra or []).items():
                results[kind].append(
                    {
                        "ratio": statistics.median(both / page for page, both in pairs),
                        "page_ms": statistics.median(page for page, _ in pairs) * 1000,
                        "webmcp_ms": statistics.median(both for _, both in pairs) * 1000,
                    }
                )
            print(f"  round {n + 1} of {rounds} done", file=sys.stderr)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=25, help="tests per kind a round (default 25)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--coverage", action="store_true", help="run the suite with --webmcp-coverage"
    )
    options = parser.parse_args()
    extra = ["--webmcp-coverage"] if options.coverage else []
    results = measure(options.tests, options.rounds, extra)
    if options.json:
        print(json.dumps(results, indent=2))
        return
    coverage = ", --webmcp-coverage on" if options.coverage else ""
    print(
        f"\nper-test cost of page + webmcp / page alone "
        f"({options.tests} tests of each a round{coverage})\n"
    )
    print(f"{'test body':<14} {'round':>5} {'ratio':>7}   {'page ms':>8} {'+webmcp ms':>10}")
    for kind, rows in results.items():
        for n, row in enumerate(rows, 1):
            print(
                f"{kind:<14} {n:>5} {row['ratio']:>6.2f}x   "
                f"{row['page_ms']:>8.1f} {row['webmcp_ms']:>10.1f}"
            )
    print()
    for kind, rows in results.items():
        ratio = statistics.median(row["ratio"] for row in rows)
        verdict = "meets" if ratio <= TARGET else "misses"
        print(f"{kind:<14} median ratio {ratio:.2f}x ({verdict} the {TARGET}x target)")


if __name__ == "__main__":
    main()
