"""Transcripts: one JSON line per step, on disk as each step ends, secrets redacted."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmcp_harness.agent.outcome import Outcome
from webmcp_harness.agent.policy import REASONS
from webmcp_harness.agent.transcript import (
    REDACTED,
    Difference,
    TranscriptError,
    TranscriptWriter,
    diff_outcomes,
    format_diff,
    parse_transcript,
    read_transcript,
    step_entry,
)
from webmcp_harness.core.records import CallRecord

SRC = Path(__file__).resolve().parents[2] / "src"
OK = {"content": [{"type": "text", "text": '{"order":"TW-10042"}'}]}
NOT_FOUND = {"error": "not_found", "message": 'No tool "place_order" on this page right now.'}
HELD = {
    "not_done_yet": f"Check with Sam first: {REASONS[0]}. Ask in your reply, saying what you "
    "would do. Once they say yes, do it again."
}


def test_each_step_is_on_disk_as_soon_as_it_is_written(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with TranscriptWriter(path) as writer:
        writer.run(script="shop", url="http://127.0.0.1:1/")
        writer.step(step_entry(1, "call", tool="search", input={"q": "mug"}, answer=OK))
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 2
        assert json.loads(lines[1])["outcome"] == {
            "ok": True,
            "code": None,
            "kind": None,
            "held": None,
            "reason": None,
        }
        writer.end(passed=True)
    transcript = read_transcript(path)
    assert [e["type"] for e in transcript] == ["run", "step", "end"]
    assert transcript.finished
    assert not transcript.truncated
    assert transcript.run is not None
    assert transcript.run["script"] == "shop"


def test_lines_are_compact_json_one_per_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with TranscriptWriter(path, fsync=True) as writer:
        writer.write({"type": "step", "text": "two\nlines", "é": "ü"})
    raw = path.read_bytes()
    assert raw.count(b"\n") == 1
    assert raw == '{"type":"step","text":"two\\nlines","é":"ü"}\n'.encode()


def test_secrets_never_reach_the_file(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    record = CallRecord(id=1, tool="pay", input={"card_number": "4111 1111 1111 1111"})
    with TranscriptWriter(path) as writer:
        writer.step(
            step_entry(
                1,
                "call",
                tool="pay",
                input={"card_number": "4111 1111 1111 1111", "password": "hunter2"},
                answer={"refused": "Not done: ..."},
                record=record,
                note="IBAN GB82 WEST 1234 5698 7654 32 on file",
            )
        )
    text = path.read_text(encoding="utf-8")
    for secret in ("4111", "hunter2", "GB82", "WEST"):
        assert secret not in text
    entry = read_transcript(path).steps[0]
    assert entry["input"] == {"card_number": REDACTED, "password": REDACTED}
    assert entry["record"]["input"] == {"card_number": REDACTED}
    assert entry["note"] == f"IBAN {REDACTED} on file"


def test_values_json_cannot_carry_are_written_as_text_or_null(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with TranscriptWriter(path) as writer:
        odd: dict[Any, Any] = {
            "nan": math.nan,
            "inf": -math.inf,
            "set": {1},
            "bytes": b"hi",
            "obj": object,
            "lone": "\udc80",
            3: "int key",
            "tuple": (1, 2),
        }
        written = writer.write(odd)
    entry = read_transcript(path).entries[0]
    assert entry == written
    assert entry["nan"] is None
    assert entry["inf"] is None
    assert entry["set"] == [1]
    assert entry["bytes"] == "hi"
    assert entry["tuple"] == [1, 2]
    assert entry["3"] == "int key"
    assert entry["lone"] == "\udc80"


def test_a_cut_last_line_is_dropped_and_flagged(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with TranscriptWriter(path) as writer:
        for i in range(3):
            writer.step(step_entry(i + 1, "call", tool="t", answer=OK))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 20])
    transcript = read_transcript(path)
    assert len(transcript.steps) == 2
    assert transcript.truncated
    assert not transcript.finished


def test_a_broken_line_before_the_last_is_an_error_with_its_number() -> None:
    with pytest.raises(TranscriptError, match="line 2"):
        parse_transcript('{"type":"run"}\n{"type":\n{"type":"end"}\n')
    with pytest.raises(TranscriptError, match="line 1: each line must be a JSON object"):
        parse_transcript('[1]\n{"type":"end"}\n')


def test_an_unreadable_transcript_is_a_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="can't read"):
        read_transcript(tmp_path / "nope.jsonl")


def test_a_run_killed_mid_way_leaves_a_valid_partial_transcript(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    program = textwrap.dedent(
        f"""
        import os, signal
        from webmcp_harness.agent.transcript import TranscriptWriter, step_entry
        writer = TranscriptWriter({str(path)!r})
        writer.run(script="shop")
        for i in range(3):
            writer.step(step_entry(i + 1, "call", tool="t", input={{"q": "x" * 5000}}))
        writer._file.write('{{"type":"step","index":4,"inp')  # a line cut mid-write
        writer._file.flush()
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", program], env=env, timeout=60, check=False)
    assert done.returncode == -signal.SIGKILL
    transcript = read_transcript(path)
    assert [e["index"] for e in transcript.steps] == [1, 2, 3]
    assert transcript.truncated
    assert not transcript.finished


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_a_transcript_cut_at_any_byte_still_parses_line_by_line(cut: int) -> None:
    lines = [
        json.dumps(step_entry(i, "call", tool="t", input={"q": "ü" * i}, answer=OK))
        for i in range(1, 6)
    ]
    text = "\n".join(lines) + "\n"
    data = text.encode("utf-8")[: cut % (len(text.encode("utf-8")) + 1)]
    transcript = parse_transcript(data.decode("utf-8", "replace"))
    complete = data.count(b"\n")
    assert complete <= len(transcript.entries) <= complete + 1


