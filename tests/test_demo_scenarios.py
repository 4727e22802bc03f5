"""Every scenario of demo_site/expectations.json, run through the harness, gives its code."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from playwright.sync_api import Page

from webmcp_harness import tool_error_code
from webmcp_harness.sync_api import WebMCPSession as SyncSession
from webmcp_harness.testing.demo import load_expectations

SCENARIOS = load_expectations()["scenarios"]


@pytest.fixture
def page(reused_page: Page) -> Page:
    """One page for the whole file: each test opens its own document in it (tests/conftest.py)."""
    return reused_page


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_scenario_gives_its_expected_code(
    scenario: dict[str, Any], page: Page, webmcp: SyncSession, webmcp_demo_url: str
) -> None:
    page.goto(webmcp_demo_url + scenario["page"])
    if scenario["expect"] != "unavailable":
        assert webmcp.wait_for_tool(scenario["tool"], timeout=5) is not None
    result = webmcp.call(
        scenario["tool"],
        scenario["args"],
        timeout=scenario["timeout"],
        frame=scenario.get("frame"),
        confirm=scenario.get("confirm", False),
    )
    found = tool_error_code(result)
    got = found.value if found else webmcp.records[-1].code
    assert got == scenario["expect"], json.dumps(webmcp.records[-1].to_dict(), default=str)[:2000]


def test_the_cli_call_prints_a_demo_scenarios_coded_result(
    webmcp_demo_url: str, browser_server: str
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "webmcp_harness",
            "call",
            f"{webmcp_demo_url}/",
            "place_order",
            '{"email": "ada@example.com"}',
            "--json",
            "--timeout",
            "2",  # no place_order on /: `call` waits up to min(--timeout, 5 s) for it
            "--connect",
            browser_server,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["structuredContent"]["error"] == {"code": "unavailable", "retryable": True}
    assert 'No tool "place_order"' in result["content"][0]["text"]


def test_the_cli_call_says_needs_user_for_a_waiting_form_and_submits_it_with_confirm(
    webmcp_demo_url: str, browser_server: str
) -> None:
    args = '{"order": "TW-10042", "item": "tidal-tee", "reason": "too_small"}'
    command = [
        sys.executable,
        "-m",
        "webmcp_harness",
        "call",
        f"{webmcp_demo_url}/returns",
        "request_return",
        args,
        "--json",
        "--timeout",
        "30",
        "--connect",
        browser_server,
    ]
    waiting = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert waiting.returncode == 0, waiting.stderr
    assert json.loads(waiting.stdout)["structuredContent"]["error"]["code"] == "needs_user"
    confirmed = subprocess.run(
        [*command, "--confirm"], capture_output=True, text=True, timeout=120, check=False
    )
    assert confirmed.returncode == 0, confirmed.stderr
    answer = json.loads(confirmed.stdout)
    assert "isError" not in answer
    assert "RMA-10042" in answer["content"][0]["text"]
