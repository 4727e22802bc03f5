"""Remote browsers: Playwright browser servers with WebMCP, the grid node, and remote errors.

Two real servers run on 127.0.0.1: Playwright's own `run-server --unsafe` (given this machine's
Chromium where it looks for its own) and `webmcp-harness browser-server`. The CLI runs as the
installed command in a subprocess, connecting to them with `--connect`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from grid_servers import free_port
from webmcp_harness.session.browser import (
    NO_WEBMCP_REMOTE,
    explain_remote_error,
    find_browser,
    launch_options,
)
from webmcp_harness.testing.demo import DemoServer

HARNESS = str(Path(sys.executable).with_name("webmcp-harness"))


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    server = DemoServer()
    server.start()
    yield server.url
    server.stop()


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HARNESS, *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("which", ["unsafe_server", "node"])
def test_tools_are_listed_through_a_remote_browser(
    which: str, request: pytest.FixtureRequest, shop: str
) -> None:
    ws = request.getfixturevalue(which)
    done = harness("tools", f"{shop}/", "--json", "--connect", ws)
    assert done.returncode == 0, done.stderr
    names = {tool["name"] for tool in json.loads(done.stdout)}
    assert "search_products" in names


@pytest.mark.parametrize("which", ["unsafe_server", "node"])
def test_a_tool_is_called_through_a_remote_browser(
    which: str, request: pytest.FixtureRequest, shop: str
) -> None:
    ws = request.getfixturevalue(which)
    done = harness(
        "call",
        f"{shop}/",
        "get_product",
        '{"product_id": "beacon-lantern"}',
        "--json",
        "--connect",
        ws,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert not result.get("isError"), result


def test_the_launch_options_sent_to_a_server_turn_webmcp_on() -> None:
    options = launch_options()
    args = [str(a) for a in options["args"]]  # type: ignore[attr-defined]
    enabled = [a.split("=", 1)[1].split(",") for a in args if a.startswith("--enable-features=")]
    assert len(enabled) == 1
    assert {"WebMCP", "WebMCPTesting", "DevToolsWebMCPSupport"} <= set(enabled[0])
    assert "executablePath" not in options


def test_a_stock_server_that_drops_the_launch_options_says_both_ways_to_fix_it(
    stock_server: str, shop: str
) -> None:
    done = harness("tools", f"{shop}/", "--connect", stock_server, "--backend", "cdp")
    assert done.returncode != 0
    message = " ".join(done.stderr.split())
    assert "run-server --unsafe" in message
    assert "webmcp-harness browser-server" in message
    assert NO_WEBMCP_REMOTE.split(":")[0] in message


def test_with_every_source_a_remote_browser_without_webmcp_is_a_warning_not_an_end(
    stock_server: str, shop: str
) -> None:
    done = harness("tools", f"{shop}/", "--connect", stock_server, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
    assert "webmcp-harness browser-server" in " ".join(done.stderr.split())


def test_a_server_with_no_browser_of_its_own_is_explained_without_its_paths() -> None:
    said = explain_remote_error(
        "ws://grid:3000/",
        "BrowserType.connect: Executable doesn't exist at /root/.cache/ms-playwright/x/chrome",
    )
    assert "/root/.cache" not in said
    assert "playwright install chromium" in said
    assert "webmcp-harness browser-server" in said


def test_a_version_skew_is_named_as_such() -> None:
    said = explain_remote_error("ws://grid:3000/", "Playwright version mismatch: server v1.40")
    assert "Playwright version" in said


def test_nothing_listening_says_to_check_the_server() -> None:
    done = harness("tools", "http://127.0.0.1:9/", "--connect", f"ws://127.0.0.1:{free_port()}/")
    assert done.returncode != 0
    assert "browser server is running" in " ".join(done.stderr.split())


@pytest.fixture
def cdp_without_webmcp(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    command = [find_browser(), "--headless", f"--remote-debugging-port={port}"]
    command += ["--remote-debugging-address=127.0.0.1", f"--user-data-dir={tmp_path}"]
    command += ["--disable-background-networking", "--disable-component-update"]
    command += ["--no-sandbox"] if os.geteuid() == 0 else []
    process = subprocess.Popen(
        [*command, "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stderr is not None
    for line in process.stderr:  # "DevTools listening on ws://…"
        if "DevTools listening" in line:
            break
    yield f"http://127.0.0.1:{port}"
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(10)


def test_a_cdp_browser_without_webmcp_names_the_flag_to_add(
    cdp_without_webmcp: str, shop: str
) -> None:
    done = harness("tools", f"{shop}/", "--cdp", cdp_without_webmcp, "--backend", "cdp")
    assert done.returncode != 0
    message = " ".join(done.stderr.split())
    assert "has no WebMCP" in message
    assert "--enable-features=WebMCP" in message
