"""The check runner: visits pages (crawling if asked), runs every check family, builds a report.

One browser, or several (a grid: the pages are spread over them, and a browser that disconnects
mid-run has its pages checked again on another); `workers` pages at a time per browser, each in
its own browser context. Everything that waits on
the page is bounded, so a hostile or broken page (one that never finishes loading, hangs a tool,
navigates away mid-call, crashes its renderer, registers 10,000 tools) ends as findings, never as
a hang or a crash of the checker.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import itertools
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urldefrag, urlsplit

from ..core.errors import ToolErrorCode
from ..core.records import CallRecord, Tool
from ..core.schema import validate_args
from ..session import BackendChoice, WebMCPSession
from ..session.probe import probe as probe_webmcp
from .behaviour import (
    BEHAVIOUR_CHECKS,
    GONE_EVENTS,
    Purpose,
    answered_normally,
    check_call,
)
from .config import PageConfig
from .findings import Collector, Finding, Severity, excerpt
from .forms import (
    BROWSER_ISSUE_TYPES,
    EXTRACT_FORM_JS,
    FORM_CHECKS,
    FORM_FUNCTION_DECLARATION,
    check_browser_form_issues,
    check_form,
)
from .inputs import invalid_input, valid_input
from .metadata import DISCOVERY_CHECKS, check_discovery, check_tool_metadata, frame_of
from .pageerrors import (
    FRAMES_WITHOUT_TOOLS_JS,
    WATCH_REGISTRATIONS_JS,
    Attempt,
    PageError,
    check_page_errors,
)
from .reports import CheckReport, PageResult
from .safety import check_result, check_tool_safety
from .spool import PageSpool

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Frame, Page, Request

__all__ = [
    "BEHAVIOUR_CHECKS",
    "CallMode",
    "CheckOptions",
    "Checker",
    "Progress",
    "check_urls",
    "normalise_url",
]

CallMode = Literal["readonly", "all", "none"]
_CALL_CHECKS = (*BEHAVIOUR_CHECKS, "safety.output-injection")


def _call_checks(tool: Tool) -> tuple[str, ...]:
    """The checks calling tool runs (a form may navigate; only a form has a result page)."""
    left_out = "behaviour.no-navigation" if tool.declarative else "behaviour.form-result-data"
    return tuple(c for c in _CALL_CHECKS if c != left_out)


_PAGE_CHECKS = ("discovery.page-load", "discovery.model-context", "discovery.secure-context")

_PROBE_WAIT = 5.0  # seconds a quick look into the page may take, at least (see Checker.wait)
_CLOSE_WAIT = 10.0
_MAX_LINKS = 2_000
_MAX_URL = 2_048
_MAX_SCREENSHOT = 2_000_000  # bytes; a larger screenshot is dropped
_MAX_FORMS = 200
_FORMS_AT_ONCE = 8  # declarative forms read at once
_MAX_ERRORS = 500  # uncaught page errors kept per page
_LATE_ANSWER_WAIT = 3.0  # seconds to wait for the answer of a tool removed mid-call
_MAX_EXPLORED = 200  # tools known on a page at most, those found by exploring included
_MAX_HANGS = 3  # tools that did not answer before the rest of a page is skipped
_SETTLE_CAP = 2.0  # seconds at most spent waiting for the tool list to stop changing
# Static checks run on the event loop, a few tools at a time: in a thread they would hold the GIL
# against the loop, and other pages' calls would time out while it waits.
_CHUNK = 20
_LOST_WAIT = 1.0  # seconds a failed page waits for its browser's disconnected event (grid)
_NAVIGATION_GRACE = 0.5  # seconds for a navigation seen in the page to reach the checker
_NOT_PAGES = re.compile(  # links to files, not pages: the crawl skips them
    r"\.(?:png|jpe?g|gif|svg|webp|ico|bmp|css|m?js|json|xml|txt|pdf|zip|t?gz|bz2|xz|7z|rar|tar|"
    r"mp3|mp4|m4a|webm|ogg|wav|avi|mov|woff2?|ttf|otf|eot|exe|dmg|apk|msi|csv|docx?|xlsx?|pptx?|"
    r"wasm)$",
    re.IGNORECASE,
)

_PROBE_JS = """(linksOnly) => {
  const MAX_LINKS = @MAX_LINKS@, MAX_URL = @MAX_URL@;
  const safe = (f, d) => { try { return f(); } catch (e) { return d; } };
  const links = [];
  const anchors = safe(() => Array.prototype.slice.call(
    document.querySelectorAll("a[href]"), 0, MAX_LINKS), []);
  for (const a of anchors) {
    const href = safe(() => new URL(a.getAttribute("href"), document.baseURI).href, null);
    if (typeof href === "string") links.push(href.slice(0, MAX_URL));
  }
  if (linksOnly) return { links };
  // GET forms lead to pages too: their action, with the values the form holds now.
  const forms = safe(() => Array.prototype.slice.call(document.forms, 0, 200), []);
  for (const f of forms) {
    const href = safe(() => {
      if ((f.getAttribute("method") || "get").toLowerCase() !== "get") return null;
      const target = new URL(f.getAttribute("action") || document.URL, document.baseURI);
      const query = new URLSearchParams();
      for (const [k, v] of new FormData(f)) if (typeof v === "string") query.append(k, v);
      target.search = query.toString();
      target.hash = "";
      return target.href;
    }, null);
    if (typeof href === "string") links.push(href.slice(0, MAX_URL));
  }
  return {
    modelContext: safe(() => !!document.modelContext, false),
    api: safe(() => typeof window.ModelContext === "function", false),
    scripts: safe(() => document.scripts.length, 0),
    toolForms: safe(() => document.querySelectorAll("form[toolname], form[tooldescription]").length, 0),
    secure: safe(() => window.isSecureContext === true, false),
    title: safe(() => String(document.title || "").slice(0, 300), ""),
    links,
  };
}""".replace("@MAX_LINKS@", str(_MAX_LINKS)).replace("@MAX_URL@", str(_MAX_URL))

# In every document: count the navigations to another document it starts (Navigation API).
_COUNT_NAVIGATIONS_JS = """(() => {
  try {
    if (!window.navigation || window.__webmcpCheckNavigations) return;
    const seen = { count: 0 };
    Object.defineProperty(window, "__webmcpCheckNavigations", { value: seen });
    window.navigation.addEventListener("navigate", (event) => {
      if (!event.destination || !event.destination.sameDocument) seen.count += 1;
    });
  } catch (e) {}
})();"""
# After the timers a tool's answer may have set (setTimeout 0): how many such navigations began.
_STARTED_JS = """() => new Promise((resolve) => setTimeout(() => {
  const seen = window.__webmcpCheckNavigations;
  resolve(seen && typeof seen.count === "number" ? seen.count : 0);
}, 30))"""

# Find a declarative form by its toolname in a frame, and describe it (EXTRACT_FORM_JS).
_FIND_FORM_JS = (
    "(name) => { const form = Array.prototype.find.call("
    "document.querySelectorAll('form[toolname]'), (f) => f.getAttribute('toolname') === name);"
    f" return form ? ({EXTRACT_FORM_JS})(form) : null; }}"
)


@dataclass
class CheckOptions:
    """How a check run behaves."""

    timeout: float = 30.0  # seconds each tool call may take (and a page load, unless below)
    load_timeout: float | None = None  # seconds a page load may take (None: timeout)
    call: CallMode = "readonly"  # which tools the behaviour checks call
    crawl: int = 0  # follow same-origin links this many steps from each URL
    workers: int = 1  # pages checked at once, each in its own browser context
    strict: bool = False  # warnings fail the run too
    max_pages: int = 200  # pages visited at most, crawl included
    max_per_path: int | None = None  # crawled pages per path at most (differing in the query)
    max_called_tools: int = 50  # tools called per page at most
    backend: BackendChoice = "auto"
    screenshots: bool = False  # PNG of each page, for the HTML report
    settle: float = 0.2  # seconds the tool list must stay unchanged after the page loads
    allow_no_tools: bool = False  # a page the user gave may have no tools (else: an error)
    explore: int = 1  # tools a call makes appear are checked too, this many calls deep
    pages: PageConfig | None = None  # per-URL rules (check --config): allow no tools, ignore
    viewport: tuple[int, int] = (1024, 720)

    @property
    def page_timeout(self) -> float:
        return self.load_timeout if self.load_timeout is not None else self.timeout

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["viewport"] = list(self.viewport)
        return data


@dataclass(frozen=True)
class Progress:
    """What the runner is doing: a page started or finished, with the counts so far."""

    event: Literal["start", "done"]
    url: str
    done: int
    total: int
    page: PageResult | None = None
    errors: int = 0
    warnings: int = 0


ProgressCallback = Callable[[Progress], None]
ContextHook = Callable[["BrowserContext"], Awaitable[None]]


def normalise_url(url: str, *, keep_fragment: bool = False) -> str:
    """url as a page key: an empty path written as "/", and without its fragment unless the
    fragment is a route (`#/…`, `#!…`: a single-page app's page) or keep_fragment is set."""
    bare, fragment = urldefrag(url.strip())
    parts = urlsplit(bare)
    if not parts.path and parts.netloc:
        bare = parts._replace(path="/").geturl()
    if fragment and (keep_fragment or fragment[:1] in ("/", "!")):
        bare += "#" + fragment
    return bare


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _is_page_link(url: str, origin: tuple[str, str]) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or _origin(url) != origin:
        return False
    return _NOT_PAGES.search(parts.path) is None


def _with_examples(schema: Any, args: dict[str, Any]) -> dict[str, Any]:
    """args with each property's first `examples` (or `default`) value, where the schema allows."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return args
    better = dict(args)
    for key, sub in schema["properties"].items():
        if not isinstance(sub, dict) or key not in better:
            continue
        examples = sub.get("examples")
        candidates = list(examples[:3]) if isinstance(examples, list) else []
        if "default" in sub:
            candidates.append(sub["default"])
        for candidate in candidates:
            trial = {**better, key: candidate}
            if validate_args(schema, trial) is None:
                better = trial
                break
    return better


def _cancelled_from_outside() -> bool:
    """Whether the running task is being cancelled (not just hit by a stray CancelledError).

    Playwright can end a call with CancelledError when its page or context goes away; that is
    the page's doing. Before Python 3.11 the two cannot be told apart: treat it as a real cancel.
    """
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return cancelling is None or bool(cancelling())


async def _bounded(awaitable: Awaitable[Any], limit: float) -> Any:
    """awaitable's value, or None if it failed or took longer than limit seconds."""
    try:
        return await asyncio.wait_for(awaitable, max(limit, 0.05))
    except asyncio.CancelledError:
        if _cancelled_from_outside():
            raise
        return None
    except Exception:  # asyncio.TimeoutError included
        return None


class _PageGone(Exception):
    """The page can no longer be used (and could not be opened again)."""


@dataclass
class _Visit:
    """One page being checked: its browser context, page, session, and what was found."""

    url: str
    depth: int
    seed: bool
    col: Collector
    result: PageResult
    context: BrowserContext | None = None
    page: Page | None = None
    session: WebMCPSession | None = None
    navigations: int = 0  # documents the main frame started loading so far
    settled: int = 0  # navigations as of the end of the last call (and any reload after it)
    last_call: tuple[Tool, CallRecord] | None = None
    moved: asyncio.Event = field(default_factory=asyncio.Event)  # set by each navigation
    records: list[CallRecord] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    hangs: int = 0
    followed: int = 0  # links already handed to the crawl
    script_free: bool = False  # the page has no <script>: its forms are all the browser's
    errors: list[PageError] = field(default_factory=list)  # uncaught, in any frame
    during: tuple[str, str] | None = None  # (call #N of TOOL, TOOL) while a call runs
    led_by: dict[tuple[str, str], str] = field(default_factory=dict)  # explored tool -> call
    reported: set[tuple[str, str]] = field(default_factory=set)
    ignored: list[Finding] = field(default_factory=list)  # taken out by options.pages
    browser: Browser | None = None  # where the page is checked (None: the checker's first)


def _went(record: CallRecord) -> bool:
    """Whether the page went away (crashed, closed, its browser lost) during record's call."""
    return any(e.type in GONE_EVENTS for e in record.events)


def _may_be_lost(visit: _Visit) -> bool:
    """Whether visit's failure may be its browser going away: then wait to hear of it."""
    return bool(visit.result.error) or any(_went(r) for r in visit.records)


@dataclass
class _Node:
    """One browser of a grid run, and whether it disconnected."""

    browser: Browser
    name: str
    dead: asyncio.Event = field(default_factory=asyncio.Event)


class Checker:
    """Checks pages in one browser (or spread over several) and returns a CheckReport.

    With several browsers, `options.workers` pages run at once in each; names (their endpoints)
    say in the report which one disconnected. prepare_context is awaited with each new browser
    context before its page opens (to add cookies, routes or bindings). on_progress hears when
    pages start and finish. With stream, each page goes to disk as soon as it and the pages
    before it are done (CheckReport.spool), so memory stays flat however many pages there are.
    """

    def __init__(
        self,
        browser: Browser | Sequence[Browser],
        options: CheckOptions | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        prepare_context: ContextHook | None = None,
        names: Sequence[str] | None = None,
        stream: bool = False,
    ) -> None:
        browsers = list(browser) if isinstance(browser, Sequence) else [browser]
        if not browsers:
            raise ValueError("Checker needs at least one browser")
        self.browser = browsers[0]
        self.browsers = browsers
        self.names = list(names or ())
        self._retried: list[dict[str, str]] = []
        self._nodes: list[_Node] = []
        self.options = options or CheckOptions()
        self.on_progress = on_progress
        self.prepare_context = prepare_context
        self._ids = itertools.count(1)
        self._seen: set[str] = set()
        self._order: list[str] = []
        self._done: dict[str, _Visit] = {}  # pages checked, until they are in the report
        self._finished = 0  # pages checked so far
        self._stream = stream
        self._report: CheckReport | None = None
        self._not_visited: set[str] = set()  # pages over max_pages
        self._per_path: dict[tuple[str, str, str], int] = {}
        self._queue: asyncio.Queue[tuple[str, int, bool]] | None = None

    @property
    def wait(self) -> float:
        """Seconds a quick look into the page may take (longer with a longer page timeout)."""
        return min(max(_PROBE_WAIT, self.options.page_timeout / 2), 15.0)

    # -- the run ---------------------------------------------------------------------------
    async def run(self, urls: Sequence[str]) -> CheckReport:
        """Check urls (and, with crawl, the same-origin pages they link to)."""
        report = CheckReport(started=time.time(), options=self.options.to_dict())
        report.spool = PageSpool() if self._stream else None
        report.options["urls"] = list(urls)
        self._report = report
        self._queue = asyncio.Queue()
        for url in urls:
            self._enqueue(url, 0, seed=True)
        if len(self.browsers) == 1:
            workers = [
                asyncio.ensure_future(self._worker()) for _ in range(max(1, self.options.workers))
            ]
        else:
            workers = self._grid_workers()
        try:
            await self._queue.join()
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
        self._to_report(final=True)
        if self._not_visited:
            report.options["pagesNotVisited"] = len(self._not_visited)
        if len(self.browsers) > 1:
            report.options["browsers"] = len(self.browsers)
        if self._retried:
            report.options["retried"] = list(self._retried)
        report.ended = time.time()
        return report

    def _to_report(self, *, final: bool = False) -> None:
        """The checked pages into the report, in the order they were found (streaming: each
        as soon as the pages before it are done; else all at the end)."""
        report = self._report
        if report is None or not (final or self._stream):
            return
        while len(report.pages) + len(report.spool or ()) < len(self._order):
            key = self._order[len(report.pages) + len(report.spool or ())]
            visit = self._done.pop(key, None)
            if visit is None:
                if not final:
                    return
                # The checker failed on it (a bug): say so rather than drop it.
                visit = _Visit(key, 0, False, Collector(key), PageResult(url=key, calls=[]))
                visit.col.add(
                    "discovery.page-load",
                    "This page could not be checked (an error in the checker). Check it by hand, "
                    "or report this to webmcp-harness.",
                )
            report.add_page(visit.result, visit.col, visit.records, visit.ignored)

    def _enqueue(self, url: str, depth: int, *, seed: bool = False) -> None:
        key = normalise_url(url, keep_fragment=seed)
        if key in self._seen:
            return
        parts = urlsplit(key)
        path = (parts.scheme, parts.netloc.lower(), parts.path)
        limit = self.options.max_per_path
        if not seed and limit is not None and self._per_path.get(path, 0) >= limit:
            return
        if len(self._seen) >= self.options.max_pages:
            if len(self._not_visited) < 100_000:  # (a count, not a list, past that)
                self._not_visited.add(key)
            return
        self._per_path[path] = self._per_path.get(path, 0) + 1
        self._seen.add(key)
        self._order.append(key)
        assert self._queue is not None
        self._queue.put_nowait((key, depth, seed))

    async def _worker(self, node: _Node | None = None) -> None:
        """Check pages from the queue (in node's browser, until it disconnects)."""
        assert self._queue is not None
        dead = asyncio.ensure_future(node.dead.wait()) if node is not None else None
        try:
            while True:
                url, depth, seed = await self._queue.get()
                try:
                    if not await self._take(url, depth, seed, node, dead):
                        return
                except asyncio.CancelledError:
                    if _cancelled_from_outside():
                        raise
                except Exception:  # run() reports the page as not checked
                    pass
                finally:
                    self._queue.task_done()
        finally:
            if dead is not None:
                dead.cancel()

    async def _take(
        self, url: str, depth: int, seed: bool, node: _Node | None, dead: asyncio.Future[Any] | None
    ) -> bool:
        """Check one page; False when node's browser is gone (the page then goes back)."""
        if node is None or dead is None:
            self._progress("start", url)
            visit = await self.check_page(url, depth=depth, seed=seed)
        else:
            if node.dead.is_set():
                self._again(url, depth, seed, node, started=False)
                return False
            self._progress("start", url)
            page = asyncio.ensure_future(
                self.check_page(url, depth=depth, seed=seed, browser=node.browser)
            )
            await asyncio.wait({page, dead}, return_when=asyncio.FIRST_COMPLETED)
            if page.done() and _may_be_lost(page.result()) and not node.dead.is_set():
                # Playwright closes a lost browser's pages first, the browser a task later:
                # a page that failed, or whose call saw its page crash or close, may have
                # failed for that.
                await asyncio.wait({dead}, timeout=_LOST_WAIT)
            if not node.browser.is_connected():
                self._lost(node)
            if node.dead.is_set():  # its findings are those of a browser going away
                page.cancel()
                await asyncio.gather(page, return_exceptions=True)
                self._again(url, depth, seed, node, started=True)
                return False
            visit = page.result()
        self._done[url] = visit
        self._finished += 1
        self._follow(visit)  # the links found since the probe (a form's result page)
        self._progress("done", url, visit)
        self._to_report()
        return True

    # -- a grid: several browsers --------------------------------------------------------
    def _grid_workers(self) -> list[asyncio.Task[None]]:
        """options.workers workers per browser, all taking pages from the one queue."""
        workers: list[asyncio.Task[None]] = []
        for index, browser in enumerate(self.browsers):
            name = self.names[index] if index < len(self.names) else f"browser {index + 1}"
            node = _Node(browser, name)
            self._nodes.append(node)
            browser.on("disconnected", functools.partial(self._lost_browser, node))
            if not browser.is_connected():
                self._lost(node)
            for _ in range(max(1, self.options.workers)):
                workers.append(asyncio.create_task(self._worker(node)))
        return workers

    def _lost_browser(self, node: _Node, _browser: Browser) -> None:
        self._lost(node)

    def _lost(self, node: _Node) -> None:
        """node's browser disconnected: when it was the last, the queued pages cannot be checked."""
        node.dead.set()
        if any(not n.dead.is_set() for n in self._nodes) or self._queue is None:
            return
        while not self._queue.empty():
            url, depth, seed = self._queue.get_nowait()
            self._again(url, depth, seed, node, started=False)
            self._queue.task_done()

    def _again(self, url: str, depth: int, seed: bool, node: _Node, *, started: bool) -> None:
        """Check url on another browser, or, with none left, report it as not checked."""
        if started:
            self._retried.append(
                {"url": url, "reason": f"{node.name} disconnected while checking it"}
            )
        if any(not n.dead.is_set() for n in self._nodes):
            assert self._queue is not None
            self._queue.put_nowait((url, depth, seed))
            return
        visit = _Visit(url, depth, seed, Collector(url), PageResult(url=url, calls=[]))
        message = f"This page could not be checked: every browser disconnected ({node.name} last)."
        visit.col.add("discovery.page-load", message)
        visit.result.error = message
        self._done[url] = visit
        self._finished += 1
        self._progress("done", url, visit)
        self._to_report()

    def _follow(self, visit: _Visit) -> None:
        """Queue the same-origin pages visit links to (as soon as they are known, so the next
        crawl level loads while this page's tools are still being called)."""
        if visit.depth >= self.options.crawl or self._queue is None:
            return
        origin = _origin(visit.url)
        for link in visit.links[visit.followed :]:
            if _is_page_link(link, origin):
                self._enqueue(link, visit.depth + 1)
        visit.followed = len(visit.links)

    def _progress(
        self, event: Literal["start", "done"], url: str, visit: _Visit | None = None
    ) -> None:
        if self.on_progress is None:
            return
        errors = warnings = 0
        if visit is not None:
            errors = sum(1 for f in visit.col.findings if f.severity is Severity.ERROR)
            warnings = sum(1 for f in visit.col.findings if f.severity is Severity.WARNING)
        with contextlib.suppress(Exception):
            self.on_progress(
                Progress(
                    event,
                    url,
                    self._finished,
                    len(self._order),
                    visit.result if visit is not None else None,
                    errors,
                    warnings,
                )
            )

    # -- one page --------------------------------------------------------------------------
    async def check_page(
        self, url: str, *, depth: int = 0, seed: bool = True, browser: Browser | None = None
    ) -> _Visit:
        """Every check on one page (in browser, else the first). Never raises for the page."""
        started = time.monotonic()
        visit = _Visit(url, depth, seed, Collector(url), PageResult(url=url, calls=[]))
        visit.browser = browser
        try:
            await self._check_page(visit)
            await self._check_errors(visit)
        except (Exception, asyncio.CancelledError) as exc:  # trouble must not end the run
            if isinstance(exc, asyncio.CancelledError) and _cancelled_from_outside():
                raise
            first = str(exc).splitlines()[0] if str(exc) else ""
            message = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
            visit.col.add(
                "discovery.page-load",
                f"The check of this page stopped early: {excerpt(message, 300)}. The findings "
                "before that stand; check the page by hand, or report this to webmcp-harness.",
            )
            visit.result.error = visit.result.error or message[:1_000]
        finally:
            await self._close(visit)
            visit.result.elapsed = time.monotonic() - started
            visit.result.calls = [r.id for r in visit.records]
            if self.options.pages is not None:
                visit.ignored = self.options.pages.ignore(visit.col)
        return visit

    async def _check_page(self, visit: _Visit) -> None:
        col = visit.col
        col.ran_all(_PAGE_CHECKS)
        problem, fatal = await self._open(visit)
        visit.settled = visit.navigations
        if problem:
            col.add("discovery.page-load", problem)
            visit.result.error = problem
        if fatal:
            for check_id in (*_PAGE_CHECKS[1:], *DISCOVERY_CHECKS):
                col.skip(check_id, "the page did not load")
            return
        landed = visit.page.url if visit.page is not None else visit.url
        if _origin(landed) != _origin(visit.url):
            why = (
                f"the page went to another origin ({excerpt(landed, 120)}): only "
                f"{_origin(visit.url)[0]}://{_origin(visit.url)[1]} is checked"
            )
            visit.result.error = f"skipped: {why}"
            col.skip_instead((*_PAGE_CHECKS, *DISCOVERY_CHECKS), why)
            return
        probe = await self._probe(visit)
        if probe is None:
            col.findings[:] = [f for f in col.findings if f.check != "discovery.page-load"]
            message = (
                f"The page did not answer a simple script within {self.wait:g} s (its main "
                "thread is busy or it crashed), so nothing else could be checked. Keep the main "
                "thread free: move long work off it or split it up."
            )
            _unresponsive(col, visit, message)
            return
        visit.result.title = probe["title"]
        visit.links, visit.followed = probe["links"], 0  # (those already followed: seen)
        self._follow(visit)
        await self._screenshot(visit)
        assert visit.session is not None
        listed = await self._tools(visit, settle=self.options.settle or None)  # (as _settle)
        if listed is None:
            message = (
                f"The page's tools could not be listed within {self.wait:g} s (the page stopped "
                "responding), so nothing else could be checked."
            )
            _unresponsive(col, visit, message)
            return
        tools = visit.result.tools = listed
        secure, has_context = probe["secure"], probe["modelContext"]
        if not secure:
            col.add(
                "discovery.secure-context",
                "The page is not a secure context, so browsers do not give it "
                "document.modelContext and agents cannot see its tools. Serve it over https (or "
                "http on localhost while developing).",
            )
        visit.script_free = probe["scripts"] == 0
        if not has_context and not tools:
            if secure and not probe["api"]:
                col.add(
                    "discovery.model-context",
                    "This browser has no WebMCP (no ModelContext interface: the WebMCP feature "
                    "flag is off), so the page cannot register tools. Run Chromium 146+ with "
                    "--enable-features=WebMCP, or load a polyfill before your tool scripts.",
                )
            elif secure:
                col.add(
                    "discovery.model-context",
                    "document.modelContext is not there, so the page cannot register tools. Use a "
                    "browser with WebMCP (Chromium 146+ with the WebMCP feature), or load a "
                    "polyfill before your tool scripts; make sure no script hides it.",
                )
            else:
                col.skip("discovery.model-context", "not a secure context")
            for check_id in DISCOVERY_CHECKS:
                col.skip(check_id, "no document.modelContext")
            return
        crashed = [e for e in visit.errors if e.during is None]
        why_none = None
        if crashed:
            first = crashed[0]
            why_none = (
                f"its script threw while loading ({excerpt(f'{first.name}: {first.message}', 120)})"
                ", which may have stopped it before it registered them"
            )
        check_discovery(
            tools,
            page=visit.url,
            out=col,
            expect_tools=visit.seed and not self._allows_no_tools(visit.url),
            why_none=why_none,
        )
        if not tools:
            return
        static = await self._static_checks(visit, tools, tool_forms=probe["toolForms"] > 0)
        for finding in static.findings:  # (so that exploring reports none of them again)
            visit.reported.add(_key(finding))
        col.extend(static)
        await self._check_behaviour(visit, tools)

    def _allows_no_tools(self, url: str) -> bool:
        pages = self.options.pages
        return self.options.allow_no_tools or (pages is not None and pages.allows_no_tools(url))

    async def _static_checks(
        self, visit: _Visit, tools: list[Tool], *, tool_forms: bool, explored: bool = False
    ) -> Collector:
        """The checks that call nothing: metadata, safety, and declarative forms (with Chromium's
        own issues with them when there are tool forms); explored: tools a call made appear."""
        static = Collector(visit.url)
        for index, tool in enumerate(tools):
            check_tool_metadata(tool, page=visit.url, out=static)
            check_tool_safety(tool, page=visit.url, out=static)
            if index % _CHUNK == _CHUNK - 1:
                await asyncio.sleep(0)  # let other pages' events and timers through
        forms = Collector(visit.url)
        await self._check_forms(visit, tools, forms)
        if tool_forms:
            check_browser_form_issues(await self._form_issues(visit), page=visit.url, out=forms)
        elif not explored:
            forms.skip("form.browser-issues", "no <form toolname> or <form tooldescription>")
        # A form control without a description is one problem: report it where it is fixed
        # (the control's label), not also as an undescribed schema property.
        by_form = {(f.tool, f.frame) for f in forms.findings if f.check == "form.params-described"}
        static.findings[:] = [
            f
            for f in static.findings
            if f.check != "metadata.params-described" or (f.tool, f.frame) not in by_form
        ]
        static.extend(forms)
        return static

    async def _check_errors(self, visit: _Visit) -> None:
        """The page's uncaught errors (load and calls) and refused registrations as findings."""
        page, attempts, without = visit.page, [], []
        # Registration attempts and frames only explain errors: none thrown, nothing to read.
        if visit.errors and page is not None and not page.is_closed():
            for frame in page.frames[:50]:
                found = await _bounded(
                    frame.evaluate("() => window.__webmcpCheckAttempts || []"), self.wait
                )
                where = None if frame == page.main_frame else frame.url
                for item in found[:500] if isinstance(found, list) else []:
                    attempt = Attempt.from_js(item, where)
                    if attempt is not None:
                        attempts.append(attempt)
            listed = await _bounded(page.evaluate(FRAMES_WITHOUT_TOOLS_JS), self.wait)
            without = [x for x in listed if isinstance(x, dict)] if isinstance(listed, list) else []
        check_page_errors(
            visit.errors, attempts, without, visit.result.tools, page=visit.url, out=visit.col
        )

    # -- opening, probing, closing ---------------------------------------------------------
    async def _open(self, visit: _Visit) -> tuple[str | None, bool]:
        """Open the page in a new context: (problem to report or None, whether it is fatal)."""
        await self._close(visit)
        try:
            await asyncio.wait_for(self._new_page(visit), self.options.page_timeout + self.wait)
        except asyncio.TimeoutError:
            return (
                f"The browser did not open a page for it within "
                f"{self.options.page_timeout + self.wait:g} s (it is overloaded or stuck).",
                True,
            )
        except Exception as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return f"The browser could not open a page for it: {excerpt(message, 200)}.", True
        return await self._goto(visit)

    async def _new_page(self, visit: _Visit) -> None:
        """A new context, its page, and a session attached before anything loads."""
        options = self.options
        width, height = options.viewport
        context = await (visit.browser or self.browser).new_context(
            viewport={"width": width, "height": height}
        )
        visit.context = context
        context.set_default_timeout(options.page_timeout * 1000)
        await context.add_init_script(f"{_COUNT_NAVIGATIONS_JS}\n;{WATCH_REGISTRATIONS_JS}")
        if self.prepare_context is not None:
            await self.prepare_context(context)
        page = await context.new_page()
        visit.page = page

        def requested(request: Request) -> None:  # the main frame starts loading a new document
            with contextlib.suppress(Exception):
                if request.is_navigation_request() and request.frame.parent_frame is None:
                    visit.navigations += 1
                    visit.moved.set()

        page.on("request", requested)

        def thrown(error: Any) -> None:  # uncaught, in any frame (out-of-process ones too)
            if len(visit.errors) >= _MAX_ERRORS:
                return
            with contextlib.suppress(Exception):
                during, tool = visit.during or (None, None)
                visit.errors.append(
                    PageError(
                        str(getattr(error, "name", "") or "Error")[:100],
                        str(getattr(error, "message", "") or error)[:2_000],
                        str(getattr(error, "stack", "") or "")[:4_000],
                        during,
                        tool,
                    )
                )

        page.on("pageerror", thrown)
        visit.session = await WebMCPSession.attach(
            page, timeout=options.page_timeout, backend=options.backend
        )

    async def _goto(self, visit: _Visit) -> tuple[str | None, bool]:
        page = visit.page
        assert page is not None
        limit = self.options.page_timeout
        try:
            response = await asyncio.wait_for(
                page.goto(visit.url, timeout=limit * 1000, wait_until="load"), limit + _PROBE_WAIT
            )
        except Exception as exc:
            message = str(exc).splitlines()[0] if str(exc) else "no answer"
            timed_out = isinstance(exc, asyncio.TimeoutError) or "Timeout" in message
            if timed_out and page.url not in ("", "about:blank"):
                await self._settle(visit)
                return (
                    f"The page did not finish loading within {limit:g} s (the load event never "
                    "fired: a resource that never arrives?). Agents wait for the page to load; "
                    "the checks below ran on the page as far as it got.",
                    False,
                )
            if timed_out:
                return f"The page did not answer within {limit:g} s.", True
            message = message.removeprefix("Page.goto: ")
            return f"The page could not be opened: {excerpt(message, 200)}.", True
        await self._settle(visit)
        status = response.status if response is not None else 200
        if status >= 400:
            return (
                f"The server answered HTTP {status}. Fix the link or the page; the checks below "
                "ran on the error page.",
                False,
            )
        return None, False

    async def _settle(self, visit: _Visit) -> None:
        """Wait (briefly, bounded) until the page's tool list stops changing."""
        session = visit.session
        await self._early_links(visit)
        if session is None or self.options.settle <= 0:
            return
        deadline = time.monotonic() + _SETTLE_CAP
        last = await self._tool_keys(session)
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            await asyncio.sleep(min(0.05, self.options.settle))
            now = await self._tool_keys(session)
            if now != last:
                last, quiet_since = now, time.monotonic()
            elif time.monotonic() - quiet_since >= self.options.settle:
                return

    async def _early_links(self, visit: _Visit) -> None:
        """The links the page has once loaded, to the crawl at once, so the next level loads
        while this page settles (the probe adds the links and forms that come later)."""
        if visit.links or visit.depth >= self.options.crawl or visit.page is None:
            return
        raw = await _bounded(visit.page.evaluate(_PROBE_JS, True), self.wait)
        links = raw.get("links") if isinstance(raw, dict) else None
        if isinstance(links, list):
            visit.links = [x for x in links if isinstance(x, str)][:_MAX_LINKS]
            self._follow(visit)

    async def _tool_keys(self, session: WebMCPSession) -> frozenset[tuple[str, str]] | None:
        tools = await _bounded(session.tools(settle=0), self.wait)  # (this loop is the settle)
        if tools is None:
            return None
        return frozenset((t.frame_id, t.name) for t in tools)

    async def _tools(self, visit: _Visit, settle: float | None = None) -> list[Tool] | None:
        """The page's tools, once quiet for settle seconds (None: the session's default); an
        empty list waits a little for a first tool."""
        assert visit.session is not None
        tools = await _bounded(visit.session.tools(settle=settle), self.wait)
        return list(tools) if isinstance(tools, list) else None

    async def _probe(self, visit: _Visit) -> dict[str, Any] | None:
        page = visit.page
        if page is None:
            return None
        raw = await _bounded(page.evaluate(_PROBE_JS), self.wait)
        if not isinstance(raw, dict):
            return None
        links = raw.get("links")
        main = (
            await probe_webmcp(page, timeout=self.wait, frames=False)
        ).main  # what WebMCP it has
        return {
            "modelContext": main.has_webmcp
            if main is not None
            else raw.get("modelContext") is True,
            "api": raw.get("api") is True,
            "scripts": raw.get("scripts") if isinstance(raw.get("scripts"), int) else 1,
            "toolForms": raw.get("toolForms") if isinstance(raw.get("toolForms"), int) else 0,
            "secure": raw.get("secure") is True,
            "title": str(raw.get("title") or "")[:300],
            "links": [x for x in links if isinstance(x, str)][:_MAX_LINKS]
            if isinstance(links, list)
            else [],
        }

    async def _screenshot(self, visit: _Visit) -> None:
        if not self.options.screenshots or visit.page is None:
            return
        limit = min(self.options.page_timeout, self.wait)
        shot = await _bounded(
            visit.page.screenshot(type="png", timeout=limit * 1000, animations="disabled"),
            limit + 1,
        )
        if isinstance(shot, bytes) and len(shot) <= _MAX_SCREENSHOT:
            visit.result.screenshot = shot

    async def _alive(self, visit: _Visit, limit: float = 3.0) -> bool:
        if visit.page is None or visit.page.is_closed():
            return False
        answer: Any = await _bounded(visit.page.evaluate("1"), min(limit, self.wait))
        return bool(answer == 1)

    async def _close(self, visit: _Visit) -> None:
        session, context = visit.session, visit.context
        visit.session = visit.context = visit.page = None
        if session is not None:
            known = {id(r) for r in visit.records}
            visit.records.extend(r for r in session.records if id(r) not in known)
        # The context first: it ends a hung renderer at once, and then the session's own
        # goodbyes to the page fail fast instead of waiting on it.
        if context is not None:
            await _bounded(context.close(), _CLOSE_WAIT)
        if session is not None:
            await _bounded(session.close(), _CLOSE_WAIT)

    async def _reload(self, visit: _Visit, *, fresh: bool) -> None:
        """Get the page back to its start: a new context after a crash or hang, else goto."""
        if fresh or visit.page is None or visit.page.is_closed():
            _, fatal = await self._open(visit)
        else:
            _, fatal = await self._goto(visit)
        if fatal or not await self._alive(visit, self.wait):
            raise _PageGone("the page could not be opened again")

    # -- declarative forms -----------------------------------------------------------------
    async def _check_forms(self, visit: _Visit, tools: list[Tool], out: Collector) -> None:
        forms = [t for t in tools if t.declarative]
        # Read a few forms at once (each is a round trip to the page); judge them in order.
        read: list[dict[str, Any] | None] = []
        for start in range(0, min(len(forms), _MAX_FORMS), _FORMS_AT_ONCE):
            chunk = forms[start : min(start + _FORMS_AT_ONCE, _MAX_FORMS)]
            read += await asyncio.gather(*(self._describe_form(visit, t) for t in chunk))
        for index, tool in enumerate(forms):
            frame = frame_of(tool, visit.url)
            if index >= _MAX_FORMS:
                for check_id in FORM_CHECKS:
                    out.skip(check_id, f"more than {_MAX_FORMS} forms", tool.name, frame)
                continue
            described = read[index]
            if described is None:
                for check_id in FORM_CHECKS:
                    out.skip(check_id, "the form could not be read", tool.name, frame)
                continue
            check_form(
                described, tool.input_schema, page=visit.url, tool=tool.name, frame=frame, out=out
            )

    async def _form_issues(self, visit: _Visit) -> list[dict[str, Any]]:
        """Chromium's own issues with the page's tool forms (Audits.enable replays them)."""
        if visit.context is None or visit.page is None:
            return []
        cdp = await _bounded(visit.context.new_cdp_session(visit.page), self.wait)
        if cdp is None:
            return []
        found: list[dict[str, Any]] = []

        def added(event: dict[str, Any]) -> None:
            details = (event.get("issue") or {}).get("details") or {}
            generic = details.get("genericIssueDetails") or {}
            if generic.get("errorType") in BROWSER_ISSUE_TYPES and len(found) < 200:
                found.append(dict(generic))

        try:
            cdp.on("Audits.issueAdded", added)
            await _bounded(cdp.send("Audits.enable"), self.wait)  # replays the issues so far
            for issue in found:
                node_id = issue.get("violatingNodeId")
                if isinstance(node_id, int):
                    reply = await _bounded(
                        cdp.send("DOM.describeNode", {"backendNodeId": node_id}), self.wait
                    )
                    issue["node"] = reply.get("node") if isinstance(reply, dict) else None
        finally:
            await _bounded(cdp.detach(), self.wait)
        return found

    async def _describe_form(self, visit: _Visit, tool: Tool) -> dict[str, Any] | None:
        session, page = visit.session, visit.page
        if session is None or page is None:
            return None
        if tool.backend_node_id is not None:
            found = await _bounded(
                session.backend.on_form(tool, FORM_FUNCTION_DECLARATION), self.wait
            )
            if isinstance(found, dict):
                return found
        frame = _frame_for(page, tool, session)
        if frame is None:
            return None
        found = await _bounded(frame.evaluate(_FIND_FORM_JS, tool.name), self.wait)
        return found if isinstance(found, dict) else None

    # -- behaviour -------------------------------------------------------------------------
    def _why_not_called(self, tool: Tool) -> str | None:
        mode = self.options.call
        if mode == "none":
            return "tools are not called (--call none); use --call readonly or all to call them"
        if mode == "readonly" and not tool.read_only:
            return "not marked readOnlyHint; use --call all to call them"
        return None

    async def _check_behaviour(self, visit: _Visit, tools: list[Tool]) -> None:
        col = visit.col
        called = 0
        stop: str | None = None
        queue = [(tool, 0) for tool in tools]
        known = {(t.frame_id, t.name) for t in tools}
        index = 0
        while index < len(queue):
            tool, depth = queue[index]
            index += 1
            if index % _CHUNK == _CHUNK - 1:
                await asyncio.sleep(0)
            frame = frame_of(tool, visit.url)
            why = self._why_not_called(tool)
            if why is None and called >= self.options.max_called_tools:
                why = f"more than {self.options.max_called_tools} tools to call on the page"
            if why is None and stop is not None:
                why = stop
            if why is not None:
                for check_id in _call_checks(tool):
                    col.skip(check_id, why, tool.name, frame)
                continue
            called += 1
            try:
                await self._exercise(visit, tool, frame)
            except _PageGone as gone:
                stop = f"{gone} after calling {excerpt(tool.name, 60)}"
                for check_id in _call_checks(tool):
                    col.skip(check_id, str(gone), tool.name, frame)
            if stop is None and visit.hangs >= _MAX_HANGS:
                stop = f"{visit.hangs} tools did not answer; the rest were not called"
            if stop is None and depth < self.options.explore and len(known) < _MAX_EXPLORED:
                for found in await self._new_tools(visit, tool, known):
                    queue.append((found, depth + 1))
        # A navigation the last call set off after answering (it never meets a next call).
        if called and stop is None and visit.last_call and await self._navigated_late(visit):
            await self._late_navigation(visit, reload=False)

    async def _new_tools(
        self, visit: _Visit, after: Tool, known: set[tuple[str, str]]
    ) -> list[Tool]:
        """Tools that appeared after calling `after` (explore): statically checked, each finding
        saying which call led to it; returned to be called in turn."""
        listed = await self._tools(visit) if visit.session is not None else None
        fresh = [t for t in listed or [] if (t.frame_id, t.name) not in known]
        fresh = fresh[: max(0, _MAX_EXPLORED - len(known))]
        if not fresh:
            return []
        record = visit.last_call[1] if visit.last_call is not None else None
        led_by = f"call #{record.id} of {excerpt(after.name, 60)}" if record else after.name
        for tool in fresh:
            known.add((tool.frame_id, tool.name))
            visit.led_by[(tool.name, frame_of(tool, visit.url) or "")] = led_by
        forms = any(t.declarative for t in fresh)
        static = await self._static_checks(visit, fresh, tool_forms=forms, explored=True)
        self._keep_new(visit, static)
        visit.result.tools = [*visit.result.tools, *fresh]
        return fresh

    async def _navigated_late(self, visit: _Visit) -> bool:
        """Whether the page started a new document since the last call ended (bounded)."""
        if visit.navigations != visit.settled:
            return True
        visit.moved.clear()
        started = await _bounded(visit.page.evaluate(_STARTED_JS), self.wait) if visit.page else 0
        if isinstance(started, int) and not isinstance(started, bool) and started > 0:
            return True
        if started is None:  # the document went away under the question
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(visit.moved.wait(), _NAVIGATION_GRACE)
        return visit.navigations != visit.settled

    async def _exercise(self, visit: _Visit, tool: Tool, frame: str | None) -> None:
        col = visit.col
        schema = tool.input_schema
        rejects = "behaviour.rejects-invalid-input"
        args = await asyncio.to_thread(valid_input, schema, budget=1.0)
        bad = await asyncio.to_thread(invalid_input, schema, budget=1.0)
        if args is None:
            col.skip(
                "behaviour.accepts-valid-input",
                "no schema-valid input could be made from the inputSchema",
                tool.name,
                frame,
            )
        if bad is None:
            col.skip(
                rejects, "the inputSchema accepts any object: nothing to reject", tool.name, frame
            )
        if args is None and bad is None:
            for check_id in _call_checks(tool):
                col.skip(check_id, "no input to call the tool with", tool.name, frame)
            return
        if args is not None:
            record = await self._call(visit, tool, _with_examples(schema, args), validate=True)
            if record is None:
                for check_id in _call_checks(tool):
                    col.skip(check_id, "the tool was gone when it was called", tool.name, frame)
                return
            col.ran_all([c for c in _call_checks(tool) if c != rejects], tool.name, frame)
            fine = self._judge(visit, tool, record, purpose="valid")
            if not fine:
                col.skip(
                    rejects, "not tried: the call with valid input went wrong", tool.name, frame
                )
            try:
                await self._restore(visit, record)
            except _PageGone:
                col.skip(rejects, "not tried: the page could not be opened again", tool.name, frame)
                raise
            if not fine:
                return
        if bad is None:
            return
        record = await self._call(visit, tool, bad.value, validate=False)
        if record is None:
            col.skip(rejects, "the tool was gone when it was called", tool.name, frame)
            return
        col.ran_all(_call_checks(tool), tool.name, frame)
        self._judge(visit, tool, record, purpose="invalid", reason=bad.reason)
        await self._restore(visit, record)

    async def _call(
        self, visit: _Visit, tool: Tool, args: dict[str, Any], *, validate: bool
    ) -> CallRecord | None:
        """Call the tool on the page as first loaded (then judge it, then `_restore` the page)."""
        if visit.navigations != visit.settled and visit.last_call is not None:
            # The page moved after the last call answered: that call navigated, late.
            await self._late_navigation(visit)
        session = visit.session
        if session is None:
            raise _PageGone("the page is gone")
        where = None if frame_of(tool, visit.url) is None else tool.frame_url
        limit = self.options.timeout
        if await _bounded(session.wait_for_tool(tool.name, timeout=min(limit, 5)), 6) is None:
            return None
        before = visit.navigations
        count = len(session.records)
        first_error = len(visit.errors)
        visit.during = (f"a call of {excerpt(tool.name, 60)}", tool.name)
        try:
            await _bounded(
                session.call(tool.name, args, timeout=limit, frame=where, validate=validate),
                limit + 10,
            )
            if len(session.records) <= count:
                return None
            record = session.records[-1]
            await self._late_answer(session, record)  # (before the id changes: it is the key)
            record.id = next(self._ids)
            await _bounded(session.tools(), self.wait)  # a navigation the call began shows by now
            during = f"call #{record.id} of {excerpt(tool.name, 60)}"
            visit.errors[first_error:] = [
                dataclasses.replace(e, during=during) for e in visit.errors[first_error:]
            ]
        finally:
            visit.during = None
        if visit.navigations != before:
            record.event("pageNavigated", count=visit.navigations - before)
            landed = visit.page.url if visit.page is not None else ""
            if tool.declarative and landed and len(visit.links) < _MAX_LINKS:
                visit.links.append(landed)  # a form's result page: the crawl goes there too
        visit.last_call = (tool, record)
        return record

    async def _late_answer(self, session: WebMCPSession, record: CallRecord) -> None:
        """For a call whose tool was removed mid-call (a re-render that registers it again):
        wait, bounded, for the page's answer, so the verdict does not depend on which of the
        two reached the checker first."""
        if record.browser.status is not None or not any(
            e.type == "toolRemoved" for e in record.events
        ):
            return
        limit = min(self.options.timeout, _LATE_ANSWER_WAIT)
        await _bounded(session.settle(record, timeout=limit), limit + 1)

    async def _restore(self, visit: _Visit, record: CallRecord) -> None:
        """Bring the page back to its first state if a call crashed, hung or moved it."""
        gone = _went(record)
        hung = record.code == ToolErrorCode.TIMEOUT.value
        if gone or (hung and not await self._alive(visit)):
            await self._reload(visit, fresh=True)
        elif visit.navigations != visit.settled or record.pending:
            await self._reload(visit, fresh=False)
        visit.settled = visit.navigations

    async def _late_navigation(self, visit: _Visit, *, reload: bool = True) -> None:
        assert visit.last_call is not None
        tool, record = visit.last_call
        if not tool.declarative:
            frame = frame_of(tool, visit.url)
            self._add_once(
                visit,
                "behaviour.no-navigation",
                tool,
                frame,
                f"Calling {excerpt(tool.name, 60)} navigated the page soon after it answered "
                f"(call #{record.id}), which ends the agent's tools and context mid-task. Let "
                "the agent decide to navigate, or make it a declarative form.",
                record=record,
            )
        if reload:
            await self._reload(visit, fresh=False)
        visit.settled = visit.navigations

    def _add_once(
        self,
        visit: _Visit,
        check_id: str,
        tool: Tool,
        frame: str | None,
        message: str,
        *,
        record: CallRecord,
    ) -> None:
        judged = Collector(visit.url)
        judged.add(
            check_id,
            message,
            tool=tool.name,
            frame=frame,
            detail={"call": record.id, "input": excerpt(repr(record.input), 300)},
        )
        self._keep_new(visit, judged)

    def _judge(
        self,
        visit: _Visit,
        tool: Tool,
        record: CallRecord,
        *,
        purpose: Purpose,
        reason: str | None = None,
    ) -> bool:
        """Findings from one call (by `check_call`, once per check and tool); whether the tool
        answered normally (worth calling again)."""
        judged = Collector(visit.url)
        check_call(
            record,
            tool,
            page=visit.url,
            purpose=purpose,
            reason=reason,
            timeout=self.options.timeout,
            script_free=visit.script_free,
            out=judged,
        )
        if record.code is None and record.browser.status == "Completed":
            check_result(record, tool, page=visit.url, out=judged)
        self._keep_new(visit, judged)
        fine = answered_normally(record, tool)
        if record.code == ToolErrorCode.TIMEOUT.value and not fine:
            visit.hangs += 1
        return fine

    def _keep_new(self, visit: _Visit, judged: Collector) -> None:
        """judged's findings into the page's, each check at most once per tool and frame."""
        fresh = []
        for finding in judged.findings:
            key = _key(finding)
            if key in visit.reported:
                continue
            visit.reported.add(key)
            led_by = visit.led_by.get((finding.tool or "", finding.frame or ""))
            if led_by is not None:
                finding = dataclasses.replace(
                    finding,
                    message=f"{finding.message} (This tool appeared after {led_by}.)",
                    detail={**finding.detail, "after": led_by},
                )
            fresh.append(finding)
        judged.findings[:] = fresh
        visit.col.extend(judged)


def _key(finding: Finding) -> tuple[str, str]:
    """A finding's check, tool and frame: reported once per page."""
    return (finding.check, (finding.tool or "") + "\x00" + (finding.frame or ""))


def _frame_for(page: Page, tool: Tool, session: WebMCPSession) -> Frame | None:
    """The Playwright frame that owns tool (by frame id for the main frame, else by URL)."""
    main = page.main_frame
    if tool.frame_id in session.backend.main_frame_ids or not tool.frame_url:
        return main
    for frame in page.frames:
        if frame.url == tool.frame_url:
            return frame
    if normalise_url(tool.frame_url) == normalise_url(main.url):
        return main
    return None


async def check_urls(
    browser: Browser | Sequence[Browser],
    urls: Sequence[str],
    options: CheckOptions | None = None,
    *,
    on_progress: ProgressCallback | None = None,
    prepare_context: ContextHook | None = None,
    names: Sequence[str] | None = None,
    stream: bool = False,
) -> CheckReport:
    """Check urls in browser (or spread over several browsers) and return the report (Checker;
    with stream, the pages are on disk: CheckReport.spool)."""
    checker = Checker(
        browser,
        options,
        on_progress=on_progress,
        prepare_context=prepare_context,
        names=names,
        stream=stream,
    )
    return await checker.run(urls)


def _unresponsive(col: Collector, visit: _Visit, message: str) -> None:
    """A page that stopped answering: one page-load finding, every other page check skipped."""
    col.add("discovery.page-load", message)
    visit.result.error = message
    for check_id in (*_PAGE_CHECKS[1:], *DISCOVERY_CHECKS):
        col.skip(check_id, "the page does not respond")
