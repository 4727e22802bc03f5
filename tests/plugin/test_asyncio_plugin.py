"""The plugin under pytest-playwright-asyncio, beside the sync one, through pytester.

The same test file is written twice, once for each face, and each runs in its own pytest
process with the same options: the sync one under pytest-playwright, the async one under
pytest-playwright-asyncio (``-p no:playwright``: the two refuse to load together). Both give the
same outcomes, markers, snapshots, artifacts, traces and coverage.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

SYNC = """
import pytest
from webmcp_harness import expect


@pytest.mark.webmcp(timeout=3, confirm=True)
def test_the_shop(page, webmcp, webmcp_demo_url):
    page.goto(webmcp_demo_url)
    expect(webmcp).to_have_tool("get_product")
    expect(webmcp).to_match_tool_snapshot()
    assert webmcp.timeout == 3
    signed = webmcp.call("subscribe_newsletter", {"email": "sam@example.com", "frequency": "monthly"})
    expect(signed).to_succeed()  # confirm=True: the fixture acted as the person


def test_a_failure_keeps_the_calls(page, webmcp, webmcp_demo_url):
    page.goto(webmcp_demo_url)
    webmcp.call("get_product", {"product_id": "beacon-lantern"})
    assert False, "the test's own failure"
"""

ASYNC = """
import pytest
from webmcp_harness import expect


@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.webmcp(timeout=3, confirm=True)
async def test_the_shop(page, webmcp, webmcp_demo_url):
    await page.goto(webmcp_demo_url)
    await expect(webmcp).to_have_tool("get_product")
    await expect(webmcp).to_match_tool_snapshot()
    assert webmcp.timeout == 3
    signed = await webmcp.call("subscribe_newsletter", {"email": "sam@example.com", "frequency": "monthly"})
    expect(signed).to_succeed()  # confirm=True: the fixture acted as the person


@pytest.mark.asyncio(loop_scope="session")
async def test_a_failure_keeps_the_calls(page, webmcp, webmcp_demo_url):
    await page.goto(webmcp_demo_url)
    await webmcp.call("get_product", {"product_id": "beacon-lantern"})
    assert False, "the test's own failure"
"""

OPTIONS = ("--webmcp-update-snapshots", "--webmcp-coverage", "--tracing=on", "-p", "no:randomly")


def run_face(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, face: str, body: str
) -> tuple[pytest.RunResult, Path]:
    folder = pytester.path / face
    folder.mkdir()
    (folder / "test_shop.py").write_text(body, encoding="utf-8")
    plugins = "-p no:playwright" if face == "async" else "-p no:playwright-asyncio"
    monkeypatch.setenv("PYTEST_ADDOPTS", plugins)
    output = pytester.path / f"{face}-results"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--output={output}", *OPTIONS, str(folder), timeout=180
    )
    return result, output


def trace_groups(output: Path) -> list[str]:
    titles = []
    for trace in sorted(output.rglob("trace.zip")):
        with zipfile.ZipFile(trace) as archive:
            for line in archive.read("trace.trace").decode("utf-8").splitlines():
                event = json.loads(line) if line.strip() else {}
                if event.get("method") == "tracingGroup" and event.get("type") == "before":
                    titles.append(event["title"])
    return titles


def test_the_async_fixture_does_what_the_sync_one_does(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = {
        face: run_face(pytester, monkeypatch, face, body)
        for face, body in (("sync", SYNC), ("async", ASYNC))
    }
    for face, (result, output) in runs.items():
        result.assert_outcomes(passed=1, failed=1)
        # artifacts: the failed test's calls, in the report and beside Playwright's
        result.stdout.fnmatch_lines(["*- webmcp calls (last 1) -*", "#1 get_product(*) -> ok:*"])
        (calls,) = output.rglob("webmcp-calls.json")
        assert "failure-keeps-the-calls" in calls.parent.name, face
        # coverage: the tools both tests saw and called
        result.stdout.fnmatch_lines(["*WebMCP coverage*", "*get_product*", "*tools called*"])
        # traces: each call a group at the test's line
        assert "subscribe_newsletter → ok" in trace_groups(output), face
    # snapshots: the same contract file, beside each test file
    (sync_snapshot,) = (pytester.path / "sync" / "test_shop.py-snapshots").glob("*.json")
    (async_snapshot,) = (pytester.path / "async" / "test_shop.py-snapshots").glob("*.json")
    assert sync_snapshot.name == async_snapshot.name
    assert sync_snapshot.read_text(encoding="utf-8") == async_snapshot.read_text(encoding="utf-8")
    assert '"get_product"' in async_snapshot.read_text(encoding="utf-8")
