"""The YAML scripted-run format: parsed to dataclasses, bad scripts rejected with the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webmcp_harness.agent.policy import REASONS
from webmcp_harness.agent.script import (
    MISSING,
    ApproveStep,
    CallStep,
    ConfirmStep,
    Expect,
    OpenStep,
    Owner,
    Script,
    ScriptError,
    WaitForToolStep,
    load_script,
    match_expect,
    parse_path,
    resolve_path,
)

FULL = """\
name: Buy a storm shell
owner:
  name: Sam Rivera
  instructions: Buy the Storm Shell Jacket in size M. My email is sam@example.com.
url: http://127.0.0.1:8000
timeout: 20
steps:
  - open: /
  - call:
      tool: search_products
      input: {q: storm, category: apparel}
      expect: {ok: true, path: "$.items[0].id", equals: storm-shell}
  - call: {tool: place_order, expect: {code: unavailable, kind: not_found}}
  - open: {url: "http://127.0.0.1:8000/product?id=storm-shell", timeout: 5}
  - call:
      tool: add_to_cart
      input: {quantity: 1}
      retry: auto
      attempts: 4
      timeout: 3
      expect: {code: needs_user}
  - confirm: add_to_cart
  - wait_for_tool: {tool: place_order, timeout: 5}
  - call:
      tool: place_order
      source: page
      input: {email: sam@example.com, shipping: standard, payment: saved_card}
      expect: {held: ask, reason: "the request came from what you read, not from the owner"}
  - approve: place_order
  - approve: {tool: place_order, input: {shipping: express}}
