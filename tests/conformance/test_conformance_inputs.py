"""Generated input: valid input validates, invalid input does not, deterministically and in time."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from webmcp_harness.conformance.inputs import invalid_input, invalid_inputs, valid_input


def valid(schema: Any, value: Any) -> bool:
    return bool(Draft202012Validator(schema).is_valid(value))


RICH = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "minLength": 3, "maxLength": 5},
        "n": {"type": "integer", "minimum": 1, "maximum": 12, "multipleOf": 3},
        "x": {"type": "number", "multipleOf": 0.1, "minimum": 0.25, "maximum": 0.5},
        "open": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "size": {"enum": ["s", "m"]},
        "kind": {"const": "book"},
        "day": {"type": "string", "format": "date"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{2}$"},
        "zip": {"type": "string", "pattern": "^\\d{5}(-\\d{4})?$"},
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 2,
            "uniqueItems": True,
        },
        "flag": {"type": "boolean"},
        "maybe": {"type": ["null", "integer"]},
        "where": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
    "required": ["q", "n", "x", "open", "size", "kind", "day", "code", "zip", "tags", "flag"],
    "additionalProperties": False,
}

COMBINED = {
    "type": "object",
    "$defs": {"B": {"type": "object", "properties": {"z": {"const": 7}}, "required": ["z"]}},
    "properties": {
        "a": {"anyOf": [{"type": "integer", "minimum": 10}, {"type": "null"}]},
        "b": {"$ref": "#/$defs/B"},
        "c": {"allOf": [{"type": "string"}, {"minLength": 4}]},
        "d": {"oneOf": [{"type": "string", "maxLength": 2}, {"type": "string", "minLength": 3}]},
        "e": {"type": "string", "not": {"enum": ["example", "test", "sample", "hello"]}},
        "f": {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "minItems": 2,
        },
    },
    "required": ["a", "b", "c", "d", "e", "f"],
    "dependentRequired": {"a": ["g"]},
}

# What Chromium synthesises for a declarative form (see design/chromium-webmcp.md).
DECLARATIVE = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Your name"},
        "party": {"type": "number", "minimum": 1, "maximum": 12, "multipleOf": 1},
        "date": {"type": "string", "format": "date"},
        "time": {
            "type": "string",
            "anyOf": [
                {"type": "string", "const": "", "title": "Choose"},
                {"type": "string", "const": "18:00", "title": "6 pm"},
            ],
            "enum": ["", "18:00"],
        },
        "color": {"type": "string", "format": "^#[0-9a-zA-Z]{6}$"},
        "seats": {
            "type": "array",
            "items": {"type": "string", "enum": ["in", "out"]},
            "uniqueItems": True,
        },
    },
    "required": ["name", "date", "time"],
}


@pytest.mark.parametrize("schema", [RICH, COMBINED, DECLARATIVE], ids=["rich", "combined", "form"])
@pytest.mark.parametrize("optional", [False, True])
def test_generated_input_validates(schema: dict[str, Any], optional: bool) -> None:
    value = valid_input(schema, seed=1, optional=optional)
    assert value is not None
    assert valid(schema, value), value


def test_generated_input_is_deterministic_for_a_seed() -> None:
    assert valid_input(RICH, seed=3) == valid_input(RICH, seed=3)
    assert invalid_inputs(RICH, seed=3) == invalid_inputs(RICH, seed=3)


def test_required_keys_only_unless_optional_ones_are_asked_for() -> None:
    assert set(valid_input(DECLARATIVE) or {}) == {"name", "date", "time"}
    assert set(valid_input(DECLARATIVE, optional=True) or {}) == set(DECLARATIVE["properties"])


def test_choices_prefer_a_real_option_to_an_empty_placeholder() -> None:
    assert (valid_input(DECLARATIVE) or {})["time"] == "18:00"


def test_formats_get_realistic_values() -> None:
    value = valid_input(DECLARATIVE, optional=True) or {}
    assert value["date"] == "2025-01-15"
    assert value["color"].startswith("#")
    assert len(value["color"]) == 7


def test_a_tool_without_a_schema_takes_an_empty_object() -> None:
    assert valid_input(None) == {}
    assert valid_input({"type": "object"}) == {}


@pytest.mark.parametrize(
    "schema",
    [
        {
            "type": "object",
            "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 4}},
            "required": ["a"],
        },
        {"type": "object", "properties": {"a": False}, "required": ["a"]},
        {"type": "string"},
        {"type": "object", "properties": {"a": {"type": "strin"}}},
        {
            "type": "object",
            "properties": {"a": {"$ref": "https://example.com/s.json"}},
            "required": ["a"],
        },
        "not a schema",
    ],
)
def test_impossible_or_broken_schemas_give_none(schema: Any) -> None:
    assert valid_input(schema, budget=0.5) is None


def test_generation_stays_within_its_budget() -> None:
    # Every string must both match and not match: no value exists, and the search must stop.
    schema = {
        "type": "object",
        "properties": {
            f"p{i}": {"type": "string", "pattern": "^a+$", "not": {"pattern": "a"}}
            for i in range(50)
        },
        "required": [f"p{i}" for i in range(50)],
    }
    started = time.monotonic()
    assert valid_input(schema, budget=0.5) is None
    assert invalid_inputs(schema, budget=0.5) == []
    assert time.monotonic() - started < 5.0


def test_a_deeply_recursive_schema_fails_soft() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"next": {"$ref": "#/$defs/node"}},
                "required": ["next"],
            }
        },
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "required": ["root"],
    }
    assert valid_input(schema, budget=0.5) is None


@pytest.mark.parametrize("schema", [RICH, COMBINED, DECLARATIVE], ids=["rich", "combined", "form"])
def test_every_invalid_input_is_rejected_by_the_schema(schema: dict[str, Any]) -> None:
    found = invalid_inputs(schema, seed=2)
    assert found
    for bad in found:
        assert not valid(schema, bad.value), bad
        assert isinstance(bad.value, dict)


def test_invalid_inputs_cover_each_kind_of_rule() -> None:
    kinds = {bad.kind for bad in invalid_inputs(RICH, limit=20)}
    assert {
        "missing-required",
        "wrong-type",
        "too-long",
        "too-short",
        "below-minimum",
        "above-maximum",
        "not-multiple",
        "not-in-enum",
        "not-const",
        "pattern",
        "extra-property",
    } <= kinds


def test_the_first_invalid_input_leaves_out_a_required_key() -> None:
    bad = invalid_input(RICH)
    assert bad is not None
    assert bad.kind == "missing-required"
    assert bad.pointer == "/q"
    assert "q" not in bad.value


def test_a_schema_that_accepts_any_object_has_no_invalid_input() -> None:
    assert invalid_input({"type": "object"}) is None
    assert invalid_input(None) is None


def test_a_schema_with_only_optional_typed_properties_still_gets_a_wrong_type() -> None:
    bad = invalid_input({"type": "object", "properties": {"q": {"type": "string"}}})
    assert bad is not None
    assert bad.kind == "wrong-type"
    assert bad.value == {"q": 12345}


# Simple schemas drawn by Hypothesis: whatever is generated must validate.
_leaf = st.one_of(
    st.builds(
        lambda lo, span, m: {"type": "integer", "minimum": lo, "maximum": lo + span, **m},
        st.integers(-1000, 1000),
        st.integers(0, 50),
        st.sampled_from([{}, {"multipleOf": 1}]),
    ),
    st.builds(
        lambda lo, span: {"type": "number", "minimum": lo, "maximum": lo + span},
        st.floats(-1e6, 1e6, allow_nan=False),
        st.floats(0.01, 100, allow_nan=False),
    ),
    st.builds(
        lambda lo, span: {"type": "string", "minLength": lo, "maxLength": lo + span},
        st.integers(0, 20),
        st.integers(0, 20),
    ),
    st.lists(st.text(max_size=5), min_size=1, max_size=4, unique=True).map(
        lambda values: {"enum": values}
    ),
    st.just({"type": "boolean"}),
    st.sampled_from(
        [
            {"type": "string", "pattern": "^[a-z]{2,4}[0-9]?$"},
            {"type": "string", "format": "email"},
            {"type": "string", "pattern": "^(yes|no)$"},
            {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
        ]
    ),
)
_objects = st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), _leaf, max_size=6).flatmap(
    lambda props: st.builds(
        lambda required: {"type": "object", "properties": props, "required": required},
        st.lists(st.sampled_from(sorted(props)), unique=True) if props else st.just([]),
    )
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_objects)
def test_any_simple_schema_gets_valid_input_and_rejected_invalid_input(
    schema: dict[str, Any],
) -> None:
    value = valid_input(schema, budget=2.0, optional=True)
    assert value is not None, schema
    assert valid(schema, value), (schema, value)
    for bad in invalid_inputs(schema, budget=2.0):
        assert not valid(schema, bad.value), (schema, bad)


@pytest.mark.parametrize(
    "pattern",
    [
        "^(?=.*[0-9])(?=.*[A-Z])[A-Za-z0-9]{8,}$",
        "^[^@]+@[^@]+\\.[a-z]{2,}$",
        "^(\\w+)-\\1$",
        "colou?r",
        "^\\s*\\S+\\s*$",
    ],
)
def test_patterns_get_matching_strings_quickly(pattern: str) -> None:
    schema = {
        "type": "object",
        "properties": {"p": {"type": "string", "pattern": pattern}},
        "required": ["p"],
    }
    started = time.monotonic()
    value = valid_input(schema)
    assert time.monotonic() - started < 2.0
    assert value is not None
    assert valid(schema, value), value


def test_a_pattern_no_string_can_match_within_limits_gives_none_quickly() -> None:
    schema = {
        "type": "object",
        "properties": {"p": {"type": "string", "pattern": "^a{3}$", "maxLength": 2}},
        "required": ["p"],
    }
    started = time.monotonic()
    assert valid_input(schema) is None
    assert time.monotonic() - started < 2.0
