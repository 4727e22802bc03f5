"""The coded outcomes the session decides itself, when no answer of the tool settles the call."""

from __future__ import annotations

import difflib

from ..core.records import CallRecord, Tool
from ..core.results import ToolErrorCode, ToolResult, first_text, tool_error
from .watch import CallWatch

__all__ = ["changed", "interrupted", "timed_out", "unavailable"]

_QUOTE = 300


def unavailable(
    name: str,
    frame: str | None,
    tools: list[Tool],
    *,
    url: str,
    gone: str | None,
    no_webmcp: bool,
) -> ToolResult:
    """No tool name (in frame) among tools, on the page at url (gone: closed, crashed…)."""
    names = sorted({t.name for t in tools})
    where = f" in frame {frame!r}" if frame else " on this page"
    there = ", ".join(names) if names else "none"
    if not names and gone:
        return tool_error(ToolErrorCode.INTERRUPTED, f"The page is {gone}.")
    if not names and no_webmcp:
        return tool_error(
            ToolErrorCode.UNAVAILABLE,
            f'No tool "{name}": this page ({url}) has no document.modelContext. '
            "WebMCP needs Chromium 146+ with --enable-features=WebMCP and a secure page "
            "(https, or http on localhost), or a page that loads a WebMCP polyfill.",
        )
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    hint = f' Did you mean "{close[0]}"?' if close else ""
    return tool_error(
        ToolErrorCode.UNAVAILABLE,
        f'No tool "{name}"{where} right now ({url}). Tools here: {there}.{hint}',
    )


def timed_out(limit: float) -> ToolResult:
    """No answer within limit seconds; the call was cancelled in the page."""
    return tool_error(
        ToolErrorCode.TIMEOUT,
        f"no answer in {limit:g} s; it may or may not have worked. "
        "The call was cancelled in the page.",
    )


def interrupted(why: str) -> ToolResult:
    """why (the page navigated, the frame went…) ended the call."""
    return tool_error(ToolErrorCode.INTERRUPTED, f"{why} during the call; check the page.")


def changed(
    record: CallRecord, watch: CallWatch, *, report_result: ToolResult | None
) -> ToolResult:
    """`interrupted` for a tool replaced mid-call, or removed with no answer."""
    name, how = watch.tool.name, "replaced" if watch.replaced else "removed"
    if report_result is None:
        lost = record.browser.protocol_error
        why = f" ({lost})" if lost else ""
        return tool_error(
            ToolErrorCode.INTERRUPTED,
            f"{name} was {how} during the call and gave no answer{why}; it may or may not "
            "have worked. Check the page before you retry.",
        )
    text = first_text(report_result)
    return tool_error(
        ToolErrorCode.INTERRUPTED,
        f"{name} was replaced during the call; the old version answered: {text[:_QUOTE]}. "
        "Check the page, then call the new version.",
    )
