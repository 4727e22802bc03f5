"""The pytest plugin: WebMCP tests on top of pytest-playwright's browser, context and page.

Installing the package is all it takes (entry point ``pytest11``, name ``webmcp``)::

    from webmcp_harness import expect

    def test_product(page, webmcp, webmcp_demo_url):
        page.goto(webmcp_demo_url)
        expect(webmcp).to_have_tool("get_product")
        expect(webmcp.call("get_product", {"product_id": "beacon-lantern"})).to_succeed()

The plugin adds WebMCP's switches (and the Chromium `find_browser` picks) to whatever
``browser_type_launch_args`` gives, a user's override included; it replaces no fixture.

Async tests (pytest-playwright-asyncio): there is no async fixture, on purpose. That plugin
refuses to load beside pytest-playwright, which this package needs (so it runs with
``-p no:playwright``), and a fixture for it would need pytest-asyncio too. The core is one call
either way, so attach in your own fixture::

    @pytest_asyncio.fixture
    async def webmcp(page):
        async with await webmcp_harness.WebMCPSession.attach(page) as session:
            yield session

The launch-args hook goes by the fixture's name, so it extends that plugin's
``browser_type_launch_args`` too (not tested here), and ``expect(session)`` gives awaitable
assertions for an async session.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import pytest

from ._pw import is_sync
from .browser import BROWSER_ENV, WEBMCP_FEATURES, find_browser, launch_args
from .errors import BrowserNotFoundError, WebMCPUnavailableError
from .records import CallRecord
from .session import DEFAULT_TIMEOUT, BackendChoice
from .sync_api import WebMCPSession

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["webmcp", "webmcp_demo_url"]

BACKENDS = ("auto", "cdp", "inpage")
LAST_CALLS = 5
CALLS_FILE = "webmcp-calls.json"
ASYNC_PAGE = (
    "The webmcp fixture drives pytest-playwright's sync page; with an async page, attach in "
    "your own async fixture: `await webmcp_harness.WebMCPSession.attach(page)`."
)


class _Settings(NamedTuple):
    timeout: float
    confirm: bool
    backend: str


class _Kept(NamedTuple):
    """What a test leaves for its report: its session and the folder for its artifacts."""

    session: WebMCPSession
    folder: str


_KEPT = pytest.StashKey[_Kept]()
_PROBED = pytest.StashKey[dict[Any, str | None]]()
_PROBE_URL = "http://127.0.0.1/__webmcp_harness_probe__"  # a route answers; no server
_MADE_FOR = pytest.StashKey[list[tuple[pytest.FixtureDef[Any], Any, str]]]()


# -- options -------------------------------------------------------------------------------
def _timeout(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise pytest.UsageError(
            f"--webmcp-timeout must be a number of seconds, like 5 or 0.5; got {raw!r}"
        ) from None
    if not (value > 0 and math.isfinite(value)):
        raise pytest.UsageError(f"--webmcp-timeout must be more than 0 seconds; got {raw!r}")
    return value


def _browser_path(raw: str) -> str:
    try:
        return find_browser(raw)
    except BrowserNotFoundError:
        raise pytest.UsageError(
            f"--webmcp-browser-path: no executable at {raw!r}; "
            "give the path (or a name on PATH) of Chromium 146 or newer"
        ) from None


def _backend(raw: str) -> str:
    if raw not in BACKENDS:
        raise pytest.UsageError(
            f"--webmcp-backend must be one of {', '.join(BACKENDS)}; got {raw!r}"
        )
    return raw


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("webmcp", "WebMCP (webmcp-harness)")
    group.addoption(
        "--webmcp-timeout",
        type=_timeout,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"default timeout of a tool call, in seconds (default {DEFAULT_TIMEOUT:g})",
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
        default=False,
        help="act as the person: submit confirm-gated forms instead of getting needs_user",
    )
    group.addoption(
        "--webmcp-backend",
        type=_backend,
        default="auto",
        metavar="NAME",
        help="auto (default): the browser's WebMCP, skipping tests when it has none; "
        "cdp: the same, failing instead; inpage: a WebMCP polyfill in the page",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "webmcp(timeout=None, confirm=None, backend=None): settings of the webmcp fixture "
        "for this test",
    )


# -- launching -----------------------------------------------------------------------------
@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, Any, Any]:
    """Add WebMCP's switches to what `browser_type_launch_args` gave (each override's, in turn).

    The dict is changed in place, since pytest caches that object.
    """
    value = yield
    if fixturedef.argname == "browser_type_launch_args" and isinstance(value, dict):
        name = request.getfixturevalue("browser_name")
        request.config.stash.setdefault(_MADE_FOR, []).append((fixturedef, request, name))
        if name == "chromium":
            _add_webmcp(value, request.config.getoption("--webmcp-browser-path"))
    return value


def _add_webmcp(options: dict[str, Any], browser_path: str | None) -> None:
    args = [str(a) for a in options.get("args") or []]

    def listed(switch: str) -> list[int]:
        return [i for i, a in enumerate(args) if a.startswith(f"--{switch}-features=")]

    def features(i: int) -> list[str]:
        return [f for f in args[i].split("=", 1)[1].split(",") if f]

    disabled = {f for i in listed("disable") for f in features(i)}  # the user's wish stands
    wanted = [f for f in WEBMCP_FEATURES.split(",") if f not in disabled]
    enabled = listed("enable")
    if enabled:  # Chromium reads only the last one: merge into it
        have = features(enabled[-1])
        args[enabled[-1]] = "--enable-features=" + ",".join(
            have + [f for f in wanted if f not in have]
        )
    elif wanted:
        args.append("--enable-features=" + ",".join(wanted))
    args += [a for a in launch_args(webmcp=False) if a not in args]
    options["args"] = args
    if options.get("executable_path") or (options.get("channel") and not browser_path):
        return
    try:
        options["executable_path"] = browser_path or find_browser()
    except BrowserNotFoundError:
        if os.environ.get(BROWSER_ENV):
            raise  # a wrong $WEBMCP_BROWSER_PATH is an error; nothing found, Playwright's turn


# -- fixtures ------------------------------------------------------------------------------
def _settings(request: pytest.FixtureRequest) -> _Settings:
    config = request.config
    settings = _Settings(
        config.getoption("--webmcp-timeout"),
        config.getoption("--webmcp-confirm"),
        config.getoption("--webmcp-backend"),
    )
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
    if kwargs.get("confirm") not in (None, True, False):
        return f"confirm must be True or False; got {kwargs['confirm']!r}"
    if kwargs.get("backend") not in (None, *BACKENDS):
        return f"backend must be one of {', '.join(BACKENDS)}; got {kwargs['backend']!r}"
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

    Settings: ``--webmcp-timeout``, ``--webmcp-confirm``, ``--webmcp-backend``, and per test
    ``@pytest.mark.webmcp(timeout=..., confirm=..., backend=...)``. Skips the test when the
    browser is not Chromium or has no WebMCP (backend ``auto``).
    """
    if browser_name != "chromium":
        pytest.skip(f"WebMCP needs Chromium; this run uses {browser_name}.")
    if not is_sync(page):
        pytest.fail(ASYNC_PAGE, pytrace=False)
    settings = _settings(request)
    backend = cast(BackendChoice, "cdp" if settings.backend == "auto" else settings.backend)
    reason = _missing_webmcp(request.config, page) if backend == "cdp" else None
    if reason is None:
        try:  # attach bounds its own setup by timeout: a short call timeout must not fail it
            session = WebMCPSession.attach(
                page,
                timeout=max(settings.timeout, DEFAULT_TIMEOUT),
                confirm=settings.confirm,
                backend=backend,
            )
        except WebMCPUnavailableError as exc:
            reason = exc.message
        else:
            session.core.timeout = settings.timeout
    if reason is not None:
        reason += " (For a page with a WebMCP polyfill: --webmcp-backend=inpage.)"
        if settings.backend == "auto":
            pytest.skip(reason)
        pytest.fail(reason, pytrace=False)
    request.node.stash[_KEPT] = _Kept(session, output_path)
    yield session
    session.close()


