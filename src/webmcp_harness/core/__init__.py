"""The rules of the harness: coded results, records, errors, argument checks. Pure Python.

Nothing here starts a browser, prints to a terminal or reads a command line: no Playwright,
click, rich, pytest or yaml (tests/test_layers.py holds every module of this layer to that).
Import from the modules themselves; the public names are re-exported by ``webmcp_harness``.
"""

from __future__ import annotations

__all__: list[str] = []
