"""The call watch on its own: which changes to a tool count as changes during its call.

The race it settles was seen in the browser (a declarative form re-registered while the page
loaded, its events reaching the session after the call was sent: 1 run in 450 under load); here
the same order of events is given directly, so each case runs every time.
"""

from __future__ import annotations

import asyncio

from webmcp_harness.core.records import CallRecord, Tool
from webmcp_harness.session.watch import CallWatch

FORM = Tool("subscribe", "Subscribe", None, {}, "F1", declarative=True)
OTHER = Tool("echo", "Echo", None, {}, "F1")


def watch_of(tool: Tool) -> CallWatch:
    return CallWatch(CallRecord(1, tool.name, {}), tool)


def test_a_tool_registered_again_before_it_started_is_the_version_the_call_reached() -> None:
    async def scenario() -> CallWatch:
        watch = watch_of(FORM)
        watch.tools_changed([], [FORM])
        watch.tools_changed([FORM, OTHER], [])
        watch.start()
        return watch

    watch = asyncio.run(scenario())
    assert not watch.removed.done()
    assert not watch.replaced
    assert [e.type for e in watch.record.events] == ["toolRemovedBeforeStart", "toolsAdded"]
    assert watch.record.events[0].detail == {"name": "subscribe", "frameId": "F1"}


def test_a_tool_removed_before_it_started_and_not_back_counts_as_removed() -> None:
    async def scenario() -> CallWatch:
        watch = watch_of(FORM)
        watch.tools_changed([], [FORM])
        watch.start()
        return watch

    watch = asyncio.run(scenario())
    assert watch.removed.done()
    assert not watch.replaced


def test_a_tool_removed_and_registered_again_after_it_started_was_replaced_mid_call() -> None:
    async def scenario() -> CallWatch:
        watch = watch_of(FORM)
        watch.start()
        watch.tools_changed([], [FORM])
        watch.tools_changed([FORM], [])
        return watch

    watch = asyncio.run(scenario())
    assert watch.removed.done()
    assert watch.replaced


def test_other_tools_coming_and_going_change_nothing() -> None:
    async def scenario() -> CallWatch:
        watch = watch_of(FORM)
        watch.start()
        watch.tools_changed([OTHER], [OTHER])
        return watch

    watch = asyncio.run(scenario())
    assert not watch.removed.done()
    assert not watch.replaced
