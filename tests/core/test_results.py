"""Result coding: the shared vectors, the decisions where the seeds are silent, and properties."""

from __future__ import annotations

import asyncio
import builtins
import concurrent.futures
import json
import math
import pickle
import random
import re
import shutil
import struct
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmcp_harness import (
    RETRYABLE,
    Error,
    ToolErrorCode,
    WebToolError,
    error_result,
    error_text,
    is_abort_error,
    is_error_text,
    to_tool_result,
    tool_error,
    tool_error_code,
)
from webmcp_harness import __all__ as package_all
from webmcp_harness.core.errors import (
    BrowserNotFoundError,
    SessionClosedError,
    UsageError,
    WebMCPUnavailableError,
)
from webmcp_harness.core.js_json import to_json
from webmcp_harness.core.results import code_of

VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "coding-rules.json"
CODES = [member.value for member in ToolErrorCode]


# --- the shared vectors ----------------------------------------------------------------------


def _slug(text: object, limit: int = 40) -> str:
    words = re.sub(r"[^A-Za-z0-9_]+", "_", str(text)).strip("_")
    return words[:limit] or "empty"


def _vectors(section: str, make_id: Callable[[dict[str, Any]], str]) -> list[Any]:
    """One param per case of a section, or one skipped param when ../shared is absent."""
    if not VECTORS.is_file():
        reason = f"shared vectors not found at {VECTORS}"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="vectors-absent")]
    cases = json.loads(VECTORS.read_text(encoding="utf-8"))[section]
    if isinstance(cases, dict):
        cases = [{"code": code, "expect": value} for code, value in cases.items()]
    return [pytest.param(case, id=f"{index}-{make_id(case)}") for index, case in enumerate(cases)]


def _first_text(result: Any) -> str:
    if not isinstance(result, dict) or not result.get("content"):
        return "no text" if result is not None else "null result"
    return str(result["content"][0].get("text", ""))


@pytest.mark.parametrize("case", _vectors("retryable", lambda c: c["code"]))
def test_retryable_matches_the_vectors_for_each_code(case: dict[str, Any]) -> None:
    assert RETRYABLE[case["code"]] is case["expect"]


@pytest.mark.parametrize(
    "case", _vectors("tool_error", lambda c: f"{c['code']}-{_slug(c['message'])}")
)
def test_tool_error_makes_the_vector_result(case: dict[str, Any]) -> None:
    assert tool_error(case["code"], case["message"]) == case["expect"]
    assert tool_error(ToolErrorCode(case["code"]), case["message"]) == case["expect"]


@pytest.mark.parametrize(
    "case",
    _vectors("tool_error_code", lambda c: f"{c['expect']}-from-{_slug(_first_text(c['result']))}"),
)
def test_tool_error_code_reads_the_vector_code(case: dict[str, Any]) -> None:
    assert tool_error_code(case["result"]) == case["expect"]


@pytest.mark.parametrize(
    "case", _vectors("is_error_text", lambda c: f"{c['expect']}-{_slug(c['text'])}")
)
def test_is_error_text_agrees_with_the_vectors(case: dict[str, Any]) -> None:
    assert is_error_text(case["text"]) is case["expect"]


@pytest.mark.parametrize(
    "case", _vectors("to_tool_result", lambda c: f"{type(c['value']).__name__}-{_slug(c['value'])}")
)
def test_to_tool_result_makes_the_vector_result(case: dict[str, Any]) -> None:
    assert to_tool_result(case["value"]) == case["expect"]


def _raise(spec: dict[str, Any]) -> BaseException:
    if spec["type"] == "WebToolError":
        raise WebToolError(spec["code"], spec["message"])
    raise getattr(builtins, spec["type"])(spec["message"])


@pytest.mark.parametrize(
    "case",
    _vectors(
        "error_result",
        lambda c: (
            f"{c['raise']['type']}-{c['raise'].get('code', '')}-as-{c.get('code', 'default')}"
        ),
    ),
)
def test_error_result_codes_what_was_raised_as_the_vectors_say(case: dict[str, Any]) -> None:
    with pytest.raises(BaseException) as caught:  # noqa: PT011 - the vector says what it raises
        _raise(case["raise"])
    args = (caught.value,) if "code" not in case else (caught.value, case["code"])
    assert error_result(*args) == case["expect"]


