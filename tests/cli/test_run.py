"""Scripted runs end to end: ``webmcp-harness run`` on the shop example, its transcript,
``webmcp-harness replay``, and the runner's steps (retry, confirm, approve) in real Chromium.

The commands run as the installed ``webmcp-harness`` in a subprocess (real exit codes), on the
worker's browser server (``--connect``); the runner's own tests share one browser, driven from a
worker thread.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from async_chromium import AsyncChromium
from inert import inert
from webmcp_harness.agent import (
    RunResult,
    TranscriptWriter,
    load_script,
    play_script,
    read_transcript,
    replay_transcript,
)
from webmcp_harness.agent.policy import SENDS_SECRETS
from webmcp_harness.agent.runner import RETRY_BASE, StepResult
from webmcp_harness.agent.transcript import parse_transcript
from webmcp_harness.cli import main
from webmcp_harness.testing.demo import DemoServer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "shop_purchase.yaml"
HARNESS = str(Path(sys.executable).with_name("webmcp-harness"))


@dataclass
class Command:
    code: int
    out: str
    err: str


def harness(*args: str | Path, cwd: Path | None = None) -> Command:
    done = subprocess.run(
        [HARNESS, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        check=False,
    )
    return Command(done.returncode, done.stdout, done.stderr)


# -- the shop example, from the command line -------------------------------------------------
@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory, browser_server: str) -> tuple[Command, Path]:
    """The example run once with --json: the report on stdout, the step lines on stderr."""
    transcript = tmp_path_factory.mktemp("example") / "shop.jsonl"
    args = ("--json", "--transcript", transcript, "--connect", browser_server)
    return harness("run", EXAMPLE, *args), transcript


def test_the_shop_example_passes(example: tuple[Command, Path]) -> None:
    ran, _ = example
    assert ran.code == 0, ran.out + ran.err
    lines = ran.err.splitlines()
    assert lines[0].startswith("Using the demo shop at http://127.0.0.1:")
    assert lines[1].startswith("Running Buy a tee for Jo (12 steps) at ")
    assert [line.split()[1] for line in lines[2:14]] == ["✓"] * 12
    assert lines[14].startswith("passed: 12 steps in ")


def test_the_json_report_of_a_run_is_one_document_on_stdout(example: tuple[Command, Path]) -> None:
    ran, _ = example
    run = json.loads(ran.out)  # refuses anything after the one document
    assert run["passed"] is True
    assert run["ran"] == run["total"] == 12
    assert all(step["passed"] for step in run["steps"])


def test_the_shop_example_meets_what_a_real_shop_throws_at_an_agent(
    example: tuple[Command, Path],
) -> None:
    _, path = example
    steps = read_transcript(path).steps
    coded = [
        (s["action"], s["tool"], s["outcome"]["code"], s["outcome"]["kind"], s["outcome"]["held"])
        for s in steps
    ]
    assert ("call", "add_to_cart", "needs_user", "vendor", None) in coded
    assert ("call", "place_order", None, None, "ask") in coded
    assert ("approve", "place_order", None, None, None) in coded
    assert ("call", "place_order", "unavailable", "not_found", None) in coded
    assert ("call", "go_to_checkout", "interrupted", "changed", None) in coded
    last = steps[-1]
    assert (last["tool"], last["outcome"]["ok"]) == ("place_order", True)
    assert last["decision"]["approved"] is True  # the approval kept since the unavailable call


def test_the_run_writes_a_transcript_line_per_step(example: tuple[Command, Path]) -> None:
    _, path = example
    lines = path.read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["type"] for e in entries] == ["run"] + ["step"] * 12 + ["end"]
    assert entries[0]["owner"]["name"] == "Sam Rivera"
    assert entries[0]["demo"] is True
    assert entries[-1]["passed"] is True
    assert [e["index"] for e in entries[1:-1]] == list(range(1, 13))
    assert all(e["passed"] and e["line"] for e in entries[1:-1])
    calls = [e for e in entries if e.get("action") == "call" and e["outcome"]["held"] is None]
    assert all(e["record"]["tool"] == e["tool"] for e in calls)  # the record of the call


def test_nothing_in_the_shops_normal_traffic_is_taken_for_a_secret(
    example: tuple[Command, Path],
) -> None:
    _, path = example
    assert "[redacted]" not in path.read_text(encoding="utf-8")


def test_replay_of_the_example_reports_no_difference(
    example: tuple[Command, Path], browser_server: str
) -> None:
    _, path = example
    replayed = harness("replay", path, "--json", "--connect", browser_server)
    assert replayed.code == 0, replayed.out + replayed.err
    assert json.loads(replayed.out) == {"steps": 12, "same": True, "differences": []}


def test_replay_reports_each_step_whose_coded_outcome_changed(
    example: tuple[Command, Path], tmp_path: Path, browser_server: str
) -> None:
    _, path = example
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    unavailable = next(e for e in entries if e.get("outcome", {}).get("code") == "unavailable")
    unavailable["outcome"] = {**unavailable["outcome"], "code": None, "kind": None, "ok": True}
    edited = tmp_path / "older-site.jsonl"
    edited.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    replayed = harness("replay", edited, "--json", "--connect", browser_server)
    assert replayed.code == 1, replayed.out + replayed.err
    report = json.loads(replayed.out)
    assert report["same"] is False
    assert [(d["index"], d["old"]["ok"], d["new"]["kind"]) for d in report["differences"]] == [
        (unavailable["index"], True, "not_found")
    ]


def test_a_transcript_cut_mid_run_still_parses_line_by_line(
    example: tuple[Command, Path],
) -> None:
    _, path = example
    text = path.read_text(encoding="utf-8")
    whole = parse_transcript(text).entries
    lines = set(text.split("\n"))
    ends = [i + 1 for i, c in enumerate(text) if c == "\n"]
    for cut in sorted({*ends, *(end - 1 for end in ends), *range(0, len(text), 211)}):
        part = parse_transcript(text[:cut])
        tail = text[:cut].rsplit("\n", 1)[-1]  # the line the cut went through, if any
        assert part.entries == whole[: len(part.entries)]
        assert part.truncated == (tail != "" and tail not in lines)
        assert len(part.entries) == text[:cut].count("\n") + (tail in lines and tail != "")
        assert part.finished == (cut >= len(text) - 1)


BAD_SCRIPTS = [
    ("steps:\n  - open: /\n  - call: {tool: view_cart, expekt: {ok: true}}\n", 3, "expekt"),
    ("steps:\n  - open: /\n  - call:\n      tool: view_cart\n      retry: always\n", 5, "retry"),
    ("steps:\n  - open: /\n  - wait_for_tool: {tool: a, timeout: -1}\n", 3, "timeout"),
    ("owner: {instructions: hi}\nsteps:\n  - open: /\n", 1, "needs 'name'"),
    ("steps:\n  - open: /\n  - call: {tool: view_cart\n", 4, "bad YAML"),
    ("steps: []\n", 1, "steps is empty"),
]


@pytest.mark.parametrize(("text", "line", "why"), BAD_SCRIPTS)
def test_a_bad_script_is_refused_before_anything_runs(
    tmp_path: Path, text: str, line: int, why: str
) -> None:
    script = tmp_path / "bad.yaml"
    script.write_text(text, encoding="utf-8")
    transcript = tmp_path / "never.jsonl"
    ran = CliRunner().invoke(main, ["run", str(script), "--transcript", str(transcript)])
    assert ran.exit_code == 2
    assert f"bad.yaml:{line}: " in ran.stderr
    assert why in ran.stderr
    assert ran.stdout == ""
    assert not transcript.exists()  # nothing ran, nothing was written


def test_a_failing_step_ends_the_run_with_status_1(tmp_path: Path, browser_server: str) -> None:
    script = tmp_path / "fails.yaml"
    script.write_text(
        "owner: Sam Rivera\n"
        "steps:\n"
        "  - open: /product?id=storm-shell\n"
        "  - call:\n"
        "      tool: add_to_cart\n"
        "      input: {size: M}\n"
        "  - call: {tool: view_cart}\n",
        encoding="utf-8",
    )
    transcript = tmp_path / "fails.jsonl"
    ran = harness("run", script, "--transcript", transcript, "--connect", browser_server)
    assert ran.code == 1, ran.out + ran.err
    assert "  2 ✗ call add_to_cart" in ran.out
    assert "expected the tool's result, got vendor (failed): \"Out of stock" in ran.out
    assert ran.out.splitlines()[-1] == "failed at step 2 (line 4); 2 of 3 steps ran"
    recorded = read_transcript(transcript)
    assert len(recorded.steps) == 2
    assert recorded.end is not None
    assert recorded.end["passed"] is False


# -- the runner's steps, on one shared browser -----------------------------------------------
@pytest.fixture
def chromium(async_chromium: AsyncChromium) -> AsyncChromium:
    """The worker's Chromium (tests/conftest.py): each step run opens a context of its own."""
    return async_chromium


