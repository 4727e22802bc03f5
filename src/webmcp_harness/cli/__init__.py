"""`webmcp-harness`: the command line, a face over the library (click and rich live here only).

``main`` is the console script of pyproject.toml; each subcommand parses, calls the library and
prints. Diagnostics go to stderr.
"""

from __future__ import annotations

from .main import main

__all__ = ["main"]