# --- the codes and RETRYABLE -------------------------------------------------------------------


def test_there_are_exactly_the_seven_codes_of_the_seed() -> None:
    assert CODES == [
        "cancelled",
        "interrupted",
        "timeout",
        "unavailable",
        "invalid_input",
        "needs_user",
        "failed",
    ]


def test_a_code_is_its_plain_string_in_str_fstrings_and_json() -> None:
    code = ToolErrorCode.INVALID_INPUT
    assert code == "invalid_input"
    assert str(code) == "invalid_input"
    assert f"{code}" == "invalid_input"
    assert f"[{code:>14}]" == "[ invalid_input]"
    assert json.dumps({"code": code}) == '{"code": "invalid_input"}'


def test_retryable_cannot_be_changed() -> None:
    with pytest.raises(TypeError):
        RETRYABLE["failed"] = True  # type: ignore[index]
    with pytest.raises(TypeError):
        del RETRYABLE["failed"]  # type: ignore[attr-defined]


def test_retryable_is_keyed_by_plain_strings_and_answers_members_too() -> None:
    assert sorted(RETRYABLE) == sorted(CODES)
    assert all(type(key) is str for key in RETRYABLE)
    assert RETRYABLE[ToolErrorCode.TIMEOUT] is True
    assert RETRYABLE[ToolErrorCode.NEEDS_USER] is False


# --- tool_error ----------------------------------------------------------------------------------


def test_tool_error_puts_a_plain_string_code_on_the_wire() -> None:
    result = tool_error(ToolErrorCode.FAILED, "x")
    assert type(result["structuredContent"]["error"]["code"]) is str
    assert json.dumps(result, separators=(",", ":")) == (
        '{"content":[{"type":"text","text":"Error [failed]: x"}],"isError":true,'
        '"structuredContent":{"error":{"code":"failed","retryable":false}}}'
    )


@pytest.mark.parametrize(
    ("message", "text"),
    [
        pytest.param("Error: disk full", "disk full", id="plain-error-prefix"),
        pytest.param("Error [bogus]: x", "x", id="unknown-code-prefix"),
        pytest.param("Error [needs_user]: x", "x", id="other-known-code-prefix"),
        pytest.param("Error []: x", "x", id="empty-code-prefix"),
        pytest.param("Error:x", "x", id="no-space-after-colon"),
        pytest.param("Error:\n  at stack", "at stack", id="whitespace-after-colon"),
        pytest.param("Error: Error: twice", "Error: twice", id="strips-only-once"),
        pytest.param("error: lower", "error: lower", id="case-sensitive"),
        pytest.param(" Error: spaced", " Error: spaced", id="only-at-the-very-start"),
        pytest.param("Errors: many", "Errors: many", id="not-a-longer-word"),
        pytest.param("Error [timeout] x", "Error [timeout] x", id="needs-the-colon"),
        pytest.param("An Error: inside", "An Error: inside", id="not-in-the-middle"),
        pytest.param("", "", id="empty-message"),
    ],
)
def test_tool_error_strips_one_leading_error_prefix(message: str, text: str) -> None:
    assert tool_error("failed", message)["content"] == [
        {"type": "text", "text": f"Error [failed]: {text}"}
    ]


def test_tool_error_refuses_an_unknown_code() -> None:
    with pytest.raises(ValueError, match="Unknown tool error code 'bogus'"):
        tool_error("bogus", "x")
    with pytest.raises(ValueError, match="expected one of"):
        tool_error(3, "x")  # type: ignore[arg-type]


def test_tool_error_refuses_a_message_that_is_not_text() -> None:
    with pytest.raises(TypeError, match="message must be a str"):
        tool_error("failed", None)  # type: ignore[arg-type]


# --- tool_error_code -----------------------------------------------------------------------------


def _text(text: Any) -> dict[str, Any]:
    return {"type": "text", "text": text}


