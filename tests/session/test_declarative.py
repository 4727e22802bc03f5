"""Declarative form tools (`<form toolname>`) through the session, in real Chromium."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from playwright.sync_api import Page

from webmcp_harness import tool_error_code
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
def forms(page: Page, webmcp: SyncSession, pages_url: str) -> SyncSession:
    page.goto(f"{pages_url}/forms.html")
    webmcp.wait_for_tool("validated", timeout=5)
    return webmcp


def test_forms_are_listed_as_declarative_with_the_synthesised_schema(forms: SyncSession) -> None:
    tools = {t.name: t for t in forms.tools()}
    search = tools["search_notes"]
    assert search.declarative is True
    assert search.autosubmit is True
    assert search.input_schema == {
        "type": "object",
        "properties": {"q": {"type": "string", "description": "Words to look for"}},
        "required": ["q"],
    }
    assert tools["subscribe"].autosubmit is False


def test_autosubmit_with_respond_with_returns_the_promised_value(forms: SyncSession) -> None:
    result = forms.call("search_notes", {"q": "tea"})
    assert result == {"content": [{"type": "text", "text": '{"results":["note about tea"]}'}]}


def test_a_form_that_submits_and_navigates_answers_with_the_new_pages_json_ld(
    forms: SyncSession, page: Page
) -> None:
    result = forms.call("lookup_other", {"id": "7"})
    assert code(result) is None
    assert json.loads(text(result)) == [
        {"@context": "https://schema.org", "@type": "WebPage", "name": "Other"}
    ]
    assert any(e.type == "navigated" for e in forms.records[-1].events)
    assert "id=7" in page.url


def test_the_synthesised_schema_is_checked_before_the_call(forms: SyncSession) -> None:
    result = forms.call("search_notes", {})
    assert code(result) == "invalid_input"
    assert "'q' is a required property" in text(result)


def test_browser_form_validation_is_invalid_input_with_the_browsers_message(
    forms: SyncSession,
) -> None:
    result = forms.call("validated", {"code": "lowercase"})
    assert code(result) == "invalid_input"
    assert "Form validation failed" in text(result) or "does not match" in text(result)


def test_the_browser_does_not_hold_a_call_to_a_forms_minlength_or_maxlength(
    page: Page, webmcp: SyncSession, pages_url: str
) -> None:
    # HTML checks lengths only on what a person typed: a value a call fills in is submitted
    # whatever its length (Chromium 156), so only the page itself can hold an agent to them.
    page.goto(f"{pages_url}/forms-lengths.html")
    webmcp.wait_for_tool("leave_note", timeout=5)
    result = webmcp.call("leave_note", {"note": "short", "memo": "far too long"})
    assert code(result) is None, text(result)
    assert json.loads(text(result)) == {
        "note": {"length": 5, "tooShort": False, "tooLong": False},
        "memo": {"length": 12, "tooShort": False, "tooLong": False},
    }


def test_a_rejected_respond_with_is_failed(forms: SyncSession) -> None:
    result = forms.call("reject_search", {"q": "x"})
    assert code(result) == "failed"


def test_coded_text_from_a_form_reads_back_its_code(forms: SyncSession) -> None:
    result = forms.call("coded_answer", {"size": ""})
    assert text(result) == "Error [needs_user]: Ask which size."
    assert code(result) == "needs_user"


def test_a_form_waiting_for_a_person_is_needs_user_well_before_the_timeout(
    forms: SyncSession, page: Page
) -> None:
    started = time.monotonic()
    result = forms.call("subscribe", {"email": "ada@example.com"}, timeout=20)
    assert code(result) == "needs_user"
    assert time.monotonic() - started < 5
    assert page.evaluate("document.getElementById('subscribe').matches(':tool-form-active')")
    assert page.input_value("input[name=email]") == "ada@example.com"
    assert forms.records[-1].pending is True


def test_the_persons_own_submit_delivers_the_answer_to_the_record(
    forms: SyncSession, page: Page
) -> None:
    forms.call("subscribe", {"email": "ada@example.com"})
    record = forms.records[-1]
    page.click("#subscribe-button")
    forms.settle(record, timeout=5)
    assert record.pending is False
    assert record.late_answer == {
        "content": [{"type": "text", "text": '{"subscribed":"ada@example.com"}'}]
    }


def test_confirm_acts_as_the_person_and_returns_the_forms_answer(forms: SyncSession) -> None:
    result = forms.call("subscribe", {"email": "ada@example.com"}, confirm=True)
    assert result == {"content": [{"type": "text", "text": '{"subscribed":"ada@example.com"}'}]}
    assert [e.type for e in forms.records[-1].events][:3] == [
        "toolActivated",
        "waitingForPerson",
        "confirmedAsPerson",
    ]


def test_a_later_confirm_delivers_the_answer_of_a_pending_call(forms: SyncSession) -> None:
    assert code(forms.call("subscribe", {"email": "ada@example.com"})) == "needs_user"
    answer = forms.confirm_pending(forms.records[-1], timeout=5)
    assert answer == {"content": [{"type": "text", "text": '{"subscribed":"ada@example.com"}'}]}
    assert forms.records[-1].late_answer == answer


@pytest.mark.webmcp(confirm=True)
def test_a_session_wide_confirm_policy_submits_for_the_person(forms: SyncSession) -> None:
    assert code(forms.call("subscribe", {"email": "ada@example.com"})) is None


def test_a_form_with_no_submit_button_is_unavailable(forms: SyncSession) -> None:
    result = forms.call("no_button", {"note": "hi"})
    assert code(result) == "unavailable"
    assert "submit button" in text(result)
    assert result.record.reason == "no_submit_button"  # what a caller branches on, not the text


def test_resetting_a_waiting_form_is_cancelled(forms: SyncSession, page: Page) -> None:
    assert code(forms.call("subscribe", {"email": "ada@example.com"})) == "needs_user"
    record = forms.records[-1]
    page.evaluate("window.resetSubscribe()")
    forms.settle(record, timeout=5)
    assert record.late_answer is not None
    assert code(record.late_answer) == "cancelled"


def test_removing_a_waiting_form_is_interrupted(forms: SyncSession, page: Page) -> None:
    assert code(forms.call("subscribe", {"email": "ada@example.com"})) == "needs_user"
    record = forms.records[-1]
    page.evaluate("window.removeSubscribe()")
    forms.settle(record, timeout=5)
    assert record.late_answer is not None
    assert code(record.late_answer) == "interrupted"
