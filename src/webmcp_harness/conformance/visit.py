"""One page's visit: the worker's lane (its context, page and session), the page opened,
settled, probed, read and closed. Every wait on the page is bounded."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from ..core.records import CallRecord, Tool
from ..core.urls import split_origin
from ..core.waits import bounded
from ..session import WebMCPSession
from ..session.browser import new_context
from ..session.limits import EMPTY_WAIT, SETTLE_MAX
from ..session.probe import probe as probe_webmcp
from . import ids
from .behaviour import GONE_EVENTS
from .findings import excerpt
from .forms import BROWSER_ISSUE_TYPES, EXTRACT_FORM_JS, FORM_FUNCTION_DECLARATION
from .options import PROBE_WAIT, CheckOptions, ContextHook, normalise_url
from .pageerrors import FRAMES_WITHOUT_TOOLS_JS, WATCH_REGISTRATIONS_JS, Attempt, PageError
from .readiness import AGENT_RULES, LlmsTxt, Readiness, axe_violations

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Frame, Page, Request

__all__ = ["Lane", "LinkSink", "PageGone", "PageProbe", "PageVisit", "went_away"]


class PageGone(Exception):
    """The page can no longer be used (and could not be opened again)."""


def went_away(record: CallRecord) -> bool:
    """Whether the page went away (crashed, closed, its browser lost) during record's call."""
    return any(e.type in GONE_EVENTS for e in record.events)


class LinkSink(Protocol):
    """Where a visit hands the links it finds, as soon as it finds them (the crawl's frontier)."""

    def follow(self, page: str, depth: int, links: Sequence[str]) -> None: ...


@dataclass(frozen=True)
class PageProbe:
    """What a quick look into the loaded page saw."""

    model_context: bool  # the page has WebMCP (document.modelContext, or a source of tools)
    api: bool  # the browser has WebMCP (a ModelContext interface)
    scripts: int  # <script> elements
    tool_forms: int  # <form toolname> and <form tooldescription>
    secure: bool  # a secure context
    title: str
    links: tuple[str, ...]  # to pages: <a href>, and GET forms' actions


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


_MAX_URL = 2_048
_MAX_LINKS = 2_000
_PROBE_JS = """(linksOnly) => {
  const MAX_LINKS = @MAX_LINKS@, MAX_URL = @MAX_URL@;
  const safe = (f, d) => { try { return f(); } catch (e) { return d; } };
  const links = [];
  const anchors = safe(() => Array.prototype.slice.call(
    document.querySelectorAll("a[href]"), 0, MAX_LINKS), []);
  for (const a of anchors) {
    const href = safe(() => new URL(a.getAttribute("href"), document.baseURI).href, null);
    if (typeof href === "string" && href.length <= MAX_URL) links.push(href);
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
    if (typeof href === "string" && href.length <= MAX_URL) links.push(href);
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


def _links(found: list[Any]) -> list[str]:
    """The page's links the crawl may follow: strings of at most _MAX_URL characters (a longer
    one is left, not cut: a cut URL is another page), at most _MAX_LINKS of them. Checked here
    too: the page's own script can change what the probe returns."""
    return [x for x in found if isinstance(x, str) and len(x) <= _MAX_URL][:_MAX_LINKS]


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


# Find a declarative form by its toolname in a frame, and run a function of it on it.
def _on_found_form(function: str) -> str:
    return (
        "(name) => { const form = Array.prototype.find.call("
        "document.querySelectorAll('form[toolname]'), (f) => f.getAttribute('toolname') === name);"
        f" return form ? ({function})(form) : null; }}"
    )


_FIND_FORM_JS = _on_found_form(EXTRACT_FORM_JS)  # describe it
# Put it back as the page made it: a call fills only the fields it is given.
_RESET_FORM_JS = "(form) => { form.reset(); return true; }"
_FIND_AND_RESET_FORM_JS = _on_found_form(_RESET_FORM_JS)
_RESET_FORM_DECLARATION = f"function() {{ return ({_RESET_FORM_JS})(this); }}"