@pytest.mark.parametrize(
    ("result", "expect"),
    [
        pytest.param(
            {"content": [_text("Error [timeout]: x")], "structuredContent": {"error": {"code": 7}}},
            "timeout",
            id="unknown-structured-code-falls-back-to-text",
        ),
        pytest.param(
            {
                "content": [
                    {"type": "image", "data": "", "mimeType": "image/png"},
                    _text("Error [failed]: x"),
                ]
            },
            "failed",
            id="first-text-item-after-an-image",
        ),
        pytest.param(
            {"content": [_text("fine"), _text("Error [failed]: x")]},
            None,
            id="only-the-first-text-item-counts",
        ),
        pytest.param({"content": [_text(42)]}, None, id="text-that-is-not-a-string"),
        pytest.param({"content": "Error [failed]: x"}, None, id="content-that-is-not-a-list"),
        pytest.param({"content": (_text("Error [failed]: x"),)}, "failed", id="content-tuple"),
        pytest.param(
            {"content": [_text("Error [Failed]: x")]}, None, id="codes-are-case-sensitive"
        ),
        pytest.param({"content": [_text("Error [ failed ]: x")]}, None, id="no-spaces-in-the-code"),
        pytest.param({"content": [_text(" Error [failed]: x")]}, None, id="prefix-at-the-start"),
        pytest.param(
            {"structuredContent": {"error": {"code": "needs_user"}}},
            "needs_user",
            id="structured-only",
        ),
        pytest.param(
            {"structuredContent": {"error": "failed"}}, None, id="error-that-is-not-a-dict"
        ),
        pytest.param({"structuredContent": []}, None, id="structured-that-is-not-a-dict"),
        pytest.param("Error [timeout]: x", None, id="a-bare-string-is-not-a-result"),
        pytest.param([_text("Error [timeout]: x")], None, id="a-bare-list-is-not-a-result"),
        pytest.param(0, None, id="a-number"),
    ],
)
def test_tool_error_code_reads_known_codes_only_from_the_documented_places(
    result: Any, expect: str | None
) -> None:
    assert tool_error_code(result) == expect


def test_tool_error_code_returns_a_member() -> None:
    code = tool_error_code(tool_error("timeout", "x"))
    assert code is ToolErrorCode.TIMEOUT


class _Hostile:
    """An object every operation on which raises."""

    def __getattribute__(self, name: str) -> Any:
        if name in {"__class__", "__dict__"}:
            return object.__getattribute__(self, name)
        raise RuntimeError(f"no {name}")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no ==")

    def __hash__(self) -> int:
        raise RuntimeError("no hash")

    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class _HostileMapping(Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("no item")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("no iter")

    def __len__(self) -> int:
        raise RuntimeError("no len")


class _HostileStr(str):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no ==")

    def __hash__(self) -> int:
        raise RuntimeError("no hash")


_HOSTILE_VALUES: list[Any] = [
    _Hostile(),
    _HostileMapping(),
    _HostileStr("text"),
    {"content": [_Hostile()]},
    {"content": [{"type": _HostileStr("text"), "text": "Error [failed]: x"}]},
    {"content": [{"type": "text", "text": _HostileStr("Error [failed]: x")}]},
    {"content": _HostileMapping()},
    {"structuredContent": {"error": {"code": _Hostile()}}},
    {"structuredContent": {"error": _HostileMapping()}},
    {"structuredContent": _HostileMapping()},
    object(),
    object,
    b"Error [failed]: x",
    {1, 2},
    float("nan"),
    Ellipsis,
    NotImplemented,
]


@pytest.mark.parametrize("value", _HOSTILE_VALUES, ids=lambda v: type(v).__name__)
def test_tool_error_code_never_raises_even_on_hostile_objects(value: Any) -> None:
    assert tool_error_code(value) in {None, ToolErrorCode.FAILED}


@pytest.mark.parametrize("value", _HOSTILE_VALUES, ids=lambda v: type(v).__name__)
def test_the_readers_never_raise_on_hostile_objects(value: Any) -> None:
    assert is_error_text(value) in {True, False}
    assert is_abort_error(value) in {True, False}
    assert isinstance(error_text(value), str)


# --- is_error_text -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        pytest.param("Error [bogus]: x", True, id="unknown-code-counts"),
        pytest.param("Error []: x", True, id="empty-code-counts"),
        pytest.param("Error:", True, id="bare-prefix"),
        pytest.param("Error:x", True, id="no-space"),
        pytest.param("Error", False, id="no-colon"),
        pytest.param("Errors: x", False, id="longer-word"),
        pytest.param("error: x", False, id="lower-case"),
        pytest.param(" Error: x", False, id="leading-space"),
        pytest.param("Error [timeout] x", False, id="code-without-colon"),
        pytest.param("Error  [timeout]: x", False, id="two-spaces"),
        pytest.param("Error [a\nb]: x", False, id="code-across-lines"),
        pytest.param(None, False, id="none"),
        pytest.param(["Error: x"], False, id="list"),
    ],
)
def test_is_error_text_follows_the_seed_literally(text: Any, expect: bool) -> None:
    assert is_error_text(text) is expect


