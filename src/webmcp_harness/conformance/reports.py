"""Reports of a check run: JSON, JUnit XML, a self-contained HTML page, and a terminal summary.

The HTML page opens on a score per family of checks (`families`), then each failed check with
its finding, tool, call and fix (quoted from docs/codes.md by `codesdoc`), the options in words,
and each page: screenshot, tools table, findings and calls.

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
from ..core.results import first_text
from ..core.secrets import redact
from ..core.text import clip, dumps, no_surrogates, safe_text
from .codesdoc import explanation
from .families import FamilyScore, FamilyTally, family_rank
from .findings import CHECKS, Collector, Finding, Severity, Target, codes
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
    overview: _Overview  # what the HTML report's summary shows


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
        overview = _Overview(strict)
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
            overview.add(pages - 1, bundle, cases)
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
        self._totals[strict] = _Totals(summary, used, overview)
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


def _rule(rule: str, check_id: str = "") -> str:
    """A finding's rule: a link to the spec, or nothing more when it is the check's own entry in
    docs/codes.md (linked beside the check already)."""
    if _safe_url(rule):
        return _link(rule, "rule")
    if check_id and rule == codes(check_id):
        return ""
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
h2{font-size:17px;margin:0 0 10px}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-weight:600;font-size:12px}
.pass{background:#1a7f37;color:#fff}.fail{background:#cf222e;color:#fff}
.sev-error{background:#ffebe9;color:#a40e26}.sev-warning{background:#fff8c5;color:#7d4e00}
.sev-info{background:#ddf4ff;color:#0a3069}
section.page,section.box{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:16px 0;
padding:12px 16px}
section.page h2{font-size:16px;margin:0 0 8px;word-break:break-all}
.scores{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px}
.score{border:1px solid #d0d7de;border-radius:6px;padding:10px 12px}
.score .num{font-size:30px;font-weight:700;line-height:1.1}
.score .title{font-weight:600}
.good .num{color:#1a7f37}.fair .num{color:#9a6700}.poor .num{color:#cf222e}
.bar{height:6px;background:#eaeef2;border-radius:3px;margin:6px 0}
.bar span{display:block;height:6px;border-radius:3px;background:currentColor}
.good .bar{color:#1a7f37}.fair .bar{color:#bf8700}.poor .bar{color:#cf222e}
article.failure{border:1px solid #d0d7de;border-left:4px solid #cf222e;border-radius:6px;
margin:10px 0;padding:8px 12px}
article.failure.warning{border-left-color:#bf8700}
article.failure h3{font-size:14px;margin:0 0 6px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}
dl.facts dt{color:#57606a;font-size:12px;padding-top:2px}dl.facts dd{margin:0;word-break:break-word}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{border-bottom:1px solid #eaeef2;text-align:left;padding:4px 6px;vertical-align:top}
th{font-size:12px;color:#57606a}
td.msg,dd.msg{white-space:pre-wrap;word-break:break-word}
code,pre{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-all;margin:0;max-height:12em;overflow:auto}
details{margin:6px 0}summary{cursor:pointer;font-weight:600}
.head{display:flex;justify-content:space-between;gap:16px;align-items:flex-start}
img.shot{width:400px;max-width:45%;max-height:300px;object-fit:cover;object-position:top;
border:1px solid #d0d7de;flex:none}
ul.options{margin:0;padding-left:20px}
.muted{color:#57606a}
"""

_HTML_MAX_FAILED = 200  # failed checks (and warnings) listed at the top; the pages hold the rest
_SCORING = (
    "A family's score is the share of its checks that passed, out of 100: each check that ran on "
    "a page or a tool counts once, a warning costs half of it and an error all of it (info costs "
    "nothing; skipped checks do not count). It is the same with or without --strict."
)
_DOCS_NOTE = (
    "Links to docs/codes.md are relative to this file: they open the page of the checkout the "
    "report is written in (as check --html report.html in its root does), with no request made."
)


