"""One place that turns what the browser reported into a coded result.

Read it against the table of the README's "What a call returns" (and, scenario by scenario,
docs/differential.md): each branch is a row of it. Conditions the harness sees
itself (timeout, interruption, a tool that is not there, bad arguments) are coded in the session
with `tool_error`; everything the browser *reported* comes through `code_report`.
"""

from __future__ import annotations

import re
from typing import Any, cast

from .caps import TooDeep, cut_result, loads_page
from .records import BrowserReport, CallReason
from .results import ToolErrorCode, ToolResult, to_tool_result, tool_error, tool_error_code
from .text import clip

__all__ = [
    "EXECUTE_FAILED",
    "code_refusal",
    "code_report",
    "normalise_output",
    "removed_api",
    "report_reason",
]

_CODES = {c.value for c in ToolErrorCode}
_SHOWN = 2_000  # characters of an unreadable answer its coded result shows

# What Chromium's `errorText` says, and what it means. Each pattern is matched against the whole
# text's start; the first that matches codes it. Measured on Chromium 156 (a declarative form with
# every kind of control, given every kind of bad value; docs/chromium-webmcp-notes.md) and read in
# the strings Chromium ships.
#
# The browser refuses bad arguments before anything runs, for a declarative form, in four ways.
# Each is the caller's mistake, not the tool's: `invalid_input`, retryable with better input.
# - `Input contains a parameter "x" but there is no such parameter for the tool`: a name the form
#   has no control for.
# - `Invalid value "25/12/2026" for parameter date`: a string or scalar the control cannot take (a
#   date, time, month, week or datetime-local that does not parse, a number that is not one, a
#   checkbox given a non-boolean, a select, radio or multiple select given a value it has no option
#   for).
# - `Invalid value for parameter t`: a value of the wrong JSON kind (null, an array or an object
#   for a text control, an option list with an unknown member).
# - `Form validation failed: q: Please fill out this field.. ...`: the form's own constraint
#   validation (required, email, url, min/max, pattern) after filling.
# A form with nothing to confirm on is `unavailable`; a rejected `respondWith` is the page's failure.
# A row may name the condition (`CallReason`) callers branch on.
_ERROR_TEXTS: tuple[tuple[re.Pattern[str], ToolErrorCode, CallReason | None], ...] = (
    (
        re.compile(r"Input contains a parameter .* but there is no such parameter", re.S),
        ToolErrorCode.INVALID_INPUT,
        None,
    ),
    (re.compile(r'Invalid value (".*" )?for parameter ', re.S), ToolErrorCode.INVALID_INPUT, None),
    (re.compile(r"Form validation failed"), ToolErrorCode.INVALID_INPUT, None),
    (re.compile(r"No submit button was found"), ToolErrorCode.UNAVAILABLE, "no_submit_button"),
    (re.compile(r"respondWith promise was rejected"), ToolErrorCode.FAILED, None),
)

# What Chromium's `WebMCP.invokeTool` answers when it will not start a call at all (a protocol
# error, no `toolResponded`). `Invalid parameters` is its answer to input that is not a JSON object
# (an array, a string, a number, null: measured); `invalid input object` is the in-page
# `executeTool`'s (`TypeError: ... invalid input object: value is not an object`).
_REFUSALS: tuple[tuple[str, ToolErrorCode], ...] = (
    ("invalid parameters", ToolErrorCode.INVALID_INPUT),
    ("invalid input object", ToolErrorCode.INVALID_INPUT),
)
_CANCEL_TEXTS: tuple[tuple[str, ToolErrorCode], ...] = (
    ("tool definition was updated", ToolErrorCode.INTERRUPTED),
    ("form reset", ToolErrorCode.CANCELLED),
)


def normalise_output(output: Any) -> Any:
    """Undo the protocol's quirks: "undefined" means nothing, JSON strings of objects are objects.

    JSON nested past the depth cap stays text (``_completed`` codes it).
    """
    try:
        return _normalised(output)
    except TooDeep:
        return output


def _normalised(output: Any) -> Any:
    """normalise_output, raising TooDeep for JSON nested past the cap."""
    if output == "undefined":
        return None
    if isinstance(output, str) and output[:1] in ("{", "["):
        try:
            parsed = loads_page(output)
        except TooDeep:
            raise
        except ValueError:
            return output
        if isinstance(parsed, (dict, list)):
            return parsed
    return output


def _completed(report: BrowserReport, declarative: bool) -> ToolResult:
    """A value: coded as any answer.

    A declarative form answers with the JSON-LD list of the page its submission lands on (or with
    its `respondWith` value). An empty list there means the form said nothing (it submitted in
    place, to a page without JSON-LD; the browser's own `executeTool` resolves to null): no content,
    as for a tool that returns `undefined`. An imperative tool that returns `[]` said `[]`, and its
    text is `[]`. The protocol cannot tell a form's `respondWith([])` from an empty page; both read
    as no content.
    """
    try:
        value = _normalised(report.output)
    except TooDeep as exc:
        return tool_error(
            ToolErrorCode.FAILED,
            f"The tool answered, but its answer could not be read: {exc}. Its first "
            f"{_SHOWN:,} characters: {clip(str(report.output), _SHOWN)}",
        )
    if declarative and value == []:
        return {"content": []}
    return _cut(to_tool_result(value))


def _cut(result: ToolResult) -> ToolResult:
    return cast(ToolResult, cut_result(cast(dict[str, Any], result)))


