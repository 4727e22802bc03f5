"""Chromium from a Selenium Grid 4: a session through the grid's queue, driven over its CDP proxy.

The harness asks the grid for a session itself (the W3C ``POST /session``), with capabilities it
builds (WebMCP on, Playwright's own switches, headless unless headed) merged with the user's, and
drives that Chromium with Playwright's ``connect_over_cdp`` on the session's ``se:cdp`` address.
Playwright's own way, ``launch()`` with ``SELENIUM_REMOTE_URL``, reads its settings from the
environment of its driver process, and a ``goog:chromeOptions`` of ``SELENIUM_REMOTE_CAPABILITIES``
replaces its arguments (a shallow merge). This way sets no environment variable and loses neither
side's arguments; the two variables are read (by the command line and the plugin) as the default
grid and capabilities, never set.

The grid does not close the CDP connection of a session it ends (its inactivity timeout) or whose
node dies, and Playwright then waits on a browser that is gone. So a `SessionWatch` asks the grid
about each session every second (a WebDriver command, which also keeps an idle session from that
timeout) and reports one that is gone; the async side then closes the browser, which Playwright
reports as ``disconnected`` (a check runs the page again elsewhere).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import unquote

from ..core.errors import BrowserNotFoundError, UsageError
from ..core.text import safe_text
from ..core.urls import split_url

if TYPE_CHECKING:
    import http.client

    from playwright.async_api import Browser, Playwright

# (`browser` and `http.client` load on first use: the command line's options name this module's
# variables, and a command without a grid should not pay for them.)

__all__ = [
    "CAPABILITIES_ENV",
    "GRID_ENV",
    "HEADLESS_SWITCHES",
    "PLAYWRIGHT_SWITCHES",
    "SESSION_WAIT",
    "STATUS_WAIT",
    "GridBrowser",
    "GridSession",
    "GridSessions",
    "SeleniumGrid",
    "SessionWatch",
    "capabilities",
    "merge_args",
    "merge_capabilities",
    "no_webmcp_message",
    "open_session",
    "open_sync",
    "parse_capabilities",
]

T = TypeVar("T")

GRID_ENV = "SELENIUM_REMOTE_URL"
CAPABILITIES_ENV = "SELENIUM_REMOTE_CAPABILITIES"
STATUS_WAIT = 10.0
"""Seconds the grid's ``/status`` may take to answer, before anything starts."""
SESSION_WAIT = 120.0
"""Seconds the grid may take to give a session: its queue, and the node starting Chromium (a
Kubernetes grid that scales from zero starts a node first)."""
WATCH_EVERY = 1.0
"""Seconds between two questions of a session's watch to the grid."""
_MISSES = 2  # unanswered questions in a row that mean a session is gone (the grid's "no": one)
_MOST_BYTES = 10_000_000  # the largest answer read from the grid

# The switches Playwright passes when it launches Chromium itself (its `chromiumSwitches`, but
# the feature lists, which `launch_args` repeats): a node's chromedriver launches this Chromium,
# and these keep a page behaving as in a local run (timers of pages in the background, the
# back-forward cache, popups). tests/session/test_selenium.py holds them to the installed
# Playwright's. --no-sandbox too, as Playwright passes it unless told otherwise: a node running
# as root cannot start Chromium without it.
PLAYWRIGHT_SWITCHES = (
    "--disable-field-trial-config",
    "--disable-background-networking",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-back-forward-cache",
    "--disable-breakpad",
    "--disable-component-extensions-with-background-pages",
    "--disable-component-update",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-edgeupdater",
    "--disable-extensions",
    "--allow-pre-commit-input",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-renderer-backgrounding",
    "--disable-updater-scheduler",
    "--force-color-profile=srgb",
    "--metrics-recording-only",
    "--no-first-run",
    "--password-store=basic",
    "--use-mock-keychain",
    "--no-service-autorun",
    "--disable-search-engine-choice-screen",
    "--unsafely-disable-devtools-self-xss-warnings",
    "--enable-unsafe-swiftshader",
    "--edge-skip-compat-layer-relaunch",
    "--disable-stack-profiler",
    "--disable-infobars",
    "--disable-sync",
    "--do-not-de-elevate",
    "--no-sandbox",
)
HEADLESS_SWITCHES = (
    "--headless",
    "--hide-scrollbars",
    "--mute-audio",
    "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,"
    "availablePointerTypes=4",
)
"""What Playwright adds for a headless launch."""

