"""Moved to `webmcp_harness.core.results`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from .core.results import (
    RETRYABLE,
    ToolErrorCode,
    ToolResult,
    error_result,
    error_text,
    is_abort_error,
    is_error_text,
    to_json,
    to_tool_result,
    tool_error,
    tool_error_code,
)

__all__ = [
    "RETRYABLE",
    "ToolErrorCode",
    "ToolResult",
    "error_result",
    "error_text",
    "is_abort_error",
    "is_error_text",
    "to_json",
    "to_tool_result",
    "tool_error",
    "tool_error_code",
]