def test_unknown_coded_text_is_failure_text_without_a_code() -> None:
    result = {"content": [_text("Error [bogus]: x")]}
    assert is_error_text(result["content"][0]["text"]) is True
    assert tool_error_code(result) is None


# --- error_text ----------------------------------------------------------------------------------


class _WithMessage(Exception):
    def __init__(self) -> None:
        super().__init__("args text")
        self.message = "the message"


class _AbortLike(Exception):
    name = "AbortError"


@pytest.mark.parametrize(
    ("err", "text"),
    [
        pytest.param(ValueError("boom"), "boom", id="exception"),
        pytest.param(WebToolError("timeout", "slow"), "slow", id="web-tool-error"),
        pytest.param(_WithMessage(), "the message", id="message-attribute-wins"),
        pytest.param(TimeoutError(), "TimeoutError", id="empty-exception-gives-its-class"),
        pytest.param(asyncio.CancelledError(), "CancelledError", id="cancelled-error"),
        pytest.param(KeyError("k"), "'k'", id="key-error-as-python-writes-it"),
        pytest.param(SessionClosedError(), "The session is closed.", id="harness-error"),
        pytest.param(
            {"name": "TypeError", "message": "x is null"}, "x is null", id="js-error-object"
        ),
        pytest.param(
            {"name": "AbortError", "message": ""}, "AbortError", id="js-error-without-message"
        ),
        pytest.param(
            {"reason": "gone", "n": 1.0}, '{"reason":"gone","n":1}', id="other-mapping-as-json"
        ),
        pytest.param({"x": {1, 2}}, "{'x': {1, 2}}", id="unserialisable-mapping-as-str"),
        pytest.param("plain", "plain", id="string"),
        pytest.param(42, "42", id="number"),
        pytest.param(None, "None", id="none"),
        pytest.param(_Hostile(), "_Hostile", id="object-whose-str-raises"),
    ],
)
def test_error_text_gives_the_message_of_what_was_thrown(err: Any, text: str) -> None:
    assert error_text(err) == text


# --- error_result --------------------------------------------------------------------------------


def test_error_result_codes_a_plain_exception_as_failed_by_default() -> None:
    assert tool_error_code(error_result(RuntimeError("x"))) == "failed"


def test_error_result_uses_the_given_code_for_other_errors() -> None:
    result = error_result(RuntimeError("Error: slow"), ToolErrorCode.TIMEOUT)
    assert result["content"][0]["text"] == "Error [timeout]: slow"


def test_error_result_keeps_the_given_code_over_coded_text_in_a_plain_error() -> None:
    result = error_result(RuntimeError("Error [timeout]: slow"))
    assert result["content"][0]["text"] == "Error [failed]: slow"


def test_error_result_takes_the_code_of_a_js_web_tool_error_that_crossed_as_data() -> None:
    err = {"name": "WebToolError", "code": "needs_user", "message": "Ask which size."}
    assert error_result(err, "timeout") == tool_error("needs_user", "Ask which size.")


def test_error_result_ignores_an_unknown_code_on_a_js_web_tool_error() -> None:
    err = {"name": "WebToolError", "code": "bogus", "message": "x"}
    assert tool_error_code(error_result(err, "timeout")) == "timeout"


def test_error_result_only_trusts_a_code_that_comes_with_the_web_tool_error_name() -> None:
    err = {"name": "TypeError", "code": "needs_user", "message": "x"}
    assert tool_error_code(error_result(err)) == "failed"


