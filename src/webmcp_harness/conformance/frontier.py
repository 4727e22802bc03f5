"""The frontier of a crawl: the pages to check, in the order found (the report's order), each
once, within the limits (pages per path, pages in all); the same-origin pages a page links to."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence

from ..core.urls import Origin, split_origin, split_url
from .options import CheckOptions, normalise_url

__all__ = ["Frontier"]


_NOT_PAGES = re.compile(  # links to files, not pages: the crawl skips them
    r"\.(?:png|jpe?g|gif|svg|webp|ico|bmp|css|m?js|json|xml|txt|pdf|zip|t?gz|bz2|xz|7z|rar|tar|"
    r"mp3|mp4|m4a|webm|ogg|wav|avi|mov|woff2?|ttf|otf|eot|exe|dmg|apk|msi|csv|docx?|xlsx?|pptx?|"
    r"wasm)$",
    re.IGNORECASE,
)


def _is_page_link(url: str, origin: Origin | None) -> bool:
    link = split_origin(url)
    if link is None or link.scheme not in ("http", "https") or link != origin:
        return False
    return _NOT_PAGES.search(split_url(url).path) is None


class Frontier:
    """The pages to check: the queue, every page seen in the order it was found (the report's),
    and the limits (pages per path, pages in all)."""

    def __init__(self, options: CheckOptions) -> None:
        self.options = options
        self.queue: asyncio.Queue[tuple[str, int, bool]] = asyncio.Queue()
        self.found: list[str] = []  # every page queued, in order
        self.not_visited: set[str] = set()  # pages over max_pages
        self._seen: set[str] = set()
        self._per_path: dict[tuple[str, str, str], int] = {}

    def add(self, url: str, depth: int, *, seed: bool = False) -> None:
        """Queue url (a URL the user gave: seed), unless seen or over a limit."""
        key = normalise_url(url, keep_fragment=seed)
        if key in self._seen:
            return
        parts = split_url(key)
        path = (parts.scheme, parts.netloc.lower(), parts.path)
        limit = self.options.max_per_path
        if not seed and limit is not None and self._per_path.get(path, 0) >= limit:
            return
        if len(self._seen) >= self.options.max_pages:
            if len(self.not_visited) < 100_000:  # (a count, not a list, past that)
                self.not_visited.add(key)
            return
        self._per_path[path] = self._per_path.get(path, 0) + 1
        self._seen.add(key)
        self.found.append(key)
        self.queue.put_nowait((key, depth, seed))

    def follow(self, page: str, depth: int, links: Sequence[str]) -> None:
        """Queue the same-origin pages among the links of page (found depth steps from a URL
        the user gave)."""
        origin = split_origin(page)
        for link in links:
            if _is_page_link(link, origin):
                self.add(link, depth + 1)
