"""The harness's own exceptions, and the error a tool throws to pick its code.

The public path of `webmcp_harness.core.errors` (user tests import ``SessionClosedError`` and
``UsageError`` from here).
"""

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
