"""The session layer: one Playwright page, its tools, and calls that always end in a coded result.

`WebMCPSession` is the async core; `sync.WebMCPSession` its synchronous face (the same core, run
in Playwright's sync loop). Below them, `_backends/` are the sources a page's tools come from.
This layer imports the core (`webmcp_harness.core`) and Playwright, never click, rich, pytest or
yaml.

The names below load on first use, so `session.browser` (launching) is quick to import alone.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .limits import DEFAULT_SETTLE, DEFAULT_TIMEOUT, EMPTY_WAIT

if TYPE_CHECKING:
    from .session import BackendChoice, WebMCPSession

__all__ = [
    "DEFAULT_SETTLE",
    "DEFAULT_TIMEOUT",
    "EMPTY_WAIT",
    "BackendChoice",
    "WebMCPSession",
]

_LAZY = {"BackendChoice": ".session", "WebMCPSession": ".session"}


def __getattr__(name: str) -> Any:
    """A name of `__all__` from its module, loaded now."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value
