"""Matching an answer against a step's ``expect``: JSON paths into the answer, JSON equality, containment."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..outcome import Outcome, answer_text, tool_value
from .constraints import mismatch
from .model import MISSING, Expect, PathPart

PENDING_FORM: Final = "pending form submission"
"""What webmcp-evals calls the result of a form that waits for its person (code needs_user)."""

_PATH_PART = re.compile(
    r"""\.(?P<key>[A-Za-z_][A-Za-z0-9_-]*)"""
    r"""|\[(?P<index>-?[0-9]+)\]"""
    r"""|\[(?P<quote>["'])(?P<quoted>(?:\\.|(?!(?P=quote)).)*)(?P=quote)\]""",
    re.DOTALL,
)


def parse_path(text: str) -> tuple[PathPart, ...]:
    """``$.a[0]["b c"]`` → ``("a", 0, "b c")``; ValueError saying where it goes wrong."""
    if not isinstance(text, str) or not text.startswith("$"):
        raise ValueError("a path starts with $, like $.order.id or $.content[0].text")
    parts: list[PathPart] = []
    i = 1
    while i < len(text):
        m = _PATH_PART.match(text, i)
        if m is None:
            raise ValueError(
                f'can\'t read the path {text!r} at character {i + 1}: use .key, [N] or ["key"]'
            )
        if m.group("key") is not None:
            parts.append(m.group("key"))
        elif m.group("index") is not None:
            parts.append(int(m.group("index")))
        else:
            parts.append(re.sub(r"\\(.)", r"\1", m.group("quoted"), flags=re.DOTALL))
        i = m.end()
    return tuple(parts)


_RESULT_KEYS: Final = frozenset({"content", "isError", "structuredContent", "_meta"})


def resolve_path(path: Sequence[PathPart], answer: object) -> tuple[bool, Any]:
    """The value at a parsed path in an answer: ``(True, value)``, or ``(False, None)``."""
    current: Any = answer
    if (
        path
        and isinstance(path[0], str)
        and isinstance(answer, Mapping)
        and isinstance(answer.get("content"), list)
        and path[0] not in _RESULT_KEYS
        and path[0] not in answer
    ):
        found, current = tool_value(answer)
        if not found:
            return False, None
    for part in path:
        if isinstance(current, str) and current.lstrip()[:1] in ("{", "["):
            try:
                current = json.loads(current)
            except (ValueError, RecursionError):
                return False, None
        if isinstance(part, int) and isinstance(current, list):
            if not -len(current) <= part < len(current):
                return False, None
            current = current[part]
        elif isinstance(part, str) and isinstance(current, Mapping):
            if part not in current:
                return False, None
            current = current[part]
        else:
            return False, None
    return True, current


def _json_equal(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return False


def _contains(haystack: object, needle: object) -> bool:
    if isinstance(haystack, str):
        return isinstance(needle, str) and needle in haystack
    if isinstance(haystack, (list, tuple)):
        wanted = needle if isinstance(needle, list) else [needle]
        return all(any(_json_equal(item, w) for item in haystack) for w in wanted)
    if isinstance(haystack, Mapping) and isinstance(needle, Mapping):
        return all(k in haystack and _json_equal(haystack[k], v) for k, v in needle.items())
    return False


def _show(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def not_a_result(answer: object, outcome: Outcome) -> str:
    """The miss of a call that was to answer and didn't: its outcome and what it said, as one
    JSON string (a page's message is text on one line, not lines of its own)."""
    return f"expected the tool's result, got {outcome.describe()}: {_show(answer_text(answer))}"


def evals_value(answer: object, outcome: Outcome, *, pending: bool = False) -> tuple[bool, Any]:
    """The value webmcp-evals matches a ``result`` against: the tool's value (its
    ``structuredContent``, else its text parsed as JSON, else the text); ``PENDING_FORM`` for a
    form that waits for its person (``pending``: the call record's). ``(False, None)`` when the
    call didn't give a result."""
    if pending:
        return True, PENDING_FORM
    if not outcome.ok:
        return False, None
    found, value = tool_value(answer)
    return (True, value) if found else (True, answer_text(answer))


def _evals_misses(
    expected: object, answer: object, outcome: Outcome, *, pending: bool
) -> list[str]:
    found, value = evals_value(answer, outcome, pending=pending)
    if not found:
        return [not_a_result(answer, outcome)]
    miss = mismatch(expected, value, "result")
    return [miss] if miss else []


def match_expect(
    expect: Expect, answer: object, *, code: str | None = None, pending: bool = False
) -> list[str]:
    """What in the answer doesn't meet ``expect``: one line per miss, empty when it passes.

    ``pending``: the call's form waits for its person (its record's ``pending``)."""
    outcome = Outcome.of(answer, code=code)
    misses: list[str] = []
    if expect.ok is not None and outcome.ok != expect.ok:
        misses.append(f"expected ok: {str(expect.ok).lower()}, got {outcome.describe()}")
    if expect.code is not None and outcome.code != expect.code:
        misses.append(f"expected code {expect.code}, got {outcome.code or 'no code'}")
    if expect.kind is not None and outcome.kind != expect.kind:
        misses.append(f"expected kind {expect.kind}, got {outcome.describe()}")
    if expect.held is not None and outcome.held != expect.held:
        misses.append(f"expected the check to {expect.held}, got {outcome.describe()}")
    if expect.reason is not None and outcome.reason != expect.reason:
        misses.append(f"expected the reason {expect.reason!r}, got {outcome.describe()}")
    if expect.matches is not MISSING:
        misses.extend(_evals_misses(expect.matches, answer, outcome, pending=pending))
    if expect.equals is MISSING and expect.contains is MISSING:
        return misses
    where = expect.path_text or "the text"
    if expect.path is not None:
        found, subject = resolve_path(expect.path, answer)
        if not found:
            misses.append(f"nothing at {where} in {_show(answer)}")
            return misses
    else:
        subject = answer_text(answer)
    if expect.equals is not MISSING and not _json_equal(subject, expect.equals):
        misses.append(f"expected {where} to equal {_show(expect.equals)}, got {_show(subject)}")
    if expect.contains is not MISSING and not _contains(subject, expect.contains):
        misses.append(f"expected {where} to contain {_show(expect.contains)}, got {_show(subject)}")
    return misses


# -- parsing ---------------------------------------------------------------------------------