@dataclass
class Played:
    result: RunResult
    transcript: Path
    seen: list[tuple[int, int]]
    """For each step as it ended: its index, and how many step lines the file had then."""


def play(chromium: AsyncChromium, text: str, base_url: str, transcript: Path) -> Played:
    browser = chromium.browser
    script = load_script(text, base_url=base_url)
    seen: list[tuple[int, int]] = []

    def on_step(step: StepResult) -> None:
        lines = transcript.read_text(encoding="utf-8").splitlines()
        seen.append((step.index, sum(1 for line in lines if '"type":"step"' in line)))

    async def body() -> RunResult:
        context = await browser.new_context()
        try:
            page = await context.new_page()
            with TranscriptWriter(transcript) as writer:
                return await play_script(
                    script, page, base_url=base_url, transcript=writer, on_step=on_step
                )
        finally:
            await context.close()

    return Played(chromium.run(body()), transcript, seen)


def outcomes(result: RunResult) -> list[str]:
    return [f"{s.label}: {s.outcome.describe()}" for s in result.steps]


def test_each_step_is_on_disk_before_the_next_one_starts(
    chromium: AsyncChromium, webmcp_demo_url: str, tmp_path: Path
) -> None:
    played = play(
        chromium,
        "steps:\n  - open: /\n  - call: {tool: view_cart}\n  - wait_for_tool: get_product\n",
        webmcp_demo_url,
        tmp_path / "t.jsonl",
    )
    assert played.result.passed
    assert played.seen == [(1, 1), (2, 2), (3, 3)]


