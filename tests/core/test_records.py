"""Records: which frame a call's `frame` names."""

from __future__ import annotations

from webmcp_harness.core.records import Tool


def test_a_frame_is_named_by_id_origin_or_url_and_its_fragment_never_decides() -> None:
    url = "http://127.0.0.1:1/x.html#view=list"
    tool = Tool("count_rows", "Count rows.", None, {}, "F1", url, frame_origin="http://127.0.0.1:1")
    assert tool.in_frame(None)
    assert tool.in_frame("F1")
    assert tool.in_frame("http://127.0.0.1:1")
    assert tool.in_frame("http://127.0.0.1:1/x.html#view=chart")
    assert tool.in_frame("x.html")
    assert not tool.in_frame("F2")
    assert not tool.in_frame("http://127.0.0.1:1/y.html#view=list")
