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
`@mcp-b/global` wraps native), so the flag is harmless.

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
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright
from playwright.sync_api import Page

from webmcp_harness import WebMCPSession, tool_error_code
from webmcp_harness.browser import find_browser, launch_args
from webmcp_harness.demo import DemoServer, load_expectations
from webmcp_harness.results import ToolResult
from webmcp_harness.sync_api import WebMCPSession as SyncSession

pytest_plugins = ["pytester"]

TESTS = Path(__file__).parent
POLYFILLS = TESTS / "polyfills"
DOCS = TESTS.parent / "docs" / "polyfills.md"
PACKAGES = {"webmcp-polyfill": "@mcp-b/webmcp-polyfill", "global": "@mcp-b/global"}
WAIT = 10.0  # upper bound of any wait on the browser; the waits end on events
ASYNC = pytest.mark.asyncio(loop_scope="module")
NO_CONTEXT = "has no document.modelContext"

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
}
# Same code, but not the same call: id -> what differs.
POLYFILL_NOTES: dict[str, str] = {
    "check-payment-status": "same code, but the page is never told: the polyfill passes the tool no "
    "`AbortSignal` and has no `toolcancel`, so the tool runs on (`window.__demo.cancelled` stays empty)",
    "track-order": "same code, other content: the polyfill answers when the form submits, before the "
    "navigation, with nothing (`{content: []}`), not the next page's JSON-LD",
    "update-quantity-reregisters": "same code: the polyfill rejects the call with `Tool unregistered` "
    "the moment the page unregisters the tool; the in-page backend reports that as the tool's removal",
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
def flagless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Chromium launched without the WebMCP flag, reachable over CDP (as `--cdp` takes it).

    This is how a user points the CLI at a browser without WebMCP: their own browser, started
    with a debugging port; the CLI only ever launches Chromium with the flag.
    """
    profile = tmp_path_factory.mktemp("flagless-profile")
    chromium = subprocess.Popen(
        [
            find_browser(),
            "--headless",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--no-default-browser-check",
            *launch_args(webmcp=False),
            "about:blank",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert chromium.stderr is not None
    endpoint = None
    for line in chromium.stderr:  # ends at the line below, or when Chromium exits
        found = re.search(r"DevTools listening on ws://([^/\s]+)/", line)
        if found:
            endpoint = f"http://{found.group(1)}"
            break
    # Keep draining stderr so Chromium never blocks on a full pipe.
    threading.Thread(target=chromium.stderr.read, daemon=True).start()
    try:
        assert endpoint, f"Chromium exited with {chromium.poll()} before listening"
        yield endpoint
    finally:
        chromium.terminate()
        try:
            chromium.wait(WAIT)
        except subprocess.TimeoutExpired:
            chromium.kill()
            chromium.wait(WAIT)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser(flagless: str) -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        connected = await p.chromium.connect_over_cdp(flagless)
        yield connected
        await connected.close()


def _text(result: ToolResult) -> str:
    content = result.get("content") or []
    return str(content[0].get("text", "")) if content else ""


def _code(result: ToolResult, session: WebMCPSession) -> str | None:
    found = tool_error_code(result)
    return found.value if found else session.records[-1].code


# -- the browser really is without WebMCP ------------------------------------------------------


@ASYNC
async def test_the_flagless_chromium_has_no_model_context_of_its_own(
    browser: Browser, site: str
) -> None:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(f"{site}/none.html")
        assert await page.evaluate("isSecureContext && !('modelContext' in document)") is True
        await page.goto(f"{site}/global.html")
        assert await page.evaluate("document.modelContext.__isBrowserMcpServer") is True
    finally:
        await context.close()


# -- 4. a page with no document.modelContext at all ------------------------------------------


@ASYNC
@pytest.mark.parametrize("backend", ["auto", "cdp", "inpage"])
async def test_a_page_without_model_context_is_unavailable_and_says_why(
    browser: Browser, site: str, backend: Any
) -> None:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        session = await WebMCPSession.attach(page, backend=backend, timeout=WAIT)
        await page.goto(f"{site}/none.html")
        assert await session.tools() == []
        result = await session.call("echo", {"text": "hi"})
        assert tool_error_code(result) is not None
        assert _code(result, session) == "unavailable"
        assert f'No tool "echo": this page ({site}/none.html) {NO_CONTEXT}' in _text(result)
        assert "or a page that loads a WebMCP polyfill" in _text(result)
        await session.close()
    finally:
        await context.close()


@ASYNC
@pytest.mark.parametrize("polyfill", list(PACKAGES))
async def test_auto_moves_to_the_in_page_backend_on_a_polyfilled_page(
    browser: Browser, site: str, polyfill: str
) -> None:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        session = await WebMCPSession.attach(page, timeout=WAIT)
        assert session.backend.name == "cdp"  # WebMCP.enable answers even without the flag
        await page.goto(f"{site}/{polyfill}.html")
        await page.evaluate("window.toolsReady")
        tools = {t.name: t for t in await session.tools()}
        assert session.backend.name == "inpage"
        assert sorted(tools) == ["boom", "echo"]
        assert {t.backend for t in tools.values()} == {"inpage"}
        assert tools["echo"].read_only
        result = await session.call("echo", {"text": "hi"})
        assert result["content"] == [{"type": "text", "text": '{"echo":"hi"}'}]
        boom = await session.call("boom")
        assert _code(boom, session) == "failed"
        assert _text(boom) == "Error [failed]: the kettle is broken"  # the polyfill's prefix cut
        # A tool the page does not have: unavailable, naming the tools it has.
        missing = await session.call("nope")
        assert "Tools here: boom, echo." in _text(missing)
        await session.close()
    finally:
        await context.close()


# -- 3. the demo shop's scenarios with the polyfill injected ---------------------------------


class Outcome(NamedTuple):
    code: str | None
    result: ToolResult
    record: dict[str, Any]
    backend: str
    cancelled_in_page: int | None


# @mcp-b/webmcp-polyfill through backend="inpage"; @mcp-b/global through backend="auto" (which
# starts on CDP and moves in-page). Both polyfills agree through either backend (docs/polyfills.md).
RUNS = [("webmcp-polyfill", "inpage"), ("global", "auto")]
PARALLEL = 4


async def _run_scenario(
    browser: Browser, shop: str, polyfill: str, backend: Any, scenario: dict[str, Any]
) -> Outcome:
    context = await browser.new_context()
    try:
        # Installed before the shop's scripts, which guard with `if (document.modelContext)`.
        await context.add_init_script(path=str(POLYFILLS / polyfill / "index.iife.js"))
        page = await context.new_page()
        session = await WebMCPSession.attach(page, backend=backend, timeout=WAIT)
        try:
            await page.goto(shop + scenario["page"])
            if scenario["expect"] != "unavailable":
                await session.wait_for_tool(scenario["tool"], timeout=WAIT)
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
                session.backend.name,
                cancelled,
            )
        finally:
            await session.close()
    finally:
        await context.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def outcomes(browser: Browser, shop: str) -> dict[tuple[str, str], Outcome]:
    """Every scenario through every run, a few at once (each in its own browser context)."""
    gate = asyncio.Semaphore(PARALLEL)

    async def one(polyfill: str, backend: str, scenario: dict[str, Any]) -> Outcome:
        async with gate:
            return await _run_scenario(browser, shop, polyfill, backend, scenario)

    keys = [(p, s) for p, _ in RUNS for s in SCENARIOS]
    done = await asyncio.gather(*(one(p, b, SCENARIOS[s]) for p, b in RUNS for s in SCENARIOS))
    return dict(zip(keys, done, strict=True))


@ASYNC
@pytest.mark.parametrize("scenario_id", list(SCENARIOS))
@pytest.mark.parametrize("polyfill", [p for p, _ in RUNS])
async def test_a_demo_scenario_through_the_polyfill_gives_the_tables_code(
    outcomes: dict[tuple[str, str], Outcome], polyfill: str, scenario_id: str
) -> None:
    got = outcomes[(polyfill, scenario_id)]
    why = json.dumps(got.record, default=str)[:2000]
    assert got.backend == "inpage", why
    assert got.code == polyfill_code(scenario_id), why


@ASYNC
@pytest.mark.parametrize("polyfill", [p for p, _ in RUNS])
async def test_what_the_same_codes_hide(
    outcomes: dict[tuple[str, str], Outcome], polyfill: str
) -> None:
    timed_out = outcomes[(polyfill, "check-payment-status")]
    assert timed_out.code == "timeout"
    assert timed_out.cancelled_in_page == 0  # no signal, no toolcancel: the page never hears
    tracked = outcomes[(polyfill, "track-order")].result
    assert tracked["content"] == []  # answered at submit: no JSON-LD of the next page
    replaced = outcomes[(polyfill, "update-quantity-reregisters")]
    assert "removed or replaced during the call" in _text(replaced.result)
    assert "Tool unregistered" in _text(replaced.result)
    for scenario_id in POLYFILL_DIFFERS:  # the text survives where the code does not
        text = _text(outcomes[(polyfill, scenario_id)].result)
        assert text.startswith("Error [failed]: ")
        assert "Tool was executed" not in text


def test_the_table_covers_every_scenario_and_the_docs_carry_it() -> None:
    assert set(POLYFILL_DIFFERS) | set(POLYFILL_NOTES) <= set(SCENARIOS)
    for scenario_id, (code, _) in POLYFILL_DIFFERS.items():
        assert code != SCENARIOS[scenario_id]["expect"]
    docs = DOCS.read_text(encoding="utf-8")
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


@pytest.fixture(scope="module")
def cli(site: str, flagless: str) -> dict[tuple[str, ...], Run]:
    """The CLI runs of this module, a few at once (each is a process and a browser session)."""
    plans: dict[tuple[str, ...], list[str]] = {}
    for polyfill in PACKAGES:
        url = f"{site}/{polyfill}.html"
        for backend in ("auto", "inpage"):
            common = ["--cdp", flagless, "--backend", backend, "--timeout", str(WAIT)]
            plans[("tools", polyfill, backend)] = ["tools", url, "--json", *common]
            plans[("echo", polyfill, backend)] = [
                "call",
                url,
                "echo",
                '{"text": "hi"}',
                "--json",
                *common,
            ]
        # The CLI's own launch, WebMCP flag on: the polyfill defers to (or wraps) native WebMCP.
        plans[("tools", polyfill, "flag")] = ["tools", url, "--json", "--timeout", str(WAIT)]
    plans[("boom", "global", "inpage")] = [
        "call",
        f"{site}/global.html",
        "boom",
        "--json",
        "--cdp",
        flagless,
        "--backend",
        "inpage",
    ]
    plans[("echo", "global", "flag")] = [
        "call",
        f"{site}/global.html",
        "echo",
        '{"text": "hi"}',
        "--json",
        "--timeout",
        str(WAIT),
    ]
    for backend in ("auto", "inpage"):  # --timeout 3: `call` waits up to 3 s for the tool
        plans[("echo", "none", backend)] = [
            "call", f"{site}/none.html", "echo", "--json", "--cdp", flagless,
            "--backend", backend, "--timeout", "3",
        ]  # fmt: skip
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        runs = {key: pool.submit(_cli, *argv) for key, argv in plans.items()}
        return {key: future.result() for key, future in runs.items()}


def _json(run: Run) -> Any:
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.parametrize("backend", ["auto", "inpage"])
@pytest.mark.parametrize("polyfill", list(PACKAGES))
def test_cli_tools_lists_a_polyfilled_pages_tools_without_the_flag(
    cli: dict[tuple[str, ...], Run], polyfill: str, backend: str
) -> None:
    tools = {t["name"]: t for t in _json(cli[("tools", polyfill, backend)])}
    assert sorted(tools) == ["boom", "echo"]
    assert tools["echo"]["backend"] == "inpage"
    assert tools["echo"]["frameId"] == "inpage:0"
    assert tools["echo"]["inputSchema"]["required"] == ["text"]


@pytest.mark.parametrize("backend", ["auto", "inpage"])
@pytest.mark.parametrize("polyfill", list(PACKAGES))
def test_cli_call_calls_a_polyfilled_pages_tool_without_the_flag(
    cli: dict[tuple[str, ...], Run], polyfill: str, backend: str
) -> None:
    assert _json(cli[("echo", polyfill, backend)]) == {
        "content": [{"type": "text", "text": '{"echo":"hi"}'}]
    }


def test_cli_call_codes_a_polyfilled_failure_like_a_native_one(
    cli: dict[tuple[str, ...], Run],
) -> None:
    result = _json(cli[("boom", "global", "inpage")])
    assert result["structuredContent"]["error"] == {"code": "failed", "retryable": False}
    assert result["content"][0]["text"] == "Error [failed]: the kettle is broken"


@pytest.mark.parametrize("backend", ["auto", "inpage"])
def test_cli_call_on_a_page_without_model_context_says_so(
    cli: dict[tuple[str, ...], Run], site: str, backend: str
) -> None:
    result = _json(cli[("echo", "none", backend)])
    assert result["structuredContent"]["error"] == {"code": "unavailable", "retryable": True}
    assert f"this page ({site}/none.html) {NO_CONTEXT}" in result["content"][0]["text"]


@pytest.mark.parametrize("polyfill", list(PACKAGES))
def test_with_the_flag_on_the_cli_reaches_polyfilled_tools_natively(
    cli: dict[tuple[str, ...], Run], polyfill: str
) -> None:
    tools = {t["name"]: t for t in _json(cli[("tools", polyfill, "flag")])}
    assert sorted(tools) == ["boom", "echo"]
    assert {t["backend"] for t in tools.values()} == {"cdp"}  # the browser's own registry
    if polyfill == "global":
        assert _json(cli[("echo", "global", "flag")])["content"][0]["text"] == '{"echo":"hi"}'


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
