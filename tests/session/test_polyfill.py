"""Issue 9's acceptance, end to end: pages whose document.modelContext is a JavaScript polyfill.

In Chromium launched WITHOUT the WebMCP flag (the polyfill is the only implementation):

- the CLI's `tools` and `call` (`--backend auto` and `--backend inpage`), through `--cdp`;
- the pytest fixture (a pytester run whose browser has WebMCP switched off);
- every demo-shop scenario with the polyfill injected before the shop's scripts: the code each gives,
  against the native code in demo_site/expectations.json (`POLYFILL_DIFFERS` says where and why
  they differ; docs/polyfills.md carries the same table);
- the `unavailable` message of a page with no document.modelContext at all.

And with the flag on (as the CLI and the plugin launch Chromium), the same polyfilled pages reach
their tools through the browser's own WebMCP (`@mcp-b/webmcp-polyfill` stands aside,
`@mcp-b/global` wraps native), so the flag is harmless; a forced `backend="inpage"` there still
sees a form wait for its person.

The async API runs on the worker's loop of async Playwright (`async_chromium`, tests/conftest.py),
beside pytest-playwright's sync `page`, on pages this module keeps in the worker's flagless Chromium
(`async_flagless`), each left as a new context's after a test. Tests that need several browser
sessions run them at once, inside the test (xdist splits tests, so a module-wide batch would run
once per worker).

The vendored polyfills: tests/polyfills/ (see its README).
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import pytest
from playwright.async_api import Browser
from playwright.sync_api import Page

from async_chromium import AsyncChromium, KeptPage, KeptPages
from demo_ready import wait_for_tool_or_refusal
from webmcp_harness import WebMCPSession, tool_error_code
from webmcp_harness.core.results import ToolResult
from webmcp_harness.sync_api import WebMCPSession as SyncSession
from webmcp_harness.testing.demo import DemoServer, load_expectations

pytest_plugins = ["pytester"]

TESTS = Path(__file__).parents[1]
POLYFILLS = TESTS / "polyfills"
DIFFERENTIAL = TESTS.parent / "docs" / "differential.md"
PACKAGES = {"webmcp-polyfill": "@mcp-b/webmcp-polyfill", "global": "@mcp-b/global"}
WAIT = 10.0  # upper bound of any wait on the browser; the waits end on events
T = TypeVar("T")
NO_CONTEXT = "has no document.modelContext"
ECHO = '{"text": "hi"}'

SCENARIOS = {s["id"]: s for s in load_expectations()["scenarios"]}

# The demo scenarios whose code differs through a polyfill: id -> (polyfill code, why).
# Every other scenario gives its native code (expectations.json's `expect`) through either polyfill.
POLYFILL_DIFFERS: dict[str, tuple[str, str]] = {
    "apply-unknown-coupon": (
        "failed",
        'the tool throws a WebToolError with `code: "invalid_input"`; the polyfill rethrows every '
        "error as a new `UnknownError` with the message only, so the code is gone",
    ),
    "place-order-gift-card": (
        "failed",
        'the same: the WebToolError\'s `code: "needs_user"` does not survive the polyfill',
    ),
    "payment-approval-declined": (
        "failed",
        "the tool throws a `DOMException` `AbortError`; the polyfill rethrows it as `UnknownError`, so "
        "nothing says it was a cancellation",
    ),
    **{
        scenario: (
            "unavailable",
            "the support widget is a cross-site frame: the polyfill refuses WebMCP there "
            "(`NotAllowedError: WebMCP in cross-origin frames requires native Permissions Policy "
            "support`), so the widget registers no tool",
        )
        for scenario in ("ask-support", "ask-support-by-host", "ask-support-bad-order")
    },
    "claim-welcome-coupon": (
        "interrupted",
        "a one-shot tool: the polyfill rejects the call with `Tool unregistered` the moment the tool "
        "unregisters itself, and its answer is lost: it may or may not have worked",
    ),
}
# Same code, but not the same call: id -> what differs.
POLYFILL_NOTES: dict[str, str] = {
    "check-payment-status": "same code, but the page is never told: the polyfill passes the tool no "
    "`AbortSignal` and has no `toolcancel`, so the tool runs on (`window.__demo.cancelled` stays empty)",
    "track-order": "same code and content: the polyfill answers when the form submits, with nothing; "
    "the in-page backend sees the submission, waits for the next page and reads its JSON-LD",
    "update-quantity-reregisters": "same code: the polyfill rejects the call with `Tool unregistered` "
    "the moment the page unregisters the tool; the tool is back under its name: replaced mid-call",
}


def polyfill_code(scenario_id: str) -> str | None:
    """The code a demo scenario gives through a polyfill (None: it succeeds)."""
    if scenario_id in POLYFILL_DIFFERS:
        return POLYFILL_DIFFERS[scenario_id][0]
    expected: str | None = SCENARIOS[scenario_id]["expect"]
    return expected


# -- servers and browsers ------------------------------------------------------------------------


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """tests/ on a free port: the pages at /pages/polyfill/, the vendored builds at /polyfills/."""
    handler = functools.partial(_Quiet, directory=str(TESTS))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/pages/polyfill"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    with DemoServer() as server:
        yield server.url


@pytest.fixture(scope="module")
def flagless(flagless_chromium: str) -> str:
    """A Chromium launched without the WebMCP flag, reachable over CDP (as `--cdp` takes it).

    This is how a user points the CLI at a browser without WebMCP: their own browser, started
    with a debugging port; the CLI only ever launches Chromium with the flag. The worker's one
    (conftest's `flagless_chromium`), shared with the other tests of a browser without WebMCP.
    """
    return flagless_chromium


@pytest.fixture(scope="module")
def kept_pages(async_chromium: AsyncChromium, async_flagless: Browser) -> Iterator[KeptPages]:
    """Pages kept for the module in the flagless Chromium (`KeptPage`): `bare`, and one per
    polyfill, injected before the shop's scripts (which guard with `if (document.modelContext)`)."""
    with KeptPages.opened(
        async_chromium,
        bare=KeptPage.open(async_flagless),
        **{
            name: KeptPage.open(async_flagless, init_script=POLYFILLS / name / "index.iife.js")
            for name in PACKAGES
        },
    ) as kept:
        yield kept


@pytest.fixture
def flagless_pages(kept_pages: KeptPages) -> Iterator[KeptPages]:
    yield from kept_pages.for_a_test()


def _text(result: ToolResult) -> str:
    content = result.get("content") or []
    return str(content[0].get("text", "")) if content else ""


def _code(result: ToolResult, session: WebMCPSession) -> str | None:
    found = tool_error_code(result)
    return found.value if found else session.records[-1].code


# -- the browser really is without WebMCP ------------------------------------------------------


def test_the_flagless_chromium_has_no_model_context_of_its_own(
    flagless_pages: KeptPages, site: str
) -> None:
    async def body() -> None:
        page = flagless_pages["bare"].page
        await page.goto(f"{site}/none.html")
        assert await page.evaluate("isSecureContext && !('modelContext' in document)") is True
        await page.goto(f"{site}/global.html")
        assert await page.evaluate("document.modelContext.__isBrowserMcpServer") is True

    flagless_pages.run(body())


# -- 4. a page with no document.modelContext at all ------------------------------------------


@pytest.mark.parametrize("backend", ["auto", "cdp", "inpage"])
def test_a_page_without_model_context_is_unavailable_and_says_why(
    flagless_pages: KeptPages, site: str, backend: Any
) -> None:
    async def body() -> ToolResult:
        page = flagless_pages["bare"].page
        async with await WebMCPSession.attach(page, backend=backend, timeout=WAIT) as session:
            await page.goto(f"{site}/none.html")
            assert await session.tools(settle=0) == []  # not 2.5 s waiting for a first one
            result = await session.call("echo", {"text": "hi"})
            assert result.record.code == "unavailable"
            assert result.record.reason == "no_webmcp"  # what a caller branches on
            return result

    result = flagless_pages.run(body())
    assert tool_error_code(result) is not None
    assert f'No tool "echo": this page ({site}/none.html) {NO_CONTEXT}.' in _text(result)
    assert "or a page that loads a WebMCP polyfill." in _text(result)


@pytest.mark.parametrize("polyfill", list(PACKAGES))
def test_auto_lists_and_calls_a_polyfilled_pages_tools_in_page(
    flagless_pages: KeptPages, site: str, polyfill: str
) -> None:
    async def body() -> None:
        page = flagless_pages["bare"].page
        async with await WebMCPSession.attach(page, timeout=WAIT) as session:
            await page.goto(f"{site}/{polyfill}.html")
            await page.evaluate("window.toolsReady")
            tools = {t.name: t for t in await session.tools()}
            assert sorted(tools) == ["boom", "echo"]
            assert {t.backend for t in tools.values()} == {"inpage"}
            assert {t.source for t in tools.values()} == {"document.modelContext"}
            assert tools["echo"].read_only
            result = await session.call("echo", {"text": "hi"})
            assert result["content"] == [{"type": "text", "text": '{"echo":"hi"}'}]
            boom = await session.call("boom")
            assert _code(boom, session) == "failed"
            assert _text(boom) == "Error [failed]: the kettle is broken"  # prefix cut
            # A tool the page does not have: unavailable, naming the tools it has.
            missing = await session.call("nope")
            assert "Tools here: boom, echo." in _text(missing)

    flagless_pages.run(body())


# -- 3. the demo shop's scenarios with the polyfill injected ---------------------------------


class Outcome(NamedTuple):
    code: str | None
    result: ToolResult
    record: dict[str, Any]
    backend: str
    cancelled_in_page: int | None


# @mcp-b/webmcp-polyfill through backend="inpage"; @mcp-b/global through backend="auto" (every
# source at once: the tools are found on the page's script object). Both polyfills agree through either backend (docs/polyfills.md).
RUNS = [("webmcp-polyfill", "inpage"), ("global", "auto")]


async def _run_scenario(
    kept: KeptPage, shop: str, backend: Any, scenario: dict[str, Any]
) -> Outcome:
    page = kept.page  # its polyfill is injected into its context (`kept_pages`)
    async with await WebMCPSession.attach(page, backend=backend, timeout=WAIT) as session:
        await page.goto(shop + scenario["page"])
        if scenario["expect"] != "unavailable":
            await wait_for_tool_or_refusal(session, page, scenario, WAIT)
        result = await session.call(
            scenario["tool"],
            scenario["args"],
            timeout=scenario["timeout"],
            frame=scenario.get("frame"),
            confirm=scenario.get("confirm", False),
        )
        cancelled = None
        if scenario["expect"] == "timeout":
            cancelled = await page.evaluate("window.__demo.cancelled.length")
        return Outcome(
            _code(result, session),
            result,
            session.records[-1].to_dict(),
            session.records[-1].backend or "none",
            cancelled,
        )


@pytest.mark.parametrize("scenario_id", list(SCENARIOS))
def test_a_demo_scenario_through_a_polyfill_gives_the_tables_code(
    flagless_pages: KeptPages, shop: str, scenario_id: str
) -> None:
    scenario = SCENARIOS[scenario_id]

    async def both() -> list[Outcome]:  # the runs are independent: each on its own page
        return await asyncio.gather(
            *(_run_scenario(flagless_pages[p], shop, b, scenario) for p, b in RUNS)
        )

    for (polyfill, _), got in zip(RUNS, flagless_pages.run(both()), strict=True):
        why = f"{polyfill}: " + json.dumps(got.record, default=str)[:2000]
        # the tool's own source (a call to a tool the page lacks reaches none)
        assert got.backend == (
            "none" if polyfill_code(scenario_id) == "unavailable" else "inpage"
        ), why
        assert got.code == polyfill_code(scenario_id), why
        text = _text(got.result)
        # What the codes do not show (POLYFILL_NOTES), and the text surviving the lost code.
        if scenario_id in POLYFILL_DIFFERS and polyfill_code(scenario_id) == "failed":
            assert text.startswith("Error [failed]: "), why
            assert "Tool was executed" not in text, why
        if scenario_id == "claim-welcome-coupon":
            assert "it may or may not have worked" in text, why
        if scenario_id == "check-payment-status":
            assert got.cancelled_in_page == 0, why  # no signal, no toolcancel: never told
        if scenario_id == "track-order":  # the next page's JSON-LD, as natively
            assert json.loads(text)[0]["@type"] == "ParcelDelivery", why
        if scenario_id == "update-quantity-reregisters":
            assert "replaced during the call and gave no answer" in text, why
            assert "Tool unregistered" in text, why


def test_the_table_covers_every_scenario_and_the_docs_carry_it() -> None:
    assert set(POLYFILL_DIFFERS) | set(POLYFILL_NOTES) <= set(SCENARIOS)
    for scenario_id, (code, _) in POLYFILL_DIFFERS.items():
        assert code != SCENARIOS[scenario_id]["expect"]
    docs = DIFFERENTIAL.read_text(encoding="utf-8")  # the native and in-page columns
    rows = {
        m.group(1): (m.group(2), m.group(3))
        for m in re.finditer(r"^\| `([a-z0-9-]+)` \| (\S+) \| (\S+) \|", docs, re.MULTILINE)
    }
    for scenario_id, scenario in SCENARIOS.items():
        native = scenario["expect"] or "ok"
        assert rows.get(scenario_id) == (native, polyfill_code(scenario_id) or "ok"), scenario_id


# -- 1. the CLI on polyfilled pages ----------------------------------------------------------


class Run(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def _cli(*args: str) -> Run:
    done = subprocess.run(
        [sys.executable, "-m", "webmcp_harness", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def _cli_runs(*commands: list[str]) -> list[Any]:
    """Run the CLI commands at once; each must exit 0 and print one JSON document."""
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        runs = list(pool.map(lambda argv: _cli(*argv), commands))
    for run in runs:
        assert run.returncode == 0, run.stderr
    return [json.loads(run.stdout) for run in runs]


def _without_the_flag(flagless: str, backend: str, timeout: float = WAIT) -> list[str]:
    """The CLI on the flagless Chromium, as a user points it at their own browser."""
    return ["--json", "--cdp", flagless, "--backend", backend, "--timeout", f"{timeout:g}"]


def _echo_tool(url: str) -> dict[str, Any]:
    return {
        "name": "echo",
        "description": "Echo the text back.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        "annotations": {"readOnlyHint": True, "untrustedContentHint": False},
        "frameId": "inpage:0",
        "frameUrl": url,
        "frameOrigin": url.split("/pages/")[0],
        "pageId": "",
        "pageUrl": "",
        "declarative": False,
        "backend": "inpage",
        "source": "document.modelContext",
        "origin": url.split("/pages/")[0],
    }


def test_cli_tools_and_call_work_on_polyfilled_pages_without_the_flag(
    site: str, flagless: str
) -> None:
    # Each command, each backend and each polyfill at least once.
    polyfill, glob = f"{site}/webmcp-polyfill.html", f"{site}/global.html"
    tools_auto, tools_inpage, echo, boom = _cli_runs(
        ["tools", polyfill, *_without_the_flag(flagless, "auto")],
        ["tools", glob, *_without_the_flag(flagless, "inpage")],
        ["call", polyfill, "echo", ECHO, *_without_the_flag(flagless, "inpage")],
        ["call", glob, "boom", *_without_the_flag(flagless, "auto")],
    )
    for tools, url in ((tools_auto, polyfill), (tools_inpage, glob)):
        assert sorted(t["name"] for t in tools) == ["boom", "echo"]
        assert next(t for t in tools if t["name"] == "echo") == _echo_tool(url)
    assert echo == {"content": [{"type": "text", "text": '{"echo":"hi"}'}]}
    assert boom["structuredContent"]["error"] == {"code": "failed", "retryable": False}
    assert boom["content"][0]["text"] == "Error [failed]: the kettle is broken"


def test_cli_call_on_a_page_without_model_context_says_so(site: str, flagless: str) -> None:
    # `call` waits up to --timeout (here 3 s) for the tool to be registered; --settle 0 reads
    # the list at once instead of also waiting up to 2.5 s for a first tool before the call.
    none = f"{site}/none.html"
    (result,) = _cli_runs(
        ["call", none, "echo", "--settle", "0", *_without_the_flag(flagless, "auto", 3)]
    )
    assert result["structuredContent"]["error"] == {"code": "unavailable", "retryable": True}
    assert f"this page ({site}/none.html) {NO_CONTEXT}." in result["content"][0]["text"]


def test_with_the_flag_on_the_cli_reaches_polyfilled_tools_natively(
    site: str, browser_server: str
) -> None:
    # A Chromium with the WebMCP flag (as the CLI launches it; here the worker's browser server):
    # the polyfills defer to (or wrap) native WebMCP.
    connect = ["--connect", browser_server]
    (tools,) = _cli_runs(
        ["tools", f"{site}/global.html", "--json", "--timeout", f"{WAIT:g}", *connect]
    )
    assert sorted(t["name"] for t in tools) == ["boom", "echo"]
    assert {t["backend"] for t in tools} == {"cdp"}  # the browser's own registry


def test_with_the_flag_on_a_forced_inpage_backend_keeps_a_thrown_message(
    site: str, browser_server: str
) -> None:
    # @mcp-b/global over native WebMCP: Chromium's script executeTool() drops what the tool threw;
    # the in-page backend gives the same code and message as the default one.
    url, connect = f"{site}/global-throws.html", ["--connect", browser_server]
    default, inpage = _cli_runs(
        *(
            ["call", url, "find_product", '{"id": "p-9"}', "--json", "--backend", backend, *connect]
            for backend in ("auto", "inpage")
        )
    )
    for result in (default, inpage):
        assert result["structuredContent"]["error"] == {"code": "failed", "retryable": False}
        assert result["content"][0]["text"] == "Error [failed]: Product not found: p-9"


# -- 2. the pytest fixture on polyfilled pages -----------------------------------------------

INNER_CONFTEST = """
import pytest


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    # A browser without WebMCP: the plugin leaves features the user disables off.
    return {
        **browser_type_launch_args,
        "args": ["--disable-features=WebMCP,WebMCPTesting,DevToolsWebMCPSupport"],
    }


@pytest.fixture
def site():
    return SITE
"""

INNER_TESTS = """
import pytest

from webmcp_harness import expect


@pytest.mark.webmcp(backend="inpage")
@pytest.mark.parametrize("polyfill", ["webmcp-polyfill", "global"])
def test_the_fixture_calls_a_polyfilled_pages_tools(page, webmcp, site, polyfill):
    page.goto(f"{site}/{polyfill}.html")
    page.evaluate("window.toolsReady")
    assert page.evaluate("'modelContext' in document")  # the polyfill's
    expect(webmcp).to_have_tool("echo")
    assert {t.backend for t in webmcp.tools()} == {"inpage"}
    result = webmcp.call("echo", {"text": "hi"})
    expect(result).to_succeed()
    assert result["content"][0]["text"] == '{"echo":"hi"}'
    boom = webmcp.call("boom")
    expect(boom).to_have_code("failed")
    assert boom["content"][0]["text"] == "Error [failed]: the kettle is broken"


@pytest.mark.webmcp(backend="inpage")
def test_the_fixture_says_a_page_has_no_model_context(page, webmcp, site):
    page.goto(f"{site}/none.html")
    assert not page.evaluate("'modelContext' in document")
    result = webmcp.call("echo")
    expect(result).to_have_code("unavailable")
    assert "has no document.modelContext" in result["content"][0]["text"]


def test_auto_skips_in_a_browser_without_webmcp_and_points_at_inpage(webmcp):
    pass
"""


def test_the_fixture_with_backend_inpage_works_in_chromium_without_the_flag(
    pytester: pytest.Pytester, site: str
) -> None:
    pytester.makeconftest(INNER_CONFTEST.replace("SITE", repr(site)))
    pytester.makepyfile(test_polyfilled=INNER_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rs", timeout=180)
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(
        ["SKIPPED *has no WebMCP: document.modelContext is missing*--webmcp-backend=inpage*"]
    )


def test_with_the_flag_on_the_fixture_reaches_a_polyfilled_page_natively(
    page: Page, webmcp: SyncSession, site: str
) -> None:
    page.goto(f"{site}/global.html")
    page.evaluate("window.toolsReady")
    assert page.evaluate("document.modelContext.__isBrowserMcpServer") is True
    assert webmcp.wait_for_tool("echo", timeout=WAIT) is not None
    assert {t.backend for t in webmcp.tools()} == {"cdp"}
    result = webmcp.call("echo", {"text": "hi"})
    assert result["content"] == [{"type": "text", "text": '{"echo":"hi"}'}]


@pytest.mark.webmcp(backend="inpage")
def test_with_the_flag_on_a_forced_inpage_backend_sees_a_global_wrapped_form_wait(
    page: Page, webmcp: SyncSession, shop: str
) -> None:
    # @mcp-b/global over native WebMCP: native fires `toolactivated` on the context global wraps.
    page.context.add_init_script(path=str(POLYFILLS / "global" / "index.iife.js"))
    scenario = SCENARIOS["newsletter-waits-for-person"]
    page.goto(shop + scenario["page"])
    assert webmcp.wait_for_tool(scenario["tool"], timeout=WAIT) is not None
    backend: Any = webmcp.core.backend.inpage
    assert backend.implementations["inpage:0"] == "@mcp-b/global+native"
    webmcp.call(scenario["tool"], scenario["args"], timeout=WAIT)
    assert webmcp.records[-1].code == "needs_user"
