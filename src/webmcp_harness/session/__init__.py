"""The session layer: one Playwright page, its tools, and calls that always end in a coded result.

`WebMCPSession` is the async core; `sync.WebMCPSession` its synchronous face (the same core, run
in Playwright's sync loop). Below them, `_backends/` are the sources a page's tools come from.
This layer imports the core (`webmcp_harness.core`) and Playwright, never click, rich, pytest or
yaml.

The names below load on first use, so `session.browser` (launching) is quick to import alone;
each is listed once, in the `TYPE_CHECKING` block (`core/lazy.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.lazy import LazyNames

if TYPE_CHECKING:
    from ..core.records import BackendChoice as BackendChoice
    from .limits import DEFAULT_SETTLE as DEFAULT_SETTLE
    from .limits import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
    from .limits import EMPTY_WAIT as EMPTY_WAIT
    from .session import WebMCPSession as WebMCPSession

_names = LazyNames(globals())
__all__ = _names.all


def __getattr__(name: str) -> Any:
    """A name of `__all__` from its module, loaded now."""
    return _names.load(name)
