"""Shared fixtures: test pages served on 127.0.0.1 (WebMCP needs a secure context)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from playwright.async_api import Browser as AsyncBrowser
    from playwright.sync_api import Browser, Page

    from async_chromium import AsyncChromium, SyncKeptPage
PAGES = Path(__file__).parent / "pages"


def _bytecode_outside_the_tree() -> None:
    """Let the Python processes the suite starts keep their bytecode, outside the tree.

    With PYTHONDONTWRITEBYTECODE set, each of them (pytester's runs, the CLI's, the docs'
    commands, the xdist workers: some 150 a suite) compiled the package again, and each pytest
    run rewrote the asserts of every module of its plugins again: 0.8 s of CPU more per inner
    pytest run. Their bytecode goes under PYTHONPYCACHEPREFIX instead (a folder of the temporary
    directory, kept between runs), so nothing is written beside the sources still.
    """
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    cache = Path(tempfile.gettempdir()) / f"webmcp-harness-tests-pycache-{os.getuid()}"
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(cache))


_bytecode_outside_the_tree()  # at import: before xdist starts its workers


ONE_PLAYWRIGHT_PLUGIN = "-p no:playwright-asyncio"
"""pytest-playwright and pytest-playwright-asyncio refuse to load together; both are installed
(the second for tests/plugin/test_asyncio_plugin.py). The pytest runs the suite starts leave the
second out (this suite's own run: pyproject.toml's addopts); a test that wants it says so in
PYTEST_ADDOPTS (``-p no:playwright``)."""


def _one_playwright_plugin() -> None:
    """For the pytest commands the suite starts (the docs' commands, subprocess runs)."""
    given = os.environ.get("PYTEST_ADDOPTS", "")
    if "playwright-asyncio" not in given:
        os.environ["PYTEST_ADDOPTS"] = f"{given} {ONE_PLAYWRIGHT_PLUGIN}".strip()


_one_playwright_plugin()


@pytest.fixture(autouse=True)
def _one_playwright_plugin_under_pytester(request: pytest.FixtureRequest) -> None:
    """pytester clears PYTEST_ADDOPTS for its runs: give them the one plugin again."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")
        monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
        monkeypatch.setenv("PYTEST_ADDOPTS", ONE_PLAYWRIGHT_PLUGIN)


# The property tests draw the same examples on every run, so a red run is one anyone can repeat;
# HYPOTHESIS_PROFILE=explore draws new ones (and keeps what fails in .hypothesis/ to replay).
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
pytest_plugins = [
    "grid_servers",  # browser servers (run-server, the node) for the grid tests
    "selenium_grid",  # Selenium Grids (a standalone; a hub with two nodes) for the grid tests
    "pytester",  # overridden below
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html; charset=utf-8",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass


# The test files that take longest, longest first. The suite runs with `--dist loadfile
# --no-loadscope-reorder` (the Makefile), so each file's module fixtures (browsers, grid servers,
# whole check runs) are set up once, and starting these first lets both workers end together.
# The order is the files' total time in a full run (`--junitxml`, summed per file): keep it so
# when a file grows, or a long file that starts late keeps one worker busy after the other ends.
LONGEST_FIRST = (
    "test_hostile_answers.py",
    "test_hostile_waits.py",
    "test_cli.py",
    "test_plugin.py",
    "test_differential.py",
    "test_hostile.py",
    "test_mcp_server.py",
    "test_docs.py",
    "test_check.py",
    "test_polyfill.py",
    "test_grid.py",
    "test_session.py",
    "test_selenium_check.py",
    "test_grid_check.py",
    "test_selenium_cli.py",
    "test_selenium_plugin.py",
    "test_inpage.py",
    "test_gateway.py",
    "test_sources.py",
    "test_demo_site.py",
    "test_doors.py",
    "test_snapshots.py",
    "test_coverage.py",
    "test_run.py",
    "test_demo_scenarios.py",
    "test_schema_formats.py",
    "test_targets.py",
    "test_selenium.py",
    "test_grid_plugin.py",
    "test_readme_example.py",
    "test_declarative.py",
    "test_coding.py",
    "test_faults.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the longest files first (a stable sort: the order within a file is kept)."""
    rank = {name: n for n, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


# The pytest runs that pytester starts leave out Hypothesis's plugin: no inner suite uses it, and
# its import is half the start of a bare pytest process (about 0.5 s of CPU, some 40 runs a suite).
INNER_PYTEST_OPTIONS = "-p no:hypothesispytest"


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester, its runs (in this process or a child, xdist workers included) without the
    plugins no inner suite needs."""
    monkeypatch.setenv("PYTEST_ADDOPTS", INNER_PYTEST_OPTIONS)  # pytester itself clears it
    return pytester


@pytest.fixture(scope="session")
def pages_url() -> Iterator[str]:
    """Base URL of tests/pages, served on a free port."""
    handler = functools.partial(_QuietHandler, directory=str(PAGES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser_server(node: str) -> str:
    """The WebSocket endpoint of one Chromium per worker, behind a Playwright browser server.

    A CLI run that only lists, calls, checks or runs a script passes `--connect` to it instead of
    launching a Chromium of its own: each run then costs a Python process and a browser context,
    not a browser start. It is the grid tests' `node` (the harness's `browser-server`, WebMCP on),
    so a worker that runs both starts one Chromium for them. Tests of how the CLI finds and
    launches a browser do not use it; nor do pytester runs, which measured no faster on it.
    """
    return node


@pytest.fixture(scope="session")
def flagless_chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The http://HOST:PORT CDP endpoint of one Chromium per worker WITHOUT the WebMCP features.

    As a user points the CLI (`--cdp`) or Playwright (`connect_over_cdp`) at their own browser.
    For the tests of pages in a browser without WebMCP (polyfills, the no-WebMCP answers) that are
    not about how a browser is launched: they share it (each in a context of its own) instead of
    each starting a Chromium. The browser the CLI launches itself always has the flag.
    """
    from cdp_chromium import chromium_over_cdp

    with chromium_over_cdp(tmp_path_factory.mktemp("flagless-profile"), webmcp=False) as url:
        yield url


@pytest.fixture(scope="module")
def file_page(browser: Browser) -> Iterator[SyncKeptPage]:
    """One page for a whole test file, in a context of its own (see `reused_page`)."""
    from async_chromium import SyncKeptPage

    kept = SyncKeptPage(browser)
    try:
        yield kept
    finally:
        kept.close()


@pytest.fixture
def reused_page(file_page: SyncKeptPage) -> Iterator[Page]:
    """The file's page for one test, left as a new context's after it (`KeptPage.clean`: blank,
    the test's routes removed, the storage and cookies of the origins it visited cleared; a new
    page if the test closed or crashed it). A file whose tests each open their own document, and
    change nothing else of the context's (init scripts, permissions, listeners, other pages),
    overrides `page` with it. Chromium then starts the page's renderer once per file, not once
    per test: a new context and page, then the demo's catalog, cost 1.6 times the CPU of the same
    navigation in a page kept (bench/page_cost.py)."""
    yield file_page.page
    file_page.clean()


@pytest.fixture(scope="session")
def async_chromium() -> Iterator[AsyncChromium]:
    """One Chromium with WebMCP per worker for tests of the async API (`WebMCPSession`): each
    test opens a context of its own in it, instead of starting Playwright and a Chromium."""
    from async_chromium import AsyncChromium

    chromium = AsyncChromium()
    try:
        chromium.start()
        yield chromium
    finally:
        chromium.stop()


@pytest.fixture(scope="session")
def async_flagless(async_chromium: AsyncChromium, flagless_chromium: str) -> Iterator[AsyncBrowser]:
    """The worker's Chromium WITHOUT the WebMCP features (`flagless_chromium`), connected over CDP
    on `async_chromium`'s loop: for the async tests of pages in a browser without WebMCP (the
    polyfills), beside its Chromium with WebMCP, with no Playwright or Chromium of their own."""
    connected = async_chromium.run(
        async_chromium.playwright.chromium.connect_over_cdp(flagless_chromium)
    )
    try:
        yield connected
    finally:
        async_chromium.run(connected.close(), 30)


_SYNC_PLAYWRIGHT = {"page", "context", "browser", "webmcp", "playwright", "new_context"}


def _own_loop(item: pytest.Item) -> bool:
    """Whether item runs its own event loop (an async test, or one using no sync Playwright)."""
    names = set(getattr(item, "fixturenames", ()))
    return item.get_closest_marker("asyncio") is not None or not names & _SYNC_PLAYWRIGHT


@contextlib.contextmanager
def _sync_loop_hidden(hide: bool) -> Iterator[None]:
    if not hide:
        yield
        return
    hidden = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(hidden)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Let tests that run their own event loop share a worker with sync Playwright.

    Sync Playwright keeps its event loop marked as running in this thread while test code runs
    (it switches greenlets, it does not return). A test that uses none of its fixtures (an async
    test, or one that calls asyncio.run) never calls the sync API, so hide that loop meanwhile.
    """
    with _sync_loop_hidden(_own_loop(item)):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _sync_loop_hidden(_own_loop(item)):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Hidden for async tests only: a plain test's teardown may close module- or session-scoped
    sync Playwright fixtures (the last test of a module), which need their loop."""
    with _sync_loop_hidden(item.get_closest_marker("asyncio") is not None):
        yield