def to_html(report: CheckReport, *, strict: bool | None = None, title: str | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS, images as data: URIs, no script)."""
    out = io.StringIO()
    write_html(report, out, strict=strict, title=title)
    return out.getvalue()


def write_html(
    report: CheckReport,
    path: str | Path | IO[str],
    *,
    strict: bool | None = None,
    title: str | None = None,
) -> None:
    """Write the HTML report to a path or an open text file: the summary (a score per family),
    the failed checks, the run's options, then each page (screenshot, findings, tools, calls).
    A spooled report's pages are read twice: once for its totals (the summary comes with them),
    once for the pages."""
    strict = report.strict if strict is None else strict
    overview = _overview(report, strict)
    with _output(path) as write:
        write("\n".join(_html_head(report, strict, title, overview)))
        rest: list[CallRecord] = []
        # gathered on the way: a second pass would read every page again
        ignored: list[Finding] = list(report.ignored[:_HTML_MAX_FINDINGS])
        for index, bundle in enumerate(_bundles(report)):
            ignored.extend(bundle.ignored[: _HTML_MAX_FINDINGS - len(ignored)])
            mine = _page_records(bundle)
            placed = {id(r) for r in mine}
            rest.extend(r for r in bundle.records if id(r) not in placed)
            write("\n" + _page_html(bundle.page, index, bundle.findings, mine))
        if report.spool is None:
            rest = _records_for(report, None, _pages(report))
        for part in [*_ignored_html(ignored), *_other_calls(rest)]:
            write("\n" + part)
        write("\n</main></body></html>")


def _pages(report: CheckReport) -> list[PageResult]:
    """A report in memory's pages, and a page of its own for a finding on a page not visited."""
    pages = list(report.pages)
    known = {p.url for p in pages}
    for finding in report.findings:
        if finding.page not in known:
            known.add(finding.page)
            pages.append(PageResult(url=finding.page))
    return pages


def _bundles(report: CheckReport) -> Iterator[PageBundle]:
    """The report's pages, each with its findings, checks and calls: read back from the spool, or
    gathered from a report in memory (the ignored findings stay with the report then)."""
    if report.spool is not None:
        yield from report.spool
        return
    for page in _pages(report):
        yield PageBundle(
            page,
            [f for f in report.findings if f.page == page.url],
            [t for t in report.targets if t.page == page.url],
            _records_for(report, page, []),
            [],
        )


def _page_records(bundle: PageBundle) -> list[CallRecord]:
    """A page's calls: the records with its numbers, else those made in its frame."""
    page = bundle.page
    ids = set(page.calls) if page.calls is not None else None
    return [
        r
        for r in bundle.records
        if (r.shown_number in ids if ids is not None else r.frame_url == page.url)
    ]


@dataclass(frozen=True)
class _Failed:
    """A failed check (or a warning) as the summary lists it: the finding, its page's section,
    and the call that showed it, when the finding names one."""

    finding: Finding
    page: int
    call: CallRecord | None


class _Overview:
    """What the HTML report's summary shows, gathered page by page: each family's score, and the
    failed checks and warnings (the first _HTML_MAX_FAILED of each, with the calls they name)."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.tally = FamilyTally()
        self.failed: list[_Failed] = []
        self.warned: list[_Failed] = []
        self.failed_total = self.warned_total = 0

    @property
    def families(self) -> list[FamilyScore]:
        return self.tally.scores()

    def add(self, index: int, bundle: PageBundle, cases: Iterable[TestCase]) -> None:
        """Take in the page shown as section index: its findings, and its checks (cases)."""
        for case in cases:
            if case.skipped is None:
                self.tally.add(case.check, (f.severity for f in case.findings))
        calls: dict[int, CallRecord] | None = None
        for finding in sorted(bundle.findings, key=_worst_first):
            fails = finding.severity.fails(strict=self.strict)
            if not fails and finding.severity is not Severity.WARNING:
                continue
            if fails:
                self.failed_total += 1
                listed = self.failed
            else:
                self.warned_total += 1
                listed = self.warned
            if len(listed) >= _HTML_MAX_FAILED:
                continue
            if calls is None:
                calls = {r.shown_number: r for r in bundle.records}
            number = finding.detail.get("call")
            call = calls.get(number) if isinstance(number, int) else None
            listed.append(_Failed(finding, index, call))


def _worst_first(finding: Finding) -> tuple[int, int]:
    """Errors first, then warnings; within each, the families in the summary's order."""
    return finding.severity.rank, family_rank(finding.check)


def _overview(report: CheckReport, strict: bool) -> _Overview:
    """The summary of the HTML report: from the spooled report's totals (one pass over its pages,
    kept), else from the report in memory."""
    if report.spool is not None:
        return report.totals(strict).overview
    overview = _Overview(strict)
    for index, bundle in enumerate(_bundles(report)):
        overview.add(index, bundle, _cases(bundle.targets, bundle.findings))
    return overview


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
    report: CheckReport, strict: bool, title: str | None, overview: _Overview
) -> list[str]:
    """The HTML report's parts before the pages: head, header, summary, failed checks, options."""
    summary = report.totals(strict).summary if report.spool is not None else report.summary()
    counts = summary["findings"] if report.spool is not None else report.counts()
    passed = not report.failed(strict)
    heading = title or "WebMCP conformance report"
    calls = summary["calls"]
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
        f" · {summary['pages']} pages · {summary['tools']} tools · {calls} calls",
        f'<div class="muted">started {_e(_iso(report.started))} · {report.duration:.1f} s'
        f"{' · strict' if strict else ''}</div>",
        "</header><main>",
        _summary_html(overview),
        _failed_html(overview, strict),
    ]
    if report.options:
        parts.append(_options_html(report.options))
    return parts


