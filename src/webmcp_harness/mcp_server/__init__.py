"""The MCP bridge: a page's WebMCP tools as an MCP server (``webmcp-harness serve``).

- ``Bridge(session, owner=..., transcript=...)``: page tools (every frame) and the ``browser_``
  tools, each call behind the check, answered with coded MCP results (``bridge.py``);
- ``build_server(bridge)``, ``serve_stdio(bridge)``, ``serve_http(bridge, port)``: the MCP SDK's
  low-level server on top (``server.py``);
- ``mcp_annotations(tool)``, ``expose(tools, main_frame_id)``: WebMCP annotations as MCP
  ``ToolAnnotations``, and the naming of tools across frames (``tools.py``).
"""

from __future__ import annotations

from .bridge import DEFAULT_MAX_OUTPUT_BYTES, Ask, Bridge
from .server import build_server, serve_http, serve_stdio
from .tools import BROWSER_TOOLS, expose, mcp_annotations

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
