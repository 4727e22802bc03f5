"""`check` over a Selenium Grid (a hub with two nodes on 127.0.0.1): the demo's pages spread over
two sessions, each checked once with the findings of a local run, and the pages of a node killed
mid-check checked on the other node, the report naming them."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_grid_check import KILLED_PAGES, site

from selenium_grid import Hub
from webmcp_harness.cli.summary import render_summary
from webmcp_harness.conformance.reports import CheckReport
from webmcp_harness.conformance.runner import CheckOptions, Progress, check_urls
from webmcp_harness.session.selenium import GridSessions, SeleniumGrid
from webmcp_harness.testing.demo import DemoServer

__all__ = ["site"]  # (the 40-page site of the browser-server tests: a fixture)

HARNESS = str(Path(sys.executable).with_name("webmcp-harness"))
DEMO_PAGES = ("", "track", "returns", "cart", "product?id=harbor-mug", "order", "checkout")


@pytest.fixture
def hub(selenium_hub: Hub) -> Hub:
    """The hub, with a node in place of any a test killed."""
    for node in list(selenium_hub.nodes):
        if node.server.process.poll() is not None:
            selenium_hub.replace(node)
    return selenium_hub


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    with DemoServer() as server:
        yield server.url.rstrip("/")


def _check(*args: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SELENIUM_", "WEBMCP_"))}
    done = subprocess.run(
        [HARNESS, "check", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_the_demos_pages_are_spread_over_two_sessions_with_the_findings_of_a_local_run(
    hub: Hub, shop: str, browser_server: str
) -> None:
    urls = [f"{shop}/{path}" for path in DEMO_PAGES]
    grid = _check(*urls, "--workers", "2", "--selenium-grid", hub.url)
    # The local run: on the worker's own Chromium (no launch of one more).
    local = _check(*urls, "--workers", "2", "--connect", browser_server)
    checked = [page["url"] for page in grid["pages"]]
    assert sorted(checked) == sorted(set(checked)) == sorted(page["url"] for page in local["pages"])
    assert grid["options"]["browsers"] == 2
    assert grid["findings"] == local["findings"]
    assert grid["summary"] == local["summary"]
    assert grid["checks"] == local["checks"]


def test_the_pages_of_a_node_killed_mid_check_are_checked_on_the_other_and_named(
    hub: Hub, site: str
) -> None:
    grid = SeleniumGrid.at(hub.url)
    done: list[str] = []
    killed: list[str] = []
    used: set[int] = set()

    async def run() -> CheckReport:
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            sessions = GridSessions(p, grid, 2)
            try:
                first = await sessions.first()
                victim = first.session.node
                assert victim is not None

                def kill() -> None:  # a page is loading on the victim, and a few are done
                    if not killed and len(done) >= 3:
                        killed.append(victim)
                        hub.node_at(victim).server.kill()

                async def watch(context: Any) -> None:
                    used.add(id(context.browser))
                    if context.browser is first.browser:
                        context.on("request", lambda _request: kill())

                def progress(event: Progress) -> None:
                    if event.event == "done":
                        done.append(event.url)

                return await check_urls(
                    [first.browser],
                    [site],
                    CheckOptions(crawl=40, workers=1, timeout=20, max_pages=KILLED_PAGES),
                    names=[first.session.name],
                    sessions=sessions,
                    on_progress=progress,
                    prepare_context=watch,
                )
            finally:
                await sessions.aclose()

    report = asyncio.run(run())
    assert killed
    assert len(used) == 2  # both sessions checked pages
    urls = [page.url for page in report.pages]
    assert len(set(urls)) == len(urls) == KILLED_PAGES
    assert [(page.url, page.error) for page in report.pages if page.error] == []
    for page in report.pages:  # each page has the tools it registers
        index = 0 if page.url.endswith("/") else int(page.url.rsplit("/p", 1)[1])
        assert f"page{index}_info" in {tool.name for tool in page.tools}
    retried = report.options["retried"]
    assert retried
    assert all(f"on node {killed[0]} disconnected" in entry["reason"] for entry in retried)
    assert {entry["url"] for entry in retried} <= set(urls)
    assert "checked again on another browser" in render_summary(report)
