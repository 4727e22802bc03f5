"""Reports of a check run: JSON, JUnit XML, a self-contained HTML page, and a terminal summary.

Every string a page provided (tool names, descriptions, messages quoting them, call results) is
untrusted: the HTML report escapes all of it and forbids script with a Content-Security-Policy,
the JUnit writer drops characters XML cannot hold, and the terminal summary shows it as plain
text (no rich markup, no control characters).
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from ..core.caps import (
    MAX_PAGE_JSON_DEPTH,
    MAX_PAGE_STRING,
    MAX_RESULT_ITEMS,
    MAX_RESULT_TEXT,
    cap_string,
)
from ..core.records import CallRecord, Tool
from ..core.secrets import redact
from ..core.text import clip, dumps, no_surrogates, safe_text
from .findings import CHECKS, Collector, Finding, Severity, Target
from .spool import Spool

__all__ = [
    "CSP",
    "CheckReport",
    "PageBundle",
    "PageResult",
    "PageSpool",
    "TestCase",
    "to_html",
    "to_json",
    "to_junit",
    "write_html",
    "write_json",
    "write_junit",
]

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_JSON_TEXT_LIMIT = 20_000  # characters of one page string kept in the JSON report
_HTML_TEXT_LIMIT = 2_000
_HTML_MAX_TOOLS = 500
_HTML_MAX_FINDINGS = 2_000
_HTML_MAX_RECORDS = 1_000
_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG = b"\xff\xd8\xff"


@dataclass
class PageResult:
    """One page the checker visited: what it found there, and a screenshot."""

    url: str
    title: str = ""
    tools: list[Tool] = field(default_factory=list)
    screenshot: bytes | None = None
    error: str | None = None
    elapsed: float = 0.0  # seconds spent on the page
    calls: list[int] | None = None  # numbers of the call records made on this page

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": cap_string(self.url),
            "title": cap_string(self.title),
            "error": self.error,
            "elapsed": round(self.elapsed, 3),
            "screenshot": self.screenshot is not None,
            "calls": self.calls,
            "tools": [
                _places_capped(_clip_deep(t.to_dict(), _JSON_TEXT_LIMIT)) for t in self.tools
            ],
        }


@dataclass
class PageBundle:
    """Everything one checked page produced (what a `PageSpool` keeps)."""

    page: PageResult
    findings: list[Finding]
    targets: list[Target]
    records: list[CallRecord]
    ignored: list[Finding]  # findings check --config left uncounted


class PageSpool(Spool[PageBundle]):
    """A check run's pages kept on disk as they finish (each page's result with its screenshot,
    findings, checks run and call records), so a large crawl's memory stays flat; the report
    writers read them back one at a time."""

    def __init__(self) -> None:
        super().__init__(PageBundle)


@dataclass(frozen=True)
class TestCase:
    """One JUnit test case: a check on a target, with the findings it produced."""

    check: str
    page: str
    tool: str | None
    frame: str | None
    findings: tuple[Finding, ...] = ()
    skipped: str | None = None

    @property
    def target(self) -> str:
        name = self.tool if self.tool is not None else "(page)"
        return f"{name} @ {self.frame}" if self.frame else name

    def failing(self, strict: bool) -> list[Finding]:
        return [f for f in self.findings if f.severity.fails(strict=strict)]


def _cases(targets: Iterable[Target], findings: Iterable[Finding]) -> list[TestCase]:
    """One case per check and target: the checks that ran, and any finding's own target."""
    order: dict[tuple[str, str, str | None, str | None], str | None] = {}
    for target in targets:
        key = (target.check, target.page, target.tool, target.frame)
        if key not in order or order[key] is not None:
            order[key] = target.skipped
    by_key: dict[tuple[str, str, str | None, str | None], list[Finding]] = {}
    for finding in findings:
        key = (finding.check, finding.page, finding.tool, finding.frame)
        by_key.setdefault(key, []).append(finding)
        if key not in order:
            order[key] = None
    return [
        TestCase(
            check,
            page,
            tool,
            frame,
            tuple(by_key.get((check, page, tool, frame), ())),
            skipped if not by_key.get((check, page, tool, frame)) else None,
        )
        for (check, page, tool, frame), skipped in order.items()
    ]


