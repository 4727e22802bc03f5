"""The session's default bounds, in seconds (a module of their own: option defaults read them
without loading the session)."""

from __future__ import annotations

__all__ = ["DEFAULT_SETTLE", "DEFAULT_TIMEOUT", "EMPTY_WAIT"]

DEFAULT_TIMEOUT = 30.0
"""A call's bound, and the session's default for every wait."""
DEFAULT_SETTLE = 0.25
"""Seconds the tool list must have been quiet before `tools()` answers."""
EMPTY_WAIT = 2.5
"""Seconds `tools()` waits for a first tool while the page has none (bounded by the timeout)."""
