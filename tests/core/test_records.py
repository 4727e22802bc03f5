"""What a tool and a call record carry, as data; and which frame a call's `frame` names."""

from __future__ import annotations

import copy
import pickle
import threading

from webmcp_harness.core.records import CallRecord, Tool


def test_a_tool_pickles_and_copies_without_its_form_which_belongs_to_its_live_page() -> None:
    live = threading.Lock()  # stands for a Locator: nothing pickle can hold
    tool = Tool("find_room", "Find a room.", None, {}, "F1", declarative=True, form=live)
    back = pickle.loads(pickle.dumps(tool))
    assert back == tool
    assert back.form is None
    assert copy.deepcopy(tool).form is None
    assert tool.form is live
    assert "form" not in tool.to_dict()


def test_an_observed_call_says_so_in_its_dict_and_an_own_call_does_not() -> None:
    own = CallRecord(id=1, tool="echo", input={})
    seen = CallRecord(id=2, tool="echo", input={}, observed=True)
    assert "observed" not in own.to_dict()
    assert seen.to_dict()["observed"] is True


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
