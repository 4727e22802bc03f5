"""The bridge's naming of tools across frames and its mapping of annotations (no browser)."""

from __future__ import annotations

from webmcp_harness.agent.specs import (
    CONSEQUENTIAL,
    READ_ONLY,
    UNTRUSTED_DESCRIPTION,
    UNTRUSTED_RESULT,
    labelled_result,
)
from webmcp_harness.core.records import Tool
from webmcp_harness.mcp_server import expose, mcp_annotations
from webmcp_harness.mcp_server.tools import clean, tool_spec


def tool(
    name: str, frame: str = "main", url: str = "http://127.0.0.1:8000/", **notes: object
) -> Tool:
    return Tool(name, "A tool.", None, dict(notes), frame, url)


def in_main(tool: Tool) -> bool:
    return tool.frame_id == "main"


def test_the_main_frames_tool_keeps_its_name_and_another_frames_gets_its_host() -> None:
    widget = tool("ask", "w1", "http://localhost:9000/widget")
    names = expose([widget, tool("ask")], in_main)
    assert names == {"ask": tool("ask"), "ask__localhost-9000": widget}


def test_names_stay_unique_when_frames_share_a_host() -> None:
    tools = [tool("ask"), tool("ask", "w1"), tool("ask", "w2")]
    assert list(expose(tools, in_main)) == ["ask", "ask__127.0.0.1-8000", "ask__127.0.0.1-8000_2"]


def test_a_page_tool_may_not_take_a_browser_tools_name() -> None:
    assert list(expose([tool("browser_open")], in_main)) == ["browser_open__127.0.0.1-8000"]


def test_characters_mcp_does_not_allow_become_underscores() -> None:
    assert list(expose([tool("find items!")], in_main)) == ["find_items_"]


def test_annotations_are_read_in_either_spelling() -> None:
    assert mcp_annotations(tool("a", readOnly=True)) == {"readOnlyHint": True}
    assert mcp_annotations(tool("a", readOnlyHint=True)) == {"readOnlyHint": True}
    assert mcp_annotations(tool("a", consequential=True)) == {"destructiveHint": True}
    assert mcp_annotations(tool("a", consequentialHint=False)) == {"destructiveHint": False}


def test_a_tool_the_page_did_not_mark_keeps_mcps_cautious_defaults() -> None:
    assert mcp_annotations(tool("a")) == {}


def test_untrusted_content_is_open_world() -> None:
    marked = tool("a", readOnlyHint=True, untrustedContentHint=True)
    assert mcp_annotations(marked) == {"readOnlyHint": True, "openWorldHint": True}


def test_a_spec_is_an_object_schema_with_the_pages_own_name_in_meta() -> None:
    spec = tool_spec(tool("ask", title="Ask us"), "ask__x", meta=True)
    assert spec["inputSchema"] == {"type": "object", "properties": {}}
    assert spec["title"] == "Ask us"
    assert spec["_meta"]["webmcp-harness/tool"] == "ask"


def test_lone_surrogates_are_mended_everywhere() -> None:
    assert clean({"a\ud800": ["x\udfff", 1, None, float("nan")]}) == {
        "a\ufffd": ["x\ufffd", 1, None, None]
    }


def test_labels_say_a_description_is_the_pages_and_tag_consequential_and_read_only() -> None:
    plain = tool_spec(tool("a"), labels=True)["description"]
    assert plain.startswith(UNTRUSTED_DESCRIPTION)
    assert CONSEQUENTIAL not in plain
    assert READ_ONLY not in plain
    assert CONSEQUENTIAL in tool_spec(tool("a", consequentialHint=True), labels=True)["description"]
    assert READ_ONLY in tool_spec(tool("a", readOnlyHint=True), labels=True)["description"]
    assert tool_spec(tool("a"))["description"] == tool("a").description  # off unless asked


def test_a_labelled_result_keeps_its_first_text_and_structured_content() -> None:
    result = {
        "content": [{"type": "text", "text": "Error [failed]: no"}],
        "isError": True,
        "structuredContent": {"error": {"code": "failed"}},
    }
    labelled = labelled_result(result)
    assert labelled["content"][0] == result["content"][0]
    assert labelled["content"][-1] == {"type": "text", "text": UNTRUSTED_RESULT}
    assert labelled["structuredContent"] == result["structuredContent"]
    assert labelled_result({"content": "odd"}) == {"content": "odd"}
