"""The caps on what a page can make the harness hold (core/caps.py, docs/codes.md "Caps")."""

from __future__ import annotations

import json
import re

import pytest

from webmcp_harness.core.caps import (
    MAX_PAGE_JSON_DEPTH,
    MAX_RESULT_ITEMS,
    TooDeep,
    cut_result,
    json_depth,
    loads_page,
    shrink,
)
from webmcp_harness.core.text import dumps


def test_page_json_within_the_depth_cap_is_parsed() -> None:
    text = "[" * MAX_PAGE_JSON_DEPTH + "]" * MAX_PAGE_JSON_DEPTH
    assert json_depth(text) == MAX_PAGE_JSON_DEPTH
    assert isinstance(loads_page(text), list)


@pytest.mark.parametrize("depth", [MAX_PAGE_JSON_DEPTH + 1, 2_000, 100_000])
def test_page_json_past_the_depth_cap_is_refused_saying_how_deep(depth: int) -> None:
    with pytest.raises(TooDeep, match=f"{depth:,} levels deep"):
        loads_page('{"v":' * depth + "0" + "}" * depth)


def test_brackets_inside_strings_do_not_count_as_depth() -> None:
    assert loads_page(json.dumps(["[" * 5_000])) == ["[" * 5_000]


def test_a_result_past_the_item_cap_keeps_its_first_items_and_says_how_many_were_left_out() -> None:
    result = {"content": [{"type": "text", "text": str(i)} for i in range(MAX_RESULT_ITEMS + 5)]}
    cut = cut_result(result)
    assert len(cut["content"]) == MAX_RESULT_ITEMS + 1
    assert cut["content"][-1]["text"].startswith("… 5 more content items left out")


def test_a_result_within_the_caps_is_the_same_object() -> None:
    result = {"content": [{"type": "text", "text": "ok"}]}
    assert cut_result(result) is result


def test_shrink_cuts_long_strings_and_lists_saying_how_much() -> None:
    small = shrink({"a": "x" * 10_000, "b": list(range(150))})
    assert "more characters" in small["a"]
    assert small["b"][-1] == "… 50 more items left out"


def test_an_integer_too_long_to_write_in_decimal_is_written_as_text() -> None:
    line = dumps({"n": 7 * 10**5_000}, compact=True)
    data = json.loads(line)
    assert re.match(r"\(an integer of about 5,00\d digits\) 0x[0-9a-f]+", data["n"])