@dataclass
class _Totals:
    """A spooled report's summary, counted in one pass over its pages."""

    summary: dict[str, Any]
    used: set[str]  # the check ids its findings and targets name


@dataclass
class CheckReport:
    """Everything a check run produced; the writers below take it.

    With a spool (`CheckReport(spool=PageSpool())`, as `webmcp-harness check` runs) each page
    added goes to disk instead of the lists: pages, findings, records and targets stay empty, the
    `iter_*` methods and the writers read the pages back one at a time, and the reports are the
    same as those of a report held in memory.
    """

    pages: list[PageResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    records: list[CallRecord] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)
    targets: list[Target] = field(default_factory=list)
    ignored: list[Finding] = field(default_factory=list)  # not counted: check --config said so
    spool: PageSpool | None = field(default=None, repr=False, compare=False)
    _totals: dict[bool, _Totals] = field(default_factory=dict, repr=False, compare=False)

    def add(self, collected: Collector) -> None:
        """Take in a collector's findings and the checks it ran."""
        self.findings.extend(collected.findings)
        self.targets.extend(collected.targets)

    def add_page(
        self,
        page: PageResult,
        collected: Collector,
        records: list[CallRecord],
        ignored: Sequence[Finding] = (),
    ) -> None:
        """Take in one checked page: its result, findings and checks, its call records, and
        the findings check --config left uncounted."""
        if self.spool is None:
            self.pages.append(page)
            self.add(collected)
            self.records.extend(records)
            self.ignored.extend(ignored)
            return
        self._totals.clear()
        self.spool.add(
            PageBundle(
                page,
                list(collected.findings),
                list(collected.targets),
                list(records),
                list(ignored),
            )
        )

    def iter_pages(self) -> Iterator[PageResult]:
        """The pages, from memory or (spooled) read back one at a time."""
        if self.spool is None:
            yield from self.pages
        else:
            yield from (bundle.page for bundle in self.spool)

    def iter_findings(self) -> Iterator[Finding]:
        """The findings, page by page."""
        yield from self.findings
        for bundle in self.spool or ():
            yield from bundle.findings

    def iter_ignored(self) -> Iterator[Finding]:
        """The findings check --config left uncounted, page by page."""
        yield from self.ignored
        for bundle in self.spool or ():
            yield from bundle.ignored

    def iter_targets(self) -> Iterator[Target]:
        """The checks that ran (or were skipped) on what, page by page."""
        yield from self.targets
        for bundle in self.spool or ():
            yield from bundle.targets

    def totals(self, strict: bool) -> _Totals:
        """The summary of a spooled report (one pass over its pages, then kept)."""
        if strict in self._totals:
            return self._totals[strict]
        counts = {s.value: 0 for s in Severity}
        used: set[str] = set()
        pages = tools = calls = checks = failed = skipped = ignored = 0
        for bundle in self.spool or ():
            pages += 1
            ignored += len(bundle.ignored)
            tools += len(bundle.page.tools)
            calls += len(bundle.records)
            for finding in bundle.findings:
                counts[finding.severity.value] += 1
                used.add(finding.check)
            used.update(t.check for t in bundle.targets)
            cases = _cases(bundle.targets, bundle.findings)
            checks += len(cases)
            failed += sum(1 for c in cases if c.failing(strict))
            skipped += sum(1 for c in cases if c.skipped is not None)
        passed = not any(counts[s.value] for s in Severity if s.fails(strict=strict))
        summary = {
            "passed": passed,
            "strict": strict,
            "pages": pages,
            "tools": tools,
            "calls": calls,
            "checks": checks,
            "checksFailed": failed,
            "checksSkipped": skipped,
            "findings": counts,
            "ignored": ignored,
        }
        self._totals[strict] = _Totals(summary, used)
        return self._totals[strict]

    @property
    def strict(self) -> bool:
        return bool(self.options.get("strict"))

    @property
    def duration(self) -> float:
        return max(0.0, self.ended - self.started)

    def counts(self) -> dict[str, int]:
        """Findings by severity: {"error": n, "warning": n, "info": n}."""
        if self.spool is not None:
            return dict(self.totals(self.strict).summary["findings"])
        counts = {s.value: 0 for s in Severity}
        for finding in self.findings:
            counts[finding.severity.value] += 1
        return counts

    def failed(self, strict: bool | None = None) -> bool:
        """Whether an error (or, strict, a warning) was found."""
        strict = self.strict if strict is None else strict
        if self.spool is not None:
            return not self.totals(strict).summary["passed"]
        return any(f.severity.fails(strict=strict) for f in self.findings)

    def exit_code(self, strict: bool | None = None) -> int:
        """0 when the run passes, 1 when it fails."""
        return 1 if self.failed(strict) else 0

    def testcases(self) -> list[TestCase]:
        """One case per check and target: the checks that ran, and any finding's own target."""
        if self.spool is None:
            return _cases(self.targets, self.findings)
        return [c for b in self.spool for c in _cases(b.targets, b.findings)]

    def summary(self) -> dict[str, Any]:
        strict = self.strict
        if self.spool is not None:
            return dict(self.totals(strict).summary)
        cases = self.testcases()
        return {
            "passed": not self.failed(),
            "strict": strict,
            "pages": len(self.pages),
            "tools": sum(len(p.tools) for p in self.pages),
            "calls": len(self.records),
            "checks": len(cases),
            "checksFailed": sum(1 for c in cases if c.failing(strict)),
            "checksSkipped": sum(1 for c in cases if c.skipped is not None),
            "findings": self.counts(),
            "ignored": len(self.ignored),
        }


