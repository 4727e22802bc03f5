"""`--webmcp-coverage`, its JSON and fail-under, through pytester, in one process and under xdist
(where a failed test's calls are printed and written too)."""

from __future__ import annotations

import json

import pytest
from test_plugin import run, suite
from test_snapshots import SNAPSHOT_FILE

pytest_plugins = ["pytester"]

COVERAGE_FILE = """

@pytest.mark.parametrize("n", range(2))
def test_echo(page, webmcp, site, n):
    page.goto(site)
    expect(webmcp.call("echo", {"text": str(n)})).to_succeed()


def test_boom_and_bad_input(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("boom")).to_have_code("failed")
    expect(webmcp.call("echo", {"text": 1})).to_have_code("invalid_input")
    expect(webmcp.call("no_such_tool")).to_have_code("unavailable")
"""


def test_coverage_prints_a_table_writes_json_and_fails_under_its_threshold(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester, COVERAGE_FILE)
    result = run(
        pytester,
        "--webmcp-coverage",
        "--webmcp-coverage-json=reports/webmcp.json",
        "--webmcp-coverage-fail-under=50",
    )
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # 2 of 5 tools called: 40% < 50%
    result.stdout.re_match_lines(
        [
            r"-+ WebMCP coverage -+",
            r"tool +origin +calls +codes",
            r"boom +http://127\.0\.0\.1 +1 +failed 1",
            r"echo +http://127\.0\.0\.1 +3 +invalid_input 1, ok 2",
            r"fleeting +http://127\.0\.0\.1 +0 +NEVER CALLED",
            r"hang +http://127\.0\.0\.1 +0 +NEVER CALLED",
            r"subscribe +http://127\.0\.0\.1 +0 +NEVER CALLED",
            r"2 of 5 tools called \(40\.0%\)",
            r"calls to tools the page did not have then:",
            r"  no_such_tool: 1 \(unavailable 1\)",
            r"WebMCP coverage JSON: reports/webmcp\.json",
            r"FAIL: tests called 2 of 5 WebMCP tools \(40\.0%\), under "
            r"--webmcp-coverage-fail-under=50",
        ]
    )
    data = json.loads((pytester.path / "reports" / "webmcp.json").read_text(encoding="utf-8"))
    assert (data["toolsSeen"], data["toolsCalled"], data["percentCalled"]) == (5, 2, 40.0)
    echo = next(t for t in data["tools"] if t["name"] == "echo")
    assert echo == {
        "name": "echo",
        "origin": "http://127.0.0.1",
        "calls": 3,
        "codes": {"invalid_input": 1, "ok": 2},
        "called": True,
    }
    assert [t["name"] for t in data["tools"] if not t["called"]] == [
        "fleeting",
        "hang",
        "subscribe",
    ]

    passing = run(pytester, "--webmcp-coverage-fail-under=40")
    passing.assert_outcomes(passed=3)
    assert passing.ret == pytest.ExitCode.OK
    assert "WebMCP coverage" not in passing.stdout.str()  # the table only with --webmcp-coverage


# Beside the calls that pass in either worker, one test that fails in its worker.
XDIST_FILE = """

def test_fails_in_a_worker(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("boom")).to_succeed()
"""


def test_coverage_snapshots_and_a_failure_s_calls_work_under_xdist_with_two_workers(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester, COVERAGE_FILE + SNAPSHOT_FILE + XDIST_FILE)
    args = ("-n", "2", "--webmcp-coverage", "--webmcp-coverage-json=cov.json")
    result = run(pytester, *args, "--webmcp-update-snapshots")
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(["*2 workers*", "*WebMCP coverage*", "2 of 5 tools called (40.0%)"])
    result.stdout.fnmatch_lines(["*- webmcp calls (last 1) -*", "#1 boom({}) -> failed:*"])
    (calls,) = (pytester.path / "test-results").rglob("webmcp-calls.json")
    assert "test-fails-in-a-worker" in calls.parent.name
    data = json.loads((pytester.path / "cov.json").read_text(encoding="utf-8"))
    echo = next(t for t in data["tools"] if t["name"] == "echo")
    assert echo["codes"] == {"invalid_input": 1, "ok": 2}  # both workers' calls, counted once
    assert data["toolsSeen"] == 5
    folder = pytester.path / "test_user.py-snapshots"
    assert sorted(p.name for p in folder.iterdir()) == ["home.json", "test-tools-1.json"]
    # The snapshots the workers wrote match in a worker: one is enough (a worker and a Chromium
    # fewer than two).
    run(pytester, "-n", "1", "-k", "tools or named").assert_outcomes(passed=2)