"""


def test_a_full_script_parses_into_steps_with_their_lines() -> None:
    script = load_script(FULL)
    assert script.name == "Buy a storm shell"
    assert script.owner == Owner(
        "Sam Rivera", "Buy the Storm Shell Jacket in size M. My email is sam@example.com."
    )
    assert script.owner.first_name == "Sam"
    assert script.url == "http://127.0.0.1:8000"
    assert script.timeout == 20.0
    assert [type(s) for s in script.steps] == [
        OpenStep,
        CallStep,
        CallStep,
        OpenStep,
        CallStep,
        ConfirmStep,
        WaitForToolStep,
        CallStep,
        ApproveStep,
        ApproveStep,
    ]
    assert [s.line for s in script.steps] == [8, 9, 13, 14, 15, 22, 23, 24, 29, 30]
    search = script.steps[1]
    assert isinstance(search, CallStep)
    assert search.input == {"q": "storm", "category": "apparel"}
    assert search.source == "owner"
    assert search.retry == "none"
    assert search.attempts == 1
    assert search.expect == Expect(
        ok=True, path=("items", 0, "id"), path_text="$.items[0].id", equals="storm-shell", line=12
    )
    add = script.steps[4]
    assert isinstance(add, CallStep)
    assert (add.retry, add.attempts, add.timeout) == ("auto", 4, 3.0)
    held = script.steps[7]
    assert isinstance(held, CallStep)
    assert held.source == "page"
    assert held.expect is not None
    assert held.expect.held == "ask"
    assert script.steps[8] == ApproveStep("place_order", MISSING, 29)
    assert script.steps[9] == ApproveStep("place_order", {"shipping": "express"}, 30)
    assert script.resolve("/cart") == "http://127.0.0.1:8000/cart"


def test_a_minimal_script_gets_defaults() -> None:
    script = load_script("steps:\n  - open: http://127.0.0.1:1/\n")
    assert script == Script("script", (OpenStep("http://127.0.0.1:1/", None, 2),))
    assert script.owner.first_name == "the owner"
    step = load_script("steps: [{call: {tool: t, retry: auto}}]").steps[0]
    assert isinstance(step, CallStep)
    assert step.input == {}
    assert step.attempts == 3


def test_a_script_is_read_from_a_file_and_named_after_it(tmp_path: Path) -> None:
    path = tmp_path / "shop-run.yaml"
    path.write_text("steps:\n  - open: https://example.com/\n", encoding="utf-8")
    assert load_script(path).name == "shop-run"
    assert load_script(str(path)).source == str(path)


def test_an_unreadable_file_is_a_script_error(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="can't read the script") as info:
        load_script(tmp_path / "missing.yaml")
    assert info.value.line is None
    with pytest.raises(ScriptError, match="can't read"):
        load_script("missing.yml")


def test_the_owner_may_be_just_a_name() -> None:
    script = load_script("owner: Dana Reyes\nsteps: [{open: 'http://x.test/'}]")
    assert script.owner == Owner("Dana Reyes", "")


def test_yaml_is_read_with_json_like_types() -> None:
    script = load_script(
        "steps:\n"
        "  - call:\n"
        "      tool: t\n"
        "      input: {country: NO, answer: yes, on: off, zip: 02134, when: 2026-11-30,\n"
        "              at: 10:30, n: 12, x: 1.5, e: 1e3, h: 0x1F, t: true, f: False, z: null}\n"
    )
    step = script.steps[0]
    assert isinstance(step, CallStep)
    assert step.input == {
        "country": "NO",
        "answer": "yes",
        "on": "off",
        "zip": "02134",
        "when": "2026-11-30",
        "at": "10:30",
        "n": 12,
        "x": 1.5,
        "e": 1000.0,
        "h": 31,
        "t": True,
        "f": False,
        "z": None,
    }


def test_anchors_aliases_and_merges_work() -> None:
    script = load_script(
        "steps:\n"
        "  - call: &order {tool: place_order, input: &base {shipping: standard, payment: saved_card}}\n"
        "  - call: {tool: place_order, input: {<<: *base, shipping: express}}\n"
        "  - call: *order\n"
    )
    inputs = [s.input for s in script.steps if isinstance(s, CallStep)]
    assert inputs == [
        {"shipping": "standard", "payment": "saved_card"},
        {"shipping": "express", "payment": "saved_card"},
        {"shipping": "standard", "payment": "saved_card"},
    ]


def test_a_base_url_stands_in_for_a_missing_url() -> None:
    script = load_script("steps: [{open: /checkout}]", base_url="http://127.0.0.1:9/")
    assert script.resolve("/checkout", "http://127.0.0.1:9/") == "http://127.0.0.1:9/checkout"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "empty"),
        ("- open: x", 1, "the script must be a mapping"),
        ("name: x", 1, "needs 'steps'"),
        ("steps: []", 1, "steps is empty"),
        ("steps: {open: x}", 1, "steps must be a list"),
        ("stesp: []\n", 1, "did you mean 'steps'"),
        ("steps:\n  - open: /x\n", 2, "relative"),
        ("steps:\n  - opne: http://x.test/\n", 2, "unknown key 'opne'"),
        ("steps:\n  - {open: 'http://a.test/', call: {tool: t}}\n", 2, "exactly one"),
        ("steps:\n  - open\n", 2, "a step is a mapping"),
        ("steps:\n  - open: mailto:x@y.z\n", 2, "only http"),
        ("steps:\n  - open: 'http://[x/'\n", 2, "'http://[x/' is not a URL (Invalid IPv6 URL)"),
        ("url: 'http://[x/'\nsteps: [{open: /a}]\n", 1, "absolute http(s) URL, not 'http://[x/'"),
        ("steps:\n  - call: {input: {}}\n", 2, "call needs 'tool'"),
        ("steps:\n  - call: {tool: ''}\n", 2, "must not be empty"),
        ("steps:\n  - call: {tool: ' t'}\n", 2, "spaces"),
        ("steps:\n  - call: {tool: [a]}\n", 2, "must be text"),
        ("steps:\n  - call: {tool: 3}\n", 2, "must be text"),
        ("steps:\n  - call:\n      tool: t\n      inptu: {}\n", 4, "did you mean 'input'"),
        ("steps:\n  - call:\n      tool: t\n      source: agent\n", 4, "owner, page"),
        ("steps:\n  - call:\n      tool: t\n      retry: always\n", 4, "auto, none"),
        ("steps:\n  - call:\n      tool: t\n      attempts: 2\n", 4, "needs retry: auto"),
        ("steps:\n  - call: {tool: t, retry: auto, attempts: 0}\n", 2, "from 1 to 10"),
        ("steps:\n  - call: {tool: t, retry: auto, attempts: true}\n", 2, "from 1 to 10"),
        ("steps:\n  - call: {tool: t, timeout: 0}\n", 2, "seconds"),
        ("steps:\n  - call: {tool: t, timeout: yes}\n", 2, "seconds"),
        ("timeout: -1\nsteps: [{open: 'http://a.test/'}]\n", 1, "seconds"),
        ("steps:\n  - call: {tool: t, input: .inf}\n", 2, "not a JSON number"),
        ("steps:\n  - call: {tool: t, input: !!binary aGk=}\n", 2, "not a JSON value"),
        ("steps:\n  - call: {tool: t, input: !!timestamp 2001-12-14}\n", 2, "not a JSON"),
        ("steps:\n  - call: {tool: t, input: {1: a}}\n", 2, "keys in input must be text"),
        ("steps:\n  - call: {tool: t, input: !!set {a}}\n", 2, "not a JSON value"),
        ("steps:\n  - call: {tool: t, input: !!python/object:os.system {}}\n", 2, "not a JSON"),
        ("steps:\n  - call: {tool: t, input: !!python/name:os.system x}\n", 2, "constructor"),
        ("steps:\n  - call: {tool: t, expect: {}}\n", 2, "expect is empty"),
        ("steps:\n  - call: {tool: t, expect: {code: broken}}\n", 2, "one of cancelled"),
        ("steps:\n  - call: {tool: t, expect: {kind: nope}}\n", 2, "not_connected"),
        ("steps:\n  - call: {tool: t, expect: {ok: 1}}\n", 2, "true or false"),
        ("steps:\n  - call: {tool: t, expect: {ok: true, code: timeout}}\n", 2, "can't go"),
        ("steps:\n  - call: {tool: t, expect: {held: ask, kind: vendor}}\n", 2, "can't go"),
        ("steps:\n  - call: {tool: t, expect: {reason: risky}}\n", 2, "word for word"),
        ("steps:\n  - call: {tool: t, expect: {path: $.a}}\n", 2, "needs equals or contains"),
        ("steps:\n  - call: {tool: t, expect: {path: a.b, equals: 1}}\n", 2, "starts with $"),
        ("steps:\n  - call: {tool: t, expect: {path: '$..a', equals: 1}}\n", 2, "character 2"),
        ("steps:\n  - wait_for_tool: {name: x}\n", 2, "unknown key 'name'"),
        ("steps:\n  - approve: {tool: t, input: .nan}\n", 2, "not a JSON number"),
        ("url: /relative\nsteps: [{open: 'http://a.test/'}]\n", 1, "absolute"),
        ("owner: {instructions: hi}\nsteps: [{open: 'http://a.test/'}]\n", 1, "owner needs 'name'"),
        ("name: a\nname: b\nsteps: [{open: 'http://a.test/'}]\n", 2, "duplicate key 'name'"),
        ("steps: [\n", 2, "bad YAML"),
        ("steps:\n  - open: 'x\n", 3, "bad YAML"),
        ("a: 1\n---\nb: 2\n", 2, "bad YAML"),
        ("steps: [{open: 'http://a.test/'}]\n\x07\n", 2, "bad YAML"),
        ("steps: &a [*a]\n", 1, "a step is a mapping"),
        ("steps:\n  - call: {tool: t, input: &a [*a]}\n", 2, "nested too deeply"),
    ],
)
def test_a_bad_script_is_rejected_with_the_line_and_why(text: str, line: int, message: str) -> None:
    with pytest.raises(ScriptError) as info:
        load_script(text)
    assert info.value.line == line, str(info.value)
    assert message in info.value.message, str(info.value)
    assert str(info.value).startswith(f"line {line}: ")


def test_an_error_in_a_file_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("steps:\n  - call: {tool: t, retry: sometimes}\n", encoding="utf-8")
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert str(info.value).startswith(f"{path}:2: retry must be one of")


def test_a_billion_laughs_is_refused_as_too_large() -> None:
    lines = [
        "steps:",
        "  - call:",
        "      tool: t",
        "      input:",
        "        a: &a [x, x, x, x, x, x, x, x, x, x]",
    ]
    for prev, name in zip("abcdefg", "bcdefgh", strict=True):
        lines.append(f"        {name}: &{name} [{', '.join([f'*{prev}'] * 10)}]")
    with pytest.raises(ScriptError, match="too large") as info:
        load_script("\n".join(lines) + "\n")
    assert info.value.line is not None


def test_a_reason_copied_with_a_typeset_apostrophe_is_accepted() -> None:
    text = 'steps:\n  - call: {tool: t, expect: {reason: "the check couldn\u2019t decide"}}\n'
    step = load_script(text).steps[0]
    assert isinstance(step, CallStep)
    assert step.expect is not None
    assert step.expect.reason == "the check couldn't decide"


def test_bytes_must_be_utf8() -> None:
    assert load_script(b"steps: [{open: 'http://a.test/'}]").name == "script"
    with pytest.raises(ScriptError, match="UTF-8"):
        load_script(b"\xff\xfe")


# -- paths and expectations -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("$", ()),
        ("$.order.id", ("order", "id")),
        ("$.content[0].text", ("content", 0, "text")),
        ("$.items[-1]", ("items", -1)),
        ('$["a b"]["q\\"x"]', ("a b", 'q"x')),
        ("$['it''s']", None),
        ("$.", None),
        ("$[x]", None),
        ("$.a-b_c", ("a-b_c",)),
    ],
)
def test_paths_parse_into_keys_and_indexes(text: str, parts: tuple[Any, ...] | None) -> None:
    if parts is None:
        with pytest.raises(ValueError, match="can't read the path"):
            parse_path(text)
    else:
        assert parse_path(text) == parts


RESULT = {"content": [{"type": "text", "text": '{"order":{"id":"TW-10042","items":[1,2]}}'}]}
STRUCTURED = {
    "content": [{"type": "text", "text": "done"}],
    "structuredContent": {"order": {"id": "TW-1"}},
}


@pytest.mark.parametrize(
    ("answer", "path", "found", "value"),
    [
        (RESULT, "$.order.id", True, "TW-10042"),
        (RESULT, "$.order.items[-1]", True, 2),
        (RESULT, "$.content[0].text.order.id", True, "TW-10042"),
        (RESULT, "$.content[0].type", True, "text"),
        (RESULT, "$.order.missing", False, None),
        (RESULT, "$.order.items[5]", False, None),
        (STRUCTURED, "$.order.id", True, "TW-1"),
        (STRUCTURED, "$.content[0].text", True, "done"),
        ({"error": "not_found", "message": "m"}, "$.error", True, "not_found"),
        ({"content": [{"type": "text", "text": "plain"}]}, "$.x", False, None),
    ],
)
def test_a_path_reads_the_answer_or_the_tools_value(
    answer: Any, path: str, found: bool, value: Any
) -> None:
    assert resolve_path(parse_path(path), answer) == (found, value)


def expect(**kw: Any) -> Expect:
    if "path" in kw:
        kw["path_text"] = kw["path"]
        kw["path"] = parse_path(kw["path"])
    return Expect(**kw)


def test_an_ok_result_meets_ok_true_and_its_value() -> None:
    assert match_expect(expect(ok=True, path="$.order.id", equals="TW-10042"), RESULT) == []
    assert match_expect(expect(contains="TW-10042"), RESULT) == []


def test_a_failure_meets_its_code_and_kind() -> None:
    answer = {"error": "not_found", "message": 'No tool "place_order" on this page right now.'}
    assert (
        match_expect(expect(code="unavailable", kind="not_found"), answer, code="unavailable") == []
    )
    misses = match_expect(expect(ok=True), answer, code="unavailable")
    assert misses == ["expected ok: true, got not_found (unavailable)"]
    assert match_expect(expect(contains="place_order"), answer) == []


def test_a_held_call_meets_held_and_reason() -> None:
    answer = {
        "not_done_yet": f"Check with Sam first: {REASONS[2]}. Ask in your reply, saying what you "
        "would do. Once they say yes, do it again."
    }
    assert match_expect(expect(held="ask", reason=REASONS[2]), answer) == []
    assert match_expect(expect(held="stop"), answer) == [
        f"expected the check to stop, got held (ask): {REASONS[2]}"
    ]


def test_values_compare_as_json() -> None:
    answer = {"content": [{"type": "text", "text": '{"n":2,"flag":true,"list":[1,{"a":null}]}'}]}
    assert match_expect(expect(path="$.n", equals=2.0), answer) == []
    assert match_expect(expect(path="$.flag", equals=1), answer) != []
    assert match_expect(expect(path="$.list", contains={"a": None}), answer) == []
    assert match_expect(expect(path="$.list", contains=[1, 3]), answer) != []
    assert match_expect(expect(path="$.content[0].text", contains={"n": 2}), answer) != []
    assert match_expect(expect(path="$.content[0].text", contains='"n":2'), answer) == []


def test_a_missing_path_is_a_miss_that_shows_the_answer() -> None:
    misses = match_expect(expect(path="$.order.nope", equals=1), RESULT)
    assert len(misses) == 1
    assert misses[0].startswith("nothing at $.order.nope in ")


# -- fuzz -----------------------------------------------------------------------------------
def _no_surprise(text: str) -> None:
    """load_script returns a Script with steps, or raises ScriptError; nothing else."""
    error: ScriptError | None = None
    try:
        script = load_script(text)
    except ScriptError as err:
        error = err
    if error is not None:
        assert error.line is None or error.line >= 1
        assert str(error)
    else:
        assert isinstance(script, Script)
        assert script.steps


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_arbitrary_text_never_raises_anything_but_a_script_error(text: str) -> None:
    _no_surprise(text + "\n")  # ends in a newline so it is never taken for a file name


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=10), c, max_size=4),
    max_leaves=15,
)
words = st.sampled_from(
    [
        "name", "owner", "url", "timeout", "steps", "open", "call", "wait_for_tool", "confirm",
        "approve", "tool", "input", "source", "expect", "retry", "attempts", "ok", "code", "kind",
        "held", "reason", "path", "equals", "contains", "instructions", "auto", "none", "page",
        "$.a[0]", "http://127.0.0.1:1/", "/x", "timeout", "ask", "stop", "not_found",
    ]
)  # fmt: skip
near_scripts = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 12) | st.floats() | words | st.text(max_size=8),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(words, c, max_size=5),
    max_leaves=25,
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(json_like, near_scripts, st.fixed_dictionaries({"steps": near_scripts})))
def test_arbitrary_yaml_never_raises_anything_but_a_script_error(value: Any) -> None:
    for style in (False, True, None):
        _no_surprise(yaml.safe_dump(value, default_flow_style=style, allow_unicode=True))
    _no_surprise(json.dumps(value) + "\n")


def test_the_example_in_the_docs_parses() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "scripts.md").read_text("utf-8")
    example = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    script = load_script(example, base_url="http://127.0.0.1:8000")  # no url: `run` serves the demo
    assert script.owner.first_name == "Sam"
    assert len(script.steps) == 14
