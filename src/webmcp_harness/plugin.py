"""The pytest plugin: WebMCP tests on top of pytest-playwright's browser, context and page.

Installing the package is all it takes (entry point ``pytest11``, name ``webmcp``)::

    from webmcp_harness import expect

    def test_product(page, webmcp, webmcp_demo_url):
        page.goto(webmcp_demo_url)
        expect(webmcp).to_have_tool("get_product")
        expect(webmcp.call("get_product", {"product_id": "beacon-lantern"})).to_succeed()

The plugin adds WebMCP's switches (and the Chromium `find_browser` picks) to whatever
``browser_type_launch_args`` gives, a user's override included; it replaces no fixture.

Besides the fixture: tool contract snapshots (``expect(webmcp).to_match_tool_snapshot()``,
``--webmcp-update-snapshots``), WebMCP coverage (``--webmcp-coverage``, ``-json``,
``-fail-under``, merged over xdist workers), each call as a group of pytest-playwright's trace
(``--tracing on``), and an ini key for each setting (the command line beats it). Timeouts are
seconds; a value that reads as milliseconds is refused.

Async tests: under pytest-playwright-asyncio (run with ``-p no:playwright``: the two plugins
refuse to load together) ``webmcp`` is the async session of its async ``page``, registered in
``pytest_configure`` when that plugin is there. Both faces share each step (``_before``,
``_attach``, ``_after``, ``_finish``) and the core (``_Watched``: coverage, seconds, traces);
``expect(session)`` gives awaitable assertions for it::

    @pytest.mark.asyncio(loop_scope="session")
    async def test_product(page, webmcp, webmcp_demo_url):
        await page.goto(webmcp_demo_url)
        await expect(webmcp).to_have_tool("get_product")
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from collections.abc import Generator, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import pytest

from . import session as _core
from .core.contracts import plain
from .core.errors import BrowserNotFoundError, Error, UsageError, WebMCPUnavailableError
from .core.records import BACKEND_CHOICES, BackendChoice, CallRecord, CallResult, Tool
from .core.timeouts import DEFAULT_TIMEOUT, SETTING_MOST, seconds_problem
from .session.adapters import as_async, impl_of, is_sync, run_sync
from .session.browser import (
    BROWSER_ENV,
    NO_WEBMCP_REMOTE,
    PLAYWRIGHT_DISABLED,
    PLAYWRIGHT_ENABLED,
    UI_FEATURES_OFF,
    WEBMCP_FEATURES,
    find_browser,
    launch_args,
    merge_features,
)
from .session.selenium import (
    CAPABILITIES_ENV,
    GRID_ENV,
    SeleniumGrid,
    SessionWatch,
    capabilities,
    no_webmcp_message,
    open_sync,
    parse_capabilities,
)
from .session.sync import WebMCPSession
from .testing.coverage import Coverage
from .testing.snapshots import UPDATE_OPTION, SnapshotPlace, bind

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from .session.adapters import Location, Tracing

__all__ = ["webmcp", "webmcp_demo_url"]

LAST_CALLS = 5
CALLS_FILE = "webmcp-calls.json"
ASYNCIO_PLUGIN = "playwright-asyncio"
"""pytest-playwright-asyncio's plugin name: with it, ``webmcp`` is the async session."""
ASYNC_PAGE = (
    "The webmcp fixture drives pytest-playwright's sync page; for an async page, run under "
    "pytest-playwright-asyncio (-p no:playwright), where webmcp is the async session."
)


class _Settings(NamedTuple):
    timeout: float
    confirm: bool
    backend: BackendChoice


class _Kept(NamedTuple):
    """What a test leaves for its report: its session and the folder for its artifacts."""

    session: WebMCPSession | _core.WebMCPSession
    folder: str


_KEPT = pytest.StashKey[_Kept]()
_PROBED = pytest.StashKey[dict[Any, str | None]]()
_PROBE_URL = "http://127.0.0.1/__webmcp_harness_probe__"  # a route answers; no server
_MADE_FOR = pytest.StashKey[list[tuple[pytest.FixtureDef[Any], Any, str]]]()
_RUN = pytest.StashKey["_RunSettings"]()
_COVERAGE = pytest.StashKey[Coverage]()
_VERDICT = pytest.StashKey[list[str]]()
_CONNECTED = pytest.StashKey[bool]()
_SELENIUM = pytest.StashKey["_Selenium"]()
_WORKER_KEY = "webmcp_coverage"
TRACE_QUOTE = 2000


