"""`check` is built by composition: following one page, control goes down through the parts
(checker, crawl, the page's check, its visit, the exercise of its tools) and never back up."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import webmcp_harness.conformance as conformance
from webmcp_harness.conformance.exercise import Exerciser
from webmcp_harness.conformance.page import PageCheck
from webmcp_harness.conformance.runner import CheckOptions, check_urls
from webmcp_harness.conformance.visit import PageVisit
from webmcp_harness.session.browser import launch

PACKAGE = str(Path(conformance.__file__).parent) + "/"

# A tool that adds a form (explored and checked statically), a link the crawl follows.
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Path</title></head>
<body><a href="next.html">next</a><div id="slot"></div>
<script>
  document.modelContext.registerTool({
    name: "open_search", description: "Open the search panel, which offers a search form.",
    inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true },
    execute: async () => {
      document.getElementById("slot").innerHTML = '<form toolname="find_flights" ' +
        'tooldescription="Find flights to a city."><label>City <input name="city" ' +
        'toolparamdescription="The city, like Paris." required></label>' +
        '<button type="submit">Search</button></form>';
      return "opened";
    },
  });
</script></body></html>"""

# Who may call whom (parts are classes, static.py's functions are one part).
DOWN = {
    ("Checker", "Crawl"),
    ("Crawl", "Frontier"),
    ("Crawl", "Lane"),
    ("Crawl", "PageCheck"),
    ("PageCheck", "PageVisit"),
    ("PageCheck", "static"),
    ("PageCheck", "Exerciser"),
    ("Exerciser", "PageVisit"),
    ("Exerciser", "static"),
    ("static", "PageVisit"),
    ("PageVisit", "Lane"),
    ("PageVisit", "Frontier"),  # the links it finds, at once (the frontier calls nothing)
}
PARTS = {part for edge in DOWN for part in edge}


@dataclass
class _Entry:
    frame: FrameType
    part: str | None  # None: not inside a part (the entry, check_urls)
    obj: int | None  # id of the part's object
    from_browser: bool  # started by a browser event (Playwright calling the lane's handlers)


class Trace:
    """Every new frame of conformance code: its part, its object, and the part that called it
    (the frame below it, or the one that made its task: wait_for and gather make tasks). The
    browser's events come from outside the parts: left out."""

    def __init__(self) -> None:
        self.entries: dict[int, _Entry] = {}  # id(frame) -> its entry (the frame kept alive)
        self.parents: dict[int, _Entry] = {}  # id(coroutine frame) -> who made its task
        self.calls: list[tuple[str, str, int | None, int]] = []  # (caller, part, object, when)
        self.left: dict[int, int] = {}  # id(object) -> when it was left

    def entry(self, frame: FrameType | None) -> _Entry | None:
        while frame is not None:
            found = self.entries.get(id(frame))
            if found is not None and found.frame is frame:
                return found
            frame = frame.f_back
        return None

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or not frame.f_code.co_filename.startswith(PACKAGE):
            return
        known = self.entries.get(id(frame))
        if known is not None and known.frame is frame:
            return  # a coroutine resumed, not entered
        caller = self.entry(frame.f_back) or self.parents.get(id(frame))
        this = frame.f_locals.get("self")
        part = "static" if frame.f_code.co_filename.endswith("/static.py") else type(this).__name__
        if part not in PARTS or frame.f_code.co_name.startswith("<"):
            part, this = (caller.part if caller else None), None  # a leaf, or the caller's code
        from_browser = caller.from_browser if caller else frame.f_code.co_name != "check_urls"
        obj = id(this) if this is not None else None
        self.entries[id(frame)] = _Entry(frame, part, obj, from_browser)
        if from_browser or part is None or caller is None or caller.part in (None, part):
            return
        self.calls.append((caller.part, part, obj, len(self.calls)))

    def task_factory(
        self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **kwargs: Any
    ) -> asyncio.Task[Any]:
        frame = getattr(coro, "cr_frame", None)
        maker = self.entry(sys._getframe(1))
        if frame is not None and maker is not None:
            self.parents[id(frame)] = maker
        return asyncio.Task(coro, loop=loop, **kwargs)


def _traced(url: str, monkeypatch: Any) -> Trace:
    trace = Trace()

    def leaving(cls: type, name: str, *parts: str) -> None:
        original: Callable[..., Any] = getattr(cls, name)

        async def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return await original(self, *args, **kwargs)
            finally:
                for left in (self, *(getattr(self, p) for p in parts)):
                    trace.left[id(left)] = len(trace.calls)

        monkeypatch.setattr(cls, name, wrapped)

    leaving(PageCheck, "run", "_exerciser")  # (and the exercise of its tools)
    leaving(Exerciser, "run")
    leaving(PageVisit, "close")  # (the last time: a page reopened after a crash closes twice)

    async def body() -> None:
        from playwright.async_api import async_playwright

        asyncio.get_running_loop().set_task_factory(trace.task_factory)  # type: ignore[arg-type]
        async with async_playwright() as p:
            browser = await launch(p)
            try:
                options = CheckOptions(crawl=1, workers=1, timeout=8, settle=0.1)
                sys.setprofile(trace.profile)
                try:
                    report = await check_urls(browser, [url], options)
                finally:
                    sys.setprofile(None)
            finally:
                await browser.close()
        assert [len(p.tools) for p in report.pages] == [2, 0]  # explored; the link followed

    asyncio.run(body())
    return trace


def test_one_page_goes_down_through_the_parts_and_never_back_up(
    serve: Callable[[str, str], str], monkeypatch: Any
) -> None:
    serve("next.html", "<!doctype html><title>Next</title><p>No tools here.</p>")
    trace = _traced(serve("path.html", PAGE), monkeypatch)
    made = {(caller, part) for caller, part, _, _ in trace.calls}
    assert made - DOWN == set()  # no part calls one above it (no callback, no cycle)
    assert {"PageCheck", "PageVisit", "static", "Exerciser", "Frontier"} <= {p for _, p in made}
    # A page's check, the exercise of its tools and its visit are not entered once left.
    for caller, part, obj, at in trace.calls:
        assert obj not in trace.left or at < trace.left[obj], (caller, part)
