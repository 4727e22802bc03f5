"""webmcp-evals argument and result constraints: checking them, matching them, making values.

An ``evals.json`` writes what a tool call's arguments and result must be as JSON where an object
whose keys all start with ``$`` is a constraint: ``$pattern`` (a regular expression the text
matches somewhere; a leading ``(?i)``-style flag group is allowed), ``$contains`` (a substring),
``$gt`` ``$gte`` ``$lt`` ``$lte`` (number bounds), ``$type`` (``string``, ``number``,
``boolean``, ``array``, ``object`` or ``null``) and ``$any`` (present, any value). Any other
object matches as a subset (the actual object may have more keys); arrays match item by item,
the same length; everything else is JSON equality (``2`` equals ``2.0``, ``true`` is not ``1``).

- ``problems(value, where)``: what in a constraint can't be read (an unknown ``$`` operator, a
  bound that is not a number, a pattern that does not compile), one line each, naming the place;
- ``mismatch(expected, actual)``: why ``actual`` doesn't match, or None when it does;
- ``sample(value)``: a concrete value that meets the constraint, for smoke runs that send
  arguments without a model, or None (with ``NO_SAMPLE``) when there is none to be made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from ...core.schema import json_type

__all__ = ["NO_SAMPLE", "OPERATORS", "is_constraint", "mismatch", "problems", "sample"]

OPERATORS: Final = ("$pattern", "$contains", "$gt", "$gte", "$lt", "$lte", "$type", "$any")
TYPES: Final = ("string", "number", "boolean", "array", "object", "null")
_BOUNDS: Final = {"$gt", "$gte", "$lt", "$lte"}
_FLAGS: Final = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "u": 0}
_FLAG_GROUP: Final = re.compile(r"^\(\?([A-Za-z]+)\)")


class _NoSample:
    def __repr__(self) -> str:
        return "NO_SAMPLE"


NO_SAMPLE: Final = _NoSample()
"""What ``sample`` returns for a constraint no concrete value is known to meet."""


def is_constraint(value: object) -> bool:
    """Whether a JSON value is a constraint object: a non-empty object whose keys all start with $."""
    return (
        isinstance(value, Mapping)
        and bool(value)
        and all(isinstance(k, str) and k.startswith("$") for k in value)
    )


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _compile(pattern: str) -> re.Pattern[str]:
    """A ``$pattern`` as a regex: a leading ``(?flags)`` group read as JavaScript flags."""
    flags = 0
    found = _FLAG_GROUP.match(pattern)
    if found:
        for flag in found.group(1):
            if flag not in _FLAGS:
                raise re.error(f"unsupported flag {flag!r} (use i, m, s or u)")
            flags |= _FLAGS[flag]
        pattern = pattern[found.end() :]
    return re.compile(pattern, flags)


def problems(value: object, where: str) -> list[str]:
    """What can't be read in ``value`` (a constraint, or JSON holding constraints), by place."""
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in problems(item, f"{where}[{i}]")]
    if not isinstance(value, Mapping):
        return []
    if not is_constraint(value):
        dollar = [k for k in value if isinstance(k, str) and k.startswith("$")]
        if dollar:
            return [
                f"{where}: {dollar[0]!r} sits beside plain keys; a constraint object has only "
                "$ keys (put it under the key it constrains)"
            ]
        return [p for k, v in value.items() for p in problems(v, f"{where}.{k}")]
    found: list[str] = []
    for key, operand in value.items():
        if key not in OPERATORS:
            found.append(f"{where}: unknown operator {key!r}; use one of {', '.join(OPERATORS)}")
        elif key in ("$pattern", "$contains") and not isinstance(operand, str):
            found.append(f"{where}: {key} takes text, not {json.dumps(operand)}")
        elif key in _BOUNDS and not _is_number(operand):
            found.append(f"{where}: {key} takes a number, not {json.dumps(operand)}")
        elif key == "$type" and operand not in TYPES:
            found.append(f"{where}: $type must be one of {', '.join(TYPES)}")
        elif key == "$pattern":
            try:
                _compile(str(operand))
            except re.error as err:
                found.append(f"{where}: $pattern {operand!r} is not a regular expression: {err}")
    return found