def _band(family: FamilyScore) -> str:
    """The colour of a score: green only with no check failed."""
    if not family.failed and family.score >= 90:
        return "good"
    return "fair" if family.score >= 50 else "poor"


def _summary_html(overview: _Overview) -> str:
    out = ['<section class="box" id="summary"><h2>Summary: a score per family</h2>']
    if not overview.families:
        out.append('<p class="muted">No check ran.</p>')
    else:
        out.append('<div class="scores">')
        for fs in overview.families:
            band = _band(fs)
            tally = f"{fs.checks} checks · {fs.failed} failed · {fs.warned} with warnings"
            out.append(
                f'<div class="score {band}" data-family="{_e(fs.family.prefix, 60)}">'
                f'<div class="title">{_e(fs.family.title, 60)}</div>'
                f'<div class="num">{fs.score}</div>'
                f'<div class="bar"><span style="width:{fs.score}%"></span></div>'
                f'<div class="muted">{tally}</div>'
                f"<div>{_e(fs.family.meaning, 200)}</div></div>"
            )
        out.append("</div>")
    out.append(f'<p class="muted">{_e(_SCORING)} {_e(_DOCS_NOTE)}</p></section>')
    return "\n".join(out)


def _failed_html(overview: _Overview, strict: bool) -> str:
    heading = "Failed checks" + (" (errors and, with --strict, warnings)" if strict else "")
    out = [f'<section class="box" id="failed"><h2>{heading}: {overview.failed_total}</h2>']
    if not overview.failed_total:
        out.append("<p>No check failed.</p>")
    out.extend(_failure_html(f) for f in overview.failed)
    if overview.failed_total > len(overview.failed):
        more = overview.failed_total - len(overview.failed)
        out.append(f'<p class="muted">{more:,} more: see the pages below.</p>')
    if overview.warned_total:
        out.append(
            f"<details><summary>Warnings (they fail the run with --strict): "
            f"{overview.warned_total}</summary>"
        )
        out.extend(_failure_html(f) for f in overview.warned)
        if overview.warned_total > len(overview.warned):
            more = overview.warned_total - len(overview.warned)
            out.append(f'<p class="muted">{more:,} more: see the pages below.</p>')
        out.append("</details>")
    out.append("</section>")
    return "\n".join(out)


def _failure_html(failed: _Failed) -> str:
    f = failed.finding
    check = CHECKS.get(f.check)
    title = check.title if check is not None else ""
    warning = " warning" if f.severity is Severity.WARNING else ""
    tool = (
        f"<code>{_e(f.tool, 200)}</code>"
        if f.tool is not None
        else '<span class="muted">the page</span>'
    )
    if f.frame:
        tool += f' <span class="muted">in frame {_e(f.frame, 300)}</span>'
    facts = [
        ("Finding", f'<dd class="msg">{_e(f.message)}</dd>'),
        ("Tool", f"<dd>{tool}</dd>"),
        ("Page", f'<dd>{_link(f.page)} · <a href="#page-{failed.page}">its section</a></dd>'),
    ]
    if failed.call is not None:
        facts.append(("Call", f"<dd>{_call_html(failed.call)}</dd>"))
    facts.append(("How to fix", f"<dd>{_fix_html(f.check, title)}</dd>"))
    rows = "".join(f"<dt>{name}</dt>{value}" for name, value in facts)
    return (
        f'<article class="failure{warning}"><h3><span class="badge sev-{_e(f.severity.value)}">'
        f"{_e(f.severity.value)}</span> <code>{_e(f.check, 100)}</code> {_e(title, 300)}</h3>"
        f'<dl class="facts">{rows}</dl></article>'
    )


def _call_html(record: CallRecord) -> str:
    """The call that showed a finding: its number, input, code and message."""
    given = dumps(redact(record.input))
    result = record.result if isinstance(record.result, dict) else {}
    message = first_text(redact(result)) or record.browser.error_text or ""
    code = _e(record.code or "ok", 50)
    said = f'<div class="msg">{_e(message, 500)}</div>' if message else ""
    return (
        f"call #{record.shown_number} of <code>{_e(record.tool, 200)}</code> → code "
        f"<code>{code}</code><pre>{_e(given, 500)}</pre>{said}"
    )


