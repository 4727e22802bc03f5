"""Moved to `webmcp_harness.core.records`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from .core.records import (
    BackendName,
    BrowserReport,
    CallRecord,
    Tool,
    ToolEvent,
    normalise_annotations,
)

__all__ = [
    "BackendName",
    "BrowserReport",
    "CallRecord",
    "Tool",
    "ToolEvent",
    "normalise_annotations",
]
