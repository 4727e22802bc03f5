"""`serve --connect` and `serve --selenium-grid`: the MCP bridge on the browser of a grid node
(a browser server, or a Selenium Grid session), driven by the MCP SDK."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from webmcp_harness.testing.demo import serve_demo

SRC = Path(__file__).resolve().parents[2] / "src"
WAIT = 90.0


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    server = serve_demo()
    yield server.url.rstrip("/")
    server.stop()


async def _list_and_call(params: StdioServerParameters, log: Path) -> tuple[set[str], str]:
    with anyio.fail_after(WAIT), log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as streams:
            session = ClientSession(streams[0], streams[1])
            async with session:
                await session.initialize()
                names = {tool.name for tool in (await session.list_tools()).tools}
                result = await session.call_tool("get_product", {"product_id": "beacon-lantern"})
                assert not result.is_error, result
                said = (
                    result.content[0].text
                    if isinstance(result.content[0], types.TextContent)
                    else ""
                )
                return names, said


@pytest.mark.parametrize("grid", ["node", "selenium_standalone"])
def test_serve_lists_and_calls_the_demos_tools_in_a_remote_browser(
    grid: str, request: pytest.FixtureRequest, demo: str, tmp_path: Path
) -> None:
    if grid == "node":  # a browser server, or a Selenium Grid's session
        where = ["--connect", request.getfixturevalue("node")]
    else:
        where = ["--selenium-grid", request.getfixturevalue("selenium_standalone").url]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELENIUM_")}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    args = ["-m", "webmcp_harness", "serve", f"{demo}/", *where, "--timeout", "30"]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    log = tmp_path / "serve.log"
    try:
        names, said = anyio.run(_list_and_call, params, log)
    except BaseException:
        raise AssertionError(log.read_text()) from None
    assert "search_products" in names
    assert json.loads(said)["product_id"] == "beacon-lantern"
