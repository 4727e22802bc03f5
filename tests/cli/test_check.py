"""`webmcp-harness check`: its runner on pages with known defects and on hostile pages, its
reports, and its command line.

Every page under tests/pages/defects/ has one known defect (or none, or is hostile); the runner
must report exactly the expected findings there, and survive the hostile ones. The browser work
runs once per module (on a thread of its own, away from pytest-playwright's loop).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import socket
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import xmlschema
from click.testing import CliRunner, Result

from webmcp_harness.cli import main
from webmcp_harness.conformance.behaviour import result_problem
from webmcp_harness.conformance.findings import CHECKS, Finding, Severity
from webmcp_harness.conformance.reports import CheckReport, to_json, write_html, write_junit
from webmcp_harness.conformance.runner import CheckOptions, check_urls, normalise_url
from webmcp_harness.core.errors import BrowserNotFoundError
from webmcp_harness.session.browser import find_browser, launch

T = TypeVar("T")
PAGES = Path(__file__).parents[1] / "pages"
DEFECTS = PAGES / "defects"
INSECURE = "http://insecure.test/insecure.html"
JUNIT_XSD = Path(__file__).parents[1] / "conformance" / "schemas" / "junit.xsd"


def junit_problems(path: Path) -> list[str]:
    """What a real XSD validator says is wrong with a JUnit file (the common JUnit schema)."""
    schema = xmlschema.XMLSchema(str(JUNIT_XSD))
    return [str(e.reason or e) for e in schema.iter_errors(str(path))]


Expected = set[tuple[str, str | None]]

# page -> the (check, tool) of every finding it must produce, and no others.
EXPECTED: dict[str, Expected] = {
    "good.html": set(),
    # discovery
    "no-tools.html": {("discovery.tools-found", None)},
    "no-model-context.html": {("discovery.model-context", None)},
    "tool-count.html": {("discovery.tool-count", None)},
    "names-unique.html": {("discovery.names-unique", "get_weather")},
    # metadata
    "description-present.html": {("metadata.description-present", "get_forecast")},
    "description-useful.html": {("metadata.description-useful", "get_forecast")},
    "description-length.html": {("metadata.description-length", "get_forecast")},
    "schema-valid.html": {("metadata.schema-valid", "get_forecast")},
    "schema-object.html": {("metadata.schema-object", "get_forecast")},
    "params-described.html": {("metadata.params-described", "get_forecast")},
    "required-defined.html": {("metadata.required-defined", "get_forecast")},
    # safety
    "description-injection.html": {("injection.metadata", "get_forecast")},
    "hidden-characters.html": {("safety.hidden-characters", "get_forecast")},
    "untrusted-content.html": {("safety.untrusted-content", "get_reviews")},
    "readonly-consequential.html": {("safety.readonly-consequential", "delete_account")},
    "output-injection.html": {("safety.output-injection", "get_forecast")},
    # behaviour
    "answers.html": {("behaviour.answers", "get_forecast")},
    "valid-result.html": {("behaviour.valid-result", "get_forecast")},
    "accepts-valid-input.html": {("behaviour.accepts-valid-input", "get_forecast")},
    "rejects-invalid-input.html": {("behaviour.rejects-invalid-input", "get_forecast")},
    "error-coded.html": {("behaviour.error-coded", "get_forecast")},
    "no-navigation.html": {("behaviour.no-navigation", "get_forecast")},
    "crashes-on-valid-input.html": {("behaviour.accepts-valid-input", "get_forecast")},
    "failure-flagged.html": {("behaviour.failure-flagged", "get_forecast")},
    # a tool re-registered by its own call's re-render: the same verdict every run
    "react-rerender.html": {("behaviour.accepts-valid-input", "search_flights")},
    # the page's own errors
    "registration-refused.html": {("discovery.registration-refused", "get weather!")},
    "permissions-policy.html": {("discovery.permissions-policy", None)},
    "crashed-at-load.html": {("discovery.tools-found", None), ("discovery.page-errors", None)},
    "page-error-in-call.html": {("discovery.page-errors", "get_forecast")},
    "params-in-properties.html": {("metadata.params-in-properties", "get_forecast")},
    # exploring the tools a call opens
    "explore-game.html": {("safety.code-execution", "eval_code")},
    "explore-form.html": {("form.submit-button", "find_flights")},
    # declarative forms
    "form-params-described.html": {("form.params-described", "find_flights")},
    "form-controls-in-schema.html": {("form.controls-in-schema", "find_flights")},
    "form-options-reachable.html": {("form.options-reachable", "find_flights")},
    "form-required-checkbox.html": {("form.required-checkbox", "find_flights")},
    "form-submit-button.html": {("form.submit-button", "find_flights")},
    "form-browser-issues.html": {
        ("form.browser-issues", "find_hotels"),
        ("form.browser-issues", None),
    },
    # hostile
    "hostile-many-tools.html": {("discovery.tool-count", None)},
    "hostile-huge-description.html": {("metadata.description-length", "get_forecast")},
    "hostile-busy-hang.html": {("behaviour.answers", "spin_forever")},
    "hostile-late-navigation.html": {("behaviour.no-navigation", "get_forecast")},
    "hostile-crash.html": {("discovery.page-load", "crash_page")},
    "hostile-invalid-schemas.html": {
        ("metadata.schema-valid", "bad_type"),
        ("metadata.schema-object", "bad_type"),
        ("metadata.schema-valid", "bad_required"),
        ("metadata.schema-valid", "bad_pattern"),
        ("metadata.schema-valid", "bad_minimum"),
    },
    "hostile-xss.html": set(),
}
MANY = "hostile-many-tools.html"
# Its tool spins until the call's timeout ends it; the spinning page's context is closed, its
# page opened again, both bounded too: checked in a run of its own, with shorter timeouts (its
# quick looks into the page take half the load timeout), which the main run no longer waits for.
HANG = "hostile-busy-hang.html"
# The run whose report holds a page of EXPECTED, when it is not the main one.
OWN_RUN = {MANY: "many", HANG: "hang"}
# Pages that must not finish loading: checked with a short load timeout.
SLOW: dict[str, Expected] = {
    "never-loads.html": {("discovery.page-load", None)},
    "hostile-frozen.html": {("discovery.page-load", None)},
}
INPAGE: dict[str, Expected] = {"name-valid.html": {("metadata.name-valid", "get weather!")}}
OTHERS: dict[str, Expected] = {INSECURE: {("discovery.secure-context", None)}}
# Chromium derives a form's schema from its controls, so the two always agree on `required`:
# no page can make Chromium produce this finding (the pure check is tested in tests/conformance).
NOT_PRODUCIBLE = {"form.required-in-schema"}
READINESS_FAMILY = "readiness"


def in_thread(coro: Coroutine[Any, Any, T], timeout: float = 120) -> T:
    """Run coro to the end on a fresh loop in another thread."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result(timeout)