# Forms that are not tools, and the page's cumulative layout shift (largest session window: gaps
# under 1 s, windows under 5 s; shifts just after input do not count), for `PageVisit.readiness`.
_READINESS_JS = """() => {
  const safe = (f, d) => { try { return f(); } catch (e) { return d; } };
  const forms = [];
  for (const form of safe(() => Array.prototype.slice.call(document.forms, 0, 200), [])) {
    if (form.getAttribute("toolname") || form.getAttribute("tooldescription")) continue;
    const id = form.getAttribute("id"), name = form.getAttribute("name");
    const action = form.getAttribute("action");
    forms.push(String(id ? "form#" + id : name ? "form[name=" + name + "]"
      : action ? "form[action=" + action + "]" : "form #" + (forms.length + 1)).slice(0, 200));
  }
  const cls = safe(() => {
    const observer = new PerformanceObserver(() => {});
    observer.observe({ type: "layout-shift", buffered: true });
    const entries = observer.takeRecords();
    observer.disconnect();
    let best = 0, sum = 0, first = -Infinity, last = -Infinity;
    for (const e of entries) {
      if (e.hadRecentInput) continue;
      if (e.startTime - last > 1000 || e.startTime - first > 5000) { sum = 0; first = e.startTime; }
      sum += e.value; last = e.startTime; best = Math.max(best, sum);
    }
    return best;
  }, null);
  return { forms, cls };
}"""


# A frame's session storage, emptied before the lane's next page (a page that hides it keeps it).
_CLEAR_SESSION_JS = "() => { try { window.sessionStorage.clear(); } catch (e) {} }"


_MAX_ORIGINS = 50  # origins whose storage a lane clears; past that it gets a new context


_DeepLook = tuple[Any, LlmsTxt | None, dict[str, str]]  # axe's answer, /llms.txt, skipped


async def _nothing() -> None:
    return None


# axe-core's run: the agent rules, violations only. axe is in the main frame alone, so it reads
# the main frame's document (as before); `iframes: false` stops it asking each iframe for its
# results, which no iframe without axe answers: axe waited 500 ms (its pingWaitTime) for them on
# any page with an iframe, for nothing. `preload: false`: none of these rules reads the
# stylesheets or media axe would fetch first.
_AXE_OPTIONS = {
    "runOnly": {"type": "rule", "values": list(AGENT_RULES)},
    "resultTypes": ["violations"],
    "iframes": False,
    "preload": False,
}

_AXE = Axe()  # (its bundled axe-core source, read once)
_AXE_RUN = f"axe.run({json.dumps(_AXE_OPTIONS)})"

_ONLY_GIVEN = "run on the pages given, not on crawled ones (as Lighthouse audits one page)"

_MAX_LLMS_TXT = 100_000  # bytes of /llms.txt read

_MAX_SCREENSHOT = 2_000_000  # bytes; a larger screenshot is dropped


_FORMS_AT_ONCE = 8  # declarative forms read at once


_MAX_ERRORS = 500  # uncaught page errors kept per page


_CLOSE_WAIT = 10.0


_NAVIGATION_GRACE = 0.5  # seconds for a navigation seen in the page to reach the checker


class _LinksWhenReady:
    """Reads a page's links (read) once its main frame fires DOMContentLoaded, once; `done`
    waits for that read. Stops listening at `done` or `stop`. read None: nothing is read."""

    def __init__(self, page: Page, read: Callable[[], Awaitable[None]] | None) -> None:
        self.page, self.read = page, read
        self.task: asyncio.Future[None] | None = None
        if read is not None:
            page.on("domcontentloaded", self._parsed)

    def _parsed(self, _page: Page) -> None:
        if self.task is None and self.read is not None:
            self.task = asyncio.ensure_future(self.read())

    def stop(self) -> None:
        """No read from now on (one under way goes on, unless nobody waits for it)."""
        if self.read is not None:
            self.read = None
            with contextlib.suppress(Exception):
                self.page.remove_listener("domcontentloaded", self._parsed)

    async def done(self) -> bool:
        """Whether the links were read at DOMContentLoaded (once that read is over)."""
        self.stop()
        if self.task is None:
            return False
        await asyncio.gather(self.task, return_exceptions=True)
        return True

    def drop(self) -> None:
        """Stop, and end a read nobody will wait for."""
        self.stop()
        if self.task is not None and not self.task.done():
            self.task.cancel()


