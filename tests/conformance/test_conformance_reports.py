"""Reports: JSON, JUnit XML (checked against the common JUnit schema), HTML (no script from page
strings, checked in Chromium), and the terminal summary."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from playwright.sync_api import Page, expect

from webmcp_harness.cli.summary import render_summary
from webmcp_harness.conformance import ids
from webmcp_harness.conformance.findings import Collector, Finding, Severity
from webmcp_harness.conformance.metadata import check_metadata
from webmcp_harness.conformance.reports import (
    CSP,
    CheckReport,
    PageResult,
    PageSpool,
    to_html,
    to_json,
    to_junit,
    write_html,
    write_json,
    write_junit,
)
from webmcp_harness.conformance.safety import check_safety
from webmcp_harness.core.records import BrowserReport, CallRecord, Tool

PAGE = "http://127.0.0.1:1/shop"
SCRIPT = "<script>window.__pwned = 1; alert('script')</script>"
ONERROR = "<img src=x onerror=\"window.__pwned = 2; alert('onerror')\">"
SVG = '"><svg onload="window.__pwned = 3; alert(\'svg\')">'
HOSTILE = f"Search products. {SCRIPT} {ONERROR} {SVG} </textarea></style></pre>"


def tool(name: str, description: str, **annotations: Any) -> Tool:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    return Tool(name, description, schema, annotations, "root", PAGE)


def build_report(*, screenshot: bytes | None = None, strict: bool = False) -> CheckReport:
    tools = [
        tool("search_products", "Search the catalogue by keyword and return products."),
        tool(f"evil{SCRIPT}", HOSTILE),
        tool("place_order", "Place the order for the cart.", readOnlyHint=True),
    ]
    collected = Collector(PAGE)
    check_metadata(tools, page=PAGE, out=collected)
    check_safety(tools, page=PAGE, out=collected)
    collected.skip("behaviour.answers", "not called (--call readonly)", tool="place_order")
    record = CallRecord(
        id=1,
        tool="search_products",
        input={"q": SCRIPT},
        frame_url=PAGE,
        browser=BrowserReport(status="Completed", output=ONERROR),
        result={"content": [{"type": "text", "text": ONERROR}]},
        timings={"total": 12.5},
    )
    report = CheckReport(
        pages=[
            PageResult(
                url=PAGE,
                title=f"Shop {SCRIPT}",
                tools=tools,
                screenshot=screenshot,
                elapsed=1.25,
            ),
            PageResult(url="javascript:alert(1)//", error=f"Page did not load: {ONERROR}"),
        ],
        records=[record],
        started=1_700_000_000.0,
        ended=1_700_000_003.5,
        options={"call": "readonly", "strict": strict, "note": SCRIPT},
    )
    report.add(collected)
    report.findings.append(
        Finding.make(
            "discovery.page-load",
            f"The page never finished loading: {SVG}",
            page="javascript:alert(1)//",
        )
    )
    return report


# --- the report object ---------------------------------------------------------------------------


def test_counts_failure_and_exit_code_follow_severity_and_strictness() -> None:
    report = build_report()
    counts = report.counts()
    assert counts["error"] >= 2
    assert counts["warning"] >= 1
    assert report.failed()
    assert report.exit_code() == 1
    warnings_only = CheckReport(
        findings=[Finding.make("metadata.params-described", "m", page=PAGE, tool="t")]
    )
    assert warnings_only.exit_code() == 0
    assert warnings_only.exit_code(strict=True) == 1
    warnings_only.options["strict"] = True
    assert warnings_only.exit_code() == 1
    assert CheckReport().exit_code(strict=True) == 0


def test_testcases_list_passes_failures_and_skips() -> None:
    report = build_report()
    cases = report.testcases()
    keys = {(c.check, c.tool) for c in cases}
    assert ("metadata.name-valid", "search_products") in keys  # a pass
    failing = [c for c in cases if c.failing(False)]
    assert ("metadata.name-valid", f"evil{SCRIPT}") in {(c.check, c.tool) for c in failing}
    skipped = [c for c in cases if c.skipped]
    assert [(c.check, c.tool) for c in skipped] == [("behaviour.answers", "place_order")]
    # a finding whose check was never marked as run still gets its case
    assert ("discovery.page-load", None) in keys


# --- JSON ----------------------------------------------------------------------------------------


def test_the_json_report_holds_summary_findings_records_and_pages(tmp_path: Path) -> None:
    report = build_report()
    path = tmp_path / "report.json"
    write_json(report, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["summary"]["passed"] is False
    assert data["summary"]["findings"] == report.counts()
    assert data["summary"]["pages"] == 2
    assert data["summary"]["tools"] == 3
    assert len(data["findings"]) == len(report.findings)
    assert data["findings"][0].keys() >= {"check", "severity", "page", "tool", "message", "rule"}
    assert data["records"][0]["input"] == {"q": SCRIPT}
    assert data["pages"][0]["tools"][1]["description"] == HOSTILE
    assert {c["id"] for c in data["checks"]} >= {"metadata.name-valid", "behaviour.answers"}
    assert data["started"] == "2023-11-14T22:13:20+00:00"
    assert data["duration"] == 3.5
    buffer = io.StringIO()
    write_json(report, buffer)
    assert json.loads(buffer.getvalue()) == data


def test_the_json_report_cuts_megabyte_strings() -> None:
    huge = tool("huge", "x" * 1_000_000)
    data = to_json(CheckReport(pages=[PageResult(url=PAGE, tools=[huge])]))
    description = data["pages"][0]["tools"][0]["description"]
    assert len(description) < 25_000
    assert description.endswith("more characters)")


# --- JUnit ---------------------------------------------------------------------------------------
# The common JUnit XML format, as an XSD (tests/conformance/schemas/junit.xsd; see its header),
# checked by a real validator.
JUNIT_XSD = xmlschema.XMLSchema(str(Path(__file__).parent / "schemas" / "junit.xsd"))


def validate_junit(root: ET.Element | str) -> list[str]:
    """Problems of a JUnit XML document against the schema (none when valid)."""
    source = root if isinstance(root, str) else ET.tostring(root, encoding="unicode")
    return [str(error.reason or error) for error in JUNIT_XSD.iter_errors(source)]


def test_the_validator_rejects_broken_junit() -> None:
    broken = ET.fromstring(
        '<testsuites skipped="x"><testsuite tests="x"><testcase><failure/>'
        "<skipped/><bogus/></testcase></testsuite></testsuites>"
    )
    problems = " | ".join(validate_junit(broken))
    assert validate_junit(broken)
    for needle in ("'x'", "name", "bogus"):
        assert needle in problems, problems


@pytest.mark.parametrize("strict", [False, True])
def test_the_junit_report_validates_and_its_counts_add_up(tmp_path: Path, strict: bool) -> None:
    report = build_report()
    path = tmp_path / "junit.xml"
    write_junit(report, path, strict=strict)
    root = ET.parse(path).getroot()
    assert validate_junit(root) == []
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [PAGE, "javascript:alert(1)//"]
    for suite in suites:
        cases = suite.findall("testcase")
        assert int(suite.get("tests", "")) == len(cases)
        assert int(suite.get("failures", "")) == len(
            [c for c in cases if c.find("failure") is not None]
        )
        assert int(suite.get("skipped", "")) == len(
            [c for c in cases if c.find("skipped") is not None]
        )
    assert int(root.get("tests", "")) == len(report.testcases())
    assert int(root.get("failures", "")) == sum(int(s.get("failures", "")) for s in suites)


def test_warnings_fail_junit_cases_only_when_strict() -> None:
    report = build_report()

    def failed_checks(strict: bool) -> set[str]:
        root = to_junit(report, strict=strict)
        return {
            c.get("classname", "") for c in root.iter("testcase") if c.find("failure") is not None
        }

    assert "metadata.params-described" not in failed_checks(False)
    assert "metadata.params-described" in failed_checks(True)
    assert "metadata.name-valid" in failed_checks(False)
    lenient = to_junit(report, strict=False)
    outs = [
        c for c in lenient.iter("testcase") if c.get("classname") == "metadata.params-described"
    ]
    assert any("warning" in (c.findtext("system-out") or "") for c in outs)


def test_junit_cases_name_check_and_target_and_the_failure_says_what_to_fix() -> None:
    root = to_junit(build_report())
    case = next(
        c
        for c in root.iter("testcase")
        if c.get("classname") == "safety.readonly-consequential" and c.find("failure") is not None
    )
    assert case.get("name") == "place_order"
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("type") == "error"
    assert "readOnlyHint" in (failure.get("message") or "")
    assert "#dom-toolannotations-readonlyhint" in (failure.text or "")
    skipped = next(c for c in root.iter("testcase") if c.find("skipped") is not None)
    assert skipped.get("classname") == "behaviour.answers"


def test_characters_xml_cannot_hold_are_replaced() -> None:
    report = CheckReport(
        findings=[
            Finding.make(
                "metadata.name-valid", "bad \x00\x1b[31m\ud800 name", page=PAGE, tool="a\x07b"
            )
        ]
    )
    buffer = io.StringIO()
    write_junit(report, buffer)
    root = ET.fromstring(buffer.getvalue().encode("utf-8"))
    assert validate_junit(root) == []
    case = next(root.iter("testcase"))
    assert case.get("name") == "a\ufffdb"


# --- HTML ----------------------------------------------------------------------------------------


def test_every_page_string_is_escaped_in_the_html() -> None:
    page = to_html(build_report())
    for payload in (SCRIPT, ONERROR, SVG, "</textarea>"):
        assert payload not in page
    assert "<script" not in page.lower()
    assert "<img src=x" not in page
    assert "<svg" not in page
    assert "&lt;script&gt;window.__pwned = 1;" in page
    assert 'href="javascript:' not in page
    assert (
        f'<meta http-equiv="Content-Security-Policy" content="{CSP.replace(chr(39), "&#x27;")}">'
        in page
    )


def test_controls_and_direction_overrides_in_a_page_string_show_as_escapes_in_the_html() -> None:
    report = CheckReport(started=1.0, ended=2.0)
    collected = Collector(PAGE)
    nasty = "evil\u202e reversed \x1b[2J\x1b]0;pwned\x07 \ud800 end"
    collected.add("metadata.description-useful", f"The page says: {nasty}", tool="trick")
    report.add_page(PageResult(url=PAGE, tools=[]), collected, [])
    page = to_html(report)
    assert "trick" in page
    for raw in ("\u202e", "\x1b", "\x07", "\ud800"):
        assert raw not in page
    assert "\\u202e" in page  # shown, as the terminal shows it


def test_the_html_groups_findings_by_page_and_tool() -> None:
    page = to_html(build_report())
    first, second = page.index('id="page-0"'), page.index('id="page-1"')
    assert first < page.index("place_order", first) < second  # the summary above names it too
    assert page.index("The page never finished loading", first) > second
    assert "<summary>place_order" in page


def test_the_html_embeds_only_real_images() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20
    assert 'src="data:image/png;base64,' in to_html(build_report(screenshot=png))
    assert (
        "data:"
        not in to_html(build_report(screenshot=b"<svg onload=alert(1)>")).split("</style>", 1)[1]
    )


def test_the_html_report_is_written_to_a_file(tmp_path: Path) -> None:
    path = tmp_path / "r.html"
    write_html(build_report(), path)
    assert path.read_text(encoding="utf-8").startswith("<!doctype html>")


def _open_in_chromium(tab: Page, url: str) -> list[str]:
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    tab.on("dialog", on_dialog)
    tab.goto(url, wait_until="load")
    tab.wait_for_function(
        "document.images.length === 0 || [...document.images].every(i => i.complete)"
    )
    return dialogs


@pytest.mark.parametrize("keep_csp", [True, False], ids=["with-csp", "escaping-alone"])
def test_hostile_descriptions_run_no_script_in_the_html_report(
    tab: Page, serve: Callable[[str, str], str], keep_csp: bool
) -> None:
    tab.goto(serve("blank.html", "<!doctype html><title>blank</title><p>shot</p>"))
    shot = tab.screenshot()
    report_html = to_html(build_report(screenshot=shot))
    if not keep_csp:  # escaping must hold on its own, without the CSP's help
        report_html = re.sub(r"<meta http-equiv=\"Content-Security-Policy\"[^>]*>", "", report_html)
        assert "Content-Security-Policy" not in report_html
    url = serve(f"report-{keep_csp}.html", report_html)
    dialogs = _open_in_chromium(tab, url)
    assert dialogs == []
    assert tab.evaluate("typeof window.__pwned") == "undefined"
    assert tab.evaluate("document.scripts.length") == 0
    assert tab.locator("svg, [onerror], [onload]").count() == 0
    text = tab.inner_text("body")
    assert "<script>window.__pwned = 1;" in text  # shown as text, for a person to read
    assert 'onerror="window.__pwned = 2;' in text
    assert tab.evaluate("[...document.images].map(i => i.naturalWidth > 0)") == [True]


# --- HTML: the summary, the failed checks, the tools, the options -------------------------------


def test_the_summary_gives_each_family_its_score() -> None:
    report = CheckReport(started=1.0, ended=2.0)
    collected = Collector(PAGE)
    collected.ran(ids.METADATA_NAME_VALID, tool="t")
    collected.add(ids.METADATA_DESCRIPTION_USEFUL, "Say more than the name.", tool="t")
    collected.add(ids.SAFETY_CODE_EXECUTION, "It runs what it is given.", tool="t")
    collected.skip(ids.BEHAVIOUR_ANSWERS, "not called (--call none)", tool="t")
    report.add_page(PageResult(url=PAGE, tools=[tool("t", "A tool.")]), collected, [])
    scores = dict(
        re.findall(r'data-family="([a-z]+)">.*?<div class="num">(\d+)</div>', to_html(report))
    )
    assert scores == {"metadata": "75", "safety": "0"}  # a skipped check does not count
    assert "a warning costs half of it and an error all of it" in to_html(report)


def test_an_unknown_family_shows_under_its_own_name() -> None:
    report = CheckReport(started=1.0, ended=2.0)
    finding = Finding("latency.first-call", Severity.WARNING, PAGE, "Slow.", "docs/codes.md")
    report.add_page(PageResult(url=PAGE), Collector(PAGE), [])
    report.findings.append(finding)
    page = to_html(report)
    assert 'data-family="latency"><div class="title">latency</div>' in page
    assert "The checks whose ids start with" in page


def test_a_failed_check_shows_its_finding_tool_call_fix_and_docs_link() -> None:
    report = build_report()
    report.findings.append(
        Finding.make(
            ids.BEHAVIOUR_ACCEPTS_VALID_INPUT,
            "It crashed on valid input (call #1).",
            page=PAGE,
            tool="search_products",
            detail={"call": 1},
        )
    )
    page = to_html(report)
    failed = page[page.index('id="failed"') : page.index('id="options"')]
    assert "It crashed on valid input (call #1)." in failed
    assert "<code>search_products</code>" in failed
    assert "call #1 of <code>search_products</code>" in failed  # the call: input, code, message
    assert "&lt;script&gt;window.__pwned = 1;" in failed  # its input, escaped
    assert "Input that fits the <code>inputSchema</code> is accepted." in failed  # how to fix
    assert 'href="docs/codes.md#behaviour-accepts-valid-input"' in failed


def test_warnings_are_failed_checks_with_strict_and_folded_below_them_without() -> None:
    lenient, strict = to_html(build_report()), to_html(build_report(strict=True))
    assert "Warnings (they fail the run with --strict)" in lenient
    assert "Warnings (they fail the run with --strict)" not in strict
    failed = strict[strict.index('id="failed"') : strict.index('id="options"')]
    assert "safety.readonly-consequential" in failed.split("<details>", 1)[0]


def test_the_options_are_said_in_words() -> None:
    page = to_html(build_report())
    options = page[page.index('id="options"') :].split("</section>", 1)[0]
    assert "called only the tools marked read-only" in options
    assert "Errors fail the run; warnings do not" in options
    assert "note: &lt;script&gt;" in options  # an option without words: its name and value
    assert "{" not in options


@dataclass(frozen=True)
class Where:
    url: str
    line: Any
    column: Any


@dataclass(frozen=True)
class LocatedTool(Tool):
    """A tool with the `location` the session is to give (the report reads it if present)."""

    location: Any = None


def hostile_report() -> CheckReport:
    """Page strings in every new part of the HTML report: the failed check and its call, an
    unknown family, the tools table (annotations, location), the options in words."""
    evil = LocatedTool(
        f"evil{SVG}",
        HOSTILE,
        {"type": "object"},
        {SCRIPT: ONERROR, "readOnlyHint": SVG, "destructiveHint": True},
        "root",
        f"javascript:alert(1)//{SCRIPT}",
        location=Where(f"javascript:alert(2)//{ONERROR}", SCRIPT, 7),
    )
    record = CallRecord(
        id=1,
        tool=evil.name,
        input={SVG: SCRIPT},
        frame_url=PAGE,
        result={"content": [{"type": "text", "text": f"Error: {ONERROR}"}], "isError": True},
    )
    report = CheckReport(
        started=1.0,
        ended=2.0,
        options={
            "urls": ["javascript:alert(3)", SCRIPT],
            "call": SCRIPT,
            "timeout": SCRIPT,
            "viewport": [SCRIPT, 1],
            SCRIPT: {"x": SVG},
        },
    )
    collected = Collector(PAGE)
    collected.add(ids.SAFETY_CODE_EXECUTION, f"It ran {SCRIPT}", tool=evil.name, frame=SVG)
    report.add_page(PageResult(url=PAGE, title=SVG, tools=[evil]), collected, [record])
    report.findings.append(
        Finding(f"{SCRIPT}.x", Severity.ERROR, PAGE, ONERROR, f"javascript:{SVG}", evil.name,
                detail={"call": 1})
    )  # fmt: skip
    return report


def test_page_strings_in_the_summary_failed_checks_tools_and_options_are_escaped() -> None:
    page = to_html(hostile_report())
    for payload in (SCRIPT, ONERROR, SVG):
        assert payload not in page
    assert "<script" not in page.lower()
    assert "<svg" not in page
    assert 'href="javascript:' not in page
    assert "call #1 of <code>evil&quot;&gt;&lt;svg" in page  # the call that showed it
    tools = page.split('class="tools"', 1)[1].split("</table>", 1)[0]
    assert "destructive" in tools
    assert "readOnlyHint: " in tools  # not a boolean: shown as it is, not read as read-only
    assert "read-only" not in tools
    assert ":7</code>" in page  # where registered: a line that is not a number is left out


def test_hostile_strings_in_the_new_parts_run_no_script_in_chromium(
    tab: Page, serve: Callable[[str, str], str]
) -> None:
    report_html = re.sub(
        r"<meta http-equiv=\"Content-Security-Policy\"[^>]*>", "", to_html(hostile_report())
    )  # escaping must hold without the CSP's help
    dialogs = _open_in_chromium(tab, serve("report-new-parts.html", report_html))
    assert dialogs == []
    assert tab.evaluate("typeof window.__pwned") == "undefined"
    assert tab.locator("script, svg, [onerror], [onload]").count() == 0
    assert tab.locator('a[href^="javascript:"]').count() == 0
    assert "<script>window.__pwned = 1;" in tab.inner_text("#failed")


def test_a_real_report_opens_in_chromium_without_errors_or_requests(
    tab: Page, pages_url: str, tmp_path: Path, browser_server: str
) -> None:
    path = tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "webmcp_harness", "check", f"{pages_url}/report/flawed-shop.html",
         "--html", str(path), "--timeout", "10", "--connect", browser_server],
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr.decode(errors="replace")
    problems: list[str] = []
    requests: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: problems.append(str(e)))
    tab.on("request", lambda r: requests.append(r.url))
    tab.goto(path.as_uri(), wait_until="load")
    tab.wait_for_function("[...document.images].every(i => i.complete)")
    assert problems == []
    assert requests == [path.as_uri()]  # the file itself, nothing else

    expect(tab.locator("#summary")).to_be_visible()
    cards = tab.locator("#summary .score .title")
    expect(cards).to_have_text(
        [
            "Discovery",
            "Metadata",
            "Behaviour",
            "Forms",
            "Safety",
            "Agent readiness",
            "Prompt injection",
        ]
    )
    failed = tab.locator("#failed > article.failure")  # warnings: folded below
    expect(failed).to_have_count(3)
    for n in range(3):
        expect(failed.nth(n)).to_be_visible()
    crash = failed.filter(has_text="behaviour.accepts-valid-input")
    expect(crash).to_contain_text("get_order_status")
    expect(crash).to_contain_text("→ code failed")  # the call that showed it
    expect(crash.locator("a.docs")).to_have_attribute(
        "href", "docs/codes.md#behaviour-accepts-valid-input"
    )
    tools = tab.locator("table.tools tr")
    expect(tools).to_have_count(5)  # a heading and four tools
    expect(tools.filter(has_text="subscribe_newsletter")).to_contain_text("form")
    expect(tools.filter(has_text="place_order")).to_contain_text("read-only")
    expect(tab.locator("#options")).to_contain_text("called only the tools marked read-only")
    assert tab.evaluate("[...document.images].map(i => i.naturalWidth > 0)") == [True]


# --- terminal ------------------------------------------------------------------------------------


def test_the_terminal_summary_tables_findings_by_severity() -> None:
    text = render_summary(build_report(), width=160)
    assert "Findings by severity" in text
    assert re.search(r"error\s+│\s+\d+\s+│\s+yes", text)
    assert re.search(r"warning\s+│\s+\d+\s+│\s+no", text)
    assert "FAILED" in text
    assert "safety.readonly-consequential" in text


def test_the_terminal_summary_shows_page_strings_as_plain_text() -> None:
    report = CheckReport(
        findings=[
            Finding.make(
                "metadata.description-useful",
                "desc [bold red]markup[/] \x1b[31mred\x1b[0m \u202eevil",
                page=PAGE,
                tool="[link=https://evil.example]x[/link]",
                severity=Severity.WARNING,
            )
        ]
    )
    text = render_summary(report, width=200)
    assert "[bold red]markup[/]" in text
    assert "[link=https://evil.example]x[/link]" in text
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert "PASSED" in text
    assert "FAILED" in render_summary(report, strict=True, width=200)


def test_the_no_script_check_would_see_a_payload_that_ran(
    tab: Page, serve: Callable[[str, str], str]
) -> None:
    # The negative control: the same payloads, unescaped, do run, and the test above would see it.
    url = serve("raw.html", f"<!doctype html><p>{ONERROR}</p>")
    dialogs = _open_in_chromium(tab, url)
    tab.wait_for_function("window.__pwned !== undefined")
    assert dialogs == ["onerror"]


def test_the_summary_says_why_checks_were_skipped_and_points_to_the_html_report() -> None:
    report = build_report()
    col = Collector(PAGE)
    for name in ("a_tool", "b_tool", "c_tool"):
        col.skip("behaviour.answers", "not marked readOnlyHint; use --call all to call them", name)
    report.add(col)
    text = render_summary(report, width=200)
    assert "3 skipped: not marked readOnlyHint; use --call all to call them" in text
    assert "1 skipped: not called (--call readonly)" in text
    assert "--html" in text
    report.options["screenshots"] = True  # an HTML report was asked for: no pointer to it
    assert "add --html" not in render_summary(report, width=200)


# --- a spooled report (pages on disk, as `webmcp-harness check` keeps them) -----------------------

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def spooled(report: CheckReport) -> CheckReport:
    """report's pages added one by one to a report with a spool."""
    copy = CheckReport(
        started=report.started,
        ended=report.ended,
        options=dict(report.options),
        spool=PageSpool(),
    )
    for page in report.pages:
        collected = Collector(page.url)
        collected.findings = [f for f in report.findings if f.page == page.url]
        collected.targets = [t for t in report.targets if t.page == page.url]
        records = [r for r in report.records if r.frame_url == page.url]
        copy.add_page(page, collected, records)
    return copy