def invoke(*args: str) -> Result:
    """The CLI, in another thread (it runs its own event loop)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(CliRunner().invoke, main, list(args)).result(120)


def browser_path() -> str:
    try:
        return find_browser()
    except BrowserNotFoundError:
        pytest.skip("no Chromium on this machine")


@pytest.fixture(scope="module")
def black_hole() -> Iterator[int]:
    """A port that accepts connections and never answers (a resource that never arrives)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def hold() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=hold, daemon=True).start()
    yield server.getsockname()[1]
    stop.set()
    server.close()
    for conn in held:
        conn.close()


async def prepare(context: Any) -> None:
    """Test hooks in every context: a binding that crashes the renderer, an insecure origin."""

    async def crash(source: dict[str, Any]) -> None:
        cdp = await context.new_cdp_session(source["page"])
        task = asyncio.ensure_future(cdp.send("Page.crash"))  # never answers: the page is gone
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    await context.expose_binding("__crashRenderer", crash)
    await context.route(
        "http://insecure.test/**",
        lambda route: route.fulfill(
            path=str(DEFECTS / "insecure.html"), content_type="text/html; charset=utf-8"
        ),
    )


class Runs:
    """The reports of the module's check runs, by name, how long each took, and what the HTML
    report of the main run did when opened in the browser."""

    def __init__(self) -> None:
        self.reports: dict[str, CheckReport] = {}
        self.seconds: dict[str, float] = {}
        self.html = ""
        self.html_seen: dict[str, Any] = {}


