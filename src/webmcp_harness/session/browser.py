"""Finding Chromium, launching it with WebMCP on, and connecting to a remote browser."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import sys
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import BrowserNotFoundError, Error, UsageError
from ..core.text import safe_text
from ..core.urls import split_url
from .adapters import is_target_closed
from .direct import DEBUGGING_PORT_ARGS, remember_port
from .process import browser_pid

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

__all__ = [
    "BROWSER_CLOSE_WAIT",
    "BROWSER_ENV",
    "LAUNCHED_CLOSE_WAIT",
    "LAUNCH_OPTIONS_HEADER",
    "NO_WEBMCP_CDP",
    "NO_WEBMCP_REMOTE",
    "PLAYWRIGHT_DISABLED",
    "PLAYWRIGHT_ENABLED",
    "UI_FEATURES_OFF",
    "WEBMCP_FEATURES",
    "browser_has_webmcp",
    "close_browser",
    "close_context",
    "connect",
    "explain_load_error",
    "explain_remote_error",
    "find_browser",
    "goto",
    "launch",
    "launch_args",
    "launch_options",
    "merge_features",
    "new_context",
    "playwright_chromium_path",
]

BROWSER_ENV = "WEBMCP_BROWSER_PATH"
WEBMCP_FEATURES = "WebMCP,WebMCPTesting,DevToolsWebMCPSupport"
# Chromium reads only the last --enable-features and the last --disable-features, and Playwright
# passes its own lists first: ours repeat them (tests/session/test_browser.py holds these to the
# installed Playwright's), so that adding a feature does not undo Playwright's.
PLAYWRIGHT_ENABLED = ("CDPScreenshotNewSurface", "SkipListAccountsWithoutGaiaCookies")
PLAYWRIGHT_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
UI_FEATURES_OFF = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
"""Chromium's new headless mode (Debian's 156) loads the address bar's popups, two WebUI pages,
in a renderer of their own at every launch. On 2 cores, launching and opening the demo's 7 pages
took 0.67x the time without them."""
BROWSER_CLOSE_WAIT = 5.0
"""Seconds closing a browser context, and then the browser, may each take. A browser the harness
launched that has not closed by then no longer answers: it is killed, not waited on."""
LAUNCHED_CLOSE_WAIT = 2.0
"""Seconds closing a browser the harness launched may take: it closes in a fraction of a second
unless a page keeps it busy (a navigation flood), and then it is killed (its profile is a
temporary one: nothing is lost)."""
_PIDS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()  # launched -> its pid
_STUCK: weakref.WeakSet[Any] = weakref.WeakSet()  # browsers a context of which did not close
_PID_WAIT = 5.0
_PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

LAUNCH_OPTIONS_HEADER = "x-playwright-launch-options"
"""The header that carries a client's launch options to a Playwright browser server."""

NO_WEBMCP_REMOTE = (
    "The remote browser has no WebMCP: its pages lack document.modelContext, because the browser "
    f"was launched without --enable-features={WEBMCP_FEATURES}. Either start the server as "
    "`playwright run-server --unsafe` (it then keeps the launch arguments the harness sends), or "
    "run a WebMCP-ready node with `webmcp-harness browser-server --port N`."
)

NO_WEBMCP_CDP = (
    "The browser at {where} has no WebMCP: its pages lack document.modelContext. Start that "
    f"Chromium with --enable-features={WEBMCP_FEATURES} (Chromium 146 or newer), then connect again."
)
_PROBE_URL = "https://webmcp-harness.invalid/probe"  # answered by a route: no network, secure

HOW_TO_GET_ONE = (
    "Install one with `playwright install chromium`, or on Debian/Ubuntu `apt-get install chromium`, "
    f"or point {BROWSER_ENV} (or --browser-path) at a Chromium 146+ executable."
)


def playwright_chromium_path() -> str | None:
    """The Chromium that `playwright install chromium` put on this machine, if any."""
    default = Path.home() / ".cache" / "ms-playwright"
    if sys.platform == "darwin":
        default = Path.home() / "Library" / "Caches" / "ms-playwright"
    elif sys.platform == "win32":
        default = Path(os.environ.get("LOCALAPPDATA", Path.home())) / "ms-playwright"
    base = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or default)
    patterns = (
        "chromium-*/chrome-linux*/chrome",
        "chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
        "chromium-*/chrome-mac*/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chromium-*/chrome-win*/chrome.exe",
    )
    found = [p for pattern in patterns for p in base.glob(pattern) if p.is_file()]
    if not found:
        return None

    def revision(path: Path) -> int:
        digits = path.relative_to(base).parts[0].rpartition("-")[2]
        return int(digits) if digits.isdigit() else 0

    return str(max(found, key=revision))


