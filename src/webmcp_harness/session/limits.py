"""The session's default bounds, in seconds (a module of their own: option defaults read them
without loading the session). The call's default timeout is the core's (`core.timeouts`)."""

from __future__ import annotations

from ..core.timeouts import DEFAULT_TIMEOUT

__all__ = [
    "CLOSE_WAIT",
    "DEFAULT_SETTLE",
    "DEFAULT_TIMEOUT",
    "DIALOGS_KEPT",
    "DIALOG_TEXT_KEPT",
    "EMPTY_WAIT",
    "POPUPS_FOLLOWED",
]

DEFAULT_SETTLE = 0.25
"""Seconds the tool list must have been quiet before `tools()` answers."""
EMPTY_WAIT = 2.5
"""Seconds `tools()` waits for a first tool while the page has none (bounded by the timeout)."""
CLOSE_WAIT = 2.0
"""Seconds `WebMCPSession.close()` may take: its sources stop listening at once, and what they
still ask of the page (detaching, removing scripts) is given up after this."""
DIALOGS_KEPT = 50
"""Dialogs a call's record keeps as events; past it, one `dialogsNotKept` event counts the rest."""
DIALOG_TEXT_KEPT = 500
"""Characters of a dialog's text a record keeps (escaped, and cut saying how many more)."""
POPUPS_FOLLOWED = 10
"""Popups a session follows (their tools listed, their calls made); the page's later popups are
closed at once, and each running call's record counts them (a `popupsNotFollowed` event)."""
