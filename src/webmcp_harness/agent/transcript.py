"""Transcripts of agent runs: JSON Lines, one line per step, written as each step ends.

A transcript is UTF-8 text, one JSON object a line, each with a ``type``:

- ``{"type": "run", ...}``: first; what ran (script name, URL, owner's first name, start time).
- ``{"type": "step", "index": N, "action": ..., "tool": ..., "input": ..., "outcome": {...},
  ...}``: one per step, in order (``step_entry`` builds them). ``outcome`` holds only what is
  coded (``ok``, ``code``, ``kind``, ``held``, ``reason``), so runs can be compared.
- ``{"type": "end", "passed": true|false, ...}``: last, when the run ended normally.

Every line is written with one ``write``, then flushed (and, with ``fsync=True``, synced to the
disk) before the next step starts. A run killed mid-step leaves the steps before it intact; at
most the last line is cut short, and ``read_transcript`` drops it and says so (``truncated``).
A transcript without an ``end`` line is a run that didn't finish.

Secrets never reach the file: every line goes through ``redact``, which replaces what the
check's detectors recognise (``sensitive.py``: passwords and credentials by key, card numbers,
IBANs, national ID numbers) with ``"[redacted]"``. Values JSON can't carry become text (NaN and
infinities become ``null``, as ``JSON.stringify`` writes them).

``diff_outcomes(old, new)`` compares the coded outcomes of two runs step by step: what
``webmcp-harness replay`` prints. Only coded things count (the action, the tool, ``ok``,
``code``, ``kind``, ``held``, ``reason``), never values that change from run to run.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final

from ..core.caps import MAX_LINE, shrink
from ..core.secrets import REDACTED, redact
from ..core.text import TooBig, dumps, read_bounded
from .outcome import Outcome

__all__ = [
    "REDACTED",
    "Difference",
    "Transcript",
    "TranscriptError",
    "TranscriptWriter",
    "diff_outcomes",
    "format_diff",
    "read_transcript",
    "redact",
    "step_entry",
]

_MAX_DEPTH: Final = 400
MAX_TRANSCRIPT_BYTES: Final = 200_000_000
"""The largest transcript ``read_transcript`` reads (200 MB)."""


class TranscriptError(Exception):
    """A transcript that can't be read: the line (1-based) and why."""

    def __init__(self, line: int | None, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


def _plain(value: object, depth: int = 0) -> Any:
    """A JSON-ready copy: dataclass records through ``to_dict``, floats JSON can't carry as
    ``None``, tuples and sets as lists, other objects as text."""
    if depth > _MAX_DEPTH:
        return REDACTED
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type):
        try:
            return _plain(to_dict(), depth + 1)
        except Exception:
            return str(value)
    if isinstance(value, Mapping):
        try:
            items = list(value.items())
        except Exception:
            return str(value)
        return {k if isinstance(k, str) else str(k): _plain(v, depth + 1) for k, v in items}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _line_of(entry: Mapping[str, Any]) -> str:
    """One line; past ``MAX_LINE`` written again cut (``shrink``), with its full length as
    ``cut``, so every line a harness writes can be read back."""
    data = redact(_plain(entry))
    line = dumps(data, compact=True)
    if len(line) > MAX_LINE and isinstance(data, dict):
        line = dumps({**shrink(data), "cut": len(line)}, compact=True)
    return line + "\n"