# -- options -------------------------------------------------------------------------------
# Each setting: a command-line option, and an ini key (pyproject.toml's [tool.pytest.ini_options]
# or pytest.ini) that gives its default. The command line beats the ini file.
INI = {
    "timeout": "webmcp_timeout",
    "confirm": "webmcp_confirm",
    "backend": "webmcp_backend",
    "coverage": "webmcp_coverage",
    "coverage_json": "webmcp_coverage_json",
    "coverage_fail_under": "webmcp_coverage_fail_under",
    "connect": "webmcp_connect",
    "selenium_grid": "webmcp_selenium_grid",
    "selenium_capabilities": "webmcp_selenium_capabilities",
}


def _timeout(raw: str, where: str = "--webmcp-timeout") -> float:
    try:
        value = float(raw)
    except ValueError:
        raise pytest.UsageError(
            f"{where} must be a number of seconds, like 5 or 0.5; got {raw!r}"
        ) from None
    if not (value > 0 and math.isfinite(value)):
        raise pytest.UsageError(f"{where} must be more than 0 seconds; got {raw!r}")
    problem = seconds_problem(value, most=SETTING_MOST)
    if problem:
        raise pytest.UsageError(f"{where}: {problem}")
    return value


def _browser_path(raw: str) -> str:
    try:
        return find_browser(raw)
    except BrowserNotFoundError:
        raise pytest.UsageError(
            f"--webmcp-browser-path: no executable at {raw!r}; "
            "give the path (or a name on PATH) of Chromium 146 or newer"
        ) from None


def _backend(raw: str, where: str = "--webmcp-backend") -> BackendChoice:
    for choice in BACKEND_CHOICES:
        if raw == choice:
            return choice
    raise pytest.UsageError(f"{where} must be one of {', '.join(BACKEND_CHOICES)}; got {raw!r}")


def _sources(choice: BackendChoice) -> BackendChoice:
    """The session's sources for the fixture's backend setting.

    The fixture's "auto" is the browser's own WebMCP ("cdp"), skipping the test when the browser
    has none; the session's "auto" opens every source (also the page's script objects). The
    fixture keeps to the browser's for three reasons. (1) A run on a browser without WebMCP (a
    Firefox run, a Chromium without the flag) skips, as it always has; "inpage" is the explicit
    choice for polyfilled pages. (2) Snapshots and coverage stay as suites recorded them: a page
    whose polyfill keeps its tools on `navigator.modelContext` beside the native registry
    (`@mcp-b/global` 1.x) would show more tools. (3) Each test attaches faster: opening the
    in-page source too took 0.71 s against 0.58 s (median of 8, attach, list and one call).
    """
    return "cdp" if choice == "auto" else choice


