"""Input for calling a tool: schema-valid (should be accepted) and schema-invalid (should not).

Both are deterministic for a seed and bounded in time: when no input can be made within the
budget, the answer is None (or no invalid variants), never an exception or a hang.

The generator covers the JSON Schema a tool's inputSchema commonly uses: type (and lists of
types), properties, required, additionalProperties, enum, const, minimum/maximum (and the
exclusive forms), multipleOf, minLength/maxLength, pattern, format, items/prefixItems,
minItems/maxItems/uniqueItems/contains, anyOf/oneOf/allOf, local $ref, min/maxProperties and
dependentRequired. Everything it makes is checked with the schema's own validator; a keyword it
does not know (not, if/then/else, ...) is honoured by that check and a few seeded retries.
Strings for a `pattern` are built by walking the parsed regex (each repeat at its minimum, then
a little more), or taken from a few typical strings for patterns with lookarounds.
hypothesis-jsonschema and Hypothesis's regex strategy are not used: they cannot be held to a time
budget (a lookahead pattern took 40 s), and hypothesis-jsonschema 0.23.1 fails on every object
schema with Hypothesis 6.170 ("'many' object has no attribute 'more'").
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import random
import re
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeGuard

import regex  # type: ignore[import-untyped]
from jsonschema import Draft202012Validator

from ..core.schema import fits, validator_for
from ..session.adapters import parse_regex

__all__ = ["InvalidInput", "invalid_input", "invalid_inputs", "valid_input"]

_MAX_DEPTH = 12
_MAX_ITEMS = 5
_MAX_SCHEMA_CHARS = 200_000
_ATTEMPTS = 8

_FORMATS: dict[str, str] = {
    "date": "2025-01-15",
    "date-time": "2025-01-15T12:00:00Z",
    "time": "12:00:00Z",
    "duration": "P1D",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uri": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "/example",
    "iri-reference": "/example",
    "uri-template": "https://example.com/{id}",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "json-pointer": "/example",
    "relative-json-pointer": "0/example",
    "regex": "^example$",
    "color": "#336699",
    "month": "2025-01",
    "week": "2025-W03",
    "tel": "+15555550123",
}
_WORDS = ("example", "test", "sample", "hello", "blue", "apple", "river", "alpha")
# Tried against a pattern the regex walk cannot satisfy (lookarounds: "one digit, one capital").
_RICH_STRINGS = (
    "Example1!",
    "Aa1!Aa1!",
    "A1b2C3d4",
    "user@example.com",
    "https://example.com/",
    "2025-01-15",
    "12:00",
    "12345",
    "+15555550123",
    "abc-123",
    "ABC",
    "abc",
    "1",
)


class _GiveUp(Exception):
    """No value within the budget, or for this (sub)schema."""


class _Slow(Exception):
    """A pattern that could not be matched in time (never suppressed with _GiveUp)."""


_PATTERN_TIMEOUT = 0.25  # seconds one match of a page's pattern may take


@dataclass(frozen=True)
class InvalidInput:
    """A schema-invalid input, made from a valid one by breaking one thing."""

    kind: str  # missing-required, wrong-type, not-in-enum, below-minimum, above-maximum, ...
    pointer: str  # JSON pointer to what was broken
    value: dict[str, Any]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "pointer": self.pointer,
            "value": self.value,
            "reason": self.reason,
        }


def _validator(schema: Any) -> Draft202012Validator | None:
    if isinstance(schema, bool):
        return Draft202012Validator(schema)
    if not isinstance(schema, dict):
        return None
    try:
        if len(json.dumps(schema)) > _MAX_SCHEMA_CHARS:
            return None
    except (TypeError, ValueError, RecursionError):
        return None
    found = validator_for(schema)  # closed: no $ref retrieval, bounded patterns
    return None if isinstance(found, str) else found


def _is_valid(validator: Draft202012Validator, value: Any) -> bool:
    try:
        return fits(validator, value, deadline=time.monotonic() + _PATTERN_TIMEOUT * 4)
    except Exception:  # a schema jsonschema cannot apply (bad $ref, odd regex): not valid
        return False


_CATEGORY_CHARS = {
    "CATEGORY_DIGIT": "0",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_WORD": "a",
    "CATEGORY_NOT_WORD": "-",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "a",
}
_PROBES = "a0x_-. A9z"


def _class_char(items: list[tuple[Any, Any]]) -> str:
    """A character a regex character class accepts."""
    negate = any(str(op) == "NEGATE" for op, _ in items)
    allowed: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            allowed.append(chr(arg))
        elif name == "RANGE":
            allowed.append(chr(arg[0]))
        elif name == "CATEGORY":
            allowed.append(_CATEGORY_CHARS.get(str(arg), "a"))
    if not negate:
        if not allowed:
            raise _GiveUp("empty character class")
        return allowed[0]
    probe = (
        re.compile("[" + "^" + "".join(re.escape(c) for c in allowed) + "]") if allowed else None
    )
    for char in _PROBES:
        if probe is None or probe.fullmatch(char):
            return char
    raise _GiveUp("negated class")


def _regex_text(parsed: Any, extra: int, groups: dict[int, str], depth: int = 0) -> str:
    """A string built from a parsed regex: each repeat at its minimum (plus extra)."""
    if depth > 50:
        raise _GiveUp("regex too deep")
    out: list[str] = []
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if chr(arg) != "a" else "b")
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_class_char(list(arg)))
        elif name == "AT":
            continue
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            count = low + extra if str(high) == "MAXREPEAT" else min(high, low + extra)
            count = min(count, 1000)
            out.append("".join(_regex_text(sub, extra, groups, depth + 1) for _ in range(count)))
        elif name == "SUBPATTERN":
            group, _add, _del, sub = arg
            text = _regex_text(sub, extra, groups, depth + 1)
            if group is not None:
                groups[group] = text
            out.append(text)
        elif name == "ATOMIC_GROUP":
            out.append(_regex_text(arg, extra, groups, depth + 1))
        elif name == "BRANCH":
            out.append(_regex_text(arg[1][0], extra, groups, depth + 1))
        elif name == "GROUPREF":
            out.append(groups.get(arg, ""))
        else:  # lookarounds, conditionals: leave it to Hypothesis
            raise _GiveUp(f"regex feature {name}")
    return "".join(out)


class _Generator:
    def __init__(self, root: Any, seed: int, deadline: float, optional: bool) -> None:
        self.root = root
        self.rng = random.Random(seed)
        self.seed = seed
        self.deadline = deadline
        self.optional = optional

    def _tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise _GiveUp("out of time")

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise _GiveUp(f"remote $ref {ref}")
        node: Any = self.root
        for part in ref[1:].lstrip("/").split("/") if ref != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _GiveUp(f"unresolvable $ref {ref}")
        return node

    def value(self, schema: Any, depth: int = 0) -> Any:
        self._tick()
        if depth > _MAX_DEPTH:
            raise _GiveUp("too deep")
        if schema is True or schema == {}:
            return self.rng.choice(_WORDS)
        if schema is False or not isinstance(schema, dict):
            raise _GiveUp("no value fits")
        if "$ref" in schema:
            target = self._resolve(str(schema["$ref"]))
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            merged = _merge(target, rest) if isinstance(target, dict) else target
            return self.value(merged, depth + 1)
        if "allOf" in schema and isinstance(schema["allOf"], list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                if isinstance(part, dict) and "$ref" in part:
                    part = self._resolve(str(part["$ref"]))
                if isinstance(part, dict):
                    merged = _merge(merged, part)
            return self.value(merged, depth + 1)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            fits = _validator({k: v for k, v in schema.items() if k != "enum"})
            choices = [v for v in schema["enum"] if fits is None or _is_valid(fits, v)]
            if not choices:
                raise _GiveUp("no enum value fits")
            preferred = [v for v in choices if v not in ("", None)] or choices
            return copy.deepcopy(self.rng.choice(preferred))
        for key in ("anyOf", "oneOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                return self._branch(schema, key, branches, depth)
        kind = self._type(schema)
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, depth)
        if kind == "string":
            return self._string(schema)
        if kind in ("integer", "number"):
            return self._number(schema, integer=kind == "integer")
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        raise _GiveUp(f"unknown type {kind}")

    def _type(self, schema: dict[str, Any]) -> str:
        kind = schema.get("type")
        if isinstance(kind, list):
            named = [k for k in kind if isinstance(k, str)]
            non_null = [k for k in named if k != "null"]
            return (non_null or named or ["string"])[0]
        if isinstance(kind, str):
            return kind
        if any(k in schema for k in ("properties", "required", "additionalProperties")):
            return "object"
        if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems")):
            return "array"
        if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
            return "string"
        if any(k in schema for k in ("minimum", "maximum", "multipleOf")):
            return "number"
        return "string"

    def _branch(self, schema: dict[str, Any], key: str, branches: list[Any], depth: int) -> Any:
        base = {k: v for k, v in schema.items() if k != key}
        whole = _validator(schema)
        order = list(range(len(branches)))
        for index in order:
            branch = branches[index]
            if isinstance(branch, dict) and "$ref" in branch:
                branch = self._resolve(str(branch["$ref"]))
            candidate_schema = _merge(base, branch) if isinstance(branch, dict) else base
            try:
                candidate = self.value(candidate_schema, depth + 1)
            except _GiveUp:
                self._tick()
                continue
            if whole is None or _is_valid(whole, candidate):
                return candidate
        raise _GiveUp(f"no {key} branch fits")

    def _object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        assert isinstance(props, dict)
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        extra = schema.get("additionalProperties", True)
        keys = list(dict.fromkeys(required))
        if self.optional:
            keys += [k for k in props if k not in keys]
        minimum = schema.get("minProperties")
        if isinstance(minimum, int) and len(keys) < minimum:
            keys += [k for k in props if k not in keys][: minimum - len(keys)]
        dependent = schema.get("dependentRequired")
        if isinstance(dependent, dict):
            for key in list(keys):
                deps = dependent.get(key)
                if isinstance(deps, list):
                    keys += [d for d in deps if isinstance(d, str) and d not in keys]
        result: dict[str, Any] = {}
        for key in keys:
            sub = props.get(key, extra if extra is not False else True)
            result[key] = self.value(sub, depth + 1)
        if isinstance(minimum, int) and len(result) < minimum and extra is not False:
            for i in range(minimum - len(result)):
                result[f"extra{i + 1}"] = self.value(extra if isinstance(extra, dict) else True)
        return result

    def _array(self, schema: dict[str, Any], depth: int) -> list[Any]:
        low = schema.get("minItems", 0)
        high = schema.get("maxItems")
        low = low if isinstance(low, int) and low >= 0 else 0
        count = max(low, 1)
        if isinstance(high, int):
            count = min(count, high)
        if count > _MAX_ITEMS and low > _MAX_ITEMS:
            count = low  # must, however many
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
        assert isinstance(prefix, list)
        count = max(count, min(len(prefix), low))
        items = schema.get("items", True)
        result: list[Any] = []
        unique = bool(schema.get("uniqueItems"))
        contains = schema.get("contains")
        if isinstance(contains, dict) and count > 0:
            result.append(self.value(contains, depth + 1))
        tries = 0
        while len(result) < count:
            self._tick()
            index = len(result)
            sub = prefix[index] if index < len(prefix) else items
            item = self.value(sub, depth + 1)
            tries += 1
            if unique and item in result:
                if tries > 20 + count * 5:
                    raise _GiveUp("cannot make unique items")
                continue
            result.append(item)
        return result

    def _string(self, schema: dict[str, Any]) -> str:
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        low = low if isinstance(low, int) and low >= 0 else 0
        high = high if isinstance(high, int) and high >= 0 else None
        pattern = schema.get("pattern")
        fmt = schema.get("format")
        if isinstance(fmt, str) and not isinstance(pattern, str) and fmt.startswith("^"):
            pattern = fmt  # Chromium writes some form controls' regexes into "format"
        if isinstance(pattern, str):
            return self._from_regex(pattern, low, high)
        if isinstance(fmt, str) and fmt in _FORMATS:
            text = _FORMATS[fmt]
        else:
            text = self.rng.choice(_WORDS)
        if len(text) < low:
            text += "x" * (low - len(text))
        if high is not None and len(text) > high:
            text = text[:high]
        return text

    def _from_regex(self, pattern: str, low: int, high: int | None) -> str:
        try:
            compiled = regex.compile(pattern)
        except (regex.error, ValueError, TypeError, OverflowError) as exc:
            raise _GiveUp(f"pattern {pattern!r} is not a Python regex") from exc

        def matches(text: str) -> bool:
            # Bounded: a pattern that backtracks catastrophically must not hang the check.
            left = min(self.deadline - time.monotonic(), _PATTERN_TIMEOUT)
            try:
                return compiled.search(text, timeout=max(left, 0.001)) is not None
            except TimeoutError:
                raise _Slow(pattern) from None

        def fits(text: str) -> bool:
            self._tick()
            return len(text) >= low and (high is None or len(text) <= high)

        try:
            for word in (*_WORDS, "a" * max(low, 1)):
                if matches(word) and fits(word):
                    return word
            with contextlib.suppress(_GiveUp, re.error, RecursionError, ValueError, TypeError):
                parsed = parse_regex(pattern)
                for extra in (0, 1, 2, 3, 5, 8, low):
                    text = _regex_text(parsed, extra, {})
                    if matches(text) and fits(text):
                        return text
            for candidate in _RICH_STRINGS:
                text = candidate * max(1, -(-low // len(candidate))) if low else candidate
                if matches(text) and fits(text):
                    return text
        except _Slow:
            raise _GiveUp(f"pattern {pattern!r} could not be decided in time") from None
        raise _GiveUp(f"no string found for pattern {pattern!r}")

    def _number(self, schema: dict[str, Any], *, integer: bool) -> int | float:
        low, low_open = _bound(schema, "minimum", "exclusiveMinimum", max)
        high, high_open = _bound(schema, "maximum", "exclusiveMaximum", min)
        step = schema.get("multipleOf")
        step = (
            step
            if isinstance(step, (int, float)) and not isinstance(step, bool) and step > 0
            else None
        )
        if integer:
            step = 1 if step is None else _lcm_step(step)
        start = low if low is not None else (high - 10 if high is not None else 0)
        stop = high if high is not None else start + 10
        if start > stop:
            raise _GiveUp("empty range")
        pick = (
            start + (stop - start) * self.rng.choice((0.25, 0.5, 0.75)) if stop > start else start
        )
        candidates: list[float] = []
        if step is not None:
            s = Decimal(str(step))
            k = math.ceil(Decimal(str(pick)) / s)
            for delta in (0, 1, -1, 2, -2, 3):
                candidates.append(float(s * (k + delta)))
            if low is not None:
                k0 = math.ceil(Decimal(str(low)) / s)
                candidates += [float(s * (k0 + d)) for d in range(3)]
        else:
            candidates += [round(pick, 2), pick, start, stop]
            if integer:
                candidates = [math.ceil(start), math.floor(stop), round(pick)]
        for value in candidates:
            if low is not None and (value < low or (low_open and value == low)):
                continue
            if high is not None and (value > high or (high_open and value == high)):
                continue
            if step is not None and not _multiple(value, step):
                continue
            if integer or (
                float(value).is_integer() and step is not None and float(step).is_integer()
            ):
                return int(value)
            return value
        raise _GiveUp("no number in range")


def _lcm_step(step: float) -> float:
    """The smallest whole-number multiple of step (integers must be whole)."""
    if float(step).is_integer():
        return int(step)
    s = Decimal(str(step))
    for k in range(1, 1001):
        if (s * k) == (s * k).to_integral_value():
            return int(s * k)
    raise _GiveUp("no integer is a multiple of multipleOf")


def _multiple(value: float, step: float) -> bool:
    """Whether value is a multiple of step, as jsonschema decides it."""
    if isinstance(step, float) or isinstance(value, float):
        quotient = value / step
        try:
            return int(quotient) == quotient
        except OverflowError:
            return False
    return value % step == 0


def _bound(
    schema: dict[str, Any], inclusive: str, exclusive: str, pick: Any
) -> tuple[float | None, bool]:
    values: list[tuple[float, bool]] = []
    for key, is_open in ((inclusive, False), (exclusive, True)):
        v = schema.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            values.append((v, is_open))
    if not values:
        return None, False
    best = pick(v for v, _ in values)
    return best, any(v == best and is_open for v, is_open in values)


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Two schemas' constraints in one (a simple allOf: enough for common schemas)."""
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
        elif key == "properties" and isinstance(value, dict) and isinstance(out[key], dict):
            props = dict(out[key])
            for name, sub in value.items():
                both = props.get(name)
                props[name] = (
                    _merge(both, sub) if isinstance(both, dict) and isinstance(sub, dict) else sub
                )
            out[key] = props
        elif key == "required" and isinstance(value, list) and isinstance(out[key], list):
            out[key] = list(dict.fromkeys([*out[key], *value]))
        elif key in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"):
            out[key] = max(out[key], value) if _num(out[key]) and _num(value) else value
        elif key in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"):
            out[key] = min(out[key], value) if _num(out[key]) and _num(value) else value
        elif key == "enum" and isinstance(value, list) and isinstance(out[key], list):
            out[key] = [v for v in out[key] if v in value]
        else:
            out[key] = value
    return out


