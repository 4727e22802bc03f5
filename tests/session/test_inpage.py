"""The in-page backend against the real polyfills, in Chromium launched WITHOUT the WebMCP flag.

The vendored builds (tests/polyfills/) are the only `document.modelContext` in these pages. The
tests share one page (`tab`), each opening its own document in it (`KeptPage`).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright

from async_chromium import KeptPage
from webmcp_harness.core.records import BrowserReport, Tool
from webmcp_harness.session._backends.base import BackendError
from webmcp_harness.session._backends.inpage import (
    InPageBackend,
    InPageInvocation,
    detect_implementation,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

POLYFILLS = Path(__file__).parents[1] / "polyfills"
PACKAGES = {"webmcp-polyfill": "@mcp-b/webmcp-polyfill", "global": "@mcp-b/global"}
WAIT = 10.0  # upper bound for any wait on the browser; the waits end on events, not on time
FAILED_PREFIX = (
    "Tool was executed but the invocation failed. For example, the script function threw an error"
)

TOOLS_JS = """
window.calls = [];
window.toolsReady = (async () => {
  const mc = document.modelContext;
  await mc.registerTool({
    name: "echo", description: "Echo the text back.",
    inputSchema: {type: "object", properties: {text: {type: "string"}}, required: ["text"]},
    annotations: {readOnlyHint: true},
    execute: (args, ...rest) => { window.calls.push({args, extra: rest.length}); return {echo: args.text}; },
  });
  await mc.registerTool({
    name: "fails", description: "Throws an error with a code.",
    execute: () => { const e = new TypeError("no such order"); e.code = "needs_user"; throw e; },
  });
  await mc.registerTool({
    name: "aborts_itself", description: "Throws its own AbortError.",
    execute: () => { throw new DOMException("gave up", "AbortError"); },
  });
  await mc.registerTool({
    name: "slow", description: "Runs until the page lets it finish.",
    execute: (args, ...rest) => new Promise((resolve) => {
      window.slow = {extra: rest.length, finish: resolve};
    }),
  });
  await mc.registerTool({
    name: "navigates", description: "Goes to another page and never answers.",
    execute: () => { location.href = "other.html"; return new Promise(() => {}); },
  });
  await mc.registerTool({name: "nothing", description: "Returns null.", execute: () => null});
  await mc.registerTool({name: "undef", description: "Returns undefined.", execute: () => {}});
  await mc.registerTool({name: "text", description: "Returns JSON text.", execute: () => '{"a":1}'});
  await mc.registerTool({name: "umlaut", description: "Returns non-ASCII.", execute: () => ({a: "Grüße"})});
  await mc.registerTool({
    name: "mcp", description: "Returns an MCP result.",
    execute: () => ({content: [{type: "text", text: "Error [needs_user]: Ask."}], isError: true}),
  });
  await mc.registerTool({
    name: "circular", description: "Returns a circular object.",
    execute: () => { const o = {}; o.self = o; return o; },
  });
  const removal = new AbortController();
  await mc.registerTool({
    name: "removes_itself", description: "Unregisters itself mid-call.",
    execute: () => new Promise((resolve) => { removal.abort(); setTimeout(() => resolve("late"), 0); }),
  }, {signal: removal.signal});
  return true;
})();
"""


def html(body: str, *, polyfill: str | None = "webmcp-polyfill", head: str = "") -> bytes:
    script = f'<script src="/polyfills/{polyfill}/index.iife.js"></script>' if polyfill else ""
    return (
        f"<!doctype html><html><head><meta charset=utf-8>{head}{script}</head>"
        f"<body>{body}</body></html>"
    ).encode()


def site(polyfill: str) -> dict[str, bytes]:
    """The test pages, all loading one polyfill."""
    return {
        "/tools.html": html(f"<h1>tools</h1><script>{TOOLS_JS}</script>", polyfill=polyfill),
        "/other.html": html(
            "<h1>other</h1><script>window.otherReady = document.modelContext.registerTool("
            "{name: 'elsewhere', description: 'On the other tab.', execute: () => 'there'})"
            ".then(() => true);</script>",
            polyfill=polyfill,
        ),
        "/frames.html": html(
            "<h1>frames</h1>"
            "<script>window.topReady = document.modelContext.registerTool("
            "{name: 'top_tool', description: 'In the top frame.', execute: () => 'top'})"
            ".then(() => true);</script>"
            '<iframe id="same" src="child.html"></iframe>',
            polyfill=polyfill,
        ),
        "/child.html": html(
            "<p>child</p><script>window.childReady = document.modelContext.registerTool("
            "{name: 'child_tool', description: 'In the iframe.', execute: () => location.pathname})"
            ".then(() => true, (e) => String(e));</script>",
            polyfill=polyfill,
        ),
        "/forms.html": html(
            '<form toolname="search" tooldescription="Search the catalog." toolautosubmit>'
            '<input name="q" required></form>'
            '<form toolname="order" tooldescription="Order, once the person agrees.">'
            '<input name="item" required><button type="submit">Order</button></form>'
            "<script>document.addEventListener('submit', (e) => {"
            " if (!e.agentInvoked) return; e.preventDefault();"
            " const data = Object.fromEntries(new FormData(e.target));"
            " e.respondWith(Promise.resolve({form: e.target.getAttribute('toolname'), data}));"
            "});</script>",
            polyfill=polyfill,
        ),
        "/odd-forms.html": html(
            '<form toolname="no_button" tooldescription="Waits, with nothing to press.">'
            '<input name="q"></form>'
            '<form toolname="goes_away" tooldescription="Removed while it waits.">'
            '<input name="q"><button type="submit">Go</button></form>',
            polyfill=polyfill,
        ),
        "/empty.html": html("<h1>no WebMCP here</h1>", polyfill=None),
        "/late.html": html(
            "<h1>late</h1><script>window.loadLate = (src) => { const s ="
            " document.createElement('script'); s.src = src; document.head.append(s); };</script>",
            polyfill=None,
        ),
        "/late-tools.js": b"document.modelContext.registerTool({name: 'late_tool',"
        b" description: 'Came with a late script.', execute: () => 'late'});",
        "/shim.html": html(
            "<script>"
            # Hide executeTool so only navigator.modelContextTesting can run tools.
            "Object.defineProperty(document.modelContext, 'executeTool', {value: undefined});"
            "window.shimReady = document.modelContext.registerTool({name: 'shim_echo',"
            " description: 'Echo through the testing shim.',"
            " inputSchema: {type: 'object', properties: {text: {type: 'string'}}},"
            " execute: (a) => ({shim: a.text})}).then(() => true);</script>",
            polyfill=polyfill,
            head="<script>window.__webMCPPolyfillOptions = {installTestingShim: true};</script>",
        ),
        "/cross.html": html(
            "<h1>cross</h1><script>document.body.append(Object.assign("
            "document.createElement('iframe'), {id: 'cross', src: new URL('child.html',"
            " location.href).href.replace('127.0.0.1', 'localhost')}));</script>",
            polyfill=polyfill,
        ),
        "/fake-cross.html": html(
            "<h1>cross</h1><script>document.body.append(Object.assign("
            "document.createElement('iframe'), {id: 'cross', src: new URL('fake.html',"
            " location.href).href.replace('127.0.0.1', 'localhost')}));</script>",
            polyfill=None,
        ),
        # A hand-made ModelContext whose executeTool ignores its AbortSignal.
        "/fake.html": html(
            "<script>"
            "const tools = [{name: 'fake_tool', description: 'A script tool.', window, origin: location.origin}];"
            "const mc = new EventTarget();"
            "mc.getTools = async () => tools;"
            "mc.executeTool = (tool, json) => json === '{\"hang\":true}' ? new Promise(() => {})"
            " : Promise.resolve(JSON.stringify({from: location.host, got: JSON.parse(json)}));"
            "Object.defineProperty(document, 'modelContext', {value: mc});"
            "</script>",
            polyfill=None,
        ),
    }


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, dict[str, bytes]]] = {}

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        body: bytes | None = None
        kind = "text/html; charset=utf-8"
        if path.startswith("/polyfills/"):
            file = (POLYFILLS / path.removeprefix("/polyfills/")).resolve()
            if file.is_file() and POLYFILLS.resolve() in file.parents:
                body, kind = file.read_bytes(), "text/javascript; charset=utf-8"
        else:
            prefix, _, rest = path.lstrip("/").partition("/")
            body = self.routes.get(prefix, {}).get("/" + rest)
            if rest.endswith(".js"):
                kind = "text/javascript; charset=utf-8"
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    """Serves /<polyfill>/<page> for both polyfills, and the vendored files, on a free port."""
    _Handler.routes = {name: site(name) for name in PACKAGES}
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_port
    httpd.shutdown()
    httpd.server_close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update"],
        )
        yield browser
        await browser.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def kept_tab(chromium: Browser) -> AsyncIterator[KeptPage]:
    kept = await KeptPage.open(chromium)
    yield kept
    await kept.close()


@pytest_asyncio.fixture(loop_scope="module")
async def tab(kept_tab: KeptPage) -> AsyncIterator[Page]:
    """The module's page for one test, left as a new context's after it: blank, its origins'
    data cleared, and a new one when the test closed or crashed it."""
    yield kept_tab.page
    await kept_tab.clean()


@pytest.fixture(params=list(PACKAGES))
def polyfill(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def url(server: int, polyfill: str) -> Callable[[str], str]:
    return lambda path: f"http://127.0.0.1:{server}/{polyfill}{path}"


class Seen:
    """What the backend reported through its callbacks, with waits that end on events."""

    def __init__(self) -> None:
        self.added: list[Tool] = []
        self.removed: list[Tool] = []
        self.interrupts: list[tuple[str, str, dict[str, Any]]] = []
        self._changed = asyncio.Event()

    def on_tools(self, added: list[Tool], removed: list[Tool]) -> None:
        self.added += added
        self.removed += removed
        self._changed.set()

    def on_interrupt(self, kind: str, frame_id: str, detail: dict[str, Any]) -> None:
        self.interrupts.append((kind, frame_id, detail))
        self._changed.set()

    async def until(self, check: Callable[[], bool]) -> None:
        async def loop() -> None:
            while not check():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), WAIT)


async def attach(tab: Page) -> tuple[InPageBackend, Seen]:
    seen = Seen()
    backend = InPageBackend(tab)
    await backend.open(seen.on_tools, seen.on_interrupt)
    return backend, seen


async def goto(tab: Page, address: str, ready: str | None = None) -> None:
    await tab.goto(address)
    if ready:
        await tab.wait_for_function(ready, timeout=WAIT * 1000)


async def answer(invocation: InPageInvocation) -> BrowserReport:
    return await asyncio.wait_for(asyncio.shield(invocation.answered), WAIT)


async def call(
    backend: InPageBackend, name: str, args: dict[str, Any] | None = None
) -> BrowserReport:
    tools = {t.name: t for t in await backend.list_tools()}
    return await answer(await backend.invoke(tools[name], args or {}))


@pytest_asyncio.fixture(loop_scope="module")
async def tools_page(
    tab: Page, url: Callable[[str], str]
) -> AsyncIterator[tuple[InPageBackend, Seen]]:
    await goto(tab, url("/tools.html"), "window.toolsReady")
    await tab.evaluate("window.toolsReady")
    backend, seen = await attach(tab)
    yield backend, seen
    await backend.close()


# -- the browser really has no WebMCP of its own ------------------------------------------------


async def test_chromium_without_the_flag_has_no_model_context(tab: Page, server: int) -> None:
    await goto(tab, f"http://127.0.0.1:{server}/global/empty.html")
    assert await tab.evaluate("'modelContext' in document") is False
    assert await detect_implementation(tab) is None


async def test_detect_implementation_names_the_polyfill_and_leaves_no_trace(
    tab: Page, url: Callable[[str], str], polyfill: str
) -> None:
    await goto(tab, url("/tools.html"), "window.toolsReady")
    assert await detect_implementation(tab) == PACKAGES[polyfill]
    assert await tab.evaluate("'__webmcpHarness' in window") is False


# -- listing -----------------------------------------------------------------------------------


async def test_lists_the_polyfill_tools_with_schema_annotations_and_frame(
    tools_page: tuple[InPageBackend, Seen], polyfill: str
) -> None:
    backend, seen = tools_page
    tools = {t.name: t for t in await backend.list_tools()}
    assert {"echo", "fails", "slow", "navigates", "nothing", "removes_itself"} <= set(tools)
    echo = tools["echo"]
    assert echo.description == "Echo the text back."
    assert echo.input_schema == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }
    assert echo.read_only is True
    assert echo.backend == "inpage"
    assert echo.frame_id == backend.main_frame_id == "inpage:0"
    assert echo.frame_url.endswith("/tools.html")
    assert echo.declarative is False
    assert tools["nothing"].input_schema is None  # registered without one
    assert backend.implementations["inpage:0"] == PACKAGES[polyfill]
    assert {t.name for t in seen.added} == set(tools)  # open() reported what was there


async def test_a_page_without_model_context_has_no_tools_and_refuses_calls(
    tab: Page, server: int
) -> None:
    await goto(tab, f"http://127.0.0.1:{server}/global/empty.html")
    backend, _ = await attach(tab)
    try:
        assert await backend.list_tools() == []
        ghost = Tool("echo", "", None, {}, backend.main_frame_id, backend="inpage")
        with pytest.raises(BackendError, match=r"no document\.modelContext"):
            await backend.invoke(ghost, {})
    finally:
        await backend.close()


# -- answers -----------------------------------------------------------------------------------


async def test_a_returned_object_completes_with_that_object(
    tools_page: tuple[InPageBackend, Seen], tab: Page
) -> None:
    backend, _ = tools_page
    report = await call(backend, "echo", {"text": "hi"})
    assert report.status == "Completed"
    assert report.output == {"echo": "hi"}
    assert report.invocation_id
    # The polyfills hand the tool its input and nothing else: no client, no AbortSignal.
    assert await tab.evaluate("window.calls") == [{"args": {"text": "hi"}, "extra": 0}]


async def test_the_polyfills_do_not_validate_input(
    tools_page: tuple[InPageBackend, Seen], tab: Page
) -> None:
    backend, _ = tools_page
    report = await call(backend, "echo", {"wrong": 1})
    assert report.status == "Completed"  # the schema says text is required; nobody checked
    assert await tab.evaluate("window.calls[0].args") == {"wrong": 1}


@pytest.mark.parametrize(
    ("tool", "output"),
    [
        ("nothing", None),  # "null"
        ("undef", "undefined"),  # as native Chromium reports it
        ("text", {"a": 1}),  # JSON text arrives parsed, as over the DevTools protocol
        ("umlaut", {"a": "Grüße"}),
        (
            "mcp",
            {"content": [{"type": "text", "text": "Error [needs_user]: Ask."}], "isError": True},
        ),
        ("circular", "[object Object]"),  # the polyfill swallows the serialisation error
    ],
)
async def test_returned_values_arrive_as_the_polyfill_serialises_them(
    tools_page: tuple[InPageBackend, Seen], tool: str, output: Any
) -> None:
    report = await call(tools_page[0], tool)
    assert (report.status, report.output, report.exception) == ("Completed", output, None)


async def test_a_thrown_error_is_reported_with_the_polyfill_wrapping(
    tools_page: tuple[InPageBackend, Seen],
) -> None:
    report = await call(tools_page[0], "fails")
    assert report.status == "Error"
    assert report.error_text == f"{FAILED_PREFIX}: no such order"
    exception = report.exception or {}
    assert exception["className"] == "DOMException"
    assert exception["name"] == "UnknownError"
    assert exception["message"] == f"{FAILED_PREFIX}: no such order"
    assert exception["code"] == 0  # the DOMException's legacy code: the tool's "needs_user" is lost
    assert set(exception) == {"className", "description", "name", "code", "message"}


async def test_a_tools_own_abort_error_becomes_a_plain_failure(
    tools_page: tuple[InPageBackend, Seen],
) -> None:
    report = await call(tools_page[0], "aborts_itself")
    assert report.status == "Error"  # not Canceled: the harness did not ask
    assert (report.exception or {})["name"] == "UnknownError"
    assert report.error_text == f"{FAILED_PREFIX}: gave up"


async def test_an_unknown_tool_is_refused_as_not_found(
    tools_page: tuple[InPageBackend, Seen],
) -> None:
    backend, _ = tools_page
    ghost = Tool("no_such_tool", "", None, {}, backend.main_frame_id, backend="inpage")
    with pytest.raises(BackendError, match="Tool not found: no_such_tool"):
        await backend.invoke(ghost, {})


async def test_several_calls_run_at_once(tools_page: tuple[InPageBackend, Seen]) -> None:
    backend, _ = tools_page
    echo = next(t for t in await backend.list_tools() if t.name == "echo")
    invocations = [await backend.invoke(echo, {"text": str(i)}) for i in range(5)]
    reports = await asyncio.gather(*(answer(i) for i in invocations))
    assert [r.output for r in reports] == [{"echo": str(i)} for i in range(5)]
    assert len({r.invocation_id for r in reports}) == 5


# -- cancel, navigation, close, crash ---------------------------------------------------------


async def test_cancel_settles_the_call_as_canceled_but_the_tool_is_not_told(
    tools_page: tuple[InPageBackend, Seen], tab: Page
) -> None:
    backend, _ = tools_page
    slow = next(t for t in await backend.list_tools() if t.name == "slow")
    invocation = await backend.invoke(slow, {})
    await tab.wait_for_function("window.slow !== undefined", timeout=WAIT * 1000)
    assert not invocation.answered.done()
    await invocation.cancel()
    report = await answer(invocation)
    assert report.status == "Canceled"
    assert report.error_text == "Cancelled by webmcp-harness"
    # No AbortSignal reached the tool and no toolcancel fired: it is still waiting to finish.
    assert await tab.evaluate("window.slow.extra") == 0
    assert await tab.evaluate("typeof window.slow.finish") == "function"
    await invocation.cancel()  # a second cancel is harmless


async def test_a_navigating_tool_resolves_the_call_and_reports_the_navigation(
    tools_page: tuple[InPageBackend, Seen], tab: Page
) -> None:
    backend, seen = tools_page
    navigates = next(t for t in await backend.list_tools() if t.name == "navigates")
    seen.removed.clear()
    invocation = await backend.invoke(navigates, {})
    report = await answer(invocation)
    assert report.status is None
    assert "navigated" in (report.protocol_error or "")
    assert ("navigated", "inpage:0") in [(k, f) for k, f, _ in seen.interrupts]
    assert len([k for k, _, _ in seen.interrupts if k == "navigated"]) == 1
    assert "echo" in {t.name for t in seen.removed}  # the old document's tools are gone
    await seen.until(lambda: "elsewhere" in {t.name for t in seen.added})
    tools = await backend.list_tools()
    assert [t.name for t in tools] == ["elsewhere"]
    assert tools[0].frame_id == "inpage:0"  # the main frame keeps its id
    assert len([k for k, _, _ in seen.interrupts if k == "navigated"]) == 1


async def test_a_same_document_navigation_is_not_an_interruption(
    tools_page: tuple[InPageBackend, Seen], tab: Page
) -> None:
    backend, seen = tools_page
    slow = next(t for t in await backend.list_tools() if t.name == "slow")
    invocation = await backend.invoke(slow, {})
    await tab.wait_for_function("window.slow !== undefined", timeout=WAIT * 1000)
    async with tab.expect_event("framenavigated"):
        await tab.evaluate("history.pushState({}, '', '#step-2')")
    assert "slow" in {t.name for t in await backend.list_tools()}  # read after the event
    await tab.evaluate("window.slow.finish('done')")
    report = await answer(invocation)
    assert (report.status, report.output) == ("Completed", "done")
    assert seen.interrupts == []


async def test_closing_the_page_resolves_a_pending_call(
    tools_page: tuple[InPageBackend, Seen], tab: Page
) -> None:
    backend, seen = tools_page
    slow = next(t for t in await backend.list_tools() if t.name == "slow")
    invocation = await backend.invoke(slow, {})
    await tab.close()
    report = await answer(invocation)
    assert report.status is None
    assert report.protocol_error == "no answer: the page was closed"
    assert seen.interrupts == [("closed", "", {})]
    with pytest.raises(BackendError, match="closed"):
        await backend.invoke(slow, {})


async def test_a_renderer_crash_resolves_a_pending_call(
    tools_page: tuple[InPageBackend, Seen], tab: Page
) -> None:
    backend, seen = tools_page
    slow = next(t for t in await backend.list_tools() if t.name == "slow")
    invocation = await backend.invoke(slow, {})
    cdp = await tab.context.new_cdp_session(tab)
    async with tab.expect_event("crash", timeout=WAIT * 1000):
        # The renderer dies before it can answer: do not wait for the reply.
        crash = asyncio.ensure_future(cdp.send("Page.crash"))
    crash.cancel()
    with contextlib.suppress(BaseException):
        await crash
    report = await answer(invocation)
    assert report.status is None
    assert report.protocol_error == "no answer: the page crashed"
    assert ("crashed", "", {}) in seen.interrupts
    assert await backend.list_tools() == []


async def test_closing_the_backend_resolves_pending_calls(
    tools_page: tuple[InPageBackend, Seen], tab: Page
) -> None:
    backend, _ = tools_page
    slow = next(t for t in await backend.list_tools() if t.name == "slow")
    invocation = await backend.invoke(slow, {})
    await backend.close()
    report = await answer(invocation)
    assert report.protocol_error == "no answer: the in-page backend was closed"


# -- watching tools ------------------------------------------------------------------------------


async def test_tools_registered_and_removed_later_are_reported_without_asking(
    tools_page: tuple[InPageBackend, Seen], tab: Page
) -> None:
    _, seen = tools_page
    await tab.evaluate(
        "window.later = new AbortController(); document.modelContext.registerTool("
        "{name: 'later', description: 'Added later.', execute: () => 1},"
        " {signal: window.later.signal})"
    )
    await seen.until(lambda: "later" in {t.name for t in seen.added})
    await tab.evaluate("window.later.abort()")
    await seen.until(lambda: "later" in {t.name for t in seen.removed})


async def test_a_tool_that_unregisters_itself_mid_call(
    tools_page: tuple[InPageBackend, Seen],
) -> None:
    backend, seen = tools_page
    report = await call(backend, "removes_itself")
    # Native Chromium lets the call finish ("late"); the polyfills reject it at once and drop the
    # tool's answer: that is no answer (status None), the polyfill's words kept.
    assert report.status is None
    assert report.error_text == "Tool unregistered"
    assert report.protocol_error == "the call was dropped when its tool went: Tool unregistered"
    # The removal is reported before the answer lands, as toolsRemoved is over CDP.
    assert "removes_itself" in {t.name for t in seen.removed}
    assert "removes_itself" not in {t.name for t in await backend.list_tools()}


async def test_a_polyfill_loaded_after_attaching_is_seen_through_its_script_load(
    tab: Page, url: Callable[[str], str], polyfill: str, server: int
) -> None:
    await goto(tab, url("/late.html"))
    backend, seen = await attach(tab)
    try:
        assert await backend.list_tools() == []
        await tab.evaluate(f"window.loadLate('/polyfills/{polyfill}/index.iife.js')")
        await tab.wait_for_function("'modelContext' in document", timeout=WAIT * 1000)
        await tab.evaluate(f"window.loadLate('/{polyfill}/late-tools.js')")
        await seen.until(lambda: "late_tool" in {t.name for t in seen.added})
    finally:
        await backend.close()


async def test_attaching_before_navigating_sees_the_tools_of_every_page(
    tab: Page, url: Callable[[str], str]
) -> None:
    backend, seen = await attach(tab)
    try:
        await goto(tab, url("/tools.html"), "window.toolsReady")
        await seen.until(lambda: "echo" in {t.name for t in seen.added})
        assert seen.interrupts == [("navigated", "inpage:0", {"url": url("/tools.html")})]
        await goto(tab, url("/other.html"), "window.otherReady")
        await seen.until(lambda: "elsewhere" in {t.name for t in seen.added})
        assert [k for k, _, _ in seen.interrupts] == ["navigated", "navigated"]
        assert "echo" in {t.name for t in seen.removed}
    finally:
        await backend.close()


# -- frames --------------------------------------------------------------------------------------


async def test_tools_of_a_same_origin_iframe_have_their_own_frame(
    tab: Page, url: Callable[[str], str]
) -> None:
    await goto(tab, url("/frames.html"), "window.topReady")
    child = tab.frame_locator("#same")
    await child.locator("p").wait_for()
    await tab.frames[1].wait_for_function("window.childReady", timeout=WAIT * 1000)
    backend, seen = await attach(tab)
    try:
        tools = {t.name: t for t in await backend.list_tools()}
        assert set(tools) == {"top_tool", "child_tool"}  # each once, though getTools overlaps
        assert tools["top_tool"].frame_id == "inpage:0"
        assert tools["child_tool"].frame_id == "inpage:1"
        assert tools["child_tool"].frame_url.endswith("/child.html")
        assert backend._parents["inpage:1"] == "inpage:0"
        report = await answer(await backend.invoke(tools["child_tool"], {}))
        assert report.output.endswith("/child.html")
        await tab.evaluate("document.getElementById('same').remove()")
        await seen.until(lambda: any(k == "detached" for k, _, _ in seen.interrupts))
        assert ("detached", "inpage:1") in [(k, f) for k, f, _ in seen.interrupts]
        assert "child_tool" in {t.name for t in seen.removed}
    finally:
        await backend.close()


async def test_the_polyfills_refuse_cross_origin_iframes_and_the_backend_says_why(
    tab: Page, url: Callable[[str], str]
) -> None:
    await goto(tab, url("/cross.html"))
    await tab.frame_locator("#cross").locator("p").wait_for()
    cross = tab.frames[1]
    await cross.wait_for_function("window.childReady", timeout=WAIT * 1000)
    assert "NotAllowedError" in await cross.evaluate("window.childReady")
    backend, _ = await attach(tab)
    try:
        assert await backend.list_tools() == []
        fid = backend.frame_id(cross)
        assert "cross-origin frames" in backend.errors[fid]
    finally:
        await backend.close()


async def test_a_cross_origin_iframe_with_a_script_model_context_is_reached(
    tab: Page, server: int
) -> None:
    await goto(tab, f"http://127.0.0.1:{server}/global/fake-cross.html")
    await tab.frame_locator("#cross").locator("script").first.wait_for(state="attached")
    backend, _ = await attach(tab)
    try:
        (tool,) = await backend.list_tools()
        assert tool.name == "fake_tool"
        assert tool.frame_id != backend.main_frame_id
        assert backend.implementations[tool.frame_id] == "script"
        report = await answer(await backend.invoke(tool, {"n": 1}))
        assert report.output == {"from": f"localhost:{server}", "got": {"n": 1}}
        # This implementation ignores the AbortSignal; cancelling still settles the call.
        hung = await backend.invoke(tool, {"hang": True})
        await hung.cancel()
        assert (await answer(hung)).status == "Canceled"
    finally:
        await backend.close()


# -- other surfaces --------------------------------------------------------------------------------


async def test_the_testing_shim_is_used_when_model_context_cannot_execute(
    tab: Page, url: Callable[[str], str]
) -> None:
    await goto(tab, url("/shim.html"), "window.shimReady")
    backend, _ = await attach(tab)
    try:
        assert backend.implementations["inpage:0"] == "modelContextTesting"
        (tool,) = await backend.list_tools()
        assert tool.input_schema == {"type": "object", "properties": {"text": {"type": "string"}}}
        report = await answer(await backend.invoke(tool, {"text": "via shim"}))
        assert (report.status, report.output) == ("Completed", {"shim": "via shim"})
    finally:
        await backend.close()


async def test_declarative_forms_of_the_polyfill_are_marked_and_answer(
    tab: Page, url: Callable[[str], str]
) -> None:
    await goto(tab, url("/forms.html"))
    await tab.wait_for_function(
        "document.modelContext.getTools().then(t => t.length === 2)", timeout=WAIT * 1000
    )
    backend, _ = await attach(tab)
    try:
        tools = {t.name: t for t in await backend.list_tools()}
        assert (tools["search"].declarative, tools["search"].autosubmit) == (True, True)
        assert (tools["order"].declarative, tools["order"].autosubmit) == (True, False)
        search = await backend.invoke(tools["search"], {"q": "lamp"})
        assert search.waiting is None
        report = await answer(search)
        assert report.output == {"form": "search", "data": {"q": "lamp"}}

        order = await backend.invoke(tools["order"], {"item": "chair"})
        assert order.waiting is not None
        await asyncio.wait_for(asyncio.shield(order.waiting), WAIT)  # filled, waits for a person
        assert await tab.input_value("input[name=item]") == "chair"
        assert not order.answered.done()
        assert await order.confirm() is True
        report = await answer(order)
        assert report.output == {"form": "order", "data": {"item": "chair"}}
        assert await order.confirm() is False  # nothing waits any more
    finally:
        await backend.close()


async def test_declarative_form_failures_come_back_as_wrapped_errors(
    tab: Page, url: Callable[[str], str]
) -> None:
    await goto(tab, url("/forms.html"))
    await tab.wait_for_function(
        "document.modelContext.getTools().then(t => t.length === 2)", timeout=WAIT * 1000
    )
    backend, _ = await attach(tab)
    try:
        tools = {t.name: t for t in await backend.list_tools()}
        # Browser form validation: native Chromium says "Form validation failed: ..." as is.
        report = await answer(await backend.invoke(tools["search"], {}))
        assert report.status == "Error"
        assert report.error_text == f"{FAILED_PREFIX}: Form validation failed: q: " + (
            await tab.evaluate("document.querySelector('input[name=q]').validationMessage")
        )
        # The page resets a waiting form: native Chromium reports Canceled; the polyfills fail.
        order = await backend.invoke(tools["order"], {"item": "desk"})
        assert order.waiting is not None
        await asyncio.wait_for(asyncio.shield(order.waiting), WAIT)
        await tab.evaluate("document.querySelector('form[toolname=order]').reset()")
        report = await answer(order)
        assert report.status == "Error"
        assert report.error_text == f"{FAILED_PREFIX}: Tool execution cancelled by form reset"
    finally:
        await backend.close()


async def test_a_waiting_form_that_goes_away_or_has_no_button(
    tab: Page, url: Callable[[str], str]
) -> None:
    await goto(tab, url("/odd-forms.html"))
    await tab.wait_for_function(
        "document.modelContext.getTools().then(t => t.length === 2)", timeout=WAIT * 1000
    )
    backend, seen = await attach(tab)
    try:
        tools = {t.name: t for t in await backend.list_tools()}
        report = await answer(await backend.invoke(tools["no_button"], {"q": "x"}))
        assert report.status == "Error"
        assert report.error_text == (
            f"{FAILED_PREFIX}: A declarative form without toolautosubmit requires a submit button"
        )
        waiting = await backend.invoke(tools["goes_away"], {"q": "x"})
        assert waiting.waiting is not None
        await asyncio.wait_for(asyncio.shield(waiting.waiting), WAIT)
        await tab.evaluate("document.querySelector('form[toolname=goes_away]').remove()")
        report = await answer(waiting)
        assert (report.status, report.error_text) == (None, "Tool unregistered")  # no answer
        assert "goes_away" in {t.name for t in seen.removed}  # reported before the answer
    finally:
        await backend.close()