@pytest.fixture(scope="module")
def runs(pages_url: str, black_hole: int, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    path = browser_path()
    base = f"{pages_url}/defects/"
    result = Runs()
    html = tmp_path_factory.mktemp("check") / "report.html"

    async def one(
        browser: Any, name: str, urls: list[str], options: CheckOptions, stream: bool = False
    ) -> None:
        started = time.monotonic()
        result.reports[name] = await check_urls(
            browser, urls, options, prepare_context=prepare, stream=stream
        )
        result.seconds[name] = time.monotonic() - started

    async def body() -> None:
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await launch(p, browser_path=path)
            quick = CheckOptions(timeout=8, load_timeout=30, workers=4, settle=0.1)
            names = sorted(EXPECTED, key=lambda n: not n.startswith("hostile-"))  # slow first
            names.remove(MANY)
            names.remove(HANG)
            await asyncio.gather(
                one(
                    browser,
                    "hang",
                    [base + HANG],
                    CheckOptions(timeout=3, load_timeout=10, workers=1, settle=0.1),
                ),
                one(browser, "main", [base + n for n in names] + [INSECURE], quick),
                one(
                    browser,
                    "slow",
                    [f"{base}never-loads.html?hang={black_hole}", base + "hostile-frozen.html"],
                    CheckOptions(timeout=3, load_timeout=4, workers=2, settle=0.1),
                ),
                one(
                    browser,
                    "inpage",
                    [base + n for n in INPAGE],
                    CheckOptions(
                        timeout=8, load_timeout=30, backend="inpage", call="all", settle=0.1
                    ),
                ),
                one(
                    browser,
                    "crawl1",
                    [base + "crawl-start.html"],
                    CheckOptions(load_timeout=30, crawl=1, workers=2, call="none", settle=0.1),
                ),
                one(
                    browser,
                    "crawl1-streamed",
                    [base + "crawl-start.html"],
                    CheckOptions(load_timeout=30, crawl=1, workers=2, call="none", settle=0.1),
                    stream=True,
                ),
                one(
                    browser,
                    "crawl3",
                    [base + "crawl-spa.html"],
                    CheckOptions(load_timeout=30, crawl=2, workers=2, call="all", settle=0.1),
                ),
                one(
                    browser,
                    "crawl2",
                    [base + "crawl-start.html"],
                    CheckOptions(
                        load_timeout=30, crawl=2, max_per_path=1, workers=2, call="none", settle=0.1
                    ),
                ),
            )
            # Alone: its 10,000 registrations flood the one connection to the browser, which
            # would delay other pages' answers past their 8 s timeouts.
            await one(browser, "many", [base + MANY], quick)
            write_html(result.reports["main"], html)
            result.html = html.read_text(encoding="utf-8")
            result.html_seen = await _open_html(browser, html)
            await browser.close()

    in_thread(body(), timeout=240)
    return result


async def _open_html(browser: Any, path: Path) -> dict[str, Any]:
    """Open a report with script allowed, and see whether any of the page's strings ran."""
    context = await browser.new_context()
    page = await context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message))
    await page.goto(path.as_uri(), wait_until="load")
    seen = await page.evaluate(
        "() => ({pwned: window.pwned === undefined ? null : window.pwned,"
        " scripts: document.scripts.length, title: document.title})"
    )
    await context.close()
    return {**seen, "dialogs": len(dialogs)}


def found(report: CheckReport, url: str) -> Expected:
    """The WebMCP findings on url (agent readiness has pages of its own: test_readiness.py)."""
    return {
        (f.check, f.tool) for f in report.findings if f.page == url and f.family != READINESS_FAMILY
    }


def messages(report: CheckReport, url: str) -> str:
    """What happened on url (findings, skipped checks, calls), for an assertion's message."""
    lines = [
        f"{f.severity.value} {f.check} [{f.tool}]: {f.message[:300]}"
        for f in report.findings
        if f.page == url
    ]
    lines += [
        f"skipped {t.check} [{t.tool}]: {t.skipped}"
        for t in report.targets
        if t.page == url and t.skipped
    ]
    page = next((p for p in report.pages if p.url == url), None)
    if page is not None:
        lines.append(f"{len(page.tools)} tools, error {page.error!r}, {page.elapsed:.1f} s")
        ids = set(page.calls or [])
        lines += [
            f"call #{r.shown_number} {r.tool} {r.code} {[e.type for e in r.events]}"
            for r in report.records
            if r.shown_number in ids
        ]
    return "\n".join(lines)


