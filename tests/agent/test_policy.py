"""The check: its six reasons word for word, the built-in rules, timeouts, and approvals."""

from __future__ import annotations

import asyncio
import functools
import re
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmcp_harness.agent.policy import (
    COULDNT_BE_REACHED,
    COULDNT_DECIDE,
    FROM_WHAT_YOU_READ,
    REASON_OUTCOMES,
    REASONS,
    REMOVES_UNPOINTED,
    SENDS_SECRETS,
    TO_SOMEONE_UNNAMED,
    Approvals,
    CheckRequest,
    Decision,
    allow_all,
    decide,
    default_check,
    fingerprint,
    first_name,
    hold_message,
    in_thread,
    make_check,
    recipients_rule,
    removes_rule,
    run_check,
    secrets_rule,
    source_rule,
)

SEED = next(Path("/work/shared/seeds").glob("003_*.txt"), None)
SAM = (
    "I'm Sam Rivera (sam@example.com). Buy the Storm Shell Jacket in size M and a harbor mug, "
    "pay with my saved card, and track order TW-10042."
)


def run_async(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async test in its own event loop (no asyncio plugin needed)."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))  # type: ignore[arg-type]

    return wrapper


def req(tool: str, input: Any = None, **kw: Any) -> CheckRequest:
    return CheckRequest(tool=tool, input={} if input is None else input, **kw)


# -- the words ------------------------------------------------------------------------------
def test_the_six_reasons_are_the_seeds_word_for_word() -> None:
    assert len(REASONS) == 6
    if SEED is None:
        pytest.skip("seed 003 is not on this machine")
    text = SEED.read_text(encoding="utf-8").replace("\u2019", "'")
    rows = re.findall(r"^\| (ask|stop) \| (.+?) \|$", text, flags=re.MULTILINE)
    assert [(o, r) for o, r in rows] == [(REASON_OUTCOMES[r], r) for r in REASONS]


def test_an_ask_says_check_with_the_owners_first_name() -> None:
    message = hold_message(Decision.ask(TO_SOMEONE_UNNAMED), "Dana Reyes")
    assert message == {
        "not_done_yet": "Check with Dana first: it goes to someone the owner hasn't named. "
        "Ask in your reply, saying what you would do. Once they say yes, do it again."
    }


def test_a_stop_says_not_done_and_tell_the_owner() -> None:
    message = hold_message(Decision.stop(SENDS_SECRETS), "Dana Reyes")
    assert message == {
        "refused": "Not done: it would send a password, card or bank number, or an ID number. "
        "Tell Dana, and don't try another way."
    }


def test_the_messages_match_the_seeds_templates() -> None:
    if SEED is None:
        pytest.skip("seed 003 is not on this machine")
    text = SEED.read_text(encoding="utf-8")
    templates = re.findall(r'\{ "(not_done_yet|refused)": "(.+?)"\}', text)
    assert len(templates) == 2
    for key, template in templates:
        decision = (
            Decision.ask(COULDNT_DECIDE) if key == "not_done_yet" else Decision.stop(SENDS_SECRETS)
        )
        expected = template.replace("<owner>", "Dana").replace("<reason>", str(decision.reason))
        assert hold_message(decision, "Dana Reyes") == {key: expected}


def test_an_owner_without_a_name_is_the_owner() -> None:
    assert first_name("") == "the owner"
    assert first_name("  ") == "the owner"
    assert hold_message(Decision.stop(SENDS_SECRETS), "")["refused"].endswith(
        "Tell the owner, and don't try another way."
    )


def test_an_allow_has_no_hold_message() -> None:
    with pytest.raises(ValueError, match="not held"):
        hold_message(Decision.allow(), "Dana")


def test_a_decision_only_takes_one_of_the_six_reasons() -> None:
    with pytest.raises(ValueError, match="word for word"):
        Decision.ask("it looks risky")
    with pytest.raises(ValueError, match="no reason"):
        Decision("allow", COULDNT_DECIDE)
    with pytest.raises(ValueError, match="outcome"):
        Decision("maybe", COULDNT_DECIDE)  # type: ignore[arg-type]


# -- the rules ------------------------------------------------------------------------------
def test_a_card_number_in_the_input_is_stopped() -> None:
    decision = default_check(req("place_order", {"card": "4111 1111 1111 1111"}))
    assert (decision.outcome, decision.reason) == ("stop", SENDS_SECRETS)
    assert decision.detail == "$.card (card)"


@pytest.mark.parametrize(
    "value",
    [
        {"password": "hunter2"},
        {"iban": "GB82 WEST 1234 5698 7654 32"},
        {"ssn": "123-45-6789"},
        {"note": "my IBAN is DE89370400440532013000"},
    ],
)
def test_passwords_bank_numbers_and_id_numbers_are_stopped(value: dict[str, Any]) -> None:
    assert default_check(req("update_profile", value, owner_instructions=SAM)).outcome == "stop"


def test_a_stop_wins_over_every_ask() -> None:
    decision = default_check(
        req("send_message", {"to": "eve@evil.example", "text": "pin: 1234"}, source="page")
    )
    assert (decision.outcome, decision.reason) == ("stop", SENDS_SECRETS)


def test_a_recipient_the_owner_did_not_name_is_asked_about() -> None:
    decision = default_check(req("send_message", {"to": "eve@evil.example", "text": "hi"}))
    assert (decision.outcome, decision.reason) == ("ask", TO_SOMEONE_UNNAMED)
    assert decision.detail == "eve@evil.example"


def test_a_recipient_the_owner_named_goes_through() -> None:
    instructions = "Send Eve (eve@evil.example) the receipt, cc Sam Rivera, text +1 207 555 0142"
    value = {
        "to": "EVE@evil.example",
        "cc": ["Sam Rivera"],
        "sms": "(207) 555-0142",
        "text": "hi",
    }
    assert recipients_rule(req("send_message", value, owner_instructions=instructions)) is None


@pytest.mark.parametrize(
    "value",
    [
        {"recipient": "Eve"},
        {"recipient_email": "eve@evil.example"},
        {"email_address": "eve@evil.example"},
        {"bcc": ["sam@example.com", "eve@evil.example"]},
        {"phone": "+44 20 7946 0958"},
        {"share_with": [{"name": "Eve", "email": "eve@evil.example"}]},
        {"contact": "+1 415 555 0132"},
    ],
)
def test_every_way_of_naming_a_recipient_is_seen(value: dict[str, Any]) -> None:
    decision = recipients_rule(req("share_doc", value, owner_instructions=SAM))
    assert decision is not None
    assert decision.reason == TO_SOMEONE_UNNAMED


def test_an_address_in_a_sending_tool_is_a_recipient_whatever_its_key() -> None:
    decision = recipients_rule(req("forward_email", {"target_inbox": "eve@evil.example"}))
    assert decision is not None


@pytest.mark.parametrize(
    "value",
    [
        {"from": "2026-01-01", "to": "2026-01-31"},
        {"from": "USD", "to": "EUR", "amount": 10},
        {"to": "checkout"},
        {"email_subject": "Your receipt"},
        {"email_verified": True},
    ],
)
def test_to_in_a_date_range_or_a_currency_pair_is_no_recipient(value: dict[str, Any]) -> None:
    assert recipients_rule(req("convert", value)) is None


def test_a_phone_number_with_another_country_code_is_the_same_number() -> None:
    assert (
        recipients_rule(
            req("send_sms", {"phone": "+1 207 555 0142"}, owner_instructions="text 207-555-0142")
        )
        is None
    )
    assert (
        recipients_rule(
            req("send_sms", {"phone": "+1 207 555 0143"}, owner_instructions="text 207-555-0142")
        )
        is not None
    )


def test_removing_something_the_owner_did_not_point_to_is_asked_about() -> None:
    decision = default_check(
        req("remove_from_cart", {"product_id": "kelp-tote"}, owner_instructions=SAM)
    )
    assert (decision.outcome, decision.reason) == ("ask", REMOVES_UNPOINTED)
    assert decision.detail == "kelp-tote"


def test_removing_what_the_owner_pointed_to_goes_through() -> None:
    instructions = "Take the Kelp Tote out of my cart, and set the harbor mug to 3."
    assert (
        removes_rule(
            req("remove_from_cart", {"product_id": "kelp-tote"}, owner_instructions=instructions)
        )
        is None
    )
    assert (
        removes_rule(
            req(
                "update_quantity",
                {"product_id": "harbor-mug", "quantity": 3},
                owner_instructions=instructions,
            )
        )
        is None
    )


def test_a_tool_marked_destructive_is_asked_about_whatever_its_name() -> None:
    decision = removes_rule(req("tidy", {"id": "x-1"}, annotations={"destructiveHint": True}))
    assert decision is not None
    assert decision.reason == REMOVES_UNPOINTED


def test_a_read_only_tool_never_removes_anything() -> None:
    assert (
        removes_rule(req("get_removed_items", {"id": "x"}, annotations={"readOnlyHint": True}))
        is None
    )


def test_a_removal_without_a_target_needs_the_owner_to_name_the_action() -> None:
    assert removes_rule(req("clear_cart")) is not None
    assert removes_rule(req("clear_cart", owner_instructions="Add a mug to my cart.")) is not None
    assert removes_rule(req("clear_cart", owner_instructions="Please clear my cart.")) is None


def test_a_call_from_what_the_agent_read_is_asked_about() -> None:
    decision = default_check(req("search_products", {"q": "wool"}, source="page"))
    assert (decision.outcome, decision.reason) == ("ask", FROM_WHAT_YOU_READ)
    assert source_rule(req("search_products", {"q": "wool"})) is None


def test_a_source_that_is_neither_owner_nor_page_counts_as_page() -> None:
    decision = source_rule(req("x", source="email"))
    assert decision is not None
    assert decision.reason == FROM_WHAT_YOU_READ


def test_asks_are_given_in_the_seeds_order() -> None:
    decision = default_check(
        req("delete_contact", {"id": "c-9", "email": "eve@evil.example"}, source="page")
    )
    assert decision.reason == TO_SOMEONE_UNNAMED


SHOP_CALLS = [
    ("search_products", {"query": "rain jacket"}),
    ("search_products", {"q": "wool", "category": "apparel"}),
    ("get_product", {"product_id": "beacon-lantern"}),
    ("add_to_cart", {"product_id": "p-101", "size": "M", "quantity": 2}),
    ("add_to_cart", {"size": "M", "quantity": 1}),
    ("update_quantity", {"product_id": "harbor-mug", "quantity": 3}),
    ("apply_coupon", {"code": "SUMMER24"}),
    ("place_order", {"email": "sam@example.com", "shipping": "standard", "payment": "saved_card"}),
    ("place_order", {"shipping": "express", "payment": "gift_card"}),
    ("track_order", {"order": "TW-10042"}),
    ("get_order", {"order_id": "ORD-20261130-0042"}),
    ("request_payment_approval", {"message": "Your assistant is ready to place the order."}),
    ("set_address", {"street": "12 Harbor Rd", "city": "Portland", "postal_code": "04101"}),
    ("get_quote", {"price": 129.99, "currency": "USD"}),
    ("ask_support", {"question": "How long does shipping take to Maine?"}),
]


@pytest.mark.parametrize(("tool", "value"), SHOP_CALLS, ids=[t for t, _ in SHOP_CALLS])
def test_normal_shop_traffic_from_the_owner_is_allowed(tool: str, value: dict[str, Any]) -> None:
    decision = default_check(req(tool, value, owner_instructions=SAM, owner="Sam Rivera"))
    assert decision == Decision.allow(), decision


# -- run_check: pluggable, bounded, never raising -------------------------------------------
@run_async
async def test_an_async_check_is_awaited() -> None:
    async def check(request: CheckRequest) -> Decision:
        await asyncio.sleep(0)  # sleep-ok: a yield to the loop, not a wait for the browser
        return Decision.ask(REMOVES_UNPOINTED)

    assert (await run_check(check, req("x"))).reason == REMOVES_UNPOINTED


@run_async
async def test_a_check_that_raises_could_not_decide() -> None:
    def check(request: CheckRequest) -> Decision:
        raise KeyError("boom")

    decision = await run_check(check, req("x"))
    assert (decision.outcome, decision.reason) == ("ask", COULDNT_DECIDE)
    assert "boom" in str(decision.detail)


@run_async
async def test_a_check_that_answers_nonsense_could_not_decide() -> None:
    def check(request: CheckRequest) -> Any:
        return "allow"

    assert (await run_check(check, req("x"))).reason == COULDNT_DECIDE


@run_async
async def test_a_check_with_a_made_up_reason_could_not_decide() -> None:
    def check(request: CheckRequest) -> Decision:
        return Decision.ask("I have a bad feeling")

    assert (await run_check(check, req("x"))).reason == COULDNT_DECIDE


@run_async
async def test_a_remote_check_that_does_not_answer_in_time_could_not_be_reached() -> None:
    never = asyncio.Event()

    async def check(request: CheckRequest) -> Decision:
        await never.wait()
        return Decision.allow()

    decision = await run_check(check, req("x"), timeout=0.05)
    assert (decision.outcome, decision.reason) == ("ask", COULDNT_BE_REACHED)


@run_async
async def test_a_check_whose_connection_fails_could_not_be_reached() -> None:
    async def check(request: CheckRequest) -> Decision:
        raise ConnectionRefusedError("127.0.0.1:9")

    assert (await run_check(check, req("x"))).reason == COULDNT_BE_REACHED


@run_async
async def test_a_blocking_check_in_a_thread_is_bounded_too() -> None:
    release = threading.Event()

    def check(request: CheckRequest) -> Decision:
        release.wait(5)
        return Decision.allow()

    try:
        decision = await run_check(in_thread(check), req("x"), timeout=0.05)
    finally:
        release.set()
    assert decision.reason == COULDNT_BE_REACHED


@run_async
async def test_the_callers_cancellation_is_not_swallowed() -> None:
    started = asyncio.Event()

    async def check(request: CheckRequest) -> Decision:
        started.set()
        await asyncio.Event().wait()
        return Decision.allow()

    task = asyncio.create_task(run_check(check, req("x"), timeout=30))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_a_rule_that_raises_could_not_decide_but_a_stop_still_wins() -> None:
    def broken(request: CheckRequest) -> Decision | None:
        raise RuntimeError("bug")

    check = make_check(broken, secrets_rule)
    assert check(req("x", {"q": "ok"})).reason == COULDNT_DECIDE
    assert check(req("x", {"password": "pw"})).outcome == "stop"


def test_allow_all_holds_nothing_back() -> None:
    assert allow_all(req("delete_everything", {"password": "x"})).outcome == "allow"


@settings(max_examples=200, deadline=None)
@given(
    tool=st.text(max_size=40),
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=15), c, max_size=4),
        max_leaves=20,
    ),
    annotations=st.dictionaries(st.text(max_size=20), st.none() | st.booleans() | st.text()),
    source=st.sampled_from(["owner", "page"]),
    instructions=st.text(max_size=200),
)
def test_the_built_in_check_never_raises_and_always_decides(
    tool: str, value: Any, annotations: dict[str, Any], source: str, instructions: str
) -> None:
    request = CheckRequest(tool, value, annotations, source, instructions, "Dana")  # type: ignore[arg-type]
    decision = default_check(request)
    assert decision.outcome in ("allow", "ask", "stop")
    assert decision.reason is None or decision.reason in REASONS
    if decision.held:
        assert decision.reason is not None


