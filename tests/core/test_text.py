"""The output layer: any page string, through every output path, is shown as text.

Hypothesis feeds arbitrary Unicode (lone surrogates and control characters included) through the
tools table, `call`'s output, `--json`, the check summary, the JSON, HTML and JUnit reports and
transcripts: nothing raises, JSON and XML stay valid, and no raw control character reaches the
terminal.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.console import Console

from inert import RAW
from webmcp_harness.agent.transcript import TranscriptWriter, read_transcript
from webmcp_harness.cli.main import print_result, tools_table
from webmcp_harness.cli.summary import render_summary
from webmcp_harness.cli.text import cell, markup
from webmcp_harness.conformance.findings import Collector
from webmcp_harness.conformance.metadata import check_metadata
from webmcp_harness.conformance.reports import (
    CheckReport,
    PageResult,
    to_junit,
    write_html,
    write_json,
    write_junit,
)
from webmcp_harness.conformance.safety import check_safety
from webmcp_harness.core.records import BrowserReport, CallRecord, Tool
from webmcp_harness.core.text import dumps, safe_text

PAGE = "http://127.0.0.1:1/shop"

# Every code point, surrogates included, weighted towards the dangerous ones.
hostile_chars = st.one_of(
    st.characters(codec=None, categories=None),
    st.sampled_from(
        ["\x1b", "\x07", "\x9b", "\x85", "\r", "\ud800", "\udfff", "\u202e", "\u2066", "[", "]",
         "/", "\\", ":", "\x00", "\ufeff", "\u2028"]
    ),
)  # fmt: skip
hostile = st.text(hostile_chars, max_size=60).map(
    lambda s: s + "[/][link=https://evil.example]x\x1b[2J"
)
settings_ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def assert_terminal_safe(text: str) -> None:
    raw = RAW.findall(text)
    assert not raw, f"raw control characters: {raw!r}"
    text.encode("utf-8")  # no lone surrogate left


def plain_console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=100, color_system=None, emoji=False), buffer


def test_safe_text_makes_controls_and_bidi_visible_and_replaces_surrogates() -> None:
    assert safe_text("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert safe_text("\u202eevil") == "\\u202eevil"
    assert safe_text("x\ud800y") == "x\ufffdy"
    assert safe_text("line\nnext\ttab") == "line\nnext\ttab"


def test_markup_in_page_text_stays_text() -> None:
    console, buffer = plain_console()
    console.print(cell("[link=https://evil.example]click[/link] [/] [bold]"))
    console.print(f"[bold]ok[/] {markup('[/] [red]x')}")
    shown = buffer.getvalue()
    assert "[link=https://evil.example]click[/link] [/] [bold]" in shown
    assert "ok [/] [red]x" in shown


def test_dumps_is_valid_json_whatever_it_is_given() -> None:
    text = dumps({"a\ud800": ["\udfff", float("nan"), float("inf"), object(), b"\xff", {1, 2}]})
    assert_terminal_safe(text)
    data = json.loads(text)
    assert data["a\ud800"][0] == "\udfff"  # the same value, escaped
    assert data["a\ud800"][1] is None


@given(hostile, hostile, hostile)
@example("x", "y", "A://[/]x")  # a frame URL Python cannot split (an unclosed IPv6 bracket)
@settings_
def test_the_tools_table_shows_any_string_as_text(name: str, description: str, param: str) -> None:
    found = [
        {
            "name": name,
            "description": description,
            "inputSchema": {"type": "object", "properties": {param: {"type": "string"}}},
            "declarative": False,
            "frameUrl": param,
        },
        {"name": None, "description": 7, "inputSchema": [param], "frameUrl": None},
    ]
    console, buffer = plain_console()
    console.print(tools_table(found, f"{PAGE}?{name}"))
    assert_terminal_safe(buffer.getvalue())


@given(
    text=hostile,
    parts=st.lists(st.one_of(st.none(), st.integers(), hostile, st.dictionaries(hostile, hostile))),
)
@settings_
def test_call_output_shows_any_result_as_text(
    text: str, parts: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    result = {"content": [{"type": "text", "text": text}, *parts], "isError": False}
    print_result(text, result, {"timings": {"totalMs": 1}})
    captured = capsys.readouterr()
    assert_terminal_safe(captured.out)
    assert_terminal_safe(captured.err)


@given(value=st.recursive(st.one_of(st.none(), st.floats(), st.integers(), hostile),
                    lambda kids: st.one_of(st.lists(kids, max_size=4),
                                           st.dictionaries(hostile, kids, max_size=4)),
                    max_leaves=20))  # fmt: skip
@settings_
def test_json_output_is_always_valid_and_terminal_safe(
    value: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from webmcp_harness.cli.common import print_json

    print_json(value)
    out = capsys.readouterr().out
    assert_terminal_safe(out)
    json.loads(out)


def report_of(name: str, description: str, text: str) -> CheckReport:
    tools = [
        Tool(name, description, {"type": "object", "properties": {text: {}}}, {}, "root", PAGE),
        Tool("search", description, None, {"readOnlyHint": True}, "root", f"{PAGE}/{text}"),
    ]
    collected = Collector(PAGE)
    check_metadata(tools, page=PAGE, out=collected)
    check_safety(tools, page=PAGE, out=collected)
    record = CallRecord(
        id=1,
        tool=name,
        input={text: text},
        frame_url=PAGE,
        browser=BrowserReport(status="Completed", output=text, error_text=text),
        result={"content": [{"type": "text", "text": text}, None, 7]},
        timings={"total": 1.0},
    )
    report = CheckReport(
        pages=[
            PageResult(url=PAGE, title=text, tools=tools, elapsed=1.0),
            PageResult(url=f"{PAGE}/{text}", error=text),
        ],
        records=[record],
        started=1_700_000_000.0,
        ended=1_700_000_001.0,
        options={"note": text},
    )
    report.add(collected)
    return report


@given(name=hostile, description=hostile, text=hostile)
@settings_
def test_check_summary_and_reports_hold_any_string(
    name: str, description: str, text: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    report = report_of(name, description, text)
    assert_terminal_safe(render_summary(report))
    folder = tmp_path_factory.mktemp("reports")
    write_json(report, folder / "r.json")
    json.loads((folder / "r.json").read_text(encoding="utf-8"))
    buffer = io.StringIO()
    write_json(report, buffer)
    assert_terminal_safe(buffer.getvalue())
    write_junit(report, folder / "r.xml")
    ET.parse(folder / "r.xml")
    ET.tostring(to_junit(report))
    write_html(report, folder / "r.html")
    (folder / "r.html").read_text(encoding="utf-8")


@given(key=hostile, text=hostile)
@settings_
def test_transcripts_hold_any_string(
    key: str, text: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path: Path = tmp_path_factory.mktemp("t") / "run.jsonl"
    with TranscriptWriter(path) as writer:
        writer.run(script=text, url=PAGE)
        writer.step({"index": 1, "tool": key, "input": {key: text}, "answer": {text: [text]}})
        writer.end(passed=True)
    raw = path.read_text(encoding="utf-8")
    assert_terminal_safe(raw)
    read = read_transcript(path)
    assert read.finished
    assert read.steps[0]["tool"] == key
