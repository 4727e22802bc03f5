"""The code→kind table of the agent gateway: total, documented, and row by row."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmcp_harness import ToolErrorCode
from webmcp_harness.agent import kinds
from webmcp_harness.agent.kinds import (
    CONDITIONS,
    HTTP_ROWS,
    KINDS,
    ROWS,
    connect_card,
    failure,
    failure_message,
    is_failure,
    kind_for,
    kind_for_http,
)

SEED = next(Path("/work/shared/seeds").glob("003_*.txt"), None)

EXPECTED = [
    ("cancelled", None, "vendor"),
    ("interrupted", None, "changed"),
    ("timeout", None, "unknown_outcome"),
    ("unavailable", None, "not_found"),
    ("invalid_input", None, "bad_input"),
    ("needs_user", None, "vendor"),
    ("failed", None, "vendor"),
    (None, None, "vendor"),
    ("unavailable", "no_webmcp", "not_connected"),
    (None, "no_webmcp", "not_connected"),
    ("failed", "permissions_policy", "forbidden"),
    (None, "too_large", "too_large"),
    ("unavailable", "no_confirm", "unsupported"),
    (None, "no_browser", "unavailable"),
]


def test_the_twelve_kinds_are_the_seeds_in_its_order() -> None:
    assert len(KINDS) == 12
    assert len(set(KINDS)) == 12
    if SEED is not None:
        text = SEED.read_text(encoding="utf-8")
        found = re.findall(r"^([a-z_]+) \|$", text, flags=re.MULTILINE)
        assert tuple(found) == KINDS


@pytest.mark.parametrize(("code", "condition", "kind"), EXPECTED)
def test_each_row_of_the_table_gives_its_kind(
    code: str | None, condition: str | None, kind: str
) -> None:
    assert kind_for(code, condition=condition) == kind


def test_the_table_covers_every_code_and_condition_once() -> None:
    codes = [r.key for r in ROWS if not r.is_condition]
    conditions = [r.key for r in ROWS if r.is_condition]
    assert sorted(c for c in codes if c is not None) == sorted(c.value for c in ToolErrorCode)
    assert None in codes
    assert len(codes) == len(set(codes))
    assert tuple(conditions) == CONDITIONS
    assert all(r.kind in KINDS for r in ROWS)
    assert all(r.rationale for r in ROWS)


def test_every_row_is_written_in_the_module_docs() -> None:
    doc = kinds.__doc__ or ""
    for row in ROWS:
        label = row.key if row.key is not None else "(no code)"
        assert re.search(rf"^    {re.escape(label)}\s+{row.kind}\b", doc, re.MULTILINE), label


def test_a_condition_wins_over_the_code() -> None:
    assert kind_for("unavailable", condition="no_webmcp") == "not_connected"
    assert kind_for("timeout", condition="permissions_policy") == "forbidden"


def test_an_unknown_condition_falls_back_to_the_code() -> None:
    assert kind_for("timeout", condition="solar_flare") == "unknown_outcome"


def test_an_unknown_code_is_treated_as_no_code() -> None:
    assert kind_for("bogus") == "vendor"


@settings(deadline=None)
@given(st.one_of(st.none(), st.text()), st.one_of(st.none(), st.text()))
def test_kind_for_is_total_over_any_text(code: str | None, condition: str | None) -> None:
    assert kind_for(code, condition=condition) in KINDS


@settings(deadline=None)
@given(st.integers(min_value=-10, max_value=1000))
def test_every_http_status_has_a_kind_or_is_not_a_failure(status: int) -> None:
    kind = kind_for_http(status)
    if 0 < status < 400:
        assert kind is None
    else:
        assert kind in KINDS


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (200, None),
        (302, None),
        (401, "reauth"),
        (403, "forbidden"),
        (404, "not_found"),
        (410, "not_found"),
        (413, "too_large"),
        (400, "bad_input"),
        (415, "unsupported"),
        (501, "unsupported"),
        (429, "rate_limited"),
        (409, "changed"),
        (418, "vendor"),
        (500, "unavailable"),
        (503, "unavailable"),
        (0, "unavailable"),
    ],
)
def test_http_statuses_map_to_kinds(status: int, kind: str | None) -> None:
    assert kind_for_http(status) == kind


def test_the_http_rows_and_the_code_rows_together_reach_all_twelve_kinds() -> None:
    reached = {r.kind for r in ROWS} | {kind for _, kind, _ in HTTP_ROWS} | {"unavailable"}
    assert reached == set(KINDS)


def test_failure_is_error_and_message_and_a_card_only_when_given() -> None:
    assert failure("bad_input", "q: required") == {"error": "bad_input", "message": "q: required"}
    card = {"type": "connect", "text": "x"}
    assert failure("not_connected", "m", card) == {
        "error": "not_connected",
        "message": "m",
        "card": card,
    }


def test_failure_refuses_a_kind_that_is_not_one_of_the_twelve() -> None:
    with pytest.raises(ValueError, match="one of"):
        failure("oops", "m")


def test_is_failure_tells_a_failure_from_a_result_and_a_hold() -> None:
    assert is_failure(failure("vendor", "x"))
    assert not is_failure({"content": [{"type": "text", "text": "ok"}]})
    assert not is_failure({"not_done_yet": "Check with Dana first: ..."})
    assert not is_failure({"error": "something", "message": "x"})


def test_a_cancelled_call_says_the_person_stopped_it() -> None:
    message = failure_message("cancelled", "Tool execution cancelled by a form reset")
    assert message == "The person stopped it: Tool execution cancelled by a form reset"


def test_a_needs_user_call_says_the_person_has_to_choose() -> None:
    assert failure_message("needs_user", "Ask which size.") == (
        "The person has to choose or confirm: Ask which size."
    )


def test_a_failed_call_keeps_its_message_as_is() -> None:
    assert failure_message("failed", "Out of stock: p-101") == "Out of stock: p-101"


def test_an_empty_message_still_says_something() -> None:
    assert failure_message("failed", "  ") == "It failed without saying why."
    assert failure_message("cancelled", "") == "The person stopped it."


def test_the_connect_card_says_how_to_connect() -> None:
    card = connect_card("http://127.0.0.1:8000/")
    assert card["type"] == "connect"
    assert "--enable-features=WebMCP" in card["text"]
    assert "http://127.0.0.1:8000/" in card["text"]
    assert "polyfill" in card["text"]


def test_every_row_is_in_the_agent_docs() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "agent.md").read_text("utf-8")
    for row in ROWS:
        label = f"`{row.key}`" if row.key is not None else "(no code)"
        kind_of = "condition" if row.is_condition else "code"
        assert f"| {label} | {kind_of} | `{row.kind}` |" in doc, label