_CODE_SPAN = re.compile(r"`([^`]+)`")


def _fix_html(check_id: str, title: str) -> str:
    """What the check asks, in docs/codes.md's words, and the link to its entry there."""
    told = explanation(check_id)
    text = _CODE_SPAN.sub(r"<code>\1</code>", _e(told or title, 1_000))
    return f"{text} {_codes_link(check_id)}"


_CHECK_ID = re.compile(r"[a-z0-9]+(?:[.-][a-z0-9]+)*")


def _codes_link(check_id: str) -> str:
    """The link to a check's entry in docs/codes.md (relative: see _DOCS_NOTE)."""
    if not _CHECK_ID.fullmatch(check_id):
        return ""
    target = codes(check_id)
    return f'<a class="docs" href="{_e(target)}">{_e(target)}</a>'


def _secs(value: Any) -> str:
    return (
        f"{value:g} s" if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"
    )


def _count(value: Any) -> str:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else "?"


_CALL_WORDS = {
    "readonly": "The behaviour checks called only the tools marked read-only (readOnlyHint).",
    "all": "The behaviour checks called every tool, read-only or not (--call all).",
    "none": "No tool was called (--call none): the behaviour checks did not run.",
}


def _option_words(key: str, value: Any, options: dict[str, Any]) -> str | None:
    """One option as a sentence of escaped HTML, or None when it goes without saying."""
    if key == "urls" and isinstance(value, list):
        links = ", ".join(_link(str(u)) for u in value[:20])
        more = f" and {len(value) - 20:,} more" if len(value) > 20 else ""
        return f"Pages given: {links}{more}."
    if key == "demo":
        return "The demo shop was served for the run." if value else None
    if key == "call" and isinstance(value, str) and value in _CALL_WORDS:
        return _e(_CALL_WORDS[value])
    if key == "timeout":
        load = options.get("load_timeout")
        loads = "as long" if load is None else _secs(load)
        return f"Each tool call could take {_secs(value)}; a page load {loads}."
    if key == "load_timeout":
        return None
    if key == "crawl":
        if not value:
            return "Only the pages given were checked (no --crawl)."
        per_path = options.get("max_per_path")
        each = f", {_count(per_path)} per path" if per_path is not None else ""
        return (
            f"Same-origin links were followed {_count(value)} step(s) from each page given, "
            f"{_count(options.get('max_pages'))} pages at most{each}."
        )
    if key in ("max_pages", "max_per_path"):
        return None
    if key == "workers":
        return f"{_count(value)} page(s) were checked at once, each in its own browser context."
    if key == "browsers":
        return f"The pages were shared among {_count(value)} browsers."
    if key == "strict":
        if value:
            return "Warnings fail the run, as errors do (--strict)."
        return "Errors fail the run; warnings do not (no --strict)."
    if key == "max_called_tools":
        return f"At most {_count(value)} tools were called on a page."
    if key == "backend":
        return f"Tools were read through the {_e(value, 40)} backend."
    if key == "screenshots":
        return None if value else "No screenshots were taken."
    if key == "settle":
        return f"The tool list had to stay unchanged for {_secs(value)} after each page loaded."
    if key == "allow_no_tools":
        return "Pages without tools were allowed (--allow-no-tools)." if value else None
    if key == "explore":
        return f"Tools that a call made appear were checked too, {_count(value)} call(s) deep."
    if key == "pages":
        return "Per-page rules came from a --config file." if value else None
    if key == "viewport" and isinstance(value, list) and len(value) == 2:
        return f"The window was {_count(value[0])}×{_count(value[1])} pixels."
    if key == "pagesNotVisited":
        return (
            f"{_count(value)} page(s) found were not visited (a limit was reached)."
            if value
            else None
        )
    if key == "retried" and isinstance(value, list):
        if not value:
            return None
        links = ", ".join(_link(str(u)) for u in value[:20])
        return f"Checked again after their browser crashed: {links}."
    if isinstance(value, (str, int, float, bool)) or value is None:
        shown = _e(value, 300)
    else:
        shown = f"<code>{_e(dumps(_clip_deep(value, 100)), 300)}</code>"
    return f"{_e(key, 60)}: {shown}."


def _options_html(options: dict[str, Any]) -> str:
    said = [_option_words(str(key), value, options) for key, value in list(options.items())[:60]]
    items = "".join(f"<li>{s}</li>" for s in said if s)
    return f'<section class="box" id="options"><h2>How the run was made</h2><ul class="options">{items}</ul></section>'


