"""URLs from pages and users, split and joined without raising; the one rule for their origin.

Python's ``urlsplit`` raises ``ValueError`` on text such as ``http://[x`` (a bracket with no
closing one): a page's link, a frame's URL or a user's argument can be that. Here such text is a
URL with no scheme and no host, all path, so every check of its origin says "not http(s)".

The origin of a URL is written as the browser writes it (``scheme://host[:port]``): scheme and
host lower-cased, no user or password, no default port (80 for http, 443 for https). A URL
without a host (``about:blank``, ``data:``, ``file:``) or that Python cannot read has none.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import SplitResult, urldefrag, urljoin, urlsplit

__all__ = ["Origin", "defrag_url", "join_url", "origin_of", "split_origin", "split_url"]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


class Origin(NamedTuple):
    """The parts of a URL's origin: scheme and host lower-cased, port None for the default."""

    scheme: str
    host: str
    """The host name or address, without the brackets of an IPv6 address."""
    port: int | None

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if self.port is None else f":{self.port}"
        return f"{self.scheme}://{host}{port}"


def split_url(url: str) -> SplitResult:
    """url's parts; text Python cannot split is all path (no scheme, no host)."""
    try:
        return urlsplit(url)
    except ValueError:
        return SplitResult("", "", url, "", "")


def split_origin(url: str) -> Origin | None:
    """The origin of url in parts; None when url has none (no scheme or host, or unreadable)."""
    parts = split_url(url)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, or out of range
        return None
    if not parts.scheme or not host:
        return None
    scheme = parts.scheme.lower()
    if port == _DEFAULT_PORTS.get(scheme):
        port = None
    return Origin(scheme, host, port)


def origin_of(url: str) -> str:
    """The origin of url (``http://127.0.0.1:8000``); "" when it has none (``about:blank``)."""
    origin = split_origin(url)
    return "" if origin is None else str(origin)


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
