"""The command line on a Selenium Grid (`--selenium-grid`): the demo's tools listed and called
through a real standalone grid on 127.0.0.1; input that cannot work refused before anything
starts (exit 2); a node whose Chromium lacks WebMCP named, with the fix."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from selenium_grid import Standalone, logs_folder
from webmcp_harness.session.browser import find_browser
from webmcp_harness.testing.demo import DemoServer

HARNESS = str(Path(sys.executable).with_name("webmcp-harness"))


def harness(*args: str, **more: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SELENIUM_", "WEBMCP_"))}
    env.update(more)
    return subprocess.run(
        [HARNESS, *args], capture_output=True, text=True, timeout=180, env=env, check=False
    )


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    with DemoServer() as server:
        yield server.url


def test_tools_and_call_on_the_demo_through_a_grid(
    selenium_standalone: Standalone, shop: str
) -> None:
    listed = harness("tools", shop, "--json", "--selenium-grid", selenium_standalone.url)
    assert listed.returncode == 0, listed.stderr
    assert {"search_products", "get_product"} <= {t["name"] for t in json.loads(listed.stdout)}
    # The grid's address may come from Playwright's own variable (read, never set).
    called = harness(
        "call",
        shop,
        "get_product",
        '{"product_id": "beacon-lantern"}',
        SELENIUM_REMOTE_URL=selenium_standalone.url,
    )
    assert called.returncode == 0, called.stderr
    assert "Beacon Camp Lantern" in called.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--selenium-grid", "grid:4444"], "is not an http(s) URL"),
        (["--selenium-grid", "http://127.0.0.1:{closed}"], "Nothing answers at"),
        (
            ["--selenium-grid", "http://127.0.0.1:{closed}", "--selenium-capabilities", "{x"],
            "Invalid value for --selenium-capabilities: not valid JSON",
        ),
        (["--selenium-capabilities", "{}"], "needs --selenium-grid"),
        (["--selenium-grid", "http://127.0.0.1:{closed}", "--cdp", "http://h:9222"], "Give one"),
    ],
)
def test_selenium_input_that_cannot_work_is_a_usage_error_before_anything_starts(
    args: list[str], said: str
) -> None:
    from grid_servers import free_port

    closed = str(free_port())
    done = harness("tools", "http://127.0.0.1:9/", *(a.replace("{closed}", closed) for a in args))
    assert done.returncode == 2, done.stderr
    assert said in " ".join(done.stderr.split())


@pytest.fixture(scope="module")
def dropping_grid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A standalone grid whose node's browser is a wrapper that drops --enable-features."""
    folder = logs_folder(tmp_path_factory)
    wrapper = folder / "chromium-without-features"
    wrapper.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do shift; case "$a" in --enable-features=*) ;; *) set -- "$@" "$a";; '
        "esac; done\n"
        f'exec {find_browser()} "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    grid = Standalone(folder, max_sessions=1, binary=str(wrapper))
    yield grid.url
    grid.stop()


def test_a_node_whose_chromium_lacks_webmcp_is_named_with_the_fix(
    dropping_grid: str, shop: str
) -> None:
    done = harness("tools", shop, "--selenium-grid", dropping_grid, "--backend", "cdp")
    said = " ".join(done.stderr.split())
    assert done.returncode == 3, said
    assert "has no WebMCP" in said
    assert "dropped or replaced those arguments" in said
    assert "SE_BROWSER_ARGS_WEBMCP=--enable-features=WebMCP" in said