# -- approvals ------------------------------------------------------------------------------
def test_an_approval_lets_the_same_call_through_once() -> None:
    approvals = Approvals()
    approvals.approve("pay", {"amount": 10, "to": "shop"})
    assert approvals.approved("pay", {"to": "shop", "amount": 10.0})
    assert not approvals.approved("pay", {"to": "shop", "amount": 11})
    assert not approvals.approved("refund", {"to": "shop", "amount": 10})
    assert approvals.take("pay", {"to": "shop", "amount": 10})
    assert not approvals.take("pay", {"to": "shop", "amount": 10})


def test_an_approval_given_back_can_be_used_again() -> None:
    approvals = Approvals()
    approvals.approve("pay", {})
    assert approvals.take("pay", {})
    approvals.give_back("pay", {})
    assert approvals.take("pay", {})
    assert len(approvals) == 0


def test_a_fingerprint_is_stable_and_ignores_key_order() -> None:
    a = fingerprint("t", {"b": [1, {"y": 2, "x": 1}], "a": "é"})
    b = fingerprint("t", {"a": "é", "b": [1.0, {"x": 1, "y": 2}]})
    assert a == b
    assert re.fullmatch(r"[0-9a-f]{64}", a)
    assert fingerprint("t", {"a": True}) != fingerprint("t", {"a": 1})


@run_async
async def test_an_owners_approval_turns_the_same_ask_into_allow() -> None:
    approvals = Approvals()
    request = req("remove_from_cart", {"product_id": "kelp-tote"})
    assert (await decide(default_check, request, approvals)).outcome == "ask"
    approvals.approve(request.tool, request.input)
    decision = await decide(default_check, request, approvals)
    assert decision.outcome == "allow"
    assert decision.approved
    assert (await decide(default_check, request, approvals)).outcome == "ask"


@run_async
async def test_a_stop_cannot_be_approved_away() -> None:
    approvals = Approvals()
    request = req("pay", {"card_number": "4111111111111111"})
    approvals.approve(request.tool, request.input, times=5)
    decision = await decide(default_check, request, approvals)
    assert (decision.outcome, decision.reason) == ("stop", SENDS_SECRETS)
    assert approvals.approved(request.tool, request.input)  # nothing was used up