_CHROME_OPTIONS = "goog:chromeOptions"
_EDGE_OPTIONS = "ms:edgeOptions"
_EDGE_NAMES = ("MicrosoftEdge", "msedge")
_REQUEST_KEYS = ("alwaysMatch", "firstMatch", "capabilities", "desiredCapabilities")
_FEATURES = ("--enable-features=", "--disable-features=")


# -- capabilities ----------------------------------------------------------------------------
def parse_capabilities(text: str) -> dict[str, Any]:
    """The capabilities of a JSON object; UsageError, saying what to give, otherwise (its message
    does not name the option: the caller does)."""
    example = '{"platformName": "linux", "se:name": "webmcp check"}'
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise UsageError(
            f"not valid JSON ({safe_text(exc)}). Give a JSON object of capabilities, like "
            f"{example}."
        ) from None
    if not isinstance(value, dict):
        raise UsageError(
            f"not a JSON object of capabilities ({type(value).__name__}); give one like {example}."
        )
    wrapped = [key for key in _REQUEST_KEYS if key in value]
    if wrapped:
        raise UsageError(
            f"a W3C request ({wrapped[0]}), not capabilities; give the capabilities themselves, "
            f"like {example}: the harness sends them as alwaysMatch."
        )
    return value


def capabilities(
    given: Mapping[str, Any] | None = None,
    *,
    args: Sequence[str] | None = None,
    headless: bool = True,
    webmcp: bool = True,
    browser_path: str | None = None,
) -> dict[str, Any]:
    """The capabilities to ask a grid for: a Chromium with the harness's switches (args, else
    `launch_args`), headless unless told otherwise, `browser_path` as its binary (a path on the
    node), merged with the user's (`merge_capabilities`: neither side is lost).

    Raises UsageError when the user's ask for a browser that is not Chromium-based."""
    given = dict(given or {})
    name = given.get("browserName", "chrome")
    if name not in ("chrome", "chromium", *_EDGE_NAMES):
        raise UsageError(
            f"The capabilities ask for browserName {safe_text(name)!r}; WebMCP needs Chromium: "
            'leave browserName out, or give "chrome" (or "MicrosoftEdge").'
        )
    from .browser import launch_args

    switches = [*PLAYWRIGHT_SWITCHES, *(HEADLESS_SWITCHES if headless else ())]
    switches += list(args) if args is not None else launch_args(webmcp=webmcp)
    options: dict[str, Any] = {"args": list(dict.fromkeys(switches))}
    if browser_path:
        options["binary"] = browser_path
    key = _EDGE_OPTIONS if name in _EDGE_NAMES else _CHROME_OPTIONS
    return merge_capabilities({"browserName": "chrome", key: options}, given)


