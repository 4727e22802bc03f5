"""One scenario, three paths: the code each gives, against the table in docs/differential.md.

Each scenario (the demo shop's, demo_site/expectations.json, and a few of our own pages) runs
- natively: Chromium with WebMCP, the DevTools-protocol path (`backend="cdp"`);
- in-page: Chromium without the flag, a polyfill injected before the page's scripts
  (`@mcp-b/webmcp-polyfill` with `backend="inpage"`, `@mcp-b/global` with `backend="auto"`; the
  two must agree);
- through Playwright's own `page.webmcp.call_tool`, where it can express the scenario (it cannot
  act as the person on a waiting form: `—`). Playwright has no codes: what it returns is coded as
  the harness codes an answer; a raised error is `raises`, its timeout `timeout`.

The table's rows are the truth this test keeps: a change of any path's code fails here until the
table (and the reason written beside it) is changed too.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from async_chromium import AsyncChromium, KeptPage, KeptPages
from demo_ready import wait_for_tool_or_refusal
from webmcp_harness import WebMCPSession, tool_error_code
from webmcp_harness.core.coding import normalise_output
from webmcp_harness.core.results import ToolErrorCode, ToolResult, is_error_text, to_tool_result
from webmcp_harness.testing.demo import DemoServer, load_expectations

TESTS = Path(__file__).parents[1]
POLYFILLS = TESTS / "polyfills"
DOC = TESTS.parent / "docs" / "differential.md"
WAIT = 10.0

# Our own pages (tests/pages), in the shape of expectations.json's scenarios.
OWN: list[dict[str, Any]] = [
    {"id": "own-one-shot", "page": "/tools.html", "tool": "removes_itself", "args": {}},
    {"id": "own-replaced", "page": "/tools.html", "tool": "replaces_itself", "args": {}},
    {
        "id": "own-removed-never-answers",
        "page": "/tools.html",
        "tool": "removes_itself_silently",
        "args": {},
        "timeout": 3,
    },
    {
        "id": "own-key-order",
        "page": "/tools.html",
        "tool": "key_order",
        "args": {"c": 1, "b": 2, "a": 3},
    },
    {
        "id": "own-form-bad-date",
        "page": "/outcomes/refusals.html",
        "tool": "every_control",
        "args": {"need": "x", "d": "25/12/2026"},
    },
    {
        "id": "own-form-in-place",
        "page": "/outcomes/refusals.html",
        "tool": "submits_in_place",
        "args": {"note": "hi"},
    },
    {"id": "own-empty-list", "page": "/outcomes/refusals.html", "tool": "returns_empty_list"},
]
DEMO = load_expectations()["scenarios"]
ALL = {s["id"]: s for s in [*DEMO, *OWN]}
# A form that waits for its person: the harness says so once it is filled, Playwright waits out
# its whole timeout. 2 s shows the same codes as expectations.json's 10 s, for 8 s less.
ALL["newsletter-waits-for-person"] = {**ALL["newsletter-waits-for-person"], "timeout": 2}


def table() -> dict[str, tuple[str, str, str]]:
    """docs/differential.md's rows: id -> (native, in-page, Playwright)."""
    rows = re.finditer(
        r"^\| `([a-z0-9-]+)` \| (\S+) \| (\S+) \| (\S+) \|", DOC.read_text("utf-8"), re.M
    )
    return {m.group(1): (m.group(2), m.group(3), m.group(4)) for m in rows}


def _coded(result: ToolResult, session: WebMCPSession | None = None) -> str:
    found = tool_error_code(result)
    if found is not None:
        return found.value
    if session is not None and session.records and session.records[-1].code:
        return str(session.records[-1].code)
    texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)]
    if result.get("isError") or (texts and is_error_text(str(texts[0]))):
        return "failed"
    return "ok"


@pytest.fixture(scope="module")
def kept_paths(async_chromium: AsyncChromium, async_flagless: Browser) -> Iterator[KeptPages]:
    """A page kept for the module per path (`KeptPage`): the worker's Chromium with WebMCP
    (`async_chromium`) for the native and Playwright's paths, its flagless one for the two
    polyfills, each injected before the page's scripts into its page's context."""
    with KeptPages.opened(
        async_chromium,
        native=KeptPage.open(async_chromium.browser),
        playwright=KeptPage.open(async_chromium.browser),
        **{
            name: KeptPage.open(async_flagless, init_script=POLYFILLS / name / "index.iife.js")
            for name in ("webmcp-polyfill", "global")
        },
    ) as kept:
        yield kept


