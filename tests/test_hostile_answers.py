"""Answers too big or too deep, and nothing lost: each page of tests/pages/hostile/sizes through
the command line, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = Path(__file__).parent.parent / "src"
MARGIN = 10.0  # seconds beyond a command's timeout it may take on a loaded machine (browser start)


def cli(
    *args: str, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The real command line, in a child process."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "webmcp_harness", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env=env,
        cwd=cwd,
        check=False,
    )


@pytest.fixture
def huge(pages_url: str) -> str:
    return f"{pages_url}/hostile/sizes/huge.html"


# -- answers too deep --------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["deep_structured", "deep_text"])
def test_an_answer_nested_past_the_cap_is_coded_and_says_so(huge: str, tool: str) -> None:
    done = cli("call", huge, tool, "--json", "--timeout", "20")
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["structuredContent"]["error"]["code"] == "failed"
    text = result["content"][0]["text"]
    assert "levels deep, past the harness's limit of 256" in text
    assert len(text) < 5_000  # the answer's start, not all of it


def test_check_checks_every_tool_of_a_page_whose_answers_are_too_deep(huge: str) -> None:
    # (the deep tools and echo only: the big ones are other tests', and slow to call again)
    done = cli(
        "check", f"{huge}?only=deep", "--call", "all", "--json", "--timeout", "20", timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["summary"]["tools"] == 3
    called = {record["tool"] for record in report["records"]}
    assert {"deep_structured", "deep_text", "echo"} <= called
    for record in report["records"]:
        if record["tool"].startswith("deep_"):  # the tool's answer, coded, not the harness's
            assert "levels deep, past the harness's limit" in json.dumps(record["result"])


def test_run_keeps_a_deep_answer_coded_and_its_transcript_replays(
    pages_url: str, tmp_path: Path
) -> None:
    script = tmp_path / "huge.yaml"
    script.write_text(
        f"name: Huge answers\nurl: {pages_url}\ntimeout: 20\nsteps:\n"
        "  - open: /hostile/sizes/huge.html\n  - wait_for_tool: echo\n"
        "  - call: {tool: deep_text, expect: {code: failed}}\n"
        "  - call: {tool: big_text, input: {chars: 2000000}, expect: {kind: too_large}}\n"
        "  - call: {tool: echo, input: {word: hi}, expect: {ok: true}}\n"
    )
    transcript = tmp_path / "run.jsonl"
    done = cli("run", str(script), "--transcript", str(transcript), timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert "The harness failed" not in done.stdout
    lines = transcript.read_text().splitlines()
    # The 2 MB answer, twice the gateway's limit and the transcript's line (a 30 MB one cost the
    # run and its replay 8 s of CPU each, to show the same), is kept cut, with its size.
    assert max(map(len, lines)) < 1_000_000
    big = next(json.loads(line) for line in lines if '"big_text"' in line and '"step"' in line)
    assert "more characters" in json.dumps(big)
    again = cli("replay", str(transcript), timeout=180)
    assert again.returncode == 0, again.stdout + again.stderr[-2000:]
    assert "no differences" in again.stdout


# -- answers too big ---------------------------------------------------------------------------


def test_a_million_content_items_are_cut_in_call_json_and_say_how_many(huge: str) -> None:
    started = time.monotonic()
    done = cli("call", huge, "million_items", "--json", "--timeout", "30")
    assert time.monotonic() - started < 30 + MARGIN
    result = json.loads(done.stdout)
    assert len(result["content"]) == 1_001
    assert result["content"][-1]["text"].startswith("… 999,000 more content items left out")


def test_too_many_content_items_print_a_short_table(huge: str) -> None:
    # The table is cut where `call --json` is (one cap for every output, core/caps.py): 20,000
    # items show it, at a fiftieth of the million's cost of answering (the million above).
    started = time.monotonic()
    done = cli("call", huge, "million_items", '{"count": 20000}', "--timeout", "30")
    assert time.monotonic() - started < 30 + MARGIN
    assert len(done.stdout.splitlines()) < 2_000
    assert "19,000 more content items left out" in done.stdout


# -- reports -----------------------------------------------------------------------------------


def _longest(value: object) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max([0, *map(_longest, value.values())])
    if isinstance(value, list):
        return max([0, *map(_longest, value)])
    return 0


def test_a_crawl_of_pages_with_262000_character_urls_keeps_each_cut_and_names_the_cap(
    pages_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    url = f"{pages_url}/hostile/sizes/long-url.html"
    done = cli("check", url, "--crawl", "1", "--json-report", str(out), "--timeout", "10")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["caps"]["pageString"] == 4_096
    assert report["summary"]["pages"] == 1  # no link that long is followed
    strings = {k: v for k, v in report.items() if k != "options"}  # options: the URL as given
    assert _longest(strings) < 4_096 + 100
    assert out.stat().st_size < 1_000_000