def merge_capabilities(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> dict[str, Any]:
    """ours and theirs in one: objects merged key by key, lists joined (each item once), a
    browser's ``args`` by `merge_args`; where both give a plain value, theirs."""
    out = dict(ours)
    for key, value in theirs.items():
        mine = out.get(key)
        if isinstance(mine, Mapping) and isinstance(value, Mapping):
            out[key] = merge_capabilities(mine, value)
        elif key == "args" and isinstance(mine, list) and isinstance(value, list):
            out[key] = merge_args(mine, [str(a) for a in value])
        elif isinstance(mine, list) and isinstance(value, list):
            out[key] = mine + [v for v in value if v not in mine]
        else:
            out[key] = value
    return out


def merge_args(ours: Sequence[str], theirs: Sequence[str]) -> list[str]:
    """Chromium switches of both sides: ours, then theirs not already there (Chromium reads a
    switch's last value: theirs), and one --enable-features and one --disable-features with the
    features of every such switch of both (Chromium reads only the last of each); a feature the
    two sides switch differently stays as theirs have it."""
    from .browser import merge_features

    def split(args: Iterable[str]) -> tuple[list[str], list[str], list[str]]:
        plain: list[str] = []
        lists: tuple[list[str], list[str]] = ([], [])
        for arg in args:
            for which, switch in enumerate(_FEATURES):
                if arg.startswith(switch):
                    listed = lists[which]
                    listed += [f for f in arg[len(switch) :].split(",") if f and f not in listed]
                    break
            else:
                plain.append(arg)
        return plain, lists[0], lists[1]

    our_plain, enable, disable = split(ours)
    their_plain, their_enable, their_disable = split(theirs)
    merged = our_plain + [a for a in their_plain if a not in our_plain]
    for switch, features in zip(_FEATURES, (their_enable, their_disable), strict=True):
        if features:
            merged.append(switch + ",".join(features))
    return merge_features(merged, enable=enable, disable=disable)


# -- the grid ------------------------------------------------------------------------------
@dataclass(frozen=True)
class GridSession:
    """One session of a grid: its id, its CDP address, and the node it runs on (if known)."""

    id: str
    cdp_url: str
    grid: str
    node: str | None = None

    @property
    def name(self) -> str:
        """How reports name it: ``Selenium Grid session 1a2b3c4d on node http://…``."""
        where = f"on node {self.node}" if self.node else f"of {self.grid}"
        return f"Selenium Grid session {self.id[:8]} {where}"


@dataclass(frozen=True)
class SeleniumGrid:
    """A Selenium Grid 4 (its hub, router or standalone URL) and the capabilities to ask it for.

    Its methods block (plain HTTP, each bounded); `open_session` and `GridSessions` run them in
    threads for the async side."""

    url: str
    """The grid's address without credentials or a trailing slash, as reports show it."""
    capabilities: dict[str, Any] = field(default_factory=lambda: capabilities())
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    """What every request carries: the Authorization of the URL's ``user:password@``."""

    @classmethod
    def at(cls, url: str, caps: Mapping[str, Any] | None = None) -> SeleniumGrid:
        """The grid at url (``http(s)://[user:password@]host:port[/path]``); UsageError when url
        is not one, saying what to give (its message does not name the option: the caller
        does)."""
        example = "http://127.0.0.1:4444"
        parts = split_url(url.strip())
        try:
            parts.port  # noqa: B018 (a port that is not a number raises here)
        except ValueError as exc:
            raise UsageError(
                f"{safe_text(url)!r} is not a URL ({safe_text(exc)}); give the grid's address, "
                f"like {example}."
            ) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(
                f"{safe_text(url)!r} is not an http(s) URL; give the address of the grid's hub, "
                f"router or standalone server, like {example}."
            )
        headers = {}
        if parts.username is not None:
            token = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            headers["Authorization"] = "Basic " + base64.b64encode(token.encode()).decode()
        netloc = parts.netloc.rpartition("@")[2]
        bare = parts._replace(netloc=netloc, query="", fragment="").geturl().rstrip("/")
        return cls(bare, dict(caps) if caps is not None else capabilities(), headers)

    # -- HTTP ----------------------------------------------------------------------------------
    def _http(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        timeout: float,
        held: list[http.client.HTTPConnection] | None = None,
    ) -> tuple[int, Any]:
        """(status, JSON value or None) of one request; OSError when nothing answers in time."""
        import http.client

        parts = split_url(self.url)
        kind = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        connection = kind(parts.hostname or "", parts.port, timeout=timeout)
        if held is not None:
            held.append(connection)
        headers = {"Accept": "application/json", **self.headers}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json; charset=utf-8"
        try:
            connection.request(method, parts.path + path, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read(_MOST_BYTES)
            status = response.status
        except http.client.HTTPException as exc:
            raise OSError(f"the answer was not HTTP ({exc})") from exc
        finally:
            connection.close()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, None

    def status(self, timeout: float = STATUS_WAIT) -> dict[str, Any]:
        """The grid's ``/status`` value; UsageError, naming the grid and what to do, when it does
        not answer within timeout seconds or is not a Selenium Grid 4."""
        try:
            status, answer = self._http("GET", "/status", timeout=timeout)
        except TimeoutError:
            raise UsageError(
                f"The Selenium Grid at {self.url} did not answer within {timeout:g} s (GET "
                "/status). Check that it runs and that this machine reaches it, then try again."
            ) from None
        except OSError as exc:
            raise UsageError(
                f"Nothing answers at {self.url} ({safe_text(_reason(exc))}). Start the Selenium "
                "Grid, or give the address of its hub, router or standalone server, like "
                "http://127.0.0.1:4444."
            ) from None
        if status == 401:
            raise UsageError(
                f"The Selenium Grid at {self.url} asks for a user name and password: give them in "
                "the URL, like http://user:password@grid:4444."
            )
        value = answer.get("value") if isinstance(answer, dict) else None
        if status != 200 or not isinstance(value, dict) or "ready" not in value:
            raise UsageError(
                f"{self.url} answered GET /status with HTTP {status}, not as a Selenium Grid 4. "
                "Give the address of the grid's hub, router or standalone server (the one its "
                "log prints), like http://127.0.0.1:4444."
            )
        return value

    def new_session(
        self,
        *,
        timeout: float = SESSION_WAIT,
        held: list[http.client.HTTPConnection] | None = None,
        abandoned: threading.Event | None = None,
    ) -> GridSession:
        """A new session (queued by the grid until a node has a free slot, at most timeout
        seconds). Raises BrowserNotFoundError, naming the grid and what to do, when none comes.

        held gets the request's connection (closing it abandons the request: the grid drops a
        queued request whose client went away); a session that comes after abandoned is set is
        ended at once."""
        request = {"capabilities": {"alwaysMatch": self.capabilities}}
        try:
            status, answer = self._http("POST", "/session", request, timeout=timeout, held=held)
        except TimeoutError:
            raise BrowserNotFoundError(
                f"The Selenium Grid at {self.url} gave no session within {timeout:g} s: every "
                "node's slots stayed busy, or no node has a Chrome matching the capabilities. "
                "Free or add a node (or ask for fewer sessions: --workers), then try again."
            ) from None
        except OSError as exc:
            raise BrowserNotFoundError(
                f"The Selenium Grid at {self.url} stopped answering while asked for a session "
                f"({safe_text(_reason(exc))}). Check that it runs, then try again."
            ) from None
        value = answer.get("value") if isinstance(answer, dict) else None
        if status != 200 or not isinstance(value, dict) or not value.get("sessionId"):
            raise BrowserNotFoundError(_refusal(self.url, status, value))
        session_id = str(value["sessionId"])
        if abandoned is not None and abandoned.is_set():
            self.end_session(session_id)
            raise BrowserNotFoundError(f"The session {session_id} came after it was given up.")
        caps = value.get("capabilities") if isinstance(value.get("capabilities"), dict) else {}
        cdp = caps.get("se:cdp") if isinstance(caps, dict) else None
        if not isinstance(cdp, str) or not cdp:
            self.end_session(session_id)
            raise BrowserNotFoundError(
                f"The Selenium Grid at {self.url} gave a session without a CDP address (se:cdp): "
                "its CDP proxy is off (--enable-cdp false) or its node's browser is not Chromium. "
                "Turn the grid's CDP proxy on (the default), and ask for Chrome."
            )
        return GridSession(session_id, self._cdp_address(cdp), self.url, self._node_of(session_id))

    def _cdp_address(self, cdp: str) -> str:
        """se:cdp as this machine reaches it: a node that names itself by a loopback address
        (its grid URL unset) is reached at the grid's host, as Playwright does."""
        if "://" not in cdp:
            cdp = "ws://" + cdp
        parts, grid = split_url(cdp), split_url(self.url)
        loopback = ("localhost", "127.0.0.1", "::1")
        if parts.hostname in loopback and grid.hostname not in loopback:
            host = f"[{grid.hostname}]" if ":" in (grid.hostname or "") else grid.hostname
            port = parts.netloc.rpartition("]")[2].rpartition(":")[2]
            netloc = f"{host}:{port}" if port.isdigit() else str(host)
            cdp = parts._replace(netloc=netloc).geturl()
        return cdp

    def _node_of(self, session_id: str) -> str | None:
        """The URI of the node that runs session_id, from /status (None when it does not say)."""
        try:
            _status, answer = self._http("GET", "/status", timeout=STATUS_WAIT)
        except OSError:
            return None
        value = answer.get("value") if isinstance(answer, dict) else None
        for node in value.get("nodes") or [] if isinstance(value, dict) else []:
            for slot in node.get("slots") or [] if isinstance(node, dict) else []:
                session = slot.get("session") if isinstance(slot, dict) else None
                if isinstance(session, dict) and session.get("sessionId") == session_id:
                    uri = node.get("uri") or node.get("externalUri")
                    return str(uri) if uri else None
        return None

    def ask(self, session_id: str) -> tuple[Literal["here", "gone", "unsure"], str]:
        """Whether the grid still has session_id (a WebDriver command, cheap for the node), and
        why not: ``("here", "")``, ``("gone", why)``, or ``("unsure", why)`` when nothing clear
        came back."""
        try:
            status, answer = self._http("GET", f"/session/{session_id}/timeouts", timeout=10)
        except OSError as exc:
            return "unsure", f"the grid stopped answering ({_reason(exc)})"
        if status == 200:
            return "here", ""
        value = answer.get("value") if isinstance(answer, dict) else None
        error = str(value.get("error", "")) if isinstance(value, dict) else ""
        message = str(value.get("message", "")) if isinstance(value, dict) else ""
        if status == 404 or error in ("invalid session id", "no such session"):
            return "gone", "the grid ended it (an inactivity timeout, or its node restarted)"
        if "existing session" in message:  # the router cannot reach the session's node
            return "unsure", "its node stopped answering"
        return "unsure", f"the grid answered HTTP {status} ({error or 'no reason'})"

    def end_session(self, session_id: str) -> None:
        """End session_id (its browser quits; the grid frees its slot a moment later, on the node's
        event); never raises."""
        with contextlib.suppress(OSError):
            self._http("DELETE", f"/session/{session_id}", timeout=10)


def _reason(exc: BaseException) -> str:
    return str(exc.strerror if isinstance(exc, OSError) and exc.strerror else exc) or "no reason"


def _refusal(url: str, status: int, value: Any) -> str:
    """Why the grid gave no session, and what to do, from its answer."""
    message = ""
    if isinstance(value, dict):
        message = str(value.get("message") or value.get("error") or "")
    first = safe_text(message.strip().splitlines()[0] if message.strip() else f"HTTP {status}")
    first = first[:300].rstrip(". ")
    lowered = message.lower()
    if "no nodes support" in lowered or "not supported" in lowered or "unsupported" in lowered:
        advice = (
            "no node of the grid offers a Chrome matching the capabilities. Add a Chrome or "
            "Chromium node, or leave out the capabilities that no node has"
        )
    elif "exited" in lowered or "devtoolsactiveport" in lowered or "crashed" in lowered:
        advice = (
            "its node could not start Chromium with the capabilities' arguments. Check the "
            "node's log; its Chromium must be 146 or newer, and the node must keep --no-sandbox "
            "when it runs as root"
        )
    elif status == 401:
        advice = "it asks for a user name and password: give them in the URL (http://user:pw@…)"
    else:
        advice = "check the grid's log"
    return f"The Selenium Grid at {url} gave no session: {first}. That means {advice}."


def no_webmcp_message(session: GridSession) -> str:
    """What it means that a grid's Chromium lacks WebMCP, and the two ways to fix it."""
    from .browser import WEBMCP_FEATURES

    return (
        f"The browser of {session.name} has no WebMCP: its pages lack document.modelContext, "
        f"though the session asked for --enable-features={WEBMCP_FEATURES} in "
        "goog:chromeOptions.args. The node dropped or replaced those arguments, or its Chromium "
        "is older than 146. Let the node keep the session's arguments (a node whose stereotype "
        "or browser wrapper rewrites them drops them), or give its Chromium the switch itself "
        f"(docker-selenium: SE_BROWSER_ARGS_WEBMCP=--enable-features={WEBMCP_FEATURES}), on a "
        "node image with Chromium 146 or newer."
    )


# -- the watch -----------------------------------------------------------------------------
class SessionWatch:
    """Asks the grid every `every` seconds whether a session is still there, in a thread of its
    own, and calls on_gone(why) once when it is not (the grid said so, or twice nothing clear
    came back). Its questions are WebDriver commands, so an idle session is not ended by the
    grid's inactivity timeout while the watch runs."""

    def __init__(
        self,
        grid: SeleniumGrid,
        session: GridSession,
        on_gone: Callable[[str], None],
        *,
        every: float = WATCH_EVERY,
    ) -> None:
        self.grid = grid
        self.session = session
        self.on_gone = on_gone
        self.every = every
        self.gone: str | None = None  # why the session is gone, once it is
        self.ended = threading.Event()  # set with gone
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="webmcp-grid-watch", daemon=True)

    def start(self) -> SessionWatch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        misses = 0
        while not self._stop.wait(self.every):
            state, why = self.grid.ask(self.session.id)
            misses = 0 if state == "here" else misses + 1
            if self._stop.is_set() or not (state == "gone" or misses >= _MISSES):
                continue
            self.gone = why
            self.ended.set()
            self._stop.set()
            with contextlib.suppress(Exception):
                self.on_gone(why)


# -- the async side ------------------------------------------------------------------------
async def _threaded(work: Callable[[], T]) -> T:
    """work() in a daemon thread (an abandoned wait never holds up the interpreter's exit)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(value)

    def run() -> None:
        try:
            value, error = work(), None
        except BaseException as exc:  # handed to the waiting task
            value, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=run, name="webmcp-grid", daemon=True).start()
    return await done


@dataclass
class GridBrowser:
    """A grid session's Chromium, connected; `close()` ends the session too."""

    browser: Browser
    session: GridSession
    grid: SeleniumGrid
    watch: SessionWatch
    webmcp: bool | None = None  # whether its pages get document.modelContext (None: not asked)

    async def close(self) -> None:
        """Disconnect and end the session (each bounded); never raises."""
        self.watch.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.browser.close(), 10)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(_threaded(lambda: self.grid.end_session(self.session.id)), 15)