def page_url(pages_url: str, name: str) -> str:
    return name if name.startswith("http://insecure") else f"{pages_url}/defects/{name}"


# --- pages with known defects ------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED) + sorted(OTHERS))
def test_a_page_with_a_known_defect_produces_exactly_the_expected_findings(
    runs: Runs, pages_url: str, name: str
) -> None:
    expected = EXPECTED.get(name, OTHERS.get(name))
    report, url = runs.reports[OWN_RUN.get(name, "main")], page_url(pages_url, name)
    assert found(report, url) == expected, messages(report, url)


@pytest.mark.parametrize("name", sorted(SLOW))
def test_a_page_that_never_finishes_loading_is_a_finding_not_a_hang(
    runs: Runs, pages_url: str, name: str, black_hole: int
) -> None:
    url = f"{pages_url}/defects/{name}"
    if name == "never-loads.html":
        url += f"?hang={black_hole}"
    assert found(runs.reports["slow"], url) == SLOW[name], messages(runs.reports["slow"], url)
    assert runs.seconds["slow"] < 60  # bounded: the load timeout is 4 s


def test_an_invalid_name_from_a_lenient_polyfill_is_reported(runs: Runs, pages_url: str) -> None:
    report = runs.reports["inpage"]
    for name, expected in INPAGE.items():
        url = page_url(pages_url, name)
        assert found(report, url) == expected, messages(report, url)
    # --call all calls a tool not marked read-only, here through the page's own script API.
    called = [(r.tool, r.backend) for r in report.records]
    assert called == [("get weather!", "inpage")], messages(report, page_url(pages_url, name))


def test_every_check_is_exercised_by_a_defect_page() -> None:
    exercised = {
        check
        for table in (EXPECTED, SLOW, INPAGE, OTHERS, CRAWL3)
        for expected in table.values()
        for check, _ in expected
    }
    readiness = {c for c in CHECKS if c.startswith(READINESS_FAMILY + ".")}  # tests/pages/ready
    assert set(CHECKS) - exercised - readiness == NOT_PRODUCIBLE


def test_each_defect_page_says_what_it_expects() -> None:
    for name, expected in {**EXPECTED, **SLOW, **INPAGE}.items():
        text = (DEFECTS / name).read_text(encoding="utf-8")
        for check, _ in expected:
            assert check in text, f"{name} does not mention {check}"


def test_findings_carry_the_registered_severity_a_rule_and_an_actionable_message(
    runs: Runs, pages_url: str
) -> None:
    report = runs.reports["main"]
    by_check = {f.check: f for f in report.findings}
    assert by_check["discovery.names-unique"].severity is Severity.WARNING
    assert by_check["behaviour.answers"].severity is Severity.ERROR
    assert by_check["safety.readonly-consequential"].severity is Severity.ERROR  # "delete"
    for finding in report.findings:
        assert finding.rule.startswith(("https://webmachinelearning.github.io/", "docs/codes.md#"))
        assert len(finding.message) > 40


def test_a_form_a_call_reveals_gets_the_form_checks_and_names_that_call(
    runs: Runs, pages_url: str
) -> None:
    report, url = runs.reports["main"], page_url(pages_url, "explore-form.html")
    [finding] = [f for f in report.findings if f.page == url]
    assert (finding.check, finding.tool, finding.severity) == (
        "form.submit-button",
        "find_flights",
        Severity.ERROR,
    ), messages(report, url)
    assert re.fullmatch(r"call #\d+ of “open_booking”", finding.detail["after"])
    assert finding.message.endswith(f"(This tool appeared after {finding.detail['after']}.)")
    page = next(p for p in report.pages if p.url == url)
    assert [t.name for t in page.tools] == ["open_booking", "find_flights"]
    ran = {t.check for t in report.targets if t.page == url and t.tool == "find_flights"}
    assert {"form.params-described", "form.submit-button"} <= ran


