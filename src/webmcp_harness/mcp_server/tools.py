"""A page's WebMCP tools as MCP tools: names, annotations and the harness's ``browser_`` tools.

Naming (stable, documented in docs/mcp.md): tools are taken main frame first, then the other
frames in the order the session lists them. The first tool to hold a name keeps it. A later tool
of the same name (another frame), or a page tool whose name starts with ``browser_`` (reserved
for the harness), is named ``<name>__<frame host>`` (``ask_support__localhost-8123``), with
``_2``, ``_3``... added while that is taken too. Characters MCP does not allow in a name
(``[A-Za-z0-9_.-]``, 1 to 128 long) become ``_``. Each tool's ``_meta`` keeps the page's own name
and frame. The generic tools' names (``webmcp_list_tools``, ``webmcp_call_tool``) are reserved
the same way.

The harness's own tools (``BROWSER_TOOLS``): ``browser_open``, ``browser_wait_for_tool``,
``browser_confirm``, ``browser_screenshot``, and the generic ``webmcp_list_tools`` (the page's
tools now) and ``webmcp_call_tool {name, input, frame?}`` (a page tool by its page name, through
the same path and check as the per-tool names) for clients that never list tools again.

A page tool's spec (description, schema, annotations, the untrusted labels) is rendered by
``agent.specs.tool_spec``, the one renderer the gateway uses too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Final

from ..agent.specs import META, clean, mcp_annotations, tool_spec
from ..core.records import Tool
from ..core.urls import split_url

__all__ = [
    "BROWSER_TOOLS",
    "CALL_TOOL",
    "GENERIC_TOOLS",
    "LIST_TOOLS",
    "META",
    "clean",
    "expose",
    "mcp_annotations",
    "tool_spec",
]

_NAME_OK = re.compile(r"[^A-Za-z0-9_.-]")
_MAX_NAME: Final = 128
_RESERVED: Final = "browser_"
LIST_TOOLS: Final = "webmcp_list_tools"
CALL_TOOL: Final = "webmcp_call_tool"


def _host(tool: Tool) -> str:
    parts = split_url(tool.frame_url or "")
    host = parts.netloc or tool.frame_id or "frame"
    return _NAME_OK.sub("-", host)[:40] or "frame"


def expose(tools: Iterable[Tool], is_main: Callable[[Tool], bool]) -> dict[str, Tool]:
    """MCP name → tool, by the naming rules of the module docs (is_main: whether a tool is in
    the page's main frame, as `WebMCPSession.is_main_frame` says)."""
    ordered = sorted(tools, key=lambda t: not is_main(t))  # stable: keeps order
    out: dict[str, Tool] = {}
    taken: set[str] = set()
    for tool in ordered:
        base = _NAME_OK.sub("_", tool.name)[:_MAX_NAME] or "_"
        name = base
        if name in taken or name.startswith(_RESERVED) or name in (LIST_TOOLS, CALL_TOOL):
            name = f"{base}__{_host(tool)}"[:_MAX_NAME]
            stem, n = name, 2
            while name in taken:
                suffix = f"_{n}"
                name = stem[: _MAX_NAME - len(suffix)] + suffix
                n += 1
        taken.add(name)
        out[name] = tool
    return out


BROWSER_TOOLS: Final[tuple[dict[str, Any], ...]] = (
    {
        "name": "browser_open",
        "title": "Open a page",
        "description": (
            "Open a URL in the browser (absolute, or relative to the current page) and return the "
            "new page's tools. The tool list changes with the page."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {"url": {"type": "string", "description": "The URL to open."}},
            "required": ["url"],
            "additionalProperties": False,
        },
        "annotations": {
            "title": "Open a page",
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": True,
        },
    },
    {
        "name": "browser_wait_for_tool",
        "title": "Wait for a tool",
        "description": "Wait until the page has a tool of this name (it may register late).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name."},
                "timeout": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": "Seconds to wait (default: the server's --timeout).",
                },
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        "annotations": {"title": "Wait for a tool", "readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "browser_confirm",
        "title": "Submit a waiting form",
        "description": (
            "Act as the person: submit the form of a tool whose last call answered needs_user "
            "because it waits for a person to submit it, and return the form's answer."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {"tool": {"type": "string", "description": "The tool that waits."}},
            "required": ["tool"],
            "additionalProperties": False,
        },
        "annotations": {
            "title": "Submit a waiting form",
            "readOnlyHint": False,
            "destructiveHint": True,
            "openWorldHint": True,
        },
    },
    {
        "name": "browser_screenshot",
        "title": "Screenshot the page",
        "description": "A PNG screenshot of the page as it is now.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "full_page": {"type": "boolean", "description": "The whole page, not the view."}
            },
            "additionalProperties": False,
        },
        "annotations": {
            "title": "Screenshot the page",
            "readOnlyHint": True,
            "openWorldHint": False,
        },
    },
)
"""The harness's own tools, in ``tools/list`` shape."""

GENERIC_TOOLS: Final[tuple[dict[str, Any], ...]] = (
    {
        "name": LIST_TOOLS,
        "title": "List the page's tools",
        "description": (
            "The WebMCP tools of the page as it is now (every frame): name, description, input "
            "schema, annotations and frame. For clients that do not follow tools/list changes; "
            "call one with webmcp_call_tool."
        ),
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "annotations": {
            "title": "List the page's tools",
            "readOnlyHint": True,
            "openWorldHint": False,
        },
    },
    {
        "name": CALL_TOOL,
        "title": "Call a page tool",
        "description": (
            "Call a WebMCP tool of the page by its name, as webmcp_list_tools gives it, even one "
            "that appeared after tools/list. Same results, codes and check as calling the tool "
            "under its own name."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name on the page."},
                "input": {"type": "object", "description": "The tool's input (default {})."},
                "frame": {
                    "type": "string",
                    "description": "Which frame's tool: a frame id, origin or part of its URL "
                    "(default: the main frame's first).",
                },
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        "annotations": {
            "title": "Call a page tool",
            "readOnlyHint": False,
            "destructiveHint": True,
            "openWorldHint": True,
        },
    },
)
"""The generic tools, beside the per-tool names, in ``tools/list`` shape."""
