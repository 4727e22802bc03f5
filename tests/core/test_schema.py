"""Schemas are closed worlds: no fetches, no file reads, bounded patterns and $ref loops."""

from __future__ import annotations

import time
from typing import Any

import pytest

from webmcp_harness.core.schema import (
    MAX_ARGS_DEPTH,
    args_problem,
    schema_hazard,
    validate_args,
    validator_for,
)

AAA = "a" * 34 + "!"


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


@pytest.mark.parametrize("ref", ["http://127.0.0.1:9/s.json", "file:///etc/passwd", "other.json"])
def test_a_ref_outside_the_schema_refuses_the_call_without_fetching(ref: str) -> None:
    problem = validate_args(obj(q={"$ref": ref}), {"q": "x"})
    assert problem is not None
    assert "refers outside itself" in problem


def test_a_ref_to_the_schemas_own_id_resolves_inside_it() -> None:
    schema = {
        "$id": "http://example.test/s",
        "$defs": {"s": {"type": "string"}},
        **obj(q={"$ref": "http://example.test/s#/$defs/s"}),
    }
    assert validate_args(schema, {"q": "x"}) is None
    assert validate_args(schema, {"q": 1}) == "1 is not of type 'string' (at /q)"


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        obj(q={"$ref": "#/properties/q"}),
        {
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            **obj(q={"$ref": "#/$defs/a"}),
        },
    ],
)
def test_ref_loops_are_a_message_not_an_exception(schema: dict[str, Any]) -> None:
    problem = validate_args(schema, {"q": "x"})
    assert problem is not None
    assert "loop" in problem


def test_a_dangling_ref_is_a_message() -> None:
    problem = validate_args(obj(q={"$ref": "#/$defs/nope"}), {"q": "x"})
    assert problem is not None
    assert "resolves to nothing" in problem


@pytest.mark.parametrize(
    ("schema", "args"),
    [
        (obj(q={"type": "string", "pattern": "^(a+)+$"}), {"q": AAA}),
        (obj(q={"type": "string", "pattern": "^(a|a)*$"}), {"q": AAA}),
        ({"type": "object", "patternProperties": {"^(a|a)*$": {}}}, {AAA: 1}),
        (
            {
                "type": "object",
                "patternProperties": {"^(a|a)*$": {}},
                "additionalProperties": False,
            },
            {AAA: 1},
        ),
        (
            {
                "type": "object",
                "patternProperties": {"^(a|a)*$": {}},
                "unevaluatedProperties": False,
            },
            {AAA: 1},
        ),
    ],
)
def test_a_backtracking_pattern_ends_by_the_deadline(schema: dict[str, Any], args: Any) -> None:
    started = time.monotonic()
    problem = validate_args(schema, args, deadline=time.monotonic() + 0.5)
    assert time.monotonic() - started < 0.5 + 3.0  # the margin: a machine under load
    assert problem is not None


def test_a_pattern_that_cannot_be_decided_says_so() -> None:
    problem = validate_args(obj(q={"type": "string", "pattern": "^(a|a)*$"}), {"q": AAA})
    assert problem is not None
    assert "could not be decided in time" in problem


def test_patterns_still_match_as_before() -> None:
    schema = obj(q={"type": "string", "pattern": "^[a-z]+$"})
    assert validate_args(schema, {"q": "tea"}) is None
    assert validate_args(schema, {"q": "Tea"}) == "'Tea' does not match '^[a-z]+$' (at /q)"
    closed = {"type": "object", "properties": {"a": {}}, "additionalProperties": False}
    assert validate_args(closed, {"b": 1}) == (
        "Additional properties are not allowed ('b' was unexpected) (at /)"
    )


def test_deep_or_non_finite_arguments_are_refused() -> None:
    deep: dict[str, Any] = {}
    for _ in range(60_000):
        deep = {"a": deep}
    assert args_problem(deep) == f"arguments nest deeper than {MAX_ARGS_DEPTH} levels"
    assert validate_args({}, {"n": float("nan")}) is not None
    assert validate_args({}, {"n": [float("-inf")]}) is not None
    assert args_problem({"n": [1, 2.5, {"x": None}]}) is None


def test_a_schema_too_deep_to_check_is_a_message() -> None:
    deep: dict[str, Any] = {}
    for _ in range(10_000):
        deep = {"items": deep}
    assert isinstance(validator_for(deep), str)


@pytest.mark.parametrize(
    ("schema", "word"),
    [
        (obj(q={"$ref": "http://evil.example/s.json"}), "outside itself"),
        (obj(q={"type": "string", "pattern": "^(a|a)*$"}), "backtracks"),
        ({"type": "object", "patternProperties": {"^(x|x)*$": {}}}, "backtracks"),
    ],
)
def test_schema_hazard_names_what_check_reports(schema: dict[str, Any], word: str) -> None:
    hazard = schema_hazard(schema)
    assert hazard is not None
    assert word in hazard


def test_a_safe_schema_has_no_hazard() -> None:
    schema = {
        "$defs": {"s": {"type": "string", "pattern": "^[a-z]+$"}},
        **obj(q={"$ref": "#/$defs/s"}),
    }
    assert schema_hazard(schema) is None