def test_a_run_with_defects_fails(runs: Runs, pages_url: str) -> None:
    report = runs.reports["main"]
    assert report.exit_code() == 1


# --- hostile pages ---------------------------------------------------------------------------


def calls_of(report: CheckReport, url: str) -> list[tuple[str, str | None]]:
    page = next(p for p in report.pages if p.url == url)
    ids = set(page.calls or [])
    return [(r.tool, r.code) for r in report.records if r.shown_number in ids]


def test_a_tool_that_blocks_the_main_thread_is_reported_and_the_page_reloaded(
    runs: Runs, pages_url: str
) -> None:
    report, url = runs.reports["hang"], page_url(pages_url, HANG)
    calls = calls_of(report, url)
    assert calls[0] == ("spin_forever", "timeout"), messages(report, url)
    assert ("get_weather", None) in calls, messages(report, url)  # on a fresh page after it
    assert [t for t, _ in calls].count("spin_forever") == 1, messages(report, url)


def test_a_tool_that_crashes_the_renderer_is_reported_and_the_rest_still_checked(
    runs: Runs, pages_url: str
) -> None:
    report, url = runs.reports["main"], page_url(pages_url, "hostile-crash.html")
    calls = calls_of(report, url)
    assert calls[0] == ("crash_page", "interrupted"), messages(report, url)
    assert ("get_weather", None) in calls, messages(report, url)
    # The page opened again after the crash has the same tools: exploring does not call them anew.
    assert sorted(t for t, _ in calls) == ["crash_page", "get_weather", "get_weather"]


def test_ten_thousand_tools_are_listed_and_not_all_called(runs: Runs, pages_url: str) -> None:
    report = runs.reports["many"]
    page = report.pages[0]
    assert len(page.tools) == 10_000
    assert [f.message[:12] for f in report.findings if f.page == page.url] == ["10000 tools "]
    assert page.calls == []  # none of them is read-only


def test_call_records_are_numbered_uniquely_across_pages(runs: Runs) -> None:
    numbers = [r.shown_number for r in runs.reports["main"].records]
    assert numbers
    assert len(numbers) == len(set(numbers))


def test_read_only_mode_calls_only_read_only_tools(runs: Runs, pages_url: str) -> None:
    report = runs.reports["main"]
    # untrusted-content.html's get_reviews is not marked readOnlyHint: never called.
    assert calls_of(report, page_url(pages_url, "untrusted-content.html")) == []
    skipped = [
        t
        for t in report.targets
        if t.tool == "get_reviews" and t.check == "behaviour.answers" and t.skipped
    ]
    assert skipped
    assert "readOnlyHint" in (skipped[0].skipped or "")


# --- crawling ----------------------------------------------------------------------------------


def test_a_crawl_follows_same_origin_links_to_its_depth_once_each(
    runs: Runs, pages_url: str
) -> None:
    base = f"{pages_url}/defects/"
    visited = [p.url for p in runs.reports["crawl1"].pages]
    assert sorted(visited) == sorted(
        base + n
        for n in ("crawl-start.html", "crawl-b.html", "crawl-c.html?item=1", "crawl-c.html?item=2")
    )


def test_a_streamed_check_keeps_its_pages_on_disk_and_finds_the_same(runs: Runs) -> None:
    streamed, memory = runs.reports["crawl1-streamed"], runs.reports["crawl1"]
    assert (streamed.pages, streamed.findings, streamed.targets) == ([], [], [])
    assert streamed.spool is not None
    assert sorted(p.url for p in streamed.iter_pages()) == sorted(p.url for p in memory.pages)

    def finding(f: Any) -> tuple[str, str, str | None, str]:
        return (f.page, f.check, f.tool, f.message)

    assert sorted(map(finding, streamed.iter_findings())) == sorted(map(finding, memory.findings))
    assert sorted(map(str, streamed.iter_targets())) == sorted(map(str, memory.targets))
    assert streamed.summary() == memory.summary()


def test_a_crawl_can_take_one_page_per_path(runs: Runs, pages_url: str) -> None:
    base = f"{pages_url}/defects/"
    visited = {p.url for p in runs.reports["crawl2"].pages}
    assert visited == {
        base + n
        for n in ("crawl-start.html", "crawl-b.html", "crawl-c.html?item=1", "crawl-deep.html")
    }
    assert runs.reports["crawl2"].findings == []
    assert runs.reports["crawl2"].records == []  # --call none


