"""The synchronous face of the harness, for Playwright's sync API: the same core, run in place."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from ..core.errors import UsageError
from ..core.records import BackendChoice, CallRecord, CallResult, Tool, ToolsChange
from ..core.results import ToolResult
from ..core.timeouts import DEFAULT_TIMEOUT
from . import session as _core
from .adapters import is_sync, run_sync, sync_view

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["WebMCPSession"]

T = TypeVar("T")


class WebMCPSession:
    """WebMCPSession for a sync Playwright `Page`; each method runs the async core's."""

    def __init__(self, core: _core.WebMCPSession, page: Page) -> None:
        self._core = core
        self.page = page

    @classmethod
    def attach(
        cls,
        page: Page,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        backend: BackendChoice = "auto",
        confirm: bool = False,
    ) -> WebMCPSession:
        """Watch page's tools (see the async `WebMCPSession.attach`)."""
        if not is_sync(page):
            raise UsageError(
                "sync_api.WebMCPSession takes a sync Playwright Page; "
                "for an async Page use `await webmcp_harness.WebMCPSession.attach(page)`."
            )
        core = run_sync(
            page,
            _core.WebMCPSession.attach(page, timeout=timeout, backend=backend, confirm=confirm),
        )
        return cls(core, page)

    @property
    def core(self) -> _core.WebMCPSession:
        """The async session underneath."""
        return self._core

    @property
    def records(self) -> list[CallRecord]:
        """One record per call, oldest first."""
        return self._core.records

    @property
    def timeout(self) -> float:
        """The default timeout of a call, in seconds."""
        return self._core.timeout

    def tools(self, *, settle: float | None = None, within: float | None = None) -> list[Tool]:
        """Every tool in the page and its frames, once the list has settled (see the async one)."""
        listed = run_sync(self.page, self._core.tools(settle=settle, within=within))
        return [_sync_tool(t) for t in listed]

    def call(
        self,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        frame: str | None = None,
        confirm: bool | None = None,
        validate: bool = True,
    ) -> CallResult:
        """Call a tool and return its coded MCP result, with its record (`.record`)."""
        return run_sync(
            self.page,
            self._core.call(
                name, args, timeout=timeout, frame=frame, confirm=confirm, validate=validate
            ),
        )

    def not_there(self, name: str, args: Any, frame: str | None) -> CallResult:
        """What `call` answers for a tool that is not there, calling nothing (see the async one)."""
        return run_sync(self.page, self._core.not_there(name, args, frame))

    def is_main_frame(self, tool: Tool) -> bool:
        """Whether tool is in the attached page's main frame (not an iframe, not a popup)."""
        return self._core.is_main_frame(tool)

    def wait_for_tool(self, name: str, *, timeout: float | None = None) -> Tool | None:
        """The tool called name once it is registered; None if it is not there in time."""
        found = run_sync(self.page, self._core.wait_for_tool(name, timeout=timeout))
        return None if found is None else _sync_tool(found)

    @overload
    def on(
        self, event: Literal["toolschanged"], handler: Callable[[ToolsChange], None]
    ) -> Callable[[], None]: ...
    @overload
    def on(
        self,
        event: Literal["toolinvoked", "toolresponded"],
        handler: Callable[[CallRecord], None],
    ) -> Callable[[], None]: ...
    def on(self, event: _core.SessionEvent, handler: Callable[[Any], None]) -> Callable[[], None]:
        """Call handler on each event of its kind (see the async one): handlers run while the
        sync API waits on the browser (in a call, `tools`, a `wait_for_...`)."""
        if event == "toolschanged":
            return self._core.on(event, lambda change: handler(_sync_change(change)))
        return self._core.on(event, handler)

    def wait_for_tools_changed(self, *, timeout: float | None = None) -> ToolsChange | None:
        """The next change to the page's tools; None if none comes within timeout."""
        change = run_sync(self.page, self._core.wait_for_tools_changed(timeout=timeout))
        return None if change is None else _sync_change(change)

    def settle(self, record: CallRecord, *, timeout: float | None = None) -> ToolResult | None:
        """Wait for the page's late answer to a call that already returned."""
        return run_sync(self.page, self._core.settle(record, timeout=timeout))

    def confirm_pending(self, record: CallRecord, *, timeout: float | None = None) -> ToolResult:
        """Submit a form that waits for the person, and return its answer."""
        return run_sync(self.page, self._core.confirm_pending(record, timeout=timeout))

    def close(self) -> None:
        """Stop watching the page."""
        run_sync(self.page, self._core.close())

    def __enter__(self) -> WebMCPSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _sync_tool(tool: Tool) -> Tool:
    """tool with its form as a sync-API Locator."""
    if tool.form is None:
        return tool
    return dataclasses.replace(tool, form=sync_view(tool.form))


def _sync_change(change: ToolsChange) -> ToolsChange:
    return ToolsChange(
        tuple(_sync_tool(t) for t in change.added), tuple(_sync_tool(t) for t in change.removed)
    )