def test_error_result_refuses_an_unknown_fallback_code() -> None:
    with pytest.raises(ValueError, match="bogus"):
        error_result(RuntimeError("x"), "bogus")


def test_error_result_gives_a_readable_message_for_an_empty_exception() -> None:
    assert error_result(TimeoutError())["content"][0]["text"] == "Error [failed]: TimeoutError"


# --- is_abort_error ------------------------------------------------------------------------------


class _Named:
    def __init__(self, name: object) -> None:
        self.name = name


@pytest.mark.parametrize(
    ("err", "expect"),
    [
        pytest.param(asyncio.CancelledError(), True, id="asyncio-cancelled"),
        pytest.param(concurrent.futures.CancelledError(), True, id="futures-cancelled"),
        pytest.param(_AbortLike("stop"), True, id="exception-named-abort-error"),
        pytest.param(_Named("AbortError"), True, id="object-named-abort-error"),
        pytest.param({"name": "AbortError", "message": "x"}, True, id="js-abort-error-object"),
        pytest.param(_Named("abortError"), False, id="name-is-case-sensitive"),
        pytest.param(_Named(None), False, id="name-that-is-not-a-string"),
        pytest.param(TimeoutError(), False, id="timeout"),
        pytest.param(ValueError("AbortError"), False, id="message-is-not-name"),
        pytest.param({"message": "AbortError"}, False, id="mapping-without-name"),
        pytest.param("AbortError", False, id="a-string"),
        pytest.param(None, False, id="none"),
    ],
)
def test_is_abort_error_tells_cancellation_from_failure(err: Any, expect: bool) -> None:
    assert is_abort_error(err) is expect


# --- to_tool_result ------------------------------------------------------------------------------


def test_to_tool_result_passes_a_result_through_as_the_same_object() -> None:
    result = {"content": [_text("hi")], "isError": True, "extra": 1}
    assert to_tool_result(result) is result


def test_to_tool_result_copies_a_non_dict_mapping_with_content() -> None:
    from types import MappingProxyType

    result: Mapping[str, Any] = MappingProxyType({"content": []})
    assert to_tool_result(result) == {"content": []}


def test_to_tool_result_writes_a_dict_whose_content_is_not_a_list_as_json() -> None:
    assert to_tool_result({"content": "hi"}) == {"content": [_text('{"content":"hi"}')]}


def test_to_tool_result_writes_a_str_enum_as_its_value() -> None:
    assert to_tool_result(ToolErrorCode.FAILED) == {"content": [_text("failed")]}
    assert type(to_tool_result(ToolErrorCode.FAILED)["content"][0]["text"]) is str


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param(True, "true", id="true"),
        pytest.param(False, "false", id="false"),
        pytest.param(0, "0", id="zero"),
        pytest.param(1.0, "1", id="integral-float"),
        pytest.param(-0.0, "0", id="negative-zero"),
        pytest.param(2.5, "2.5", id="float"),
        pytest.param(0.1 + 0.2, "0.30000000000000004", id="shortest-round-trip"),
        pytest.param(1e21, "1e+21", id="big-float-exponent"),
        pytest.param(1e20, "100000000000000000000", id="big-float-digits"),
        pytest.param(1e16, "10000000000000000", id="python-would-say-1e16"),
        pytest.param(1.5e300, "1.5e+300", id="huge-float"),
        pytest.param(1e-6, "0.000001", id="small-float-digits"),
        pytest.param(1e-7, "1e-7", id="small-float-exponent"),
        pytest.param(-1.25e-9, "-1.25e-9", id="negative-small-float"),
        pytest.param(5e-324, "5e-324", id="smallest-float"),
        pytest.param(float("nan"), "null", id="nan"),
        pytest.param(float("inf"), "null", id="infinity"),
        pytest.param([float("-inf"), 1.0], "[null,1]", id="floats-in-a-list"),
        pytest.param(2**64, "18446744073709551616", id="big-int-exactly"),
        pytest.param((1, "a", None), '[1,"a",null]', id="tuple-as-array"),
        pytest.param([], "[]", id="empty-list"),
        pytest.param({}, "{}", id="empty-dict"),
        pytest.param({"a": None}, '{"a":null}', id="none-inside-is-null"),
        pytest.param(
            {"b": 1, "2": 2, "a": 3, "1": 4}, '{"1":4,"2":2,"b":1,"a":3}', id="index-keys-first"
        ),
        pytest.param(
            {"01": 1, "-1": 2, "4294967295": 3},
            '{"01":1,"-1":2,"4294967295":3}',
            id="not-index-keys",
        ),
        pytest.param(
            {1: "a", 2.0: "b", False: "c", None: "d"},
            '{"1":"a","2":"b","false":"c","null":"d"}',
            id="non-str-keys",
        ),
        pytest.param({1: "a", "1": "b"}, '{"1":"b"}', id="repeated-key-last-value"),
        pytest.param({"é": "ü ✓"}, '{"é":"ü ✓"}', id="non-ascii-raw"),
        pytest.param("x", "x", id="string-is-text-not-json"),
        pytest.param(
            ['\x00\x1f"\\\n\t\u2028'], '["\\u0000\\u001f\\"\\\\\\n\\t\u2028"]', id="escapes"
        ),
        pytest.param(["\ud83d\ude00"], '["\U0001f600"]', id="surrogate-pair-as-one-char"),
        pytest.param(["a\ud800b\udfff"], '["a\\ud800b\\udfff"]', id="lone-surrogates-escaped"),
        pytest.param([ToolErrorCode.TIMEOUT], '["timeout"]', id="enum-in-a-list"),
    ],
)
def test_to_tool_result_writes_json_as_json_stringify_does(value: Any, text: str) -> None:
    assert to_tool_result(value) == {"content": [_text(text)]}