def _percent(raw: str, where: str = "--webmcp-coverage-fail-under") -> float:
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 100:
        raise pytest.UsageError(f"{where} must be a percentage from 0 to 100; got {raw!r}")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("webmcp", "WebMCP (webmcp-harness)")
    group.addoption(
        "--webmcp-timeout",
        type=_timeout,
        default=None,
        metavar="SECONDS",
        help=f"default timeout of a tool call, in seconds (default {DEFAULT_TIMEOUT:g}; "
        "ini webmcp_timeout)",
    )
    group.addoption(
        "--webmcp-browser-path",
        type=_browser_path,
        default=None,
        metavar="PATH",
        help=f"Chromium to launch (default: ${BROWSER_ENV}, Playwright's Chromium, then PATH)",
    )
    group.addoption(
        "--webmcp-confirm",
        action="store_true",
        default=None,
        help="act as the person: submit confirm-gated forms instead of getting needs_user "
        "(ini webmcp_confirm)",
    )
    group.addoption(
        "--webmcp-backend",
        type=_backend,
        default=None,
        metavar="NAME",
        help="auto (default): the browser's WebMCP, skipping tests when it has none; "
        "cdp: the same, failing instead; inpage: a WebMCP polyfill in the page "
        "(ini webmcp_backend)",
    )
    group.addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        help="write tool contract snapshots that are missing or differ "
        "(expect(webmcp).to_match_tool_snapshot())",
    )
    group.addoption(
        "--webmcp-coverage",
        action="store_true",
        default=None,
        help="at the end, print every tool the tests' pages had: calls, codes reached, "
        "never-called tools (ini webmcp_coverage)",
    )
    group.addoption(
        "--webmcp-coverage-json",
        default=None,
        metavar="PATH",
        help="write the same coverage as JSON to PATH (ini webmcp_coverage_json)",
    )
    group.addoption(
        "--webmcp-coverage-fail-under",
        type=_percent,
        default=None,
        metavar="PCT",
        help="fail the run when tests called less than PCT percent of the tools seen "
        "(ini webmcp_coverage_fail_under)",
    )
    group.addoption(
        "--webmcp-connect",
        default=None,
        metavar="WS_ENDPOINT",
        help="use the browser of a Playwright browser server (run-server --unsafe, or "
        "webmcp-harness browser-server), sent WebMCP's launch options; each xdist worker "
        "connects on its own (ini webmcp_connect)",
    )
    group.addoption(
        "--webmcp-selenium-grid",
        default=None,
        metavar="URL",
        help="use Chromium from a Selenium Grid 4 (its hub, router or standalone URL), a "
        "session per xdist worker, asked for WebMCP's switches (ini webmcp_selenium_grid; "
        "default $SELENIUM_REMOTE_URL)",
    )
    group.addoption(
        "--webmcp-selenium-capabilities",
        default=None,
        metavar="JSON",
        help="more capabilities to ask the grid for, merged with the plugin's (ini "
        "webmcp_selenium_capabilities; default $SELENIUM_REMOTE_CAPABILITIES)",
    )
    parser.addini(INI["connect"], "a Playwright browser server to use (ws://…)", default="")
    parser.addini(INI["selenium_grid"], "a Selenium Grid 4 to use (http://…)", default="")
    parser.addini(INI["selenium_capabilities"], "more capabilities for the grid", default="")
    parser.addini(INI["timeout"], "default timeout of a tool call, in seconds", default="")
    parser.addini(INI["confirm"], "act as the person for forms (true/false)", type="bool")
    parser.addini(INI["backend"], "auto, cdp or inpage", default="")
    parser.addini(INI["coverage"], "print WebMCP coverage (true/false)", type="bool")
    parser.addini(INI["coverage_json"], "write WebMCP coverage JSON to this path", default="")
    parser.addini(INI["coverage_fail_under"], "fail below this percent of tools called", default="")


class _RunSettings(NamedTuple):
    """The run's settings: command line, else ini file, else default."""

    timeout: float
    confirm: bool
    backend: BackendChoice
    coverage: bool
    coverage_json: str | None
    fail_under: float | None


def _run_settings(config: pytest.Config) -> _RunSettings:
    def given(name: str) -> Any:
        value = config.getoption(f"--webmcp-{name.replace('_', '-')}")
        return value if value is not None else config.getini(INI[name])

    def ini(name: str) -> str:
        return f"{INI[name]} (ini)"

    timeout = config.getoption("--webmcp-timeout")
    if timeout is None:
        raw = str(config.getini(INI["timeout"]) or "").strip()
        timeout = _timeout(raw, ini("timeout")) if raw else DEFAULT_TIMEOUT
    backend = config.getoption("--webmcp-backend")
    if backend is None:
        backend = _backend(str(config.getini(INI["backend"]) or "auto").strip(), ini("backend"))
    fail_under = config.getoption("--webmcp-coverage-fail-under")
    if fail_under is None:
        raw = str(config.getini(INI["coverage_fail_under"]) or "").strip()
        fail_under = _percent(raw, ini("coverage_fail_under")) if raw else None
    return _RunSettings(
        timeout=timeout,
        confirm=bool(given("confirm")),
        backend=backend,
        coverage=bool(given("coverage")),
        coverage_json=str(given("coverage_json") or "").strip() or None,
        fail_under=fail_under,
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "webmcp(timeout=None, confirm=None, backend=None): settings of the webmcp fixture "
        "for this test",
    )
    settings = _run_settings(config)
    config.stash[_RUN] = settings
    selenium = _selenium(config)
    if selenium is not None:
        config.stash[_SELENIUM] = selenium
    if settings.coverage or settings.coverage_json or settings.fail_under is not None:
        config.stash[_COVERAGE] = Coverage()
    if config.pluginmanager.has_plugin(ASYNCIO_PLUGIN):
        config.pluginmanager.register(_async_fixtures(), "webmcp-asyncio")


