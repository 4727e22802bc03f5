"""The checks that call nothing: each tool's metadata and safety, and each declarative form as
the browser built its schema (with Chromium's own issues with the page's tool forms)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ..core.records import Tool
from . import ids
from .findings import Collector
from .forms import FORM_CHECKS, check_browser_form_issues, check_form
from .metadata import check_tool_metadata, frame_of
from .safety import check_tool_safety
from .visit import PageVisit

__all__ = ["CHUNK", "check_statically"]

# Static checks run on the event loop, a few tools at a time: in a thread they would hold the GIL
# against the loop, and other pages' calls would time out while it waits.
CHUNK = 20

_MAX_FORMS = 200


async def check_statically(
    visit: PageVisit, tools: Sequence[Tool], *, tool_forms: bool, explored: bool = False
) -> Collector:
    """The findings of the checks that call nothing, on tools of visit's page: metadata, safety,
    and declarative forms (with Chromium's own issues with them when the page has tool forms);
    explored: tools a call made appear."""
    static = Collector(visit.url)
    for index, tool in enumerate(tools):
        check_tool_metadata(tool, page=visit.url, out=static)
        check_tool_safety(tool, page=visit.url, out=static)
        if index % CHUNK == CHUNK - 1:
            await asyncio.sleep(0)  # let other pages' events and timers through
    forms = Collector(visit.url)
    await _check_forms(visit, tools, forms)
    if tool_forms:
        check_browser_form_issues(await visit.form_issues(), page=visit.url, out=forms)
    elif not explored:
        forms.skip(ids.FORM_BROWSER_ISSUES, "no <form toolname> or <form tooldescription>")
    # A form control without a description is one problem: report it where it is fixed
    # (the control's label), not also as an undescribed schema property.
    by_form = {(f.tool, f.frame) for f in forms.findings if f.check == ids.FORM_PARAMS_DESCRIBED}
    static.findings[:] = [
        f
        for f in static.findings
        if f.check != ids.METADATA_PARAMS_DESCRIBED or (f.tool, f.frame) not in by_form
    ]
    static.extend(forms)
    return static


async def _check_forms(visit: PageVisit, tools: Sequence[Tool], out: Collector) -> None:
    forms = [t for t in tools if t.declarative]
    read = await visit.read_forms(forms[:_MAX_FORMS])
    for index, tool in enumerate(forms):
        frame = frame_of(tool, visit.url)
        if index >= _MAX_FORMS:
            for check_id in FORM_CHECKS:
                out.skip(check_id, f"more than {_MAX_FORMS} forms", tool.name, frame)
            continue
        described = read[index]
        if described is None:
            for check_id in FORM_CHECKS:
                out.skip(check_id, "the form could not be read", tool.name, frame)
            continue
        check_form(
            described, tool.input_schema, page=visit.url, tool=tool.name, frame=frame, out=out
        )