def test_retry_auto_retries_an_interrupted_call_after_rereading_the_tools(
    chromium: AsyncChromium, pages_url: str, tmp_path: Path
) -> None:
    played = play(
        chromium,
        "steps:\n"
        "  - open: /agent/tools.html\n"
        "  - call: {tool: flaky, retry: auto, expect: {path: $.attempt, equals: 2}}\n",
        pages_url,
        tmp_path / "t.jsonl",
    )
    assert played.result.passed, outcomes(played.result)
    step = played.result.steps[1]
    assert step.attempts == 2
    tries = read_transcript(played.transcript).steps[1]["attempts"]
    assert [(t["attempt"], t["code"], t["ok"]) for t in tries] == [
        (1, "interrupted", False),
        (2, None, True),
    ]
    assert step.ms >= RETRY_BASE * 1000  # it backed off before trying again


def test_without_retry_the_interrupted_call_is_the_outcome(
    chromium: AsyncChromium, pages_url: str, tmp_path: Path
) -> None:
    played = play(
        chromium,
        "steps:\n"
        "  - open: /agent/tools.html\n"
        "  - call: {tool: flaky, expect: {code: interrupted, kind: changed}}\n"
        "  - call: {tool: flaky, expect: {path: $.attempt, equals: 2}}\n",
        pages_url,
        tmp_path / "t.jsonl",
    )
    assert played.result.passed, outcomes(played.result)
    assert [s.attempts for s in played.result.steps] == [1, 1, 1]


def test_retry_auto_gives_up_after_its_attempts(
    chromium: AsyncChromium, pages_url: str, tmp_path: Path
) -> None:
    played = play(
        chromium,
        "steps:\n"
        "  - open: /agent/tools.html\n"
        "  - call: {tool: moving, retry: auto, attempts: 3, expect: {code: interrupted}}\n",
        pages_url,
        tmp_path / "t.jsonl",
    )
    assert played.result.passed, outcomes(played.result)
    assert played.result.steps[1].attempts == 3


