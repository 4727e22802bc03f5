"""The MCP bridge: a page's WebMCP tools as an MCP server (``webmcp-harness serve``).

- ``Bridge(session, owner=..., transcript=...)``: page tools (every frame) and the ``browser_``
  tools, each call behind the check, answered with coded MCP results (``bridge.py``);
- ``build_server(bridge)``, ``serve_stdio(bridge)``, ``serve_http(bridge, port)``: the MCP SDK's
  low-level server on top (``server.py``);
- ``mcp_annotations(tool)``, ``expose(tools, is_main)``: WebMCP annotations as MCP
  ``ToolAnnotations``, and the naming of tools across frames (``tools.py``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bridge import DEFAULT_MAX_OUTPUT_BYTES, Ask, Bridge
    from .server import build_server, serve_http, serve_stdio
    from .tools import BROWSER_TOOLS, expose, mcp_annotations

# The MCP SDK takes about a second to import: load it when a name is used, not with the CLI.
_HOME = {
    "BROWSER_TOOLS": "tools",
    "DEFAULT_MAX_OUTPUT_BYTES": "bridge",
    "Ask": "bridge",
    "Bridge": "bridge",
    "build_server": "server",
    "expose": "tools",
    "mcp_annotations": "tools",
    "serve_http": "server",
    "serve_stdio": "server",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BROWSER_TOOLS",
    "DEFAULT_MAX_OUTPUT_BYTES",
    "Ask",
    "Bridge",
    "build_server",
    "expose",
    "mcp_annotations",
    "serve_http",
    "serve_stdio",
]
