"""The MCP bridge: a page's WebMCP tools as an MCP server (``webmcp-harness serve``).

- ``Bridge(session, owner=..., transcript=...)``: page tools (every frame) and the ``browser_``
  tools, each call behind the check, answered with coded MCP results (``bridge.py``);
- ``build_server(bridge)``, ``serve_stdio(bridge)``, ``serve_http(bridge, port)``: the MCP SDK's
  low-level server on top (``server.py``);
- ``mcp_annotations(tool)``, ``expose(tools, is_main)``: WebMCP annotations as MCP
  ``ToolAnnotations``, and the naming of tools across frames (``tools.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.lazy import LazyNames

# The MCP SDK takes about a second to import: load it when a name is used, not with the CLI.
if TYPE_CHECKING:
    from .bridge import DEFAULT_MAX_OUTPUT_BYTES as DEFAULT_MAX_OUTPUT_BYTES
    from .bridge import Ask as Ask
    from .bridge import Bridge as Bridge
    from .server import build_server as build_server
    from .server import serve_http as serve_http
    from .server import serve_stdio as serve_stdio
    from .tools import BROWSER_TOOLS as BROWSER_TOOLS
    from .tools import expose as expose
    from .tools import mcp_annotations as mcp_annotations

_names = LazyNames(globals())
__all__ = _names.all


def __getattr__(name: str) -> Any:
    """A name of `__all__` from its module, loaded now."""
    return _names.load(name)
