"""Result coding: MCP tool results, the seven error codes, and the helpers that make and read them.

A Python port of the result rules of ``@webmcp-agents/core`` (``toolError``, ``toolErrorCode``,
``RETRYABLE``, ``errorResult``, ``errorText``, ``isErrorText``, ``isAbortError``,
``toToolResult``). Results are plain dicts in the MCP wire shape (``content``, ``isError``,
``structuredContent``, camelCase keys), so they serialise to the JSON the JS library makes.

Decisions where the reference documents are silent:

- Error text prefix. ``Error:`` or ``Error [code]:`` at the very start of the text, case-sensitive,
  exactly one space between ``Error`` and ``[``; the code text is anything up to the first ``]``
  on the same line (possibly empty). ``tool_error`` strips one such prefix and the whitespace
  after it, once: ``"Error: Error: x"`` keeps its second ``Error:``.
- ``is_error_text`` follows the seed literally: any text that starts with ``Error:`` or
  ``Error [code]:`` is failure text, whatever the code says, so ``"Error [bogus]: x"`` counts.
  The same pattern is what ``tool_error`` strips. ``tool_error_code`` still returns ``None`` for
  it (unknown codes are ignored); code that branches on codes then treats it as ``failed``.
  A non-string argument is not failure text (``False``).
- ``tool_error_code`` ignores an unknown ``structuredContent.error.code`` as if it were absent and
  then reads the text prefix. "The first text content" is the first ``content`` item whose
  ``type`` is ``"text"``. ``isError`` is not required. It never raises, whatever it is given.
- ``tool_error`` and ``error_result`` raise ``ValueError`` for an unknown code and ``tool_error``
  ``TypeError`` for a non-string message: both are caller misuse, not page trouble.
- ``error_text``: for an exception, its ``.message`` attribute when that is a non-empty string,
  else ``str(err)``, else (an exception without a message, such as ``TimeoutError()``) its class
  name, so an agent never reads an empty ``Error [failed]: ``. A mapping (a JS error object
  ``{name, message}`` that crossed into Python) gives its non-empty string ``message``, else its
  non-empty string ``name``, else compact JSON of the whole mapping. Anything else gives
  ``str(value)`` (so ``None`` gives ``"None"``). It never raises.
- ``error_result`` takes the code of a ``WebToolError``, and also of a JS ``WebToolError`` that
  crossed into Python as an object or mapping whose ``name`` is ``"WebToolError"`` and whose
  ``code`` is one of the seven. It does not special-case cancellation: check
  ``is_abort_error`` first, as the seed says.
- ``is_abort_error`` is true for ``asyncio.CancelledError`` and ``concurrent.futures.
  CancelledError`` and for anything whose ``name`` attribute (or ``"name"`` key) is
  ``"AbortError"``. It never raises.
- ``to_tool_result`` writes JSON as ``JSON.stringify`` does (``core/js_json.py``: compact, numbers
  and keys in JS form; a value JSON cannot carry raises ``TypeError``, a cycle ``ValueError``: the
  caller codes that as ``failed``). A dict whose ``content`` is a list is returned as is (the same
  object, not checked further); another mapping with a ``content`` list is copied to a dict.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import types
from collections.abc import Mapping
from typing import Any, TypedDict, cast

from .errors import ToolErrorCode, WebToolError
from .js_json import to_json

__all__ = [
    "RETRYABLE",
    "ToolErrorCode",
    "ToolResult",
    "code_of",
    "error_result",
    "error_text",
    "first_text",
    "is_abort_error",
    "is_error_text",
    "to_tool_result",
    "tool_error",
    "tool_error_code",
]


class ToolResult(TypedDict, total=False):
    """An MCP tool result as it travels on the wire."""

    content: list[dict[str, Any]]
    isError: bool
    structuredContent: dict[str, Any]


RETRYABLE: Mapping[str, bool] = types.MappingProxyType(
    {
        ToolErrorCode.CANCELLED.value: False,
        ToolErrorCode.INTERRUPTED.value: True,
        ToolErrorCode.TIMEOUT.value: True,
        ToolErrorCode.UNAVAILABLE.value: True,
        ToolErrorCode.INVALID_INPUT.value: True,
        ToolErrorCode.NEEDS_USER.value: False,
        ToolErrorCode.FAILED.value: False,
    }
)
"""Whether calling again (after checking the page or fixing the input) can succeed unasked."""

_CODES: dict[str, ToolErrorCode] = {member.value: member for member in ToolErrorCode}

# "Error:" or "Error [anything up to the first ']' on this line]:" at the very start.
_ERROR_PREFIX = re.compile(r"Error(?: \[(?P<code>[^\]\r\n]*)\])?:")
_ERROR_PREFIX_AND_SPACE = re.compile(r"Error(?: \[[^\]\r\n]*\])?:\s*")


def _known_code(value: object) -> ToolErrorCode | None:
    if isinstance(value, str):
        return _CODES.get(str.__str__(value))
    return None


def tool_error(code: ToolErrorCode | str, message: str) -> ToolResult:
    """A failed result that says why with one code, in its text and in structuredContent.error.

    A leading ``Error:`` or ``Error [code]:`` on the message is stripped so the code is not
    repeated. An unknown code raises ValueError.
    """
    parsed = ToolErrorCode.parse(code)
    if not isinstance(message, str):
        raise TypeError(f"tool_error message must be a str, not {type(message).__name__}.")
    text = str.__str__(message)
    prefix = _ERROR_PREFIX_AND_SPACE.match(text)
    if prefix:
        text = text[prefix.end() :]
    value = parsed.value
    return {
        "content": [{"type": "text", "text": f"Error [{value}]: {text}"}],
        "isError": True,
        "structuredContent": {"error": {"code": value, "retryable": RETRYABLE[value]}},
    }


def tool_error_code(result: object) -> ToolErrorCode | None:
    """The code of a result: structuredContent.error.code, else an ``Error [code]:`` text prefix.

    None when there is no known code. Never raises, whatever it is given.
    """
    try:
        return _read_code(result)
    except Exception:
        return None


def _read_code(result: object) -> ToolErrorCode | None:
    if not isinstance(result, Mapping):
        return None
    structured = result.get("structuredContent")
    if isinstance(structured, Mapping):
        error = structured.get("error")
        if isinstance(error, Mapping):
            code = _known_code(error.get("code"))
            if code is not None:
                return code
    content = result.get("content")
    if not isinstance(content, (list, tuple)):
        return None
    for item in content:
        if isinstance(item, Mapping) and item.get("type") == "text":
            text = item.get("text")
            if not isinstance(text, str):
                return None
            match = _ERROR_PREFIX.match(text)
            if match is None or match.group("code") is None:
                return None
            return _known_code(match.group("code"))
    return None


def first_text(result: Mapping[str, Any]) -> str:
    """The text of a result's first ``text`` content item; "" when it has none."""
    content = result.get("content")
    if isinstance(content, list):
        for item in content:
            if isinstance(item, Mapping) and item.get("type") == "text":
                return str(item.get("text", ""))
    return ""


