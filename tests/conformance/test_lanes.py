"""A worker checks page after page in one context: nothing of one page reaches the next."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from webmcp_harness.conformance.reports import CheckReport
from webmcp_harness.conformance.runner import CheckOptions, check_urls
from webmcp_harness.session.browser import launch

# Page A leaves every kind of state behind, a form Chromium lints, and an error as it goes.
PAGE_A = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A</title></head>
<body>
<form toolname="find_hotels" method="post" action="b.html">
  <label>City <input name="city" toolparamdescription="The city, like Paris." required></label>
  <button type="submit">Search</button>
</form>
<a href="b.html">next</a>
<script>
  localStorage.setItem("lane", "a");
  sessionStorage.setItem("lane", "a");
  document.cookie = "lane=a; path=/";
  indexedDB.open("lane-a");
  addEventListener("pagehide", () => { throw new Error("thrown by page A as it left"); });
  addEventListener("load", () => setInterval(() => { throw new Error("page A's timer"); }, 5));
  document.modelContext.registerTool({
    name: "a_info",
    description: "Say which page this is.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
    execute: async () => "page A",
  });
</script>
</body></html>"""

# Page B registers one more tool when it finds anything another page left behind. Its form is
# right, so Chromium's issues are read on it too (and must not be page A's).
PAGE_B = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>B</title></head>
<body>
<form toolname="find_flights" tooldescription="Find flights to a city." action="b.html">
  <label>City <input name="city" toolparamdescription="The city, like Paris." required></label>
  <button type="submit">Search</button>
</form>
<script>
  const tool = (name, description) => document.modelContext.registerTool({
    name, description,
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
    execute: async () => name,
  });
  tool("b_info", "Say which page this is.");
  indexedDB.databases().then((dbs) => {
    const left = [localStorage.length, sessionStorage.length, document.cookie, dbs.length];
    if (left.some(Boolean)) tool("saw_page_a", "Report what page A left: " + JSON.stringify(left));
  });
</script>
</body></html>"""

START = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Start</title></head>
<body><a href="missing.html">gone</a> <a href="b.html">next</a>
<script>
  localStorage.setItem("lane", "start");
  document.modelContext.registerTool({
    name: "start_info", description: "Say which page this is.",
    inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true },
    execute: async () => "start",
  });
</script>
</body></html>"""


def _check(url: str) -> tuple[CheckReport, int]:
    """Check url and the pages it links to with one worker: (report, contexts opened)."""
    contexts = 0

    async def counted(_context: Any) -> None:
        nonlocal contexts
        contexts += 1

    async def body() -> CheckReport:
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await launch(p)
            try:
                options = CheckOptions(crawl=1, workers=1, timeout=8, settle=0.1)
                return await check_urls(browser, [url], options, prepare_context=counted)
            finally:
                await browser.close()

    return asyncio.run(body()), contexts


def _page(report: CheckReport, name: str) -> tuple[list[str], set[str]]:
    """The tools and the ids of the findings of the page whose URL ends with name."""
    for page in report.pages:
        if page.url.endswith(name):
            checks = {f.check for f in report.findings if f.page == page.url}
            return sorted(t.name for t in page.tools), checks
    raise AssertionError(f"{name} was not checked: {[p.url for p in report.pages]}")


def test_the_next_page_in_a_context_sees_no_state_error_or_issue_of_the_last(
    serve: Callable[[str, str], str],
) -> None:
    serve("b.html", PAGE_B)
    report, contexts = _check(serve("a.html", PAGE_A))
    assert contexts == 1  # both pages in one context
    a_tools, a_checks = _page(report, "a.html")
    assert a_tools == ["a_info"]
    assert "form.browser-issues" in a_checks  # Chromium linted page A's form
    b_tools, b_checks = _page(report, "b.html")
    assert b_tools == ["b_info", "find_flights"]  # nothing A stored, and none of A's tools
    assert b_checks.isdisjoint({"discovery.page-errors", "form.browser-issues"})


def test_a_page_that_failed_to_load_hands_the_next_page_a_new_context(
    serve: Callable[[str, str], str],
) -> None:
    serve("b.html", PAGE_B)
    report, contexts = _check(serve("start.html", START))
    assert [p.url.rsplit("/", 1)[1] for p in report.pages] == [
        "start.html",
        "missing.html",
        "b.html",
    ]
    assert contexts == 2  # start and missing.html shared one; missing.html (a 404) ended it
    b_tools, _ = _page(report, "b.html")
    assert b_tools == ["b_info", "find_flights"]
