"""What WebMCP a page has: native or not, which script objects, per frame (one probe, one place).

The plugin, the agent gateway, `check` and the session all ask here. The probe reads the page's own
script view in each frame and leaves nothing behind. It does not list tools (the session does).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .adapters import as_async

if TYPE_CHECKING:
    from playwright.async_api import Frame, Page

__all__ = ["FrameProbe", "PageProbe", "Surface", "probe"]

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
    targets = [as_async(f) for f in async_page.frames] if frames else [async_page.main_frame]
    main = as_async(async_page.main_frame)
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