def _findings_table(findings: Sequence[Finding], *, ignored: bool = False) -> str:
    rows = ["<table><tr><th>Severity</th><th>Check</th><th>What to fix</th><th>Rule</th></tr>"]
    for f in sorted(findings, key=lambda f: f.severity.rank):
        frame = f'<div class="muted">frame {_e(f.frame, 300)}</div>' if f.frame else ""
        if ignored:
            why = f.detail.get("ignored", "")
            frame += f'<div class="muted">on {_e(f.page, 300)}: {_e(why, 400)}</div>'

        rows.append(
            f'<tr><td><span class="badge sev-{_e(f.severity.value)}">{_e(f.severity.value)}'
            f"</span></td><td><code>{_e(f.check, 100)}</code><div>{_codes_link(f.check)}</div></td>"
            f'<td class="msg">{_e(f.message)}{frame}</td><td>{_rule(f.rule, f.check)}</td></tr>'
        )
    rows.append("</table>")
    return "\n".join(rows)


def _page_html(page: PageResult, index: int, mine: list[Finding], records: list[CallRecord]) -> str:
    """One page's section: its screenshot, findings (mine), tools and call records."""
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
    if page.tools:
        out.append(_tools_html(page, records))
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
    if records:
        out.append(_records_html(records))
    out.append("</section>")
    return "\n".join(out)


_HINTS = {
    "readOnlyHint": "read-only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open world",
    "untrustedContentHint": "untrusted content",
    "consequentialHint": "consequential",
    "autosubmit": "submits itself",
}


def _annotations_html(annotations: dict[str, Any]) -> str:
    """A tool's annotations in words: the hints that are true ("read-only"); a value that is not
    a boolean as key: value; the false ones go without saying."""
    words: list[str] = []
    for key, value in list(annotations.items())[:20]:
        if value is False or value is None:
            continue
        if value is True:
            words.append(_e(_HINTS.get(str(key), key), 60))
        else:
            words.append(f"{_e(key, 60)}: {_e(dumps(value), 100)}")
    return ", ".join(words) or '<span class="muted">none</span>'


def _location_html(tool: Tool) -> str:
    """Where the page registered the tool (`Tool.location`: url, line, column), if known."""
    location = getattr(tool, "location", None)  # a field another part of the harness fills in
    if location is None:
        return '<span class="muted">—</span>'
    url = getattr(location, "url", "") or ""
    line, column = getattr(location, "line", None), getattr(location, "column", None)
    place = ":".join(str(n) for n in (line, column) if isinstance(n, int))
    where = f"{clip(str(url), 300)}:{place}" if place else clip(str(url), 300)
    return f"<code>{_e(where, 400)}</code>"


def _tools_html(page: PageResult, records: Sequence[CallRecord]) -> str:
    tools = page.tools
    rows = [
        f'<h3>Tools ({len(tools)})</h3><table class="tools">'
        "<tr><th>Tool</th><th>Kind</th><th>Frame</th><th>Annotations</th>"
        "<th>Registered at</th><th>Calls</th><th>Codes</th></tr>"
    ]
    for tool in tools[:_HTML_MAX_TOOLS]:
        kind = "form" if tool.declarative else "imperative"
        frame = (
            f"<code>{_e(tool.frame_url, 200)}</code>"
            if tool.frame_url and tool.frame_url != page.url
            else "top"
        )
        calls = [
            r
            for r in records
            if r.tool == tool.name
            and (not r.frame_url or not tool.frame_url or r.frame_url == tool.frame_url)
        ]
        codes_seen: dict[str, int] = {}
        for r in calls:
            key = str(r.code) if r.code is not None else "ok"
            codes_seen[key] = codes_seen.get(key, 0) + 1
        shown_codes = ", ".join(f"{_e(c, 50)} ×{n}" for c, n in codes_seen.items()) or "—"
        rows.append(
            f"<tr><td><code>{_e(tool.name, 200)}</code>"
            f'<div class="muted msg">{_e(tool.description, 300)}</div></td>'
            f"<td>{kind}</td><td>{frame}</td><td>{_annotations_html(tool.annotations)}</td>"
            f"<td>{_location_html(tool)}</td><td>{len(calls)}</td><td>{shown_codes}</td></tr>"
        )
    rows.append("</table>")
    if len(tools) > _HTML_MAX_TOOLS:
        rows.append(f'<p class="muted">{len(tools) - _HTML_MAX_TOOLS:,} more tools.</p>')
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