def _missing_webmcp(config: pytest.Config, page: Page) -> str | None:
    """Why page's browser has no `document.modelContext`; None when it has one.

    Asked once per browser, on a secure page that a route serves: the DevTools domain is there
    even when the feature is off, so attaching cannot tell.
    """
    browser = page.context.browser
    known = config.stash.setdefault(_PROBED, {})
    if browser is None or browser in known:
        return known.get(browser)
    from .probe import probe as probe_webmcp

    context = browser.new_context()
    try:
        probe = context.new_page()
        probe.route(_PROBE_URL, lambda route: route.fulfill(body="<title>probe</title>"))
        probe.goto(_PROBE_URL)
        has = not probe._sync(probe_webmcp(probe, frames=False)).flag_missing
    finally:
        context.close()
    known[browser] = None
    if not has:
        known[browser] = (
            f"This browser ({browser.version}) has no WebMCP: document.modelContext is missing. "
            f"It needs Chromium 146+ launched with --enable-features={WEBMCP_FEATURES} "
            "(the plugin adds that unless browser_type_launch_args disables it)."
        )
    return known[browser]


@pytest.fixture(scope="session")
def webmcp_demo_url() -> Iterator[str]:
    """The URL of the demo shop, served on a free port for the whole run (each xdist worker's)."""
    from .demo import DemoServer

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
    return f"#{record.id} {record.tool}({_cut(given, 120)}) -> {outcome}: {_cut(answer, 200)}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(config: pytest.Config, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(config.invocation_params.dir.resolve()))
    except ValueError:
        return str(path)