# -- launching -----------------------------------------------------------------------------
@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, Any, Any]:
    """Add WebMCP's switches to what `browser_type_launch_args` gave (each override's, in turn).

    The dict is changed in place, since pytest caches that object.
    """
    value = yield
    if fixturedef.argname == "connect_options":
        return _connect_options(fixturedef, request.config, value)
    selenium = request.config.stash.get(_SELENIUM, None)
    if fixturedef.argname == "launch_browser" and selenium is not None:
        return selenium.launcher(fixturedef, request)
    if fixturedef.argname == "browser_type_launch_args" and isinstance(value, dict):
        name = request.getfixturevalue("browser_name")
        request.config.stash.setdefault(_MADE_FOR, []).append((fixturedef, request, name))
        if name == "chromium":
            remote = (
                _connect_endpoint(request.config) is not None
                or selenium is not None
                or bool(request.getfixturevalue("connect_options"))
            )
            _add_webmcp(value, request.config.getoption("--webmcp-browser-path"), remote=remote)
    return value


def _connect_endpoint(config: pytest.Config) -> str | None:
    """The browser server of --webmcp-connect (else the ini key webmcp_connect), if any."""
    given = config.getoption("--webmcp-connect") or str(config.getini(INI["connect"]) or "")
    given = given.strip()
    if given and not given.startswith(("ws://", "wss://")):
        raise pytest.UsageError(
            f"--webmcp-connect must be a ws:// or wss:// endpoint, the one the browser server "
            f"printed; got {given!r}"
        )
    return given or None


def _connect_options(fixturedef: pytest.FixtureDef[Any], config: pytest.Config, value: Any) -> Any:
    """pytest-playwright's connect_options, made from --webmcp-connect when it gave none.

    pytest-playwright then connects instead of launching, sending the launch args (WebMCP's
    switches included) in the x-playwright-launch-options header.
    """
    endpoint = _connect_endpoint(config)
    if endpoint and not value and fixturedef.cached_result is not None:
        value = {"endpoint": endpoint, "timeout": 30_000}
        fixturedef.cached_result = (value, fixturedef.cached_result[1], None)  # what pytest gives
    config.stash[_CONNECTED] = bool(value)
    return value


class _Selenium:
    """--webmcp-selenium-grid: pytest-playwright's browser is a session of a Selenium Grid 4."""

    def __init__(self, url: str, given: dict[str, Any] | None) -> None:
        self.url = url
        self.given = given
        self.watches: dict[Any, SessionWatch] = {}  # each browser's, its session's watch

    def launcher(self, fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest) -> Any:
        """pytest-playwright's launch_browser, asking the grid for a session instead (WebMCP's
        switches, and the launch args' own, in its capabilities)."""
        browser_type = request.getfixturevalue("browser_type")
        launch_args = request.getfixturevalue("browser_type_launch_args")
        browser_path = request.config.getoption("--webmcp-browser-path")

        def launch(**kwargs: Any) -> Any:
            options = {**launch_args, **kwargs}
            caps = capabilities(
                self.given,
                args=[str(a) for a in options.get("args") or []],
                headless=options.get("headless", True) is not False,
                browser_path=browser_path,
            )
            try:
                browser, watch = open_sync(browser_type, SeleniumGrid.at(self.url, caps))
            except Error as exc:
                pytest.fail(exc.message, pytrace=False)
            self.watches[browser] = watch
            return browser

        if fixturedef.cached_result is not None:
            fixturedef.cached_result = (launch, fixturedef.cached_result[1], None)
        return launch

    def fail_if_gone(self) -> None:
        """Before a test that uses the browser: fail it when the grid lost the session (the
        browser is closed then; it cannot come back)."""
        for browser, watch in list(self.watches.items()):
            if watch.gone is None:
                continue
            del self.watches[browser]
            with contextlib.suppress(Exception):
                browser.close()
            pytest.fail(
                f"{watch.session.name} is gone: {watch.gone}. The tests after it in this "
                "process cannot use its browser; run them again.",
                pytrace=False,
            )


