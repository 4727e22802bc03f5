"""The demo shop: its server, its pages and tools in real Chromium, and its scenarios.

The browser is driven through the raw DevTools-protocol domain ``WebMCP`` (the browser's own view),
so these tests check what the site really makes Chromium report, independent of the harness. The
worker's Chromiums (with WebMCP and without) each keep one page for these tests (`KeptPages`), left
as a new context's (blank, the shop's storage cleared) after each.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from jsonschema import Draft202012Validator
from playwright.async_api import Browser, CDPSession, ConsoleMessage, Frame, Page
from playwright.async_api import Error as PlaywrightError

from async_chromium import AsyncChromium, KeptPage, KeptPages
from webmcp_harness.testing.demo import (
    DemoServer,
    _Server,
    demo_site_path,
    load_expectations,
    resolve_site_path,
    serve_demo,
    serve_folder,
)

T = TypeVar("T")

CODES = (
    "cancelled",
    "interrupted",
    "timeout",
    "unavailable",
    "invalid_input",
    "needs_user",
    "failed",
)
WAIT = 10.0  # seconds: the bound on every wait for the browser in this module


@pytest.fixture(scope="module")
def demo_server() -> Iterator[DemoServer]:
    with DemoServer() as server:
        yield server


@pytest.fixture(scope="module")
def kept_browsers(async_chromium: AsyncChromium, async_flagless: Browser) -> Iterator[KeptPages]:
    """A page kept for the module in each of the worker's Chromiums: with WebMCP
    (`async_chromium`) and without (`async_flagless`)."""
    with KeptPages.opened(
        async_chromium,
        webmcp=KeptPage.open(async_chromium.browser, viewport={"width": 1200, "height": 800}),
        plain=KeptPage.open(async_flagless),
    ) as kept:
        yield kept


@pytest.fixture
def browsers(kept_browsers: KeptPages) -> Iterator[KeptPages]:
    yield from kept_browsers.for_a_test()


class ConsoleErrors:
    """The console errors and uncaught exceptions of page, from now until `stop`."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", self._on_console)
        page.on("pageerror", self._on_error)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _on_error(self, error: Exception) -> None:
        self.errors.append(f"pageerror: {error}")

    def stop(self) -> None:
        self.page.remove_listener("console", self._on_console)
        self.page.remove_listener("pageerror", self._on_error)


@contextlib.contextmanager
def console_errors(page: Page) -> Iterator[list[str]]:
    """The console errors and uncaught exceptions of page while the block runs."""
    watching = ConsoleErrors(page)
    try:
        yield watching.errors
    finally:
        watching.stop()


# --------------------------------------------------------------------------- a page, seen over CDP
@dataclass
class Report:
    """What the browser reported for one invocation, verbatim, plus what happened meanwhile."""

    invoked: bool = False
    declarative: bool = False
    protocol_error: str | None = None
    status: str | None = None  # Completed | Canceled | Error | None (no answer)
    output: Any = None
    error_text: str | None = None
    exception: dict[str, Any] | None = None
    exception_props: dict[str, Any] = field(default_factory=dict)
    removed_during_call: bool = False
    replaced_during_call: bool = False  # removed, then registered again under its name
    navigated_during_call: bool = False
    waiting_for_person: bool = False
    confirmed_by_person: bool = False
    cancelled_after_timeout: str | None = None
    schema_error: str | None = None

    def raw(self) -> str:
        """A one-line summary of the browser's report."""
        if self.schema_error:
            return f"not invoked (args fail the schema: {self.schema_error})"
        if self.protocol_error:
            return f"invokeTool protocol error: {self.protocol_error}"
        bits = [f"status={self.status}"]
        if self.output is not None:
            bits.append(f"output={json.dumps(self.output)[:90]}")
        if self.error_text:
            bits.append(f"errorText={self.error_text!r}")
        if self.exception:
            desc = str(self.exception.get("description") or self.exception.get("value"))
            bits.append(f"exception={self.exception.get('className')}: {desc.splitlines()[0]}")
        if self.exception_props:
            bits.append(f"props={self.exception_props}")
        for flag in (
            "removed_during_call",
            "navigated_during_call",
            "waiting_for_person",
            "confirmed_by_person",
        ):
            if getattr(self, flag):
                bits.append(flag)
        if self.cancelled_after_timeout:
            bits.append(f"after cancelInvocation: {self.cancelled_after_timeout}")
        return ", ".join(bits)


