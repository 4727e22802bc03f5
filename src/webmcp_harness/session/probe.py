"""What WebMCP a page has: native or not, which script objects, per frame (one probe, one place).

The plugin, the agent gateway, `check` and the session all ask here. The probe reads the page's own
script view in each frame and leaves nothing behind. It does not list tools (the session does).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .adapters import as_async

if TYPE_CHECKING:
    from playwright.async_api import Frame, Page

__all__ = ["FrameProbe", "NoTools", "PageProbe", "Surface", "probe", "why_no_tools"]

PROBE_TIMEOUT = 5.0
"""Seconds one frame may take to answer the probe."""


@dataclass(frozen=True)
class Surface:
    """One script object that holds tools in a frame."""

    name: str
    """"document.modelContext", "navigator.modelContext" or "navigator.modelContextTesting"."""
    implementation: str | None
    """Whose it is: "native", "@mcp-b/global", "@mcp-b/global+native" (global over native),
    "@mcp-b/webmcp-polyfill", "script" (another object) or "modelContextTesting"."""
    native: bool
    """Its tools live in Chromium's own registry (the DevTools protocol sees them)."""
    callable: bool
    """The harness can call its tools (a `document.modelContext` with only `getTools()` cannot)."""


@dataclass(frozen=True)
class FrameProbe:
    """What one frame has."""

    url: str
    secure: bool
    """A secure context (WebMCP needs one)."""
    native: bool
    """Chromium's own WebMCP is on here (the browser was launched with the flag)."""
    blocked: bool
    """The frame's permissions policy turns the `tools` feature off (an iframe without
    `allow="tools"`)."""
    surfaces: tuple[Surface, ...]
    """The objects holding tools, in the order a name is looked up."""

    @property
    def has_webmcp(self) -> bool:
        """Whether any object here can hold tools (native or a script's)."""
        return bool(self.surfaces)

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "secure": self.secure,
            "native": self.native,
            "blocked": self.blocked,
            "surfaces": [
                {
                    "name": s.name,
                    "implementation": s.implementation,
                    "native": s.native,
                    "callable": s.callable,
                }
                for s in self.surfaces
            ],
        }


@dataclass(frozen=True)
class PageProbe:
    """What a page has, frame by frame (the main frame first; frames that did not answer are
    left out)."""

    frames: tuple[FrameProbe, ...]

    @property
    def main(self) -> FrameProbe | None:
        """The main frame's answer (None: it did not answer in time)."""
        return self.frames[0] if self.frames else None

    @property
    def has_webmcp(self) -> bool:
        """Whether any frame has an object that can hold tools."""
        return any(f.has_webmcp for f in self.frames)

    @property
    def native(self) -> bool:
        """Whether the browser's own WebMCP is on in the main frame."""
        return self.main is not None and self.main.native

    @property
    def flag_missing(self) -> bool:
        """Whether the browser lacks native WebMCP on a page where it could have it (secure):
        Chromium launched without `--enable-features=WebMCP`, or too old."""
        main = self.main
        return main is not None and main.secure and not main.native

    def to_dict(self) -> dict[str, Any]:
        return {"frames": [f.to_dict() for f in self.frames]}


async def probe(page: Any, *, timeout: float = PROBE_TIMEOUT, frames: bool = True) -> PageProbe:
    """Ask page (async or sync Playwright) what WebMCP it has; `frames=False`: the main frame only.

    Bounded: each frame has `timeout` seconds; one that does not answer is left out.
    """
    async_page: Page = as_async(page)
    main = as_async(async_page.main_frame)
    targets = [as_async(f) for f in async_page.frames] if frames else [main]
    targets.sort(key=lambda f: f != main)
    answers = await asyncio.gather(*(_frame(f, timeout) for f in targets))
    return PageProbe(tuple(a for a in answers if a is not None))


async def _frame(frame: Frame, timeout: float) -> FrameProbe | None:
    from ._backends.inpage import DESCRIBE_JS

    try:
        raw = await asyncio.wait_for(frame.evaluate(DESCRIBE_JS), timeout)
    except asyncio.CancelledError:
        raise
    except Exception:  # gone, navigating, busy: no answer
        return None
    if not isinstance(raw, dict):
        return None
    surfaces = tuple(
        Surface(
            name=str(s.get("name")),
            implementation=s.get("implementation")
            if isinstance(s.get("implementation"), str)
            else None,
            native=s.get("native") is True,
            callable=s.get("callable") is not False,
        )
        for s in raw.get("surfaces") or []
        if isinstance(s, dict)
    )
    return FrameProbe(
        url=str(raw.get("url") or frame.url),
        secure=raw.get("secure") is True,
        native=raw.get("native") is True,
        blocked=raw.get("blocked") is True,
        surfaces=surfaces,
    )


