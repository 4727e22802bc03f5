"""`webmcp-harness`: the command line, a face over the library (click and rich live here only).

``main`` is the command group; ``start``, the console script of pyproject.toml, runs it and
exits. Each subcommand parses, calls the library and prints. Diagnostics go to stderr.
"""

from __future__ import annotations

from .main import main, start

__all__ = ["main", "start"]