class ShopPage:
    """A kept page (blank, as a new context's) with the WebMCP domain on, attached before the page
    loads; `close` leaves the page as it found it."""

    def __init__(self, kept: KeptPage, cdp: CDPSession) -> None:
        self.kept = kept
        self.context = kept.context
        self.page = kept.page
        self.cdp = cdp
        self.tools: dict[tuple[str, str], dict[str, Any]] = {}
        self.removed: list[dict[str, Any]] = []
        self.added: list[dict[str, Any]] = []
        self.responses: dict[str, dict[str, Any]] = {}
        self._console = ConsoleErrors(kept.page)
        self.console_errors = self._console.errors
        self.navigations: list[str] = []
        self.changed = asyncio.Event()
        self.sessions: dict[str, CDPSession] = {}  # frame id -> the session of its own process

    @classmethod
    async def open(cls, kept: KeptPage, url: str, *, webmcp: bool = True) -> ShopPage:
        page = kept.page
        shop = cls(kept, await kept.context.new_cdp_session(page))
        cdp = shop.cdp
        page.on("framenavigated", shop._on_navigated)
        if webmcp:
            cdp.on("WebMCP.toolsAdded", shop._on_added)
            cdp.on("WebMCP.toolsRemoved", shop._on_removed)
            cdp.on("WebMCP.toolResponded", shop._on_responded)
            await cdp.send("WebMCP.enable")
        await page.goto(url)
        for frame in page.frames:
            await frame.wait_for_function(
                "window.__demo && window.__demo.ready", timeout=WAIT * 1000
            )
        if webmcp:
            await shop._attach_cross_site_frames()
        return shop

    async def _attach_cross_site_frames(self) -> None:
        """A cross-site iframe runs in its own process: its tools are on a session of its own."""
        for frame in self.page.frames[1:]:
            try:
                session = await self.context.new_cdp_session(frame)
            except Exception:
                continue  # in-process: the page's session reports it
            session.on("WebMCP.toolsAdded", self._on_added)
            session.on("WebMCP.toolsRemoved", self._on_removed)
            session.on("WebMCP.toolResponded", self._on_responded)
            tree = (await session.send("Page.getFrameTree"))["frameTree"]
            self.sessions[tree["frame"]["id"]] = session
            await session.send("WebMCP.enable")

    def _on_navigated(self, frame: Frame) -> None:
        self.navigations.append(frame.url)

    def _on_added(self, params: dict[str, Any]) -> None:
        for tool in params["tools"]:
            self.tools[(tool["frameId"], tool["name"])] = tool
            self.added.append(tool)
        self.changed.set()

    def _on_removed(self, params: dict[str, Any]) -> None:
        for tool in params["tools"]:
            self.tools.pop((tool["frameId"], tool["name"]), None)
            self.removed.append(tool)
        self.changed.set()

    def _on_responded(self, params: dict[str, Any]) -> None:
        self.responses[params["invocationId"]] = params
        self.changed.set()

    async def until(self, condition: Callable[[], bool], timeout: float = WAIT) -> bool:
        """Wait for CDP events until ``condition()`` holds; False if it does not within timeout."""
        deadline = time.monotonic() + timeout
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            if condition():
                break
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                return condition()
        return True

    def names(self) -> set[str]:
        return {name for _, name in self.tools}

    def tool(self, name: str, frame: str | None = None) -> dict[str, Any] | None:
        for tool in self.tools.values():
            if tool["name"] == name and (frame is None or tool["frameId"] == frame):
                return tool
        return None

    async def frame_ids(self) -> dict[str, str]:
        """Frame id → URL, for every frame of the page."""
        trees = [(await self.cdp.send("Page.getFrameTree"))["frameTree"]]
        for session in self.sessions.values():
            try:
                trees.append((await session.send("Page.getFrameTree"))["frameTree"])
            except PlaywrightError:
                continue  # the page navigated away: that frame, and its session, are gone
        out: dict[str, str] = {}

        def walk(node: dict[str, Any]) -> None:
            out[node["frame"]["id"]] = node["frame"]["url"]
            for child in node.get("childFrames", []):
                walk(child)

        for tree in trees:
            walk(tree)
        return out

    async def close(self) -> None:
        """Stop listening, and leave the kept page blank, as a new context's."""
        self._console.stop()
        self.page.remove_listener("framenavigated", self._on_navigated)
        for session in [self.cdp, *self.sessions.values()]:
            with contextlib.suppress(PlaywrightError):
                await session.detach()
        await self.kept.clean()

    async def invoke(
        self,
        name: str,
        args: dict[str, Any],
        *,
        frame_id: str,
        timeout: float,
        confirm: bool = False,
    ) -> Report:
        """Invoke a tool over CDP and gather the browser's report (no coding, no retries)."""
        report = Report()
        tool = self.tool(name, frame_id)
        declarative = tool is not None and tool.get("backendNodeId") is not None
        autosubmit = bool(tool and (tool.get("annotations") or {}).get("autosubmit"))
        nav_before = len(self.navigations)
        removed_before = len(self.removed)
        added_before = len(self.added)
        cdp = self.sessions.get(frame_id, self.cdp)
        try:
            reply = await cdp.send(
                "WebMCP.invokeTool", {"frameId": frame_id, "toolName": name, "input": args}
            )
        except Exception as err:  # the protocol refuses: e.g. "Tool not found"
            report.protocol_error = str(err).splitlines()[0]
            return report
        report.invoked = True
        report.declarative = declarative
        inv = reply["invocationId"]
        frame_url = (await self.frame_ids()).get(frame_id)
        frame = next((f for f in self.page.frames if f.url == frame_url), self.page.main_frame)
        if declarative and not autosubmit:
            form = f'form[toolname="{name}"]'
            waiting = f"document.querySelector('{form}').matches(':tool-form-active')"
            answered = asyncio.ensure_future(self.until(lambda: inv in self.responses, timeout))
            active = asyncio.ensure_future(frame.wait_for_function(waiting, timeout=timeout * 1000))
            await asyncio.wait({answered, active}, return_when=asyncio.FIRST_COMPLETED)
            for task in (answered, active):
                if not task.done():
                    task.cancel()
                else:
                    task.exception()  # retrieved: a timeout here just means "not waiting"
            if inv not in self.responses and active.done() and not active.exception():
                report.waiting_for_person = True
                if confirm:  # act as the person: press the form's submit button
                    await frame.evaluate(f"document.querySelector('{form}').requestSubmit()")
                    report.confirmed_by_person = True
                else:  # leave nothing pending behind
                    await cdp.send("WebMCP.cancelInvocation", {"invocationId": inv})
                    await self.until(lambda: inv in self.responses, WAIT)
                    report.cancelled_after_timeout = self.responses.get(inv, {}).get("status")
                    self._fill(report, {})
                    return report
        if not await self.until(lambda: inv in self.responses, timeout):
            await cdp.send("WebMCP.cancelInvocation", {"invocationId": inv})
            await self.until(lambda: inv in self.responses, WAIT)
            report.cancelled_after_timeout = self.responses.get(inv, {}).get("status")
            return report
        self._fill(report, self.responses[inv])
        report.navigated_during_call = len(self.navigations) > nav_before
        report.removed_during_call = any(
            t["name"] == name and t["frameId"] == frame_id for t in self.removed[removed_before:]
        )
        report.replaced_during_call = report.removed_during_call and any(
            t["name"] == name and t["frameId"] == frame_id for t in self.added[added_before:]
        )
        if report.exception and report.exception.get("objectId"):
            props = await cdp.send(
                "Runtime.getProperties",
                {"objectId": report.exception["objectId"], "ownProperties": True},
            )
            for prop in props.get("result", []):
                if prop["name"] in ("code", "name") and "value" in prop:
                    report.exception_props[prop["name"]] = prop["value"].get("value")
        return report

    @staticmethod
    def _fill(report: Report, params: dict[str, Any]) -> None:
        report.status = params.get("status")
        report.output = params.get("output")
        report.error_text = params.get("errorText") or None
        report.exception = params.get("exception")


