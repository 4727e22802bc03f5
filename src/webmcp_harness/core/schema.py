"""Checking a call's arguments against a tool's inputSchema (JSON Schema 2020-12).

A page's schema is hostile data, and a closed world:

- ``$ref`` resolves only inside the schema that holds it (a ``referencing`` registry whose
  retrieval refuses), so a ``http://`` or ``file:`` reference is never fetched or read: the call
  is refused with "the tool's schema refers outside itself".
- ``pattern`` and ``patternProperties`` (ECMA-262 regular expressions) are matched with the
  ``regex`` engine under a time limit, within the call's deadline: a pattern that can't be
  decided in time refuses the call with a coded message, never a hang.
- ``$ref`` loops and depth are bounded (``MAX_REF_DEPTH``).

The arguments themselves are bounded too (``args_problem``): at most ``MAX_ARGS_DEPTH`` levels of
nesting, and only finite numbers. Every problem is a message the caller turns into a coded
``invalid_input``; nothing here raises on what a page or a caller gives it.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import json
import math
import time
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final, NoReturn

from ._formats import FORMATS  # first: it holds back jsonschema's slow format modules

# isort: split
import regex  # type: ignore[import-untyped]
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError, best_match
from referencing import Registry
from referencing.exceptions import Unresolvable

__all__ = [
    "MAX_ARGS_DEPTH",
    "MAX_REF_DEPTH",
    "PATTERN_BUDGET",
    "args_problem",
    "fits",
    "json_type",
    "schema_hazard",
    "schema_problem",
    "validate_args",
    "validator_for",
]

MAX_ARGS_DEPTH: Final = 64
"""Arguments nested deeper than this (objects and arrays) are refused."""
MAX_REF_DEPTH: Final = 64
"""``$ref`` followed deeper than this (a loop) refuses the call."""
PATTERN_BUDGET: Final = 1.0
"""Seconds all of one validation's patterns may take: the default deadline, and the most a
session's call spends on them (less when the call's own timeout ends sooner)."""

OUTSIDE = "the tool's schema refers outside itself"
_deadline: contextvars.ContextVar[float] = contextvars.ContextVar("schema_deadline")
_ref_depth: contextvars.ContextVar[int] = contextvars.ContextVar("schema_ref_depth", default=0)


class _Refused(Exception):
    """Validation stopped: why, as the message the caller is given."""


def _no_retrieval(uri: str) -> NoReturn:
    raise _Refused(f"{OUTSIDE} ($ref {uri[:200]!r} is not fetched)")


_REGISTRY: Final[Registry[Any]] = Registry(retrieve=_no_retrieval)  # type: ignore[call-arg]


def _search(pattern: str, text: str) -> bool:
    """Whether pattern matches in text; refuses when it can't be decided before the deadline."""
    deadline = _deadline.get(time.monotonic() + PATTERN_BUDGET)
    try:
        left = _time_left(pattern, deadline)
        try:  # nearly every pattern is decided at once, here
            return regex.search(pattern, text, timeout=min(left, _QUICK)) is not None
        except TimeoutError:
            return _slow_search(pattern, text, deadline)
    except (regex.error, TypeError, ValueError, OverflowError):
        return True  # a pattern the engine can't read is the schema's problem, not the caller's


_QUICK: Final = 0.02
"""CPU seconds a pattern is tried for in the caller's thread before it gets the wall clock."""
_SLOW: Final = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="webmcp-pattern")


def _slow_search(pattern: str, text: str, deadline: float) -> bool:
    """A slow pattern, bounded in wall time: ``regex``'s own timeout counts the process's CPU
    time, which a loaded machine stretches many times over, so the match runs in a thread (the
    engine lets go of the GIL) and the caller stops waiting at the deadline. The thread ends by
    itself within the same budget of CPU."""
    left = _time_left(pattern, deadline)
    work = _SLOW.submit(regex.search, pattern, text, timeout=left, concurrent=True)
    try:
        return work.result(timeout=left) is not None
    except (TimeoutError, concurrent.futures.TimeoutError):
        raise _Refused(_undecided(pattern)) from None