async def open_session(
    playwright: Playwright,
    grid: SeleniumGrid,
    *,
    timeout: float = SESSION_WAIT,
    probe: bool = False,
) -> GridBrowser:
    """A new session of grid, connected over its CDP proxy and watched (its browser closes when
    the grid loses it). With probe, `webmcp` says whether its pages get document.modelContext.

    Raises BrowserNotFoundError, naming the grid and what to do, when there is none. Cancelled
    while the grid queues the request, it abandons the request."""
    held: list[http.client.HTTPConnection] = []
    abandoned = threading.Event()
    try:
        session = await _threaded(
            lambda: grid.new_session(timeout=timeout, held=held, abandoned=abandoned)
        )
    except asyncio.CancelledError:
        abandoned.set()
        for connection in held:
            with contextlib.suppress(OSError, AttributeError):
                connection.sock.shutdown(socket.SHUT_RDWR)
        raise
    try:
        browser = await playwright.chromium.connect_over_cdp(
            session.cdp_url, headers=grid.headers, timeout=30_000
        )
    except BaseException as exc:
        await asyncio.shield(_threaded(lambda: grid.end_session(session.id)))
        if not isinstance(exc, Exception):
            raise
        raise _no_cdp(session, exc) from exc
    loop = asyncio.get_running_loop()

    def gone(_why: str) -> None:  # (in the watch's thread)
        loop.call_soon_threadsafe(lambda: asyncio.ensure_future(_disconnect(browser)))

    opened = GridBrowser(browser, session, grid, SessionWatch(grid, session, gone).start())
    if probe:
        from .browser import browser_has_webmcp

        try:
            opened.webmcp = await browser_has_webmcp(browser)
        except BaseException:
            await asyncio.shield(opened.close())
            raise
    return opened