def _show(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _constraint_miss(constraint: Mapping[str, Any], actual: object, where: str) -> str | None:
    for key, operand in constraint.items():
        if key == "$pattern":
            if not isinstance(actual, str) or not _compile(operand).search(actual):
                return f"{where}: {_show(actual)} doesn't match the pattern {operand!r}"
        elif key == "$contains":
            if not isinstance(actual, str) or operand not in actual:
                return f"{where}: {_show(actual)} doesn't contain {operand!r}"
        elif key in _BOUNDS:
            ok = _is_number(actual) and {
                "$gt": lambda a, b: a > b,
                "$gte": lambda a, b: a >= b,
                "$lt": lambda a, b: a < b,
                "$lte": lambda a, b: a <= b,
            }[key](actual, operand)
            if not ok:
                sign = {"$gt": ">", "$gte": "≥", "$lt": "<", "$lte": "≤"}[key]
                return f"{where}: expected a number {sign} {operand}, got {_show(actual)}"
        elif key == "$type" and json_type(actual) != operand:
            return f"{where}: expected a {operand}, got {_show(actual)}"
    return None


def mismatch(expected: object, actual: object, where: str = "$") -> str | None:
    """Why ``actual`` doesn't match ``expected`` (first miss, with its place), or None."""
    if is_constraint(expected):
        assert isinstance(expected, Mapping)
        return _constraint_miss(expected, actual, where)
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"{where}: expected an object, got {_show(actual)}"
        for key, value in expected.items():
            if key not in actual:
                return f"{where}: no key {key!r} in {_show(actual)}"
            miss = mismatch(value, actual[key], f"{where}.{key}")
            if miss:
                return miss
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where}: expected {len(expected)} items, got {_show(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            miss = mismatch(e, a, f"{where}[{i}]")
            if miss:
                return miss
        return None
    same = (
        json_type(expected) == json_type(actual) and expected == actual
        if not (_is_number(expected) and _is_number(actual))
        else expected == actual
    )
    return None if same else f"{where}: expected {_show(expected)}, got {_show(actual)}"


def _pattern_sample(pattern: str) -> str:
    """A guess at text a simple pattern matches: anchors dropped, ``[Aa]`` its first letter,
    ``\\d+`` a 1, ``.*`` nothing. ``sample`` keeps it only when the pattern matches it."""
    found = _FLAG_GROUP.match(pattern)
    text = pattern[found.end() :] if found else pattern
    text = text.removeprefix("^").removesuffix("$")
    text = re.sub(r"\[\^?\\?(.)[^\]]*\]", r"\1", text)
    text = text.replace(r"\d+", "1").replace(r"\d", "1").replace(".*", "").replace(".+", "a")
    return re.sub(r"\\(.)", r"\1", text)


def sample(value: object) -> Any:
    """A concrete value that meets ``value`` (plain JSON is its own sample), or ``NO_SAMPLE``.

    Bounds give the bound (one past it for ``$gt``/``$lt``), ``$contains`` its text, ``$type``
    a plain value of the type, ``$pattern`` a simple reading of it. Every sample is checked
    against the constraint; one that doesn't meet it is ``NO_SAMPLE``. ``$any`` has none.
    """
    if isinstance(value, list):
        items = [sample(v) for v in value]
        return NO_SAMPLE if any(i is NO_SAMPLE for i in items) else items
    if not isinstance(value, Mapping):
        return value
    if not is_constraint(value):
        out = {k: sample(v) for k, v in value.items()}
        return NO_SAMPLE if any(v is NO_SAMPLE for v in out.values()) else out
    guesses: list[Any] = []
    if "$contains" in value:
        guesses.append(value["$contains"])
    if "$pattern" in value:
        guesses.append(_pattern_sample(str(value["$pattern"])))
    for bound, step in (("$gte", 0), ("$lte", 0), ("$gt", 1), ("$lt", -1)):
        if bound in value and _is_number(value[bound]):
            guesses.append(value[bound] + step)
    plain = {"string": "sample", "number": 1, "boolean": True, "array": [], "object": {}}
    if value.get("$type") in plain:
        guesses.append(plain[str(value["$type"])])
    if value.get("$type") == "null":
        guesses.append(None)
    for guess in guesses:
        if mismatch(value, guess) is None:
            return guess
    return NO_SAMPLE