def test_to_tool_result_refuses_what_json_cannot_carry() -> None:
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        to_tool_result({"tags": {"a"}})
    with pytest.raises(TypeError, match="Keys must be"):
        to_tool_result({(1, 2): "x"})


def test_to_tool_result_refuses_a_cycle() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        to_tool_result(loop)


def test_to_tool_result_allows_the_same_value_twice_without_a_cycle() -> None:
    shared = {"a": 1}
    assert to_tool_result([shared, shared])["content"][0]["text"] == '[{"a":1},{"a":1}]'


# --- errors --------------------------------------------------------------------------------------


def test_web_tool_error_carries_its_code_and_message() -> None:
    err = WebToolError("invalid_input", "Empty id")
    assert err.code is ToolErrorCode.INVALID_INPUT
    assert err.message == "Empty id"
    assert str(err) == "Empty id"
    assert err.name == "WebToolError"
    assert repr(err) == "WebToolError('invalid_input', 'Empty id')"


def test_web_tool_error_refuses_an_unknown_code() -> None:
    with pytest.raises(ValueError, match="Unknown tool error code"):
        WebToolError("bogus", "x")


def test_errors_survive_pickling() -> None:
    err = pickle.loads(pickle.dumps(WebToolError("timeout", "slow")))
    assert (err.code, err.message) == (ToolErrorCode.TIMEOUT, "slow")
    closed = pickle.loads(pickle.dumps(SessionClosedError("gone")))
    assert (type(closed), closed.message) == (SessionClosedError, "gone")


@pytest.mark.parametrize(
    "cls", [SessionClosedError, BrowserNotFoundError, WebMCPUnavailableError, UsageError]
)
def test_the_harness_errors_share_one_root_with_a_message(cls: type[Error]) -> None:
    err = cls("what went wrong")
    assert isinstance(err, Error)
    assert (err.message, str(err)) == ("what went wrong", "what went wrong")
    assert cls().message == cls.default_message


def test_a_web_tool_error_is_not_a_harness_error() -> None:
    assert not issubclass(WebToolError, Error)


def test_the_package_exports_the_result_coding_names() -> None:
    import webmcp_harness

    names = [
        "ToolErrorCode",
        "RETRYABLE",
        "tool_error",
        "tool_error_code",
        "error_result",
        "error_text",
        "is_error_text",
        "is_abort_error",
        "to_tool_result",
        "WebToolError",
        "ToolResult",
        "Error",
    ]
    assert set(names) <= set(package_all)
    assert all(hasattr(webmcp_harness, name) for name in package_all)


