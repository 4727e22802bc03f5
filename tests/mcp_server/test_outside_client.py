"""`webmcp-harness serve` driven by an MCP client no one here wrote: the MCP Inspector's CLI.

The Inspector is installed, pinned, by `scripts/npm-tools.sh` (CI runs it; the fixture runs it
too, and it returns at once once installed). It starts `serve` over stdio itself, as any MCP
client configured with our command line would, lists the tools and calls one. `serve` opens the
demo shop in the worker's browser server (`--connect`) rather than launching a Chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
WAIT = 120.0  # one Inspector run: Node's start, serve's context and the demo shop


@pytest.fixture(scope="module")
def inspector() -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm is not on PATH: install Node.js 20+ to run the MCP Inspector tests")
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "npm-tools.sh")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"scripts/npm-tools.sh could not install the Inspector: {done.stderr[-500:]}")
    found = Path(done.stdout.strip()) / "node_modules" / ".bin" / "mcp-inspector"
    assert found.exists(), f"npm-tools.sh ran, but {found} is not there"
    return found


def _inspect(inspector: Path, browser: str, *method: str, exit_code: int = 0) -> Any:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    serve = [sys.executable, "-m", "webmcp_harness", "serve", "--connect", browser]
    done = subprocess.run(
        [str(inspector), "--cli", *serve, *method],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env=env,
        check=False,
    )
    assert done.returncode == exit_code, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_inspector_lists_the_demo_shops_tools_and_ours(
    inspector: Path, browser_server: str
) -> None:
    listed = _inspect(inspector, browser_server, "--method", "tools/list")
    names = {tool["name"] for tool in listed["tools"]}
    assert {"search_products", "get_product", "add_to_cart"} <= names
    assert {"browser_open", "browser_wait_for_tool"} <= names
    product = next(t for t in listed["tools"] if t["name"] == "get_product")
    assert product["inputSchema"]["type"] == "object"


def _get_product(inspector: Path, browser: str, product_id: str, *, exit_code: int = 0) -> Any:
    """get_product called through the Inspector; its CLI exits 5 for a result with isError."""
    return _inspect(
        inspector,
        browser,
        "--method",
        "tools/call",
        "--tool-name",
        "get_product",
        "--tool-arg",
        f"product_id={product_id}",
        exit_code=exit_code,
    )


def test_the_inspector_calls_a_page_tool_and_gets_its_answer(
    inspector: Path, browser_server: str
) -> None:
    called = _get_product(inspector, browser_server, "harbor-mug")
    assert called["isError"] is False
    assert json.loads(called["content"][0]["text"])["name"] == "Harbor Enamel Mug"


def test_the_inspector_sees_a_call_the_schema_refuses_as_an_error(
    inspector: Path, browser_server: str
) -> None:
    called = _get_product(inspector, browser_server, "no-such-mug", exit_code=5)
    assert called["isError"] is True
    assert called["structuredContent"]["error"] == {"code": "invalid_input", "retryable": True}
    assert called["content"][0]["text"].startswith("Error [invalid_input]: get_product:")
