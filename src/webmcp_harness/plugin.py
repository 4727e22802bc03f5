"""The pytest plugin: WebMCP on top of pytest-playwright's browser, context and page fixtures."""

from __future__ import annotations

import json
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import WEBMCP_FEATURES, find_browser, launch_args
from .errors import BrowserNotFoundError, WebMCPUnavailableError
from .sync_api import WebMCPSession

__all__ = ["webmcp", "webmcp_demo_url"]

_SESSIONS = pytest.StashKey[list[WebMCPSession]]()
_BACKENDS = ("auto", "cdp", "inpage")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("webmcp", "WebMCP (webmcp-harness)")
    group.addoption(
        "--webmcp-timeout",
        default=None,
        metavar="SECONDS",
        help="default timeout of a WebMCP tool call, in seconds (default 30)",
    )
    group.addoption(
        "--webmcp-browser-path",
        default=None,
        metavar="PATH",
        help="Chromium to launch (default: $WEBMCP_BROWSER_PATH, Playwright's, then PATH)",
    )
    group.addoption(
        "--webmcp-confirm",
        action="store_true",
        default=False,
        help="act as the person: submit confirm-gated forms instead of returning needs_user",
    )
    group.addoption(
        "--webmcp-backend",
        default="auto",
        metavar="NAME",
        help="how calls reach the page: auto (native WebMCP), cdp or inpage (polyfills)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "webmcp(timeout=None, confirm=None, backend=None): per-test settings of the webmcp fixture",
    )
    _timeout_option(config)
    _backend_option(config.getoption("--webmcp-backend"), "--webmcp-backend")
    path = config.getoption("--webmcp-browser-path")
    if path:
        try:
            find_browser(path)
        except BrowserNotFoundError as exc:
            raise pytest.UsageError(f"--webmcp-browser-path: {exc.message}") from None


def _timeout_option(config: pytest.Config) -> float | None:
    raw = config.getoption("--webmcp-timeout")
    if raw is None:
        return None
    return _positive(raw, "--webmcp-timeout")


def _positive(raw: Any, what: str) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"{what} must be a number of seconds, not {raw!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise pytest.UsageError(f"{what} must be a positive number of seconds, not {raw!r}")
    return value


def _backend_option(raw: Any, what: str) -> str:
    if raw not in _BACKENDS:
        raise pytest.UsageError(f"{what} must be one of {', '.join(_BACKENDS)}, not {raw!r}")
    return str(raw)


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, Any, None]:
    """Add the WebMCP switches to whatever `browser_type_launch_args` gave, the user's included."""
    outcome = yield
    if fixturedef.argname != "browser_type_launch_args":
        return
    options = outcome.get_result()
    if isinstance(options, dict):
        _merge_launch_args(options, request.config)


def _merge_launch_args(options: dict[str, Any], config: pytest.Config) -> None:
    args = list(options.get("args") or [])
    features = [a for a in args if a.startswith("--enable-features=")]
    wanted = [
        a for a in launch_args(webmcp=False) if a not in args
    ]  # quiet networking, no sandbox as root
    if features:
        index = args.index(features[0])
        have = features[0].split("=", 1)[1].split(",")
        extra = [f for f in WEBMCP_FEATURES.split(",") if f not in have]
        args[index] = "--enable-features=" + ",".join(have + extra)
    else:
        wanted.insert(0, f"--enable-features={WEBMCP_FEATURES}")
    options["args"] = args + wanted
    if "executable_path" not in options and "channel" not in options:
        try:
            options["executable_path"] = find_browser(config.getoption("--webmcp-browser-path"))
        except BrowserNotFoundError:
            pass  # Playwright's own error says what is missing when it launches


def _settings(request: pytest.FixtureRequest) -> dict[str, Any]:
    config = request.config
    marker = request.node.get_closest_marker("webmcp")
    kwargs = dict(marker.kwargs) if marker else {}
    unknown = set(kwargs) - {"timeout", "confirm", "backend"}
    if unknown:
        raise pytest.UsageError(f"@pytest.mark.webmcp got unknown settings: {sorted(unknown)}")
    timeout = kwargs.get("timeout")
    timeout = (
        _positive(timeout, "webmcp(timeout=...)")
        if timeout is not None
        else _timeout_option(config) or 30.0
    )
    confirm = kwargs.get("confirm")
    if confirm is None:
        confirm = bool(config.getoption("--webmcp-confirm"))
    backend = kwargs.get("backend") or config.getoption("--webmcp-backend")
    return {
        "timeout": timeout,
        "confirm": bool(confirm),
        "backend": _backend_option(backend, "webmcp(backend=...)"),
    }


@pytest.fixture
def webmcp(request: pytest.FixtureRequest, page: Any, browser_name: str) -> Iterator[WebMCPSession]:
    """The sync WebMCPSession of `page`, closed after the test."""
    if browser_name != "chromium":
        pytest.skip(f"WebMCP needs Chromium; this run uses {browser_name}.")
    settings = _settings(request)
    native_only = settings["backend"] == "auto"
    try:
        session = WebMCPSession.attach(
            page,
            timeout=settings["timeout"],
            confirm=settings["confirm"],
            backend="cdp" if native_only else settings["backend"],
        )
    except WebMCPUnavailableError as exc:
        pytest.skip(
            f"{exc.message} For pages with a WebMCP polyfill, use "
            "@pytest.mark.webmcp(backend='inpage') or --webmcp-backend=inpage."
        )
    request.node.stash.setdefault(_SESSIONS, []).append(session)
    yield session
    session.close()


@pytest.fixture(scope="session")
def webmcp_demo_url() -> Iterator[str]:
    """The URL of the demo shop, served on a free port for the whole run."""
    from .demo import serve_demo

    server = serve_demo()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    sessions = item.stash.get(_SESSIONS, None)
    if not sessions or report.when != "call" or not report.failed:
        return
    records = [r.to_dict() for s in sessions for r in s.records]
    if not records:
        return
    folder = Path(item.config.getoption("--output", "test-results")) / _slug(item.nodeid)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "webmcp-calls.json"
        path.write_text(json.dumps(records, indent=2, ensure_ascii=False, default=str))
        where = f"\n(all calls: {os.path.relpath(path)})"
    except OSError as exc:
        where = f"\n(could not write webmcp-calls.json: {exc})"
    last = records[-5:]
    lines = [
        f"#{r['id']} {r['tool']}({json.dumps(r['input'], default=str)[:200]}) -> {r['code'] or 'ok'}"
        for r in last
    ]
    report.sections.append(("webmcp calls (last 5)", "\n".join(lines) + where))


def _slug(nodeid: str) -> str:
    from pytest_playwright import pytest_playwright as pw

    return str(pw._truncate_file_name(pw.slugify(nodeid)))  # type: ignore[attr-defined]
