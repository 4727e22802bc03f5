"""Test and script web pages that expose tools to AI agents through WebMCP, in a real browser.

The names below load on first use: `import webmcp_harness` is quick, and the command line
starts the browser while the rest loads.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core.errors import Error, WebToolError
    from .core.records import CallRecord, CallResult, Tool
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
    from .session.probe import PageProbe, probe
    from .testing.assertions import expect
    from .testing.demo import DemoServer, serve_demo, serve_folder

# One name a line, so adding an export is adding a line.
__all__ = [
    "RETRYABLE",
    "CallRecord",
    "CallResult",
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


_HOMES = {
    ".core.errors": ("Error", "WebToolError"),
    ".core.records": ("CallRecord", "CallResult", "Tool"),
    ".core.results": (
        "RETRYABLE",
        "ToolErrorCode",
        "ToolResult",
        "error_result",
        "error_text",
        "is_abort_error",
        "is_error_text",
        "to_tool_result",
        "tool_error",
        "tool_error_code",
    ),
    ".session": ("WebMCPSession",),
    ".session.browser": ("find_browser", "launch", "launch_args"),
    ".session.probe": ("PageProbe", "probe"),
    ".testing.assertions": ("expect",),
    ".testing.demo": ("DemoServer", "serve_demo", "serve_folder"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """A name of `__all__` from its module, loaded now (`probe` is the function, not the module)."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
