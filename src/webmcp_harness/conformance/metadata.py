"""Discovery and metadata checks: pure functions over the tools a page exposes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..core.records import Tool
from ..core.schema import schema_hazard
from ..core.urls import defrag_url
from . import ids
from .findings import Collector, Finding, Severity, excerpt

__all__ = [
    "DISCOVERY_CHECKS",
    "MAX_DESCRIPTION",
    "MAX_TOOLS_PER_PAGE",
    "METADATA_CHECKS",
    "TOOL_NAME",
    "check_discovery",
    "check_metadata",
    "check_tool_metadata",
    "frame_of",
    "input_schema_problem",
]

TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
MAX_TOOLS_PER_PAGE = 50
MAX_DESCRIPTION = 500
MIN_DESCRIPTION_WORDS = 3
_LISTED = 10  # names quoted in one message at most
_META = Draft202012Validator(
    Draft202012Validator.META_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER
)

DISCOVERY_CHECKS = (ids.DISCOVERY_TOOLS_FOUND, ids.DISCOVERY_TOOL_COUNT, ids.DISCOVERY_NAMES_UNIQUE)
METADATA_CHECKS = (
    ids.METADATA_NAME_VALID,
    ids.METADATA_DESCRIPTION_PRESENT,
    ids.METADATA_DESCRIPTION_USEFUL,
    ids.METADATA_DESCRIPTION_LENGTH,
    ids.METADATA_SCHEMA_VALID,
    ids.METADATA_SCHEMA_OBJECT,
    ids.METADATA_PARAMS_DESCRIBED,
    ids.METADATA_REQUIRED_DEFINED,
    ids.METADATA_PARAMS_IN_PROPERTIES,
)
# JSON Schema keywords an object schema may have at its top level (2020-12 and older drafts).
_SCHEMA_KEYWORDS = frozenset(
    [
        "$schema",
        "$id",
        "$ref",
        "$defs",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$vocabulary",
        "$comment",
        "definitions",
        "type",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "unevaluatedProperties",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "enum",
        "const",
        "default",
        "examples",
        "title",
        "description",
        "readOnly",
        "writeOnly",
        "deprecated",
        "format",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
        "items",
        "prefixItems",
        "contains",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minContains",
        "maxContains",
        "unevaluatedItems",
        "additionalItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "nullable",
        "discriminator",
        "x-order",
    ]
)


def frame_of(tool: Tool, page: str) -> str | None:
    """The frame to name in a finding: the tool's frame URL, or None for the page itself (its
    fragment aside: a page may rewrite it as it runs)."""
    if tool.frame_url and defrag_url(tool.frame_url)[0] != defrag_url(page)[0]:
        return tool.frame_url
    return None


def _listing(names: Sequence[str]) -> str:
    shown = ", ".join(excerpt(n, 40) for n in names[:_LISTED])
    more = len(names) - _LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def check_discovery(
    tools: Sequence[Tool],
    *,
    page: str,
    out: Collector | None = None,
    expect_tools: bool = True,
    max_tools: int = MAX_TOOLS_PER_PAGE,
    why_none: str | None = None,
) -> list[Finding]:
    """Page-level checks: tools found, not too many, names unique across frames.

    expect_tools=False (a page reached by crawling, or one meant to have none) makes a page
    without tools an info. why_none says what the runner saw (a script that crashed, say).
    """
    col = Collector(page)
    col.ran_all(DISCOVERY_CHECKS)
    if not tools:
        col.add(
            ids.DISCOVERY_TOOLS_FOUND,
            "No WebMCP tools on this page"
            + (f": {why_none}" if why_none else "")
            + ". Register tools with document.modelContext.registerTool() or mark a form with "
            "toolname and tooldescription (if the page is meant to have none, pass "
            "--allow-no-tools, or give it an allow-no-tools entry in a --config file).",
            severity=None if expect_tools else Severity.INFO,
        )
    if len(tools) > max_tools:
        col.add(
            ids.DISCOVERY_TOOL_COUNT,
            f"{len(tools)} tools on one page (more than {max_tools}). Agents choose worse from long "
            "lists and may truncate them: register only the tools this page needs.",
            detail={"count": len(tools)},
        )
    frames_by_name: dict[str, list[Tool]] = {}
    for tool in tools:
        frames_by_name.setdefault(tool.name, []).append(tool)
    for name, same in frames_by_name.items():
        if len(same) < 2:
            continue
        frame_ids = [t.frame_id for t in same]
        where = sorted({t.frame_url or t.frame_id for t in same})
        if len(set(frame_ids)) < len(frame_ids):
            col.add(
                ids.DISCOVERY_NAMES_UNIQUE,
                f"Tool {excerpt(name, 60)} is registered {len(same)} times in the same frame. "
                "Register each name once (the spec rejects a duplicate name).",
                tool=name,
                severity=Severity.ERROR,
                detail={"frames": where},
            )
        else:
            col.add(
                ids.DISCOVERY_NAMES_UNIQUE,
                f"Tool {excerpt(name, 60)} is registered in {len(same)} frames "
                f"({_listing(where)}). An agent sees one name for different tools: give each a "
                "distinct name.",
                tool=name,
                detail={"frames": where},
            )
    if out is not None:
        out.extend(col)
    return col.findings


def check_metadata(
    tools: Sequence[Tool], *, page: str, out: Collector | None = None
) -> list[Finding]:
    """The metadata checks for every tool of a page."""
    col = Collector(page)
    for tool in tools:
        check_tool_metadata(tool, page=page, out=col)
    if out is not None:
        out.extend(col)
    return col.findings


def _words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w for w in re.split(r"[\s_.\-:;,/()]+", spaced.lower()) if w]


def check_tool_metadata(tool: Tool, *, page: str, out: Collector | None = None) -> list[Finding]:
    """Name, description and inputSchema checks for one tool."""
    col = Collector(page)
    frame = frame_of(tool, page)
    name = tool.name
    col.ran_all(METADATA_CHECKS, name, frame)

    def add(check_id: str, message: str, **kw: Any) -> None:
        col.add(check_id, message, tool=name, frame=frame, **kw)

    if not TOOL_NAME.fullmatch(name):
        add(ids.METADATA_NAME_VALID, _name_problem(name))

    description = tool.description if isinstance(tool.description, str) else ""
    if not description.strip():
        add(
            ids.METADATA_DESCRIPTION_PRESENT,
            "The tool has no description. Say what it does, what it returns, and when an agent "
            "should use it.",
        )
    else:
        words = _words(description)
        if words == _words(name):
            add(
                ids.METADATA_DESCRIPTION_USEFUL,
                f"The description {excerpt(description)} only repeats the tool's name. Say what "
                "it does, what it returns, and when to use it.",
            )
        elif len(words) < MIN_DESCRIPTION_WORDS:
            add(
                ids.METADATA_DESCRIPTION_USEFUL,
                f"The description {excerpt(description)} is too short to tell an agent when to "
                "use the tool. Say what it does, what it returns, and when to use it.",
            )
        if len(description) > MAX_DESCRIPTION:
            add(
                ids.METADATA_DESCRIPTION_LENGTH,
                f"The description is {len(description):,} characters long. Keep it under "
                f"{MAX_DESCRIPTION} (Chrome's guidance): long descriptions crowd the agent's "
                "context and are where injected instructions hide.",
                detail={"length": len(description)},
            )

    schema = tool.input_schema
    if schema is None:
        pass  # a tool that takes no input: nothing to check
    elif (problem := input_schema_problem(schema)) is not None:
        add(ids.METADATA_SCHEMA_VALID, problem)
    elif (hazard := schema_hazard(schema)) is not None:  # a $ref outside, a ReDoS pattern
        add(ids.METADATA_SCHEMA_VALID, f"The inputSchema is unsafe to use: {hazard}.")
    if isinstance(schema, dict):
        _check_schema_shape(schema, add)
    if out is not None:
        out.extend(col)
    return col.findings


def _name_problem(name: str) -> str:
    if not name:
        return "The tool name is empty. Use 1-128 characters from A-Z, a-z, 0-9, _, - and ."
    if len(name) > 128:
        return (
            f"The tool name is {len(name):,} characters long (at most 128). Use a short name "
            "from A-Z, a-z, 0-9, _, - and ."
        )
    bad = sorted({c for c in name if not TOOL_NAME.fullmatch(c)})
    shown = " ".join(f"U+{ord(c):04X}" if not c.isprintable() or c.isspace() else c for c in bad)
    return (
        f"The tool name {excerpt(name, 60)} has characters the spec does not allow ({shown}). "
        "Use only A-Z, a-z, 0-9, _, - and . (a polyfill may accept it; Chromium refuses it)."
    )


def input_schema_problem(schema: Any) -> str | None:
    """Why schema is not a valid JSON Schema (2020-12 meta-schema), or None."""
    if not isinstance(schema, dict):
        kind = "an array" if isinstance(schema, list) else type(schema).__name__
        return f"inputSchema must be a JSON Schema object, not {kind}."
    try:
        text = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        return f"inputSchema is not JSON: {excerpt(str(exc), 200)}."
    return _meta_problem(text)


@lru_cache(maxsize=4096)
def _meta_problem(text: str) -> str | None:
    """The meta-schema check, once per distinct schema (pages repeat schemas a lot)."""
    try:
        error = best_match(_META.iter_errors(json.loads(text)))
    except (RecursionError, ValueError) as exc:  # pathological nesting, bad regexes
        return f"inputSchema could not be checked: {excerpt(str(exc), 200)}."
    if error is None:
        return None
    where = "/" + "/".join(str(p) for p in error.absolute_path)
    return (
        f"inputSchema is not a valid JSON Schema: {excerpt(error.message, 200)} "
        f"(at {where}). Fix it so agents and validators can read it."
    )


def _check_schema_shape(schema: dict[str, Any], add: Callable[..., None]) -> None:
    kind = schema.get("type")
    if not schema:
        # {} is a JSON Schema that accepts anything, which is all the spec asks of inputSchema
        # (React hooks register it for tools without input): said, not held against the page.
        add(
            ids.METADATA_SCHEMA_OBJECT,
            "inputSchema is {}, which accepts any value; the tool is called with {}. If it takes "
            'no input, {"type": "object", "properties": {}} says so to MCP clients that require '
            "an object schema.",
            severity=Severity.INFO,
        )
    elif kind != "object":
        shown = "no type" if kind is None else f'"type": {excerpt(str(kind), 40)}'
        add(
            ids.METADATA_SCHEMA_OBJECT,
            f'inputSchema has {shown}; a tool\'s input is an object: use "type": "object" '
            'with "properties".',
        )
    properties = schema.get("properties")
    props: dict[str, Any] = properties if isinstance(properties, dict) else {}
    undescribed = [
        key
        for key, sub in props.items()
        if isinstance(sub, dict)
        and not (isinstance(sub.get("description"), str) and sub["description"].strip())
    ]
    if undescribed:
        add(
            ids.METADATA_PARAMS_DESCRIBED,
            f"{len(undescribed)} parameter(s) without a description: {_listing(undescribed)}. "
            "Describe each parameter: what it means, its format, an example.",
            detail={"params": undescribed[:100]},
        )
    stray = [
        key
        for key, sub in schema.items()
        if key not in _SCHEMA_KEYWORDS
        and not key.startswith("x-")
        and isinstance(sub, dict)
        and (isinstance(sub.get("type"), (str, list)) or "description" in sub or "enum" in sub)
    ]
    if stray:
        add(
            ids.METADATA_PARAMS_IN_PROPERTIES,
            f"{_listing(stray)} {'looks' if len(stray) == 1 else 'look'} like parameters but "
            'sit beside "properties", not in it, '
            'so agents do not see them as parameters. Move them into "properties".',
            detail={"params": stray[:100]},
        )
    required = schema.get("required")
    if isinstance(required, list):
        missing = [k for k in required if isinstance(k, str) and k not in props]
        if missing:
            add(
                ids.METADATA_REQUIRED_DEFINED,
                f"required lists {_listing(missing)}, not defined in properties. Define each "
                "required parameter (type and description), or drop it from required.",
                detail={"params": missing[:100]},
            )