# --- JSON.stringify itself, when node is here ----------------------------------------------------


def _js_source(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return "-0" if value == 0 and math.copysign(1, value) < 0 else repr(value)
    if isinstance(value, (bool, type(None), int, str)):
        return json.dumps(value)  # ASCII escapes keep lone surrogates intact in JS
    if isinstance(value, list):
        return "[" + ",".join(_js_source(item) for item in value) + "]"
    return "{" + ",".join(f"{json.dumps(k)}:{_js_source(v)}" for k, v in value.items()) + "}"


def _sample_values() -> list[Any]:
    rng = random.Random(20240601)
    floats = [
        struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(3000)
    ]
    floats += [rng.uniform(-1e6, 1e6) for _ in range(500)]
    floats += [10.0**e for e in range(-330, 309)] + [1.5 * 10.0**e for e in range(-30, 30)]
    floats += [float(n) for n in range(-50, 50)] + [2.0**53, 2.0**53 + 2, -(2.0**63)]
    strings = [
        "",
        'a"b\\c',
        "\x00\x07\x08\x0c\x1b\x1f\x7f",
        "\u2028\u2029",
        "é✓",
        "\ud83d\ude00",
        "\ud800",
        "\udc00x",
    ]
    objects: list[Any] = [
        {"b": 1, "10": 2, "2": 3, "a": [None, True, False], "01": 4, "-0": 5, "4294967294": 6},
        {"4294967295": 1, "4294967294": 2, "1.5": 3, "": 4},
        [[], {}, [[1.0]], {"x": {"y": -0.0}}],
    ]
    return floats + strings + objects + [0, -7, 2**53]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_to_json_writes_exactly_what_node_json_stringify_writes() -> None:
    values = _sample_values()
    script = (
        "console.log(JSON.stringify(["
        + ",".join(f"JSON.stringify({_js_source(v)})" for v in values)
        + "]))"
    )
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run(
        [node, "-"], input=script, capture_output=True, text=True, check=True, timeout=60
    )
    expected = json.loads(done.stdout)
    mismatches = [
        (v, to_json(v), js) for v, js in zip(values, expected, strict=True) if to_json(v) != js
    ]
    assert mismatches == []


# --- properties ----------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(), children, max_size=5)
    ),
    max_leaves=25,
)

codes = st.sampled_from(list(ToolErrorCode)) | st.sampled_from(CODES)
code_texts = st.sampled_from([*CODES, "", "bogus", "Failed", " timeout", "a]b"]) | st.text()

text_items = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "resource"]) | json_values},
    optional={
        "text": st.builds(lambda c, m: f"Error [{c}]: {m}", code_texts, st.text())
        | st.text()
        | json_values
    },
)
result_like = st.fixed_dictionaries(
    {},
    optional={
        "content": st.lists(text_items | json_values, max_size=4) | json_values,
        "isError": json_values,
        "structuredContent": st.fixed_dictionaries(
            {},
            optional={
                "error": st.fixed_dictionaries({}, optional={"code": code_texts | json_values})
            },
        )
        | json_values,
    },
)
anything = (
    json_values
    | result_like
    | st.binary()
    | st.sets(st.integers(), max_size=3)
    | st.builds(object)
    | st.complex_numbers()
    | st.sampled_from([object, type, int, Exception, KeyError(), _Named("AbortError"), print])
)


@settings(deadline=None)
@given(json_values | result_like)
def test_tool_error_code_never_raises_on_any_json(value: Any) -> None:
    code = tool_error_code(value)
    assert code is None or isinstance(code, ToolErrorCode)


@settings(deadline=None)
@given(anything)
def test_tool_error_code_never_raises_on_any_object(value: Any) -> None:
    code = tool_error_code(value)
    assert code is None or isinstance(code, ToolErrorCode)


_PLACES: list[Callable[[Any], Any]] = [
    lambda x: x,
    lambda x: {"content": x},
    lambda x: {"content": [x]},
    lambda x: {"content": [{"type": x, "text": "Error [failed]: x"}]},
    lambda x: {"content": [{"type": "text", "text": x}]},
    lambda x: {"structuredContent": x},
    lambda x: {"structuredContent": {"error": x}},
    lambda x: {"structuredContent": {"error": {"code": x}}},
    lambda x: {"name": x, "message": x, "code": x},
]