def _selenium(config: pytest.Config) -> _Selenium | None:
    """The grid of --webmcp-selenium-grid (else the ini key, else $SELENIUM_REMOTE_URL), checked
    before any test runs: a usage error, saying what to do, when it cannot work."""
    url = str(
        config.getoption("--webmcp-selenium-grid")
        or config.getini(INI["selenium_grid"])
        or os.environ.get(GRID_ENV, "")
    ).strip()
    raw = str(
        config.getoption("--webmcp-selenium-capabilities")
        or config.getini(INI["selenium_capabilities"])
        or os.environ.get(CAPABILITIES_ENV, "")
    ).strip()
    if not url:
        return None
    if _connect_endpoint(config) is not None:
        raise pytest.UsageError("Give --webmcp-selenium-grid or --webmcp-connect, not both.")
    try:
        given = parse_capabilities(raw) if raw else None
    except UsageError as exc:
        raise pytest.UsageError(f"--webmcp-selenium-capabilities: {exc.message}") from None
    try:
        grid = SeleniumGrid.at(url, capabilities(given))
        if not (hasattr(config, "workerinput") or config.option.help or config.option.collectonly):
            grid.status()  # once, in the controller
    except UsageError as exc:
        raise pytest.UsageError(f"--webmcp-selenium-grid: {exc.message}") from None
    return _Selenium(url, given)


def _add_webmcp(options: dict[str, Any], browser_path: str | None, *, remote: bool = False) -> None:
    given = [str(a) for a in options.get("args") or []]
    args = merge_features(
        given,
        enable=[*PLAYWRIGHT_ENABLED, *WEBMCP_FEATURES.split(",")],
        disable=[*PLAYWRIGHT_DISABLED, *UI_FEATURES_OFF],
    )
    args += [a for a in launch_args(webmcp=False) if "-features=" not in a and a not in args]
    options["args"] = args
    if remote:  # a path on this machine means nothing to a browser server
        return
    if options.get("executable_path") or (options.get("channel") and not browser_path):
        return
    try:
        options["executable_path"] = browser_path or find_browser()
    except BrowserNotFoundError:
        if os.environ.get(BROWSER_ENV):
            raise  # a wrong $WEBMCP_BROWSER_PATH is an error; nothing found, Playwright's turn


# -- fixtures ------------------------------------------------------------------------------
def _settings(request: pytest.FixtureRequest) -> _Settings:
    run = request.config.stash[_RUN]
    settings = _Settings(run.timeout, run.confirm, run.backend)
    marker = request.node.get_closest_marker("webmcp")
    if marker is None:
        return settings
    problem = _marker_problem(marker)
    if problem:
        pytest.fail(f"@pytest.mark.webmcp: {problem}", pytrace=False)
    known = {k: v for k, v in marker.kwargs.items() if v is not None}
    return settings._replace(**known)


def _marker_problem(marker: pytest.Mark) -> str | None:
    kwargs = marker.kwargs
    if marker.args:
        return "give settings by name, like webmcp(timeout=5)"
    unknown = sorted(set(kwargs) - set(_Settings._fields))
    if unknown:
        return f"unknown settings {', '.join(unknown)}; known: timeout, confirm, backend"
    timeout = kwargs.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not (timeout > 0 and math.isfinite(timeout))
    ):
        return f"timeout must be a number of seconds more than 0; got {timeout!r}"
    too_long = None if timeout is None else seconds_problem(timeout, most=SETTING_MOST)
    if too_long:
        return too_long
    if kwargs.get("confirm") not in (None, True, False):
        return f"confirm must be True or False; got {kwargs['confirm']!r}"
    if kwargs.get("backend") not in (None, *BACKEND_CHOICES):
        return f"backend must be one of {', '.join(BACKEND_CHOICES)}; got {kwargs['backend']!r}"
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip WebMCP tests on other browsers before launching them; launch args per browser.

    pytest-playwright makes `browser_type_launch_args` once for all the browsers of a
    `--browser a --browser b` run; the Chromium switches must not reach another browser.
    """
    callspec = getattr(item, "callspec", None)
    name = callspec.params.get("browser_name") if callspec is not None else None
    if name is None:
        return
    selenium = item.config.stash.get(_SELENIUM, None)
    if selenium is not None and "browser" in getattr(item, "fixturenames", ()):
        selenium.fail_if_gone()
    made = item.config.stash.get(_MADE_FOR, [])
    for fixturedef, request, made_for in [m for m in made if m[2] != name]:
        fixturedef.finish(request)
        made.remove((fixturedef, request, made_for))
    if name != "chromium" and "webmcp" in getattr(item, "fixturenames", ()):
        pytest.skip(f"WebMCP needs Chromium; this run uses {name}.")


@pytest.fixture
def webmcp(
    request: pytest.FixtureRequest, browser_name: str, page: Page, output_path: str
) -> Iterator[WebMCPSession]:
    """The sync `WebMCPSession` of `page`, attached before the test navigates, closed after it.

    Settings: ``--webmcp-timeout``, ``--webmcp-confirm``, ``--webmcp-backend`` (or their ini
    keys ``webmcp_timeout``, ...), and per test ``@pytest.mark.webmcp(timeout=..., confirm=...,
    backend=...)``. Skips the test when the browser is not Chromium or has no WebMCP (backend
    ``auto``). Its tools and calls feed ``--webmcp-coverage``; its snapshots live beside the test.
    Under pytest-playwright-asyncio the same fixture is the async session (``_async_fixtures``).
    """
    if not is_sync(page):
        pytest.fail(ASYNC_PAGE, pytrace=False)
    settings = _before(request, browser_name)
    core, reason = run_sync(page, _attach(request.config, page, settings))
    watched = _after(request, settings, core, reason, output_path)
    session = _FixtureSession(watched, page)
    request.node.stash[_KEPT] = _Kept(session, output_path)
    yield session
    session.close()
    _finish(request.config, watched, session.records)


def _before(request: pytest.FixtureRequest, browser_name: str) -> _Settings:
    """What each face checks first: the browser, then the test's settings."""
    if browser_name != "chromium":
        pytest.skip(f"WebMCP needs Chromium; this run uses {browser_name}.")
    return _settings(request)


