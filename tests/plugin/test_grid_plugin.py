"""The pytest plugin on a grid: pytest-playwright's browser comes from a browser server."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

INNER = """
from webmcp_harness import expect


def test_the_demo_has_its_tools(page, webmcp, webmcp_demo_url, connect_options):
    assert connect_options["endpoint"] == "{ws}"
    page.goto(webmcp_demo_url)
    expect(webmcp).to_have_tool("search_products")


def test_a_tool_is_called(page, webmcp, webmcp_demo_url, browser_type_launch_args):
    assert "executable_path" not in browser_type_launch_args  # a path here means nothing there
    page.goto(webmcp_demo_url)
    expect(webmcp.call("get_product", {{"product_id": "beacon-lantern"}})).to_succeed()
"""


def test_a_run_under_two_xdist_workers_uses_the_node(pytester: pytest.Pytester, node: str) -> None:
    pytester.makepyfile(test_remote=INNER.format(ws=node))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", f"--webmcp-connect={node}", timeout=180
    )
    result.assert_outcomes(passed=2)


def test_the_ini_key_connects_and_a_stock_server_skips_saying_why(
    pytester: pytest.Pytester, stock_server: str
) -> None:
    pytester.makeini(f"[pytest]\nwebmcp_connect = {stock_server}\n")
    pytester.makepyfile(test_remote=INNER.format(ws=stock_server))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-rs", "-k", "tools", timeout=180
    )
    result.assert_outcomes(skipped=1)
    assert "run-server --unsafe" in result.stdout.str()


def test_a_connect_endpoint_that_is_not_a_websocket_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_remote=INNER.format(ws="x"))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--webmcp-connect=http://grid:3000"
    )
    assert "ws:// or wss://" in result.stderr.str() + result.stdout.str()
