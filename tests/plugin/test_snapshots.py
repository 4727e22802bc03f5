"""`expect(webmcp).to_match_tool_snapshot()` through pytester: missing, matching, mismatching,
updated, as a user's suite meets them over several runs."""

from __future__ import annotations

import json
import re

import pytest
from test_plugin import PAGE, run, suite

pytest_plugins = ["pytester"]

SNAPSHOT_FILE = """

def test_tools(page, webmcp, site):
    page.goto(site)
    expect(webmcp).to_have_tool("echo")
    expect(webmcp).to_match_tool_snapshot()


def test_named(page, webmcp, site):
    page.goto(site)
    expect(webmcp).to_have_tool("echo")
    expect(webmcp).to_match_tool_snapshot("home")
"""

# The next deploy: echo's description changed, boom is gone, a tool is new.
CHANGED = (
    PAGE.replace("Echo the text back.", "Echo it back, louder.")
    .replace('mc.registerTool({name: "boom"', 'mc.registerTool({name: "shout"')
    .replace("Always fails.", "Shouts.")
)


def test_a_missing_snapshot_is_written_then_matches_and_a_change_fails_until_updated(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester, SNAPSHOT_FILE)
    first = run(pytester)
    first.assert_outcomes(failed=2)
    first.stdout.fnmatch_lines(
        [
            "E*A snapshot doesn't exist at test_user.py-snapshots/test-tools-1.json, writing "
            "actual (5 tools).*",
            "E*A snapshot doesn't exist at test_user.py-snapshots/home.json, writing actual*",
        ]
    )
    folder = pytester.path / "test_user.py-snapshots"
    data = json.loads((folder / "test-tools-1.json").read_text(encoding="utf-8"))
    echo = next(t for t in data["tools"] if t["name"] == "echo")
    assert echo == {
        "annotations": {},
        "declarative": False,
        "description": "Echo the text back.",
        "inputSchema": {
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "type": "object",
        },
        "name": "echo",
        "origin": "page",
        "title": None,
    }
    form = next(t for t in data["tools"] if t["name"] == "subscribe")
    assert form["declarative"] is True
    assert [t["name"] for t in data["tools"]] == sorted(t["name"] for t in data["tools"])

    # The next deploy, in the same suite: it fails with a diff per tool until updated. The written
    # snapshot matches the tools that did not change (and the last run shows one written by an
    # update matching, on a new port: a missing snapshot and an update are written the same way).
    written = (folder / "home.json").read_text("utf-8")
    (pytester.path / "site" / "index.html").write_text(CHANGED, encoding="utf-8")
    changed = run(pytester, "--output=artifacts", "-k", "test_tools")
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(
        [
            "E*The page's tools do not match the snapshot test_user.py-snapshots/test-tools-1.json:",
            "E*  - removed: boom (page)",
            "E*  ~ changed: echo (page)",
            'E*      description: "Echo the text back." -> "Echo it back, louder."',
            "E*  + added:   shout (page)",
            "E*Expected: test_user.py-snapshots/test-tools-1.json",
            "E*Received: artifacts/*/test-tools-1-actual.json",
            "E*If the change is meant, accept it: pytest --webmcp-update-snapshots",
        ]
    )
    diff = [line for line in changed.outlines if re.match(r"E\s+[-~+] ", line)]
    assert len(diff) == 3, diff  # boom, echo and shout only
    (received,) = (pytester.path / "artifacts").rglob("test-tools-1-actual.json")
    assert "shout" in received.read_text(encoding="utf-8")
    updated = run(pytester, "--webmcp-update-snapshots", "-s")
    updated.assert_outcomes(passed=2)
    updated.stdout.fnmatch_lines(
        ["*test_user.py-snapshots/home.json does not match, writing actual."]
    )
    now = (pytester.path / "test_user.py-snapshots" / "home.json").read_text("utf-8")
    assert now != written
    assert "shout" in now
    assert "boom" not in now
    run(pytester).assert_outcomes(passed=2)  # matching: a new port, the written snapshots