ERROR_TEXT = re.compile(r"^Error \[([a-z_]+)\]:")


def code_for(report: Report) -> str | None:
    """The code the semantics (shared/design/semantics.md) give this report; None for success."""
    if report.schema_error:
        return "invalid_input"
    if report.protocol_error:
        return "unavailable" if "not found" in report.protocol_error.lower() else "failed"
    if report.waiting_for_person and not report.confirmed_by_person:
        return "needs_user"
    if report.status is None:
        return "timeout"
    # a declarative form answers by navigating; an imperative tool is interrupted by it
    # a tool replaced mid-call changed; one that removed itself and answered (one-shot) answered
    if (report.navigated_during_call and not report.declarative) or report.replaced_during_call:
        return "interrupted"
    if report.status == "Canceled":
        return "cancelled"
    if report.status == "Completed":
        if isinstance(report.output, str):
            match = ERROR_TEXT.match(report.output)
            if match and match.group(1) in CODES:
                return match.group(1)
        return None
    refused = ("Form validation failed", "Invalid value ", "Input contains a parameter ")
    if (report.error_text or "").startswith(refused):  # the browser refuses the input
        return "invalid_input"
    exc = report.exception or {}
    description = str(exc.get("description") or exc.get("value") or "")
    if description.startswith("AbortError") or report.exception_props.get("name") == "AbortError":
        return "cancelled"
    code = report.exception_props.get("code")
    if code in CODES:
        return str(code)
    message = description.split(": ", 1)[-1]
    match = ERROR_TEXT.match(message)
    if match and match.group(1) in CODES:
        return match.group(1)
    return "failed"