def _time_left(pattern: str, deadline: float) -> float:
    """Seconds until deadline; refuses the call when there are none."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise _Refused(_undecided(pattern))
    return left


def _undecided(pattern: str) -> str:
    return f"the tool's schema pattern {pattern[:100]!r} could not be decided in time"


def _pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if (
        validator.is_type(instance, "string")
        and isinstance(patrn, str)
        and not _search(patrn, instance)
    ):
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def _pattern_properties(validator: Any, pp: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object") or not isinstance(pp, dict):
        return
    for pattern, subschema in pp.items():
        for k, v in instance.items():
            if _search(pattern, k):
                yield from validator.descend(v, subschema, path=k, schema_path=pattern)


def _additional_properties(validator: Any, ap: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}) or {})
    extras = [
        p for p in instance if p not in properties and not any(_search(pat, p) for pat in patterns)
    ]
    if validator.is_type(ap, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], ap, path=extra)
    elif not ap and extras:
        if patterns:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(e) for e in sorted(extras))
            shown = ", ".join(repr(p) for p in sorted(patterns))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {shown}")
        else:
            was = "was" if len(extras) == 1 else "were"
            listed = ", ".join(repr(e) for e in extras)
            yield ValidationError(
                f"Additional properties are not allowed ({listed} {was} unexpected)"
            )


def _bounded_ref(keyword: str) -> Any:
    original = Draft202012Validator.VALIDATORS[keyword]

    def ref(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        depth = _ref_depth.get()
        if depth >= MAX_REF_DEPTH:
            raise _Refused(f"the tool's schema refers to itself in a loop ({keyword} {value!r})")
        if time.monotonic() > _deadline.get(math.inf):
            raise _Refused("the tool's schema could not be checked in time")
        token = _ref_depth.set(depth + 1)
        try:
            yield from original(validator, value, instance, schema)
        finally:
            _ref_depth.reset(token)

    return ref


def _guarded_unevaluated(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
    # jsonschema matches patternProperties here with `re`: decide each one bounded first.
    if validator.is_type(instance, "object"):
        for pattern in schema.get("patternProperties", {}) or {}:
            for key in instance:
                _search(pattern, key)
    yield from Draft202012Validator.VALIDATORS["unevaluatedProperties"](
        validator, value, instance, schema
    )


_Validator: Final = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "unevaluatedProperties": _guarded_unevaluated,
        "$ref": _bounded_ref("$ref"),
        "$dynamicRef": _bounded_ref("$dynamicRef"),
    },
)


# `format` is checked, as every other keyword, for the formats JSON Schema 2020-12 defines (date,
# time, date-time, duration, email, idn-email, hostname, idn-hostname, ipv4, ipv6, uri,
# uri-reference, iri, iri-reference, uuid, uri-template, json-pointer, relative-json-pointer,
# regex): jsonschema's checker for 2020-12 holds exactly these (`jsonschema[format-nongpl]`).
# An unknown format (Chromium writes a regular expression there for `<input type=time>`) passes.
_FORMATS = FORMATS  # the IRI grammar loads on first use (see _formats)


def _make_validator(schema: dict[str, Any]) -> Any:
    """The one place a validator is built: a closed registry, bounded patterns, formats."""
    return _Validator(schema, registry=_REGISTRY, format_checker=_FORMATS)


@lru_cache(maxsize=4096)
def _compiled(schema_json: str) -> Any:
    schema = json.loads(schema_json)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return f"the tool's inputSchema is not a valid JSON Schema: {exc.message}"
    except RecursionError:
        return "the tool's inputSchema nests too deep to check"
    return _make_validator(schema)


def validator_for(schema: dict[str, Any]) -> Any:
    """A compiled validator for schema (cached), or why the schema itself is broken."""
    try:
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    except RecursionError:
        return "the tool's inputSchema nests too deep to check"
    except (TypeError, ValueError) as exc:
        return f"the tool's inputSchema is not JSON: {exc}"
    return _compiled(key)


def schema_problem(schema: Any) -> str | None:
    """Why schema is not a usable JSON Schema, or None."""
    if not isinstance(schema, dict):
        return "the tool's inputSchema is not a JSON object"
    found = validator_for(schema)
    return found if isinstance(found, str) else None


def _pointer(error: ValidationError) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path]
    return "/" + "/".join(parts) if parts else "/"


def args_problem(args: Any) -> str | None:
    """Why args can't be sent at all (too deep, a number JSON can't carry), or None."""
    stack: list[tuple[Any, int]] = [(args, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return f"arguments must be finite numbers, not {item!r} (JSON has no NaN or Infinity)"
        if isinstance(item, (dict, list, tuple)):
            if depth >= MAX_ARGS_DEPTH:
                return f"arguments nest deeper than {MAX_ARGS_DEPTH} levels"
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def validate_args(
    schema: dict[str, Any] | None, args: Any, *, deadline: float | None = None
) -> str | None:
    """Why args do not fit schema (message with a JSON pointer), or None when they do.

    A tool without a schema takes any JSON object. A broken schema is not held against the
    caller: the call goes ahead, and the conformance checker reports the schema. A schema that
    refers outside itself, loops, or has a pattern that can't be decided by ``deadline`` (a
    ``time.monotonic()`` value; default ``PATTERN_BUDGET`` from now) refuses the call.
    """
    if not isinstance(args, dict):
        return f"arguments must be a JSON object, not {_a_json_type(args)}"
    if (problem := args_problem(args)) is not None:
        return problem
    if schema is None or not isinstance(schema, dict):
        return None
    validator = validator_for(schema)
    if isinstance(validator, str):
        return None
    return _first_error(validator, args, deadline)


def _first_error(validator: Any, args: Any, deadline: float | None) -> str | None:
    token = _deadline.set(deadline if deadline is not None else time.monotonic() + PATTERN_BUDGET)
    try:
        error = best_match(validator.iter_errors(args))
    except _Refused as exc:
        return str(exc)
    except Unresolvable as exc:
        refused = _refused_in(exc)
        if refused is not None:
            return refused
        return f"the tool's schema has a $ref that resolves to nothing ({str(exc)[:200]})"
    except RecursionError:
        return "the tool's schema refers to itself in a loop or nests too deep"
    except Exception as exc:  # a hostile schema must not crash the call
        refused = _refused_in(exc)
        if refused is not None:
            return refused
        return f"the tool's schema could not be checked ({type(exc).__name__})"
    finally:
        _deadline.reset(token)
    if error is None:
        return None
    return f"{error.message} (at {_pointer(error)})"


def _refused_in(exc: BaseException) -> str | None:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, _Refused):
            return str(current)
        current = current.__cause__ or current.__context__
    return None


def fits(validator: Any, args: Any, *, deadline: float | None = None) -> bool:
    """Whether args fit a compiled validator (``validator_for``); False also when the check was
    refused or failed (ask ``validate_args`` why). Never raises."""
    token = _deadline.set(deadline if deadline is not None else time.monotonic() + PATTERN_BUDGET)
    try:
        return bool(validator.is_valid(args))
    except (Exception, RecursionError):
        return False
    finally:
        _deadline.reset(token)


def schema_hazard(schema: Any) -> str | None:
    """Why a schema would make calls fail whatever the arguments: a ``$ref`` outside itself, or a
    pattern that backtracks catastrophically on a short probe. None when neither is seen."""
    patterns: list[str] = []
    ids: set[str] = set()
    refs: list[str] = []
    stack: list[tuple[Any, int]] = [(schema, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > 200:
            continue
        if isinstance(item, dict):
            for key, value in item.items():
                if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                    refs.append(value)
                elif key == "$id" and isinstance(value, str):
                    ids.add(value.split("#")[0])
                elif key == "pattern" and isinstance(value, str):
                    patterns.append(value)
                elif key == "patternProperties" and isinstance(value, dict):
                    patterns.extend(k for k in value if isinstance(k, str))
                stack.append((value, depth + 1))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    for ref in refs:
        if not ref.startswith("#") and ref.split("#")[0] not in ids:
            return f"{OUTSIDE} ($ref {ref[:200]!r}); calls are refused"
    for pattern in patterns:
        if _backtracks(pattern):
            return (
                f"the pattern {pattern[:100]!r} backtracks catastrophically (a short input takes "
                "longer than it may); calls that reach it are refused"
            )
    return None


def _backtracks(pattern: str, budget: float = 0.05) -> bool:
    letters = {c for c in pattern if c.isalnum()} or {"a"}
    for ch in sorted(letters)[:8]:
        for probe in (ch * 34 + "!", ch * 34 + "\x00"):
            try:
                regex.search(pattern, probe, timeout=budget)
            except TimeoutError:
                return True
            except Exception:
                return False
    return False


def json_type(value: object) -> str:
    """A value's JSON type as JSON Schema names it (null, boolean, number, string, array,
    object); for a value JSON has no type for, its Python type's name."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


_WITH_ARTICLE: Final = {
    "boolean": "a boolean",
    "number": "a number",
    "string": "a string",
    "array": "an array",
}


def _a_json_type(value: Any) -> str:
    """json_type with its article, as a message says it ("a number", "an array", "null")."""
    kind = json_type(value)
    return _WITH_ARTICLE.get(kind, kind)