def test_urls_are_deduplicated_without_their_fragment_unless_it_is_a_route() -> None:
    assert normalise_url("http://a.test/x.html#top") == "http://a.test/x.html"
    assert normalise_url("http://a.test") == "http://a.test/"
    assert normalise_url("http://a.test/?q=1#f") == "http://a.test/?q=1"
    assert normalise_url("http://a.test/#/results?q=1") == "http://a.test/#/results?q=1"
    assert normalise_url("http://a.test/#!/cart") == "http://a.test/#!/cart"
    assert normalise_url("http://a.test/x#top", keep_fragment=True) == "http://a.test/x#top"


# What a crawl of routes, forms and a redirect finds, page by page (call all, depth 2).
CRAWL3: dict[str, Expected] = {
    "crawl-spa.html": set(),
    "crawl-b.html?q=tea": set(),  # a GET form's action
    "crawl-start.html": set(),
    "crawl-deep.html": set(),
    "hash-app.html": set(),
    # the route the home page links to: a tool without a description, which Chromium refuses
    "hash-app.html#/results?q=tea": {
        ("discovery.registration-refused", "get_results"),
        ("discovery.tools-found", None),  # info: a crawled page
    },
    "form-site.html": {("behaviour.form-result-data", "find_flights")},
    "redirect-away.html": set(),  # went to another origin: skipped, never called
    # the forms' action pages (as the crawl found them, and as the forms submitted them)
    "form-flights.html?city=": {("discovery.tools-found", None)},
    "form-hotels.html?city=": {("discovery.tools-found", None)},
    "form-flights.html?city=river": {("discovery.tools-found", None)},
    "form-hotels.html?city=river": {("discovery.tools-found", None)},
}


def test_a_crawl_keeps_routes_follows_forms_and_skips_other_origins(
    runs: Runs, pages_url: str
) -> None:
    report, base = runs.reports["crawl3"], f"{pages_url}/defects/"
    assert sorted(p.url for p in report.pages) == sorted(base + n for n in CRAWL3)
    for name, expected in CRAWL3.items():
        assert found(report, base + name) == expected, messages(report, base + name)
    away = next(p for p in report.pages if p.url == base + "redirect-away.html")
    assert away.calls == []
    assert "another origin" in (away.error or "")
    assert all("localhost" not in (r.frame_url or "") for r in report.records)
    assert not any(
        f.severity is Severity.ERROR and "tools-found" in f.check for f in report.findings
    )


# --- results ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        ("plain text", None),
        ({"any": "object"}, None),
        ({"content": [{"type": "text", "text": "ok"}]}, None),
        ({"content": [{"type": "text", "text": "x"}], "isError": True}, None),
        ({"content": "text"}, '"content" must be a list'),
        ({"isError": True}, '"content" must be a list'),
        ({"content": [{"type": "text"}]}, 'without a "text" string'),
        ({"content": [{"type": "video"}]}, "has type"),
        ({"content": [{"type": "image", "data": "x"}]}, '"mimeType"'),
        ({"content": [], "isError": "yes"}, '"isError" must be'),
        ({"content": [], "structuredContent": [1]}, '"structuredContent" must be'),
    ],
)
def test_an_mcp_shaped_result_must_be_a_valid_one(output: Any, problem: str | None) -> None:
    got = result_problem(output)
    assert (got is None) if problem is None else (got is not None and problem in got)


# --- reports ------------------------------------------------------------------------------------


def test_the_json_report_holds_findings_pages_and_call_records(runs: Runs) -> None:
    data = json.loads(json.dumps(to_json(runs.reports["main"]), default=repr))
    assert data["summary"]["passed"] is False
    assert {f["check"] for f in data["findings"]} >= {"behaviour.answers", "discovery.tool-count"}
    assert data["records"]
    assert all("input" in r and "result" in r for r in data["records"])