def _no_cdp(session: GridSession, exc: Exception) -> BrowserNotFoundError:
    said = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return BrowserNotFoundError(
        f"Could not connect to {session.name} at {session.cdp_url}: {safe_text(said)[:300]}. "
        "This machine must reach the node's CDP address through the grid: set the node's grid "
        "URL (--grid-url; docker-selenium: SE_NODE_GRID_URL) to the address used here."
    )


def open_sync(browser_type: Any, grid: SeleniumGrid) -> tuple[Any, SessionWatch]:
    """For Playwright's sync API (the pytest plugin): a new session of grid, its browser
    connected with browser_type (sync), and its watch (`gone` says why, once the grid lost it:
    a sync browser cannot be closed from the watch's thread). Closing the browser ends the
    session. Raises BrowserNotFoundError, naming the grid and what to do, when there is none."""
    session = grid.new_session()
    try:
        browser = browser_type.connect_over_cdp(
            session.cdp_url, headers=grid.headers, timeout=30_000
        )
    except Exception as exc:
        grid.end_session(session.id)
        raise _no_cdp(session, exc) from exc
    watch = SessionWatch(grid, session, lambda _why: None).start()

    def ended(_browser: Any) -> None:
        watch.stop()
        grid.end_session(session.id)

    browser.on("disconnected", ended)
    return browser, watch