async def _attach(
    config: pytest.Config, page: Any, settings: _Settings
) -> tuple[_Watched | None, str | None]:
    """The fixture's core on page (sync or async), or why the browser can't give one."""
    backend = _sources(settings.backend)
    reason = await _missing_webmcp(config, as_async(page)) if backend == "cdp" else None
    if reason is not None:
        return None, reason
    try:  # attach bounds its own setup by timeout: a short call timeout must not fail it
        core = await _Watched.attach(
            page,
            timeout=max(settings.timeout, DEFAULT_TIMEOUT),
            confirm=settings.confirm,
            backend=backend,
        )
        assert isinstance(core, _Watched)
    except WebMCPUnavailableError as exc:
        return None, exc.message
    core.timeout = settings.timeout
    return core, None


def _after(
    request: pytest.FixtureRequest,
    settings: _Settings,
    core: _Watched | None,
    reason: str | None,
    output_path: str,
) -> _Watched:
    """Skip or fail without a core; else bind its tracing and snapshots to the test."""
    if core is None:
        reason = f"{reason} (For a page with a WebMCP polyfill: --webmcp-backend=inpage.)"
        if settings.backend == "auto":
            pytest.skip(reason)
        pytest.fail(reason, pytrace=False)
    config = request.config
    if config.getoption("--tracing", "off") in ("on", "retain-on-failure"):
        core.tracing = as_async(core.page.context.tracing)
    bind(
        core,
        SnapshotPlace.beside(
            Path(request.node.path),
            _title(request.node),
            update=config.getoption(UPDATE_OPTION),
            output=Path(output_path),
            shown_from=config.invocation_params.dir,
        ),
    )
    return core


def _finish(config: pytest.Config, core: _Watched, records: list[CallRecord]) -> None:
    """After the test: its tools and calls go to the run's coverage."""
    coverage = config.stash.get(_COVERAGE, None)
    if coverage is not None:
        coverage.see(core.appeared)
        coverage.add_calls(records)


def _async_fixtures() -> object:
    """The fixtures under pytest-playwright-asyncio, registered when that plugin is: the same
    setup, settings, artifacts, snapshots and coverage, with the async core as ``webmcp``."""
    import pytest_asyncio

    class AsyncFixtures:
        @pytest_asyncio.fixture(loop_scope="session")
        async def webmcp(
            self, request: pytest.FixtureRequest, browser_name: str, page: Any, output_path: str
        ) -> Any:
            """The async `WebMCPSession` of the async `page` (see the sync `webmcp`)."""
            settings = _before(request, browser_name)
            core, reason = await _attach(request.config, page, settings)
            session = _after(request, settings, core, reason, output_path)
            request.node.stash[_KEPT] = _Kept(session, output_path)
            yield session
            await session.close()
            _finish(request.config, session, session.records)

    return AsyncFixtures()