@pytest.fixture
def paths(kept_paths: KeptPages) -> Iterator[KeptPages]:
    yield from kept_paths.for_a_test()


@pytest.fixture(scope="module")
def bases(pages_url: str) -> Iterator[dict[str, str]]:
    with DemoServer() as server:
        yield {"demo": server.url, "own": pages_url}


def _url(bases: dict[str, str], scenario: dict[str, Any]) -> str:
    base = bases["own"] if scenario["id"].startswith("own-") else bases["demo"]
    return base + scenario["page"]


async def _harness(kept: KeptPage, url: str, scenario: dict[str, Any], backend: Any) -> str:
    page = kept.page
    async with await WebMCPSession.attach(page, backend=backend, timeout=WAIT) as session:
        await page.goto(url)
        if scenario.get("expect") != "unavailable":
            await wait_for_tool_or_refusal(session, page, scenario, WAIT)
        result = await session.call(
            scenario["tool"],
            scenario.get("args", {}),
            timeout=scenario.get("timeout", WAIT),
            frame=scenario.get("frame"),
            confirm=scenario.get("confirm", False),
        )
        return _coded(result, session)


async def _playwright(kept: KeptPage, url: str, scenario: dict[str, Any]) -> str:
    if scenario.get("confirm"):
        return "—"  # it cannot submit a waiting form as the person
    page = kept.page
    async with await WebMCPSession.attach(page, timeout=WAIT) as session:
        await page.goto(url)
        if scenario.get("expect") != "unavailable":  # wait for the tool, on events
            await wait_for_tool_or_refusal(session, page, scenario, WAIT)
    frame: Any = page.main_frame
    if scenario.get("frame"):
        frame = next(f for f in page.frames if scenario["frame"] in f.url)
    try:
        value = await frame.webmcp.call_tool(
            scenario["tool"],
            scenario.get("args", {}),
            timeout=scenario.get("timeout", WAIT) * 1000,
        )
    except PlaywrightTimeout:
        return "timeout"
    except PlaywrightError:
        return "raises"
    return _coded(to_tool_result(normalise_output(value)))


async def _three(paths: KeptPages, url: str, scenario: dict[str, Any]) -> tuple[str, str, str]:
    native, polyfilled, wrapped, pw = await asyncio.gather(
        _harness(paths["native"], url, scenario, "cdp"),
        _harness(paths["webmcp-polyfill"], url, scenario, "inpage"),
        _harness(paths["global"], url, scenario, "auto"),
        _playwright(paths["playwright"], url, scenario),
    )
    assert polyfilled == wrapped, f"the polyfills disagree: {polyfilled} / {wrapped}"
    return native, polyfilled, pw


@pytest.mark.parametrize("scenario_id", list(ALL))
def test_each_path_gives_the_code_the_differential_table_says(
    paths: KeptPages, bases: dict[str, str], scenario_id: str
) -> None:
    scenario = ALL[scenario_id]
    got = paths.run(_three(paths, _url(bases, scenario), scenario))
    assert got == table().get(scenario_id), f"{scenario_id}: native, in-page, Playwright = {got}"


def test_the_table_has_one_row_per_scenario_and_a_reason_for_each_difference() -> None:
    rows = table()
    assert set(rows) == set(ALL)
    text = DOC.read_text("utf-8")
    for scenario_id, codes in rows.items():
        if scenario_id in {s["id"] for s in DEMO}:
            assert codes[0] == (ALL[scenario_id]["expect"] or "ok"), scenario_id
        line = next(x for x in text.splitlines() if x.startswith(f"| `{scenario_id}` |"))
        reason = line.rstrip().rstrip("|").split("|")[-1].strip()
        if len(set(codes) - {"—"}) > 1:
            assert reason, f"{scenario_id}: the paths differ, and the table does not say why"


def test_the_table_names_only_codes_and_playwrights_two_outcomes() -> None:
    allowed = {"ok", "raises", "—", *(c.value for c in ToolErrorCode)}
    for codes in table().values():
        assert set(codes) <= allowed