@pytest.mark.parametrize(
    ("run", "tool"), [("main", "get_forecast"), ("hang", "spin_forever")], ids=["main", "hang"]
)
def test_the_junit_report_has_a_case_per_check_and_target(
    runs: Runs, tmp_path: Path, run: str, tool: str
) -> None:
    report = runs.reports[run]
    path = tmp_path / "junit.xml"
    write_junit(report, path)
    assert junit_problems(path) == []
    root = ET.parse(path).getroot()
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == len(report.testcases())
    failed = [(c.get("classname"), c.get("name")) for c in cases if c.find("failure") is not None]
    assert ("behaviour.answers", tool) in failed  # answers.html's, the busy page's
    assert int(root.get("failures", "0")) == len(failed)


def test_the_html_report_runs_no_script_from_page_strings(runs: Runs) -> None:
    xss = next(p for p in runs.reports["main"].pages if p.url.endswith("hostile-xss.html"))
    assert "<script>" in xss.tools[0].description
    assert "onerror=" in xss.tools[0].description
    assert "<script>window.pwned" not in runs.html
    assert "&lt;script&gt;window.pwned" in runs.html
    assert runs.html_seen == {
        "pwned": None,
        "scripts": 0,
        "dialogs": 0,
        "title": "WebMCP conformance report",
    }


# --- the command line ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["check", "ftp://example.com/"],
        ["check", "about:blank"],
        ["check", "--call", "sometimes", "http://127.0.0.1:9/"],
        ["check", "--workers", "0", "http://127.0.0.1:9/"],
        ["check", "--crawl", "-1", "http://127.0.0.1:9/"],
        ["check", "--timeout", "0", "http://127.0.0.1:9/"],
        ["check", "--json-report", "/no/such/folder/report.json", "http://127.0.0.1:9/"],
        ["check", "--connect", "ws://127.0.0.1:9/", "--cdp", "http://127.0.0.1:9/"],
    ],
)
def test_usage_errors_exit_2_before_a_browser_starts(args: list[str]) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output


def test_the_cli_writes_every_report_and_strict_fails_on_a_warning(
    pages_url: str, tmp_path: Path
) -> None:
    url = f"{pages_url}/defects/description-useful.html"
    junit, html = tmp_path / "report.xml", tmp_path / "report.html"
    result = invoke(
        "check", url, "--timeout", "5", "--strict", "--json",
        "--junit", str(junit), "--html", str(html),
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)  # the JSON report alone on stdout
    assert [f["check"] for f in data["findings"]] == ["metadata.description-useful"]
    assert data["summary"]["strict"] is True
    assert "metadata.description-useful" in result.stderr  # the summary, on stderr
    assert junit_problems(junit) == []
    failures = ET.parse(junit).getroot().findall(".//failure")
    assert [f.get("type") for f in failures] == ["warning"]
    assert 'src="data:image/png;base64,' in html.read_text(encoding="utf-8")


def test_only_errors_fail_a_run_unless_strict() -> None:
    warning = Finding.make("metadata.description-useful", "Say more.", page="http://x.test/")
    error = Finding.make("metadata.description-present", "Describe it.", page="http://x.test/")
    assert CheckReport(findings=[warning]).exit_code() == 0
    assert CheckReport(findings=[warning]).exit_code(strict=True) == 1
    assert CheckReport(findings=[warning, error]).exit_code() == 1
    assert CheckReport().exit_code(strict=True) == 0


def test_bare_check_checks_the_demo_shop_quickly_and_passes() -> None:
    started = time.monotonic()
    result = invoke("check", "--timeout", "5")
    took = time.monotonic() - started
    assert "demo shop" in result.stderr
    assert result.exit_code == 0, result.output
    assert took < 30


def test_the_cli_judges_calls_with_the_one_judge_and_explores_new_tools(
    pages_url: str, browser_server: str
) -> None:
    base = f"{pages_url}/defects/"
    names = ["crashes-on-valid-input.html", "failure-flagged.html", "explore-game.html"]
    urls = [base + n for n in names]
    result = invoke("check", *urls, "--timeout", "8", "--json", "--connect", browser_server)
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    got = {
        (f["page"].rsplit("/", 1)[1], f["check"], f["tool"], f["severity"])
        for f in data["findings"]
    }
    assert got == {
        ("crashes-on-valid-input.html", "behaviour.accepts-valid-input", "get_forecast", "error"),
        ("failure-flagged.html", "behaviour.failure-flagged", "get_forecast", "warning"),
        ("explore-game.html", "safety.code-execution", "eval_code", "error"),
    }
    explored = next(f for f in data["findings"] if f["tool"] == "eval_code")
    assert "start_game" in explored["detail"]["after"]
    assert "skipped: " in result.stderr or "PASSED" not in result.stderr
    assert "--html" in result.stderr


