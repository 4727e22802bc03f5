"""`webmcp-harness serve`: the page's tools through the MCP SDK's own clients, in real Chromium.

One stdio server (a client that answers elicitations) and one streamable-HTTP server (a client
without elicitation, a short timeout, no untrusted labels) serve every test of their module; each
test opens the page it needs with `browser_open`. Their clients run on an event loop of their own
thread, so the tests stay plain functions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.context import ClientRequestContext
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from webmcp_harness.agent.policy import SENDS_SECRETS, TO_SOMEONE_UNNAMED
from webmcp_harness.agent.specs import (
    CONSEQUENTIAL,
    READ_ONLY,
    UNTRUSTED_DESCRIPTION,
    UNTRUSTED_RESULT,
)
from webmcp_harness.core.urls import split_url
from webmcp_harness.testing.demo import serve_demo

T = TypeVar("T")
SRC = Path(__file__).resolve().parents[2] / "src"
WAIT = 90.0  # the most any one step of a test may take (the machine is shared)
ORDER = {"email": "sam@example.com", "shipping": "standard", "payment": "saved_card"}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _serve_args(*extra: str) -> list[str]:
    return ["-m", "webmcp_harness", "serve", *extra]


class Client:
    """A `ClientSession` to one server, on a loop of its own thread."""

    def __init__(
        self,
        connect: Callable[[], contextlib.AbstractAsyncContextManager[Any]],
        *,
        elicit: bool,
    ) -> None:
        self.connect = connect
        self.elicit = elicit
        self.answer: str = "accept"
        self.asked: list[str] = []
        self.notified: list[str] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._changed: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        self._main: Any = None
        self.session: ClientSession | None = None

    def start(self) -> Client:
        self.thread.start()
        ready: asyncio.Future[None] = self.loop.create_future()
        self._main = asyncio.run_coroutine_threadsafe(self._hold(ready), self.loop)

        async def started() -> None:
            await asyncio.wait_for(asyncio.shield(ready), WAIT)

        self.run(lambda s: started(), connected=False)
        return self

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        self._changed, self._stop = asyncio.Event(), asyncio.Event()
        try:
            async with self.connect() as streams:
                callback = self._on_elicit if self.elicit else None
                async with ClientSession(
                    streams[0],
                    streams[1],
                    elicitation_callback=callback,
                    message_handler=self._on_message,
                ) as session:
                    await session.initialize()
                    self.session = session
                    ready.set_result(None)
                    await self._stop.wait()
        except BaseException as err:
            if not ready.done():
                ready.set_exception(err)
            raise

    async def _on_elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.asked.append(params.message)
        if self.answer == "accept":
            return types.ElicitResult(action="accept", content={})
        return types.ElicitResult(action="decline")

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.notified.append(message.method)
            assert self._changed is not None
            self._changed.set()

    def run(self, body: Callable[[ClientSession], Awaitable[T]], *, connected: bool = True) -> T:
        """Run body(session) on the client's loop and return what it returns."""
        assert self.session is not None or not connected
        future = asyncio.run_coroutine_threadsafe(body(self.session), self.loop)  # type: ignore[arg-type]
        return future.result(WAIT * 2)

    def call(self, name: str, args: dict[str, Any] | None = None) -> types.CallToolResult:
        async def body(s: ClientSession) -> types.CallToolResult:
            result = await s.call_tool(name, args or {}, read_timeout_seconds=WAIT)
            assert isinstance(result, types.CallToolResult)
            return result

        return self.run(body)

    def open(self, url: str) -> types.CallToolResult:
        result = self.call("browser_open", {"url": url})
        assert not result.is_error, text(result)
        return result

    async def listed(self, s: ClientSession, name: str) -> list[types.Tool]:
        """The tool list once it has name, waiting on list_changed between looks."""
        assert self._changed is not None
        with anyio.fail_after(WAIT):
            while True:
                self._changed.clear()
                tools = (await s.list_tools()).tools
                if any(t.name == name for t in tools):
                    return tools
                await self._changed.wait()

    def told_since(self, count: int) -> bool:
        """Whether a list_changed came after the first count, waiting for one (bounded): the
        server coalesces them, so one may follow the change it announces by a moment."""

        async def body(s: ClientSession) -> bool:
            assert self._changed is not None
            with anyio.move_on_after(WAIT):
                while len(self.notified) <= count:
                    self._changed.clear()
                    if len(self.notified) > count:
                        break
                    await self._changed.wait()
            return len(self.notified) > count

        return self.run(body)

    def close(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        if self._main is not None:
            with contextlib.suppress(BaseException):
                self._main.result(WAIT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(WAIT)


def text(result: types.CallToolResult) -> str:
    """The result's text, without the untrusted label (see test_page_strings_are_labelled)."""
    return "\n".join(
        c.text
        for c in result.content
        if isinstance(c, types.TextContent) and c.text != UNTRUSTED_RESULT
    )


def code(result: types.CallToolResult) -> str | None:
    structured = result.structured_content
    if isinstance(structured, dict) and isinstance(structured.get("error"), dict):
        return str(structured["error"].get("code"))
    return None


def _stdio(log: IO[str], *extra: str) -> Callable[[], contextlib.AbstractAsyncContextManager[Any]]:
    params = StdioServerParameters(command=sys.executable, args=_serve_args(*extra), env=_env())
    return lambda: stdio_client(params, errlog=log)


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    """The demo shop, served for this module's servers."""
    server = serve_demo()
    yield server.url.rstrip("/")
    server.stop()


@pytest.fixture(scope="module")
def stdio(tmp_path_factory: pytest.TempPathFactory, demo: str) -> Iterator[Client]:
    """A stdio server on the demo shop, owner Dana, whose client answers elicitations."""
    log_path = tmp_path_factory.mktemp("mcp") / "stdio.log"
    with log_path.open("w") as log:
        serving = ("--owner", "Dana Reyes", "--timeout", "30", f"{demo}/")
        client = Client(_stdio(log, *serving), elicit=True)
        try:
            client.start()
        except Exception:
            log.flush()
            raise AssertionError(log_path.read_text()) from None
        yield client
        client.close()


@pytest.fixture(scope="module")
def http(demo: str) -> Iterator[Client]:
    """A streamable-HTTP server with a 4 s timeout that acts as the person (--confirm), and
    leaves page strings unlabelled (--no-untrusted-labels), whose client cannot elicit."""
    serving = (f"{demo}/", "--http", "0", "--timeout", "4", "--confirm", "--no-untrusted-labels")
    process = subprocess.Popen(
        [sys.executable, *_serve_args(*serving)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    lines: queue.Queue[str] = queue.Queue()
    assert process.stderr is not None
    reader = threading.Thread(target=lambda: [lines.put(x) for x in process.stderr], daemon=True)  # type: ignore[union-attr]
    reader.start()
    url = None
    seen: list[str] = []
    while url is None:
        try:
            line = lines.get(timeout=WAIT)
        except queue.Empty:
            break
        seen.append(line)
        found = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        url = found.group(1) if found else None
    if url is None:
        process.kill()
        raise AssertionError("the HTTP server did not start:\n" + "".join(seen))

    @contextlib.asynccontextmanager
    async def connect() -> AsyncIterator[Any]:
        async with streamable_http_client(url) as streams:
            yield streams

    client = Client(connect, elicit=False).start()
    yield client
    client.close()
    process.terminate()
    try:
        process.wait(WAIT)
    except subprocess.TimeoutExpired:
        process.kill()


# -- tools/list -------------------------------------------------------------------------------
def test_the_pages_tools_are_listed_with_their_schemas_and_annotations(
    stdio: Client, demo: str
) -> None:
    stdio.open(f"{demo}/checkout?items=harbor-mug:2")
    tools = {t.name: t for t in stdio.run(lambda s: stdio.listed(s, "place_order"))}
    place = tools["place_order"]
    assert place.input_schema["required"] == ["email", "shipping", "payment"]
    assert place.input_schema["properties"]["shipping"]["enum"] == ["standard", "express"]
    assert place.annotations is not None
    assert place.annotations.destructive_hint is True
    assert "charges the buyer" in (place.description or "")
    status = tools["check_payment_status"]
    assert status.annotations is not None
    assert status.annotations.read_only_hint is True
    assert {
        "browser_open",
        "browser_wait_for_tool",
        "browser_confirm",
        "browser_screenshot",
    } <= set(tools)
    assert place.meta is not None
    assert place.meta["webmcp-harness/tool"] == "place_order"


def test_the_server_declares_that_its_tool_list_changes(stdio: Client) -> None:
    def capabilities(s: ClientSession) -> Any:
        async def body() -> Any:
            return s.server_capabilities

        return body()

    caps = stdio.run(capabilities)
    assert caps.tools is not None
    assert caps.tools.list_changed is True


# -- calls ------------------------------------------------------------------------------------
def test_a_page_tool_call_answers_with_the_tools_result(stdio: Client, demo: str) -> None:
    stdio.open(f"{demo}/")
    result = stdio.call("get_product", {"product_id": "beacon-lantern"})
    assert not result.is_error, text(result)
    assert json.loads(text(result))["product_id"] == "beacon-lantern"


def test_place_order_off_checkout_is_a_coded_unavailable(stdio: Client, demo: str) -> None:
    stdio.open(f"{demo}/")
    result = stdio.call("place_order", {"shipping": "standard", "payment": "saved_card"})
    assert result.is_error
    assert code(result) == "unavailable"
    assert result.structured_content == {"error": {"code": "unavailable", "retryable": True}}
    assert text(result).startswith('Error [unavailable]: No tool "place_order"')


def test_bad_arguments_are_a_coded_invalid_input(stdio: Client, demo: str) -> None:
    stdio.open(f"{demo}/")
    result = stdio.call("get_product", {"product_id": 7})
    assert code(result) == "invalid_input"


@pytest.mark.parametrize("url", ["file:///etc/passwd", "http://[x/", "javascript:alert(1)"])
def test_browser_open_of_a_url_it_cannot_open_is_a_coded_invalid_input(
    stdio: Client, demo: str, url: str
) -> None:
    stdio.open(f"{demo}/")
    result = stdio.call("browser_open", {"url": url})
    assert code(result) == "invalid_input"
    assert "is not an http(s) URL" in text(result)


def test_browser_open_sends_list_changed_and_lists_the_new_pages_tools(
    stdio: Client, demo: str
) -> None:
    stdio.open(f"{demo}/")
    before = len(stdio.notified)
    opened = stdio.open(f"{demo}/checkout?items=harbor-mug:1")
    assert isinstance(opened.structured_content, dict)
    assert "place_order" in {t["name"] for t in opened.structured_content["tools"]}
    names = {t.name for t in stdio.run(lambda s: stdio.listed(s, "apply_coupon"))}
    assert {"place_order", "apply_coupon", "check_payment_status"} <= names
    assert "get_product" not in names
    assert stdio.told_since(before)


def test_a_tool_the_page_registers_later_is_announced_and_listed(
    stdio: Client, pages_url: str
) -> None:
    stdio.open(f"{pages_url}/mcp/bridge.html")
    stdio.run(lambda s: stdio.listed(s, "registers_another"))
    before = len(stdio.notified)
    assert not stdio.call("registers_another").is_error
    stdio.run(lambda s: stdio.listed(s, "late_tool"))
    assert stdio.told_since(before)
    wait = stdio.call("browser_wait_for_tool", {"name": "late_tool", "timeout": 5})
    assert not wait.is_error
    assert wait.structured_content == {
        "tool": "late_tool",
        "frameUrl": f"{pages_url}/mcp/bridge.html",
    }


def test_a_tool_registered_a_second_after_a_call_is_listed_and_called_without_a_reconnect(
    stdio: Client, pages_url: str
) -> None:
    stdio.open(f"{pages_url}/mcp/late.html")
    said = stdio.call("webmcp_call_tool", {"name": "register_later"})
    assert "comes in one second" in text(said)
    changes = len(stdio.notified)
    listed = stdio.run(lambda s: stdio.listed(s, "registered_later"))  # waits on list_changed
    assert "registered_later" in [t.name for t in listed]
    assert len(stdio.notified) > changes or changes > 0
    late = stdio.call("registered_later")  # by its own name, on the same connection
    assert "without a reconnect" in text(late), text(late)


def test_waiting_for_a_tool_that_never_comes_is_a_coded_unavailable(
    stdio: Client, pages_url: str
) -> None:
    stdio.open(f"{pages_url}/mcp/bridge.html")
    result = stdio.call("browser_wait_for_tool", {"name": "never_there", "timeout": 0.5})
    assert code(result) == "unavailable"


def test_a_form_that_waits_answers_needs_user_then_browser_confirm_submits_it(
    stdio: Client, demo: str
) -> None:
    stdio.open(f"{demo}/returns")
    stdio.run(lambda s: stdio.listed(s, "request_return"))
    args = {"order": "TW-10042", "item": "tidal-tee", "reason": "too_small"}
    waiting = stdio.call("request_return", args)
    assert code(waiting) == "needs_user", text(waiting)
    confirmed = stdio.call("browser_confirm", {"tool": "request_return"})
    assert not confirmed.is_error, text(confirmed)
    assert "TW-10042" in text(confirmed)
    again = stdio.call("browser_confirm", {"tool": "request_return"})
    assert code(again) == "unavailable"


def test_a_screenshot_is_mcp_image_content(stdio: Client, demo: str) -> None:
    stdio.open(f"{demo}/")
    shot = stdio.call("browser_screenshot")
    assert not shot.is_error
    image = shot.content[0]
    assert isinstance(image, types.ImageContent)
    assert image.mime_type == "image/png"
    assert image.data.startswith("iVBORw0KGgo")  # base64 of the PNG signature


def test_a_widget_tool_in_a_frame_is_listed_and_called(stdio: Client, demo: str) -> None:
    stdio.open(f"{demo}/")
    tools = {t.name: t for t in stdio.run(lambda s: stdio.listed(s, "ask_support"))}
    widget = tools["ask_support"]
    assert widget.meta is not None
    assert "support-widget" in widget.meta["webmcp-harness/frameUrl"]
    result = stdio.call("ask_support", {"question": "How long does shipping take to Maine?"})
    assert not result.is_error, text(result)


@pytest.mark.parametrize("widget", ["cross", "same"])
def test_the_main_frames_tool_keeps_its_name_when_a_widget_registered_it_first(
    stdio: Client, pages_url: str, widget: str
) -> None:
    page = f"{pages_url}/mcp/same-name.html?widget={widget}"
    stdio.open(page)
    host = split_url(pages_url).netloc.replace(":", "-")
    if widget == "cross":
        host = host.replace("127.0.0.1", "localhost")
    tools = {t.name: t for t in stdio.run(lambda s: stdio.listed(s, f"lookup__{host}"))}
    assert {"lookup", f"lookup__{host}"} <= set(tools)  # docs/mcp.md: main frame first
    main, other = tools["lookup"].meta, tools[f"lookup__{host}"].meta
    assert main is not None
    assert other is not None
    assert main["webmcp-harness/frameUrl"] == page
    assert other["webmcp-harness/frameUrl"].endswith("/mcp/same-name-widget.html")
    assert text(stdio.call("lookup")) == "the page answered"
    assert text(stdio.call(f"lookup__{host}")) == "the widget answered"


def test_a_client_cancellation_cancels_the_call_in_the_page(stdio: Client, pages_url: str) -> None:
    stdio.open(f"{pages_url}/mcp/bridge.html")
    stdio.run(lambda s: stdio.listed(s, "slow"))

    async def body(s: ClientSession) -> None:
        async with anyio.create_task_group() as group:
            scope = anyio.CancelScope()

            async def calling() -> None:
                with scope:
                    await s.call_tool("slow", {}, read_timeout_seconds=WAIT)

            group.start_soon(calling)
            await stdio.listed(s, "slow_running")  # the page runs it now
            scope.cancel()

    stdio.run(body)
    seen = stdio.call("cancellations", {"count": 1})
    assert not seen.is_error, text(seen)
    assert "slow" in json.loads(text(seen))["toolcancel"]


def test_a_long_call_sends_progress_to_a_client_that_asks(stdio: Client, pages_url: str) -> None:
    stdio.open(f"{pages_url}/mcp/bridge.html")
    stdio.run(lambda s: stdio.listed(s, "slow"))

    async def body(s: ClientSession) -> float:
        got: asyncio.Future[float] = asyncio.get_running_loop().create_future()

        async def progress(done: float, total: float | None, message: str | None) -> None:
            if not got.done():
                got.set_result(done)

        async with anyio.create_task_group() as group:
            scope = anyio.CancelScope()

            async def calling() -> None:
                with scope:
                    await s.call_tool("slow", {}, WAIT, progress_callback=progress)

            group.start_soon(calling)
            with anyio.fail_after(WAIT):
                first = await got
            scope.cancel()
        return first

    assert stdio.run(body) > 0


# -- the check --------------------------------------------------------------------------------
def test_place_order_runs_once_the_person_accepts_the_elicitation(stdio: Client, demo: str) -> None:
    stdio.open(f"{demo}/checkout?items=harbor-mug:2")
    stdio.run(lambda s: stdio.listed(s, "place_order"))
    asked = len(stdio.asked)
    stdio.answer = "accept"
    result = stdio.call("place_order", ORDER)
    assert not result.is_error, text(result)
    assert json.loads(text(result))["status"] == "confirmed"
    assert len(stdio.asked) == asked + 1
    assert "place_order" in stdio.asked[-1]
    assert TO_SOMEONE_UNNAMED in stdio.asked[-1]


def test_a_declined_elicitation_runs_nothing_and_answers_not_done_yet(
    stdio: Client, demo: str
) -> None:
    stdio.open(f"{demo}/checkout?items=harbor-mug:2")
    stdio.run(lambda s: stdio.listed(s, "place_order"))
    stdio.answer = "decline"
    try:
        result = stdio.call("place_order", ORDER)
    finally:
        stdio.answer = "accept"
    held = {
        "not_done_yet": f"Check with Dana first: {TO_SOMEONE_UNNAMED}. Ask in your reply, "
        "saying what you would do. Once they say yes, do it again."
    }
    assert result.is_error
    assert result.structured_content == held
    assert json.loads(text(result)) == held


def test_a_stop_is_refused_and_never_put_to_the_person(stdio: Client, demo: str) -> None:
    stdio.open(f"{demo}/checkout?items=harbor-mug:2")
    asked = len(stdio.asked)
    result = stdio.call("place_order", {**ORDER, "card_number": "4111 1111 1111 1111"})
    refused = {"refused": f"Not done: {SENDS_SECRETS}. Tell Dana, and don't try another way."}
    assert result.is_error
    assert result.structured_content == refused
    assert len(stdio.asked) == asked


# -- hostile pages ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        ("lone_surrogate", None),
        ("huge", "failed"),
        ("throws", "failed"),
        ("throws_object", "failed"),
        ("bad_shape", None),
        ("hostile_text", None),
    ],
)
def test_a_hostile_answer_is_a_coded_result_and_the_server_keeps_serving(
    stdio: Client, pages_url: str, tool: str, expected: str | None
) -> None:
    stdio.open(f"{pages_url}/mcp/bridge.html")
    stdio.run(lambda s: stdio.listed(s, tool))
    result = stdio.call(tool)
    assert code(result) == expected, text(result)
    if tool == "lone_surrogate":
        assert "\\ud800" in text(result)  # escaped as JSON.stringify does: valid UTF-8
    if tool == "huge":
        assert "over the limit" in text(result)
    echo = stdio.call("echo", {"text": "still here"})
    assert json.loads(text(echo)) == {"echo": "still here"}


# -- untrusted labels ---------------------------------------------------------------------------
def test_page_strings_are_labelled_untrusted_by_default(stdio: Client, demo: str) -> None:
    stdio.open(f"{demo}/checkout?items=harbor-mug:2")
    tools = {t.name: t for t in stdio.run(lambda s: stdio.listed(s, "place_order"))}
    place, cart = tools["place_order"], tools["view_cart"]
    assert (place.description or "").startswith(UNTRUSTED_DESCRIPTION + "\n" + CONSEQUENTIAL)
    assert "charges the buyer" in (place.description or "")
    assert (cart.description or "").startswith(UNTRUSTED_DESCRIPTION + "\n" + READ_ONLY)
    assert UNTRUSTED_DESCRIPTION not in (tools["browser_open"].description or "")
    seen = stdio.call("view_cart")
    texts = [c.text for c in seen.content if isinstance(c, types.TextContent)]
    assert texts[-1] == UNTRUSTED_RESULT  # last: the page's JSON stays the first text
    assert json.loads(texts[0]) == seen.structured_content or seen.structured_content is None
    failed = stdio.call("place_order", {"email": "not an address"})
    first = failed.content[0]
    assert isinstance(first, types.TextContent)
    assert first.text.startswith("Error [invalid_input]: ")  # the coded first text stays
    assert code(failed) == "invalid_input"


def test_no_untrusted_labels_leaves_page_strings_as_the_page_gave_them(
    http: Client, demo: str
) -> None:
    http.open(f"{demo}/cart")  # the HTTP server runs with --no-untrusted-labels
    tools = {t.name: t for t in http.run(lambda s: http.listed(s, "view_cart"))}
    assert UNTRUSTED_DESCRIPTION not in (tools["view_cart"].description or "")
    seen = http.call("view_cart")
    assert all(c.text != UNTRUSTED_RESULT for c in seen.content if isinstance(c, types.TextContent))


# -- the generic tools ------------------------------------------------------------------------
def test_webmcp_list_tools_gives_the_pages_tools_now_with_their_frames(
    stdio: Client, demo: str
) -> None:
    stdio.open(f"{demo}/product?id=harbor-mug")
    listed = stdio.call("webmcp_list_tools")
    assert not listed.is_error, text(listed)
    tools = {t["name"]: t for t in (listed.structured_content or {})["tools"]}
    assert "place_order" not in tools
    cart = tools["add_to_cart"]
    assert cart["inputSchema"]["type"] == "object"
    assert cart["frame"]["main"] is True
    assert cart["mcpName"] == "add_to_cart"
    assert cart["description"].startswith(UNTRUSTED_DESCRIPTION)


def test_webmcp_call_tool_reaches_a_tool_that_appeared_after_a_navigation_without_relisting(
    stdio: Client, demo: str
) -> None:
    stdio.open(f"{demo}/product?id=harbor-mug")
    asked = len(stdio.asked)
    missing = stdio.call("webmcp_call_tool", {"name": "place_order", "input": ORDER})
    assert code(missing) == "unavailable"  # not on this page: the check is not asked
    assert text(missing).startswith('Error [unavailable]: No tool "place_order"')
    assert len(stdio.asked) == asked
    added = stdio.call("webmcp_call_tool", {"name": "add_to_cart", "input": {"quantity": 1}})
    assert not added.is_error, text(added)
    stdio.call("webmcp_call_tool", {"name": "go_to_checkout"})  # it navigates to /checkout
    stdio.answer = "accept"
    placed = stdio.call("webmcp_call_tool", {"name": "place_order", "input": ORDER})
    assert not placed.is_error, text(placed)
    assert json.loads(text(placed))["status"] == "confirmed"
    assert TO_SOMEONE_UNNAMED in stdio.asked[-1]  # the same check, asked through elicitation
    refused = stdio.call(
        "webmcp_call_tool",
        {"name": "place_order", "input": {**ORDER, "card_number": "4111 1111 1111 1111"}},
    )
    assert refused.is_error
    assert SENDS_SECRETS in (refused.structured_content or {}).get("refused", "")
    bad = stdio.call("webmcp_call_tool", {"name": "place_order", "input": "x"})  # type: ignore[dict-item]
    assert code(bad) == "invalid_input"


# -- streamable HTTP, no elicitation, a 4 s timeout, --confirm, no labels -----------------------
def test_over_http_the_tools_are_listed_and_a_call_answers(http: Client, demo: str) -> None:
    http.open(f"{demo}/")
    tools = {t.name: t for t in http.run(lambda s: http.listed(s, "get_product"))}
    assert tools["get_product"].annotations is not None
    assert tools["get_product"].annotations.read_only_hint is True
    result = http.call("get_product", {"product_id": "harbor-mug"})
    assert json.loads(text(result))["product_id"] == "harbor-mug"


def test_without_elicitation_a_held_call_answers_not_done_yet(http: Client, demo: str) -> None:
    http.open(f"{demo}/checkout?items=harbor-mug:2")
    http.run(lambda s: http.listed(s, "place_order"))
    result = http.call("place_order", ORDER)
    assert result.structured_content == {
        "not_done_yet": f"Check with the owner first: {TO_SOMEONE_UNNAMED}. Ask in your reply, "
        "saying what you would do. Once they say yes, do it again."
    }


def test_with_confirm_a_waiting_form_is_submitted_as_the_person(http: Client, demo: str) -> None:
    http.open(f"{demo}/returns")
    http.run(lambda s: http.listed(s, "request_return"))
    args = {"order": "TW-10042", "item": "tidal-tee", "reason": "too_small"}
    result = http.call("request_return", args)
    assert not result.is_error, text(result)
    assert "TW-10042" in text(result)


def test_a_timeout_is_coded_and_fires_toolcancel_in_the_page(http: Client, pages_url: str) -> None:
    http.open(f"{pages_url}/mcp/bridge.html")
    http.run(lambda s: http.listed(s, "slow"))
    result = http.call("slow")
    assert code(result) == "timeout", text(result)
    assert "no answer in 4 s" in text(result)
    seen = http.call("cancellations", {"count": 1})
    assert "slow" in json.loads(text(seen))["toolcancel"]


def test_a_tool_that_hangs_times_out_and_the_server_keeps_serving(
    http: Client, pages_url: str
) -> None:
    http.open(f"{pages_url}/mcp/bridge.html")
    http.run(lambda s: http.listed(s, "hangs"))
    assert code(http.call("hangs")) == "timeout"
    assert json.loads(text(http.call("echo", {"text": "ok"}))) == {"echo": "ok"}


# -- the transcript ---------------------------------------------------------------------------
def test_the_transcript_keeps_every_call_and_replay_accepts_it(tmp_path: Path) -> None:
    path = tmp_path / "serve.jsonl"
    with (tmp_path / "server.log").open("w") as log:
        client = Client(_stdio(log, "--owner", "Dana", "--transcript", str(path)), elicit=True)
        client.start()
        try:
            base = str(client.call("browser_open", {"url": "/"}).structured_content["url"])  # type: ignore[index]
            base = base.rstrip("/")
            client.call("get_product", {"product_id": "harbor-mug"})
            client.open(f"{base}/checkout?items=harbor-mug:2")
            client.run(lambda s: client.listed(s, "place_order"))
            client.call("place_order", {**ORDER, "card_number": "4111 1111 1111 1111"})
            assert not client.call("place_order", ORDER).is_error
        finally:
            client.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    steps = [(e["action"], e["tool"], e["outcome"]["held"]) for e in lines if e["type"] == "step"]
    assert ("call", "place_order", "stop") in steps
    assert ("approve", "place_order", None) in steps
    assert lines[0]["type"] == "run"
    assert lines[-1]["type"] == "end"
    # (the card number, not its first digits: a random invocation id may hold "4111")
    assert "4111 1111" not in path.read_text()
    assert any(e["type"] == "request" and e["method"] == "tools/call" for e in lines)
    replay = subprocess.run(
        [sys.executable, "-m", "webmcp_harness", "replay", str(path)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=WAIT * 2,
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "no differences" in replay.stdout


def test_a_tool_that_is_not_on_the_page_is_unavailable_before_the_check_asks(
    http: Client, demo: str
) -> None:
    # place_order with an address the owner never named would be put to the owner on the
    # checkout page; on the home page there is no such tool, so there is nothing to approve.
    http.open(f"{demo}/")
    result = http.call("place_order", ORDER)
    assert code(result) == "unavailable"
    assert "not_done_yet" not in (result.structured_content or {})
    assert text(result).startswith('Error [unavailable]: No tool "place_order"')
    assert "search_products" in text(result)  # it names the tools that are there


# -- the stdio wire -----------------------------------------------------------------------------
def test_many_calls_sent_at_once_over_stdio_each_get_their_own_answer(
    stdio: Client, pages_url: str
) -> None:
    stdio.open(f"{pages_url}/mcp/bridge.html")
    stdio.run(lambda s: stdio.listed(s, "echo"))

    async def body(s: ClientSession) -> list[types.CallToolResult]:
        calls = [
            s.call_tool("echo", {"text": f"call {i}"}, read_timeout_seconds=WAIT) for i in range(40)
        ]
        return list(await asyncio.gather(*calls))

    answers = [json.loads(text(result)) for result in stdio.run(body)]
    assert answers == [{"echo": f"call {i}"} for i in range(40)]


def test_a_message_of_nearly_a_megabyte_crosses_stdio_whole_both_ways(
    stdio: Client, pages_url: str
) -> None:
    stdio.open(f"{pages_url}/mcp/bridge.html")
    stdio.run(lambda s: stdio.listed(s, "echo"))
    # 900 kB of UTF-8 (an answer may have 1 MB), in characters that JSON and line breaks care about
    big = "é\u2028x" * 150_000
    result = stdio.call("echo", {"text": big})
    assert not result.is_error, text(result)[:200]
    assert json.loads(text(result)) == {"echo": big}


def test_closing_stdin_ends_serve_cleanly_after_lines_that_are_not_json(tmp_path: Path) -> None:
    # The client's half of the wire, written as lines: a request, a line of garbage (skipped),
    # a notification with bytes that are not UTF-8 (read as replaced) and a second request;
    # once both are answered, the client closes stdin: serve ends its transcript and exits 0.
    transcript = tmp_path / "serve.jsonl"
    process = subprocess.Popen(
        [sys.executable, *_serve_args("--transcript", str(transcript))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=tmp_path.joinpath("serve.log").open("wb"),
        env=_env(),
    )
    assert process.stdin is not None
    assert process.stdout is not None
    answers: queue.Queue[bytes] = queue.Queue()
    out = process.stdout
    threading.Thread(target=lambda: [answers.put(x) for x in out], daemon=True).start()
    init = types.JSONRPCRequest(
        jsonrpc="2.0",
        id=1,
        method="initialize",
        params={
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "eof-test", "version": "1"},
        },
    )
    ping = types.JSONRPCRequest(jsonrpc="2.0", id=2, method="ping", params=None)
    lines = [
        init.model_dump_json(by_alias=True, exclude_none=True).encode(),
        b"this is not json",
        b'{"jsonrpc":"2.0","method":"notifications/initialized","params":{"x":"\xff"}}',
        ping.model_dump_json(by_alias=True, exclude_none=True).encode(),
    ]
    try:
        process.stdin.write(b"\n".join(lines) + b"\n")
        process.stdin.flush()
        got = [json.loads(answers.get(timeout=WAIT)) for _ in range(2)]
        process.stdin.close()
        assert process.wait(WAIT) == 0, tmp_path.joinpath("serve.log").read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(WAIT)
    assert [a.get("id") for a in got] == [1, 2]
    assert got[0]["result"]["serverInfo"]["name"] == "webmcp-harness"
    assert got[1]["result"] == {}
    assert json.loads(transcript.read_text().splitlines()[-1])["type"] == "end"