def test_retry_auto_never_retries_a_code_that_is_not_retryable(
    chromium: AsyncChromium, pages_url: str, tmp_path: Path
) -> None:
    played = play(
        chromium,
        "owner: {name: Sam Rivera, instructions: Pay for it.}\n"
        "steps:\n"
        "  - open: /agent/tools.html\n"
        "  - call: {tool: broken, retry: auto, attempts: 5, expect: {code: failed}}\n"
        "  - call:\n"
        "      tool: echo\n"
        "      input: {text: 'card 4111 1111 1111 1111'}\n"
        "      retry: auto\n"
        "      expect: {held: stop}\n",
        pages_url,
        tmp_path / "t.jsonl",
    )
    assert played.result.passed, outcomes(played.result)
    assert [s.attempts for s in played.result.steps] == [1, 1, 1]


def test_confirm_acts_as_the_person_on_a_waiting_form(
    chromium: AsyncChromium, webmcp_demo_url: str, tmp_path: Path
) -> None:
    played = play(
        chromium,
        "owner:\n"
        "  name: Sam Rivera\n"
        "  instructions: Sign me up for the monthly Tide Report, sam.rivera@example.com.\n"
        "steps:\n"
        "  - open: /\n"
        "  - call:\n"
        "      tool: subscribe_newsletter\n"
        "      input: {email: sam.rivera@example.com, frequency: monthly}\n"
        "      expect: {code: needs_user, contains: waits for the person}\n"
        "  - confirm:\n"
        "      tool: subscribe_newsletter\n"
        "      expect: {path: $.subscribed, equals: true}\n",
        webmcp_demo_url,
        tmp_path / "t.jsonl",
    )
    assert played.result.passed, outcomes(played.result)


def test_a_stop_cannot_be_approved_and_the_secret_never_reaches_the_transcript(
    chromium: AsyncChromium, webmcp_demo_url: str, tmp_path: Path
) -> None:
    card = "4111 1111 1111 1111"
    played = play(
        chromium,
        "owner: Sam Rivera\n"
        "steps:\n"
        "  - open: /checkout?items=harbor-mug:1\n"
        "  - call:\n"
        "      tool: place_order\n"
        f"      input: {{email: sam@example.com, shipping: standard, payment: '{card}'}}\n"
        "      expect: {held: stop}\n"
        "  - approve: place_order\n"
        "  - call: {tool: view_cart}\n",
        webmcp_demo_url,
        tmp_path / "t.jsonl",
    )
    result = played.result
    assert not result.passed
    assert outcomes(result)[1:] == [
        f"call place_order: held (stop): {SENDS_SECRETS}",
        f"approve place_order: held (stop): {SENDS_SECRETS}",  # it stays stopped
    ]
    assert result.failed is not None
    assert result.failed.index == 3
    assert result.failed.misses == [
        "the check stopped that call to place_order; a stop can't be approved"
    ]
    text = played.transcript.read_text(encoding="utf-8")
    assert card not in text
    # (the card number, not its first digits: a random invocation id may hold "4111")
    assert "4111 1111" not in text
    assert "[redacted]" in text
    recorded = read_transcript(played.transcript)
    assert len(recorded.steps) == 3
    assert recorded.end is not None
    assert recorded.end["failedStep"] == 3


def test_replay_stops_a_redacted_secret_again(
    chromium: AsyncChromium, webmcp_demo_url: str, tmp_path: Path
) -> None:
    played = play(
        chromium,
        "owner: Sam Rivera\n"
        "steps:\n"
        "  - open: /checkout?items=harbor-mug:1\n"
        "  - call:\n"
        "      tool: apply_coupon\n"
        "      input: {code: 'DE89 3704 0044 0532 0130 00'}\n"
        "      expect: {held: stop}\n",
        webmcp_demo_url,
        tmp_path / "t.jsonl",
    )
    assert played.result.passed, outcomes(played.result)
    browser = chromium.browser

    async def body() -> Any:
        context = await browser.new_context()
        try:
            page = await context.new_page()
            return await replay_transcript(read_transcript(played.transcript), page)
        finally:
            await context.close()

    replayed = chromium.run(body())
    assert replayed.same, [d.describe() for d in replayed.differences]
    assert replayed.steps[1].outcome.held == "stop"


