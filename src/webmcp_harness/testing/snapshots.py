"""Tool contract snapshots: the page's tools compared with a JSON file kept beside the test.

As Playwright's `to_have_screenshot`: the file is `<test file>-snapshots/<test name>-<n>.json`
beside the test; a missing one is written and the test fails once, saying so; a mismatch fails
with a diff; `--webmcp-update-snapshots` writes or rewrites them. Keys are sorted and the order of
tools does not matter, so a snapshot changes only when a contract does.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.contracts import plain, tool_contract
from ..core.errors import UsageError
from ..session import WebMCPSession

__all__ = ["UPDATE_OPTION", "SnapshotPlace", "bind", "diff_contracts", "match_snapshot", "place_of"]

UPDATE_OPTION = "--webmcp-update-snapshots"
_POLL = 0.05
_SHOWN = 200
# Runs of characters a snapshot's file name does not keep (all but ASCII letters, digits and
# "-"), each made one "-", as Playwright names its snapshot files.
_NOT_IN_FILE_NAMES = re.compile(r"[\x00-\x2c\x2e-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")
_LONGEST = 100


@dataclass
class SnapshotPlace:
    """Where one test's snapshots live, and whether to rewrite them (the plugin makes one)."""

    folder: Path
    title: str
    update: bool = False
    output: Path | None = None
    shown_from: Path | None = None
    _anonymous: int = 0
    _named: dict[str, int] = field(default_factory=dict)

    @classmethod
    def beside(cls, test_file: Path, title: str, **options: Any) -> SnapshotPlace:
        """The place for a test in `test_file` titled `title` (its name and parameters)."""
        return cls(test_file.parent / f"{test_file.name}-snapshots", title, **options)

    def next_path(self, name: str | None) -> Path:
        """The file of the next snapshot: `<title>-<n>.json`, or `name` (`-1`, `-2` on repeats)."""
        if name is None:
            self._anonymous += 1
            return self.folder / (_sanitise(f"{self.title} {self._anonymous}") + ".json")
        if not name or Path(name).name != name:
            raise UsageError(f"a snapshot name is a file name, like 'checkout'; got {name!r}")
        stem = name[:-5] if name.endswith(".json") else name
        count = self._named[stem] = self._named.get(stem, 0) + 1
        return self.folder / (_sanitise(stem + (f" {count - 1}" if count > 1 else "")) + ".json")

    def shown(self, path: Path) -> str:
        """path, relative to where pytest was started when it is below it."""
        if self.shown_from is not None:
            try:
                return str(path.resolve().relative_to(self.shown_from.resolve()))
            except ValueError:
                pass
        return str(path)


_PLACES: weakref.WeakKeyDictionary[WebMCPSession, SnapshotPlace] = weakref.WeakKeyDictionary()


def bind(session: WebMCPSession, place: SnapshotPlace) -> None:
    """Give session's snapshot assertions their test's place (the plugin's fixture does)."""
    _PLACES[session] = place


def place_of(session: WebMCPSession) -> SnapshotPlace | None:
    """The place bound to session, if a test's fixture made it."""
    return _PLACES.get(session)


def _sanitise(text: str) -> str:
    name = _NOT_IN_FILE_NAMES.sub("-", text)
    if len(name) > _LONGEST:
        import hashlib

        name = name[: _LONGEST - 9] + "-" + hashlib.sha1(name.encode()).hexdigest()[:8]
    return name


