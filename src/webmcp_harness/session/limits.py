"""The session's default bounds, in seconds (a module of their own: option defaults read them
without loading the session). The call's default timeout is the core's (`core.timeouts`)."""

from __future__ import annotations

from ..core.timeouts import DEFAULT_TIMEOUT

__all__ = ["DEFAULT_SETTLE", "DEFAULT_TIMEOUT", "EMPTY_WAIT"]

DEFAULT_SETTLE = 0.25
"""Seconds the tool list must have been quiet before `tools()` answers."""
EMPTY_WAIT = 2.5
"""Seconds `tools()` waits for a first tool while the page has none (bounded by the timeout)."""
