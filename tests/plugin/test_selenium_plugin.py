"""The pytest plugin on a Selenium Grid: pytest-playwright's browser is a grid session (one per
xdist worker), asked for WebMCP's switches; a grid that cannot work is a usage error at once."""

from __future__ import annotations

import pytest

from grid_servers import free_port
from selenium_grid import Standalone

pytest_plugins = ["pytester"]

INNER = """
import json
import urllib.request

from webmcp_harness import expect


def sessions():
    with urllib.request.urlopen("{grid}/status") as answer:
        nodes = json.load(answer)["value"]["nodes"]
    return [slot["session"] for node in nodes for slot in node["slots"] if slot["session"]]


def test_the_demo_has_its_tools(page, webmcp, webmcp_demo_url, browser_type_launch_args):
    assert "executable_path" not in browser_type_launch_args  # a path here means nothing there
    assert sessions()
    page.goto(webmcp_demo_url)
    expect(webmcp).to_have_tool("search_products")


def test_a_tool_is_called(page, webmcp, webmcp_demo_url):
    assert sessions()
    page.goto(webmcp_demo_url)
    expect(webmcp.call("get_product", {{"product_id": "beacon-lantern"}})).to_succeed()
"""


def test_a_run_under_two_xdist_workers_uses_a_grid_session_each(
    pytester: pytest.Pytester, selenium_standalone: Standalone
) -> None:
    pytester.makepyfile(test_remote=INNER.format(grid=selenium_standalone.url))
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        f"--webmcp-selenium-grid={selenium_standalone.url}",
        timeout=180,
    )
    result.assert_outcomes(passed=2)


def test_the_ini_key_names_the_grid(
    pytester: pytest.Pytester, selenium_standalone: Standalone
) -> None:
    pytester.makeini(f"[pytest]\nwebmcp_selenium_grid = {selenium_standalone.url}\n")
    pytester.makepyfile(test_remote=INNER.format(grid=selenium_standalone.url))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "called", timeout=180)
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--webmcp-selenium-grid=grid:4444"], "is not an http(s) URL"),
        (["--webmcp-selenium-grid=http://127.0.0.1:{port}"], "Nothing answers at"),
        (
            ["--webmcp-selenium-grid=http://h:1", "--webmcp-selenium-capabilities=[1]"],
            "--webmcp-selenium-capabilities: not a JSON object",
        ),
    ],
)
def test_a_grid_that_cannot_work_is_a_usage_error(
    pytester: pytest.Pytester, args: list[str], said: str
) -> None:
    pytester.makepyfile(test_remote=INNER.format(grid="x"))
    port = str(free_port())
    # in this process: a usage error ends the run before any browser starts
    result = pytester.runpytest("-p", "no:asyncio", *(a.replace("{port}", port) for a in args))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert said in result.stderr.str() + result.stdout.str()
