"""A page's WebMCP tools as MCP tools: names, annotations and the harness's ``browser_`` tools.

Naming (stable, documented in docs/mcp.md): tools are taken main frame first, then the other
frames in the order the session lists them. The first tool to hold a name keeps it. A later tool
of the same name (another frame), or a page tool whose name starts with ``browser_`` (reserved
for the harness), is named ``<name>__<frame host>`` (``ask_support__localhost-8123``), with
``_2``, ``_3``... added while that is taken too. Characters MCP does not allow in a name
(``[A-Za-z0-9_.-]``, 1 to 128 long) become ``_``. Each tool's ``_meta`` keeps the page's own name
and frame.

Annotations (``mcp_annotations``): WebMCP's hints, in either spelling (the page's and MCP's
``readOnlyHint``, ``consequentialHint``; the DevTools protocol's ``readOnly``, ``consequential``):

- ``readOnlyHint`` ← ``readOnlyHint`` / ``readOnly``;
- ``destructiveHint`` ← ``consequentialHint`` / ``consequential``, only when the page said so
  (either way); absent otherwise, so MCP's default (true: may be destructive) stands;
- ``idempotentHint``, ``openWorldHint`` ← the same names when the page gives them; otherwise
  ``openWorldHint`` is true for a tool marked ``untrustedContentHint`` (what it returns comes
  from outside the site's control) and absent (MCP's default, true) for the rest;
- ``title`` ← the tool's title when the browser reports one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from ..core.records import Tool
from ..core.text import no_surrogates
from ..core.urls import split_url

__all__ = [
    "BROWSER_TOOLS",
    "META",
    "clean",
    "expose",
    "mcp_annotations",
    "tool_spec",
]

META: Final = "webmcp-harness/"
_NAME_OK = re.compile(r"[^A-Za-z0-9_.-]")
_MAX_NAME: Final = 128
_RESERVED: Final = "browser_"
_DEPTH: Final = 200


def clean(value: Any, depth: int = 0) -> Any:
    """A JSON-ready copy with lone surrogates replaced by U+FFFD (they cannot be sent as UTF-8)."""
    if isinstance(value, str):
        return no_surrogates(value)
    if depth > _DEPTH:
        return None
    if isinstance(value, Mapping):
        return {clean(str(k)): clean(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v, depth + 1) for v in value]
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    return clean(str(value))


def _flag(annotations: Mapping[str, Any], *keys: str) -> bool | None:
    for key in keys:
        value = annotations.get(key)
        if isinstance(value, bool):
            return value
    return None


def mcp_annotations(tool: Tool) -> dict[str, Any]:
    """The tool's WebMCP annotations as MCP ``ToolAnnotations`` (camelCase wire names)."""
    raw = tool.annotations if isinstance(tool.annotations, Mapping) else {}
    out: dict[str, Any] = {}
    title = _title(tool)
    if title:
        out["title"] = title
    read_only = _flag(raw, "readOnlyHint", "readOnly")
    if read_only is not None:
        out["readOnlyHint"] = read_only
    destructive = _flag(raw, "consequentialHint", "consequential")
    if destructive is None:
        destructive = _flag(raw, "destructiveHint", "destructive")
    if destructive is not None:
        out["destructiveHint"] = destructive
    idempotent = _flag(raw, "idempotentHint", "idempotent")
    if idempotent is not None:
        out["idempotentHint"] = idempotent
    open_world = _flag(raw, "openWorldHint", "openWorld")
    if open_world is None and _flag(raw, "untrustedContentHint", "untrustedContent"):
        open_world = True
    if open_world is not None:
        out["openWorldHint"] = open_world
    return out


def _title(tool: Tool) -> str | None:
    title = tool.title or tool.annotations.get("title")
    return str(title) if isinstance(title, str) and title.strip() else None


def _schema(schema: object) -> dict[str, Any]:
    """MCP needs an object schema at the root; a page's other schema is kept as its ``_meta``."""
    if not isinstance(schema, Mapping):
        return {"type": "object", "properties": {}}
    if "type" not in schema:
        return {"type": "object", **schema}
    if schema.get("type") != "object":
        return {"type": "object", "properties": {}}
    return dict(schema)


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
        if name in taken or name.startswith(_RESERVED):
            name = f"{base}__{_host(tool)}"[:_MAX_NAME]
            stem, n = name, 2
            while name in taken:
                suffix = f"_{n}"
                name = stem[: _MAX_NAME - len(suffix)] + suffix
                n += 1
        taken.add(name)
        out[name] = tool
    return out


def tool_spec(name: str, tool: Tool) -> dict[str, Any]:
    """One page tool in the MCP ``tools/list`` shape (camelCase), cleaned for the wire."""
    spec: dict[str, Any] = {
        "name": name,
        "description": tool.description,
        "inputSchema": _schema(tool.input_schema),
        "_meta": {
            f"{META}tool": tool.name,
            f"{META}frameId": tool.frame_id,
            f"{META}frameUrl": tool.frame_url,
            f"{META}declarative": tool.declarative,
            f"{META}annotations": dict(tool.annotations),
        },
    }
    title = _title(tool)
    if title:
        spec["title"] = title
    annotations = mcp_annotations(tool)
    if annotations:
        spec["annotations"] = annotations
    cleaned: dict[str, Any] = clean(spec)
    return cleaned


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