def text(write: object, report: CheckReport, **kwargs: object) -> str:
    out = io.StringIO()
    write(report, out, **kwargs)  # type: ignore[operator]
    return out.getvalue()


@pytest.mark.parametrize("strict", [False, True])
def test_a_spooled_report_writes_the_same_json_junit_and_html(strict: bool) -> None:
    memory = build_report(screenshot=PNG, strict=strict)
    disk = spooled(memory)
    assert (disk.pages, disk.findings, disk.spool is not None) == ([], [], True)
    assert text(write_json, disk) == text(write_json, memory)
    assert text(write_junit, disk) == text(write_junit, memory)
    assert text(write_junit, disk, strict=not strict) == text(
        write_junit, memory, strict=not strict
    )
    assert text(write_html, disk) == text(write_html, memory)
    assert to_json(disk) == to_json(memory)
    assert to_html(disk, title="T") == to_html(memory, title="T")
    assert [e.attrib for e in to_junit(disk).iter()] == [e.attrib for e in to_junit(memory).iter()]


def test_a_spooled_report_sums_up_and_exits_the_same() -> None:
    memory = build_report()
    disk = spooled(memory)
    assert disk.summary() == memory.summary()
    assert disk.counts() == memory.counts()
    assert disk.testcases() == memory.testcases()
    assert (disk.exit_code(), disk.exit_code(strict=True)) == (
        memory.exit_code(),
        memory.exit_code(strict=True),
    )
    assert list(disk.iter_pages()) == memory.pages
    assert render_summary(disk) == render_summary(memory)
    assert render_summary(disk, limit=1) == render_summary(memory, limit=1)


def test_an_empty_spooled_report_writes_the_same_reports() -> None:
    memory = CheckReport(started=1.0, ended=2.0)
    disk = CheckReport(started=1.0, ended=2.0, spool=PageSpool())
    for write in (write_json, write_junit, write_html):
        assert text(write, disk) == text(write, memory)
