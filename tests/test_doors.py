"""A JSON array as arguments is `invalid_input` at every door: API, CLI, scripts, gateway.

And `call --no-validate` sends input to the page as given, as the API's `validate=False` does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from playwright.async_api import Browser

from async_chromium import AsyncChromium
from webmcp_harness import WebMCPSession, tool_error_code
from webmcp_harness.agent import load_script, play_script
from webmcp_harness.agent.gateway import Gateway

ARRAY = [1, 2]


def _on_tools_page(chromium: AsyncChromium, url: str, body: Any) -> Any:
    """body(session)'s value, once url's echo tool is there."""

    async def on(session: WebMCPSession, _page: Any) -> Any:
        await session.wait_for_tool("echo", timeout=10)
        return await body(session)

    return chromium.on_page(url, on)


def _code(result: Any) -> str | None:
    found = tool_error_code(result)
    return found.value if found else None


def test_the_api_says_invalid_input_for_an_array(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    async def body(session: WebMCPSession) -> Any:
        return await session.call("echo", ARRAY)  # type: ignore[arg-type]

    result = _on_tools_page(async_chromium, f"{pages_url}/tools.html", body)
    assert _code(result) == "invalid_input"
    assert "arguments must be a JSON object, not an array" in result["content"][0]["text"]


def test_the_gateway_says_bad_input_for_an_array(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    async def body(session: WebMCPSession) -> Any:
        gateway = Gateway(session, owner="Sam")
        answer = await gateway.use_tool("echo", ARRAY)
        return answer, gateway.calls[-1].code

    answer, code = _on_tools_page(async_chromium, f"{pages_url}/tools.html", body)
    assert answer["error"] == "bad_input", answer
    assert code == "invalid_input"


def test_a_script_step_with_an_array_as_input_is_invalid_input(
    async_chromium: AsyncChromium, pages_url: str
) -> None:
    script = load_script(
        "steps:\n"
        "  - open: /tools.html\n"
        "  - wait_for_tool: echo\n"
        "  - call: {tool: echo, input: [1, 2], expect: {code: invalid_input}}\n",
        base_url=pages_url,
    )

    async def body(browser: Browser) -> Any:
        context = await browser.new_context()
        try:
            page = await context.new_page()
            return await play_script(script, page, base_url=pages_url)
        finally:
            await context.close()

    result = async_chromium.run(body(async_chromium.browser))
    assert result.passed, [s.outcome.describe() for s in result.steps]
    assert result.steps[-1].outcome.code == "invalid_input"


def _cli(browser_server: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`call ARGS --json` in the worker's browser (a context of its own, no Chromium started)."""
    command = ["call", *args, "--json", "--timeout", "10", "--connect", browser_server]
    return subprocess.run(
        [sys.executable, "-m", "webmcp_harness", *command],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("given", ["[1, 2]", '"text"', "5", "null"])
def test_the_cli_codes_json_that_is_not_an_object_as_invalid_input(
    pages_url: str, browser_server: str, given: str
) -> None:
    done = _cli(browser_server, f"{pages_url}/tools.html", "echo", given)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["structuredContent"]["error"] == {"code": "invalid_input", "retryable": True}
    assert "must be a JSON object" in result["content"][0]["text"]


def test_cli_no_validate_sends_the_input_as_given_and_the_page_decides(
    pages_url: str, browser_server: str
) -> None:
    checked = _cli(browser_server, f"{pages_url}/tools.html", "echo", "{}")
    assert "'text' is a required property" in checked.stdout  # the harness's own check
    sent = _cli(browser_server, f"{pages_url}/tools.html", "echo", "{}", "--no-validate")
    assert json.loads(sent.stdout) == {"content": [{"type": "text", "text": "{}"}]}  # no echo key
    array = _cli(browser_server, f"{pages_url}/tools.html", "echo", "[1, 2]", "--no-validate")
    result = json.loads(array.stdout)  # Chromium's WebMCP.invokeTool refuses a non-object
    assert result["structuredContent"]["error"]["code"] == "invalid_input"
    assert "Invalid parameters" in result["content"][0]["text"]
