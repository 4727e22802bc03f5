"""The terminal summary of a check run: the worst findings in a table, what was skipped, a verdict.

Page strings lose their unsafe characters (`webmcp_harness.core.text.UNSAFE_CHARACTERS`: no
controls, no direction overrides) and reach rich as plain `Text`, never as markup.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from ..conformance.findings import Finding, Severity
from ..conformance.reports import CheckReport
from ..core.text import UNSAFE_CHARACTERS, clip

__all__ = ["print_summary", "render_summary", "skipped_lines"]


def _plain(text: Any, limit: int = 200) -> str:
    """Page text made safe for a terminal: no escape sequences or direction overrides (each
    unsafe character one U+FFFD, so the table's columns keep their width)."""
    flat = " ".join(clip(str(text), limit * 2).split())
    flat = UNSAFE_CHARACTERS.sub("\ufffd", flat)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _summary_renderables(report: CheckReport, strict: bool, limit: int) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    styles = {"error": "bold red", "warning": "yellow", "info": "cyan"}
    counts = report.counts()
    totals = Table(title="Findings by severity", show_lines=False)
    totals.add_column("Severity")
    totals.add_column("Findings", justify="right")
    totals.add_column("Fails the run", justify="center")
    for severity in Severity:
        fails = "yes" if severity.fails(strict=strict) else "no"
        totals.add_row(
            Text(severity.value, style=styles[severity.value]),
            str(counts[severity.value]),
            fails,
        )
    table = Table(title="Findings", show_lines=False, expand=False)
    table.add_column("Severity", no_wrap=True)
    table.add_column("Check", no_wrap=True)
    table.add_column("Page / tool")
    table.add_column("What to fix")
    ordered, found = _worst(report.iter_findings(), limit)
    for finding in ordered:
        where = _plain(finding.page, 60)
        if finding.tool is not None:
            where += f"\n{_plain(finding.tool, 60)}"
        table.add_row(
            Text(finding.severity.value, style=styles[finding.severity.value]),
            Text(finding.check),
            Text(where),
            Text(_plain(finding.message, 300)),
        )
    summary = report.summary()
    passed = not report.failed(strict)
    verdict = Text(
        f"{'PASSED' if passed else 'FAILED'}: {summary['checks']} checks on "
        f"{summary['pages']} pages, {summary['tools']} tools, {summary['calls']} calls; "
        f"{summary['checksFailed']} failed, {summary['checksSkipped']} skipped"
        f"{' (strict)' if strict else ''} in {report.duration:.1f} s",
        style="bold green" if passed else "bold red",
    )
    shown: list[Any] = [totals]
    if found:
        shown.append(table)
        if found > limit:
            shown.append(Text(f"… and {found - limit:,} more findings (see the reports)"))
    shown.extend(Text(line) for line in skipped_lines(report))
    shown.append(verdict)
    if not report.options.get("screenshots"):
        shown.append(
            Text(
                "Every check, page and call, with screenshots: add --html report.html", style="dim"
            )
        )
    return shown


def _worst(findings: Iterable[Finding], limit: int) -> tuple[list[Finding], int]:
    """The first limit findings by severity (as a stable sort orders them), and how many."""
    by_rank: dict[int, list[Finding]] = {}
    found = 0
    for finding in findings:
        found += 1
        kept = by_rank.setdefault(finding.severity.rank, [])
        if len(kept) < limit:
            kept.append(finding)
    ordered = [f for rank in sorted(by_rank) for f in by_rank[rank]]
    return ordered[:limit], found


def skipped_lines(report: CheckReport, limit: int = 6) -> list[str]:
    """Why checks were skipped, most common reason first ("91 skipped: not readOnlyHint; ...")."""
    reasons: dict[str, int] = {}
    for target in report.iter_targets():
        if target.skipped:
            reason = _plain(target.skipped, 160)
            reasons[reason] = reasons.get(reason, 0) + 1
    ordered = sorted(reasons.items(), key=lambda item: -item[1])
    lines = [f"{count:,} skipped: {reason}" for reason, count in ordered[:limit]]
    rest = sum(count for _, count in ordered[limit:])
    if rest:
        lines.append(f"{rest:,} skipped for other reasons (see the reports)")
    ignored: dict[str, int] = {}
    for finding in report.iter_ignored():
        what = f"{finding.check}, {_plain(finding.detail.get('ignored', 'ignored'), 160)}"
        ignored[what] = ignored.get(what, 0) + 1
    lines.extend(
        f"{count:,} findings not counted: {what} (the JSON report lists them under ignored)"
        for what, count in sorted(ignored.items(), key=lambda item: -item[1])
    )
    not_visited = report.options.get("pagesNotVisited")
    if isinstance(not_visited, int) and not_visited:
        lines.append(f"{not_visited:,} pages not visited: more than --max-pages")
    retried = report.options.get("retried")
    if isinstance(retried, list) and retried:
        why: dict[str, int] = {}
        for entry in retried:
            if isinstance(entry, dict):
                reason = _plain(str(entry.get("reason", "")), 160)
                why[reason] = why.get(reason, 0) + 1
        lines.extend(
            f"{count:,} pages checked again on another browser: {reason}"
            for reason, count in sorted(why.items(), key=lambda item: -item[1])
        )
    return lines


def print_summary(
    report: CheckReport,
    console: Any = None,
    *,
    strict: bool | None = None,
    limit: int = 40,
) -> None:
    """Print the summary tables (findings by severity, the worst findings, a verdict)."""
    from rich.console import Console

    strict = report.strict if strict is None else strict
    console = console or Console(stderr=True)
    for renderable in _summary_renderables(report, strict, limit):
        console.print(renderable)


def render_summary(
    report: CheckReport, *, strict: bool | None = None, limit: int = 40, width: int = 120
) -> str:
    """The terminal summary as plain text (for logs and tests)."""
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_summary(report, console, strict=strict, limit=limit)
    return console.export_text()
