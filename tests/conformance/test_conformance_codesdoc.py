"""The HTML report quotes docs/codes.md on each check: every check has a paragraph there."""

from __future__ import annotations

from webmcp_harness.conformance.codesdoc import codes_doc_path, explanation
from webmcp_harness.conformance.findings import CHECKS


def test_every_check_has_an_explanation_in_docs_codes_md() -> None:
    assert codes_doc_path() is not None
    assert [c for c in CHECKS if not explanation(c)] == []
    assert "readOnlyHint" in explanation("safety.readonly-consequential")


def test_a_check_the_page_does_not_explain_has_none() -> None:
    assert explanation("latency.first-call") == ""
