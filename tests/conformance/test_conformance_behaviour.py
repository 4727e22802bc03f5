"""Behaviour checks: judging the records of calls a runner made."""

from __future__ import annotations

from typing import Any

import pytest

from webmcp_harness.conformance.behaviour import BEHAVIOUR_CHECKS, check_call
from webmcp_harness.conformance.findings import Collector, Severity
from webmcp_harness.records import BrowserReport, CallRecord, Tool, ToolEvent
from webmcp_harness.results import tool_error

PAGE = "http://127.0.0.1:1/shop"
OK = {"content": [{"type": "text", "text": '{"items":[]}'}]}


def tool(declarative: bool = False) -> Tool:
    return Tool("search", "Search things by words.", None, {}, "root", PAGE, declarative)


def record(
    result: Any = OK,
    *,
    code: str | None = None,
    status: str | None = "Completed",
    output: Any = None,
    events: tuple[str, ...] = (),
    pending: bool = False,
    exception: dict[str, Any] | None = None,
) -> CallRecord:
    return CallRecord(
        id=7,
        tool="search",
        input={"q": "tea"},
        browser=BrowserReport(status=status, output=output, exception=exception),
        result=result,
        code=code,
        events=[ToolEvent(e) for e in events],
        pending=pending,
    )


def checks_of(found: list[Any]) -> list[str]:
    return sorted(f.check for f in found)


def test_a_good_call_has_no_findings_and_records_what_ran() -> None:
    out = Collector(PAGE)
    assert (
        check_call(record(output={"items": []}), tool(), page=PAGE, purpose="valid", out=out) == []
    )
    assert {t.check for t in out.targets} == set(BEHAVIOUR_CHECKS) - {
        "behaviour.rejects-invalid-input"
    }


def test_a_call_that_timed_out_did_not_answer() -> None:
    timed_out = record(tool_error("timeout", "no answer in 5 s"), code="timeout", status=None)
    assert checks_of(check_call(timed_out, tool(), page=PAGE)) == ["behaviour.answers"]
    pending = record(None, status=None, pending=True)
    assert checks_of(check_call(pending, tool(), page=PAGE)) == ["behaviour.answers"]
    waiting = record(tool_error("needs_user", "check"), code="needs_user", pending=True)
    assert check_call(waiting, tool(True), page=PAGE) == []


@pytest.mark.parametrize(
    "output",
    [
        "[object Object]",
        {"content": "text"},
        {"content": [{"text": "no type"}]},
        {"content": [{"type": "text", "text": 5}]},
        {"content": [], "isError": "yes"},
    ],
)
def test_invalid_results_are_found(output: Any) -> None:
    found = check_call(record(output=output), tool(), page=PAGE)
    assert checks_of(found) == ["behaviour.valid-result"]


def test_an_unserialisable_result_is_found() -> None:
    circular = record(
        tool_error("failed", "Converting circular structure to JSON"),
        code="failed",
        status="Error",
        exception={"description": "TypeError: Converting circular structure to JSON"},
    )
    assert checks_of(check_call(circular, tool(), page=PAGE)) == ["behaviour.valid-result"]


def test_an_error_result_without_a_code_is_a_warning_and_a_coded_one_is_fine() -> None:
    uncoded = {"content": [{"type": "text", "text": "Error: out of stock"}], "isError": True}
    found = check_call(record(uncoded, output=uncoded), tool(), page=PAGE)
    assert checks_of(found) == ["behaviour.error-coded"]
    assert found[0].severity is Severity.WARNING
    coded = tool_error("failed", "out of stock")
    assert check_call(record(dict(coded), code="failed", output=coded), tool(), page=PAGE) == []


def test_an_imperative_call_that_navigates_is_an_error_but_a_form_may() -> None:
    moved = record(
        tool_error("interrupted", "The page navigated"), code="interrupted", events=("navigated",)
    )
    assert checks_of(check_call(moved, tool(), page=PAGE)) == ["behaviour.no-navigation"]
    submitted = record(OK, events=("navigated",))
    assert check_call(submitted, tool(declarative=True), page=PAGE) == []