class Lane:
    """One worker's context, page and session, used again for its next page.

    A new context costs the browser a renderer process; navigating the same page to the next URL
    does not (`bench/lanes.py`: the demo's 7 pages, 0.32x the CPU). Between pages the lane's
    storage, cookies and session storage go back to how the context began, and the page's events
    go to the page being checked. After any trouble (a failed load, a hang, a crash) the lane is
    closed, and the next page gets a new one.
    """

    def __init__(self, options: CheckOptions, prepare_context: ContextHook | None = None) -> None:
        self.options = options
        self.prepare_context = prepare_context  # awaited with each new context
        self.browser: Browser | None = None
        self.context: BrowserContext | None = None
        self.page: Page | None = None
        self.session: WebMCPSession | None = None
        self.visit: PageVisit | None = None  # the page the events go to (None: between pages)
        self.pages = 0  # pages it has served since it was opened
        self.fenced = False  # drop page errors until the main frame commits the next document
        self.cookies: list[Any] = []  # the context's cookies as it began
        self.origins: set[str] = set()  # of every document loaded since the reset

    async def take(self, visit: PageVisit, browser: Browser) -> None:
        """Serve visit in browser: the lane's page back to how the lane began after another page
        (as it is, when opened by `warm` and not used yet), else a new context; the page's events
        go to visit from now on."""
        fresh = self.page is not None and self.browser is browser and self.pages == 0
        if not fresh and (
            self.page is None or self.browser is not browser or not await self._reset()
        ):
            await self.discard()
            await self._open(browser)
        self.visit, self.fenced = visit, self.pages > 0  # (the last page's errors: not visit's)
        self.pages += 1

    async def warm(self, browser: Browser) -> None:
        """Open the lane's context, page and session now, before it has a page to serve (a
        worker that waits for the crawl's first links, while the first page loads). A lane that
        could not be opened is left closed: `take` opens it again, and reports the trouble."""
        if self.page is not None:
            return
        try:
            await asyncio.wait_for(
                self._open(browser), self.options.page_timeout + self.options.look_timeout
            )
        except (Exception, asyncio.TimeoutError):
            await self.discard()

    async def _open(self, browser: Browser) -> None:
        """A new context, its page, and a session attached before anything loads; the page's
        events go to the lane's current visit."""
        options = self.options
        width, height = options.viewport
        context = await new_context(
            browser, downloads=options.downloads, viewport={"width": width, "height": height}
        )
        self.browser, self.context, self.pages = browser, context, 0
        context.set_default_timeout(options.page_timeout * 1000)
        await context.add_init_script(f"{_COUNT_NAVIGATIONS_JS}\n;{WATCH_REGISTRATIONS_JS}")
        self.cookies = []  # a new context has none (asking the first one took 0.4-0.6 s)
        if self.prepare_context is not None:
            await self.prepare_context(context)
            self.cookies = await context.cookies()
        page = await context.new_page()
        self.page = page

        def requested(request: Request) -> None:  # the main frame starts loading a new document
            current = self.visit
            with contextlib.suppress(Exception):
                if (
                    current is not None
                    and request.is_navigation_request()
                    and request.frame.parent_frame is None
                ):
                    current.navigated()

        def committed(frame: Frame) -> None:  # a frame's new document: whose storage it has
            if len(self.origins) <= _MAX_ORIGINS:
                origin = split_origin(frame.url)
                http = origin is not None and origin.scheme in ("http", "https")
                self.origins.add(str(origin) if http else "")
            if frame.parent_frame is None:  # the visit's, which replaced the last page's
                self.fenced = False

        def thrown(error: Any) -> None:  # uncaught, in any frame (out-of-process ones too)
            if self.visit is not None and not self.fenced:
                self.visit.thrown(error)

        page.on("request", requested)
        page.on("framenavigated", committed)
        page.on("pageerror", thrown)
        self.session = await WebMCPSession.attach(
            page, timeout=options.page_timeout, backend=options.backend
        )

    async def _reset(self) -> bool:
        """The lane's context as it began: no storage or session storage from the last page, its
        first cookies only. False when that cannot be done in time (then it is not used)."""
        page, context = self.page, self.context
        if page is None or context is None or page.is_closed() or self.session is None:
            return False
        origins, self.origins = self.origins, set()
        if len(origins) > _MAX_ORIGINS:  # a new context forgets them all at once
            return False

        async def reset() -> bool:
            for other in context.pages:  # windows the last page opened
                if other is not page:
                    await other.close()
            # Session storage belongs to the tab: each of the last page's frames clears its own.
            await asyncio.gather(*(f.evaluate(_CLEAR_SESSION_JS) for f in page.frames[:50]))
            cdp = await context.new_cdp_session(page)
            try:
                for origin in sorted(o for o in origins if o):
                    await cdp.send(
                        "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
                    )
            finally:
                await cdp.detach()
            await context.clear_cookies()
            if self.cookies:
                await context.add_cookies(self.cookies)
            return True

        return await bounded(reset(), self.options.look_timeout) is True

    async def discard(self) -> None:
        """Close the lane's context and session (its next page gets new ones)."""
        context, session = self.context, self.session
        self.context = self.page = self.session = self.visit = None
        # The context first: it ends a hung renderer at once, and then the session's own
        # goodbyes to the page fail fast instead of waiting on it.
        if context is not None:
            await bounded(context.close(), _CLOSE_WAIT)
        if session is not None:
            await bounded(session.close(), _CLOSE_WAIT)


