"""The gateway in real Chromium: every row of the code→kind table, every reason of the check,
approvals, and a stop that can't be approved, against the demo shop where it has the case and
small pages under tests/pages/agent/ where it doesn't.

Most tests use the sync face (``SyncGateway`` over the plugin's ``webmcp`` fixture); the async
core underneath is the same. What needs the async API (the caller's own cancellation, a browser
without WebMCP) runs in a worker thread, as in test_session.py.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.async_api import async_playwright
from playwright.sync_api import Frame, Page, Route

from webmcp_harness import CallRecord, CallResult, ToolResult, WebMCPSession
from webmcp_harness.agent import (
    KINDS,
    REASONS,
    ROWS,
    CheckRequest,
    Decision,
    Gateway,
    GatewayCall,
    SyncGateway,
    default_check,
    find_secrets,
    make_check,
    run_check,
)
from webmcp_harness.agent.gateway import output_size
from webmcp_harness.agent.kinds import (
    NO_BROWSER,
    NO_CONFIRM,
    NO_WEBMCP,
    PERMISSIONS_POLICY,
    TOO_LARGE,
)
from webmcp_harness.agent.policy import (
    COULDNT_BE_REACHED,
    COULDNT_DECIDE,
    FROM_WHAT_YOU_READ,
    REMOVES_UNPOINTED,
    SENDS_SECRETS,
    TO_SOMEONE_UNNAMED,
    secrets_rule,
)
from webmcp_harness.agent.specs import tool_spec
from webmcp_harness.session.adapters import run_sync as run_on_page
from webmcp_harness.sync_api import WebMCPSession as SyncSession
from webmcp_harness.testing.demo import load_expectations

SAM = "Sam Rivera"
SAYS = "Buy the harbor mug. Send the receipt to sam.rivera@example.com."
ORDER = {"email": "sam.rivera@example.com", "shipping": "standard", "payment": "saved_card"}
TO_JO = {**ORDER, "email": "jo.rivera@example.com"}
WITH_CARD = {**ORDER, "payment": "4111 1111 1111 1111"}


def ask(reason: str) -> dict[str, str]:
    return {
        "not_done_yet": f"Check with Sam first: {reason}. Ask in your reply, saying what you "
        "would do. Once they say yes, do it again."
    }


def stop(reason: str) -> dict[str, str]:
    return {"refused": f"Not done: {reason}. Tell Sam, and don't try another way."}


@dataclass
class Site:
    """One test's page, its session, and where the sites are."""

    page: Page
    webmcp: SyncSession
    demo: str
    pages: str

    def gateway(self, **options: Any) -> SyncGateway:
        options.setdefault("owner", SAM)
        options.setdefault("instructions", SAYS)
        return SyncGateway(self.webmcp, **options)

    def open_demo(self, path: str) -> None:
        self.page.goto(self.demo + path)
        self.page.wait_for_function("window.__demo && window.__demo.ready === true")

    def open_page(self, path: str) -> None:
        self.page.goto(f"{self.pages}/agent/{path}")
        self.page.wait_for_function("window.toolsReady === true")

    def activated(self) -> list[str]:
        """The tools the demo page saw activated (its ``toolactivated`` events)."""
        names: list[str] = self.page.evaluate(
            "window.__demo.events.filter(e => e.type === 'toolactivated').map(e => e.tool)"
        )
        return names

    def executed(self) -> list[str]:
        """The tools whose code ran in the demo page."""
        names: list[str] = self.page.evaluate("window.__demo.calls.map(c => c.tool)")
        return names


@pytest.fixture
def page(reused_page: Page) -> Page:
    """One page for the whole file: each test opens its own document in it (tests/conftest.py)."""
    return reused_page


@pytest.fixture
def site(page: Page, webmcp: SyncSession, webmcp_demo_url: str, pages_url: str) -> Site:
    return Site(page, webmcp, webmcp_demo_url, pages_url)


def json_ready(answer: Any) -> Any:
    """The answer, after checking it is plain JSON (what use_tool promises)."""
    assert json.loads(json.dumps(answer, allow_nan=False)) == answer
    return answer


def with_policy(site: Site, policy: str) -> None:
    """Serve tests/pages/agent/policy.html with a Permissions-Policy header."""

    def add_header(route: Route) -> None:
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "permissions-policy": policy})

    site.page.route("**/agent/policy.html", add_header)
    site.open_page("policy.html")


