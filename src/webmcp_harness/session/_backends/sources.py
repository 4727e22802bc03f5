"""Every source of a page's tools at once: Chromium's registry (CDP) and the page's script objects.

A page can hold native tools and tools on script objects (a polyfill's `document.modelContext`,
`navigator.modelContext`, a `navigator.modelContextTesting` shim) side by side. `Sources` opens
the CDP source and the in-page source together and lists both; each tool keeps its own source
(`Tool.backend`, `Tool.source`) and a call goes to that source. The in-page source also sees
native tools (through native `document.modelContext.getTools()`); while the CDP source is there
those are left to it, so no tool is listed twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...core.errors import WebMCPUnavailableError
from ...core.records import BackendChoice, Tool
from .base import Backend, BackendError, CallRefusedError, Interrupted, Invocation, ToolsChanged
from .cdp import CdpBackend, PageNoted

if TYPE_CHECKING:
    from playwright.async_api import Page

    from .inpage import InPageBackend

__all__ = ["Sources"]


class Sources:
    """The page's tool sources, opened together and listed as one."""

    def __init__(self, page: Page, which: BackendChoice = "auto") -> None:
        self.name: BackendChoice = which
        self.page = page
        self.cdp: CdpBackend | None = CdpBackend(page) if which in ("auto", "cdp") else None
        self.inpage: InPageBackend | None = None
        if which in ("auto", "inpage"):
            from .inpage import InPageBackend

            self.inpage = InPageBackend(page)

    # -- lifecycle -------------------------------------------------------------------------
    async def open(self, on_tools: ToolsChanged, on_interrupt: Interrupted) -> None:
        """Open every source. In "auto", a source that cannot open is left out (not both)."""
        problems: list[Exception] = []
        if self.cdp is not None:
            try:
                await self.cdp.open(on_tools, on_interrupt)
            except (WebMCPUnavailableError, BackendError) as exc:
                if self.name != "auto":
                    raise
                await self.cdp.close()
                self.cdp = None
                problems.append(exc)
        if self.inpage is not None:

            def script_tools(added: list[Tool], removed: list[Tool]) -> None:
                added, removed = self._own(added), self._own(removed)
                if added or removed:
                    on_tools(added, removed)

            self.inpage.skip_native = self.cdp is not None
            try:
                await self.inpage.open(script_tools, on_interrupt)
            except BackendError as exc:
                if self.name != "auto" or self.cdp is None:
                    raise
                await self.inpage.close()
                self.inpage = None
                problems.append(exc)
        if self.cdp is None and self.inpage is None and problems:
            raise problems[0]

    async def close(self) -> None:
        """Close every source, at once; never raises."""
        await asyncio.gather(*(source.close() for source in self._open()))

    def on_note(self, noted: PageNoted) -> None:
        """Tell noted of the dialogs and the popups not followed (the CDP source sees them)."""
        if self.cdp is not None:
            self.cdp.on_note = noted

    # -- tools -----------------------------------------------------------------------------
    async def list_tools(self) -> list[Tool]:
        """Every source's tools, as of now (native tools once)."""
        # In-page first (round trips), the CDP source's list last (no round trip): what CDP
        # reported meanwhile is in the answer.
        script = self._own(await self.inpage.list_tools()) if self.inpage is not None else []
        native = await self.cdp.list_tools() if self.cdp is not None else []
        return native + script

    async def native_tools(self) -> list[Tool]:
        """The native tools as the CDP source knows them now: its events keep them, no round trip."""
        return await self.cdp.list_tools() if self.cdp is not None else []

    def main_frame_tool(self, name: str) -> Tool | None:
        """The main frame's native tool called name, without a round trip (the call's fast path)."""
        return self.cdp.main_frame_tool(name) if self.cdp is not None else None

    @property
    def main_frame_ids(self) -> frozenset[str]:
        """The main frame's id in each source."""
        return frozenset(s.main_frame_id for s in self._sources() if s.main_frame_id)

    @property
    def parents(self) -> dict[str, str | None]:
        """Frame id -> its parent's id, for every frame any source knows."""
        found: dict[str, str | None] = {}
        if self.cdp is not None:
            found.update(self.cdp.parents)
        if self.inpage is not None:
            found.update(self.inpage.parents)
        return found

    def ancestors(self, frame_id: str) -> list[str]:
        """frame_id, then its parent, and so on, as the source that knows the frame says."""
        for source in self._sources():
            chain = source.ancestors(frame_id)
            if len(chain) > 1:
                return chain
        return [frame_id]

    async def sync(self) -> None:
        """Round trip to the browser, so every event it sent before is handled."""
        if self.cdp is not None:
            await self.cdp.sync()

    # -- calls -----------------------------------------------------------------------------
    async def invoke(
        self, tool: Tool, args: dict[str, Any], *, on_start: Callable[[], None] | None = None
    ) -> Invocation:
        """Start tool on its own source."""
        source: Backend | None = self.cdp if tool.backend == "cdp" else self.inpage
        if source is None:
            raise CallRefusedError(f"the {tool.backend} source of {tool.name} is not open")
        return await source.invoke(tool, args, on_start=on_start)

    async def on_form(self, tool: Tool, function: str) -> Any:
        """Run function with `this` = a native declarative tool's <form>; None when it cannot."""
        if tool.backend != "cdp" or self.cdp is None:
            return None
        return await self.cdp.on_form(tool, function)

    # -- helpers ---------------------------------------------------------------------------
    def _own(self, tools: list[Tool]) -> list[Tool]:
        """In-page tools that are not the CDP source's: native ones are its while it is open."""
        if self.cdp is None:
            return tools
        return [t for t in tools if t.source != "native"]

    def _sources(self) -> list[CdpBackend | InPageBackend]:
        found: list[CdpBackend | InPageBackend] = []
        if self.cdp is not None:
            found.append(self.cdp)
        if self.inpage is not None:
            found.append(self.inpage)
        return found

    def _open(self) -> list[Backend]:
        return list(self._sources())
