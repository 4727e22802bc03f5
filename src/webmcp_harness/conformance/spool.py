"""A check run's pages kept on disk as they finish, so a large crawl's memory stays flat.

Each finished page (its result with the screenshot, its findings, the checks that ran on it, its
call records) is pickled into one anonymous temporary file; the report writers read the pages
back one at a time. Only what the checker itself wrote is read back (never another file).
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.records import CallRecord
    from .findings import Finding, Target
    from .reports import PageResult

__all__ = ["PageBundle", "PageSpool"]


@dataclass
class PageBundle:
    """Everything one checked page produced."""

    page: PageResult
    findings: list[Finding]
    targets: list[Target]
    records: list[CallRecord]
    ignored: list[Finding]  # findings check --config left uncounted


class PageSpool:
    """Pages appended in report order, read back one at a time (the file is deleted on close)."""

    def __init__(self) -> None:
        self._file: IO[bytes] | None = None
        self._index: list[tuple[int, int] | PageBundle] = []  # (offset, size), or kept as is

    def add(self, bundle: PageBundle) -> None:
        """Keep bundle on disk (in memory when it cannot be pickled)."""
        try:
            data = pickle.dumps(bundle, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # an object no pickle can hold: keep it rather than lose it
            self._index.append(bundle)
            return
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="webmcp-check-")  # noqa: SIM115 (kept open: read back at the end)
        self._file.seek(0, 2)
        self._index.append((self._file.tell(), len(data)))
        self._file.write(data)

    def __len__(self) -> int:
        return len(self._index)

    def __iter__(self) -> Iterator[PageBundle]:
        for entry in list(self._index):
            if isinstance(entry, PageBundle):
                yield entry
                continue
            assert self._file is not None
            offset, size = entry
            self._file.seek(offset)
            bundle = pickle.loads(self._file.read(size))  # our own file, written above
            assert isinstance(bundle, PageBundle)
            yield bundle

    def close(self) -> None:
        """Delete the file; the spool is empty after."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._index = []