# --- helpers ------------------------------------------------------------------------------------


def _iso(ts: float) -> str:
    if not ts:
        return ""
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


def _clip_deep(value: Any, limit: int, depth: int = 0) -> Any:
    """value with every long string cut to limit (page data can hold megabytes)."""
    if isinstance(value, str):
        return clip(value, limit)
    if depth > 30:
        return "…"
    if isinstance(value, dict):
        return {str(k): _clip_deep(v, limit, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clip_deep(v, limit, depth + 1) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


# --- JSON ---------------------------------------------------------------------------------------


# Where a page's address or title sits in a finding, target or call record: each is cut to
# MAX_PAGE_STRING characters (a page can make its URL 262,000 characters long).
_PLACES = ("page", "frame", "url", "title", "pageUrl", "frameUrl", "frameOrigin")


def _places_capped(data: dict[str, Any]) -> dict[str, Any]:
    for key in _PLACES:
        value = data.get(key)
        if isinstance(value, str):
            data[key] = cap_string(value)
    return data


def _json_finding(finding: Finding) -> dict[str, Any]:
    return _places_capped(dict(_clip_deep(finding.to_dict(), _JSON_TEXT_LIMIT)))


def _json_target(target: Target) -> dict[str, Any]:
    return _places_capped(target.to_dict())


def _json_record(record: CallRecord) -> dict[str, Any]:
    return _places_capped(dict(_clip_deep(redact(record.to_dict()), 200_000)))


def _json_head(report: CheckReport, summary: dict[str, Any], used: set[str]) -> dict[str, Any]:
    return {
        "version": 1,
        "started": _iso(report.started),
        "ended": _iso(report.ended),
        "duration": round(report.duration, 3),
        "options": _clip_deep(report.options, _JSON_TEXT_LIMIT),
        "caps": {  # what the harness cuts, in characters or items (docs/codes.md, Caps)
            "pageString": MAX_PAGE_STRING,
            "pageText": _JSON_TEXT_LIMIT,
            "resultItems": MAX_RESULT_ITEMS,
            "resultText": MAX_RESULT_TEXT,
            "jsonDepth": MAX_PAGE_JSON_DEPTH,
        },
        "summary": summary,
        "checks": [c.to_dict() for c in CHECKS.values() if c.id in used],
    }


def to_json(report: CheckReport) -> dict[str, Any]:
    """The whole report as JSON-ready data: summary, checks, pages, findings, targets, calls."""
    if report.spool is not None:
        out = io.StringIO()
        write_json(report, out)
        data: dict[str, Any] = json.loads(out.getvalue())
        return data
    used = {f.check for f in report.findings} | {t.check for t in report.targets}
    return {
        **_json_head(report, report.summary(), used),
        "pages": [p.to_dict() for p in report.pages],
        "findings": [_json_finding(f) for f in report.findings],
        "targets": [_json_target(t) for t in report.targets],
        "ignored": [_json_finding(f) for f in report.ignored],
        "records": [_json_record(r) for r in report.records],
    }


def write_json(report: CheckReport, path: str | Path | IO[str]) -> None:
    """Write the JSON report to a path or an open text file."""
    if report.spool is None:
        _write(path, dumps(to_json(report), indent=2) + "\n")
        return
    spool = report.spool
    totals = report.totals(report.strict)
    sections: list[tuple[str, Callable[[PageBundle], Iterable[Any]]]] = [
        ("pages", lambda b: [b.page.to_dict()]),
        ("findings", lambda b: map(_json_finding, b.findings)),
        ("targets", lambda b: map(_json_target, b.targets)),
        ("ignored", lambda b: map(_json_finding, b.ignored)),
        ("records", lambda b: map(_json_record, b.records)),
    ]
    with _output(path) as write:
        # The same text as dumps(to_json(report), indent=2): the head, then each list, item by
        # item, indented as deep as the whole document would indent it.
        write(dumps(_json_head(report, totals.summary, totals.used), indent=2)[:-2])
        for key, items in sections:
            write(f',\n  "{key}": ')
            first = True
            for bundle in spool:
                for item in items(bundle):
                    write("[\n    " if first else ",\n    ")
                    write(dumps(item, indent=2).replace("\n", "\n    "))
                    first = False
            write("[]" if first else "\n  ]")
        write("\n}\n")


def _write(path: str | Path | IO[str], text: str) -> None:
    with _output(path) as write:
        write(text)


@contextmanager
def _output(path: str | Path | IO[str]) -> Iterator[Callable[[str], None]]:
    """A function writing text, in parts, to path (a new UTF-8 file) or an open text file."""
    with contextlib.ExitStack() as stack:
        out = (
            stack.enter_context(Path(path).open("w", encoding="utf-8"))
            if isinstance(path, (str, Path))
            else path
        )

        def write(text: str) -> None:
            out.write(no_surrogates(text))  # a lone surrogate can't be written as UTF-8

        yield write


# --- JUnit XML ----------------------------------------------------------------------------------

_XML_BAD = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: Any) -> str:
    """text with the characters XML 1.0 cannot hold replaced by U+FFFD."""
    return _XML_BAD.sub("\ufffd", str(text))


def to_junit(report: CheckReport, *, strict: bool | None = None) -> ET.Element:
    """One <testsuite> per page, one <testcase> per check and target.

    Error findings are <failure>s (warnings too when strict); other findings go to the case's
    <system-out>; a check that did not run on a target is <skipped>.
    """
    strict = report.strict if strict is None else strict
    if report.spool is not None:
        out = io.StringIO()
        write_junit(report, out, strict=strict)
        return ET.fromstring(out.getvalue())
    cases = report.testcases()
    pages = [p.url for p in report.pages]
    for case in cases:
        if case.page not in pages:
            pages.append(case.page)
    elapsed = {p.url: p.elapsed for p in report.pages}
    root = ET.Element("testsuites", {"name": "webmcp-harness check"})
    for page in pages:
        root.append(_suite(report, page, [c for c in cases if c.page == page], elapsed, strict))
    _suites_totals(root, report, len(cases), sum(1 for c in cases if c.failing(strict)))
    ET.indent(root)
    return root


def _suites_totals(root: ET.Element, report: CheckReport, tests: int, failures: int) -> None:
    root.set("tests", str(tests))
    root.set("failures", str(failures))
    root.set("errors", "0")
    root.set("time", f"{report.duration:.3f}")  # no "skipped" here: junit-10.xsd has none


def _suite(
    report: CheckReport,
    page: str,
    mine: Sequence[TestCase],
    elapsed: dict[str, float],
    strict: bool,
) -> ET.Element:
    """The <testsuite> of one page, with its cases."""
    suite = ET.Element(
        "testsuite",
        {
            "name": _xml(page),
            "tests": str(len(mine)),
            "failures": str(sum(1 for c in mine if c.failing(strict))),
            "errors": "0",
            "skipped": str(sum(1 for c in mine if c.skipped is not None and not c.findings)),
            "time": f"{elapsed.get(page, 0.0):.3f}",
            "timestamp": _iso(report.started).replace("+00:00", ""),
        },
    )
    for case in mine:
        _testcase(suite, case, strict)
    return suite


def _line(finding: Finding) -> str:
    where = f" [{finding.tool}]" if finding.tool is not None else ""
    return f"{finding.severity.value}{where}: {finding.message} ({finding.rule})"


def _testcase(suite: ET.Element, case: TestCase, strict: bool) -> None:
    element = ET.SubElement(
        suite,
        "testcase",
        {"name": _xml(clip(case.target, 500)), "classname": case.check, "time": "0.000"},
    )
    failing = case.failing(strict)
    if failing:
        first = failing[0]
        failure = ET.SubElement(
            element,
            "failure",
            {"message": _xml(clip(first.message, 1_000)), "type": first.severity.value},
        )
        failure.text = _xml("\n".join(clip(_line(f), 5_000) for f in failing[:50]))
    elif case.skipped is not None:
        ET.SubElement(element, "skipped", {"message": _xml(clip(case.skipped, 1_000))})
    others = [f for f in case.findings if f not in failing]
    if others:
        out = ET.SubElement(element, "system-out")
        out.text = _xml("\n".join(clip(_line(f), 5_000) for f in others[:50]))


def write_junit(
    report: CheckReport, path: str | Path | IO[str], *, strict: bool | None = None
) -> None:
    """Write the JUnit XML report to a path or an open text file."""
    declaration = '<?xml version="1.0" encoding="UTF-8"?>\n'
    if report.spool is None:
        root = to_junit(report, strict=strict)
        text = ET.tostring(root, encoding="unicode", xml_declaration=False)
        _write(path, declaration + text + "\n")
        return
    strict = report.strict if strict is None else strict
    summary = report.totals(strict).summary
    root = ET.Element("testsuites", {"name": "webmcp-harness check"})
    _suites_totals(root, report, summary["checks"], summary["checksFailed"])
    start = ET.tostring(root, encoding="unicode", xml_declaration=False)
    if not summary["pages"]:
        _write(path, declaration + start + "\n")
        return
    with _output(path) as write:
        # The text to_junit's indented tree gives, one page's <testsuite> at a time.
        write(declaration + start.removesuffix(" />") + ">")
        for bundle in report.spool:
            cases = _cases(bundle.targets, bundle.findings)
            page = bundle.page
            suite = _suite(report, page.url, cases, {page.url: page.elapsed}, strict)
            ET.indent(suite, level=1)
            write("\n  " + ET.tostring(suite, encoding="unicode", xml_declaration=False))
        write("\n</testsuites>\n")


# --- HTML ---------------------------------------------------------------------------------------


def _e(text: Any, limit: int = _HTML_TEXT_LIMIT) -> str:
    """Escaped for HTML text and attribute values (quotes included), cut to limit; controls and
    bidi overrides shown as escapes, as on a terminal (a page's U+202E would reverse the report's
    own text after it)."""
    return html.escape(safe_text(clip(str(text), limit)), quote=True)


def _safe_url(url: str) -> str | None:
    """url if it is a plain http(s) link (never javascript:, data: or the like), else None."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None


def _link(url: str, label: str | None = None) -> str:
    safe = _safe_url(url)
    text = _e(label if label is not None else url, 300)
    if safe is None:
        return text
    return f'<a href="{_e(safe, 4_000)}" rel="noopener noreferrer nofollow">{text}</a>'


def _rule(rule: str) -> str:
    if _safe_url(rule):
        return _link(rule, "rule")
    return f'<span class="rule">{_e(rule, 300)}</span>'


def _image(data: bytes | None, alt: str) -> str:
    if not data:
        return ""
    if data.startswith(_PNG):
        kind = "image/png"
    elif data.startswith(_JPEG):
        kind = "image/jpeg"
    else:
        return ""
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img class="shot" alt="{_e(alt, 300)}" src="data:{kind};base64,{encoded}">'


_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1b1f24;
background:#f6f8fa}
header{background:#24292f;color:#fff;padding:16px 24px}
header h1{margin:0 0 6px;font-size:20px}
main{padding:16px 24px;max-width:1200px}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-weight:600;font-size:12px}
.pass{background:#1a7f37;color:#fff}.fail{background:#cf222e;color:#fff}
.sev-error{background:#ffebe9;color:#a40e26}.sev-warning{background:#fff8c5;color:#7d4e00}
.sev-info{background:#ddf4ff;color:#0a3069}
section.page{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:16px 0;padding:12px 16px}
section.page h2{font-size:16px;margin:0 0 8px;word-break:break-all}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{border-bottom:1px solid #eaeef2;text-align:left;padding:4px 6px;vertical-align:top}
th{font-size:12px;color:#57606a}
td.msg{white-space:pre-wrap;word-break:break-word}
code,pre{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-all;margin:0;max-height:12em;overflow:auto}
details{margin:6px 0}summary{cursor:pointer;font-weight:600}
.head{display:flex;justify-content:space-between;gap:16px;align-items:flex-start}
img.shot{width:320px;max-height:240px;object-fit:cover;object-position:top;
border:1px solid #d0d7de;flex:none}
.muted{color:#57606a}
"""


def to_html(report: CheckReport, *, strict: bool | None = None, title: str | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS, images as data: URIs, no script)."""
    strict = report.strict if strict is None else strict
    if report.spool is not None:
        out = io.StringIO()
        write_html(report, out, strict=strict, title=title)
        return out.getvalue()
    parts = _html_head(
        report,
        strict,
        title,
        pages=len(report.pages),
        tools=sum(len(p.tools) for p in report.pages),
        calls=len(report.records),
    )
    pages = list(report.pages)
    known = {p.url for p in pages}
    for finding in report.findings:
        if finding.page not in known:
            known.add(finding.page)
            pages.append(PageResult(url=finding.page))
    for index, page in enumerate(pages):
        mine = [f for f in report.findings if f.page == page.url]
        parts.append(_page_html(page, index, mine, _records_for(report, page, [])))
    parts.extend(_ignored_html(report.ignored))
    parts.extend(_other_calls(_records_for(report, None, pages)))
    parts.append("</main></body></html>")
    return "\n".join(parts)


def _ignored_html(ignored: Sequence[Finding]) -> list[str]:
    if not ignored:
        return []
    return [
        '<section class="page"><h2>Ignored (not counted: --config)</h2>',
        _findings_table(ignored[:_HTML_MAX_FINDINGS], ignored=True),
        "</section>",
    ]


def _other_calls(rest: list[CallRecord]) -> list[str]:
    if not rest:
        return []
    return ['<section class="page"><h2>Other calls</h2>', _records_html(rest), "</section>"]


def _html_head(
    report: CheckReport, strict: bool, title: str | None, *, pages: int, tools: int, calls: int
) -> list[str]:
    """The HTML report's parts before the pages: head, header, options."""
    summary = report.totals(strict).summary if report.spool is not None else None
    counts = summary["findings"] if summary is not None else report.counts()
    passed = summary["passed"] if summary is not None else not report.failed(strict)
    heading = title or "WebMCP conformance report"
    parts: list[str] = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{_e(heading, 200)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<header>",
        f"<h1>{_e(heading, 200)}</h1>",
        f'<span class="badge {"pass" if passed else "fail"}">{"PASSED" if passed else "FAILED"}'
        f"</span> {counts['error']} errors · {counts['warning']} warnings · {counts['info']} info"
        f" · {pages} pages · {tools} tools · {calls} calls",
        f'<div class="muted">started {_e(_iso(report.started))} · {report.duration:.1f} s'
        f"{' · strict' if strict else ''}</div>",
        "</header><main>",
    ]
    if report.options:
        shown = dumps(_clip_deep(report.options, 300))
        parts.append(f'<p class="muted">Options: <code>{_e(shown, 3_000)}</code></p>')
    return parts


def _findings_table(findings: Sequence[Finding], *, ignored: bool = False) -> str:
    rows = ["<table><tr><th>Severity</th><th>Check</th><th>What to fix</th><th>Rule</th></tr>"]
    for f in sorted(findings, key=lambda f: f.severity.rank):
        frame = f'<div class="muted">frame {_e(f.frame, 300)}</div>' if f.frame else ""
        if ignored:
            why = f.detail.get("ignored", "")
            frame += f'<div class="muted">on {_e(f.page, 300)}: {_e(why, 400)}</div>'

        rows.append(
            f'<tr><td><span class="badge sev-{_e(f.severity.value)}">{_e(f.severity.value)}'
            f"</span></td><td><code>{_e(f.check, 100)}</code></td>"
            f'<td class="msg">{_e(f.message)}{frame}</td><td>{_rule(f.rule)}</td></tr>'
        )
    rows.append("</table>")
    return "\n".join(rows)


def _page_html(page: PageResult, index: int, mine: list[Finding], records: list[CallRecord]) -> str:
    """One page's section: its findings (mine), tools and call records."""
    shown = mine[:_HTML_MAX_FINDINGS]
    counts = {s: sum(1 for f in mine if f.severity is s) for s in Severity}
    out = [f'<section class="page" id="page-{index}"><div class="head"><div>']
    out.append(f"<h2>{_link(page.url)}</h2>")
    if page.title:
        out.append(f'<div class="muted">{_e(page.title, 300)}</div>')
    out.append(
        f"<div>{len(page.tools)} tools · {counts[Severity.ERROR]} errors · "
        f"{counts[Severity.WARNING]} warnings · {counts[Severity.INFO]} info"
        f" · {page.elapsed:.1f} s</div>"
    )
    if page.error:
        out.append(f'<p class="sev-error">{_e(page.error)}</p>')
    out.append("</div>")
    out.append(_image(page.screenshot, f"Screenshot of {page.url}"))
    out.append("</div>")
    page_level = [f for f in shown if f.tool is None]
    if page_level:
        out.append("<h3>Page</h3>")
        out.append(_findings_table(page_level))
    by_tool: dict[str, list[Finding]] = {}
    for f in shown:
        if f.tool is not None:
            by_tool.setdefault(f.tool, []).append(f)
    for tool_name, found in by_tool.items():
        worst = min(found, key=lambda f: f.severity.rank).severity.value
        out.append(
            f'<details open><summary>{_e(tool_name, 200)} <span class="badge sev-{worst}">'
            f"{len(found)}</span></summary>{_findings_table(found)}</details>"
        )
    if len(mine) > len(shown):
        out.append(
            f'<p class="muted">{len(mine) - len(shown):,} more findings: see the JSON report.</p>'
        )
    if page.tools:
        out.append(_tools_html(page.tools))
    if records:
        out.append(_records_html(records))
    out.append("</section>")
    return "\n".join(out)


def _tools_html(tools: Sequence[Tool]) -> str:
    rows = [
        f"<details><summary>Tools ({len(tools)})</summary><table>"
        "<tr><th>Name</th><th>Description</th><th>Annotations</th><th>Kind</th></tr>"
    ]
    for tool in tools[:_HTML_MAX_TOOLS]:
        annotations = dumps(tool.annotations)
        kind = "form" if tool.declarative else "imperative"
        rows.append(
            f"<tr><td><code>{_e(tool.name, 200)}</code></td>"
            f'<td class="msg">{_e(tool.description, 500)}</td>'
            f"<td><code>{_e(annotations, 300)}</code></td><td>{kind}</td></tr>"
        )
    rows.append("</table>")
    if len(tools) > _HTML_MAX_TOOLS:
        rows.append(f'<p class="muted">{len(tools) - _HTML_MAX_TOOLS:,} more tools.</p>')
    rows.append("</details>")
    return "\n".join(rows)


def _records_for(
    report: CheckReport, page: PageResult | None, pages: Sequence[PageResult]
) -> list[CallRecord]:
    """The call records made on page (by number, else by frame URL); with page None, the rest."""
    if page is not None:
        if page.calls is not None:
            ids = set(page.calls)
            return [r for r in report.records if r.shown_number in ids]
        return [r for r in report.records if r.frame_url == page.url]
    placed: set[int] = set()
    for p in pages:
        placed.update(id(r) for r in _records_for(report, p, []))
    return [r for r in report.records if id(r) not in placed]


def _records_html(records: Iterable[CallRecord]) -> str:
    listed = list(records)
    rows = [
        f"<details><summary>Calls ({len(listed)})</summary><table>"
        "<tr><th>#</th><th>Tool</th><th>Code</th><th>Browser</th><th>Input</th><th>Result</th></tr>"
    ]
    for record in listed[:_HTML_MAX_RECORDS]:
        given = dumps(redact(record.input))
        result = dumps(redact(record.result))
        total = record.timings.get("total")
        took = f"<div class=muted>{total:.0f} ms</div>" if isinstance(total, (int, float)) else ""
        rows.append(
            f"<tr><td>{record.shown_number}</td><td><code>{_e(record.tool, 200)}</code></td>"
            f"<td>{_e(record.code or 'ok', 50)}{took}</td>"
            f"<td>{_e(record.browser.status or '-', 50)}</td>"
            f"<td><pre>{_e(given, 500)}</pre></td><td><pre>{_e(result, 800)}</pre></td></tr>"
        )
    rows.append("</table></details>")
    return "\n".join(rows)


def write_html(
    report: CheckReport,
    path: str | Path | IO[str],
    *,
    strict: bool | None = None,
    title: str | None = None,
) -> None:
    """Write the HTML report to a path or an open text file."""
    if report.spool is None:
        _write(path, to_html(report, strict=strict, title=title))
        return
    strict = report.strict if strict is None else strict
    summary = report.totals(strict).summary
    parts = _html_head(
        report,
        strict,
        title,
        pages=summary["pages"],
        tools=summary["tools"],
        calls=summary["calls"],
    )
    with _output(path) as write:
        write("\n".join(parts))
        rest: list[CallRecord] = []
        ignored: list[
            Finding
        ] = []  # gathered on the way: a second pass would read every page again
        for index, bundle in enumerate(report.spool):
            page = bundle.page
            ignored.extend(bundle.ignored[: _HTML_MAX_FINDINGS - len(ignored)])
            # A page's calls are the records with its numbers (every record is its own page's).
            ids = set(page.calls) if page.calls is not None else None
            mine = [
                r
                for r in bundle.records
                if (r.shown_number in ids if ids is not None else r.frame_url == page.url)
            ]
            placed = {id(r) for r in mine}
            rest.extend(r for r in bundle.records if id(r) not in placed)
            write("\n" + _page_html(page, index, bundle.findings, mine))
        for part in [*_ignored_html(ignored), *_other_calls(rest)]:
            write("\n" + part)
        write("\n</main></body></html>")