class TranscriptWriter:
    """Writes a transcript line by line; each line is on disk (flushed) when ``write`` returns.

    Use as a context manager, or call ``close``. ``fsync=True`` also syncs each line to the
    disk (slower; survives a machine crash, not only a killed process).

    A line the disk will not take (a full disk) does not raise: ``error`` says why, and no
    later line is tried, so the run or the server goes on and says so at its end.
    """

    error: str | None = None

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._lock = threading.Lock()
        self._file: IO[str] | None = self.path.open(
            "w", encoding="utf-8", errors="backslashreplace", newline="\n"
        )

    def write(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        """Redact and write one entry as one line; returns what was written."""
        line = _line_of(entry)
        with self._lock:
            if self._file is None:
                raise ValueError("This transcript is closed.")
            if self.error is None:
                try:
                    self._file.write(line)
                    self._file.flush()
                    if self.fsync:
                        os.fsync(self._file.fileno())
                except OSError as exc:
                    self._failed(exc)
        written: dict[str, Any] = json.loads(line)
        return written

    def run(self, **info: Any) -> dict[str, Any]:
        """Write the ``run`` line: what is about to run."""
        return self.write({"type": "run", "startedAt": time.time(), **info})

    def step(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        """Write one ``step`` line (see ``step_entry``)."""
        return self.write({**entry, "type": "step"})

    def end(self, *, passed: bool, **info: Any) -> dict[str, Any]:
        """Write the ``end`` line: the run finished."""
        return self.write({"type": "end", "passed": passed, "endedAt": time.time(), **info})

    def close(self) -> None:
        """Close the file; a close the disk refuses is kept in ``error``, never raised."""
        with self._lock:
            if self._file is not None:
                file, self._file = self._file, None
                try:
                    file.close()
                except OSError as exc:
                    self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        if self.error is None:
            self.error = f"can't write the transcript {str(self.path)!r}: {exc.strerror or exc}"

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def step_entry(
    index: int,
    action: str,
    *,
    tool: str | None = None,
    input: Any = None,
    source: str | None = None,
    answer: Any = None,
    code: str | None = None,
    outcome: Outcome | None = None,
    line: int | None = None,
    passed: bool = True,
    misses: Iterable[str] = (),
    **extra: Any,
) -> dict[str, Any]:
    """A ``step`` entry: the step, what came back, and its coded outcome.

    ``extra`` carries the rest as is (the check's ``decision``, the call ``record``,
    ``attempts``, ``ms``, ``url``...).
    """
    coded = outcome if outcome is not None else Outcome.of(answer, code=code)
    return {
        "type": "step",
        "index": index,
        "line": line,
        "action": action,
        "tool": tool,
        "input": input,
        "source": source,
        "outcome": coded.to_dict(),
        "answer": answer,
        "passed": passed,
        "misses": list(misses),
        **extra,
    }


@dataclass
class Transcript:
    """A transcript read back: its entries, and whether its last line was cut short."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False

    @property
    def run(self) -> dict[str, Any] | None:
        """The ``run`` entry, if any."""
        return next((e for e in self.entries if e.get("type") == "run"), None)

    @property
    def steps(self) -> list[dict[str, Any]]:
        """The ``step`` entries, in order."""
        return [e for e in self.entries if e.get("type") == "step"]

    @property
    def end(self) -> dict[str, Any] | None:
        """The ``end`` entry; None for a run that didn't finish."""
        return next((e for e in reversed(self.entries) if e.get("type") == "end"), None)

    @property
    def finished(self) -> bool:
        return self.end is not None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


def read_transcript(path: str | os.PathLike[str]) -> Transcript:
    """Read a transcript, line by line. A cut (unreadable) last line is dropped and flagged
    ``truncated``; an unreadable line before it raises TranscriptError with its number."""
    try:
        text = read_bounded(path, MAX_TRANSCRIPT_BYTES)
    except TooBig as err:
        raise TranscriptError(None, f"{os.fspath(path)!r} is too big to replay: {err}") from None
    except OSError as err:
        raise TranscriptError(None, f"can't read {os.fspath(path)!r}: {err.strerror}") from None
    return parse_transcript(text)


def parse_transcript(text: str) -> Transcript:
    """``read_transcript`` for text already read."""
    lines = text.split("\n")
    last = max((i for i, s in enumerate(lines) if s.strip()), default=-1)
    out = Transcript()
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError) as err:
            if i == last:
                out.truncated = True
                break
            raise TranscriptError(i + 1, f"not JSON: {err}") from None
        if not isinstance(entry, dict):
            if i == last:
                out.truncated = True
                break
            raise TranscriptError(i + 1, "each line must be a JSON object")
        out.entries.append(entry)
    return out


@dataclass(frozen=True)
class Difference:
    """One step whose coded outcome, or whose action and tool, differ between two runs.

    ``old_step``/``new_step`` are labels such as ``"call place_order"``; None (with its outcome
    None) when only one run has that step.
    """

    index: int
    old_step: str | None
    new_step: str | None
    old: Outcome | None
    new: Outcome | None
    line: int | None = None

    def describe(self) -> str:
        old = self.old.describe() if self.old else "no such step"
        new = self.new.describe() if self.new else "no such step"
        if self.old_step == self.new_step:
            label = f" ({self.old_step})" if self.old_step else ""
            return f"step {self.index}{label}: was {old}, now {new}"
        before = f"{self.old_step}: {old}" if self.old_step else old
        after = f"{self.new_step}: {new}" if self.new_step else new
        return f"step {self.index}: was {before}; now {after}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "line": self.line,
            "oldStep": self.old_step,
            "newStep": self.new_step,
            "old": self.old.to_dict() if self.old else None,
            "new": self.new.to_dict() if self.new else None,
        }


def _outcome(entry: Mapping[str, Any]) -> Outcome:
    recorded = Outcome.from_dict(entry.get("outcome"))
    if recorded is not None:
        return recorded
    code = entry.get("code")
    return Outcome.of(entry.get("answer"), code=code if isinstance(code, str) else None)


def _label(entry: Mapping[str, Any] | None) -> str | None:
    if entry is None:
        return None
    parts = [entry.get("action"), entry.get("tool")]
    return " ".join(p for p in parts if isinstance(p, str) and p) or "step"


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def diff_outcomes(
    old_steps: Iterable[Mapping[str, Any]], new_steps: Iterable[Mapping[str, Any]]
) -> list[Difference]:
    """Steps whose coded outcome (or action and tool) differ, matched by position.

    Entries that are not steps (``run``, ``end``) are skipped, so whole transcripts can be
    given. A step only one side has is a difference with ``None`` on the other side.
    """
    old = [e for e in old_steps if isinstance(e, Mapping) and e.get("type", "step") == "step"]
    new = [e for e in new_steps if isinstance(e, Mapping) and e.get("type", "step") == "step"]
    diffs: list[Difference] = []
    for i in range(max(len(old), len(new))):
        a = old[i] if i < len(old) else None
        b = new[i] if i < len(new) else None
        ref = a if a is not None else b
        index = _int(ref.get("index")) if ref is not None else None
        diff = Difference(
            index if index is not None else i + 1,
            _label(a),
            _label(b),
            _outcome(a) if a is not None else None,
            _outcome(b) if b is not None else None,
            _int(ref.get("line")) if ref is not None else None,
        )
        if diff.old_step != diff.new_step or diff.old != diff.new:
            diffs.append(diff)
    return diffs


def format_diff(diffs: Iterable[Difference]) -> str:
    """The differences, one a line; "no differences" when there are none."""
    lines = [d.describe() for d in diffs]
    return "\n".join(lines) if lines else "no differences"