# --- why a page has no tools -------------------------------------------------------------------

_NAVIGATOR_USE = re.compile(
    r"navigator\s*(?:\?\.|\.)\s*modelContext\b|navigator\s*\[\s*[\"']modelContext[\"']\s*\]"
)
# A script whose URL says it is a WebMCP polyfill or shim.
_WEBMCP_SCRIPT = re.compile(r"webmcp|mcp-b|model-?context|mcp[-_.]|polyfill", re.IGNORECASE)
_MAX_SCRIPTS = 200
_MAX_SOURCE = 5_000_000

# The page's external scripts, and each one's HTTP status where the browser tells it (0: none).
_SCRIPTS_JS = """() => {
  const status = new Map(performance.getEntriesByType("resource")
    .map((e) => [e.name, typeof e.responseStatus === "number" ? e.responseStatus : 0]));
  return {
    scripts: Array.from(document.querySelectorAll("script[src]")).slice(0, 200)
      .map((s) => ({ url: String(s.src).slice(0, 2048), status: status.get(s.src) || 0 })),
    navigator: "modelContext" in navigator,
    document: "modelContext" in document,
  };
}"""


@dataclass(frozen=True)
class NoTools:
    """What explains a page without tools, as far as its scripts tell."""

    navigator_only: bool
    """A script uses navigator.modelContext, which this browser does not have, while it has
    document.modelContext (Chromium 150+)."""
    failed_scripts: tuple[tuple[str, int], ...]
    """WebMCP scripts (a polyfill, a shim: by their URL) that never ran: (URL, HTTP status or 0)."""

    def hints(self) -> list[str]:
        """Each as a sentence that says what to do."""
        said = []
        if self.navigator_only:
            said.append(
                "this page registers on navigator.modelContext, which this browser does not have "
                "(Chromium 150+ has only document.modelContext): register on "
                "document.modelContext (for both, `const mc = document.modelContext ?? "
                "navigator.modelContext`), or load a polyfill that provides navigator.modelContext"
            )
        for url, status in self.failed_scripts[:5]:
            why = f"HTTP {status}" if status else "blocked or failed to load"
            said.append(
                f"its WebMCP script {url[:200]} did not run ({why}): fix its URL or serve it"
            )
        return said


async def why_no_tools(page: Any, *, timeout: float = PROBE_TIMEOUT) -> NoTools:
    """Why page (async or sync Playwright) shows no tools, from its main frame's scripts: those
    the browser parsed (the DevTools protocol replays them) against the page's <script src>.
    Bounded by timeout; nothing found when it cannot tell."""
    found = NoTools(False, ())
    try:
        return await asyncio.wait_for(_why_no_tools(as_async(page)), timeout)
    except asyncio.CancelledError:
        raise
    except Exception:  # gone, busy, not Chromium: nothing to say
        return found


async def _why_no_tools(page: Page) -> NoTools:
    seen = await as_async(page.main_frame).evaluate(_SCRIPTS_JS)
    cdp = await as_async(page.context).new_cdp_session(page)
    parsed: dict[str, str] = {}  # scriptId -> URL

    def on_parsed(event: dict[str, Any]) -> None:
        if len(parsed) < 5 * _MAX_SCRIPTS:
            parsed[str(event.get("scriptId"))] = str(event.get("url") or "")

    try:
        cdp.on("Debugger.scriptParsed", on_parsed)
        await cdp.send("Debugger.enable")  # replays the scripts parsed so far
        navigator_only = False
        if seen.get("document") and not seen.get("navigator"):
            for script_id in list(parsed)[:_MAX_SCRIPTS]:
                reply = await cdp.send("Debugger.getScriptSource", {"scriptId": script_id})
                if _NAVIGATOR_USE.search(str(reply.get("scriptSource") or "")[:_MAX_SOURCE]):
                    navigator_only = True
                    break
        await cdp.send("Debugger.disable")
    finally:
        with contextlib.suppress(Exception):
            await cdp.detach()
    ran = set(parsed.values())
    failed = tuple(
        (str(s["url"]), int(s.get("status") or 0))
        for s in seen.get("scripts") or []
        if isinstance(s, dict)
        and str(s.get("url")) not in ran
        and _WEBMCP_SCRIPT.search(str(s.get("url")))
    )
    return NoTools(navigator_only, failed)
