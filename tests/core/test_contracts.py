"""A tool's contract, the snapshot diff and coverage's bookkeeping, on tools built by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webmcp_harness.core.contracts import tool_contract, tool_origin
from webmcp_harness.core.errors import UsageError
from webmcp_harness.core.records import CallRecord, Tool
from webmcp_harness.testing.coverage import Coverage
from webmcp_harness.testing.snapshots import SnapshotPlace, _dumps, diff_contracts

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def tool(name: str = "search", url: str = "http://127.0.0.1:8123/shop", **kw: Any) -> Tool:
    fields: dict[str, Any] = {
        "description": "Search the shop.",
        "input_schema": SCHEMA,
        "annotations": {},
        "frame_id": "F1",
        "frame_url": url,
        **kw,
    }
    return Tool(name=name, **fields)


def test_a_contract_has_the_tool_s_public_fields_and_not_its_frame_id() -> None:
    contract = tool_contract(tool(frame_id="ABC"), page_url="http://127.0.0.1:8123/")
    assert contract == {
        "name": "search",
        "title": None,
        "description": "Search the shop.",
        "inputSchema": SCHEMA,
        "annotations": {},
        "declarative": False,
        "origin": "page",
    }


def test_cdp_annotation_names_become_the_page_s_and_false_hints_are_left_out() -> None:
    cdp = tool(annotations={"readOnly": True, "consequential": False, "untrustedContent": True})
    page = tool(annotations={"readOnlyHint": True, "untrustedContentHint": True})
    assert tool_contract(cdp)["annotations"] == {"readOnlyHint": True, "untrustedContentHint": True}
    assert tool_contract(cdp) == tool_contract(page)


def test_the_origin_is_the_page_s_own_or_the_frame_s_and_loopback_ports_are_dropped() -> None:
    assert tool_origin("http://127.0.0.1:8123/a", "http://127.0.0.1:8123/b") == "page"
    assert tool_origin("http://localhost:9000/w.html", "http://127.0.0.1:8123/") == (
        "http://localhost"
    )
    assert tool_origin("https://shop.example:8443/x") == "https://shop.example:8443"
    assert tool_origin("http://127.0.0.1:5555/") == tool_origin("http://127.0.0.1:6666/")


def test_the_diff_says_which_tools_were_added_removed_and_which_fields_changed() -> None:
    before = [tool_contract(tool("search")), tool_contract(tool("old"))]
    changed = tool("search", description="Find things.", annotations={"readOnly": True})
    after = [tool_contract(tool("new")), tool_contract(changed)]
    assert diff_contracts(before, after) == [
        "  + added:   new (http://127.0.0.1)",
        "  - removed: old (http://127.0.0.1)",
        "  ~ changed: search (http://127.0.0.1)",
        "      annotations.readOnlyHint: (absent) -> true",
        '      description: "Search the shop." -> "Find things."',
    ]


def test_a_hostile_name_in_the_diff_is_escaped_text() -> None:
    lines = diff_contracts([], [tool_contract(tool("\x1b[31mred\x9b"))])
    assert lines == ['  + added:   "\\u001b[31mred\\u009b" (http://127.0.0.1)']


def test_a_snapshot_file_is_the_same_whatever_the_order_of_tools_and_keys() -> None:
    from webmcp_harness.testing.snapshots import _canonical

    a = _canonical([tool_contract(tool("b")), tool_contract(tool("a"))])
    b = _canonical([tool_contract(tool("a")), tool_contract(tool("b"))])
    assert _dumps(a) == _dumps(b)
    data = json.loads(_dumps(a))
    assert [t["name"] for t in data["tools"]] == ["a", "b"]
    assert list(data["tools"][0]) == sorted(data["tools"][0])
    assert _dumps([tool_contract(tool("\ud800"))]).isascii()  # a lone surrogate stays text


def test_snapshot_files_are_named_as_playwright_names_them(tmp_path: Path) -> None:
    place = SnapshotPlace.beside(tmp_path / "test_shop.py", "test_search[wool]")
    assert place.next_path(None) == tmp_path / "test_shop.py-snapshots" / "test-search-wool-1.json"
    assert place.next_path(None).name == "test-search-wool-2.json"
    assert place.next_path("checkout").name == "checkout.json"
    assert place.next_path("checkout.json").name == "checkout-1.json"
    with pytest.raises(UsageError, match="a snapshot name is a file name"):
        place.next_path("../elsewhere")


def call(
    n: int, name: str, code: str | None, url: str | None = "http://127.0.0.1:1/"
) -> CallRecord:
    record = CallRecord(id=n, tool=name, input={}, frame_url=url, code=code)
    record.result = {"content": []}
    return record


def test_coverage_counts_calls_and_codes_per_tool_and_marks_the_never_called() -> None:
    coverage = Coverage()
    coverage.see([tool("search"), tool("place_order"), tool("search")])
    coverage.add_calls(
        [
            call(1, "search", None),
            call(2, "search", "invalid_input"),
            call(3, "gone", "unavailable", None),
        ]
    )
    assert coverage.percent == 50.0
    data = coverage.to_json()
    assert data["tools"] == [
        {
            "name": "place_order",
            "origin": "http://127.0.0.1",
            "calls": 0,
            "codes": {},
            "called": False,
        },
        {
            "name": "search",
            "origin": "http://127.0.0.1",
            "calls": 2,
            "codes": {"invalid_input": 1, "ok": 1},
            "called": True,
        },
    ]
    assert data["callsToToolsNotThere"][0]["codes"] == {"unavailable": 1}
    table = coverage.table()
    assert table[1].split() == ["place_order", "http://127.0.0.1", "0", "NEVER", "CALLED"]
    assert table[2].split() == ["search", "http://127.0.0.1", "2", "invalid_input", "1,", "ok", "1"]
    assert table[3] == "1 of 2 tools called (50.0%)"


def test_coverage_of_two_workers_merges_into_one() -> None:
    one, two, merged = Coverage(), Coverage(), Coverage()
    one.see([tool("search"), tool("cart")])
    one.add_calls([call(1, "search", None)])
    two.see([tool("search"), tool("checkout")])
    two.add_calls([call(1, "search", "timeout"), call(2, "checkout", None)])
    merged.merge(one.to_json())
    merged.merge(two.to_json())
    assert {t["name"]: t["calls"] for t in merged.to_json()["tools"]} == {
        "cart": 0,
        "checkout": 1,
        "search": 2,
    }
    assert merged.tools[("search", "http://127.0.0.1")].codes == {"ok": 1, "timeout": 1}
