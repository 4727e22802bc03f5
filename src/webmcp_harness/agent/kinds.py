"""The error kinds an agent reads from ``use_tool``, and the one table that picks them.

``use_tool`` never raises: a call that fails returns ``{"error": KIND, "message": ..., "card"?}``,
where ``KIND`` is one of the twelve kinds of the agent contract (seed 003). The harness codes every
call with one of the seven result codes (seed 000) or none, and sometimes knows more about what the
browser did (a "condition"). This module maps both to a kind, in one total table.

Kinds, as the contract defines them::

    not_connected    The app isn't connected.           A card offers the owner the connection.
    reauth           The account needs signing in again. A card asks the owner to connect again.
    forbidden        The account doesn't allow this.     Tell the owner what it needs.
    not_found        Nothing at that id or address, or it was moved.    Search for it again.
    rate_limited     The app is limiting requests.       Wait, then try once more.
    unavailable      The app or service didn't answer.   Try again later, or say so.
    too_large        Over a size limit.                  Use its link instead.
    unsupported      A kind of file or request it can't handle.  Search for its words, or say so.
    bad_input        The input can't run as written.     Fix the input and run it again.
    vendor           The app gave an error of its own.   Read the message.
    changed          What it was about changed since it was read.  Read it again first.
    unknown_outcome  It may or may not have happened.    Check before you run it again.

The table (``ROWS``; a condition, when known, wins over the code)::

    code / condition        kind             why
    ----------------------  ---------------  ---------------------------------------------------
    cancelled               vendor           The person stopped it; the page's message says how,
                                             and no kind says "stop" better than "read the
                                             message". The message starts "The person stopped
                                             it" so the agent does not run it again unasked.
    interrupted             changed          The page navigated or the tool changed mid-call:
                                             what the call was about changed; read it again.
    timeout                 unknown_outcome  No answer in time: it may or may not have happened.
    unavailable             not_found        No tool of that name on this page right now:
                                             nothing at that id or address, or it moved to
                                             another page; search for it (go to the page that
                                             has it). Not ``unavailable``: the page did answer.
    invalid_input           bad_input        The arguments can't run as written; the message
                                             says what and where.
    needs_user              vendor           The person has to choose or confirm; the page's
                                             message says what to ask. The message starts "The
                                             person has to choose or confirm".
    failed                  vendor           The tool ran and could not do it, as its message
                                             says.
    (no code)               vendor           A plain ``Error: ...`` text or ``isError`` without
                                             a known code is a failure of the page's own, as
                                             the harness treats it everywhere (``failed``).
    (unknown code)          vendor           Treated as no code.
    no_webmcp               not_connected    The page has no ``document.modelContext``, or the
                                             browser has no WebMCP: the card says how to connect.
    permissions_policy      forbidden        The page's permissions policy refused the tool.
    too_large               too_large        The tool's output is over the gateway's size limit.
    no_confirm              unsupported      A form that needs a person to confirm has nothing
                                             to confirm on (no submit button): the page can't
                                             handle this request from an agent.
    no_browser              unavailable      The browser or the harness didn't answer at all
                                             (the session failed, the browser went away before
                                             the call reached the page).

The status of an HTTP answer when a script opens a page (``kind_for_http``)::

    401, 407                reauth           Signing in is needed.
    403                     forbidden        The site doesn't allow it.
    404, 410                not_found        Nothing at that address.
    413, 414, 431           too_large        Over a size limit.
    400, 422                bad_input        The request can't run as written.
    415, 501                unsupported      A kind of request it can't handle.
    429                     rate_limited     The site is limiting requests.
    409, 412                changed          What it was about changed since it was read.
    500-599 (but 501), 0    unavailable      The site didn't answer (0: no answer at all).
    other 4xx               vendor           An error of the site's own.
    below 400               None             Not a failure.

``kind_for`` is total: any code (known, unknown or ``None``) and any condition (known, unknown or
``None``) give one of the twelve kinds. An unknown condition falls back to the code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "CONDITIONS",
    "HTTP_ROWS",
    "KINDS",
    "ROWS",
    "KindRow",
    "connect_card",
    "failure",
    "failure_message",
    "is_failure",
    "kind_for",
    "kind_for_http",
]

KINDS: Final[tuple[str, ...]] = (
    "not_connected",
    "reauth",
    "forbidden",
    "not_found",
    "rate_limited",
    "unavailable",
    "too_large",
    "unsupported",
    "bad_input",
    "vendor",
    "changed",
    "unknown_outcome",
)
"""The twelve kinds of seed 003, in its order."""

NO_WEBMCP: Final = "no_webmcp"
PERMISSIONS_POLICY: Final = "permissions_policy"
TOO_LARGE: Final = "too_large"
NO_CONFIRM: Final = "no_confirm"
NO_BROWSER: Final = "no_browser"

CONDITIONS: Final[tuple[str, ...]] = (
    NO_WEBMCP,
    PERMISSIONS_POLICY,
    TOO_LARGE,
    NO_CONFIRM,
    NO_BROWSER,
)
"""What the gateway may know about a failure beyond its code."""


@dataclass(frozen=True)
class KindRow:
    """One row of the table: a code or a condition, its kind, and why."""

    key: str | None
    """The result code, the condition, or None for a failure without a code."""
    kind: str
    rationale: str
    is_condition: bool = False
    lead: str = ""
    """Put before the message, so the agent reads what the kind alone can't say."""


