"""The caps on what a page can make the harness hold: one place for each (docs/codes.md, "Caps").

A page's answer, title or URL can be as big or as deep as it likes. The harness reads page JSON to
a depth (``loads_page``), keeps a result's first content items and characters (``cut_result``),
and cuts the strings a page gives to a report (``cap_string``). Each cut says how much was left
out, so a reader knows the copy is not whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from itertools import accumulate
from typing import Any, Final

from .text import clip

__all__ = [
    "MAX_LINE",
    "MAX_LINE_ITEMS",
    "MAX_PAGE_JSON_DEPTH",
    "MAX_PAGE_STRING",
    "MAX_RESULT_ITEMS",
    "MAX_RESULT_TEXT",
    "TooDeep",
    "cap_string",
    "cut_result",
    "json_depth",
    "loads_page",
    "shrink",
]

MAX_PAGE_JSON_DEPTH: Final = 256
"""Page JSON (a tool's answer, a tool list) nested deeper than this many levels is not parsed."""
MAX_RESULT_ITEMS: Final = 1_000
"""A result keeps its first this many content items; one more item says how many were left out."""
MAX_RESULT_TEXT: Final = 16 * 1024 * 1024
"""A result keeps this many characters (16 MiB) of text in all; each cut text says how many it
lost. Big enough that a 10 MB answer arrives whole (tests/session/test_faults.py)."""
MAX_LINE: Final = 1_000_000
"""A transcript line longer than this many characters is written again with its strings cut to
``MAX_PAGE_STRING`` characters and its lists to ``MAX_LINE_ITEMS`` items (``shrink``)."""
MAX_LINE_ITEMS: Final = 100
"""The items a list keeps in a transcript line that was too long."""
MAX_PAGE_STRING: Final = 4_096
"""A report keeps this many characters of each string a page gave it (a URL, a title, a name)."""

_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}
_NOT_BRACKET: Final = re.compile(r"[^\[\]{}]+")


class TooDeep(ValueError):
    """Page JSON nested past ``MAX_PAGE_JSON_DEPTH``."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        super().__init__(
            f"it is nested {depth:,} levels deep, past the harness's limit of "
            f"{MAX_PAGE_JSON_DEPTH} (docs/codes.md, Caps)"
        )


def json_depth(text: str) -> int:
    """How deep JSON text nests (objects and arrays); quick when it has few brackets."""
    if text.count("[") + text.count("{") <= MAX_PAGE_JSON_DEPTH:
        return MAX_PAGE_JSON_DEPTH  # at most that: no need to look closer
    rough = _deepest(_NOT_BRACKET.sub("", text))  # brackets in strings count too: a bound
    if rough <= MAX_PAGE_JSON_DEPTH:
        return rough
    return _deepest(_NOT_BRACKET.sub("", _STRING.sub("", text)))


def _deepest(marks: str) -> int:
    return max(accumulate(map(_STEP.__getitem__, marks), initial=0))


def loads_page(text: str) -> Any:
    """JSON text a page gave, parsed; TooDeep past the depth cap, ValueError if not JSON."""
    depth = json_depth(text)
    if depth > MAX_PAGE_JSON_DEPTH:
        raise TooDeep(depth)
    try:
        return json.loads(text)
    except RecursionError:  # a deep stack already: still the page's doing
        raise TooDeep(depth) from None


def cap_string(value: str) -> str:
    """A page's string as a report keeps it: at most ``MAX_PAGE_STRING`` characters."""
    return clip(value, MAX_PAGE_STRING)


def cut_result(result: dict[str, Any]) -> dict[str, Any]:
    """result with at most ``MAX_RESULT_ITEMS`` content items and ``MAX_RESULT_TEXT``
    characters of text; the same object when it is within both."""
    content = result.get("content")
    if not isinstance(content, list):
        return result
    budget = MAX_RESULT_TEXT
    kept: list[Any] = []
    changed = len(content) > MAX_RESULT_ITEMS
    for item in content[:MAX_RESULT_ITEMS]:
        text = item.get("text") if isinstance(item, Mapping) else None
        if isinstance(text, str):
            if len(text) > budget:
                item = {**item, "text": clip(text, budget)}
                changed = True
            budget = max(0, budget - len(text))
        kept.append(item)
    if not changed:
        return result
    left = len(content) - len(kept)
    if left:
        kept.append(
            {
                "type": "text",
                "text": f"… {left:,} more content items left out (the harness keeps "
                f"{MAX_RESULT_ITEMS:,}: docs/codes.md, Caps)",
            }
        )
    return {**result, "content": kept}


def shrink(value: Any) -> Any:
    """A copy of JSON-ready value with each string cut to ``MAX_PAGE_STRING`` characters and each
    list to ``MAX_LINE_ITEMS`` items, each cut saying how much it left out."""
    if isinstance(value, str):
        return cap_string(value)
    if isinstance(value, dict):
        return {cap_string(k): shrink(v) for k, v in value.items()}
    if isinstance(value, list):
        kept = [shrink(v) for v in value[:MAX_LINE_ITEMS]]
        if len(value) > MAX_LINE_ITEMS:
            kept.append(f"… {len(value) - MAX_LINE_ITEMS:,} more items left out")
        return kept
    return value