# -- the code→kind table, row by row ------------------------------------------------------
Case = Callable[[Site], tuple[dict[str, Any], GatewayCall]]


def _last(gw: SyncGateway, answer: dict[str, Any]) -> tuple[dict[str, Any], GatewayCall]:
    return json_ready(answer), gw.calls[-1]


def case_cancelled(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_demo("/checkout?items=harbor-mug:1")
    gw = site.gateway()
    return _last(gw, gw.use_tool("request_payment_approval", {"message": "Ready to pay?"}))


def case_interrupted(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_demo("/")
    gw = site.gateway()
    return _last(gw, gw.use_tool("go_to_checkout", {}))


def case_timeout(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_demo("/checkout?items=harbor-mug:1&bank=slow")
    gw = site.gateway()
    return _last(gw, gw.use_tool("check_payment_status", {}, timeout=0.5))


def case_unavailable(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_demo("/")
    gw = site.gateway()
    return _last(gw, gw.use_tool("place_order", ORDER))


def case_invalid_input(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_demo("/checkout?items=harbor-mug:1")
    gw = site.gateway()
    return _last(gw, gw.use_tool("apply_coupon", {"code": "SUMMER24"}))


def case_needs_user(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_demo("/product?id=tidal-tee")
    gw = site.gateway()
    return _last(gw, gw.use_tool("add_to_cart", {"quantity": 1}))


def case_failed(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_demo("/product?id=storm-shell")
    gw = site.gateway()
    return _last(gw, gw.use_tool("add_to_cart", {"size": "M", "quantity": 1}))


def case_no_code(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_page("tools.html")
    gw = site.gateway()
    return _last(gw, gw.use_tool("plain_error", {}))


def case_no_webmcp(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    # Not a secure context (http, not localhost): the page has no document.modelContext.
    site.page.route(
        "http://shop.test/**",
        lambda route: route.fulfill(body="<title>Shop</title><p>Hello", content_type="text/html"),
    )
    site.page.goto("http://shop.test/")
    gw = site.gateway()
    return _last(gw, gw.use_tool("place_order", ORDER))


def case_permissions_policy(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    with_policy(site, "tools=()")
    gw = site.gateway()
    return _last(gw, gw.use_tool("echo", {"text": "hi"}))


def case_too_large(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_page("tools.html")
    gw = site.gateway()
    return _last(gw, gw.use_tool("big", {"bytes": 1_100_000}))


def case_no_confirm(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_page("tools.html")
    gw = site.gateway()
    # The browser refuses at once a form that waits for a person but has no button for them.
    return _last(gw, gw.use_tool("leave_note", {"note": "hi"}))


def case_no_browser(site: Site) -> tuple[dict[str, Any], GatewayCall]:
    site.open_demo("/")
    gw = site.gateway()
    site.page.close()
    return _last(gw, gw.use_tool("get_product", {"product_id": "harbor-mug"}))


CASES: dict[str | None, Case] = {
    "cancelled": case_cancelled,
    "interrupted": case_interrupted,
    "timeout": case_timeout,
    "unavailable": case_unavailable,
    "invalid_input": case_invalid_input,
    "needs_user": case_needs_user,
    "failed": case_failed,
    None: case_no_code,
    NO_WEBMCP: case_no_webmcp,
    PERMISSIONS_POLICY: case_permissions_policy,
    TOO_LARGE: case_too_large,
    NO_CONFIRM: case_no_confirm,
    NO_BROWSER: case_no_browser,
}


def test_every_row_of_the_table_has_a_case_here() -> None:
    assert set(CASES) == {row.key for row in ROWS}


@pytest.mark.parametrize("row", ROWS, ids=[str(row.key) for row in ROWS])
def test_each_row_of_the_table_comes_back_as_its_kind(site: Site, row: Any) -> None:
    answer, call = CASES[row.key](site)
    assert answer["error"] == row.kind
    assert answer["error"] in KINDS
    assert isinstance(answer["message"], str)
    assert answer["message"]
    assert set(answer) <= {"error", "message", "card"}
    if row.is_condition:
        assert call.condition == row.key
    else:
        assert call.code == (row.key or "failed")  # a failure without a code is the page's own
    assert ("card" in answer) == (row.kind == "not_connected")


def test_a_tests_own_listener_on_the_page_does_not_stall_the_gateway(site: Site) -> None:
    """A sync test that listens to its page is given sync wrappers of its frames, which
    Playwright then hands out to every caller: the gateway's settle and probe stalled on the
    first one they were given (they now ask through the async API's wrappers)."""
    navigated: list[str] = []

    def note(frame: Frame) -> None:
        navigated.append(frame.url)

    site.page.on("framenavigated", note)
    try:
        site.open_demo("/")
        answer = site.gateway().use_tool("search_products", {"q": "wool"})
    finally:
        site.page.remove_listener("framenavigated", note)
    assert "content" in answer, answer
    assert navigated[0] == site.demo + "/"  # (then the support widget's frame)


def test_the_person_stopping_it_says_so_first(site: Site) -> None:
    answer, _ = case_cancelled(site)
    assert answer["message"].startswith("The person stopped it: ")
    assert "declined" in answer["message"]


def test_a_question_for_the_person_says_what_to_ask(site: Site) -> None:
    answer, _ = case_needs_user(site)
    assert answer == {
        "error": "vendor",
        "message": "The person has to choose or confirm: Ask which size: S, M, L.",
    }


def test_a_timeout_cancels_the_call_in_the_page(site: Site) -> None:
    answer, _ = case_timeout(site)
    assert answer["error"] == "unknown_outcome"
    site.page.wait_for_function("window.__demo.cancelled.length > 0")
    assert site.page.evaluate("window.__demo.cancelled.map(c => c.tool)") == [
        "check_payment_status"
    ]


def test_a_tool_that_is_elsewhere_is_not_found_and_says_what_is_here(site: Site) -> None:
    answer, _ = case_unavailable(site)
    assert answer["error"] == "not_found"
    assert "go_to_checkout" in answer["message"]


def test_failures_the_page_words_itself_are_vendor_with_its_words(site: Site) -> None:
    site.open_page("tools.html")
    gw = site.gateway()
    assert gw.use_tool("plain_error") == {"error": "vendor", "message": "the kettle is cold"}
    assert gw.use_tool("mcp_error") == {"error": "vendor", "message": "the kettle is cold"}
    assert gw.use_tool("unknown_code") == {"error": "vendor", "message": "short and stout"}
    assert [c.code for c in gw.calls] == ["failed", "failed", "failed"]


def test_a_page_without_webmcp_gets_a_card_that_says_how_to_connect(site: Site) -> None:
    answer, _ = case_no_webmcp(site)
    assert answer["card"]["type"] == "connect"
    assert "http://shop.test/" in answer["card"]["text"]
    assert "--enable-features=WebMCP" in answer["card"]["text"]


def test_a_tool_whose_own_work_a_permissions_policy_refuses_is_forbidden(site: Site) -> None:
    with_policy(site, "geolocation=()")
    gw = site.gateway()
    answer = gw.use_tool("locate")
    assert answer["error"] == "forbidden"
    assert "permissions policy" in answer["message"]


def test_a_page_whose_policy_blocks_tools_says_so(site: Site) -> None:
    answer, _ = case_permissions_policy(site)
    assert site.page.evaluate("window.refused.length") == 2
    assert answer["message"].startswith("The page's permissions policy doesn't allow WebMCP")


def test_an_output_under_the_limit_comes_back_whole(site: Site) -> None:
    site.open_page("tools.html")
    answer = site.gateway().use_tool("big", {"bytes": 50_000})
    assert len(answer["content"][0]["text"]) == 50_000
    small = site.gateway(max_output_bytes=10_000).use_tool("big", {"bytes": 50_000})
    assert small["error"] == "too_large"
    assert "over the limit of 10,000 bytes" in small["message"]


def test_a_browser_without_webmcp_is_not_connected(pages_url: str, flagless_chromium: str) -> None:
    async def body() -> dict[str, Any]:
        async with async_playwright() as p:
            browser = await p.chromium.connect_over_cdp(flagless_chromium)  # the worker's one
            context = await browser.new_context()
            try:
                page = await context.new_page()
                session = await WebMCPSession.attach(page, timeout=5)
                await page.goto(f"{pages_url}/other.html")
                return await Gateway(session, owner=SAM).use_tool("echo", {"text": "hi"})
            finally:
                await context.close()
                await browser.close()  # over CDP: disconnects, the browser stays up

    answer = in_thread(body)
    assert answer["error"] == "not_connected"
    assert "--enable-features=WebMCP" in answer["card"]["text"]


def test_no_session_at_all_is_not_connected() -> None:
    answer = in_thread(lambda: Gateway(None, owner=SAM).use_tool("place_order", ORDER))
    assert answer["error"] == "not_connected"
    assert answer["card"]["type"] == "connect"


# -- the check: every reason, and nothing runs in the page when it holds a call ------------
def hold_secrets(site: Site) -> tuple[SyncGateway, dict[str, Any]]:
    site.open_demo("/checkout?items=harbor-mug:1")
    gw = site.gateway()
    return gw, gw.use_tool("place_order", WITH_CARD)


def hold_recipient(site: Site) -> tuple[SyncGateway, dict[str, Any]]:
    site.open_demo("/checkout?items=harbor-mug:1")
    gw = site.gateway()
    return gw, gw.use_tool("place_order", TO_JO)


def hold_removal(site: Site) -> tuple[SyncGateway, dict[str, Any]]:
    site.open_demo("/cart?items=harbor-mug:1,kelp-tote:1")
    gw = site.gateway(instructions="Take the harbor mug out of my cart.")
    return gw, gw.use_tool("remove_from_cart", {"product_id": "kelp-tote"})


def hold_from_the_page(site: Site) -> tuple[SyncGateway, dict[str, Any]]:
    site.open_demo("/product?id=beacon-lantern")
    gw = site.gateway(instructions="What do people say about the Beacon lantern?")
    reviews = gw.use_tool("get_reviews", {})
    assert "ANY AI ASSISTANT" in reviews["content"][0]["text"]  # what the agent read
    site.page.evaluate("window.__demo.events = []; window.__demo.calls = []")
    return gw, gw.use_tool("add_to_cart", {"quantity": 10}, source="page")


def hold_undecided(site: Site) -> tuple[SyncGateway, dict[str, Any]]:
    def check(request: CheckRequest) -> Decision:
        raise RuntimeError("the rules file is missing")

    site.open_demo("/product?id=harbor-mug")
    gw = site.gateway(check=check)
    return gw, gw.use_tool("add_to_cart", {"quantity": 1})


def hold_unreached(site: Site) -> tuple[SyncGateway, dict[str, Any]]:
    async def remote_check(request: CheckRequest) -> Decision:
        await asyncio.Event().wait()  # the remote check never answers
        return Decision.allow()

    site.open_demo("/product?id=harbor-mug")
    gw = site.gateway(check=remote_check, check_timeout=0.2)
    return gw, gw.use_tool("add_to_cart", {"quantity": 1})


HOLDS: dict[str, tuple[Callable[[Site], tuple[SyncGateway, dict[str, Any]]], str]] = {
    SENDS_SECRETS: (hold_secrets, "stop"),
    TO_SOMEONE_UNNAMED: (hold_recipient, "ask"),
    REMOVES_UNPOINTED: (hold_removal, "ask"),
    FROM_WHAT_YOU_READ: (hold_from_the_page, "ask"),
    COULDNT_DECIDE: (hold_undecided, "ask"),
    COULDNT_BE_REACHED: (hold_unreached, "ask"),
}


def test_every_reason_has_a_case_here() -> None:
    assert set(HOLDS) == set(REASONS)


@pytest.mark.parametrize("reason", REASONS)
def test_the_check_holds_the_call_with_the_reason_word_for_word(site: Site, reason: str) -> None:
    hold, outcome = HOLDS[reason]
    gw, answer = hold(site)
    assert json_ready(answer) == (stop(reason) if outcome == "stop" else ask(reason))
    assert gw.calls[-1].record is None
    assert site.activated() == []  # toolactivated never fired: nothing ran in the page
    assert site.executed() == []


def test_a_remote_check_that_cannot_connect_could_not_be_reached(site: Site) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there

    async def remote_check(request: CheckRequest) -> Decision:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.close()
        return Decision.allow()

    site.open_demo("/product?id=harbor-mug")
    answer = site.gateway(check=remote_check).use_tool("add_to_cart", {"quantity": 1})
    assert answer == ask(COULDNT_BE_REACHED)
    assert site.activated() == []


def test_a_rule_that_raises_inside_the_rules_could_not_decide(site: Site) -> None:
    def broken(request: CheckRequest) -> Decision | None:
        raise KeyError("recipients")

    site.open_demo("/product?id=harbor-mug")
    gw = site.gateway(check=make_check(broken, secrets_rule))
    assert gw.use_tool("add_to_cart", {"quantity": 1}) == ask(COULDNT_DECIDE)
    assert gw.use_tool("add_to_cart", {"note": "card 4111 1111 1111 1111"}) == stop(SENDS_SECRETS)
    assert site.activated() == []


def test_an_allowed_call_does_run_in_the_page(site: Site) -> None:
    site.open_demo("/product?id=harbor-mug")
    answer = site.gateway().use_tool("add_to_cart", {"quantity": 1})
    assert "added" in answer["content"][0]["text"]
    assert site.activated() == ["add_to_cart"]
    assert site.executed() == ["add_to_cart"]


def test_removing_what_the_owner_pointed_to_goes_through(site: Site) -> None:
    gw, _ = hold_removal(site)
    answer = gw.use_tool("remove_from_cart", {"product_id": "harbor-mug"})
    assert "not_done_yet" not in answer
    assert site.activated() == ["remove_from_cart"]


# -- approvals -------------------------------------------------------------------------------
def test_once_the_owner_says_yes_the_same_call_goes_through_once(site: Site) -> None:
    gw, answer = hold_recipient(site)
    assert answer == ask(TO_SOMEONE_UNNAMED)
    assert gw.approve("place_order")
    assert gw.use_tool("place_order", {**TO_JO, "shipping": "express"}) == ask(TO_SOMEONE_UNNAMED)
    placed = gw.use_tool("place_order", dict(TO_JO))
    assert json.loads(placed["content"][0]["text"])["status"] == "confirmed"
    assert site.activated() == ["place_order"]
    decision = gw.calls[-1].decision
    assert decision is not None
    assert decision.approved
    assert gw.use_tool("place_order", TO_JO) == ask(TO_SOMEONE_UNNAMED)  # used up
    assert site.activated() == ["place_order"]


def test_an_approval_is_kept_when_the_call_never_reached_the_tool(site: Site) -> None:
    site.open_demo("/checkout?items=harbor-mug:1")
    gw = site.gateway()
    assert gw.use_tool("place_order", TO_JO) == ask(TO_SOMEONE_UNNAMED)
    assert gw.approve("place_order")
    site.open_demo("/product?id=tidal-tee")
    assert gw.use_tool("place_order", TO_JO)["error"] == "not_found"  # not on this page
    assert gw.calls[-1].decision is None  # so the approval was not spent on it
    site.open_demo("/checkout?items=harbor-mug:1")
    assert "content" in gw.use_tool("place_order", TO_JO)


def test_a_stop_cannot_be_approved_away(site: Site) -> None:
    gw, answer = hold_secrets(site)
    assert answer == stop(SENDS_SECRETS)
    assert not gw.approve("place_order")
    assert not gw.approve("place_order", WITH_CARD)
    gw.gateway.approvals.approve("place_order", WITH_CARD)  # even an approval given directly
    assert gw.use_tool("place_order", WITH_CARD) == stop(SENDS_SECRETS)
    assert site.activated() == []
    assert site.executed() == []


def test_approving_with_nothing_held_approves_nothing(site: Site) -> None:
    site.open_demo("/")
    assert not site.gateway().approve("place_order")


# -- the person's side, the model's view, never raising ------------------------------------
def test_confirm_submits_the_form_that_waits_for_the_person(site: Site) -> None:
    site.open_page("tools.html")
    gw = site.gateway(instructions="Sign me up with sam.rivera@example.com.")
    waiting = gw.use_tool("sign_up", {"email": "sam.rivera@example.com"})
    assert waiting["error"] == "vendor"
    assert waiting["message"].startswith("The person has to choose or confirm")
    answer = gw.confirm("sign_up")
    assert json.loads(answer["content"][0]["text"]) == {"signed_up": "sam.rivera@example.com"}
    assert gw.confirm("sign_up")["error"] == "not_found"  # nothing waits any more


def test_tool_specs_are_the_pages_tools_as_an_mcp_tools_list(site: Site) -> None:
    site.open_demo("/checkout?items=harbor-mug:1")
    specs = json_ready(site.gateway().tool_specs())
    names = [s["name"] for s in specs]
    assert names == sorted(set(names), key=names.index)  # each once
    assert set(names) == {t.name for t in site.webmcp.tools()}
    by_name = {s["name"]: s for s in specs}
    order = by_name["place_order"]
    assert set(order) == {"name", "description", "inputSchema", "annotations"}
    assert order["inputSchema"]["required"] == ["email", "shipping", "payment"]
    assert order["annotations"]["readOnlyHint"] is False
    assert by_name["view_cart"]["annotations"]["readOnlyHint"] is True


def test_tool_specs_are_rendered_by_the_one_renderer_serve_uses(site: Site) -> None:
    site.open_demo("/checkout?items=harbor-mug:1")
    specs = {s["name"]: s for s in json_ready(site.gateway().tool_specs())}
    tools = {t.name: t for t in site.webmcp.tools()}
    assert specs == {name: tool_spec(tool) for name, tool in tools.items()}
    assert specs["place_order"]["annotations"]["destructiveHint"] is True  # consequentialHint


def test_use_tool_answers_json_for_anything_it_is_given(site: Site) -> None:
    site.open_demo("/product?id=harbor-mug")
    gw = site.gateway()
    assert gw.use_tool(3, {})["error"] == "bad_input"  # type: ignore[arg-type]
    assert gw.use_tool("", {})["error"] == "bad_input"
    assert gw.use_tool("add_to_cart", [1, 2])["error"] == "bad_input"
    assert gw.use_tool("add_to_cart", {"quantity": "many"})["error"] == "bad_input"
    assert gw.use_tool("add_to_cart", {"quantity": 1}, source="a review")["not_done_yet"]
    for call in gw.calls:
        json_ready(call.answer)
        json.dumps(call.to_dict(), default=str)
    assert site.executed() == []


def test_the_callers_cancellation_propagates_and_cancels_in_the_page(site: Site) -> None:
    site.open_demo("/checkout?items=harbor-mug:1&bank=slow")
    core = site.gateway().gateway  # the async core, run on the sync page's own loop
    page = site.webmcp.core.page

    async def body() -> bool:
        task = asyncio.create_task(core.use_tool("check_payment_status", {}))
        await page.wait_for_function("window.__demo.calls.length === 1")
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return True
        return False

    assert run_on_page(site.page, body()) is True
    site.page.wait_for_function("window.__demo.cancelled.length === 1")
    assert site.page.evaluate("window.__demo.cancelled.map(c => c.tool)") == [
        "check_payment_status"
    ]


# -- no false positives on the demo shop's normal traffic -----------------------------------
SCENARIOS = load_expectations()["scenarios"]


def _words(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [w for v in value.values() for w in _words(v)]
    return [str(value)] if isinstance(value, (str, int)) and not isinstance(value, bool) else []


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_the_check_lets_the_demo_shops_normal_calls_through(scenario: dict[str, Any]) -> None:
    # The owner asked for it, in the words of the scenario, naming what it acts on.
    said = f"{scenario['description']} About: {', '.join(_words(scenario['args']))}."
    request = CheckRequest(scenario["tool"], scenario["args"], {}, "owner", said, SAM)
    assert find_secrets(scenario["args"]) == []
    decision = in_thread(lambda: run_check(default_check, request))
    assert decision.outcome == "allow", decision


def test_what_the_demo_shop_answers_holds_no_secret(site: Site) -> None:
    site.open_demo("/order?id=TW-10042")
    gw = site.gateway()
    answers = [gw.use_tool("get_order", {})]
    site.open_demo("/checkout?items=harbor-mug:2,tidal-tee:M:1")
    answers.append(gw.use_tool("view_cart", {}))
    answers.append(gw.use_tool("place_order", ORDER))
    site.open_demo("/")
    answers.append(gw.use_tool("search_products", {"q": "wool"}))
    answers.append(gw.use_tool("get_product", {"product_id": "brass-compass"}))
    for answer in answers:
        assert "content" in answer, answer
        assert find_secrets(answer) == []


# -- helpers -------------------------------------------------------------------------------
def in_thread(body: Callable[[], Awaitable[Any]]) -> Any:
    """Run async code beside the sync Playwright that owns this thread's loop."""

    async def main() -> Any:
        return await body()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, main()).result(timeout=120)


def test_a_tool_that_is_not_on_the_page_is_not_found_before_the_check_asks(site: Site) -> None:
    site.open_demo("/")
    gw = site.gateway()
    answer = json_ready(gw.use_tool("place_order", TO_JO))
    assert answer["error"] == "not_found"
    assert "search_products" in answer["message"]
    assert gw.calls[-1].decision is None  # the check was never asked


def test_the_size_of_what_a_call_returned_is_its_results_json() -> None:
    result: ToolResult = {"content": [{"type": "text", "text": "x" * 5000}]}
    returned = CallResult(result, CallRecord(id=1, tool="big", input={}))
    assert (
        output_size(returned)
        == output_size(result)
        == len(json.dumps(result, separators=(",", ":")))
    )
