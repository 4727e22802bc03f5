"""Test and script web pages that expose tools to AI agents through WebMCP, in a real browser."""

from __future__ import annotations

from .core import _formats  # noqa: F401  # first: before anything imports jsonschema
from .core.errors import Error, WebToolError
from .core.records import CallRecord, Tool
from .core.results import (
    RETRYABLE,
    ToolErrorCode,
    ToolResult,
    error_result,
    error_text,
    is_abort_error,
    is_error_text,
    to_tool_result,
    tool_error,
    tool_error_code,
)
from .session import WebMCPSession
from .session.browser import find_browser, launch, launch_args
from .session.probe import (  # the shim first, so `webmcp_harness.probe` stays the function
    PageProbe,
    probe,
)
from .testing.assertions import expect
from .testing.demo import DemoServer, serve_demo, serve_folder

# One name a line, so adding an export is adding a line.
__all__ = [
    "RETRYABLE",
    "CallRecord",
    "DemoServer",
    "Error",
    "PageProbe",
    "Tool",
    "ToolErrorCode",
    "ToolResult",
    "WebMCPSession",
    "WebToolError",
    "error_result",
    "error_text",
    "expect",
    "find_browser",
    "is_abort_error",
    "is_error_text",
    "launch",
    "launch_args",
    "probe",
    "serve_demo",
    "serve_folder",
    "to_tool_result",
    "tool_error",
    "tool_error_code",
]
