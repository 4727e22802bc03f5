"""JSON text as JavaScript's ``JSON.stringify`` writes it, byte for byte (``to_json``).

Compact; numbers in JS form (``1.0`` → ``1``, ``1e21`` → ``1e+21``, ``1e-7``, ``-0.0`` → ``0``,
NaN and ±Infinity → ``null``); ``None`` inside a value → ``null``; a surrogate pair split in two
joined into one character and lone surrogates escaped as ``\\udxxx``, as JS sees UTF-16; keys that
are array indexes (``"0"``, ``"1"``, …) first in ascending order, as a JS object orders them;
non-string keys written as JS would (``1.0`` → ``"1"``, ``True`` → ``"true"``). Python ints are
written exactly (JS would round beyond 2**53). Lists and tuples are arrays, mappings are objects.
A value JSON cannot carry (a set, bytes, an arbitrary object) raises ``TypeError``; a cycle raises
``ValueError``. A tool's value becomes its result's text this way (``results.to_tool_result``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["to_json"]

_SURROGATES = re.compile(r"[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")
_MAX_ARRAY_INDEX = 2**32 - 2


def to_json(value: object) -> str:
    """Compact JSON text for a JSON-like value, byte for byte as ``JSON.stringify`` writes it."""
    parts: list[str] = []
    _write(value, parts, set())
    return "".join(parts)


def _write(value: object, out: list[str], active: set[int]) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(int.__repr__(int(value)))
    elif isinstance(value, float):
        out.append(_js_number(float(value)) if math.isfinite(value) else "null")
    elif isinstance(value, str):
        out.append(_js_string(value))
    elif isinstance(value, (list, tuple)):
        _enter(value, active)
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out, active)
        out.append("]")
        active.discard(id(value))
    elif isinstance(value, Mapping):
        _enter(value, active)
        out.append("{")
        for index, (key, item) in enumerate(_js_object_items(value)):
            if index:
                out.append(",")
            out.append(_js_string(key))
            out.append(":")
            _write(item, out, active)
        out.append("}")
        active.discard(id(value))
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _enter(container: object, active: set[int]) -> None:
    if id(container) in active:
        raise ValueError("Circular reference detected")
    active.add(id(container))


def _js_key(key: object) -> str:
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, (bool, int, float)):
        if isinstance(key, float) and not math.isfinite(key):
            return "NaN" if math.isnan(key) else ("Infinity" if key > 0 else "-Infinity")
        return to_json(key)
    raise TypeError(f"Keys must be str, int, float, bool or None, not {type(key).__name__}")


def _is_array_index(key: str) -> bool:
    if not key.isascii() or not key.isdigit() or (len(key) > 1 and key[0] == "0"):
        return False
    return int(key) <= _MAX_ARRAY_INDEX


def _js_object_items(value: Mapping[Any, Any]) -> list[tuple[str, object]]:
    # Keys become strings; a repeated key keeps its first place and its last value, as in JS.
    merged: dict[str, object] = {}
    for key, item in value.items():
        merged[_js_key(key)] = item
    indexes = sorted((key for key in merged if _is_array_index(key)), key=int)
    if not indexes:
        return list(merged.items())
    rest = [key for key in merged if not _is_array_index(key)]
    return [(key, merged[key]) for key in indexes + rest]


def _js_string(text: str) -> str:
    encoded = json.dumps(str.__str__(text), ensure_ascii=False)
    return _SURROGATES.sub(_surrogate, encoded)


def _surrogate(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 2:  # a pair split in two: one character, as UTF-16 JS sees it
        high, low = ord(found[0]), ord(found[1])
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    return f"\\u{ord(found):04x}"


def _js_number(number: float) -> str:
    """A finite float as JS Number::toString writes it (shortest round-trip digits)."""
    if number == 0:
        return "0"
    if number < 0:
        return "-" + _js_number(-number)
    mantissa, _, exponent = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    power = (int(exponent) if exponent else 0) - len(fraction)
    stripped = digits.rstrip("0")
    power += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = power + k  # number == 0.digits * 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    sign = "+" if n - 1 >= 0 else "-"
    head = digits[0] if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{sign}{abs(n - 1)}"
