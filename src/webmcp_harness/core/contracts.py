"""The contract of a tool: what a deploy must not change unnoticed (snapshots, coverage keys).

`tool_contract` is the one place that says which of a `Tool`'s fields make its contract.
"""

from __future__ import annotations

import json
from typing import Any

from .records import Tool
from .urls import split_origin, split_url

__all__ = ["PAGE_ORIGIN", "plain", "tool_contract", "tool_origin"]

PAGE_ORIGIN = "page"
"""A contract's origin when the tool's frame has the top page's origin."""

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# CDP spells annotations its own way; the page and MCP use the ...Hint names.
_HINT_NAMES = {
    "readOnly": "readOnlyHint",
    "consequential": "consequentialHint",
    "untrustedContent": "untrustedContentHint",
}


def tool_origin(frame_url: str, page_url: str | None = None) -> str:
    """The origin of a tool's frame, as contracts and coverage name it.

    A loopback host keeps no port (test servers take a free one each run). With `page_url`, a
    frame of the top page's own origin is `"page"`, so a snapshot holds on staging and live.
    """
    origin = _contract_origin(frame_url)
    if page_url is not None and (not frame_url or origin == _contract_origin(page_url)):
        return PAGE_ORIGIN
    return origin


def _contract_origin(url: str) -> str:
    """url's origin, with no port on a loopback host; "scheme:" for a URL without a host."""
    origin = split_origin(url)
    if origin is None:
        scheme = split_url(url).scheme
        return scheme + ":" if scheme else ""
    if origin.host in _LOOPBACK:
        origin = origin._replace(port=None)
    return str(origin)


def _annotations(raw: dict[str, Any]) -> dict[str, Any]:
    """Annotations under the page's names; a hint that is false or absent is left out.

    The DevTools protocol reports all its hints once any is given (the rest false), a polyfill
    only those given: both mean the same, so both give the same contract.
    """
    shown: dict[str, Any] = {}
    for key, value in raw.items():
        name = _HINT_NAMES.get(key, key)
        if value is False or value is None:
            continue
        shown[name] = value
    return shown


def tool_contract(tool: Tool, *, page_url: str | None = None) -> dict[str, Any]:
    """The tool's contract: name, title, description, inputSchema, annotations, declarative,
    origin (not its frame's id). JSON-ready; `page_url` makes the page's own origin `"page"`."""
    return {
        "name": tool.name,
        "title": getattr(tool, "title", None),
        "description": tool.description,
        "inputSchema": tool.input_schema,
        "annotations": _annotations(tool.annotations),
        "declarative": tool.declarative,
        "origin": tool_origin(tool.frame_url, page_url),
    }


def plain(text: str) -> str:
    """A page's string for a terminal: as is when printable, else quoted with escapes (ASCII)."""
    if text and text.isprintable() and text.strip() == text:
        return text
    return json.dumps(text, ensure_ascii=True)