def _num(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def valid_input(
    schema: Any,
    *,
    seed: int = 0,
    budget: float = 1.0,
    optional: bool = False,
) -> dict[str, Any] | None:
    """A JSON object the schema accepts (required keys; all keys with optional=True), or None.

    None when the schema is not a valid JSON Schema, accepts no object, or nothing was found
    within budget seconds. A tool without an inputSchema, or with one that accepts any value
    (``{}``), takes {}.
    """
    if schema is None:
        return {}
    validator = _validator(schema)
    if validator is None:
        return None
    deadline = time.monotonic() + budget
    for attempt in range(_ATTEMPTS):
        if time.monotonic() > deadline:
            break
        generator = _Generator(schema, seed * 1_000 + attempt, deadline, optional)
        try:
            value = generator.value(schema)
        except (_GiveUp, RecursionError):
            if time.monotonic() > deadline:
                break
            continue
        if isinstance(value, dict) and _is_valid(validator, value):
            return value
    # A schema that says nothing of objects ({}, say: React hooks register it) takes {}.
    return {} if _is_valid(validator, {}) else None


# --- invalid input ------------------------------------------------------------------------------

_WRONG: dict[str, Any] = {
    "string": 12345,
    "integer": "not a number",
    "number": "not a number",
    "boolean": "yes",
    "array": "not a list",
    "object": "not an object",
    "null": "not null",
}


def _pointer(key: str) -> str:
    return "/" + key.replace("~", "~0").replace("/", "~1")


def invalid_inputs(
    schema: Any, *, seed: int = 0, budget: float = 1.0, limit: int = 8
) -> list[InvalidInput]:
    """Objects the schema rejects, each breaking one rule (one of each kind at most).

    Empty when the schema accepts every object (nothing to reject), is broken, or no valid base
    could be made within budget.
    """
    if not isinstance(schema, dict):
        return []
    validator = _validator(schema)
    if validator is None:
        return []
    deadline = time.monotonic() + budget
    base = valid_input(schema, seed=seed, budget=budget, optional=True)
    if base is None:
        base = valid_input(schema, seed=seed, budget=max(0.0, deadline - time.monotonic()))
    if base is None:
        return []
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    assert isinstance(props, dict)
    required = [r for r in schema.get("required", []) if isinstance(r, str)]
    found: list[InvalidInput] = []
    kinds: set[str] = set()

    def offer(kind: str, key: str, value: dict[str, Any], reason: str) -> None:
        if kind in kinds or len(found) >= limit or time.monotonic() > deadline:
            return
        if not _is_valid(validator, value):
            kinds.add(kind)
            found.append(InvalidInput(kind, _pointer(key) if key else "", value, reason))

    for key in required:
        if key in base:
            without = {k: v for k, v in base.items() if k != key}
            offer("missing-required", key, without, f"leaves out required {key!r}")
    for key, sub in props.items():
        if not isinstance(sub, dict):
            continue
        kind = sub.get("type")
        types = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
        for t in types:
            wrong = _WRONG.get(str(t))
            if wrong is not None and not any(_is_type(wrong, other) for other in types):
                offer("wrong-type", key, {**base, key: wrong}, f"{key!r} is not a {t}")
                break
        enum = sub.get("enum")
        if isinstance(enum, list) and enum:
            outsider: Any = "not-an-option"
            if all(_num(v) for v in enum):
                outsider = max(enum) + 1
            offer("not-in-enum", key, {**base, key: outsider}, f"{key!r} is not one of its options")
        if "const" in sub:
            offer("not-const", key, {**base, key: "not-the-constant"}, f"{key!r} is not its const")
        for bound, kind_name, delta in (
            ("minimum", "below-minimum", -1),
            ("exclusiveMinimum", "below-minimum", 0),
            ("maximum", "above-maximum", 1),
            ("exclusiveMaximum", "above-maximum", 0),
        ):
            v = sub.get(bound)
            if _num(v):
                broken = v + delta
                if "integer" in types and isinstance(broken, float):
                    broken = math.floor(broken) if delta < 0 else math.ceil(broken)
                offer(kind_name, key, {**base, key: broken}, f"{key!r} is out of range")
        step = sub.get("multipleOf")
        if _num(step) and step > 0:
            lo = sub.get("minimum", 0)
            lo = lo if _num(lo) else 0
            candidate = (math.ceil(lo / step) * step) + step / 2
            if "integer" in types and not float(candidate).is_integer():
                candidate = math.ceil(candidate)
            offer(
                "not-multiple",
                key,
                {**base, key: candidate},
                f"{key!r} is not a multiple of {step}",
            )
        max_len = sub.get("maxLength")
        if isinstance(max_len, int) and max_len < 100_000:
            offer("too-long", key, {**base, key: "x" * (max_len + 1)}, f"{key!r} is too long")
        min_len = sub.get("minLength")
        if isinstance(min_len, int) and min_len > 0:
            offer("too-short", key, {**base, key: "x" * (min_len - 1)}, f"{key!r} is too short")
        if isinstance(sub.get("pattern"), str):
            for text in ("", "!@#$%^&*()", " ", "0"):
                offer("pattern", key, {**base, key: text}, f"{key!r} does not match its pattern")
        max_items = sub.get("maxItems")
        if isinstance(max_items, int) and isinstance(base.get(key), list) and max_items < 1_000:
            items = base[key] or ["x"]
            offer(
                "too-many-items",
                key,
                {**base, key: (items * (max_items + 1))[: max_items + 1]},
                f"{key!r} has too many items",
            )
    if schema.get("additionalProperties") is False:
        extra = "unexpected_property"
        while extra in props:
            extra += "_"
        offer(
            "extra-property", extra, {**base, extra: 1}, "has a property the schema does not allow"
        )
    return found


def _is_type(value: Any, kind: Any) -> bool:
    return {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": _num(value),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
        "null": value is None,
    }.get(str(kind), False)


def invalid_input(schema: Any, *, seed: int = 0, budget: float = 1.0) -> InvalidInput | None:
    """One schema-invalid input (a missing required key if there is one), or None."""
    found = invalid_inputs(schema, seed=seed, budget=budget, limit=1)
    return found[0] if found else None
