"""Per-URL configuration of `check` (`check --config FILE`): a TOML file of page rules.

Each `[[page]]` entry matches pages by `path` (a glob on the URL's path) or `url` (a glob on the
whole page URL), and says what is expected there: `allow-no-tools = true` for pages meant to have
no tools, and `ignore = ["check.id", ...]` for checks whose findings are not counted there. An
ignored finding is never dropped silently: the report lists it under "ignored", with the entry
that ignored it, and the check's targets on that page show as skipped for that reason.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..core.errors import UsageError
from .findings import CHECKS, Collector, Finding

__all__ = ["ConfigError", "PageConfig", "PageRule", "load_config"]

_KEYS = ("path", "url", "allow-no-tools", "ignore", "reason")
_MAX_BYTES = 1_000_000


class ConfigError(UsageError):
    """A `--config` file that cannot be used: it says which file, which entry, and what to do."""

    default_message = "The configuration file cannot be used."


@dataclass(frozen=True)
class PageRule:
    """One `[[page]]` entry: which pages it matches and what it says about them."""

    entry: int  # its place in the file, from 1
    path: str | None = None  # a glob on the URL's path (no query, no fragment)
    url: str | None = None  # a glob on the whole page URL
    allow_no_tools: bool = False
    ignore: tuple[str, ...] = ()
    reason: str = ""

    def matches(self, page: str) -> bool:
        """Whether page (a URL as the report shows it) is one this entry is about."""
        if self.url is not None:
            return fnmatchcase(page, self.url)
        assert self.path is not None
        try:
            path = urlsplit(page).path or "/"
        except ValueError:
            return False
        return fnmatchcase(path, self.path)

    def why(self, source: str) -> str:
        """What a report says about something this entry ignored."""
        said = f": {self.reason}" if self.reason else ""
        return f"ignored by {source} entry {self.entry}{said}"


@dataclass(frozen=True)
class PageConfig:
    """The page rules of a `--config` file (source: its name, as reports quote it)."""

    source: str
    rules: tuple[PageRule, ...] = ()

    def for_page(self, page: str) -> list[PageRule]:
        return [r for r in self.rules if r.matches(page)]

    def allows_no_tools(self, page: str) -> bool:
        """Whether an entry says page is meant to have no tools."""
        return any(r.allow_no_tools for r in self.for_page(page))

    def ignore(self, col: Collector) -> list[Finding]:
        """Take the findings the rules ignore out of col (page col.page), and return them, each
        saying which entry ignored it; that check's targets there become skipped, saying so."""
        why: dict[str, str] = {}
        for rule in self.for_page(col.page):
            for check_id in rule.ignore:
                why.setdefault(check_id, rule.why(self.source))
        if not why:
            return []
        ignored = [
            dataclasses.replace(f, detail={**f.detail, "ignored": why[f.check]})
            for f in col.findings
            if f.check in why
        ]
        col.findings[:] = [f for f in col.findings if f.check not in why]
        col.targets[:] = [
            dataclasses.replace(t, skipped=why[t.check]) if t.check in why else t
            for t in col.targets
        ]
        return ignored


def load_config(path: str | Path) -> PageConfig:
    """The page rules of the TOML file at path, or ConfigError saying what is wrong."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read it ({exc.strerror or exc}).") from None
    if len(raw) > _MAX_BYTES:
        raise ConfigError(f"{source}: is over {_MAX_BYTES:,} bytes; is it the right file?")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: is not UTF-8 text; save it as UTF-8 TOML.") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: is not valid TOML ({exc}).") from None
    extra = sorted(set(data) - {"page"})
    if extra:
        raise ConfigError(
            f"{source}: unknown top-level key {extra[0]!r}; the file holds only [[page]] entries."
        )
    pages = data.get("page", [])
    if not isinstance(pages, list):
        raise ConfigError(f"{source}: 'page' must be a list of tables: write each as [[page]].")
    return PageConfig(source, tuple(_rule(source, i, e) for i, e in enumerate(pages, 1)))


def _rule(source: str, entry: int, data: Any) -> PageRule:
    where = f"{source}: [[page]] entry {entry}"
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where} is not a table: write it as [[page]] with keys below it.")
    extra = sorted(set(data) - set(_KEYS))
    if extra:
        raise ConfigError(f"{where}: unknown key {extra[0]!r}; the keys are {', '.join(_KEYS)}.")
    if ("path" in data) == ("url" in data):
        raise ConfigError(
            f'{where}: give exactly one of path (a glob on the URL\'s path, like "/about/*") or '
            'url (a glob on the whole URL, like "http://127.0.0.1:8000/#/help").'
        )
    pattern = data.get("path", data.get("url"))
    key = "path" if "path" in data else "url"
    if not isinstance(pattern, str) or not pattern:
        raise ConfigError(f"{where}: {key} must be a non-empty string.")
    if key == "path" and not pattern.startswith(("/", "*")):
        raise ConfigError(
            f"{where}: path {pattern!r} must start with / (or *): it is matched against the "
            'URL\'s whole path, like "/docs/*".'
        )
    allow = data.get("allow-no-tools", False)
    if not isinstance(allow, bool):
        raise ConfigError(f"{where}: allow-no-tools must be true or false.")
    ignore = data.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(c, str) for c in ignore):
        raise ConfigError(f'{where}: ignore must be a list of check ids, like ["metadata.x"].')
    for check_id in ignore:
        if check_id not in CHECKS:
            raise ConfigError(
                f"{where}: ignore names {check_id!r}, which is not a check; docs/codes.md lists "
                "them (the JSON report's findings say theirs)."
            )
    reason = data.get("reason", "")
    if not isinstance(reason, str):
        raise ConfigError(f"{where}: reason must be a string.")
    if not allow and not ignore:
        raise ConfigError(f"{where} does nothing: give allow-no-tools = true or ignore = [...].")
    return PageRule(
        entry,
        data.get("path"),
        data.get("url"),
        allow,
        tuple(dict.fromkeys(ignore)),
        reason[:300],
    )