async def _disconnect(browser: Browser) -> None:
    """Close a browser whose session is gone: Playwright then reports it disconnected."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(browser.close(), 10)


class GridSessions:
    """The sessions of a check: `count` asked for at once and used as the grid gives them (it
    queues and places them; the harness picks no node), and one the grid loses replaced, each
    at most once. What the checker takes as its browser source.

    `first()` waits for one (or raises why none came); `arrivals()` yields the others, and
    replacements, as they come (None for a request that ended without a session); `aclose()`
    gives up the requests still queued and ends every session."""

    def __init__(
        self, playwright: Playwright, grid: SeleniumGrid, count: int, *, probe: bool = True
    ) -> None:
        self.playwright = playwright
        self.grid = grid
        self.count = max(1, count)
        self.probe = probe
        self.webmcp: bool | None = None  # the first session's: every later one must match it
        self.opened: list[GridBrowser] = []
        self.failures: list[str] = []  # why sessions did not come, or were not used
        self._asking: set[asyncio.Task[None]] = set()
        self._arrived: asyncio.Queue[GridBrowser | None] = asyncio.Queue()
        self._replaced = 0
        self._closing = False

    @property
    def pending(self) -> bool:
        """Whether a session may still come (a request is queued, or one came and waits)."""
        return bool(self._asking) or not self._arrived.empty()

    def _ask(self) -> None:
        task = asyncio.ensure_future(self._one())
        self._asking.add(task)

    async def _one(self) -> None:
        opened: GridBrowser | None = None
        try:
            opened = await open_session(self.playwright, self.grid, probe=self.probe)
            self.opened.append(opened)
        except Exception as exc:
            self.failures.append(getattr(exc, "message", None) or str(exc))
        finally:
            task = asyncio.current_task()
            if task is not None:
                self._asking.discard(task)
        self._arrived.put_nowait(opened)

    async def first(self) -> GridBrowser:
        """The first session the grid gives (all `count` are asked for now); raises the first
        failure when none comes."""
        for _ in range(self.count):
            self._ask()
        while True:
            opened = await self._arrived.get()
            if opened is not None:
                self.webmcp = opened.webmcp
                return opened
            if not self.pending:
                raise BrowserNotFoundError(self.failures[0])

    async def arrivals(self) -> AsyncIterator[tuple[Browser, str] | None]:
        """The sessions after the first, as they come (None: a request ended without one, or a
        session was not used); ends only when cancelled."""
        while True:
            opened = await self._arrived.get()
            if opened is not None and self.webmcp and opened.webmcp is False:
                self.failures.append(no_webmcp_message(opened.session) + " It was not used.")
                await opened.close()
                opened = None
            yield None if opened is None else (opened.browser, opened.session.name)

    def lost(self, name: str) -> None:
        """The session called name is gone: ask for another (each session replaced at most
        once, `count` replacements in all)."""
        if self._replaced < self.count and not self._closing:  # (closing: its own doing)
            self._replaced += 1
            self._ask()

    def node_of(self, browser: Browser) -> str | None:
        """The node of the session whose browser this is (tests kill it)."""
        return next((o.session.node for o in self.opened if o.browser is browser), None)

    async def aclose(self) -> None:
        """Give up the requests still queued, and end every session; never raises."""
        self._closing = True
        for task in list(self._asking):
            task.cancel()
        await asyncio.gather(*self._asking, return_exceptions=True)
        await asyncio.gather(*(o.close() for o in self.opened), return_exceptions=True)