def _title(node: Any) -> str:
    """The test's name for its snapshots: class and test name with its parameters, but not the
    browser's (WebMCP runs on Chromium alone, so it would only lengthen every name)."""
    names = node.nodeid.split("::")[1:]
    callspec = getattr(node, "callspec", None)
    browser = callspec.params.get("browser_name") if callspec is not None else None
    if browser and names and names[-1].endswith("]") and "[" in names[-1]:
        base, ids = names[-1][:-1].split("[", 1)
        parts = ids.split("-")
        if browser in parts:
            parts.remove(browser)
        names[-1] = f"{base}[{'-'.join(parts)}]" if parts else base
    return " ".join(names)


class _Watched(_core.WebMCPSession):
    """The fixture's async core: it also keeps every tool that appeared (for coverage), a
    call's timeout reads as seconds, and with pytest-playwright's ``--tracing`` each call is a
    group in the trace (`tool → code`, its input and result)."""

    tracing: Tracing | None = None
    """The async `Tracing` of the page's context, when the run traces."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.appeared: list[Tool] = []
        self.caller: FrameType | None = None

    def _tools_changed(self, added: list[Tool], removed: list[Tool]) -> None:
        self.appeared.extend(added)
        super()._tools_changed(added, removed)

    async def call(
        self,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        frame: str | None = None,
        confirm: bool | None = None,
        validate: bool = True,
    ) -> CallResult:
        """Call a tool and return its coded MCP result, with its record (see `WebMCPSession.call`)."""
        caller, self.caller = self.caller or sys._getframe(1), None
        problem = None if timeout is None else seconds_problem(timeout, most=SETTING_MOST)
        if problem:
            raise UsageError(f"webmcp.call({name!r}): {problem}")
        result = await super().call(
            name, args, timeout=timeout, frame=frame, confirm=confirm, validate=validate
        )
        if self.tracing is not None:
            await _trace(self.tracing, result.record, caller)
        return result


class _FixtureSession(WebMCPSession):
    """The fixture's sync session: the core's call, traced at the caller's line."""

    def call(
        self,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        frame: str | None = None,
        confirm: bool | None = None,
        validate: bool = True,
    ) -> CallResult:
        """Call a tool and return its coded MCP result, with its record (see `WebMCPSession.call`)."""
        cast(_Watched, self.core).caller = sys._getframe(1)
        return super().call(
            name, args, timeout=timeout, frame=frame, confirm=confirm, validate=validate
        )


async def _trace(tracing: Tracing, record: CallRecord, caller: FrameType) -> None:
    """The call as a group of the trace, at the caller's line: `tool → code`, input, result."""
    from playwright.async_api import Error as PlaywrightError

    where: Location = {"file": caller.f_code.co_filename, "line": caller.f_lineno, "column": 0}
    given = json.dumps(record.input, ensure_ascii=False, default=str)
    answer = json.dumps(record.result, ensure_ascii=False, default=str)
    try:
        await tracing.group(f"{plain(record.tool)} → {record.code or 'ok'}", location=where)
        try:
            for title in (
                f"input {_cut(given, TRACE_QUOTE)}",
                f"result {_cut(answer, TRACE_QUOTE)}",
            ):
                await tracing.group(title, location=where)
                await tracing.group_end()
        finally:
            await tracing.group_end()
    except PlaywrightError:
        pass  # the context is closing: the trace ends there


async def _missing_webmcp(config: pytest.Config, page: Any) -> str | None:
    """Why the browser of page (an async-API page) has no `document.modelContext`; None when it
    has one.

    Asked once per browser, on a secure page that a route serves: the DevTools domain is there
    even when the feature is off, so attaching cannot tell.
    """
    browser = as_async(as_async(page.context).browser)  # Playwright may hand out sync wrappers
    key = impl_of(browser)
    known = config.stash.setdefault(_PROBED, {})
    if browser is None or key in known:
        return known.get(key)
    from .session.probe import probe as probe_webmcp

    async def answer(route: Any) -> None:
        await as_async(route).fulfill(body="<title>probe</title>")

    context = as_async(await browser.new_context())
    try:
        probe = as_async(await context.new_page())
        await probe.route(_PROBE_URL, answer)
        await probe.goto(_PROBE_URL)
        has = not (await probe_webmcp(probe, frames=False)).flag_missing
    finally:
        await context.close()
    known[key] = None
    selenium = config.stash.get(_SELENIUM, None)
    watch = next(
        (w for b, w in selenium.watches.items() if impl_of(b) is key) if selenium else iter(()),
        None,
    )
    if not has and watch is not None:
        known[key] = no_webmcp_message(watch.session)
    elif not has and config.stash.get(_CONNECTED, False):
        known[key] = NO_WEBMCP_REMOTE
    elif not has:
        known[key] = (
            f"This browser ({browser.version}) has no WebMCP: document.modelContext is missing. "
            f"It needs Chromium 146+ launched with --enable-features={WEBMCP_FEATURES} "
            "(the plugin adds that unless browser_type_launch_args disables it)."
        )
    return known[key]


