"""One place that turns what the browser reported into a coded result.

Read it against `semantics.md`: each branch is a row of its table. Conditions the harness sees
itself (timeout, interruption, a tool that is not there, bad arguments) are coded in the session
with `tool_error`; everything the browser *reported* comes through `code_report`.
"""

from __future__ import annotations

import json
from typing import Any

from .records import BrowserReport
from .results import ToolErrorCode, ToolResult, to_tool_result, tool_error, tool_error_code

__all__ = ["code_report", "normalise_output"]

_CODES = {c.value for c in ToolErrorCode}

# errorText prefixes Chromium uses, and what each means (chromium-webmcp.md).
_ERROR_TEXTS: tuple[tuple[str, ToolErrorCode], ...] = (
    ("Form validation failed", ToolErrorCode.INVALID_INPUT),
    ("No submit button was found", ToolErrorCode.UNAVAILABLE),
    ("respondWith promise was rejected", ToolErrorCode.FAILED),
)
_CANCEL_TEXTS: tuple[tuple[str, ToolErrorCode], ...] = (
    ("tool definition was updated", ToolErrorCode.INTERRUPTED),
    ("form reset", ToolErrorCode.CANCELLED),
)


def normalise_output(output: Any) -> Any:
    """Undo the protocol's quirks: "undefined" means nothing, JSON strings of objects are objects."""
    if output == "undefined":
        return None
    if isinstance(output, str) and output[:1] in ("{", "["):
        try:
            parsed = json.loads(output)
        except ValueError:
            return output
        if isinstance(parsed, (dict, list)):
            return parsed
    return output


def _completed(report: BrowserReport) -> ToolResult:
    value = normalise_output(report.output)
    return to_tool_result(value)


def _canceled(report: BrowserReport) -> ToolResult:
    text = report.error_text or ""
    for needle, code in _CANCEL_TEXTS:
        if needle in text:
            return tool_error(code, text)
    return tool_error(ToolErrorCode.CANCELLED, text or "The call was cancelled in the page.")


# @mcp-b/webmcp-polyfill puts this in front of every thrown error's message (docs/polyfills.md).
_POLYFILL_PREFIX = (
    "Tool was executed but the invocation failed. For example, the script function threw an error: "
)


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
    return tool_error(ToolErrorCode.FAILED, message or "The tool threw without a message.")


def _error(report: BrowserReport) -> ToolResult:
    text = (report.error_text or "").removeprefix(_POLYFILL_PREFIX)
    for needle, code in _ERROR_TEXTS:
        if text.startswith(needle):
            if code is ToolErrorCode.FAILED and report.exception:
                return _thrown(report.exception)
            return tool_error(code, text)
    if report.exception:
        return _thrown(report.exception)
    return tool_error(ToolErrorCode.FAILED, text or "The tool failed without a message.")


def _no_answer(report: BrowserReport) -> ToolResult:
    """The page went away before it could answer (the in-page backend says why)."""
    why = report.protocol_error or "the page could not answer"
    return tool_error(ToolErrorCode.INTERRUPTED, f"No answer: {why.removeprefix('no answer: ')}.")


_BY_STATUS = {"Completed": _completed, "Canceled": _canceled, "Error": _error}


def code_report(report: BrowserReport) -> ToolResult:
    """The coded result for a call the browser answered."""
    if report.status is None:
        return _no_answer(report)
    handler = _BY_STATUS.get(report.status)
    if handler is None:
        return tool_error(
            ToolErrorCode.FAILED, f"The browser answered with an unknown status {report.status!r}."
        )
    return handler(report)
