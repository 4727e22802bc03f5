"""`check` over several browser servers: each page once, the same findings as a local run, and
the pages of a server that dies mid-run checked on another one."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grid_servers import RunServer
from webmcp_harness import serve_folder
from webmcp_harness.cli.summary import render_summary
from webmcp_harness.conformance.reports import CheckReport
from webmcp_harness.conformance.runner import CheckOptions, Progress, check_urls
from webmcp_harness.session.browser import connect, launch

PAGES = 40  # the site: every page once over both servers, findings as in a local run
KILLED_PAGES = 10  # pages of the run with a server killed mid-run (the first ones the crawl finds;
# the issue asked for no number: it is killed after 3 are done, so the other server checks 7 or more)
NEXT = 5  # each page links to the next five


def _page(index: int) -> str:
    links = "".join(
        f'<a href="/p{n}">page {n}</a> ' for n in range(index + 1, min(index + 1 + NEXT, PAGES))
    )
    tools = [f"page{index}_info"] + ([f"page{index}_stock"] if index % 2 else [])
    scripts = "".join(
        "document.modelContext.registerTool({"
        f'name: "{name}", description: "Tells what page {index} holds, for an agent.", '
        'inputSchema: {type: "object", properties: {}}, annotations: {readOnlyHint: true}, '
        f'execute: async () => "page {index}"}});'
        for name in tools
    )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page {index}</title>'
        f"</head><body><h1>Page {index}</h1><p>{links}</p><script>{scripts}</script></body></html>"
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("site")
    (folder / "index.html").write_text(_page(0), encoding="utf-8")
    for index in range(1, PAGES):
        (folder / f"p{index}.html").write_text(_page(index), encoding="utf-8")
    server = serve_folder(folder)
    yield server.url.rstrip("/") + "/"
    server.stop()


OPTIONS = CheckOptions(crawl=PAGES, workers=2, timeout=20)
KILLED_OPTIONS = CheckOptions(crawl=PAGES, workers=2, timeout=20, max_pages=KILLED_PAGES)


def _findings(
    report: CheckReport, pages: set[str] | None = None
) -> list[tuple[str, str, str | None, str, str]]:
    """The findings (on pages, if given), in an order that does not depend on which page
    finished first."""
    return sorted(
        (f.page, f.check, f.tool, f.severity.value, f.message)
        for f in report.findings
        if pages is None or f.page in pages
    )


async def _local(url: str) -> CheckReport:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await launch(p)
        try:
            return await check_urls(browser, [url], OPTIONS)
        finally:
            await browser.close()


async def _grid(
    url: str,
    endpoints: list[str],
    *,
    on_progress: Any = None,
    prepare_context: Any = None,
) -> tuple[CheckReport, list[Any]]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        grid = [await connect(p, ws_endpoint=ws) for ws in endpoints]
        try:
            report = await check_urls(
                grid,
                [url],
                OPTIONS,
                on_progress=on_progress,
                prepare_context=prepare_context,
                names=endpoints,
            )
        finally:
            for browser in grid:
                if browser.is_connected():
                    await browser.close()
        return report, grid


@pytest.fixture(scope="module")
def local_report(site: str) -> CheckReport:
    return asyncio.run(_local(site))


def test_the_pages_are_spread_over_both_servers_and_each_is_checked_once(
    site: str, unsafe_server: str, node: str, local_report: CheckReport
) -> None:
    used: dict[int, int] = {}

    async def count(context: Any) -> None:
        used[id(context.browser)] = used.get(id(context.browser), 0) + 1

    report, grid = asyncio.run(_grid(site, [unsafe_server, node], prepare_context=count))
    urls = [page.url for page in report.pages]
    assert len(urls) == PAGES
    assert len(set(urls)) == PAGES
    assert sorted(urls) == sorted(page.url for page in local_report.pages)
    assert all(page.error is None for page in report.pages)
    assert all(used.get(id(browser), 0) > 0 for browser in grid), used
    assert _findings(report) == _findings(local_report)
    assert report.options["browsers"] == 2
    assert "retried" not in report.options


def test_the_pages_of_a_server_that_dies_are_checked_on_the_other(
    site: str, browsers: Path, node: str, local_report: CheckReport
) -> None:
    victim = RunServer(unsafe=True, browsers=browsers)
    done: list[str] = []
    killed: list[bool] = []

    def progress(event: Progress) -> None:
        if event.event == "done":
            done.append(event.url)

    def kill() -> None:
        # A page is loading in the victim's browser, and a few are done: kill it now.
        if not killed and len(done) >= 3:
            killed.append(True)
            os.killpg(victim.process.pid, signal.SIGKILL)

    async def kill_when_busy(context: Any) -> None:
        if context.browser is grid_browsers[0]:  # (a context serves page after page)
            context.on("request", lambda _request: kill())

    grid_browsers: list[Any] = []

    async def run() -> CheckReport:
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            grid_browsers.extend([await connect(p, ws_endpoint=victim.ws)])
            grid_browsers.append(await connect(p, ws_endpoint=node))
            try:
                return await check_urls(
                    grid_browsers,
                    [site],
                    KILLED_OPTIONS,
                    on_progress=progress,
                    prepare_context=kill_when_busy,
                    names=[victim.ws, node],
                )
            finally:
                if grid_browsers[1].is_connected():
                    await grid_browsers[1].close()

    try:
        report = asyncio.run(run())
    finally:
        victim.process.wait(10)
    assert killed
    urls = [page.url for page in report.pages]
    assert len(set(urls)) == len(urls) == KILLED_PAGES
    assert set(urls) <= {page.url for page in local_report.pages}
    assert [(page.url, page.error) for page in report.pages if page.error] == []
    assert _findings(report) == _findings(local_report, set(urls))
    retried = report.options["retried"]
    assert retried
    assert all(victim.ws in entry["reason"] for entry in retried)
    assert {entry["url"] for entry in retried} <= set(urls)
    assert "checked again on another browser" in render_summary(report)


HARNESS = str(Path(sys.executable).with_name("webmcp-harness"))


def test_the_cli_spreads_a_check_over_the_servers_of_a_connect_file(
    site: str, unsafe_server: str, node: str, tmp_path: Path
) -> None:
    listed = tmp_path / "grid.txt"
    listed.write_text(f"# the grid\n{unsafe_server}\n\n{node}  # the node\n", encoding="utf-8")
    done = subprocess.run(
        [
            HARNESS,
            "check",
            site,
            "--crawl",
            "2",
            "--max-pages",
            "6",
            "--json",
            "--connect-file",
            listed,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert len({page["url"] for page in report["pages"]}) == 6
    assert report["options"]["browsers"] == 2


def test_an_endpoint_that_is_not_a_websocket_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [HARNESS, "check", "http://127.0.0.1:9/", "--connect", "ws://a:1/", "--connect", "grid:2"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "is not a ws:// or wss:// endpoint" in " ".join(done.stderr.split())


def test_a_page_whose_browser_disconnects_twice_is_not_checked_a_third_time(
    site: str, browsers: Path
) -> None:
    servers = [RunServer(unsafe=True, browsers=browsers) for _ in range(2)]
    by_browser: dict[int, RunServer] = {}
    killed: set[int] = set()

    def kill(server: RunServer, url: str) -> None:
        if url.endswith("/p3") and server.process.pid not in killed:
            killed.add(server.process.pid)
            os.killpg(server.process.pid, signal.SIGKILL)

    async def kill_on_p3(context: Any) -> None:  # (each server in turn, as p3 loads there)
        server = by_browser[id(context.browser)]
        context.on("request", lambda request: kill(server, request.url))

    async def run() -> CheckReport:
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            grid = [await connect(p, ws_endpoint=server.ws) for server in servers]
            by_browser.update({id(b): s for b, s in zip(grid, servers, strict=True)})
            options = CheckOptions(crawl=1, workers=1, timeout=20, max_pages=4)
            return await check_urls(
                grid, [site], options, prepare_context=kill_on_p3, names=[s.ws for s in servers]
            )

    try:
        report = asyncio.run(run())
    finally:
        for server in servers:
            server.process.wait(10)
    errors = {page.url.rsplit("/", 1)[1]: page.error or "" for page in report.pages}
    assert "disconnected twice" in errors["p3"]
    assert all(server.ws in errors["p3"] for server in servers)
    assert [entry["url"].rsplit("/", 1)[1] for entry in report.options["retried"]] == ["p3"]
