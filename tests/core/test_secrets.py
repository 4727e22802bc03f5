"""Secrets in a call's input: what the check stops on and what transcripts redact."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmcp_harness.core.secrets import (
    REDACTED,
    Finding,
    find_secrets,
    iban_ok,
    key_secret,
    key_words,
    luhn_ok,
    redact,
    secret_spans,
)

DEMO_EXPECTATIONS = Path(__file__).resolve().parents[2] / "demo_site" / "expectations.json"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=20), children, max_size=5)
    ),
    max_leaves=30,
)


def luhn_number(prefix: str, length: int, rng: random.Random) -> str:
    """A number of that length and prefix whose last digit makes it pass Luhn."""
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    for last in "0123456789":
        if luhn_ok(body + last):
            return body + last
    raise AssertionError("unreachable")


# Normal traffic of a shop: none of it is a secret.
SHOP_TRAFFIC: list[Any] = [
    {"query": "rain jacket"},
    {"product_id": "p-101", "size": "M", "quantity": 2},
    {"order_id": "ORD-20261130-0042"},
    {"order": "TW-10042"},
    {"order": "10042"},
    {"postal_code": "02134"},
    {"postal_code": "SW1A 1AA"},
    {"zip": "94103-1234"},
    {
        "address": {
            "name": "Sam Rivera",
            "street": "12 Harbor Rd",
            "city": "Portland",
            "zip": "04101",
        }
    },
    {"price": 129.99, "currency": "USD", "total": "€1,299.00"},
    {"amount_cents": 14800},
    {"email": "sam@example.com", "shipping": "standard", "payment": "saved_card"},
    {"shipping": "express", "payment": "gift_card"},
    {"code": "SUMMER24"},
    {"q": "wool", "category": "apparel"},
    {"product_id": "harbor-mug", "quantity": 0},
    {"message": "Your assistant is ready to place the order."},
    {"question": "How long does shipping take to Maine?"},
    {"item": "tidal-tee", "reason": "too_small"},
    {"frequency": "monthly"},
    {"date": "2026-11-30", "time": "10:30", "timestamp": 1732960000000},
    {"uuid": "123e4567-e89b-12d3-a456-426614174000"},
    {"sha": "4111111111111111abcdef0123456789abcdef01"},
    {"tracking": "1Z999AA10123456784"},
    {"phone_free_address": "Flat 3, 221B Baker Street, London NW1 6XE"},
    {"isbn": "978-3-16-148410-0"},
    {"sku": "STORM-SHELL-M"},
    {"has_password": True, "password_min_length": 8, "password_hint": "first pet"},
    {"pin": "Eiffel Tower"},
    {"order_ids": ["ORD-1", "ORD-2"], "page": 2, "per_page": 50},
    {"note": "Leave it at the door, code 1234 doesn't work"},
]


@pytest.mark.parametrize("value", SHOP_TRAFFIC, ids=lambda v: json.dumps(v)[:40])
def test_normal_shop_traffic_holds_no_secret(value: Any) -> None:
    assert find_secrets(value) == []
    assert redact(value) == value


def test_the_demo_sites_scenarios_hold_no_secret() -> None:
    if not DEMO_EXPECTATIONS.exists():
        pytest.skip("demo_site/expectations.json is not there yet")
    data = json.loads(DEMO_EXPECTATIONS.read_text(encoding="utf-8"))
    scenarios = data if isinstance(data, list) else data.get("scenarios", [])
    for scenario in scenarios:
        args = scenario.get("args", scenario.get("arguments", scenario.get("input")))
        assert find_secrets(args) == [], scenario


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ({"password": "hunter2"}, "password"),
        ({"newPassword": "hunter2"}, "password"),
        ({"NEW_PASSWORD": "hunter2"}, "password"),
        ({"user": {"passwd": "x"}}, "password"),
        ({"client_secret": "abc"}, "password"),
        ({"apiKey": "sk-123"}, "password"),
        ({"access_token": "eyJ..."}, "password"),
        ({"pin": "1234"}, "password"),
        ({"pin_code": 987654}, "password"),
        ({"card_number": "4111 1111 1111 1111"}, "card"),
        ({"cvv": "123"}, "card"),
        ({"note": "card 4111-1111-1111-1111 please"}, "card"),
        ({"n": 4111111111111111}, "card"),
        ({"amex": "3782 822463 10005"}, "card"),
        ({"to": "GB82 WEST 1234 5698 7654 32"}, "bank"),
        ({"account": "DE89370400440532013000"}, "bank"),
        ({"iban": "NL91ABNA0417164300"}, "bank"),
        ({"routing_number": "021000021"}, "bank"),
        ({"ssn": "078051120"}, "id"),
        ({"note": "my SSN is 123-45-6789"}, "id"),
        ({"nino": "AB 12 34 56 C"}, "id"),
        ({"dni": "12345678Z"}, "id"),
        ({"nie": "X1234567L"}, "id"),
        ({"passport_number": "X1234567"}, "id"),
        ({"text": "login with password: hunter2"}, "password"),
        ({"json": '{"password":"hunter2"}'}, "password"),
    ],
    ids=lambda v: json.dumps(v)[:50] if isinstance(v, dict) else str(v),
)
def test_each_kind_of_secret_is_found(value: Any, what: str) -> None:
    found = find_secrets(value)
    assert [f.what for f in found] == [what]
    assert REDACTED in json.dumps(redact(value))


def test_a_finding_says_where_the_secret_is() -> None:
    found = find_secrets({"payment": {"cards": [{"number": "4111111111111111"}]}, "a b": "x"})
    assert found == [Finding("$.payment.cards[0].number", "card")]
    assert find_secrets({"a b": {"password": "x"}}) == [Finding('$["a b"].password', "password")]


@pytest.mark.parametrize(
    "text",
    [
        "4111 1111 1111 1112",  # fails Luhn
        "1111 1111 1111 1117",  # starts with 1
        "+4111111111111111",  # a phone-like + before it
        "ORD-4111111111111111",  # part of an id
        "4111111111111111.5",  # part of a decimal
        "41111111111111111111",  # 20 digits
        "666-12-3456",  # area 666
        "900-12-3456",  # area 9xx
        "123-00-4567",  # group 00
        "123-45-0000",  # serial 0000
        "123-45 6789",  # mixed separators
        "GB82 WEST 1234 5698 7654 33",  # fails mod-97
        "QQ 12 34 56 C",  # QQ is no NINO prefix
        "12345678A",  # wrong DNI letter
    ],
)
def test_near_misses_are_not_secrets(text: str) -> None:
    assert secret_spans(text) == []


def test_a_secret_inside_text_is_redacted_in_place() -> None:
    assert redact("pay with 4111 1111 1111 1111 today") == f"pay with {REDACTED} today"
    assert redact({"password": {"old": "a", "new": "b"}}) == {
        "password": {"old": REDACTED, "new": REDACTED}
    }


def test_redacting_keeps_everything_else_and_makes_a_copy() -> None:
    value = {"q": "jacket", "items": [1, 2.5, None, True], "pw": ("a",)}
    out = redact(value)
    assert out == {"q": "jacket", "items": [1, 2.5, None, True], "pw": ["a"]}
    assert out is not value


def test_cycles_do_not_hang_the_walk() -> None:
    loop: list[Any] = ["4111111111111111"]
    loop.append(loop)
    assert find_secrets(loop) == [Finding("$[0]", "card")]
    assert redact(loop) == [REDACTED, REDACTED]


def test_a_very_deep_value_is_walked_without_recursion_errors() -> None:
    deep: Any = "4111111111111111"
    for _ in range(5000):
        deep = [deep]
    assert [f.what for f in find_secrets(deep)] == ["card"]
    assert "4111" not in json.dumps(redact(deep))


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("newPassword", ("new", "password")),
        ("APIKey", ("api", "key")),
        ("card-number", ("card", "number")),
        ("cvv2", ("cvv2",)),
        (3, ("3",)),
    ],
)
def test_keys_are_split_into_words(key: object, words: tuple[str, ...]) -> None:
    assert key_words(key) == words


def test_keys_that_only_mention_a_secret_word_in_passing_are_not_secret() -> None:
    assert key_secret("shipping") is None
    assert key_secret("pinned") is None
    assert key_secret("spin") is None
    assert key_secret("password_hint") is None
    assert key_secret("password_min_length") is None
    assert key_secret("password_confirm") == ("password", 0)
    assert key_secret("pinCode") == ("password", -4)


def test_luhn_and_iban_checks_agree_with_known_numbers() -> None:
    assert luhn_ok("4111111111111111")
    assert luhn_ok("79927398713")
    assert not luhn_ok("79927398710")
    assert not luhn_ok("")
    assert not luhn_ok("12a4")
    for iban in (
        "GB82WEST12345698765432",
        "DE89 3704 0044 0532 0130 00",
        "FR1420041010050500013M02606",
    ):
        assert iban_ok(iban), iban
    assert not iban_ok("GB82WEST1234569876543")  # one short
    assert not iban_ok("XX82WEST12345698765432")  # no such country


@settings(deadline=None)
@given(st.randoms(use_true_random=False), st.integers(13, 19), st.sampled_from("23456"))
def test_any_luhn_valid_card_number_is_found_in_text(
    rng: random.Random, length: int, first: str
) -> None:
    number = luhn_number(first, length, rng)
    assert [w for _, _, w in secret_spans(f"card: {number}.")] == ["card"]
    grouped = " ".join(number[i : i + 4] for i in range(0, len(number), 4))
    if len(number) % 4 != 1:  # a last group of one digit is not how cards are written
        assert [w for _, _, w in secret_spans(grouped)] == ["card"]


@settings(deadline=None)
@given(st.text(alphabet="0123456789", min_size=13, max_size=19))
def test_a_digit_run_is_a_card_exactly_when_it_passes_the_rules(digits: str) -> None:
    expected = digits[0] in "23456" and luhn_ok(digits)
    assert bool(secret_spans(digits)) == expected


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_the_detectors_never_raise_and_redaction_leaves_nothing_to_find(value: Any) -> None:
    find_secrets(value)
    out = redact(value)
    assert find_secrets(out) == []


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_spans_are_sorted_inside_the_text_and_never_raise(text: str) -> None:
    spans = secret_spans(text)
    last = 0
    for start, end, _ in spans:
        assert last <= start < end <= len(text)
        last = end


@settings(deadline=None)
@given(st.text(alphabet="0123456789 -+./ABCDEFGHIJKLMNOPQRSTUVWXYZ:", max_size=80))
def test_redacting_text_of_digits_and_letters_leaves_nothing_to_find(text: str) -> None:
    assert secret_spans(redact(text)) == []


# -- secrets that tried to side-step the redactor ----------------------------------------------------

KNOWN_SECRETS = (
    "4111111111111111",
    "4111 1111 1111 1111",
    "4111\u00a01111\u00a01111\u00a01111",
    "4111\u202f1111\u202f1111\u202f1111",
    "4111.1111.1111.1111",
    "4111-1111-1111-1111",
    "5500 0000 0000 0004",
    "DE89 3704 0044 0532 0130 00",
    "GB82WEST12345698765432",
    "123-45-6789",
)
PHRASES = ("my password is hunter2", "the password is: swordfish", "Password was s3cr3t!")


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


def _leaks(value: Any) -> list[str]:
    flat = json.dumps(value, ensure_ascii=False)
    found = [s for s in KNOWN_SECRETS if _digits(s) in _digits(flat)]
    found += [w for w in ("hunter2", "swordfish", "s3cr3t") if w in flat]
    return found


@pytest.mark.parametrize("secret", KNOWN_SECRETS)
def test_a_secret_as_a_key_is_redacted_and_found(secret: str) -> None:
    value = {"order": {secret: "the card", "n": [{secret: 1}]}}
    assert _leaks(redact(value)) == []
    assert find_secrets(value)


@pytest.mark.parametrize("phrase", PHRASES)
def test_password_phrases_are_redacted(phrase: str) -> None:
    assert _leaks(redact({"note": f"Note: {phrase}. Thanks"})) == []


@pytest.mark.parametrize(
    "text", ["password is required", "Your password is too short", "the password is incorrect"]
)
def test_messages_about_passwords_are_not_redacted(text: str) -> None:
    assert redact(text) == text


def test_a_secret_past_a_million_characters_is_redacted() -> None:
    text = "x" * 1_500_000 + " 4111 1111 1111 1111 and DE89 3704 0044 0532 0130 00"
    out = redact(text)
    assert _leaks(out) == []
    assert find_secrets(text)


def test_redacted_keys_that_collide_keep_every_value() -> None:
    out = redact({"4111111111111111": 1, "4111 1111 1111 1111": 2})
    assert sorted(out.values()) == [1, 2]


_filler = st.text(alphabet="abc XYZ:=\"'{}[]-.", max_size=20)


@st.composite
def _with_secret(draw: st.DrawFn) -> str:
    secret = draw(st.sampled_from(KNOWN_SECRETS + PHRASES))
    long = draw(st.sampled_from([0, 0, 200_000]))
    return draw(_filler) + " " * bool(long) + "y" * long + " " + secret + " " + draw(_filler)


_nested = st.recursive(
    st.one_of(_with_secret(), _filler, st.integers(), st.just(4111111111111111)),
    lambda kids: st.one_of(
        st.lists(kids, max_size=3),
        st.dictionaries(st.one_of(_with_secret(), _filler), kids, max_size=3),
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(_nested)
def test_no_known_secret_survives_redaction_in_keys_values_and_long_strings(value: Any) -> None:
    out = redact(value)
    assert _leaks(out) == [], out if len(json.dumps(out)) < 2000 else "(long)"
    assert find_secrets(out) == []
