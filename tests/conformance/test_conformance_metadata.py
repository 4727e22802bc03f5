"""Discovery and metadata checks over a page's tools (no browser needed)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from webmcp_harness.conformance.findings import Collector, Severity
from webmcp_harness.conformance.metadata import (
    DISCOVERY_CHECKS,
    METADATA_CHECKS,
    check_discovery,
    check_metadata,
    check_tool_metadata,
    input_schema_problem,
)
from webmcp_harness.core.records import Tool

PAGE = "http://127.0.0.1:1/shop"
GOOD_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "Words to look for"}},
    "required": ["query"],
}


def tool(
    name: str = "search_products",
    description: str = "Search the catalogue by keyword and return matching products.",
    schema: Any = GOOD_SCHEMA,
    frame_id: str = "root",
    frame_url: str = PAGE,
    **annotations: Any,
) -> Tool:
    return Tool(name, description, schema, annotations, frame_id, frame_url)


def checks_of(found: list[Any]) -> list[str]:
    return sorted(f.check for f in found)


def test_a_well_made_tool_has_no_findings() -> None:
    assert check_tool_metadata(tool(), page=PAGE) == []


def test_a_tool_without_input_schema_is_fine() -> None:
    assert check_tool_metadata(tool(schema=None), page=PAGE) == []


@pytest.mark.parametrize("name", ["", "has space", "x" * 129, "naïve", "semi;colon", "tab\t"])
def test_invalid_names_are_errors(name: str) -> None:
    found = check_tool_metadata(tool(name=name), page=PAGE)
    assert checks_of(found) == ["metadata.name-valid"]
    assert found[0].severity is Severity.ERROR


@pytest.mark.parametrize("name", ["a", "x" * 128, "cart.add-item_2", "A.B-C_d"])
def test_valid_names_pass(name: str) -> None:
    assert check_tool_metadata(tool(name=name), page=PAGE) == []


def test_the_name_message_names_the_bad_characters() -> None:
    found = check_tool_metadata(tool(name="add item;now"), page=PAGE)
    assert "U+0020" in found[0].message
    assert ";" in found[0].message


@pytest.mark.parametrize("description", ["", "   \n"])
def test_a_missing_description_is_an_error(description: str) -> None:
    found = check_tool_metadata(tool(description=description), page=PAGE)
    assert checks_of(found) == ["metadata.description-present"]


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("search_products", "search products"),
        ("searchProducts", "Search-Products"),
        ("get_cart", "Cart"),
        ("lookup", "Looks things up"[:5]),
    ],
)
def test_a_description_that_only_repeats_the_name_or_is_too_short_is_a_warning(
    name: str, description: str
) -> None:
    found = check_tool_metadata(tool(name=name, description=description), page=PAGE)
    assert checks_of(found) == ["metadata.description-useful"]
    assert found[0].severity is Severity.WARNING


def test_a_long_description_is_a_warning_that_gives_its_length() -> None:
    found = check_tool_metadata(tool(description="Search products. " * 40), page=PAGE)
    assert checks_of(found) == ["metadata.description-length"]
    assert "680 characters" in found[0].message


def test_a_megabyte_description_is_checked_quickly_and_quoted_briefly() -> None:
    started = time.monotonic()
    found = check_tool_metadata(tool(description="x" * 1_000_000), page=PAGE)
    assert time.monotonic() - started < 3.0
    assert checks_of(found) == ["metadata.description-length", "metadata.description-useful"]
    assert all(len(f.message) < 400 for f in found)


@pytest.mark.parametrize(
    ("schema", "needle"),
    [
        ({"type": "object", "properties": {"a": {"type": "strin"}}}, "/properties/a/type"),
        ({"type": "object", "required": "a"}, "/required"),
        ({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}, "minLength"),
        ({"type": "object", "properties": {"a": {"pattern": "(unclosed"}}}, "pattern"),
        ({"anyOf": []}, "anyOf"),
    ],
)
def test_schemas_failing_the_meta_schema_are_errors(schema: dict[str, Any], needle: str) -> None:
    found = check_tool_metadata(tool(schema=schema), page=PAGE)
    assert "metadata.schema-valid" in checks_of(found)
    message = next(f.message for f in found if f.check == "metadata.schema-valid")
    assert needle in message


def test_a_schema_that_is_not_an_object_is_an_error() -> None:
    found = check_tool_metadata(tool(schema=["type", "object"]), page=PAGE)
    assert checks_of(found) == ["metadata.schema-valid"]
    assert "not an array" in found[0].message
    assert input_schema_problem("{}") is not None


@pytest.mark.parametrize("kind", [None, "string", ["object", "null"]])
def test_a_schema_not_of_type_object_is_an_error(kind: Any) -> None:
    schema: dict[str, Any] = {"properties": {"a": {"type": "string", "description": "A"}}}
    if kind is not None:
        schema["type"] = kind
    found = check_tool_metadata(tool(schema=schema), page=PAGE)
    assert checks_of(found) == ["metadata.schema-object"]


def test_undescribed_parameters_are_listed_in_one_warning() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "string", "description": "  "},
            "c": {"type": "string", "description": "Described"},
            "d": {"type": "string", "title": "Only a title"},
        },
    }
    found = check_tool_metadata(tool(schema=schema), page=PAGE)
    assert checks_of(found) == ["metadata.params-described"]
    assert found[0].detail["params"] == ["a", "b", "d"]


def test_required_keys_must_be_defined() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "description": "A"}},
        "required": ["a", "ghost"],
    }
    found = check_tool_metadata(tool(schema=schema), page=PAGE)
    assert checks_of(found) == ["metadata.required-defined"]
    assert "“ghost”" in found[0].message
    assert found[0].severity is Severity.ERROR


def test_findings_name_the_tool_and_an_iframes_frame() -> None:
    child = tool(name="bad name", frame_id="child", frame_url="http://127.0.0.1:1/widget")
    found = check_tool_metadata(child, page=PAGE)
    assert found[0].tool == "bad name"
    assert found[0].frame == "http://127.0.0.1:1/widget"
    assert check_tool_metadata(tool(name="bad name"), page=PAGE)[0].frame is None


def test_every_metadata_check_is_recorded_as_run_for_every_tool() -> None:
    out = Collector(PAGE)
    check_metadata([tool(name="a_tool"), tool(name="b_tool")], page=PAGE, out=out)
    assert len(out.targets) == 2 * len(METADATA_CHECKS)
    assert out.findings == []


def test_a_page_without_tools_is_an_error_saying_why_or_an_info_for_crawled_pages() -> None:
    found = check_discovery([], page=PAGE, why_none="its script threw while loading")
    assert checks_of(found) == ["discovery.tools-found"]
    assert found[0].severity is Severity.ERROR
    assert "its script threw while loading" in found[0].message
    assert "--allow-no-tools" in found[0].message
    assert found[0].tool is None
    assert check_discovery([], page=PAGE, expect_tools=False)[0].severity is Severity.INFO


def test_more_than_fifty_tools_is_a_warning() -> None:
    tools = [tool(name=f"tool_{i}") for i in range(51)]
    found = check_discovery(tools, page=PAGE)
    assert checks_of(found) == ["discovery.tool-count"]
    assert "51 tools" in found[0].message
    assert check_discovery(tools[:50], page=PAGE) == []


def test_a_name_registered_in_two_frames_is_a_warning() -> None:
    tools = [tool(), tool(frame_id="child", frame_url="http://127.0.0.1:1/widget")]
    found = check_discovery(tools, page=PAGE)
    assert checks_of(found) == ["discovery.names-unique"]
    assert found[0].severity is Severity.WARNING
    assert found[0].tool == "search_products"
    assert "2 frames" in found[0].message


def test_a_name_registered_twice_in_one_frame_is_an_error() -> None:
    found = check_discovery([tool(), tool()], page=PAGE)
    assert checks_of(found) == ["discovery.names-unique"]
    assert found[0].severity is Severity.ERROR


def test_ten_thousand_tools_are_checked_in_well_under_a_few_seconds() -> None:
    tools = [tool(name=f"tool_{i}") for i in range(10_000)]
    started = time.monotonic()
    out = Collector(PAGE)
    check_discovery(tools, page=PAGE, out=out)
    check_metadata(tools, page=PAGE, out=out)
    assert time.monotonic() - started < 15.0
    assert checks_of(out.findings) == ["discovery.tool-count"]
    assert len(out.targets) == len(DISCOVERY_CHECKS) + 10_000 * len(METADATA_CHECKS)


def test_parameters_beside_properties_are_an_error() -> None:
    schema = {"type": "object", "properties": {}, "city": {"type": "string"}, "title": "Forecast"}
    found = check_metadata([tool(schema=schema)], page=PAGE)
    assert checks_of(found) == ["metadata.params-in-properties"]
    assert found[0].severity is Severity.ERROR
    assert "city" in found[0].message