@given(st.integers(0, len(_HOSTILE_VALUES) - 1), st.integers(0, len(_PLACES) - 1), result_like)
def test_nothing_raises_wherever_a_hostile_object_hides(which: int, place: int, base: Any) -> None:
    # Indexes, not the objects: Hypothesis itself would trip over their hash and repr.
    value = _PLACES[place](_HOSTILE_VALUES[which])
    if isinstance(value, dict):
        value = {**base, **value}
    assert tool_error_code(value) in {None, *ToolErrorCode}
    assert isinstance(error_text(value), str)
    assert isinstance(is_abort_error(value), bool)
    assert isinstance(is_error_text(value), bool)


@settings(deadline=None)
@given(anything)
def test_the_error_readers_never_raise_on_any_object(value: Any) -> None:
    assert isinstance(error_text(value), str)
    assert isinstance(is_abort_error(value), bool)
    assert isinstance(is_error_text(value), bool)


@given(codes, st.text())
def test_tool_error_code_reads_back_the_code_tool_error_was_given(code: Any, message: str) -> None:
    result = tool_error(code, message)
    assert tool_error_code(result) == code
    assert tool_error_code({"content": result["content"]}) == code
    assert result["structuredContent"]["error"]["retryable"] is RETRYABLE[code]


@given(codes, st.text())
def test_is_error_text_agrees_with_the_text_tool_error_writes(code: Any, message: str) -> None:
    assert is_error_text(tool_error(code, message)["content"][0]["text"]) is True


@given(codes, st.text().map(str.lstrip))
def test_coding_a_coded_error_again_changes_nothing(code: Any, message: str) -> None:
    once = tool_error(code, message)
    assert tool_error(code, once["content"][0]["text"]) == once


@given(st.text() | st.builds(lambda c, m: f"Error [{c}]:{m}", code_texts, st.text()))
def test_a_text_is_error_text_exactly_when_tool_error_would_strip_something(text: str) -> None:
    stripped = tool_error("failed", text)["content"][0]["text"][len("Error [failed]: ") :]
    assert is_error_text(text) is (stripped != text)


def _same_json(loaded: Any, original: Any) -> bool:
    if isinstance(original, float):
        return loaded is None if not math.isfinite(original) else float(loaded) == original
    if isinstance(original, list):
        return len(loaded) == len(original) and all(map(_same_json, loaded, original))
    if isinstance(original, dict):
        return loaded.keys() == original.keys() and all(
            _same_json(loaded[key], item) for key, item in original.items()
        )
    return bool(type(loaded) is type(original) and loaded == original)


@given(json_values)
def test_to_json_reads_back_as_the_same_value(value: Any) -> None:
    assert _same_json(json.loads(to_json(value)), value)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_to_json_writes_every_finite_float_so_it_reads_back_exactly(number: float) -> None:
    text = to_json(number)
    assert float(text) == number
    assert "." not in text or "e" in text or not text.endswith("0")


@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.text(alphabet=st.characters(exclude_categories=["Cs"])),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(alphabet="abc_"), children, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_to_json_is_compact_json_when_js_and_python_agree(value: Any) -> None:
    assert to_json(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@given(json_values.filter(lambda v: v is not None and not isinstance(v, str)))
def test_to_tool_result_writes_a_value_as_one_text_item(value: Any) -> None:
    result = to_tool_result(value)
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        assert result is value
    else:
        assert result == {"content": [_text(to_json(value))]}


def test_code_of_is_the_code_every_caller_branches_on() -> None:
    assert code_of(tool_error("timeout", "late")) is ToolErrorCode.TIMEOUT
    assert code_of({"content": [{"type": "text", "text": "Error [needs_user]: ask"}]}) is (
        ToolErrorCode.NEEDS_USER
    )
    assert code_of({"content": [], "isError": True}) is ToolErrorCode.FAILED  # no code of its own
    assert code_of({"content": [{"type": "text", "text": "Error: broke"}]}) is ToolErrorCode.FAILED
    assert code_of({"content": [{"type": "text", "text": "fine"}]}) is None
