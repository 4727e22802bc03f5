"""What a check run is told (its options, its progress) and what the checker's parts share."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..core.urls import defrag_url, split_url
from ..session import BackendChoice
from . import ids
from .config import PageConfig
from .reports import PageResult

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.async_api import Browser, BrowserContext

    from ..core.records import Tool
    from .findings import Collector
    from .visit import _Lane, _Visit


__all__ = [
    "CallMode",
    "CheckOptions",
    "CheckerBase",
    "ContextHook",
    "Progress",
    "ProgressCallback",
    "normalise_url",
]

_PAGE_CHECKS = (ids.DISCOVERY_PAGE_LOAD, ids.DISCOVERY_MODEL_CONTEXT, ids.DISCOVERY_SECURE_CONTEXT)
CallMode = Literal["readonly", "all", "none"]


@dataclass
class CheckOptions:
    """How a check run behaves."""

    timeout: float = 30.0  # seconds each tool call may take (and a page load, unless below)
    load_timeout: float | None = None  # seconds a page load may take (None: timeout)
    call: CallMode = "readonly"  # which tools the behaviour checks call
    crawl: int = 0  # follow same-origin links this many steps from each URL
    workers: int = 1  # pages checked at once, each worker in its own browser context
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


_PROBE_WAIT = 5.0  # seconds a quick look into the page may take, at least (see Checker.wait)


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


def _cancelled_from_outside() -> bool:
    """Whether the running task is being cancelled (not just hit by a stray CancelledError).

    Playwright can end a call with CancelledError when its page or context goes away; that is
    the page's doing. Before Python 3.11 the two cannot be told apart: treat it as a real cancel.
    """
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return cancelling is None or bool(cancelling())


def normalise_url(url: str, *, keep_fragment: bool = False) -> str:
    """url as a page key: an empty path written as "/", and without its fragment unless the
    fragment is a route (`#/…`, `#!…`: a single-page app's page) or keep_fragment is set."""
    bare, fragment = defrag_url(url.strip())
    parts = split_url(bare)
    if not parts.path and parts.netloc:
        bare = parts._replace(path="/").geturl()
    if fragment and (keep_fragment or fragment[:1] in ("/", "!")):
        bare += "#" + fragment
    return bare


class CheckerBase:
    """What the parts of the checker (crawl, visit, exercise) share; `Checker` is all three.

    Its state is set by `Checker.__init__`; the steps one part takes from another are named here
    and defined by the part they belong to (or by `Checker`).
    """

    browser: Browser
    browsers: list[Browser]
    names: list[str]
    options: CheckOptions
    on_progress: ProgressCallback | None
    prepare_context: ContextHook | None
    _ids: Iterator[int]

    @property
    def wait(self) -> float:
        """Seconds a quick look into the page may take (longer with a longer page timeout)."""
        return min(max(_PROBE_WAIT, self.options.page_timeout / 2), 15.0)

    async def check_page(
        self,
        url: str,
        *,
        depth: int = 0,
        seed: bool = True,
        browser: Browser | None = None,
        lane: _Lane | None = None,
    ) -> _Visit:
        raise NotImplementedError  # Checker

    def _to_report(self, *, final: bool = False) -> None:
        raise NotImplementedError  # Checker

    async def _static_checks(
        self, visit: _Visit, tools: list[Tool], *, tool_forms: bool, explored: bool = False
    ) -> Collector:
        raise NotImplementedError  # Checker

    def _follow(self, visit: _Visit) -> None:
        raise NotImplementedError  # Crawl

    async def _tools(self, visit: _Visit, settle: float | None = None) -> list[Tool] | None:
        raise NotImplementedError  # Visits

    async def _alive(self, visit: _Visit, limit: float = 3.0) -> bool:
        raise NotImplementedError  # Visits

    async def _reload(self, visit: _Visit, *, fresh: bool) -> None:
        raise NotImplementedError  # Visits

    async def _discard(self, lane: _Lane) -> None:
        raise NotImplementedError  # Visits
