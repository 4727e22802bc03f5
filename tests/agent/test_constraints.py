"""webmcp-evals constraints: what matches, what a smoke run sends, what can't be read."""

from __future__ import annotations

import pytest

from webmcp_harness.agent.script.constraints import NO_SAMPLE, mismatch, problems, sample


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ({"$pattern": "^TW-\\d+$"}, "TW-10042"),
        ({"$pattern": "(?i)^colou?r$"}, "COLOR"),
        ({"$contains": "York"}, "New York"),
        ({"$gte": 1, "$lte": 120}, 120),
        ({"$type": "array"}, []),
        ({"$type": "null"}, None),
        ({"$any": True}, "anything"),
        ({"query": "shoes"}, {"query": "shoes", "page": 2}),  # objects match as a subset
        ({"n": 2}, {"n": 2.0}),
    ],
)
def test_a_value_that_meets_the_constraint_matches(expected: object, actual: object) -> None:
    assert mismatch(expected, actual) is None


@pytest.mark.parametrize(
    ("expected", "actual", "said"),
    [
        ({"$lte": 120}, 121, "$: expected a number ≤ 120, got 121"),
        ({"$type": "number"}, True, "$: expected a number, got true"),
        ([1, 2], [1, 2, 3], "$: expected 2 items, got [1,2,3]"),  # arrays: same length
        ({"a": {"b": True}}, {"a": {"b": 1}}, "$.a.b: expected true, got 1"),
        ({"a": 1}, {"b": 1}, "$: no key 'a'"),
    ],
)
def test_a_value_that_does_not_match_says_where_and_why(
    expected: object, actual: object, said: str
) -> None:
    miss = mismatch(expected, actual)
    assert miss is not None
    assert miss.startswith(said)


def test_a_smoke_run_sends_a_value_that_meets_each_constraint() -> None:
    args = {
        "q": {"$contains": "wool"},
        "max": {"$lt": 10},
        "title": {"$pattern": "^[Jj]acket$"},
        "tags": {"$type": "array"},
    }
    assert sample(args) == {"q": "wool", "max": 9, "title": "Jacket", "tags": []}
    assert sample({"q": {"$any": True}}) is NO_SAMPLE
    assert sample({"code": {"$pattern": "^(a|b)c{2}$"}}) is NO_SAMPLE  # too clever to guess


def test_what_cannot_be_read_is_named_by_its_place() -> None:
    assert problems({"a": [{"$gte": "1"}]}, "args") == ['args.a[0]: $gte takes a number, not "1"']
    assert problems({"$pattern": "("}, "r")[0].startswith("r: $pattern '(' is not a regular")
    assert "sits beside plain keys" in problems({"$any": True, "x": 1}, "r")[0]