# -- reading the page --------------------------------------------------------------------------
def _canonical(contracts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Contracts in a stable order (the page's order does not matter)."""
    return sorted(contracts, key=lambda c: (c["name"], c["origin"], _text(c)))


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=str)


async def _contracts(session: WebMCPSession) -> list[dict[str, Any]]:
    page_url = session.page.url
    return _canonical([tool_contract(t, page_url=page_url) for t in await session.tools()])


async def _settled(session: WebMCPSession, timeout: float) -> list[dict[str, Any]]:
    """The page's contracts once two readings in a row agree (or the last one at timeout)."""
    deadline = time.monotonic() + timeout
    last = await _contracts(session)
    while time.monotonic() < deadline:
        await asyncio.sleep(_POLL)
        now = await _contracts(session)
        if now == last:
            return now
        last = now
    return last


# -- the file ----------------------------------------------------------------------------------
def _dumps(contracts: list[dict[str, Any]]) -> str:
    # ASCII only: page strings stay escaped text, whatever they hold (lone surrogates included)
    return json.dumps({"tools": contracts}, indent=2, sort_keys=True, ensure_ascii=True) + "\n"


def _write(path: Path, contracts: list[dict[str, Any]]) -> None:
    """Write atomically: xdist workers (or a reader) never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(_dumps(contracts), encoding="utf-8")
    os.replace(partial, path)


def _read(path: Path, shown: str) -> list[dict[str, Any]] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        data = json.loads(text)
        tools = data["tools"]
        if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
            raise TypeError
        if any("name" not in t or "origin" not in t for t in tools):
            raise KeyError
    except (ValueError, KeyError, TypeError):
        raise UsageError(
            f"{shown} is not a tool snapshot; delete it, or run pytest with {UPDATE_OPTION}"
        ) from None
    return _canonical(tools)


# -- the check ---------------------------------------------------------------------------------
async def match_snapshot(
    session: WebMCPSession, path: Path, place: SnapshotPlace, *, timeout: float
) -> str | None:
    """Compare session's tools with the snapshot at path; None when they match, else why not.

    A missing file is written (the check fails, once); in update mode any difference rewrites it.
    Otherwise the page has until `timeout` seconds to come to match it, as Playwright retries.
    """
    shown = place.shown(path)
    expected = _read(path, shown)
    if expected is None or place.update:
        actual = await _settled(session, timeout)
        if actual == expected:
            return None
        _write(path, actual)
        if expected is not None:
            print(f"{shown} does not match, writing actual.")
            return None
        missing = f"A snapshot doesn't exist at {shown}, writing actual ({_count(actual)})."
        if place.update:
            print(missing)
            return None
        return f"{missing} Check it in; the next run compares with it."
    deadline = time.monotonic() + timeout
    while True:
        actual = await _contracts(session)
        if actual == expected:
            return None
        if time.monotonic() >= deadline:
            break
        await asyncio.sleep(_POLL)
    lines = [f"The page's tools do not match the snapshot {shown}:"]
    lines += diff_contracts(expected, actual)
    lines.append(f"Expected: {shown}")
    if place.output is not None:
        received = place.output / (path.stem + "-actual.json")
        try:
            _write(received, actual)
            lines.append(f"Received: {place.shown(received)}")
        except OSError as exc:
            lines.append(f"(could not write the page's tools to {received}: {exc})")
    lines.append(f"If the change is meant, accept it: pytest {UPDATE_OPTION}")
    return "\n".join(lines)


def _count(contracts: list[dict[str, Any]]) -> str:
    return "1 tool" if len(contracts) == 1 else f"{len(contracts)} tools"


# -- the diff ----------------------------------------------------------------------------------
def _keyed(contracts: list[dict[str, Any]]) -> dict[tuple[str, str, int], dict[str, Any]]:
    """Contracts by (name, origin, n): n tells apart two same-named tools of one origin."""
    keyed: dict[tuple[str, str, int], dict[str, Any]] = {}
    for contract in contracts:
        n = 0
        while (str(contract["name"]), str(contract["origin"]), n) in keyed:
            n += 1
        keyed[(str(contract["name"]), str(contract["origin"]), n)] = contract
    return keyed


def diff_contracts(expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> list[str]:
    """Lines saying which tools were added, removed or changed, and which fields changed."""
    before, after = _keyed(expected), _keyed(actual)
    lines: list[str] = []
    for key in sorted(before.keys() | after.keys()):
        label = f"{plain(key[0])} ({plain(key[1])})"
        if key not in before:
            lines.append(f"  + added:   {label}")
        elif key not in after:
            lines.append(f"  - removed: {label}")
        elif before[key] != after[key]:
            lines.append(f"  ~ changed: {label}")
            lines += [f"      {line}" for line in _fields(before[key], after[key], "")]
    return lines


_ABSENT = object()


def _fields(old: Any, new: Any, where: str) -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        lines: list[str] = []
        for key in sorted(old.keys() | new.keys(), key=str):
            lines += _fields(old.get(key, _ABSENT), new.get(key, _ABSENT), _join(where, key))
        return lines
    if old == new and type(old) is type(new):
        return []
    return [f"{where}: {_value(old)} -> {_value(new)}"]


def _join(where: str, key: Any) -> str:
    part = str(key) if str(key).isidentifier() else _text(str(key))
    return f"{where}.{part}" if where else part


def _value(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    text = _text(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
