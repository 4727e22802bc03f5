"""One page's visit: opened in its worker's context, settled and probed; its forms and errors."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from ..core.records import CallRecord, Tool
from ..core.urls import split_url
from ..session import WebMCPSession
from ..session.probe import probe as probe_webmcp
from .behaviour import (
    GONE_EVENTS,
)
from .findings import Collector, Finding, excerpt
from .forms import (
    BROWSER_ISSUE_TYPES,
    EXTRACT_FORM_JS,
    FORM_CHECKS,
    FORM_FUNCTION_DECLARATION,
    check_form,
)
from .metadata import frame_of
from .options import _PROBE_WAIT, CheckerBase, _bounded, normalise_url
from .pageerrors import (
    FRAMES_WITHOUT_TOOLS_JS,
    WATCH_REGISTRATIONS_JS,
    Attempt,
    PageError,
    check_page_errors,
)
from .reports import PageResult

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Frame, Page, Request

__all__ = ["Visits"]  # (and, for the crawl and the runner: _Lane, _Visit, _went_well)


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


class _PageGone(Exception):
    """The page can no longer be used (and could not be opened again)."""


@dataclass
class _Lane:
    """One worker's context, page and session, used again for its next page.

    A new context costs the browser a renderer process; navigating the same page to the next URL
    does not (`bench/lanes.py`: the demo's 7 pages, 0.32x the CPU). Between pages the lane's
    storage, cookies and session storage go back to how the context began, and the page's events
    go to the page being checked. After any trouble (a failed load, a hang, a crash) the lane is
    closed, and the next page gets a new one.
    """

    browser: Browser | None = None
    context: BrowserContext | None = None
    page: Page | None = None
    session: WebMCPSession | None = None
    visit: _Visit | None = None  # the page the events go to (None: between pages)
    pages: int = 0  # pages it has served since it was opened
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # set when the tools change
    fenced: bool = False  # drop page errors until the main frame commits the next document
    cookies: list[Any] = field(default_factory=list)  # the context's cookies as it began
    origins: set[str] = field(default_factory=set)  # of every document loaded since the reset


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
    unresponsive: CallRecord | None = None  # the timed-out call after which the page hung
    followed: int = 0  # links already handed to the crawl
    script_free: bool = False  # the page has no <script>: its forms are all the browser's
    errors: list[PageError] = field(default_factory=list)  # uncaught, in any frame
    during: tuple[str, str] | None = None  # (call #N of TOOL, TOOL) while a call runs
    led_by: dict[tuple[str, str], str] = field(default_factory=dict)  # explored tool -> call
    reported: set[tuple[str, str]] = field(default_factory=set)
    ignored: list[Finding] = field(default_factory=list)  # taken out by options.pages
    browser: Browser | None = None  # where the page is checked (None: the checker's first)
    lane: _Lane = field(default_factory=_Lane)  # its context and page (a worker's, reused)


def _went(record: CallRecord) -> bool:
    """Whether the page went away (crashed, closed, its browser lost) during record's call."""
    return any(e.type in GONE_EVENTS for e in record.events)


def _went_well(visit: _Visit) -> bool:
    """Whether visit's page may serve its lane's next page: it loaded and answered every call,
    and nothing crashed or hung."""
    page, session = visit.page, visit.session
    records = [*visit.records, *(session.records if session is not None else ())]
    return (
        page is not None
        and not page.is_closed()
        and not visit.result.error
        and visit.hangs == 0
        and not any(_went(r) for r in records)
    )


def _may_be_lost(visit: _Visit) -> bool:
    """Whether visit's failure may be its browser going away: then wait to hear of it."""
    return bool(visit.result.error) or any(_went(r) for r in visit.records)


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


# A frame's session storage, emptied before the lane's next page (a page that hides it keeps it).
_CLEAR_SESSION_JS = "() => { try { window.sessionStorage.clear(); } catch (e) {} }"


_MAX_ORIGINS = 50  # origins whose storage a lane clears; past that it gets a new context


def _origin_of(url: str) -> str:
    """scheme://host:port of an http(s) URL; "" for any other (about:blank, data:)."""
    parts = split_url(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""


_MAX_SCREENSHOT = 2_000_000  # bytes; a larger screenshot is dropped


_MAX_FORMS = 200


_FORMS_AT_ONCE = 8  # declarative forms read at once


_MAX_ERRORS = 500  # uncaught page errors kept per page


_CLOSE_WAIT = 10.0


_SETTLE_CAP = 2.0  # seconds at most spent waiting for the tool list to stop changing


_NAVIGATION_GRACE = 0.5  # seconds for a navigation seen in the page to reach the checker


class Visits(CheckerBase):
    """The visit's part of the checker: a page opened, looked at and closed, bounded."""

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
        """Open the page (in its lane's page, else a new context): (problem to report or None,
        whether it is fatal). A visit that had a page already gets a new context."""
        if visit.context is not None:
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
        """The visit's page: its lane's (back to how the lane began, after another page), else
        a new lane's."""
        lane = visit.lane
        browser = visit.browser or self.browser
        if lane.page is None or lane.browser is not browser or not await self._reset(lane):
            await self._discard(lane)
            await self._open_lane(lane, browser)
        visit.context, visit.page, visit.session = lane.context, lane.page, lane.session
        lane.visit, lane.fenced = visit, lane.pages > 0  # (the last page's errors: not this one's)
        lane.pages += 1

    async def _open_lane(self, lane: _Lane, browser: Browser) -> None:
        """A new context, its page, and a session attached before anything loads; the page's
        events go to the lane's current visit."""
        options = self.options
        width, height = options.viewport
        context = await browser.new_context(viewport={"width": width, "height": height})
        lane.browser, lane.context, lane.pages = browser, context, 0
        context.set_default_timeout(options.page_timeout * 1000)
        await context.add_init_script(f"{_COUNT_NAVIGATIONS_JS}\n;{WATCH_REGISTRATIONS_JS}")
        if self.prepare_context is not None:
            await self.prepare_context(context)
        lane.cookies = await context.cookies()
        page = await context.new_page()
        lane.page = page

        def requested(request: Request) -> None:  # the main frame starts loading a new document
            current = lane.visit
            with contextlib.suppress(Exception):
                if (
                    current is not None
                    and request.is_navigation_request()
                    and request.frame.parent_frame is None
                ):
                    current.navigations += 1
                    current.moved.set()

        def committed(frame: Frame) -> None:  # a frame's new document: whose storage it has
            if len(lane.origins) <= _MAX_ORIGINS:
                lane.origins.add(_origin_of(frame.url))
            if frame.parent_frame is None:  # the visit's, which replaced the last page's
                lane.fenced = False

        def thrown(error: Any) -> None:  # uncaught, in any frame (out-of-process ones too)
            current = lane.visit
            if current is None or lane.fenced or len(current.errors) >= _MAX_ERRORS:
                return
            with contextlib.suppress(Exception):
                during, tool = current.during or (None, None)
                current.errors.append(
                    PageError(
                        str(getattr(error, "name", "") or "Error")[:100],
                        str(getattr(error, "message", "") or error)[:2_000],
                        str(getattr(error, "stack", "") or "")[:4_000],
                        during,
                        tool,
                    )
                )

        page.on("request", requested)
        page.on("framenavigated", committed)
        page.on("pageerror", thrown)
        lane.session = await WebMCPSession.attach(
            page, timeout=options.page_timeout, backend=options.backend
        )

        def tools_changed(what: str) -> None:
            if what == "tools":
                lane.changed.set()

        lane.session.on_change(tools_changed)

    async def _reset(self, lane: _Lane) -> bool:
        """The lane's context as it began: no storage or session storage from the last page, its
        first cookies only. False when that cannot be done in time (then it is not used)."""
        page, context = lane.page, lane.context
        if page is None or context is None or page.is_closed() or lane.session is None:
            return False
        origins, lane.origins = lane.origins, set()
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
            if lane.cookies:
                await context.add_cookies(lane.cookies)
            return True

        return await _bounded(reset(), self.wait) is True

    async def _discard(self, lane: _Lane) -> None:
        """Close the lane's context and session (its next page gets new ones)."""
        context, session = lane.context, lane.session
        lane.context = lane.page = lane.session = lane.visit = None
        # The context first: it ends a hung renderer at once, and then the session's own
        # goodbyes to the page fail fast instead of waiting on it.
        if context is not None:
            await _bounded(context.close(), _CLOSE_WAIT)
        if session is not None:
            await _bounded(session.close(), _CLOSE_WAIT)

    async def _goto(self, visit: _Visit) -> tuple[str | None, bool]:
        page = visit.page
        assert page is not None
        limit = self.options.page_timeout
        try:
            response = await asyncio.wait_for(
                page.goto(visit.url, timeout=limit * 1000, wait_until="load"), limit + _PROBE_WAIT
            )
        except Exception as exc:
            timed_out = isinstance(exc, (asyncio.TimeoutError, PlaywrightTimeoutError))
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
            message = str(exc).splitlines()[0] if str(exc) else "no answer"
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
        """Wait (briefly, bounded) until the page's tool list has stopped changing for the
        settle time since it loaded: it is listed now, and again when a source says it changed
        or the quiet time is up (which catches the sources without change events)."""
        session, lane = visit.session, visit.lane
        await self._early_links(visit)
        if session is None or self.options.settle <= 0:
            return
        quiet = self.options.settle
        deadline = time.monotonic() + _SETTLE_CAP
        last = await self._tool_keys(session)
        quiet_since = time.monotonic()
        while (now := time.monotonic()) < deadline:
            left = quiet_since + quiet - now
            if left > 0:
                lane.changed.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(lane.changed.wait(), min(left, deadline - now))
            keys = await self._tool_keys(session)
            if keys != last:
                last, quiet_since = keys, time.monotonic()
            elif time.monotonic() - quiet_since >= quiet:
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

    async def _close(self, visit: _Visit, *, keep: bool = False) -> None:
        """Done with the visit's page: its records to the visit; with keep, the page stays open
        for the lane's next page, else the lane is closed."""
        session, lane = visit.session, visit.lane
        visit.session = visit.context = visit.page = None
        if session is not None:
            known = {id(r) for r in visit.records}
            visit.records.extend(r for r in session.records if id(r) not in known)
            session.records.clear()  # (the lane's next page starts with none)
        lane.visit = None
        if not keep:
            await self._discard(lane)

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