def _canceled(report: BrowserReport) -> ToolResult:
    text = report.error_text or ""
    for needle, code in _CANCEL_TEXTS:
        if needle in text:
            return tool_error(code, text)
    return tool_error(ToolErrorCode.CANCELLED, text or "The call was cancelled in the page.")


EXECUTE_FAILED = (
    "Tool was executed but the invocation failed. For example, the script function threw an error"
)
"""What Chromium's script executeTool() rejects with when the tool threw (the message dropped)."""
# @mcp-b/webmcp-polyfill puts this in front of every thrown error's message (docs/polyfills.md).
_POLYFILL_PREFIX = f"{EXECUTE_FAILED}: "


# WebMCP surfaces a page may still use that Chromium no longer has (measured on Chromium 156:
# execute gets {signal} only; the context has registerTool and getTools).
_REMOVED_APIS = {
    "requestUserInteraction": (
        "client.requestUserInteraction was removed from WebMCP (execute is passed {signal} "
        "only): ask the user in the page itself, or answer Error [needs_user]"
    ),
    "provideContext": (
        "modelContext.provideContext was removed from WebMCP: register each tool with "
        "document.modelContext.registerTool()"
    ),
    "clearContext": (
        "modelContext.clearContext was removed from WebMCP: register each tool with a signal "
        "and abort it to remove the tool"
    ),
    "unregisterTool": (
        "modelContext.unregisterTool was removed from WebMCP: pass {signal} to registerTool and "
        "abort it to remove the tool"
    ),
}
_REMOVED_USE = re.compile(
    r"\b(" + "|".join(_REMOVED_APIS) + r") is not a function"
    r"|reading '(" + "|".join(_REMOVED_APIS) + r")'"
)


def removed_api(text: str) -> str | None:
    """What to do instead, when text (a thrown error's) says the page used a removed WebMCP API."""
    found = _REMOVED_USE.search(text[:2_000])
    return _REMOVED_APIS[found.group(1) or found.group(2)] if found else None


def _thrown(exc: dict[str, Any]) -> ToolResult:
    """A thrown value: its own code, an AbortError, or a plain failure."""
    code = exc.get("code")
    name = exc.get("name")
    message = exc.get("message")
    if message is None:
        if exc.get("type") == "string" or "value" in exc:
            message = str(exc.get("value"))
        else:
            description = str(exc.get("description") or exc.get("className") or "")
            message = description.split("\n    at ")[0]
    message = str(message).removeprefix(_POLYFILL_PREFIX)
    if isinstance(code, str) and code in _CODES:
        return tool_error(code, message)
    coded = tool_error_code({"content": [{"type": "text", "text": message}]})
    if coded is not None:
        return tool_error(coded, message)
    if name == "AbortError" or message.startswith("AbortError"):
        return tool_error(ToolErrorCode.CANCELLED, message or "The tool was aborted.")
    removed = removed_api(message)
    if removed is not None:  # the page's message, then the harness's hint
        message = f"{message} (Hint: {removed}.)"
    return tool_error(ToolErrorCode.FAILED, message or "The tool threw without a message.")


def _error(report: BrowserReport) -> ToolResult:
    text = (report.error_text or "").removeprefix(_POLYFILL_PREFIX)
    for pattern, code, _reason in _ERROR_TEXTS:
        if pattern.match(text):
            if code is ToolErrorCode.FAILED and report.exception:
                return _thrown(report.exception)
            return tool_error(code, text)
    if report.exception:
        return _thrown(report.exception)
    return tool_error(ToolErrorCode.FAILED, text or "The tool failed without a message.")


def _no_answer(report: BrowserReport) -> ToolResult:
    """The page went away before it could answer (the in-page backend says why).

    A form that was submitted, whose next page could not be read, may well have done its work
    (a booking made, an order placed): that is not known, as after a timeout, and the message
    says so rather than inviting a plain retry.
    """
    if report.submitted:
        return tool_error(
            ToolErrorCode.TIMEOUT,
            f"The form was submitted and its page moved on, but no answer could be read "
            f"({report.protocol_error}); it may or may not have worked. Check the page before "
            "you retry.",
        )
    why = report.protocol_error or "the page could not answer"
    return tool_error(ToolErrorCode.INTERRUPTED, f"No answer: {why.removeprefix('no answer: ')}.")


_BY_STATUS = {"Canceled": _canceled, "Error": _error}


def code_report(report: BrowserReport, *, declarative: bool = False) -> ToolResult:
    """The coded result for a call the browser answered (declarative: the tool is a form)."""
    if report.status is None:
        return _no_answer(report)
    if report.status == "Completed":
        return _completed(report, declarative)
    handler = _BY_STATUS.get(report.status)
    if handler is None:
        return tool_error(
            ToolErrorCode.FAILED, f"The browser answered with an unknown status {report.status!r}."
        )
    return handler(report)


def report_reason(report: BrowserReport) -> CallReason | None:
    """The condition a browser's report names, where callers branch on one (a form with no
    submit button); None for any other report."""
    if report.status != "Error":
        return None
    text = (report.error_text or "").removeprefix(_POLYFILL_PREFIX)
    for pattern, _code, reason in _ERROR_TEXTS:
        if pattern.match(text):
            return reason
    return None


def code_refusal(message: str) -> ToolResult | None:
    """The coded result for a call the browser would not start, when its reason is a known one."""
    lowered = message.lower()
    for needle, code in _REFUSALS:
        if needle in lowered:
            return tool_error(code, f"The browser refused the input: {message}")
    return None