async def run_scenario(kept: KeptPage, base: str, scenario: dict[str, Any]) -> Report:
    """Load the scenario's page and make its call, the way the harness would."""
    shop = await ShopPage.open(kept, base + scenario["page"])
    try:
        frames = await shop.frame_ids()
        root = next(iter(frames))
        frame_id = root
        if scenario.get("frame"):
            frame_id = next(fid for fid, url in frames.items() if scenario["frame"] in url)
        await shop.until(lambda: shop.tool(scenario["tool"], frame_id) is not None, 2.0)
        tool = shop.tool(scenario["tool"], frame_id)
        if tool is not None:
            schema = tool.get("inputSchema") or {"type": "object"}
            errors = sorted(
                Draft202012Validator(
                    schema, format_checker=Draft202012Validator.FORMAT_CHECKER
                ).iter_errors(scenario["args"]),
                key=lambda e: e.path,
            )
            if errors:
                return Report(
                    schema_error=f"{'/'.join(map(str, errors[0].path))}: {errors[0].message}"
                )
        report = await shop.invoke(
            scenario["tool"],
            scenario["args"],
            frame_id=frame_id,
            timeout=float(scenario["timeout"]),
            confirm=bool(scenario.get("confirm")),
        )
        if scenario["expect"] == "timeout":
            cancelled = await shop.page.evaluate("window.__demo.cancelled")
            report.exception_props["page_saw_cancel"] = bool(cancelled)
        return report
    finally:
        await shop.close()


# --------------------------------------------------------------------------- the server
def fetch(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def raw_get(server: DemoServer, target: str) -> tuple[int, bytes]:
    """Send a request line as is (no client-side normalisation of ``..``)."""
    with socket.create_connection((server.host, server.port), timeout=WAIT) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data


def test_server_binds_127_0_0_1_on_a_free_port_by_default() -> None:
    server = serve_demo()
    try:
        assert server.port > 0
        assert server.url == f"http://127.0.0.1:{server.port}"
        assert server.running
        status, _, body = fetch(server.url + "/")
        assert status == 200
        assert b"Tidewater Outfitters" in body
    finally:
        server.stop()
    assert not server.running
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()


def test_server_is_a_context_manager_and_stops_twice_safely() -> None:
    with DemoServer(port=0) as server:
        assert fetch(server.url + "/cart")[0] == 200
    server.stop()
    assert not server.running


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/", "text/html; charset=utf-8"),
        ("/checkout", "text/html; charset=utf-8"),
        ("/product?id=harbor-mug", "text/html; charset=utf-8"),
        ("/support-widget", "text/html; charset=utf-8"),
        ("/assets/style.css", "text/css; charset=utf-8"),
        ("/assets/shop.js", "text/javascript; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
        ("/expectations.json", "application/json"),
    ],
)
def test_server_sends_the_right_content_type(
    demo_server: DemoServer, path: str, content_type: str
) -> None:
    status, headers, body = fetch(demo_server.url + path)
    assert status == 200
    assert headers["Content-Type"] == content_type
    assert int(headers["Content-Length"]) == len(body)


def test_server_maps_page_paths_to_their_html_files(demo_server: DemoServer) -> None:
    for path, title in [
        ("/", "gear for the shoreline"),
        ("/cart", "Your cart"),
        ("/cart/", "Your cart"),
        ("/checkout", "Checkout"),
        ("/order?id=TW-10042", "Order confirmed"),
        ("/track?order=TW-10042", "Track an order"),
        ("/returns", "Returns"),
    ]:
        status, _, body = fetch(demo_server.url + path)
        assert status == 200, path
        assert title.encode() in body, path


def test_server_answers_unknown_paths_with_a_404_page(demo_server: DemoServer) -> None:
    for path in ("/nope", "/assets/", "/assets/missing.js", "/404", "/catalog/extra"):
        status, headers, body = fetch(demo_server.url + path)
        assert status == 404, path
        assert headers["Content-Type"] == "text/html; charset=utf-8"
        assert b"drifted out to sea" in body


def test_server_answers_head_without_a_body(demo_server: DemoServer) -> None:
    status, headers, body = fetch(demo_server.url + "/", method="HEAD")
    assert status == 200
    assert int(headers["Content-Length"]) > 0
    assert body == b""


@pytest.mark.parametrize(
    "target",
    [
        "/../pyproject.toml",
        "/../../../../etc/passwd",
        "/%2e%2e/pyproject.toml",
        "/assets/..%2f..%2fpyproject.toml",
        "/assets/%2E%2E/%2E%2E/pyproject.toml",
        "/..%5cpyproject.toml",
        "//etc/passwd",
        "/%00index.html",
    ],
)
def test_server_refuses_paths_that_leave_the_site(demo_server: DemoServer, target: str) -> None:
    status, data = raw_get(demo_server, target)
    assert status in (400, 404)
    assert b"[project]" not in data
    assert b"root:" not in data


