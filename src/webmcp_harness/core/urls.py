"""URLs from pages and users, split and joined without raising.

Python's ``urlsplit`` raises ``ValueError`` on text such as ``http://[x`` (a bracket with no
closing one): a page's link, a frame's URL or a user's argument can be that. Here such text is a
URL with no scheme and no host, all path, so every check of its origin says "not http(s)".
"""

from __future__ import annotations

from urllib.parse import SplitResult, urldefrag, urljoin, urlsplit

__all__ = ["defrag_url", "join_url", "split_url"]


def split_url(url: str) -> SplitResult:
    """url's parts; text Python cannot split is all path (no scheme, no host)."""
    try:
        return urlsplit(url)
    except ValueError:
        return SplitResult("", "", url, "", "")


def join_url(base: str, url: str) -> str:
    """url made absolute against base; url itself when either cannot be split."""
    try:
        return urljoin(base, url)
    except ValueError:
        return url


def defrag_url(url: str) -> tuple[str, str]:
    """url without its fragment, and the fragment; text that cannot be split keeps its ``#``."""
    try:
        bare, fragment = urldefrag(url)
    except ValueError:
        return url, ""
    return bare, fragment