def test_allow_no_tools_passes_a_page_meant_to_have_none_and_explore_0_stays_on_the_first_list(
    pages_url: str, browser_server: str
) -> None:
    base = f"{pages_url}/defects/"
    urls = [base + "no-tools.html", base + "explore-game.html"]
    # The pages register their tools as they load: --settle 0 reads them without the wait for
    # a first tool on the page that has none (what is tested is what the options allow).
    quick = ("--settle", "0", "--connect", browser_server)
    result = invoke("check", *urls, "--allow-no-tools", "--explore", "0", "--json", *quick)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(f["check"], f["severity"]) for f in data["findings"]] == [
        ("discovery.tools-found", "info")
    ]
    game = next(p for p in data["pages"] if p["url"].endswith("explore-game.html"))
    assert [t["name"] for t in game["tools"]] == ["start_game"]
    # Without --allow-no-tools the page fails: the config file's test checks it without a config.


CONFIG = """
[[page]]
path = "/defects/no-tools.html"
allow-no-tools = true

[[page]]
url = "*/defects/description-useful.html"
ignore = ["metadata.description-useful"]
reason = "wording agreed with the product team"
"""


def test_a_config_file_allows_no_tools_and_ignores_checks_on_matching_pages_and_says_so(
    pages_url: str, tmp_path: Path, browser_server: str
) -> None:
    base = f"{pages_url}/defects/"
    config, junit, html = tmp_path / "check.toml", tmp_path / "junit.xml", tmp_path / "r.html"
    config.write_text(CONFIG, encoding="utf-8")
    urls = [base + "no-tools.html", base + "description-useful.html"]
    quick = ("--settle", "0", "--connect", browser_server)  # the pages register as they load
    result = invoke(
        "check", *urls, "--config", str(config), "--strict", "--json",
        "--junit", str(junit), "--html", str(html), *quick,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(f["check"], f["severity"], f["page"]) for f in data["findings"]] == [
        ("discovery.tools-found", "info", urls[0])
    ]
    why = f"ignored by {config} entry 2: wording agreed with the product team"
    assert [(f["check"], f["page"], f["detail"]["ignored"]) for f in data["ignored"]] == [
        ("metadata.description-useful", urls[1], why)
    ]
    assert data["summary"]["ignored"] == 1
    assert "findings not counted: metadata.description-useful" in " ".join(result.stderr.split())
    skipped = (
        ET.parse(junit)
        .getroot()
        .findall(".//testcase[@classname='metadata.description-useful']/skipped")
    )
    assert [s.get("message") for s in skipped] == [why]
    shown = html.read_text(encoding="utf-8")
    assert "Ignored (not counted: --config)" in shown
    assert why in shown
    without = invoke("check", *urls, "--strict", "--json", *quick)
    assert without.exit_code == 1, without.output
    # The page without tools is an error (it fails a run without --strict too), the wording a warning.
    assert {(f["check"], f["severity"]) for f in json.loads(without.stdout)["findings"]} == {
        ("discovery.tools-found", "error"),
        ("metadata.description-useful", "warning"),
    }


def test_a_config_file_that_cannot_be_used_exits_2_naming_it_before_a_browser_starts(
    tmp_path: Path,
) -> None:
    config, report = tmp_path / "check.toml", tmp_path / "report.json"
    config.write_text('[[page]]\npath = "/a"\nignore = ["metadata.nope"]\n', encoding="utf-8")
    result = CliRunner().invoke(
        main,
        ["check", "http://127.0.0.1:9/", "--config", str(config), "--json-report", str(report)],
    )
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.split())
    assert f"--config {config}: [[page]] entry 1: ignore names 'metadata.nope'" in message
    assert "docs/codes.md" in message
    assert not report.exists()
    missing = CliRunner().invoke(main, ["check", "--config", str(tmp_path / "no.toml")])
    assert missing.exit_code == 2
    assert "cannot read it" in missing.stderr
