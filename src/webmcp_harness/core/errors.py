"""The seven tool error codes, the error a tool throws to pick one, and the harness's own errors.

`ToolErrorCode` lives here so that `WebToolError` can hold one without importing `results`
(`results` imports this module and re-exports the codes).

Two kinds of exception, kept apart on purpose:

- `WebToolError` is what tool code throws to answer with a chosen code (as in the JS library).
  It is not a harness failure, so it is not an `Error`.
- `Error` and its subclasses are raised by the harness itself: a closed session, a missing
  browser, a page without WebMCP, or misuse by the caller.
"""

from __future__ import annotations

from enum import Enum
from typing import ClassVar

__all__ = [
    "AttachError",
    "BrowserNotFoundError",
    "Error",
    "SessionClosedError",
    "ToolErrorCode",
    "UsageError",
    "WebMCPUnavailableError",
    "WebToolError",
]


class ToolErrorCode(str, Enum):
    """Why a tool call failed; each code tells the agent what to do next.

    Members are plain strings on the wire: ``ToolErrorCode.TIMEOUT == "timeout"``, and ``str()``
    and f-strings give the bare code on every Python version.
    """

    CANCELLED = "cancelled"
    """The person stopped it: stop; retry only if asked."""
    INTERRUPTED = "interrupted"
    """The page navigated or the tool changed mid-call: check the page, then retry."""
    TIMEOUT = "timeout"
    """No answer in time (it may or may not have worked): check the page, then retry."""
    UNAVAILABLE = "unavailable"
    """No such tool on this page right now: get to the page that has it."""
    INVALID_INPUT = "invalid_input"
    """The arguments were wrong: fix them and retry."""
    NEEDS_USER = "needs_user"
    """The person has to choose or confirm: ask them."""
    FAILED = "failed"
    """The tool ran and could not do it: read the message."""

    def __str__(self) -> str:
        return str.__str__(self.value)

    def __format__(self, format_spec: str) -> str:
        return format(str.__str__(self.value), format_spec)

    @classmethod
    def parse(cls, code: object) -> ToolErrorCode:
        """The member for a code given as a member or its string; ValueError for anything else."""
        if isinstance(code, cls):
            return code
        if isinstance(code, str):
            try:
                return cls(code)
            except ValueError:
                pass
        known = ", ".join(member.value for member in cls)
        raise ValueError(f"Unknown tool error code {code!r}; expected one of: {known}.")


class WebToolError(Exception):
    """Thrown by a tool to fail with a chosen code; `error_result` turns it into that code."""

    name: ClassVar[str] = "WebToolError"

    code: ToolErrorCode
    message: str

    def __init__(self, code: ToolErrorCode | str, message: str) -> None:
        if not isinstance(message, str):
            raise TypeError(f"WebToolError message must be a str, not {type(message).__name__}.")
        parsed = ToolErrorCode.parse(code)
        super().__init__(parsed.value, message)
        self.code = parsed
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"WebToolError({self.code.value!r}, {self.message!r})"


class Error(Exception):
    """Base of the harness's own errors; `.message` says what went wrong."""

    default_message: ClassVar[str] = "The harness failed."

    message: str

    def __init__(self, message: str | None = None) -> None:
        self.message = self.default_message if message is None else message
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class SessionClosedError(Error):
    """The session was used after `close()` (or after its page closed)."""

    default_message = "The session is closed."


class BrowserNotFoundError(Error):
    """No Chromium to launch was found."""

    default_message = "No Chromium browser was found."


class WebMCPUnavailableError(Error):
    """The browser or page offers no WebMCP at all (no `document.modelContext`)."""

    default_message = "WebMCP is not available in this browser or page."


class AttachError(Error):
    """The harness could not start watching a page (it, or the browser, did not answer)."""

    default_message = "Could not attach to the page."


class UsageError(Error):
    """The caller used the harness wrongly (a bad argument, a call in the wrong state)."""

    default_message = "The harness was used wrongly."