def test_valid_input_refused_as_invalid_is_an_error_and_a_failure_a_warning() -> None:
    refused = record(tool_error("invalid_input", "unknown size"), code="invalid_input")
    found = check_call(refused, tool(), page=PAGE, purpose="valid")
    assert checks_of(found) == ["behaviour.accepts-valid-input"]
    assert found[0].severity is Severity.ERROR
    assert "unknown size" in found[0].message
    failed = record(tool_error("failed", "db down"), code="failed", status="Error")
    found = check_call(failed, tool(), page=PAGE, purpose="valid")
    assert checks_of(found) == ["behaviour.accepts-valid-input"]
    assert found[0].severity is Severity.WARNING


def test_invalid_input_accepted_silently_is_flagged_and_refusals_pass() -> None:
    accepted = check_call(record(output={"ok": True}), tool(), page=PAGE, purpose="invalid")
    assert checks_of(accepted) == ["behaviour.rejects-invalid-input"]
    coded = record(tool_error("invalid_input", "q is required"), code="invalid_input")
    assert check_call(coded, tool(), page=PAGE, purpose="invalid") == []
    thrown = record(tool_error("failed", "TypeError"), code="failed", status="Error")
    assert check_call(thrown, tool(), page=PAGE, purpose="invalid") == []


def test_a_hang_on_invalid_input_is_reported_once_as_no_answer() -> None:
    hung = record(tool_error("timeout", "no answer"), code="timeout", status=None)
    assert checks_of(check_call(hung, tool(), page=PAGE, purpose="invalid")) == [
        "behaviour.answers"
    ]


# --- end to end: generated input through the real session, judged by check_call ------------------

SITE = """<!doctype html><meta charset="utf-8"><title>behaviour</title><script>
const mc = document.modelContext;
const schema = {type: "object", properties: {q: {type: "string", description: "Words"}},
                required: ["q"]};
const coded = (code, text) => ({content: [{type: "text", text: `Error [${code}]: ${text}`}],
                                isError: true});
mc.registerTool({name: "strict_echo", description: "Echo the words back, checked.",
  inputSchema: schema,
  execute: (input) => typeof input.q === "string" ? {echo: input.q}
                                                 : coded("invalid_input", "q must be a string")});
mc.registerTool({name: "lenient_echo", description: "Echo whatever it is given back.",
  inputSchema: schema, execute: (input) => ({echo: input})});
mc.registerTool({name: "picky", description: "Only takes one word, secretly.",
  inputSchema: schema,
  execute: (input) => input.q === "xyzzy" ? {ok: true} : coded("invalid_input", "unknown word")});
mc.registerTool({name: "uncoded", description: "Fails without saying why in code.",
  inputSchema: schema, execute: () => ({content: [{type: "text", text: "Error: nope"}],
                                        isError: true})});
mc.registerTool({name: "wanderer", description: "Goes somewhere else instead of answering.",
  inputSchema: schema, execute: () => { location.href = "/elsewhere.html"; return new Promise(() => {}); }});
</script>"""

EXPECTED = {
    "strict_echo": [],
    "lenient_echo": ["behaviour.rejects-invalid-input"],
    "picky": ["behaviour.accepts-valid-input"],
    # fails on everything: a warning for the valid call, and no code either time
    "uncoded": ["behaviour.accepts-valid-input", "behaviour.error-coded", "behaviour.error-coded"],
    "wanderer": ["behaviour.no-navigation"],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_generated_calls_on_a_real_page_give_exactly_the_expected_findings(
    tab: Any, serve: Any, name: str
) -> None:
    from webmcp_harness.conformance.inputs import invalid_input, valid_input
    from webmcp_harness.sync_api import WebMCPSession

    serve("elsewhere.html", "<!doctype html><title>elsewhere</title>")
    session = WebMCPSession.attach(tab, timeout=5)
    tab.goto(serve("behaviour.html", SITE))
    found_tool = session.wait_for_tool(name, timeout=5)
    assert found_tool is not None
    findings = []
    good = valid_input(found_tool.input_schema)
    assert good is not None
    session.call(name, good)
    findings += check_call(session.records[-1], found_tool, page=tab.url, purpose="valid")
    if name != "wanderer":  # the page is gone after the first call
        bad = invalid_input(found_tool.input_schema)
        assert bad is not None
        session.call(name, bad.value, validate=False)
        findings += check_call(session.records[-1], found_tool, page=tab.url, purpose="invalid")
    assert checks_of(findings) == EXPECTED[name]
    session.close()