@pytest.fixture(scope="session")
def webmcp_demo_url() -> Iterator[str]:
    """The URL of the demo shop, served on a free port for the whole run (each xdist worker's)."""
    from .testing.demo import DemoServer

    with DemoServer() as server:
        yield server.url


# -- artifacts -----------------------------------------------------------------------------
@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On failure, keep the calls in `<output>/<test-id>/webmcp-calls.json` and in the report."""
    report = yield
    kept = item.stash.get(_KEPT, None)
    if kept is not None:
        if report.failed and kept.session.records:
            _keep_calls(item, report, kept)
        if report.when == "teardown":
            del item.stash[_KEPT]
    return report


def _keep_calls(item: pytest.Item, report: pytest.TestReport, kept: _Kept) -> None:
    records = kept.session.records
    path = Path(kept.folder) / CALLS_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps([r.to_dict() for r in records], indent=2, default=str)
        path.write_text(data + "\n", encoding="utf-8")
        where = f"all calls ({len(records)}): {_shown(item.config, path)}"
        report.user_properties.append(("webmcp_calls", _shown(item.config, path)))
    except OSError as exc:
        where = f"could not write {path}: {exc}"
    lines = [_line(r) for r in records[-LAST_CALLS:]]
    report.sections.append((f"webmcp calls (last {len(lines)})", "\n".join([*lines, where])))


def _line(record: CallRecord) -> str:
    given = json.dumps(record.input, ensure_ascii=False, default=str)
    result = record.result or {}
    texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)]
    answer = str(texts[0]) if texts else json.dumps(result, default=str)
    outcome = "pending" if record.result is None else (record.code or "ok")
    return f"#{record.shown_number} {record.tool}({_cut(given, 120)}) -> {outcome}: {_cut(answer, 200)}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(config: pytest.Config, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(config.invocation_params.dir.resolve()))
    except ValueError:
        return str(path)


# -- coverage ------------------------------------------------------------------------------
@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist: add a finished worker's coverage to the run's."""
    coverage = node.config.stash.get(_COVERAGE, None)
    data = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
    if coverage is not None and data:
        coverage.merge(data)


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, object, object]:
    """After the tests (and every xdist worker): write the coverage JSON, judge fail-under."""
    result = yield
    config = session.config
    coverage = config.stash.get(_COVERAGE, None)
    if coverage is None:
        return result
    worker = getattr(config, "workeroutput", None)
    if worker is not None:
        worker[_WORKER_KEY] = coverage.to_json()
        return result
    run = config.stash[_RUN]
    lines: list[str] = []
    if run.coverage_json:
        path = config.invocation_params.dir / run.coverage_json
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(coverage.to_json(), indent=2) + "\n", encoding="utf-8")
            lines.append(f"WebMCP coverage JSON: {_shown(config, path)}")
        except OSError as exc:
            lines.append(f"could not write the WebMCP coverage JSON to {path}: {exc}")
            session.testsfailed += 1
    if run.fail_under is not None and coverage.percent < run.fail_under:
        session.testsfailed += 1
        lines.append(
            f"FAIL: tests called {coverage.called} of {len(coverage.tools)} WebMCP tools "
            f"({coverage.percent:.1f}%), under --webmcp-coverage-fail-under={run.fail_under:g}"
        )
    config.stash[_VERDICT] = lines
    return result


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    coverage = config.stash.get(_COVERAGE, None)
    if coverage is None or hasattr(config, "workeroutput"):
        return
    if config.stash[_RUN].coverage:
        terminalreporter.write_sep("-", "WebMCP coverage")
        for line in coverage.table():
            terminalreporter.write_line(line)
    for line in config.stash.get(_VERDICT, []):
        terminalreporter.write_line(line, red=line.startswith(("FAIL", "could not")))