def code_of(result: Mapping[str, Any]) -> ToolErrorCode | None:
    """A result's code: its own, else FAILED for any failure (``isError``, or failure text), None
    for success. The one rule every caller that branches on codes goes by."""
    code = tool_error_code(result)
    if code is not None:
        return code
    failed = result.get("isError") or is_error_text(first_text(result))
    return ToolErrorCode.FAILED if failed else None


def is_error_text(text: object) -> bool:
    """Whether a result's text reads as a failure: it starts with ``Error:`` or ``Error [code]:``.

    Any code text counts, known or not; a non-string is not failure text.
    """
    if not isinstance(text, str):
        return False
    try:
        return _ERROR_PREFIX.match(str.__str__(text)) is not None
    except Exception:
        return False


def error_text(err: object) -> str:
    """The message of what was thrown: an exception's message, ``str(err)`` for anything else."""
    try:
        return _error_text(err)
    except Exception:
        return _type_name(err)


def _error_text(err: object) -> str:
    if isinstance(err, BaseException):
        message = getattr(err, "message", None)
        if isinstance(message, str) and message:
            return str.__str__(message)
        text = str(err)
        return text if text else _type_name(err)
    if isinstance(err, Mapping):
        for key in ("message", "name"):
            field = err.get(key)
            if isinstance(field, str) and field:
                return str.__str__(field)
        try:
            return to_json(err)
        except (TypeError, ValueError, RecursionError):
            return str(err)
    if isinstance(err, str):
        return str.__str__(err)
    return str(err)


def _type_name(err: object) -> str:
    try:
        return type(err).__name__
    except Exception:  # pragma: no cover - type() of an object cannot really fail
        return "Error"


def _web_tool_error_code(err: object) -> ToolErrorCode | None:
    """The code of a WebToolError, or of a JS one that crossed into Python as data."""
    if isinstance(err, WebToolError):
        return err.code
    try:
        if isinstance(err, Mapping):
            name, code = err.get("name"), err.get("code")
        else:
            name, code = getattr(err, "name", None), getattr(err, "code", None)
        if isinstance(name, str) and str.__str__(name) == WebToolError.name:
            return _known_code(code)
    except Exception:
        return None
    return None


def error_result(err: object, code: ToolErrorCode | str = ToolErrorCode.FAILED) -> ToolResult:
    """A coded failure for what was thrown; a WebToolError brings its own code."""
    fallback = ToolErrorCode.parse(code)
    own = _web_tool_error_code(err)
    return tool_error(own if own is not None else fallback, error_text(err))


def is_abort_error(err: object) -> bool:
    """Whether what was thrown is a cancellation (CancelledError, or ``name == "AbortError"``)."""
    if isinstance(err, (asyncio.CancelledError, concurrent.futures.CancelledError)):
        return True
    try:
        name = err.get("name") if isinstance(err, Mapping) else getattr(err, "name", None)
        return isinstance(name, str) and str.__str__(name) == "AbortError"
    except Exception:
        return False


def to_tool_result(value: object) -> ToolResult:
    """Normalise what a tool returned into an MCP result.

    A string becomes text content, None becomes ``{"content": []}``, a value with a ``content``
    list passes through, anything else becomes compact JSON text as ``JSON.stringify`` writes it.
    """
    if value is None:
        return {"content": []}
    if isinstance(value, str):
        return {"content": [{"type": "text", "text": str.__str__(value)}]}
    if isinstance(value, Mapping) and isinstance(value.get("content"), list):
        if isinstance(value, dict):
            return cast(ToolResult, value)
        return cast(ToolResult, dict(value))
    return {"content": [{"type": "text", "text": to_json(value)}]}