def test_replay_of_a_cut_transcript_repeats_the_steps_it_has(
    chromium: AsyncChromium, example: tuple[Command, Path], tmp_path: Path
) -> None:
    _, path = example
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "killed.jsonl"
    cut.write_text("".join(lines[:8]) + lines[8][:40], encoding="utf-8")  # killed mid-line
    recorded = read_transcript(cut)
    assert (recorded.truncated, recorded.finished, len(recorded.steps)) == (True, False, 7)
    browser = chromium.browser

    async def body(site: str) -> Any:
        context = await browser.new_context()
        try:
            page = await context.new_page()
            return await replay_transcript(recorded, page, base_url=site)
        finally:
            await context.close()

    with DemoServer() as server:  # the run served the demo shop; so does its replay
        replayed = chromium.run(body(server.url))
    assert replayed.same, [d.describe() for d in replayed.differences]
    assert len(replayed.steps) == 7


def test_open_and_wait_for_tool_fail_with_a_kind(
    chromium: AsyncChromium, webmcp_demo_url: str, tmp_path: Path
) -> None:
    missing = play(
        chromium, "steps:\n  - open: /no-such-page\n", webmcp_demo_url, tmp_path / "a.jsonl"
    )
    assert outcomes(missing.result) == ["open /no-such-page: not_found"]
    assert not missing.result.passed
    absent = play(
        chromium,
        "steps:\n  - open: /\n  - wait_for_tool: {tool: place_order, timeout: 0.3}\n",
        webmcp_demo_url,
        tmp_path / "b.jsonl",
    )
    assert outcomes(absent.result)[1] == "wait_for_tool place_order: not_found"
    assert absent.result.failed is not None
    assert absent.result.failed.misses == ["No tool place_order appeared within 0.3 s."]


# -- webmcp-evals suites ---------------------------------------------------------------------
SHOP_EVALS = Path(__file__).resolve().parents[1] / "agent" / "evals" / "shop-evals.json"


@pytest.fixture(scope="module")
def evals_run(
    tmp_path_factory: pytest.TempPathFactory, browser_server: str
) -> tuple[Command, Path]:
    transcript = tmp_path_factory.mktemp("evals") / "evals.jsonl"
    args = ("--transcript", transcript, "--json", "--connect", browser_server)
    return harness("run", SHOP_EVALS, *args), transcript


def test_an_eval_suite_runs_each_eval_and_reports_the_failed_one(
    evals_run: tuple[Command, Path],
) -> None:
    ran, _ = evals_run
    assert ran.code == 1, ran.err[-3000:]
    report = json.loads(ran.out)
    verdicts = {e["name"]: e["passed"] for e in report["evals"]}
    assert verdicts == {
        "Find wool socks": True,
        "A lantern and a mug in the cart": True,
        "Sign up for the newsletter": True,
        "Buy the sold-out jacket": False,
        "Just saying hello": None,
    }
    assert "eval 4 FAILED: Buy the sold-out jacket" in ran.err
    assert "Out of stock: Storm Shell Jacket is sold out" in ran.err
    assert "failed: 3 of 4 evals passed, 1 skipped" in ran.err
    assert "Just saying hello: skipped (no required tool call" in ran.err


def test_an_eval_checks_the_arguments_it_sent_and_the_result_it_got(
    evals_run: tuple[Command, Path],
) -> None:
    ran, _ = evals_run
    cart = next(e for e in json.loads(ran.out)["evals"] if e["index"] == 2)
    calls = [s for s in cart["steps"] if s["action"] == "call"]
    # unordered as written, the optional get_product left out, view_cart's result matched
    assert [c["tool"] for c in calls] == ["add_to_cart", "add_to_cart", "view_cart"]
    assert all(c["passed"] for c in calls)


def test_each_eval_is_a_run_of_its_own_in_the_transcript(evals_run: tuple[Command, Path]) -> None:
    _, path = evals_run
    entries = read_transcript(path).entries
    runs = [e for e in entries if e["type"] == "run"]
    ends = [e for e in entries if e["type"] == "end"]
    assert [r["eval"] for r in runs] == [1, 2, 3, 4]
    assert [e["passed"] for e in ends] == [True, True, True, False]
    sent = next(e for e in entries if e.get("tool") == "search_products" and e["action"] == "call")
    assert sent["input"] == {"q": "wool", "category": "apparel"}  # $contains made concrete


