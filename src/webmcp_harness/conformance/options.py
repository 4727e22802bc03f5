"""What a check run is told: its options, the hook on each new browser context, its progress."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..core.timeouts import DEFAULT_TIMEOUT
from ..core.urls import defrag_url, split_url
from ..session import BackendChoice
from .config import PageConfig
from .reports import PageResult

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext


__all__ = [
    "PROBE_WAIT",
    "CallMode",
    "CheckOptions",
    "ContextHook",
    "Progress",
    "ProgressCallback",
    "normalise_url",
]

CallMode = Literal["readonly", "all", "none"]

PROBE_WAIT = 5.0
"""Seconds a quick look into the page may take, at least (`CheckOptions.look_timeout`)."""


@dataclass
class CheckOptions:
    """How a check run behaves."""

    timeout: float = (
        DEFAULT_TIMEOUT  # seconds each tool call may take (and a page load, unless below)
    )
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
    settle: float | None = None  # seconds the tool list must stay unchanged after the page
    # loads (None: as a browser auditor settles, `WebMCPSession.tools`; docs/codes.md)
    allow_no_tools: bool = False  # a page the user gave may have no tools (else: an error)
    explore: int = 1  # tools a call makes appear are checked too, this many calls deep
    pages: PageConfig | None = None  # per-URL rules (check --config): allow no tools, ignore
    viewport: tuple[int, int] = (1024, 720)
    downloads: bool = False  # let pages download files (denied by default)

    @property
    def page_timeout(self) -> float:
        return self.load_timeout if self.load_timeout is not None else self.timeout

    @property
    def look_timeout(self) -> float:
        """Seconds a quick look into the page may take (longer with a longer page timeout)."""
        return min(max(PROBE_WAIT, self.page_timeout / 2), 15.0)

    def allows_no_tools(self, url: str) -> bool:
        """Whether the page at url may have no tools (`allow_no_tools`, or its --config rule)."""
        return self.allow_no_tools or (self.pages is not None and self.pages.allows_no_tools(url))

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
    bare, fragment = defrag_url(url.strip())
    parts = split_url(bare)
    if not parts.path and parts.netloc:
        bare = parts._replace(path="/").geturl()
    if fragment and (keep_fragment or fragment[:1] in ("/", "!")):
        bare += "#" + fragment
    return bare
