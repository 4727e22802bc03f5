"""Moved to `webmcp_harness.session.grid`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from .session.grid import (
    BrowserServer,
    server_config,
)

__all__ = [
    "BrowserServer",
    "server_config",
]
