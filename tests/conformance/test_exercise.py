"""`check` on pages in the patterns real WebMCP authors use (tests/pages/truth/): calls reach
their tools, forms are filled from their own rules, and a page that is right passes.

The pages are checked once per module, with every tool called, on a thread of its own."""

from __future__ import annotations

import asyncio
import concurrent.futures
from pathlib import Path
from typing import Any

import pytest

from webmcp_harness.conformance.reports import CheckReport
from webmcp_harness.conformance.runner import CheckOptions, check_urls
from webmcp_harness.core.errors import BrowserNotFoundError
from webmcp_harness.session.browser import find_browser, launch

TRUTH = Path(__file__).parents[1] / "pages" / "truth"
PAGES = sorted(p.name for p in TRUTH.glob("*.html"))


@pytest.fixture(scope="module")
def report(pages_url: str) -> CheckReport:
    try:
        path = find_browser()
    except BrowserNotFoundError:
        pytest.skip("no Chromium on this machine")

    async def body() -> CheckReport:
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await launch(p, browser_path=path)
            try:
                options = CheckOptions(
                    timeout=8, load_timeout=30, workers=2, call="all", settle=0.3
                )
                urls = [f"{pages_url}/truth/{name}" for name in PAGES]
                return await check_urls(browser, urls, options)
            finally:
                await browser.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, body()).result(180)


def url_of(report: CheckReport, name: str) -> str:
    return next(p.url for p in report.pages if p.url.split("/truth/")[1].startswith(name))


def findings(report: CheckReport, name: str) -> list[tuple[str, str | None, str]]:
    url = url_of(report, name)
    return [(f.check, f.tool, f.severity.value) for f in report.findings if f.page == url]


def said(report: CheckReport, name: str) -> str:
    url = url_of(report, name)
    return "\n".join(f"{f.check} [{f.tool}]: {f.message}" for f in report.findings if f.page == url)


def calls(report: CheckReport, name: str) -> list[tuple[str, Any, str | None]]:
    page = next(p for p in report.pages if p.url == url_of(report, name))
    numbers = set(page.calls or [])
    return [(r.tool, r.input, r.code) for r in report.records if r.shown_number in numbers]


def test_a_page_that_rewrites_its_fragment_keeps_its_tools_and_passes(report: CheckReport) -> None:
    made = calls(report, "fragment-views.html")
    assert {tool for tool, _, _ in made} == {"count_rows", "show_chart"}
    assert [c for c in made if c[2] == "unavailable"] == [], made
    assert findings(report, "fragment-views.html") == [], said(report, "fragment-views.html")


def test_tools_with_an_empty_schema_or_none_are_called_with_nothing(report: CheckReport) -> None:
    made = calls(report, "empty-schema.html")
    assert ("get_cart", {}, None) in made, made
    assert ("get_store_hours", {}, None) in made, made
    assert findings(report, "empty-schema.html") == [("metadata.schema-object", "get_cart", "info")]


def test_a_contact_form_is_filled_by_its_own_html_rules_and_passes(report: CheckReport) -> None:
    made = calls(report, "contact-form.html")
    valid = made[0]
    assert valid[2] is None, made
    assert "@" in valid[1]["email"]
    assert len(valid[1]["message"]) >= 10
    assert findings(report, "contact-form.html") == [], said(report, "contact-form.html")


def test_each_form_call_starts_from_the_form_as_the_page_made_it(report: CheckReport) -> None:
    # The second call leaves the required city out: the browser must find it empty, not
    # holding the city the first call typed (which would submit, and be blamed on the page).
    made = calls(report, "form-reset.html")
    assert [(inp.get("city") is not None, code) for _, inp, code in made] == [
        (True, None),
        (False, "invalid_input"),
    ], made
    assert findings(report, "form-reset.html") == [], said(report, "form-reset.html")


def test_a_sign_up_form_and_a_support_chat_are_not_warned_of_user_content(
    report: CheckReport,
) -> None:
    found = findings(report, "signup-and-chat.html")
    assert [f for f in found if f[2] != "info"] == [], said(report, "signup-and-chat.html")


def test_answers_that_are_refusals_are_flagged(report: CheckReport) -> None:
    found = {(check, tool) for check, tool, _ in findings(report, "refusals.html")}
    assert found == {
        ("behaviour.failure-flagged", "book_table"),
        ("behaviour.error-coded", "get_item"),
    }, said(report, "refusals.html")


def test_a_page_written_for_navigator_model_context_is_told_so(report: CheckReport) -> None:
    found = [f for f in report.findings if f.page == url_of(report, "navigator-only.html")]
    assert [f.check for f in found] == ["discovery.tools-found"], said(report, "navigator-only")
    assert "registers on navigator.modelContext, which this browser does not have" in (
        found[0].message
    )
    assert "document.modelContext" in found[0].message


def test_a_webmcp_script_that_failed_to_load_is_named(report: CheckReport) -> None:
    found = [f for f in report.findings if f.page == url_of(report, "failed-shim.html")]
    assert [f.check for f in found] == ["discovery.tools-found"], said(report, "failed-shim")
    assert "/truth/vendor/webmcp-shim.js did not run (HTTP 404)" in found[0].message


def test_removed_webmcp_apis_are_named_in_the_result_and_the_findings(
    report: CheckReport,
) -> None:
    found = {f.check: f.message for f in report.findings if f.page == url_of(report, "removed-")}
    assert "client.requestUserInteraction was removed" in found["behaviour.accepts-valid-input"]
    results = [r.result for r in report.records if r.tool == "place_order"]
    assert "Hint: client.requestUserInteraction was removed" in str(results[0])


def test_removed_webmcp_apis_used_as_the_page_loads_are_named_with_what_to_use(
    report: CheckReport,
) -> None:
    found = [f for f in report.findings if f.page == url_of(report, "legacy-context.html")]
    assert [(f.check, f.severity.value) for f in found] == [("discovery.page-errors", "error")] * 3
    text = said(report, "legacy-context.html")
    for api, instead in (
        ("provideContext", "register each tool with document.modelContext.registerTool()"),
        ("clearContext", "register each tool with a signal and abort it to remove the tool"),
        ("unregisterTool", "pass {signal} to registerTool and abort it to remove the tool"),
    ):
        assert f"modelContext.{api} was removed from WebMCP: {instead}." in text, text
    assert "registration-refused" not in text  # unregisterTool is no refused registration
    assert "a WebMCP API this browser does not have while the page loaded" in text
    made = calls(report, "legacy-context.html")
    assert any(tool == "search_stock" and code is None for tool, _, code in made), made