def find_browser(
    explicit: str | os.PathLike[str] | None = None, *, source: str = "browser_path"
) -> str:
    """The browser to launch: explicit path, $WEBMCP_BROWSER_PATH, Playwright's, then PATH.

    source names where explicit came from (an option, a setting), for the error message.
    Raises BrowserNotFoundError, saying what to do, when none is found.
    """
    for origin, candidate in (
        (source, explicit),
        (BROWSER_ENV, os.environ.get(BROWSER_ENV)),
    ):
        if candidate:
            path = Path(candidate).expanduser()
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
            found = shutil.which(str(candidate))
            if found:
                return found
            fix = (
                f"Point {BROWSER_ENV} at a Chromium 146+ executable, or unset it"
                if origin == BROWSER_ENV
                else f"Give {origin} the path of a Chromium 146+ executable, or leave it out"
            )
            raise BrowserNotFoundError(
                f"No browser at {str(candidate)!r} (from {origin}): no such executable. {fix} "
                "to use the Chromium found on this machine."
            )
    own = playwright_chromium_path()
    if own:
        return own
    for name in _PATH_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFoundError(f"No Chromium found. {HOW_TO_GET_ONE}")


def launch_args(*, webmcp: bool = True) -> list[str]:
    """Command-line switches for Chromium: WebMCP on, quiet networking and browser UI, no sandbox
    as root."""
    enable = [*PLAYWRIGHT_ENABLED, *WEBMCP_FEATURES.split(",")] if webmcp else []
    args = merge_features([], enable=enable, disable=[*PLAYWRIGHT_DISABLED, *UI_FEATURES_OFF])
    args += ["--disable-background-networking", "--disable-component-update"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


def merge_features(args: list[str], *, enable: Iterable[str], disable: Iterable[str]) -> list[str]:
    """args with features added to their last --enable-features and --disable-features (which
    are all Chromium reads), or to new ones. A feature args already switch the other way stays
    as args have it."""
    out = list(args)

    def last(switch: str) -> int | None:
        found = [i for i, a in enumerate(out) if a.startswith(f"--{switch}-features=")]
        return found[-1] if found else None

    def listed(switch: str) -> list[str]:
        i = last(switch)
        return [] if i is None else [f for f in out[i].split("=", 1)[1].split(",") if f]

    said_on, said_off = set(listed("enable")), set(listed("disable"))
    for switch, wanted, other in (("enable", enable, said_off), ("disable", disable, said_on)):
        have = listed(switch)
        more = [f for f in wanted if f not in have and f not in other]
        if not more:
            continue
        value = f"--{switch}-features=" + ",".join(have + more)
        i = last(switch)
        if i is None:
            out.append(value)
        else:
            out[i] = value
    return out


def launch_options(
    *, headless: bool = True, webmcp: bool = True, browser_path: str | None = None
) -> dict[str, object]:
    """Playwright launch options for a WebMCP-ready Chromium, as a browser server takes them.

    browser_path, when given, names the browser on the server's machine.
    """
    options: dict[str, object] = {"args": launch_args(webmcp=webmcp), "headless": headless}
    if browser_path:
        options["executablePath"] = browser_path
    return options


async def launch(
    playwright: Playwright,
    *,
    browser_path: str | None = None,
    headless: bool = True,
    webmcp: bool = True,
    source: str = "browser_path",
    debugging_port: bool = False,
) -> Browser:
    """Launch Chromium with WebMCP enabled (or without it, for polyfilled pages).

    ``browser_path`` (else $WEBMCP_BROWSER_PATH, Playwright's Chromium, then PATH) is the browser;
    ``source`` names where the path came from in error messages. Raises BrowserNotFoundError,
    saying what to do, when there is no browser or it does not start.

    ``debugging_port`` also opens Chromium's DevTools port on 127.0.0.1 (a free port it picks),
    so that sessions on its pages reach it without Playwright's driver (`session.direct`): any
    local process can drive a browser through that port while it runs (docs/mcp.md).
    """
    path = find_browser(browser_path, source=source)
    args = launch_args(webmcp=webmcp) + (list(DEBUGGING_PORT_ARGS) if debugging_port else [])
    try:
        browser = await playwright.chromium.launch(
            executable_path=path, headless=headless, args=args, timeout=60_000
        )
    except Exception as exc:
        said = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if is_target_closed(exc):
            # Playwright's error for a program that quit at once: not a browser it can drive.
            said = (
                f"{path} quit as soon as it started, so it is not a Chromium that Playwright can "
                "drive"
            )
        raise BrowserNotFoundError(
            f"Could not start the browser at {path}: {said}. {HOW_TO_GET_ONE}"
        ) from exc
    pid = await browser_pid(browser, _PID_WAIT)
    if pid is not None:
        _PIDS[browser] = pid
    if debugging_port:
        await remember_port(browser, pid)
    return browser


async def new_context(browser: Browser, *, downloads: bool = False, **options: Any) -> Any:
    """A new browser context; downloads are denied (Chromium is told so over the DevTools
    protocol) unless downloads=True, for users who test them."""
    return await asyncio.wait_for(
        browser.new_context(accept_downloads=downloads, **options), BROWSER_CLOSE_WAIT * 6
    )


async def close_context(context: Any) -> bool:
    """Close a browser context within BROWSER_CLOSE_WAIT; whether it closed. Never raises."""
    try:
        await asyncio.wait_for(context.close(), BROWSER_CLOSE_WAIT)
    except Exception:
        with contextlib.suppress(Exception):
            _STUCK.add(context.browser)  # closing it will not wait on it again
        return False
    return True


async def close_browser(browser: Browser) -> None:
    """Close browser within BROWSER_CLOSE_WAIT (one the harness launched, within
    LAUNCHED_CLOSE_WAIT); one the harness launched that does not close by then is killed (a
    remote one is let go); so is one whose context did not close. Never raises."""
    if browser not in _STUCK:
        wait = LAUNCHED_CLOSE_WAIT if browser in _PIDS else BROWSER_CLOSE_WAIT
        try:
            await asyncio.wait_for(browser.close(), wait)
            return
        except Exception:
            pass
    pid = _PIDS.pop(browser, None)
    if pid is None:
        return
    with contextlib.suppress(OSError):
        os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    with contextlib.suppress(Exception):  # Playwright sees it gone: this ends at once
        await asyncio.wait_for(browser.close(), BROWSER_CLOSE_WAIT)


async def connect(
    playwright: Playwright,
    *,
    ws_endpoint: str | None = None,
    cdp_url: str | None = None,
    headless: bool = True,
    browser_path: str | None = None,
) -> Browser:
    """Connect to a Playwright browser server (ws_endpoint) or a running Chromium (cdp_url).

    A browser server is sent the WebMCP launch options; one started with `run-server --unsafe`
    launches a WebMCP-ready browser with them (browser_path then names its browser).
    """
    if bool(ws_endpoint) == bool(cdp_url):
        raise UsageError("Give exactly one of --connect WS_ENDPOINT or --cdp URL.")
    try:
        if ws_endpoint:
            options = launch_options(headless=headless, browser_path=browser_path)
            return await playwright.chromium.connect(
                ws_endpoint, timeout=30_000, headers={LAUNCH_OPTIONS_HEADER: json.dumps(options)}
            )
        assert cdp_url is not None
        return await playwright.chromium.connect_over_cdp(cdp_url, timeout=30_000)
    except Exception as exc:
        raise BrowserNotFoundError(
            explain_remote_error(str(ws_endpoint or cdp_url), str(exc))
        ) from exc


_NET_ERROR = re.compile(r"net::(ERR_[A-Z0-9_]+)")


def explain_load_error(url: str, message: str) -> str:
    """What went wrong opening url, and what to do, from Playwright's error message.

    Chromium names a failed load with a ``net::ERR_*`` code; the common ones become advice, and
    the code is kept at the end for a search. One line, never cut.
    """
    parts = split_url(url)
    host = parts.hostname or url
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = 0
    if parts.scheme == "file":
        return (
            "WebMCP is absent on file: pages. Serve the folder over http instead "
            "(webmcp_harness.serve_folder(path), or `python -m http.server -b 127.0.0.1`) and "
            "open http://127.0.0.1:PORT/…"
        )
    found = _NET_ERROR.search(message)
    first = message.strip().splitlines()[0] if message.strip() else "no reason given"
    if found is None:
        return first
    code = found.group(1)
    advice = {
        "ERR_UNSAFE_PORT": f"Chromium refuses port {port}: it is on its list of unsafe ports. "
        "Serve the page on another port (8000, 8080, or any above 10000).",
        "ERR_CONNECTION_REFUSED": f"nothing is listening on {host}:{port}. Start the server "
        "first (the demo shop: `webmcp-harness demo`), or check the port.",
        "ERR_NAME_NOT_RESOLVED": f"the host name {host!r} does not resolve. Check its spelling.",
        "ERR_ADDRESS_UNREACHABLE": f"{host} cannot be reached from this machine.",
        "ERR_CONNECTION_TIMED_OUT": f"{host}:{port} did not answer. Check that the server runs.",
        "ERR_CONNECTION_RESET": f"{host}:{port} dropped the connection. Check the server's log.",
        "ERR_CONNECTION_CLOSED": f"{host}:{port} closed the connection without an answer. "
        "Check the server's log.",
        "ERR_EMPTY_RESPONSE": f"{host}:{port} answered nothing. Check the server's log.",
        "ERR_SSL_PROTOCOL_ERROR": f"{host}:{port} does not speak https. Try http:// instead.",
        "ERR_INTERNET_DISCONNECTED": "this machine has no network. Test against a local server.",
        "ERR_INVALID_URL": "the URL is not valid. Check it.",
        "ERR_ABORTED": "the load was aborted (the page started a download, or another "
        "navigation replaced it).",
    }.get(code)
    if advice is None and code.startswith("ERR_CERT_"):
        advice = (
            f"the TLS certificate of {host} is not trusted. Use a trusted certificate, or serve "
            "the page over http on 127.0.0.1 for tests."
        )
    if advice is None:
        advice = "Chromium could not load it."
    return f"{advice} (Chromium: net::{code})"


async def goto(
    page: Any, url: str, timeout: float, *, partly: Callable[[], None] | None = None
) -> Any:
    """Open url, bounded; a page that never finishes loading is used as far as it got.

    Returns Playwright's response for the main document (None when there was none, or when the
    page only partly loaded: then partly() is called). Raises Error, saying why, otherwise."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        return await page.goto(url, timeout=timeout * 1000, wait_until="load")
    except Exception as exc:
        if isinstance(exc, PlaywrightTimeout) and page.url != "about:blank":
            if partly is not None:
                partly()
            return None
        raise Error(
            f"Could not open {safe_text(url)}: {safe_text(explain_load_error(url, str(exc)))}"
        ) from exc


async def browser_has_webmcp(browser: Browser) -> bool:
    """Whether browser's secure pages get `document.modelContext` (one routed page, no network)."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.route(_PROBE_URL, lambda route: route.fulfill(body="<title>probe</title>"))
        await page.goto(_PROBE_URL, timeout=30_000)
        return bool(await page.evaluate("'modelContext' in document"))
    finally:
        await context.close()


# What a remote browser's failure means, read once here from Playwright's message.
_REMOTE_ADVICE: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"Executable doesn't exist|browserType\.launch: .*not found", re.I),
        "the server has no Chromium of its own to launch. On the server's machine run "
        "`playwright install chromium`, or run `webmcp-harness browser-server` there, which "
        "launches that machine's Chromium with WebMCP on.",
    ),
    (
        re.compile(r"version mismatch|server version|client version", re.I),
        "the server runs another Playwright version than this client ({client}). Run the same "
        "Playwright version on both sides.",
    ),
    (
        re.compile(r"ECONNREFUSED|connect ECONNREFUSED|WebSocket error|ENOTFOUND|ETIMEDOUT", re.I),
        "nothing answers there. Check that the browser server is running and that the endpoint "
        "(ws://host:port/path) is the one it printed.",
    ),
    (
        re.compile(r"401|403|Unexpected server response", re.I),
        "the server refused the connection. Check the endpoint's path and any access token.",
    ),
)


def explain_remote_error(where: str, message: str) -> str:
    """One clear sentence for a failure of a remote browser, without the other machine's paths."""
    from importlib.metadata import version

    first = message.strip().splitlines()[0] if message.strip() else message
    for pattern, advice in _REMOTE_ADVICE:
        if pattern.search(message):
            return f"Could not use the browser at {where}: " + advice.format(
                client=version("playwright")
            )
    first = re.sub(r"(/[\w.+-]+){2,}", "<path on the server>", first)
    return f"Could not use the browser at {where}: {first[:300]}"