def test_resolve_site_path_stays_inside_the_site(tmp_path: Any) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("home")
    (site / "checkout.html").write_text("checkout")
    (site / ".secret").write_text("hidden")
    (tmp_path / "outside.html").write_text("outside")
    (site / "escape.html").symlink_to(tmp_path / "outside.html")
    assert resolve_site_path(site, "/") == (site / "index.html").resolve()
    assert resolve_site_path(site, "/checkout") == (site / "checkout.html").resolve()
    assert resolve_site_path(site, "/../outside.html") is None
    assert resolve_site_path(site, "/escape") is None
    assert resolve_site_path(site, "/.secret") is None


def test_demo_site_path_finds_the_repository_copy() -> None:
    root = demo_site_path()
    assert (root / "index.html").is_file()
    assert (root / "expectations.json").is_file()


def test_serve_folder_serves_a_folder_of_your_own_pages(tmp_path: Any) -> None:
    (tmp_path / "index.html").write_text("<title>home</title>", encoding="utf-8")
    (tmp_path / "shop.html").write_text("<title>shop</title>", encoding="utf-8")
    with serve_folder(tmp_path) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert fetch(server.url + "/")[2] == b"<title>home</title>"
        assert fetch(server.url + "/shop")[2] == b"<title>shop</title>"
        assert fetch(server.url + "/nope")[0] == 404
    assert not server.running


def test_serve_folder_refuses_a_folder_that_is_not_there(tmp_path: Any) -> None:
    with pytest.raises(FileNotFoundError, match="no folder to serve"):
        serve_folder(tmp_path / "missing")


@pytest.mark.parametrize("error", [BrokenPipeError, ConnectionResetError])
def test_a_browser_hanging_up_mid_answer_prints_no_traceback(
    capsys: pytest.CaptureFixture[str], error: type[Exception]
) -> None:
    server = serve_demo()
    try:
        try:
            raise error("the browser went away")
        except error:
            _Server.handle_error(server._httpd, None, ("127.0.0.1", 1))  # type: ignore[arg-type]
        try:
            raise ValueError("a real bug")
        except ValueError:
            _Server.handle_error(server._httpd, None, ("127.0.0.1", 1))  # type: ignore[arg-type]
    finally:
        server.stop()
    said = capsys.readouterr().err
    assert "went away" not in said
    assert "BrokenPipe" not in said
    assert "a real bug" in said  # other errors still show


# --------------------------------------------------------------------------- expectations.json
def test_expectations_cover_every_code_success_a_form_and_an_iframe() -> None:
    scenarios = load_expectations()["scenarios"]
    expected = {s["expect"] for s in scenarios}
    assert set(CODES) | {None} <= expected
    assert any(s["declarative"] for s in scenarios)
    assert any(s["declarative"] and s["expect"] is None for s in scenarios)
    assert any(s.get("frame") for s in scenarios)
    assert any(s.get("confirm") for s in scenarios)
    ids = [s["id"] for s in scenarios]
    assert len(ids) == len(set(ids))
    for s in scenarios:
        assert set(s) >= {"id", "description", "page", "tool", "args", "timeout", "expect"}, s["id"]
        assert isinstance(s["args"], dict), s["id"]
        assert s["timeout"] == (2 if s["expect"] == "timeout" else 10), s["id"]
        assert s["expect"] is None or s["expect"] in CODES, s["id"]


