"""Behaviour checks: judging the records of calls a runner made."""

from __future__ import annotations

from typing import Any

import pytest

from webmcp_harness.conformance.behaviour import BEHAVIOUR_CHECKS, check_call
from webmcp_harness.conformance.findings import Collector, Severity
from webmcp_harness.core.records import BrowserReport, CallRecord, Tool, ToolEvent
from webmcp_harness.core.results import tool_error

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
        "behaviour.rejects-invalid-input",
        "behaviour.form-result-data",  # (for declarative forms only)
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


def test_valid_input_refused_as_invalid_is_an_error_and_a_coded_failure_info() -> None:
    refused = record(tool_error("invalid_input", "unknown size"), code="invalid_input")
    found = check_call(refused, tool(), page=PAGE, purpose="valid")
    assert checks_of(found) == ["behaviour.accepts-valid-input"]
    assert found[0].severity is Severity.ERROR
    assert "unknown size" in found[0].message
    failed = record(
        tool_error("failed", "db down"),
        code="failed",
        status="Error",
        exception={"name": "Error", "code": "failed", "message": "db down"},
    )
    found = check_call(failed, tool(), page=PAGE, purpose="valid")
    assert checks_of(found) == ["behaviour.accepts-valid-input"]
    assert found[0].severity is Severity.INFO


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


@pytest.mark.parametrize("name", ["TypeError", "ReferenceError", "SyntaxError"])
def test_a_tool_that_throws_a_bug_error_on_valid_input_is_an_error(name: str) -> None:
    thrown = record(
        tool_error("failed", f"{name}: x is undefined"),
        code="failed",
        status="Error",
        exception={
            "className": name,
            "description": f"{name}: x is undefined\n    at f (a.js:3:9)",
        },
    )
    found = check_call(thrown, tool(), page=PAGE, purpose="valid")
    assert checks_of(found) == ["behaviour.accepts-valid-input"]
    assert found[0].severity is Severity.ERROR
    assert f"{name}: x is undefined" in found[0].message
    assert "a.js" not in found[0].message  # the message, not the stack


@pytest.mark.parametrize(
    "output",
    [
        {"status": "error", "message": "no such city"},
        {"ok": False},
        {"error": "quota exceeded"},
        [{"message": "Required", "path": ["city"], "code": "invalid_type"}],
        "Error - the city is unknown",
        {"content": [{"type": "text", "text": '{"status":"failed"}'}]},
        {"content": [{"type": "text", "text": "ERROR: city unknown"}]},
    ],
)
def test_a_result_that_reads_as_failure_without_is_error_is_a_warning(output: Any) -> None:
    found = check_call(record(None, output=output), tool(), page=PAGE, purpose="valid")
    assert checks_of(found) == ["behaviour.failure-flagged"]
    assert found[0].severity is Severity.WARNING


@pytest.mark.parametrize(
    "output",
    [{"status": "ok"}, {"error": None, "items": []}, [{"message": "hello"}], "Everything fine"],
)
def test_a_result_that_reads_as_success_is_not_flagged(output: Any) -> None:
    assert check_call(record(None, output=output), tool(), page=PAGE, purpose="valid") == []


def test_error_coded_quotes_only_what_the_page_said_never_the_harness() -> None:
    # The page threw an error with an unknown code; the harness's coded text must not be quoted.
    odd = record(
        tool_error("interrupted", "The page navigated away"),
        code="failed",
        status="Error",
        exception={"name": "Error", "code": "E_WEIRD", "message": "backend said no"},
    )
    found = check_call(odd, tool(), page=PAGE)
    assert checks_of(found) == ["behaviour.error-coded"]
    assert "backend said no" in found[0].message
    assert "Error [interrupted]" not in found[0].message


def test_a_form_whose_next_page_has_no_json_ld_is_a_warning() -> None:
    submitted = record(OK, output=[], events=("navigated",))
    found = check_call(submitted, tool(True), page=PAGE, purpose="valid")
    assert checks_of(found) == ["behaviour.form-result-data"]
    assert found[0].severity is Severity.WARNING
    described = record(OK, output=[{"@type": "ItemList"}], events=("navigated",))
    assert check_call(described, tool(True), page=PAGE, purpose="valid") == []


@pytest.mark.parametrize("order", ["answer first", "removal first"])
def test_a_tool_removed_mid_call_is_judged_on_the_page_answer_whichever_came_first(
    order: str,
) -> None:
    # A React-style re-render unregisters and registers the tool during its own call. The
    # session codes the call interrupted either way; the page's answer is what is judged.
    events = ("toolRemoved", "toolsAdded")
    accepted = record(
        tool_error("interrupted", "search was removed or replaced during the call"),
        code="interrupted",
        output={"ok": True},
        events=events if order == "answer first" else events[::-1],
    )
    found = check_call(accepted, tool(), page=PAGE, purpose="invalid")
    assert checks_of(found) == ["behaviour.rejects-invalid-input"]
    failed = record(
        tool_error("interrupted", "removed"),
        code="interrupted",
        output="Error [failed]: no flights that day.",
        events=events,
    )
    found = check_call(failed, tool(), page=PAGE, purpose="valid")
    assert [(f.check, f.severity) for f in found] == [
        ("behaviour.accepts-valid-input", Severity.INFO)
    ]
    assert "Error [interrupted]" not in found[0].message


def test_a_script_free_form_accepting_coerced_input_is_info_only() -> None:
    accepted = record(output={"ok": True})
    found = check_call(accepted, tool(True), page=PAGE, purpose="invalid", script_free=True)
    assert checks_of(found) == ["behaviour.rejects-invalid-input"]
    assert found[0].severity is Severity.INFO
    scripted = check_call(accepted, tool(True), page=PAGE, purpose="invalid")
    assert scripted[0].severity is Severity.WARNING


def test_a_call_that_crashed_the_page_is_a_page_load_finding_and_not_normal() -> None:
    from webmcp_harness.conformance.behaviour import answered_normally

    crashed = record(tool_error("interrupted", "gone"), code="interrupted", events=("crashed",))
    assert checks_of(check_call(crashed, tool(), page=PAGE)) == ["discovery.page-load"]
    assert not answered_normally(crashed, tool())
    assert answered_normally(record(output={"ok": 1}), tool())


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
    # fails on everything, with no code either time (the missing code is the finding)
    "uncoded": ["behaviour.error-coded", "behaviour.error-coded"],
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


def test_a_listed_tool_that_a_call_could_not_reach_is_an_error() -> None:
    gone = record(
        tool_error("unavailable", 'No tool "search" in frame "x". Tools here: search'),
        code="unavailable",
        status=None,
    )
    found = check_call(gone, tool(), page=PAGE, purpose="valid")
    assert [(f.check, f.severity) for f in found] == [("behaviour.answers", Severity.ERROR)]
    assert "could not reach it" in found[0].message
    said_so = record(tool_error("unavailable", "The shop is closed."), code="unavailable")
    assert check_call(said_so, tool(), page=PAGE, purpose="valid") == []


def test_a_refusal_by_a_forms_html_rules_is_only_info() -> None:
    refused = record(
        tool_error("invalid_input", "Form validation failed: email: Please include an '@'."),
        code="invalid_input",
        status="Error",
        exception={"message": "Form validation failed: email: Please include an '@'."},
    )
    found = check_call(refused, tool(True), page=PAGE, purpose="valid")
    assert [(f.check, f.severity) for f in found] == [
        ("behaviour.accepts-valid-input", Severity.INFO)
    ]
    assert "HTML rules" in found[0].message