ROWS: Final[tuple[KindRow, ...]] = (
    KindRow(
        "cancelled",
        "vendor",
        "The person stopped it; read the message, and run it again only if they ask.",
        lead="The person stopped it",
    ),
    KindRow(
        "interrupted",
        "changed",
        "The page navigated or the tool changed mid-call: read the page again first.",
    ),
    KindRow("timeout", "unknown_outcome", "No answer in time: it may or may not have happened."),
    KindRow(
        "unavailable",
        "not_found",
        "No tool of that name on this page right now: it is at another address; search for it.",
    ),
    KindRow("invalid_input", "bad_input", "The arguments can't run as written."),
    KindRow(
        "needs_user",
        "vendor",
        "The person has to choose or confirm; the message says what to ask them.",
        lead="The person has to choose or confirm",
    ),
    KindRow("failed", "vendor", "The tool ran and could not do it, as its message says."),
    KindRow(None, "vendor", "A failure without a known code is the page's own (``failed``)."),
    KindRow(
        NO_WEBMCP,
        "not_connected",
        "The page or browser has no WebMCP; a card says how to connect.",
        is_condition=True,
    ),
    KindRow(
        PERMISSIONS_POLICY,
        "forbidden",
        "The page's permissions policy refused the tool.",
        is_condition=True,
    ),
    KindRow(TOO_LARGE, "too_large", "The output is over the size limit.", is_condition=True),
    KindRow(
        NO_CONFIRM,
        "unsupported",
        "The form needs a person to confirm but has nothing to confirm on.",
        is_condition=True,
    ),
    KindRow(
        NO_BROWSER,
        "unavailable",
        "The browser or the harness didn't answer at all.",
        is_condition=True,
    ),
)
"""Every code and condition, its kind and why; docs and tests iterate it."""

_BY_CODE: Final[Mapping[str | None, KindRow]] = {r.key: r for r in ROWS if not r.is_condition}
_BY_CONDITION: Final[Mapping[str | None, KindRow]] = {r.key: r for r in ROWS if r.is_condition}

HTTP_ROWS: Final[tuple[tuple[tuple[int, ...], str, str], ...]] = (
    ((401, 407), "reauth", "Signing in is needed."),
    ((403,), "forbidden", "The site doesn't allow it."),
    ((404, 410), "not_found", "Nothing at that address."),
    ((413, 414, 431), "too_large", "Over a size limit."),
    ((400, 422), "bad_input", "The request can't run as written."),
    ((415, 501), "unsupported", "A kind of request it can't handle."),
    ((429,), "rate_limited", "The site is limiting requests."),
    ((409, 412), "changed", "What it was about changed since it was read."),
)
"""HTTP statuses with a kind of their own; other 5xx (and 0) are unavailable, other 4xx vendor."""

_BY_STATUS: Final[Mapping[int, str]] = {
    s: kind for statuses, kind, _ in HTTP_ROWS for s in statuses
}


def kind_for(code: str | None, *, condition: str | None = None) -> str:
    """The kind for a failed call's code, or for what the browser did when that is known.

    Total: never raises; an unknown condition falls back to the code, an unknown code is treated
    as no code (``vendor``).
    """
    row = _row_for(code, condition)
    return row.kind


def _row_for(code: object, condition: object) -> KindRow:
    if isinstance(condition, str) and condition in _BY_CONDITION:
        return _BY_CONDITION[condition]
    if isinstance(code, str) and code in _BY_CODE:
        return _BY_CODE[str(code)]
    return _BY_CODE[None]


def kind_for_http(status: int) -> str | None:
    """The kind for an HTTP status when a page is opened; None below 400 (not a failure)."""
    if status == 0 or status >= 600 or status < 0:
        return "unavailable"
    if status < 400:
        return None
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return "unavailable" if status >= 500 else "vendor"


def failure_message(code: str | None, message: str, *, condition: str | None = None) -> str:
    """The message for a failure: the row's lead (if any) before what the page or harness said."""
    row = _row_for(code, condition)
    text = message.strip()
    if not row.lead:
        return text or "It failed without saying why."
    if not text:
        return row.lead + "."
    if text.lower().startswith(row.lead.lower()):
        return text
    return f"{row.lead}: {text}"


def failure(kind: str, message: str, card: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``{"error": kind, "message": message}``, with ``"card"`` when there is one.

    An unknown kind raises ValueError: that is the caller's mistake, never the page's.
    """
    if kind not in KINDS:
        raise ValueError(f"Unknown error kind {kind!r}; expected one of: {', '.join(KINDS)}.")
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, not {type(message).__name__}.")
    out: dict[str, Any] = {"error": kind, "message": message}
    if card is not None:
        out["card"] = dict(card)
    return out


def is_failure(value: object) -> bool:
    """Whether a ``use_tool`` answer is a failure (``{"error": KIND, "message": ...}``)."""
    return (
        isinstance(value, Mapping)
        and value.get("error") in KINDS
        and isinstance(value.get("message"), str)
        and "content" not in value
    )


def connect_card(url: str | None = None, *, polyfill: bool = True) -> dict[str, str]:
    """The card offered with ``not_connected``: what connecting gives, and how to connect."""
    where = f" on {url}" if url else ""
    steps = (
        "Open the page in a browser with WebMCP: Chromium with "
        "--enable-features=WebMCP,WebMCPTesting, on https or localhost."
    )
    if polyfill:
        steps += " Or add a WebMCP polyfill to the page (it provides document.modelContext)."
    return {
        "type": "connect",
        "title": "Connect WebMCP",
        "text": f"The page{where} has no WebMCP tools the agent can use. {steps}",
    }