SCENARIOS = load_expectations()["scenarios"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_scenario_makes_the_browser_report_its_case(
    browsers: KeptPages, demo_server: DemoServer, scenario: dict[str, Any]
) -> None:
    report = browsers.run(run_scenario(browsers["webmcp"], demo_server.url, scenario))
    assert code_for(report) == scenario["expect"], report.raw()
    if scenario["expect"] == "unavailable":
        assert report.protocol_error is not None
        assert "Tool not found" in report.protocol_error
    if scenario["expect"] == "timeout":
        assert report.cancelled_after_timeout == "Canceled"
        assert report.exception_props["page_saw_cancel"], "the page never saw the cancellation"


# --------------------------------------------------------------------------- pages and their tools
PAGE_TOOLS: dict[str, set[str]] = {
    "/": {
        "search_products",
        "subscribe_newsletter",
        "get_product",
        "add_to_cart",
        "view_cart",
        "go_to_checkout",
        "claim_welcome_coupon",
    },
    "/product?id=tidal-tee": {"add_to_cart", "get_reviews", "view_cart", "go_to_checkout"},
    "/product?id=harbor-mug": {"add_to_cart", "get_reviews", "view_cart", "go_to_checkout"},
    "/product?id=no-such-thing": {"view_cart", "go_to_checkout"},
    "/cart": {"view_cart", "go_to_checkout"},
    "/cart?items=harbor-mug:1,tidal-tee:M:2": {
        "view_cart",
        "go_to_checkout",
        "update_quantity",
        "remove_from_cart",
    },
    "/checkout": {
        "view_cart",
        "apply_coupon",
        "place_order",
        "check_payment_status",
        "request_payment_approval",
    },
    "/order?id=TW-10042": {"get_order"},
    "/track": {"track_order", "book_pickup"},
    "/track?order=TW-10042": {"track_order", "book_pickup"},
    "/returns": {"request_return"},
    "/support-widget": {"ask_support"},
}


async def _page_tools(kept: KeptPage, url: str, expected: set[str]) -> ShopPage:
    shop = await ShopPage.open(kept, url)
    await shop.until(lambda: expected <= shop.names())
    return shop


@pytest.mark.parametrize("path", list(PAGE_TOOLS))
def test_page_registers_its_tools_without_console_errors(
    browsers: KeptPages, demo_server: DemoServer, path: str
) -> None:
    async def go() -> tuple[set[str], list[str], list[str]]:
        shop = await _page_tools(browsers["webmcp"], demo_server.url + path, PAGE_TOOLS[path])
        frames = await shop.frame_ids()
        root = next(iter(frames))
        names = {name for fid, name in shop.tools if fid == root}
        registered = await shop.page.evaluate(
            "window.__demo.errors.map(e => e.tool + ': ' + e.error)"
        )
        await shop.close()
        return names, shop.console_errors, registered

    names, errors, refused = browsers.run(go())
    assert names == PAGE_TOOLS[path]
    assert errors == []
    assert refused == []


def _annotations(shop: ShopPage, name: str) -> dict[str, Any]:
    tool = shop.tool(name)
    assert tool is not None, name
    return dict(tool.get("annotations") or {})


def _schema(shop: ShopPage, name: str) -> dict[str, Any]:
    tool = shop.tool(name)
    assert tool is not None, name
    return dict(tool.get("inputSchema") or {})


def test_catalog_tools_have_real_schemas_and_annotations(
    browsers: KeptPages, demo_server: DemoServer
) -> None:
    async def go() -> ShopPage:
        return await _page_tools(browsers["webmcp"], demo_server.url + "/", PAGE_TOOLS["/"])

    shop = browsers.run(go())
    try:
        add = _schema(shop, "add_to_cart")
        assert add["required"] == ["product_id"]
        assert "harbor-mug" in add["properties"]["product_id"]["enum"]
        assert add["properties"]["quantity"] == {
            "type": "integer",
            "minimum": 1,
            "maximum": 10,
            "default": 1,
            "description": "How many (1 to 10).",
        }
        assert _annotations(shop, "get_product")["readOnly"] is True
        assert _annotations(shop, "view_cart")["readOnly"] is True
        assert _annotations(shop, "add_to_cart")["readOnly"] is False

        search = shop.tool("search_products")
        assert search is not None
        assert search.get("backendNodeId") is not None
        assert search["annotations"].get("autosubmit") is True
        assert search["inputSchema"]["required"] == ["q"]
        assert search["inputSchema"]["properties"]["category"]["enum"] == [
            "all",
            "apparel",
            "camp",
            "home",
        ]
        newsletter = shop.tool("subscribe_newsletter")
        assert newsletter is not None
        assert not (newsletter.get("annotations") or {}).get("autosubmit")
        assert newsletter["inputSchema"]["required"] == ["email"]
    finally:
        browsers.run(shop.close())


def test_product_page_asks_for_a_size_and_marks_reviews_untrusted(
    browsers: KeptPages, demo_server: DemoServer
) -> None:
    path = "/product?id=tidal-tee"

    async def go() -> ShopPage:
        return await _page_tools(browsers["webmcp"], demo_server.url + path, PAGE_TOOLS[path])

    shop = browsers.run(go())
    try:
        add = _schema(shop, "add_to_cart")
        assert add["properties"]["size"]["enum"] == ["S", "M", "L"]
        assert "required" not in add  # a missing size is asked back, not refused
        reviews = shop.tool("get_reviews")
        assert reviews is not None
        assert reviews["annotations"]["readOnly"] is True
        assert reviews["annotations"]["untrustedContent"] is True
    finally:
        browsers.run(shop.close())


def test_checkout_tools_have_real_schemas_and_annotations(
    browsers: KeptPages, demo_server: DemoServer
) -> None:
    async def go() -> ShopPage:
        return await _page_tools(
            browsers["webmcp"], demo_server.url + "/checkout", PAGE_TOOLS["/checkout"]
        )

    shop = browsers.run(go())
    try:
        order = _schema(shop, "place_order")
        assert order["required"] == ["email", "shipping", "payment"]
        assert order["properties"]["shipping"]["enum"] == ["standard", "express"]
        assert order["properties"]["email"]["pattern"]
        assert order["additionalProperties"] is False
        assert _annotations(shop, "place_order")["consequential"] is True
        assert _schema(shop, "apply_coupon")["properties"]["code"]["pattern"] == "^[A-Z0-9]{4,12}$"
        assert _annotations(shop, "check_payment_status")["readOnly"] is True
    finally:
        browsers.run(shop.close())


def test_cart_tools_name_the_cart_items_and_are_replaced_when_the_cart_changes(
    browsers: KeptPages, demo_server: DemoServer
) -> None:
    path = "/cart?items=harbor-mug:1,tidal-tee:M:2"

    async def go() -> tuple[list[str], list[str], list[str]]:
        shop = await _page_tools(browsers["webmcp"], demo_server.url + path, PAGE_TOOLS[path])
        before = _schema(shop, "update_quantity")["properties"]["product_id"]["enum"]
        # A person removes the mug: the cart tools go away and come back naming only the tee.
        await shop.page.locator('tr[data-id="harbor-mug"] [data-remove]').click()
        await shop.until(
            lambda: (
                _enum_of(shop, "update_quantity") == ["tidal-tee"]
                and any(t["name"] == "update_quantity" for t in shop.removed)
            )
        )
        after = _enum_of(shop, "update_quantity")
        removed = sorted({t["name"] for t in shop.removed})
        await shop.close()
        return before, after or [], removed

    before, after, removed = browsers.run(go())
    assert before == ["harbor-mug", "tidal-tee"]
    assert after == ["tidal-tee"]
    assert removed == ["go_to_checkout", "remove_from_cart", "update_quantity", "view_cart"]


def _enum_of(shop: ShopPage, name: str) -> list[str] | None:
    tool = shop.tool(name)
    if tool is None:
        return None
    return list(tool["inputSchema"]["properties"]["product_id"]["enum"])


def test_support_widget_is_a_cross_site_frame_whose_tool_only_its_own_session_sees(
    browsers: KeptPages, demo_server: DemoServer
) -> None:
    async def go() -> tuple[list[dict[str, Any]], str | None, dict[str, str], set[str]]:
        shop = await _page_tools(
            browsers["webmcp"], demo_server.url + "/", PAGE_TOOLS["/"] | {"ask_support"}
        )
        tools = await shop.page.evaluate(
            """async () => (await document.modelContext.getTools()).map(t => ({
                name: t.name, inTop: t.window === window }))"""
        )
        widget = next(f for f in shop.page.frames if "/support-widget" in f.url)
        own = await widget.evaluate(
            """async () => (await document.modelContext.getTools()).map(t => ({
                name: t.name, schema: t.inputSchema }))"""
        )
        tool = shop.tool("ask_support")
        frames = await shop.frame_ids()
        await shop.close()
        return own, tool["frameId"] if tool else None, frames, {t["name"] for t in tools}

    own, frame_id, frames, seen_from_top = browsers.run(go())
    assert "ask_support" not in seen_from_top  # getTools() lists same-origin frames only
    assert [t["name"] for t in own] == ["ask_support"]
    assert own[0]["schema"]["required"] == ["question"]
    assert frame_id is not None
    assert frames[frame_id] == f"{demo_server.widget_url}/support-widget"
    assert demo_server.widget_url.startswith("http://localhost:")
    assert frame_id != next(iter(frames))


def test_order_and_tracking_pages_carry_json_ld(
    browsers: KeptPages, demo_server: DemoServer
) -> None:
    async def go(path: str) -> list[Any]:
        shop = await ShopPage.open(browsers["webmcp"], demo_server.url + path)
        data = await shop.page.evaluate(
            """[...document.querySelectorAll('script[type="application/ld+json"]')]
                .map(s => JSON.parse(s.textContent))"""
        )
        await shop.close()
        return list(data)

    order = browsers.run(go("/order?id=TW-10042"))
    assert [d["@type"] for d in order] == ["Order"]
    assert order[0]["orderNumber"] == "TW-10042"
    assert order[0]["acceptedOffer"][0]["itemOffered"]["name"] == "Tidal Organic Tee"
    track = browsers.run(go("/track?order=TW-10042"))
    assert [d["@type"] for d in track] == ["ParcelDelivery"]
    assert track[0]["partOfOrder"]["orderNumber"] == "TW-10042"


def test_the_page_sees_a_timed_out_call_cancelled(
    browsers: KeptPages, demo_server: DemoServer
) -> None:
    path = "/checkout?items=harbor-mug:1&bank=slow"

    async def go() -> tuple[Report, list[dict[str, Any]], list[dict[str, Any]], str]:
        shop = await _page_tools(
            browsers["webmcp"], demo_server.url + path, {"check_payment_status"}
        )
        root = next(iter(await shop.frame_ids()))
        report = await shop.invoke("check_payment_status", {}, frame_id=root, timeout=0.5)
        await shop.page.wait_for_function("window.__demo.cancelled.length > 0", timeout=WAIT * 1000)
        cancelled = await shop.page.evaluate("window.__demo.cancelled")
        events = await shop.page.evaluate("window.__demo.events")
        status = await shop.page.locator("#payment-status").text_content()
        await shop.close()
        return report, cancelled, events, status or ""

    report, cancelled, events, status = browsers.run(go())
    assert report.status is None
    assert report.cancelled_after_timeout == "Canceled"
    assert [c["tool"] for c in cancelled] == ["check_payment_status"]
    assert {"type": "toolcancel", "tool": "check_payment_status"} in [
        {k: e[k] for k in ("type", "tool")} for e in events
    ]
    assert status == "Payment check stopped."


@pytest.mark.parametrize(
    ("path", "tool", "args", "problem"),
    [
        (
            "/cart?items=harbor-mug:1",
            "update_quantity",
            {"product_id": "harbor-mug", "quantity": 0},
            "/quantity must be at least 1.",
        ),
        (
            "/checkout?items=harbor-mug:1",
            "place_order",
            {"shipping": "standard", "payment": "saved_card"},
            "/email is required.",
        ),
        (
            "/",
            "add_to_cart",
            {"product_id": "harbor-mug", "colour": "red"},
            "/colour is not a known argument.",
        ),
    ],
)
def test_tools_refuse_bad_input_that_the_browser_passes_through(
    browsers: KeptPages,
    demo_server: DemoServer,
    path: str,
    tool: str,
    args: dict[str, Any],
    problem: str,
) -> None:
    """Chromium does not check imperative input, so the shop checks it and throws invalid_input."""

    async def go() -> tuple[Report, list[Any]]:
        shop = await _page_tools(browsers["webmcp"], demo_server.url + path, {tool})
        root = next(iter(await shop.frame_ids()))
        report = await shop.invoke(tool, args, frame_id=root, timeout=WAIT)
        cart = await shop.page.evaluate("Shop.cart.lines()")
        await shop.close()
        return report, list(cart)

    report, cart = browsers.run(go())
    assert report.status == "Error"
    assert report.exception_props == {"name": "WebToolError", "code": "invalid_input"}
    assert code_for(report) == "invalid_input"
    assert report.exception is not None
    assert str(report.exception["description"]).startswith(f"WebToolError: {problem}")
    assert [line["qty"] for line in cart] == [1] * len(cart)  # nothing changed


# --------------------------------------------------------------------------- a person, no WebMCP
PLAIN_PAGES = [
    "/",
    "/product?id=tidal-tee",
    "/cart",
    "/checkout",
    "/order",
    "/track?order=TW-10042",
    "/returns",
    "/support-widget",
    "/nope",
]


@pytest.mark.parametrize("path", PLAIN_PAGES)
def test_pages_work_without_webmcp_and_without_console_errors(
    browsers: KeptPages, demo_server: DemoServer, path: str
) -> None:
    async def go() -> tuple[bool, list[str]]:
        page = browsers["plain"].page
        with console_errors(page) as errors:
            await page.goto(demo_server.url + path)
            has_mc = await page.evaluate("'modelContext' in document")
            if path != "/nope":
                for frame in page.frames:
                    await frame.wait_for_function(
                        "window.__demo && window.__demo.ready", timeout=WAIT * 1000
                    )
        # a 404 page is reported by Chromium as a failed resource load: that one is expected
        return has_mc, [e for e in errors if not (path == "/nope" and "404" in e)]

    has_mc, errors = browsers.run(go())
    assert has_mc is False
    assert errors == []


def test_a_person_can_buy_a_tee_without_webmcp(
    browsers: KeptPages, demo_server: DemoServer
) -> None:
    async def go() -> tuple[str, list[Any], list[str]]:
        page = browsers["plain"].page
        with console_errors(page) as errors:
            await page.goto(demo_server.url + "/")
            await page.fill("#q", "tee")
            await page.press("#q", "Enter")
            await page.locator('.card[data-product="tidal-tee"]').click()
            await page.wait_for_url("**/product?id=tidal-tee")
            await page.click('.size[data-size="M"]')
            await page.click("#add")
            await page.locator("[data-cart-count]").filter(has_text="1").wait_for()
            await page.click(".cart-link")
            await page.wait_for_url("**/cart")
            await page.click("#checkout-button")
            await page.wait_for_url("**/checkout")
            await page.fill("#email", "sam@example.com")
            await page.click("#place-order")
            await page.wait_for_url("**/order?id=TW-*")
            data = await page.evaluate(
                """[...document.querySelectorAll('script[type="application/ld+json"]')]
                    .map(s => JSON.parse(s.textContent))"""
            )
            title = await page.locator("#order-title").text_content()
        return title or "", list(data), errors

    title, data, errors = browsers.run(go())
    assert title == "Thank you, your order is in"
    assert data[0]["@type"] == "Order"
    assert data[0]["acceptedOffer"][0]["itemOffered"]["sku"] == "tidal-tee-M"
    assert errors == []