class PageVisit:
    """One page being checked, in its lane's context, page and session: opened, settled,
    probed, read, reloaded after trouble, and closed; what happened in the page meanwhile (its
    navigations, uncaught errors, links, the records of the calls made in it).

    The links it finds go to links (the crawl) as soon as they are known, so the next crawl
    level loads while this page is still being checked.
    """

    def __init__(
        self,
        url: str,
        *,
        browser: Browser,
        lane: Lane,
        options: CheckOptions,
        depth: int = 0,
        links: LinkSink | None = None,
    ) -> None:
        self.url = url
        self.browser = browser  # where the page is checked
        self.lane = lane  # its context and page (a worker's, used again)
        self.options = options
        self.depth = depth
        self.context: BrowserContext | None = None
        self.page: Page | None = None
        self.session: WebMCPSession | None = None
        self.navigations = 0  # documents the main frame started loading so far
        self.settled = 0  # navigations as of the end of the last call (and any reload after it)
        self.moved = asyncio.Event()  # set by each navigation
        self.records: list[CallRecord] = []  # of the calls made in it, as its sessions close
        self.links: list[str] = []
        self.errors: list[PageError] = []  # uncaught, in any frame
        self._sink = links if depth < options.crawl else None
        self._followed = 0  # links already handed to the sink
        self._during: tuple[str, str] | None = None  # (call #N of TOOL, TOOL) while a call runs
        # The readiness look at the page as it first settled: what it read, and the deep look.
        self._looked: tuple[dict[str, Any], asyncio.Future[_DeepLook] | None] | None = None
        self._axe_defined: asyncio.Future[bool] | None = None  # axe-core's source, as it settled

    # -- what the page does (the lane's events) --------------------------------------------
    def navigated(self) -> None:
        """The main frame started loading a new document."""
        self.navigations += 1
        self.moved.set()

    def thrown(self, error: Any) -> None:
        """An uncaught error or unhandled rejection in one of the page's frames."""
        if len(self.errors) >= _MAX_ERRORS:
            return
        with contextlib.suppress(Exception):
            during, tool = self._during or (None, None)
            self.errors.append(
                PageError(
                    str(getattr(error, "name", "") or "Error")[:100],
                    str(getattr(error, "message", "") or error)[:2_000],
                    str(getattr(error, "stack", "") or "")[:4_000],
                    during,
                    tool,
                )
            )

    # -- opening and closing ---------------------------------------------------------------
    async def open(self) -> tuple[str | None, bool]:
        """Open the page (in its lane's page, else a new context): (problem to report or None,
        whether it is fatal). A visit that had a page already gets a new context."""
        if self.context is not None:
            await self.close()
        limit = self.options.page_timeout + self.options.look_timeout
        try:
            await asyncio.wait_for(self._attach(), limit)
        except asyncio.TimeoutError:
            return (
                f"The browser did not open a page for it within {limit:g} s (it is overloaded "
                "or stuck).",
                True,
            )
        except Exception as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return f"The browser could not open a page for it: {excerpt(message, 200)}.", True
        return await self._goto(look=self._looked is None)  # (a reload: the first look stands)

    async def _attach(self) -> None:
        await self.lane.take(self, self.browser)
        self.context, self.page, self.session = self.lane.context, self.lane.page, self.lane.session

    async def _goto(self, *, look: bool = False) -> tuple[str | None, bool]:
        assert self.page is not None
        ready = self._links_when_ready(self.page)
        try:
            return await self._load(self.page, ready, look=look)
        finally:
            ready.drop()

    async def _load(
        self, page: Page, ready: _LinksWhenReady, *, look: bool
    ) -> tuple[str | None, bool]:
        limit = self.options.page_timeout
        try:
            response = await asyncio.wait_for(
                page.goto(self.url, timeout=limit * 1000, wait_until="load"), limit + PROBE_WAIT
            )
        except Exception as exc:
            timed_out = isinstance(exc, (asyncio.TimeoutError, PlaywrightTimeoutError))
            if timed_out and page.url not in ("", "about:blank"):
                await self._settle(ready, look=look)
                return (
                    f"The page did not finish loading within {limit:g} s (the load event never "
                    "fired: a resource that never arrives?). Agents wait for the page to load; "
                    "the checks below ran on the page as far as it got.",
                    False,
                )
            if timed_out:
                return f"The page did not answer within {limit:g} s.", True
            message = str(exc).splitlines()[0] if str(exc) else "no answer"
            message = message.removeprefix("Page.goto: ")
            return f"The page could not be opened: {excerpt(message, 200)}.", True
        await self._settle(ready, look=look)
        status = response.status if response is not None else 200
        if status >= 400:
            return (
                f"The server answered HTTP {status}. Fix the link or the page; the checks below "
                "ran on the error page.",
                False,
            )
        return None, False

    async def _settle(self, ready: _LinksWhenReady, *, look: bool = False) -> None:
        """Wait, bounded, until the page has settled as the session's `tools()` decides it (by
        default as a browser auditor does: no tool changed, no request in flight and no short
        timer pending for a quiet window; `docs/codes.md`), the crawl told of its links first
        (those it had once parsed, then those it had once loaded).
        With look, the readiness checks' look at the page as it settled: its forms and layout
        shift, and (a page the user gave) axe-core and /llms.txt, started then and read by
        `readiness` once the page's other checks are done (they overlap its calls)."""
        session = self.session
        if look and self.depth == 0 and self.page is not None:
            # axe-core's source is defined now, while the page settles, rather than on the
            # critical path after it: compiling it holds the page's main thread for a while,
            # which the quiet window mostly spends waiting. It runs once the page has settled.
            self._axe_defined = asyncio.ensure_future(self._define_axe(self.page))
        await self._early_links(more=await ready.done())
        if session is not None and self.options.settle != 0:
            await bounded(session.tools(settle=self.options.settle), SETTLE_MAX + EMPTY_WAIT)
        if look:
            assert self.page is not None
            raw = await bounded(self.page.evaluate(_READINESS_JS), self.options.look_timeout)
            # (axe-core's long main-thread work after the settle, which it would hold up)
            deep = asyncio.ensure_future(self._deep_look()) if self.depth == 0 else None
            self._looked = (raw if isinstance(raw, dict) else {}), deep

    def _links_when_ready(self, page: Page) -> _LinksWhenReady:
        """The page's links read as soon as its document is parsed (`DOMContentLoaded`), on its
        first load in a crawl, so the next level starts loading while this page still loads
        its images, styles and frames."""
        wanted = not self.links and self._sink is not None
        return _LinksWhenReady(page, self._early_links if wanted else None)

    async def _early_links(self, *, more: bool = False) -> None:
        """The links the page has now, to the crawl at once (with more: those it did not have
        when they were last read), so the next level loads while this page loads and settles
        (the probe adds the links and forms that come later)."""
        if (self.links and not more) or self.depth >= self.options.crawl or self.page is None:
            return
        raw = await bounded(self.page.evaluate(_PROBE_JS, True), self.options.look_timeout)
        links = raw.get("links") if isinstance(raw, dict) else None
        if isinstance(links, list):
            known = set(self.links)
            fresh = [link for link in _links(links) if link not in known]
            self.links = (self.links + fresh)[:_MAX_LINKS]
            self._follow()

    async def reload(self, *, fresh: bool) -> None:
        """Get the page back to its start: a new context after a crash or hang, else goto."""
        if fresh or self.page is None or self.page.is_closed():
            _, fatal = await self.open()
        else:
            _, fatal = await self._goto()
        if fatal or not await self.alive(self.options.look_timeout):
            raise PageGone("the page could not be opened again")

    async def close(self, *, keep: bool = False) -> None:
        """Done with the page: its session's records to the visit; with keep, the page stays
        open for the lane's next page, else the lane is closed."""
        session, lane = self.session, self.lane
        if self._looked is not None and self._looked[1] is not None:
            self._looked[1].cancel()  # (done by now, unless the check stopped early)
        if self._axe_defined is not None:
            self._axe_defined.cancel()  # (likewise)
        self.session = self.context = self.page = None
        if session is not None:
            known = {id(r) for r in self.records}
            self.records.extend(r for r in session.records if id(r) not in known)
            session.records.clear()  # (the lane's next page starts with none)
        lane.visit = None
        if not keep:
            await lane.discard()

    def went_well(self) -> bool:
        """Whether the page may serve its lane's next page: it is open, and no call saw it go
        away."""
        page, session = self.page, self.session
        records = [*self.records, *(session.records if session is not None else ())]
        return page is not None and not page.is_closed() and not any(map(went_away, records))

    # -- looking into the page -------------------------------------------------------------
    async def probe(self) -> PageProbe | None:
        """A quick look into the page; None when it does not answer."""
        page = self.page
        if page is None:
            return None
        raw = await bounded(page.evaluate(_PROBE_JS), self.options.look_timeout)
        if not isinstance(raw, dict):
            return None
        links = raw.get("links")
        main = (await probe_webmcp(page, timeout=self.options.look_timeout, frames=False)).main
        scripts, tool_forms = raw.get("scripts"), raw.get("toolForms")
        return PageProbe(
            model_context=main.has_webmcp if main is not None else raw.get("modelContext") is True,
            api=raw.get("api") is True,
            scripts=scripts if isinstance(scripts, int) else 1,
            tool_forms=tool_forms if isinstance(tool_forms, int) else 0,
            secure=raw.get("secure") is True,
            title=str(raw.get("title") or "")[:300],
            links=tuple(_links(links)) if isinstance(links, list) else (),
        )

    async def tools(self, settle: float | None = None) -> list[Tool] | None:
        """The page's tools, once quiet for settle seconds (None: the session's default); an
        empty list waits a little for a first tool; a list that is still changing when that wait
        gives up is read as it is. None when the page does not answer."""
        assert self.session is not None
        tools = await bounded(self.session.tools(settle=settle), self.options.look_timeout)
        if tools is None:  # a list that never goes quiet: checked as it is now
            tools = await bounded(self.session.tools(settle=0), self.options.look_timeout)
        return list(tools) if isinstance(tools, list) else None

    async def readiness(self) -> Readiness | None:
        """What the readiness checks need, as the page first settled (`_settle`): its forms that
        are not tools and its layout shift; axe-core's violations and /llms.txt on a page the
        user gave (awaited now). None when the page never settled. A part that did not answer or
        was not asked is skipped, saying so."""
        if self._looked is None:
            return None
        seen, deep = self._looked
        axe, llms, skipped = await deep if deep is not None else (None, None, {})
        if deep is None:
            skipped = dict.fromkeys(
                (ids.READINESS_ACCESSIBILITY_TREE, ids.READINESS_LLMS_TXT), _ONLY_GIVEN
            )
        if not seen:
            skipped[ids.READINESS_FORM_COVERAGE] = skipped[ids.READINESS_LAYOUT_SHIFT] = (
                "the page did not answer"
            )
        forms, cls = seen.get("forms"), seen.get("cls")
        return Readiness(
            bare_forms=tuple(f for f in forms if isinstance(f, str))[:200]
            if isinstance(forms, list)
            else (),
            layout_shift=float(cls)
            if isinstance(cls, (int, float)) and not isinstance(cls, bool)
            else None,
            violations=axe_violations(axe),
            axe_ran=axe is not None,
            llms=llms,
            skipped=skipped,
        )

    async def _deep_look(self) -> _DeepLook:
        """axe-core's answer on the rules agents need (None: it did not run in time) and the
        origin's /llms.txt, at once; with the checks that could not run, and why."""
        page, limit = self.page, self.options.look_timeout
        assert page is not None
        skipped: dict[str, str] = {}
        origin = split_origin(self.current_url or self.url)
        web = origin is not None and origin.scheme in ("http", "https")
        axe, llms = await asyncio.gather(
            bounded(self._run_axe(page), limit),
            self._llms_txt(f"{origin}/llms.txt", limit) if web else _nothing(),
        )
        if axe is None:
            skipped[ids.READINESS_ACCESSIBILITY_TREE] = "axe-core did not run in time"
        if not web:
            skipped[ids.READINESS_LLMS_TXT] = "the page has no http(s) origin"
        return axe, llms, skipped

    async def _define_axe(self, page: Page) -> bool:
        """Whether axe-core's source was defined in the page's document (bounded)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(page.evaluate(_AXE.axe_script), self.options.look_timeout)
            return True
        return False

    async def _run_axe(self, page: Page) -> Any:
        """axe-core's answer on the agent rules, in the settled page: with the source defined
        while it settled, else (the document changed since, or that timed out) defined now."""
        defined = self._axe_defined
        if defined is None or not await defined:
            await page.evaluate(_AXE.axe_script)
        try:
            return await page.evaluate(_AXE_RUN)
        except PlaywrightError as exc:  # a new document since: without axe
            if "axe is not defined" not in str(exc):
                raise
        await page.evaluate(_AXE.axe_script)
        return await page.evaluate(_AXE_RUN)

    async def _llms_txt(self, url: str, limit: float) -> LlmsTxt:
        """GET url (the origin's /llms.txt) in the page's context: its status and text."""
        assert self.context is not None
        request = self.context.request

        async def get() -> LlmsTxt:
            response = await request.get(url, timeout=limit * 1000, max_redirects=3)
            try:
                body = await response.body() if response.status < 400 else b""
                return LlmsTxt(response.status, body[:_MAX_LLMS_TXT].decode("utf-8", "replace"))
            finally:
                await response.dispose()

        answer = await bounded(get(), limit + 1)
        return answer if answer is not None else LlmsTxt(0)

    async def screenshot(self) -> bytes | None:
        """A PNG of the page, when the options ask for one (None: not taken, or too large)."""
        if not self.options.screenshots or self.page is None:
            return None
        limit = min(self.options.page_timeout, self.options.look_timeout)
        shot = await bounded(
            self.page.screenshot(type="png", timeout=limit * 1000, animations="disabled"),
            limit + 1,
        )
        return shot if isinstance(shot, bytes) and len(shot) <= _MAX_SCREENSHOT else None

    async def alive(self, limit: float = 3.0) -> bool:
        """Whether the page answers a trivial script within limit seconds."""
        if self.page is None or self.page.is_closed():
            return False
        answer: Any = await bounded(self.page.evaluate("1"), min(limit, self.options.look_timeout))
        return bool(answer == 1)

    @property
    def current_url(self) -> str | None:
        """Where the page is now (None: it is closed)."""
        return self.page.url if self.page is not None else None

    # -- links -----------------------------------------------------------------------------
    def take_links(self, links: Sequence[str]) -> None:
        """The page's links as the probe found them, to the crawl (those it had: seen)."""
        self.links, self._followed = list(links), 0
        self._follow()

    def add_link(self, url: str) -> None:
        """One more page the visit led to (a form's result page); the crawl gets it once the
        page is done (`unfollowed_links`)."""
        if len(self.links) < _MAX_LINKS and len(url) <= _MAX_URL:
            self.links.append(url)

    def unfollowed_links(self) -> list[str]:
        """The links found since the last were handed to the crawl."""
        return self.links[self._followed :] if self._sink is not None else []

    def _follow(self) -> None:
        if self._sink is None:
            return
        self._sink.follow(self.url, self.depth, self.links[self._followed :])
        self._followed = len(self.links)

    # -- calls: navigations and errors while one runs --------------------------------------
    @property
    def moved_since_settled(self) -> bool:
        """Whether the page started a new document since the last call ended (as heard)."""
        return self.navigations != self.settled

    def mark_settled(self) -> None:
        """The page is where it should be: navigations from now on are news."""
        self.settled = self.navigations

    async def navigated_late(self) -> bool:
        """Whether the page started a new document since the last call ended (asking the page,
        bounded: a navigation a tool set off after answering may not have reached us yet)."""
        if self.moved_since_settled:
            return True
        self.moved.clear()
        started = (
            await bounded(self.page.evaluate(_STARTED_JS), self.options.look_timeout)
            if self.page
            else 0
        )
        if isinstance(started, int) and not isinstance(started, bool) and started > 0:
            return True
        if started is None:  # the document went away under the question
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.moved.wait(), _NAVIGATION_GRACE)
        return self.moved_since_settled

    def call_begins(self, tool: str) -> int:
        """Page errors from now on happen during a call of tool; returns where they start."""
        self._during = (f"a call of {excerpt(tool, 60)}", tool)
        return len(self.errors)

    def call_named(self, since: int, during: str) -> None:
        """The page errors since `call_begins` happened during this call (`call #N of TOOL`)."""
        self.errors[since:] = [dataclasses.replace(e, during=during) for e in self.errors[since:]]

    def call_ends(self) -> None:
        self._during = None

    # -- reading declarative forms, Chromium's issues, registrations -----------------------
    async def read_forms(self, forms: Sequence[Tool]) -> list[dict[str, Any] | None]:
        """Each declarative tool's form as `EXTRACT_FORM_JS` describes it (None: not read);
        a few at once (each is a round trip to the page), in order."""
        read: list[dict[str, Any] | None] = []
        for start in range(0, len(forms), _FORMS_AT_ONCE):
            chunk = forms[start : start + _FORMS_AT_ONCE]
            read += await asyncio.gather(*(self._describe_form(t) for t in chunk))
        return read

    async def _describe_form(self, tool: Tool) -> dict[str, Any] | None:
        found = await self._on_form(tool, FORM_FUNCTION_DECLARATION, _FIND_FORM_JS)
        return found if isinstance(found, dict) else None

    async def reset_form(self, tool: Tool) -> None:
        """Put a declarative tool's form back as the page made it (`form.reset()`), so a call
        does not submit the values an earlier call left in fields it does not name."""
        await self._on_form(tool, _RESET_FORM_DECLARATION, _FIND_AND_RESET_FORM_JS)

    async def _on_form(self, tool: Tool, declaration: str, find_js: str) -> Any:
        """declaration run on tool's <form> (by its node; else find_js, found by toolname)."""
        session, page = self.session, self.page
        if session is None or page is None:
            return None
        if tool.backend_node_id is not None:
            found = await bounded(
                session.backend.on_form(tool, declaration), self.options.look_timeout
            )
            if found is not None:
                return found
        frame = _frame_for(page, tool, session)
        if frame is None:
            return None
        return await bounded(frame.evaluate(find_js, tool.name), self.options.look_timeout)

    async def form_issues(self) -> list[dict[str, Any]]:
        """Chromium's own issues with the page's tool forms (Audits.enable replays them)."""
        if self.context is None or self.page is None:
            return []
        wait = self.options.look_timeout
        cdp = await bounded(self.context.new_cdp_session(self.page), wait)
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
            await bounded(cdp.send("Audits.enable"), wait)  # replays the issues so far
            for issue in found:
                node_id = issue.get("violatingNodeId")
                if isinstance(node_id, int):
                    reply = await bounded(
                        cdp.send("DOM.describeNode", {"backendNodeId": node_id}), wait
                    )
                    issue["node"] = reply.get("node") if isinstance(reply, dict) else None
        finally:
            await bounded(cdp.detach(), wait)
        return found

    async def registrations(self) -> tuple[list[Attempt], list[dict[str, Any]]]:
        """What explains the page's uncaught errors: its frames' registerTool attempts, and its
        frames without tools. Nothing when none was thrown (or the page is closed)."""
        page, attempts, without = self.page, [], []
        if self.errors and page is not None and not page.is_closed():
            wait = self.options.look_timeout
            for frame in page.frames[:50]:
                found = await bounded(
                    frame.evaluate("() => window.__webmcpCheckAttempts || []"), wait
                )
                where = None if frame == page.main_frame else frame.url
                for item in found[:500] if isinstance(found, list) else []:
                    attempt = Attempt.from_js(item, where)
                    if attempt is not None:
                        attempts.append(attempt)
            listed = await bounded(page.evaluate(FRAMES_WITHOUT_TOOLS_JS), wait)
            without = [x for x in listed if isinstance(x, dict)] if isinstance(listed, list) else []
        return attempts, without
