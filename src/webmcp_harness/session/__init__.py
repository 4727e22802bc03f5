"""The session layer: one Playwright page, its tools, and calls that always end in a coded result.

`WebMCPSession` is the async core; `sync.WebMCPSession` its synchronous face (the same core, run
in Playwright's sync loop). Below them, `_backends/` are the sources a page's tools come from.
This layer imports the core (`webmcp_harness.core`) and Playwright, never click, rich, pytest or
yaml.
"""

from __future__ import annotations

from .session import (
    DEFAULT_SETTLE,
    DEFAULT_TIMEOUT,
    EMPTY_WAIT,
    BackendChoice,
    WebMCPSession,
    live_sessions,
)

__all__ = [
    "DEFAULT_SETTLE",
    "DEFAULT_TIMEOUT",
    "EMPTY_WAIT",
    "BackendChoice",
    "WebMCPSession",
    "live_sessions",
]