def test_a_result_that_does_not_match_is_a_failed_eval_naming_the_place(
    tmp_path: Path, browser_server: str
) -> None:
    suite = tmp_path / "evals.json"
    suite.write_text(
        json.dumps(
            [
                {
                    "name": "cart",
                    "messages": [],
                    "expectedCall": [
                        {"functionName": "view_cart", "arguments": {}, "result": {"item_count": 5}}
                    ],
                }
            ]
        ),
        encoding="utf-8",
    )
    ran = harness("run", suite, "--connect", browser_server)
    assert ran.code == 1
    assert "result.item_count: expected 5, got 0" in ran.out


@pytest.mark.parametrize(
    ("suite", "why"),
    [
        ('{"name": "x"}', "evals.json: a webmcp-evals suite is a JSON list of evals"),
        ("[\n  {,}\n]", "evals.json:2: not JSON"),
        ('[{"name": "a", "expectedCalls": []}]', "did you mean 'expectedCall'?"),
        (
            '[{"name": "a", "expectedCall": [{"functionName": "f", "arguments": '
            '{"q": {"$regex": "x"}}}]}]',
            "eval 1 (\"a\"), expectedCall[0].arguments.q: unknown operator '$regex'",
        ),
        (
            '[{"name": "a", "expectedCall": [{"functionName": "f", "arguments": '
            '{"q": {"$any": true}}}]}]',
            'eval 1 ("a"), expectedCall[0].arguments.q: no value to send',
        ),
        (
            '[{"name": "a", "expectedCall": [{"functionName": "f"}]}]',
            "expectedCall[0].arguments: the smoke run sends the arguments the eval gives",
        ),
        (
            '[{"name": "a", "expectedCall": [{"unordered": {"functionName": "f"}}]}]',
            "expectedCall[0].unordered: must be a list of calls",
        ),
    ],
)
def test_a_malformed_suite_is_refused_naming_the_place(
    tmp_path: Path, suite: str, why: str
) -> None:
    path = tmp_path / "evals.json"
    path.write_text(suite, encoding="utf-8")
    transcript = tmp_path / "never.jsonl"
    ran = CliRunner().invoke(main, ["run", str(path), "--transcript", str(transcript)])
    assert ran.exit_code == 2, ran.output
    assert why in " ".join(ran.stderr.split()), ran.stderr
    assert not transcript.exists()


HOSTILE_EVALS = ROOT / "tests" / "pages" / "hostile" / "watched-evals.json"


def test_an_eval_suite_on_a_hostile_page_keeps_its_strings_text_in_every_output(
    pages_url: str, tmp_path: Path, browser_server: str
) -> None:
    # The page answers and throws markup, escape sequences, \r, new lines that imitate the
    # run's own lines, bidi overrides, U+2028 and a lone surrogate; the suite's names and
    # arguments hold the same.
    transcript = tmp_path / "hostile.jsonl"
    done = subprocess.run(
        [
            HARNESS, "run", str(HOSTILE_EVALS), "--url", f"{pages_url}/hostile/watched.html",
            "--json", "--transcript", str(transcript), "--connect", browser_server,
        ],
        capture_output=True, timeout=180, check=False,
    )  # fmt: skip
    lines = inert(done.stderr)
    assert done.returncode == 1, lines[-3000:]
    assert not [line for line in lines.splitlines() if line.startswith(("eval 9", "#9"))]
    assert 'got vendor (failed): "#9 forged_call: ok in 1 ms\\neval 9 passed' in lines
    assert "eval 1 FAILED: Echo <script>alert(1)</script></td> \\x1b[2J" in lines
    assert "failed: 1 of 4 evals passed" in lines

    report = json.loads(inert(done.stdout))
    assert [e["passed"] for e in report["evals"]] == [False, False, False, True]
    assert "\x1b]8;;https://evil.example" in report["evals"][0]["name"]  # the same text, escaped
    thrown = report["evals"][2]["steps"][-1]["misses"][0]
    assert thrown.startswith("expected the tool's result, got vendor (failed): \"#9 forged")

    for line in inert(transcript.read_bytes()).splitlines():
        json.loads(line)
    entries = read_transcript(transcript).entries
    sent = next(e for e in entries if e.get("action") == "call")
    assert sent["input"] == {"word": "\x1b[2J</td><script>x</script> \u202e \u2028 \ud800"}
    assert [e["passed"] for e in entries if e["type"] == "end"] == [False, False, False, True]
