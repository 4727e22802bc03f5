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
    "HORIZON",
    "POPUPS_FOLLOWED",
    "SETTLE_MAX",
]

DEFAULT_SETTLE = 0.1
"""Seconds the tool list must have been quiet before `tools()` answers (by default, the page's
requests and short timers too: short, since those say when a tool may still come)."""
EMPTY_WAIT = 2.5
"""Seconds `tools()` waits for a first tool while the page has none (bounded by the timeout)."""
HORIZON = 1.5
"""Seconds ahead that hold the default settle (`quiet.PageQuiet`): a `setTimeout` due within them,
or a request younger than them, may still register a tool. A longer timer, a `setInterval` (a
ticking clock would hold every page to SETTLE_MAX) or a long-lived request (a long poll) does not."""
SETTLE_MAX = 3.0
"""Seconds `tools()` waits at most, by default, for a page to settle: a tool registered HORIZON
after load, then the quiet window, with room to spare."""
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
