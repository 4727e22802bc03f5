"""A package's public names, loaded on first use and listed once: as its ``TYPE_CHECKING`` imports.

A package that should import quickly (the command line starts the browser while the rest loads)
lists each public name once, as an explicit re-export in its ``if TYPE_CHECKING:`` block, which
type checkers read::

    if TYPE_CHECKING:
        from .core.records import CallRecord as CallRecord

    _names = LazyNames(globals())
    __all__ = _names.all

    def __getattr__(name: str) -> Any:
        return _names.load(name)

`LazyNames` reads that block from the package's source once, at import: a relative import of the
form ``X as X`` is a public name (PEP 484's re-export), loaded from its module when first used;
any other import there is for annotations only.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Any

__all__ = ["LazyNames"]


class LazyNames:
    """The lazy public names of the package whose globals these are."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self._namespace = namespace
        self._package: str = namespace["__name__"]
        self.homes: dict[str, str] = _homes(Path(namespace["__file__"]).read_text("utf-8"))
        """Public name -> the module it comes from, relative to the package (".core.records")."""
        self.all: list[str] = sorted(self.homes)
        """The package's ``__all__``."""

    def load(self, name: str) -> Any:
        """The public name's value, from its module (kept in the package once loaded)."""
        home = self.homes.get(name)
        if home is None:
            raise AttributeError(f"module {self._package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, self._package), name)
        self._namespace[name] = value
        return value


def _homes(source: str) -> dict[str, str]:
    homes: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom) or not statement.level:
                continue
            module = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                if alias.asname == alias.name:
                    homes[alias.name] = module
    return homes


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )
