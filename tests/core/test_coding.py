"""Browser reports coded as they really ended, in real Chromium (coding.py's rows).

Each refusal text Chromium 156 has for a declarative form's bad arguments is `invalid_input`
(measured on `outcomes/refusals.html`, one control of each kind); a form that says nothing has no
content, while an imperative tool's `[]` is the text `[]`. The harness's own check is switched off
(`validate=False`) where the browser's refusal is what is under test.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from webmcp_harness import tool_error_code
from webmcp_harness.core.coding import code_refusal, code_report
from webmcp_harness.core.records import BrowserReport
from webmcp_harness.sync_api import WebMCPSession as SyncSession


def code(result: Any) -> str | None:
    found = tool_error_code(result)
    return found.value if found else None


def text(result: Any) -> str:
    return str(result["content"][0]["text"]) if result.get("content") else ""


@pytest.fixture
def page(reused_page: Page) -> Page:
    """One page for the whole file: each test opens its own document in it (tests/conftest.py)."""
    return reused_page


@pytest.fixture
def refusals(page: Page, webmcp: SyncSession, pages_url: str) -> SyncSession:
    page.goto(f"{pages_url}/outcomes/refusals.html")
    page.wait_for_function("window.toolsReady === true")
    return webmcp


# (arguments, the browser's errorText, measured)
REFUSALS = {
    "no-such-parameter": (
        {"need": "x", "zz": "1"},
        'Input contains a parameter "zz" but there is no such parameter for the tool',
    ),
    "date-not-iso": (
        {"need": "x", "d": "25/12/2026"},
        'Invalid value "25/12/2026" for parameter d',
    ),
    "time-out-of-range": ({"need": "x", "tm": "25:00"}, 'Invalid value "25:00" for parameter tm'),
    "datetime-garbled": ({"need": "x", "dt": "x"}, 'Invalid value "x" for parameter dt'),
    "month-13": ({"need": "x", "mo": "2026-13"}, 'Invalid value "2026-13" for parameter mo'),
    "week-60": ({"need": "x", "wk": "2026-W60"}, 'Invalid value "2026-W60" for parameter wk'),
    "number-not-a-number": ({"need": "x", "n": "abc"}, 'Invalid value "abc" for parameter n'),
    "number-given-object": ({"need": "x", "n": {"a": 1}}, "Invalid value for parameter n"),
    "text-given-null": ({"need": "x", "t": None}, "Invalid value for parameter t"),
    "text-given-array": ({"need": "x", "t": ["a"]}, "Invalid value for parameter t"),
    "checkbox-given-text": ({"need": "x", "cb": "yes"}, 'Invalid value "yes" for parameter cb'),
    "radio-no-such-option": ({"need": "x", "rad": "c"}, 'Invalid value "c" for parameter rad'),
    "select-no-such-option": ({"need": "x", "s": "z"}, 'Invalid value "z" for parameter s'),
    "multiple-given-text": ({"need": "x", "sm": "x"}, 'Invalid value "x" for parameter sm'),
    "multiple-unknown-member": ({"need": "x", "sm": ["x", "z"]}, "Invalid value for parameter sm"),
    "form-validation": (
        {"need": "x", "em": "notanemail"},
        "Form validation failed: em: Please include an '@' in the email address.",
    ),
    "required-missing": ({}, "Form validation failed: need: Please fill out this field."),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_each_browser_refusal_of_bad_form_input_is_invalid_input(
    refusals: SyncSession, case: str
) -> None:
    args, said = REFUSALS[case]
    result = refusals.call("every_control", args, validate=False)
    record = refusals.records[-1]
    assert record.browser.status == "Error"
    assert (record.browser.error_text or "").startswith(said)
    assert code(result) == "invalid_input", result
    assert said in text(result)


def test_the_same_form_with_good_input_answers(refusals: SyncSession) -> None:
    result = refusals.call("every_control", {"need": "x", "d": "2026-12-25", "sm": ["y"]})
    assert code(result) is None
    assert '"d":"2026-12-25"' in text(result)


def test_the_harness_refuses_the_bad_date_itself_before_the_form_is_filled(
    refusals: SyncSession,
) -> None:
    result = refusals.call("every_control", {"need": "x", "d": "25/12/2026"})
    assert code(result) == "invalid_input"
    assert "'25/12/2026' is not a 'date' (at /d)" in text(result)
    assert refusals.records[-1].browser.status is None  # never sent


def test_a_form_that_submits_in_place_and_says_nothing_has_no_content(
    refusals: SyncSession,
) -> None:
    result = refusals.call("submits_in_place", {"note": "hi"})
    assert result == {"content": []}
    assert refusals.records[-1].browser.output == []  # the browser's report is kept as it was


def test_an_imperative_tool_that_returns_an_empty_list_says_so(refusals: SyncSession) -> None:
    assert refusals.call("returns_empty_list") == {"content": [{"type": "text", "text": "[]"}]}


def test_input_that_is_not_an_object_sent_unchecked_is_refused_by_the_browser(
    refusals: SyncSession,
) -> None:
    result = refusals.call("returns_empty_list", ["a"], validate=False)  # type: ignore[arg-type]
    assert code(result) == "invalid_input"
    assert "Invalid parameters" in text(result)  # WebMCP.invokeTool's answer


def test_the_refusal_table_codes_texts_not_seen_as_failures() -> None:
    report = BrowserReport(status="Error", error_text="respondWith promise was rejected")
    assert code(code_report(report)) == "failed"
    report = BrowserReport(status="Error", error_text="No submit button was found, but ...")
    assert code(code_report(report)) == "unavailable"
    assert code_refusal("Tool not found") is None
    assert code(code_refusal("Invalid parameters") or {}) == "invalid_input"
