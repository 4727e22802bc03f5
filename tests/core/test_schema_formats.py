"""`format` is checked before the call, for each format JSON Schema 2020-12 defines."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from webmcp_harness import tool_error_code
from webmcp_harness.sync_api import WebMCPSession as SyncSession

# format: (a value in it, a value not in it)
FORMATS = {
    "date": ("2026-12-25", "25/12/2026"),
    "time": ("10:30:00Z", "10:30"),
    "date-time": ("2026-12-25T10:30:00Z", "2026-12-25 10:30"),
    "duration": ("P1DT2H", "1 day"),
    "email": ("sam@example.com", "sam at example"),
    "idn-email": ("jürgen@example.de", "jürgen"),
    "hostname": ("shop.example.com", "-shop-"),
    "idn-hostname": ("bücher.example", "-bücher-"),
    "ipv4": ("192.0.2.1", "192.0.2"),
    "ipv6": ("2001:db8::1", "2001:db8:::1"),
    "uri": ("https://example.com/a", "not a uri"),
    "uri-reference": ("/a/b?c", "\\\\bad"),
    "iri": ("https://bücher.example/ä", "bücher"),
    "iri-reference": ("/ä", "\\\\bad"),
    "uuid": ("12345678-1234-1234-1234-123456789012", "1234"),
    "uri-template": ("/orders/{id}", "/orders/{id"),
    "json-pointer": ("/a/0", "a/0"),
    "relative-json-pointer": ("0/a", "/a"),
    "regex": ("^a+$", "(unclosed"),
}


def code(result: Any) -> str | None:
    found = tool_error_code(result)
    return found.value if found else None


@pytest.fixture
def page(reused_page: Page) -> Page:
    """One page for the whole file: each test opens its own document in it (tests/conftest.py)."""
    return reused_page


@pytest.fixture
def formats(page: Page, webmcp: SyncSession, pages_url: str) -> SyncSession:
    page.goto(f"{pages_url}/outcomes/formats.html")
    page.wait_for_function("window.toolsReady === true")
    return webmcp


def test_every_2020_12_format_has_a_tool_on_the_page(formats: SyncSession) -> None:
    names = {t.name for t in formats.tools()}
    assert {f"takes_{f}" for f in FORMATS} == names


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_value_outside_the_format_is_invalid_input_and_the_tool_never_runs(
    formats: SyncSession, page: Page, fmt: str
) -> None:
    good, bad = FORMATS[fmt]
    refused = formats.call(f"takes_{fmt}", {"v": bad})
    assert code(refused) == "invalid_input", refused
    assert f"is not a '{fmt}' (at /v)" in refused["content"][0]["text"]
    assert page.evaluate("window.invoked") == []
    taken = formats.call(f"takes_{fmt}", {"v": good})
    assert code(taken) is None, taken
    assert page.evaluate("window.invoked") == [fmt]
