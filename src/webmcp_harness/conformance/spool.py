"""Items kept on disk as they come, so that a large check run's memory stays flat.

Each item is pickled into one anonymous temporary file, and read back one at a time, in order.
Only what the spool itself wrote is read back (never another file). `reports.PageSpool` keeps a
check run's finished pages this way.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from typing import IO, Generic, TypeVar

__all__ = ["Spool"]

T = TypeVar("T")


class Spool(Generic[T]):
    """Items of type kind appended in order, read back one at a time (the file is deleted on
    close)."""

    def __init__(self, kind: type[T]) -> None:
        self._kind = kind
        self._file: IO[bytes] | None = None
        self._index: list[tuple[int, int]] = []  # (offset, size) in the file; -1: kept[size]
        self._kept: list[T] = []  # items no pickle can hold

    def add(self, item: T) -> None:
        """Keep item on disk (in memory when it cannot be pickled)."""
        try:
            data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # an object no pickle can hold: keep it rather than lose it
            self._index.append((-1, len(self._kept)))
            self._kept.append(item)
            return
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="webmcp-check-")  # noqa: SIM115 (kept open: read back at the end)
        self._file.seek(0, 2)
        self._index.append((self._file.tell(), len(data)))
        self._file.write(data)

    def __len__(self) -> int:
        return len(self._index)

    def __iter__(self) -> Iterator[T]:
        for offset, size in list(self._index):
            if offset < 0:
                yield self._kept[size]
                continue
            assert self._file is not None
            self._file.seek(offset)
            item = pickle.loads(self._file.read(size))  # our own file, written above
            assert isinstance(item, self._kind)
            yield item

    def close(self) -> None:
        """Delete the file; the spool is empty after."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._index, self._kept = [], []
