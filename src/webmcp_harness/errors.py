"""Moved to `webmcp_harness.core.errors`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from .core.errors import (
    AttachError,
    BrowserNotFoundError,
    Error,
    SessionClosedError,
    ToolErrorCode,
    UsageError,
    WebMCPUnavailableError,
    WebToolError,
)

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
