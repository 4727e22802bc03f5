"""WebMCP coverage: every tool the tests' pages had, how often tests called it, the codes reached.

The plugin feeds it each test's session (the tools that appeared, the call records), merges the
JSON of xdist workers, prints a table, writes JSON and judges `--webmcp-coverage-fail-under`.
Tools are told apart by name and origin (`tool_origin`: a loopback host keeps no port).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core.contracts import plain, tool_origin
from ..core.records import CallRecord, Tool

__all__ = ["Coverage", "ToolCoverage"]

OK = "ok"
PENDING = "pending"


@dataclass
class ToolCoverage:
    """One tool (or one name no page had when called): its calls and the codes they reached."""

    name: str
    origin: str
    calls: int = 0
    codes: dict[str, int] = field(default_factory=dict)

    def count(self, code: str, times: int = 1) -> None:
        self.calls += times
        self.codes[code] = self.codes.get(code, 0) + times

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "origin": self.origin,
            "calls": self.calls,
            "codes": dict(sorted(self.codes.items())),
            "called": self.calls > 0,
        }


class Coverage:
    """Tools seen and calls made over a run (one worker's, or all merged)."""

    def __init__(self) -> None:
        self.tools: dict[tuple[str, str], ToolCoverage] = {}
        self.not_there: dict[str, ToolCoverage] = {}  # calls that found no such tool

    def see(self, tools: Iterable[Tool]) -> None:
        """Tools a page had."""
        for tool in tools:
            key = (tool.name, tool_origin(tool.frame_url))
            if key not in self.tools:
                self.tools[key] = ToolCoverage(*key)

    def add_calls(self, records: Iterable[CallRecord]) -> None:
        """Calls a test made: each counts for the tool it reached (with its code)."""
        for record in records:
            code = PENDING if record.result is None else str(record.code or OK)
            if record.frame_url is None:  # no tool of that name was there
                entry = self.not_there.setdefault(record.tool, ToolCoverage(record.tool, ""))
            else:
                key = (record.tool, tool_origin(record.frame_url))
                entry = self.tools.setdefault(key, ToolCoverage(*key))
            entry.count(code)

    # -- numbers -----------------------------------------------------------------------------
    @property
    def called(self) -> int:
        return sum(1 for t in self.tools.values() if t.calls)

    @property
    def percent(self) -> float:
        """The share of tools seen that tests called, in percent (0 when none were seen)."""
        return 100.0 * self.called / len(self.tools) if self.tools else 0.0

    # -- JSON (xdist workers send it; --webmcp-coverage-json writes it) ----------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "tools": [self.tools[k].to_dict() for k in sorted(self.tools)],
            "toolsSeen": len(self.tools),
            "toolsCalled": self.called,
            "percentCalled": round(self.percent, 1),
            "callsToToolsNotThere": [self.not_there[k].to_dict() for k in sorted(self.not_there)],
        }

    def merge(self, data: dict[str, Any]) -> None:
        """Add another worker's `to_json()`."""
        for item in data.get("tools", []):
            key = (str(item["name"]), str(item["origin"]))
            entry = self.tools.setdefault(key, ToolCoverage(*key))
            for code, times in item.get("codes", {}).items():
                entry.count(str(code), int(times))
        for item in data.get("callsToToolsNotThere", []):
            name = str(item["name"])
            entry = self.not_there.setdefault(name, ToolCoverage(name, ""))
            for code, times in item.get("codes", {}).items():
                entry.count(str(code), int(times))

    # -- the table ---------------------------------------------------------------------------
    def table(self) -> list[str]:
        """The report's lines: one per tool, never-called ones marked."""
        if not self.tools and not self.not_there:
            return ["no WebMCP tools seen: no test's page had any"]
        rows = [("tool", "origin", "calls", "codes")]
        for key in sorted(self.tools):
            entry = self.tools[key]
            codes = _codes(entry) if entry.calls else "NEVER CALLED"
            rows.append((plain(entry.name), plain(entry.origin), str(entry.calls), codes))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines = [
            f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]}"
            for row in rows
        ]
        lines.append(f"{self.called} of {len(self.tools)} tools called ({self.percent:.1f}%)")
        if self.not_there:
            lines.append("calls to tools the page did not have then:")
            lines += [
                f"  {plain(e.name)}: {e.calls} ({_codes(e)})"
                for _, e in sorted(self.not_there.items())
            ]
        return lines


def _codes(entry: ToolCoverage) -> str:
    return ", ".join(f"{code} {n}" for code, n in sorted(entry.codes.items()))