# -- diff ------------------------------------------------------------------------------------
def steps(*answers: tuple[str, Any, str | None]) -> list[dict[str, Any]]:
    return [
        step_entry(i + 1, "call", tool=tool, answer=answer, code=code, line=10 + i)
        for i, (tool, answer, code) in enumerate(answers)
    ]


def test_the_same_coded_outcomes_are_no_difference() -> None:
    old = steps(
        ("search", OK, None), ("place_order", NOT_FOUND, "unavailable"), ("pay", HELD, None)
    )
    other_ok = {"content": [{"type": "text", "text": '{"order":"TW-99999"}'}]}
    new = steps(
        ("search", other_ok, None), ("place_order", NOT_FOUND, "unavailable"), ("pay", HELD, None)
    )
    assert diff_outcomes(old, new) == []
    assert format_diff([]) == "no differences"


def test_a_changed_outcome_is_a_difference_that_says_what_changed() -> None:
    old = steps(("search", OK, None), ("place_order", NOT_FOUND, "unavailable"))
    new = steps(("search", OK, None), ("place_order", OK, None))
    diffs = diff_outcomes(old, new)
    assert diffs == [
        Difference(
            2,
            "call place_order",
            "call place_order",
            Outcome(False, "unavailable", "not_found"),
            Outcome(True),
            11,
        )
    ]
    assert format_diff(diffs) == "step 2 (call place_order): was not_found (unavailable), now ok"


def test_a_missing_or_extra_step_is_a_difference() -> None:
    old = steps(("search", OK, None), ("pay", HELD, None))
    new = steps(("search", OK, None))
    (diff,) = diff_outcomes(old, new)
    assert diff.new is None
    assert diff.new_step is None
    assert diff.describe() == f"step 2: was call pay: held (ask): {REASONS[0]}; now no such step"
    (extra,) = diff_outcomes(new, old)
    assert extra.old is None


def test_a_different_tool_at_the_same_step_is_a_difference() -> None:
    diffs = diff_outcomes(steps(("search", OK, None)), steps(("browse", OK, None)))
    assert len(diffs) == 1
    assert diffs[0].describe() == "step 1: was call search: ok; now call browse: ok"


def test_whole_transcripts_can_be_compared_and_run_and_end_lines_are_skipped(
    tmp_path: Path,
) -> None:
    paths = []
    for name, code, kind in (("a", "timeout", "unknown_outcome"), ("b", "interrupted", "changed")):
        path = tmp_path / f"{name}.jsonl"
        with TranscriptWriter(path) as writer:
            writer.run(script=name)
            writer.step(
                step_entry(1, "call", tool="pay", answer={"error": kind, "message": "m"}, code=code)
            )
            writer.end(passed=True)
        paths.append(path)
    a, b = (read_transcript(p) for p in paths)
    (diff,) = diff_outcomes(a, b)
    assert diff.to_dict()["old"]["code"] == "timeout"
    assert diff.to_dict()["new"]["code"] == "interrupted"


def test_steps_without_a_recorded_outcome_are_coded_from_their_answer() -> None:
    old = [
        {"type": "step", "action": "call", "tool": "t", "answer": NOT_FOUND, "code": "unavailable"}
    ]
    new = [
        {
            "type": "step",
            "action": "call",
            "tool": "t",
            "outcome": {"ok": False, "code": "unavailable", "kind": "not_found"},
        }
    ]
    assert diff_outcomes(old, new) == []


def test_a_huge_integer_or_answer_keeps_every_line_readable(tmp_path: Path) -> None:
    from webmcp_harness.agent.transcript import TranscriptWriter, read_transcript

    path = tmp_path / "t.jsonl"
    with TranscriptWriter(path) as writer:
        writer.run(url="http://127.0.0.1/")
        writer.step({"index": 1, "input": {"n": 10**5_000}, "answer": "x" * 3_000_000})
        writer.end(passed=True)
    lines = path.read_text().splitlines()
    assert max(map(len, lines)) < 1_000_000
    step = read_transcript(path).steps[0]
    assert step["cut"] > 3_000_000
    assert "more characters" in step["answer"]


def test_a_full_disk_does_not_raise_and_says_why(tmp_path: Path) -> None:
    from webmcp_harness.agent.transcript import TranscriptWriter

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    writer = TranscriptWriter("/dev/full")
    writer.run(url="http://127.0.0.1/")
    writer.end(passed=True)
    writer.close()
    assert writer.error is not None
    assert "No space left on device" in writer.error
