"""Loading a script: YAML with the 1.2 core types, read into the model and checked before anything runs."""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal
from urllib.parse import urlsplit

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...core.results import ToolErrorCode
from ...core.text import TooBig, read_bounded
from ...core.timeouts import DEFAULT_TIMEOUT, MAX_TIMEOUT
from ..kinds import KINDS
from ..policy import REASONS
from .matching import parse_path
from .model import (
    DEFAULT_ATTEMPTS,
    MAX_ATTEMPTS,
    MAX_SCRIPT_BYTES,
    MISSING,
    ApproveStep,
    CallStep,
    ConfirmStep,
    Expect,
    OpenStep,
    Owner,
    Script,
    ScriptError,
    Step,
    WaitForToolStep,
    is_absolute,
)

_MAX_NODES: Final = 100_000
_MAX_DEPTH: Final = 100
_CODES: Final = tuple(c.value for c in ToolErrorCode)


# -- YAML with the 1.2 core types ------------------------------------------------------------
class _Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core scalars: no yes/no booleans, no timestamps, no sexagesimal."""


_DROP_TAGS = {
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:value",
}
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _DROP_TAGS]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?[0-9]+[eE][-+]?[0-9]+"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)

_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_STR = "tag:yaml.org,2002:str"


class _Reader:
    """Turns composed YAML nodes into checked values, with the line of anything wrong."""

    def __init__(self, source: str | None) -> None:
        self.source = source
        self.loader = _Loader("")
        self.nodes = 0

    def error(self, node: Node | None, message: str) -> ScriptError:
        return ScriptError(_line(node), message, source=self.source)

    def count(self, node: Node) -> None:
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise self.error(node, f"the script is too large (over {_MAX_NODES} YAML nodes)")

    def scalar(self, node: ScalarNode) -> Any:
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.YAMLError as err:
            raise self.error(node, _yaml_problem(err)) from None
        except (ValueError, TypeError, OverflowError) as err:
            raise self.error(node, f"can't read this value: {err}") from None

    def pairs(self, node: MappingNode, what: str) -> list[tuple[str, Node, Node]]:
        """A mapping's (key, key node, value node), keys text, no duplicates, merges applied."""
        if node.tag != _MAP:
            raise self.error(node, f"{what} must be a mapping, not {node.tag}")
        explicit = {id(k) for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge"}
        try:
            self.loader.flatten_mapping(node)
        except yaml.YAMLError as err:
            raise self.error(node, _yaml_problem(err)) from None
        seen: dict[str, Node] = {}
        out: dict[str, tuple[str, Node, Node]] = {}
        for key_node, value_node in node.value:
            self.count(key_node)
            if not isinstance(key_node, ScalarNode):
                raise self.error(key_node, f"keys in {what} must be text")
            key = self.scalar(key_node)
            if not isinstance(key, str):
                raise self.error(key_node, f"keys in {what} must be text, not {key!r}")
            if id(key_node) in explicit:
                if key in seen:
                    first = _line(seen[key])
                    raise self.error(
                        key_node, f"duplicate key {key!r} in {what} (also line {first})"
                    )
                seen[key] = key_node
            out[key] = (key, key_node, value_node)
        return list(out.values())

    def fields(
        self, node: Node, what: str, allowed: Sequence[str], required: Sequence[str] = ()
    ) -> dict[str, Node]:
        if not isinstance(node, MappingNode):
            raise self.error(node, f"{what} must be a mapping, not {_kind(node)}")
        got: dict[str, Node] = {}
        for key, key_node, value_node in self.pairs(node, what):
            if key not in allowed:
                raise self.error(key_node, unknown_key(key, what, allowed))
            got[key] = value_node
        for key in required:
            if key not in got:
                raise self.error(node, f"{what} needs {key!r}")
        return got

    def text(self, node: Node, what: str, *, empty: bool = False) -> str:
        if not isinstance(node, ScalarNode):
            raise self.error(node, f"{what} must be text, not {_kind(node)}")
        value = self.scalar(node)
        if not isinstance(value, str):
            raise self.error(node, f"{what} must be text, not {value!r}")
        if not empty and not value.strip():
            raise self.error(node, f"{what} must not be empty")
        return value

    def seconds(self, node: Node, what: str) -> float:
        value = self.scalar(node) if isinstance(node, ScalarNode) else None
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or not 0 < value <= MAX_TIMEOUT
        ):
            raise self.error(node, f"{what} must be a number of seconds, above 0 and at most 3600")
        return float(value)

    def boolean(self, node: Node, what: str) -> bool:
        value = self.scalar(node) if isinstance(node, ScalarNode) else None
        if not isinstance(value, bool):
            raise self.error(node, f"{what} must be true or false")
        return value

    def choice(self, node: Node, what: str, choices: Sequence[str]) -> str:
        value = self.scalar(node) if isinstance(node, ScalarNode) else None
        if not isinstance(value, str) or value not in choices:
            shown = value if isinstance(value, str) else _kind(node)
            raise self.error(node, f"{what} must be one of {', '.join(choices)}; got {shown!r}")
        return value

    def json(self, node: Node, what: str, depth: int = 0) -> Any:
        """Any JSON value: null, true/false, numbers, text, lists, mappings with text keys."""
        self.count(node)
        if depth > _MAX_DEPTH:
            raise self.error(node, f"{what} is nested too deeply (or refers to itself)")
        if isinstance(node, ScalarNode):
            value = self.scalar(node)
            if value is None or isinstance(value, (bool, int, str)):
                return value
            if isinstance(value, float):
                if not math.isfinite(value):
                    raise self.error(node, f"{what}: {node.value!r} is not a JSON number")
                return value
            raise self.error(node, f"{what}: {node.value!r} ({node.tag}) is not a JSON value")
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                raise self.error(node, f"{what}: {node.tag} is not a JSON value")
            return [self.json(item, what, depth + 1) for item in node.value]
        if isinstance(node, MappingNode):
            if node.tag != _MAP:
                raise self.error(node, f"{what}: {node.tag} is not a JSON value")
            return {k: self.json(v, what, depth + 1) for k, _, v in self.pairs(node, what)}
        raise self.error(node, f"{what} is not a JSON value")


def _line(node: Node | None) -> int | None:
    if node is None or getattr(node, "start_mark", None) is None:
        return None
    return int(node.start_mark.line) + 1


def _kind(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    return repr(node.value) if isinstance(node, ScalarNode) else "this"


def read_script_file(path: Path, what: str = "script") -> str:
    """A script file's text, at most ``MAX_SCRIPT_BYTES``; ScriptError saying why not."""
    try:
        return read_bounded(path, MAX_SCRIPT_BYTES, errors="strict")
    except UnicodeDecodeError as err:
        raise ScriptError(None, _not_utf8(err), source=str(path)) from None
    except TooBig as err:
        raise ScriptError(None, f"the {what} is too big: {err}", source=str(path)) from None
    except (OSError, ValueError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ScriptError(None, f"can't read the {what}: {reason}", source=str(path)) from None


def unknown_key(key: str, what: str, allowed: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, list(allowed), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown key {key!r} in {what}{hint}; expected one of: {', '.join(allowed)}"


def _yaml_problem(err: yaml.YAMLError) -> str:
    if isinstance(err, yaml.MarkedYAMLError):
        parts = [p for p in (err.context, err.problem) if p]
        return "; ".join(parts) if parts else "bad YAML"
    return str(err).splitlines()[0] if str(err) else "bad YAML"


_TOP: Final = ("name", "owner", "url", "timeout", "steps")
_CALL: Final = ("tool", "input", "source", "expect", "retry", "attempts", "timeout")
_EXPECT: Final = ("ok", "code", "kind", "held", "reason", "path", "equals", "contains")
_ACTIONS: Final = ("open", "call", "wait_for_tool", "confirm", "approve")


def _not_utf8(err: UnicodeDecodeError) -> str:
    bad = err.object[err.start : err.start + 1].hex()
    return (
        f"the script is not UTF-8 text: byte offset {err.start:,} (0x{bad}) is not UTF-8; "
        "save it as UTF-8"
    )


def load_script(source: str | bytes | os.PathLike[str], *, base_url: str | None = None) -> Script:
    """Parse a script from a file path or from YAML text; ScriptError with the line if bad.

    A ``PathLike``, or a one-line string ending in ``.yaml``/``.yml``, is read as a file; any
    other string is the script's text. ``base_url`` stands in for a missing ``url``.
    """
    name: str | None = None
    if isinstance(source, os.PathLike) or (
        isinstance(source, str)
        and "\n" not in source
        and source.strip().lower().endswith((".yaml", ".yml"))
    ):
        path = Path(os.fspath(source).strip() if isinstance(source, str) else os.fspath(source))
        name = str(path)
        text = read_script_file(path)
    elif isinstance(source, bytes):
        try:
            text = source.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ScriptError(None, _not_utf8(err)) from None
    elif isinstance(source, str):
        text = source
    else:
        raise ScriptError(None, f"a script is a path or YAML text, not {type(source).__name__}")
    return _parse(text, name, base_url)


def _parse(text: str, source: str | None, base_url: str | None) -> Script:
    reader = _Reader(source)
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else None
        raise ScriptError(line, f"bad YAML: {_yaml_problem(err)}", source=source) from None
    except yaml.reader.ReaderError as err:
        line = text.count("\n", 0, max(err.position, 0)) + 1
        raise ScriptError(line, f"bad YAML: {_yaml_problem(err)}", source=source) from None
    except yaml.YAMLError as err:
        raise ScriptError(None, f"bad YAML: {_yaml_problem(err)}", source=source) from None
    except RecursionError:
        raise ScriptError(None, "bad YAML: nested too deeply", source=source) from None
    if root is None:
        raise ScriptError(1, "the script is empty; it needs at least steps:", source=source)
    try:
        return _script(reader, root, source, base_url)
    except RecursionError:
        raise ScriptError(None, "the script is nested too deeply", source=source) from None


def _script(reader: _Reader, root: Node, source: str | None, base_url: str | None) -> Script:
    top = reader.fields(root, "the script", _TOP, required=("steps",))
    name = reader.text(top["name"], "name") if "name" in top else _default_name(source)
    owner = _owner(reader, top["owner"]) if "owner" in top else Owner()
    url = None
    if "url" in top:
        url = reader.text(top["url"], "url")
        if not is_absolute(url):
            raise reader.error(top["url"], f"url must be an absolute http(s) URL, not {url!r}")
    timeout = reader.seconds(top["timeout"], "timeout") if "timeout" in top else DEFAULT_TIMEOUT
    steps_node = top["steps"]
    if not isinstance(steps_node, SequenceNode) or steps_node.tag != _SEQ:
        raise reader.error(steps_node, f"steps must be a list, not {_kind(steps_node)}")
    if not steps_node.value:
        raise reader.error(steps_node, "steps is empty; a script needs at least one step")
    steps = tuple(_step(reader, node, url or base_url) for node in steps_node.value)
    return Script(name, steps, owner, url, timeout, source)


def _default_name(source: str | None) -> str:
    return Path(source).stem if source else "script"


def _owner(reader: _Reader, node: Node) -> Owner:
    if isinstance(node, ScalarNode):
        return Owner(reader.text(node, "owner"))
    got = reader.fields(node, "owner", ("name", "instructions"), required=("name",))
    instructions = ""
    if "instructions" in got:
        instructions = reader.text(got["instructions"], "owner instructions", empty=True)
    return Owner(reader.text(got["name"], "owner name"), instructions)


def _step(reader: _Reader, node: Node, base: str | None) -> Step:
    reader.count(node)
    if not isinstance(node, MappingNode):
        raise reader.error(
            node, f"a step is a mapping with one of: {', '.join(_ACTIONS)}; not {_kind(node)}"
        )
    pairs = reader.pairs(node, "a step")
    if len(pairs) != 1:
        keys = ", ".join(k for k, _, _ in pairs) or "nothing"
        raise reader.error(
            node, f"a step has exactly one of {', '.join(_ACTIONS)}; this one has {keys}"
        )
    action, key_node, value = pairs[0]
    line = _line(key_node)
    if action == "open":
        return _open(reader, value, line, base)
    if action == "call":
        return _call(reader, value, line)
    if action == "wait_for_tool":
        tool, got = _tool_or_fields(reader, value, "wait_for_tool", ("tool", "timeout"))
        timeout = reader.seconds(got["timeout"], "timeout") if "timeout" in got else None
        return WaitForToolStep(tool, timeout, line)
    if action == "confirm":
        tool, got = _tool_or_fields(reader, value, "confirm", ("tool", "timeout", "expect"))
        timeout = reader.seconds(got["timeout"], "timeout") if "timeout" in got else None
        expect = _expect(reader, got["expect"]) if "expect" in got else None
        return ConfirmStep(tool, expect, timeout, line)
    if action == "approve":
        tool, got = _tool_or_fields(reader, value, "approve", ("tool", "input"))
        approved = reader.json(got["input"], "input") if "input" in got else MISSING
        return ApproveStep(tool, approved, line)
    raise reader.error(key_node, unknown_key(action, "a step", _ACTIONS))


def _tool_or_fields(
    reader: _Reader, node: Node, what: str, allowed: Sequence[str]
) -> tuple[str, dict[str, Node]]:
    if isinstance(node, ScalarNode):
        return _tool_name(reader, node, what), {}
    got = reader.fields(node, what, allowed, required=("tool",))
    return _tool_name(reader, got["tool"], f"{what} tool"), got


def _tool_name(reader: _Reader, node: Node, what: str) -> str:
    name = reader.text(node, what)
    if name != name.strip():
        raise reader.error(node, f"{what}: the tool name {name!r} has spaces around it")
    return name


def _open(reader: _Reader, node: Node, line: int | None, base: str | None) -> OpenStep:
    timeout = None
    if isinstance(node, MappingNode):
        got = reader.fields(node, "open", ("url", "timeout"), required=("url",))
        url_node = got["url"]
        if "timeout" in got:
            timeout = reader.seconds(got["timeout"], "timeout")
    else:
        url_node = node
    url = reader.text(url_node, "open")
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError as exc:
        raise reader.error(url_node, f"open: {url!r} is not a URL ({exc})") from None
    if scheme and not is_absolute(url) and not re.fullmatch(r"[a-z]", scheme):
        raise reader.error(url_node, f"open: only http, https and file URLs, not {scheme}:")
    if not is_absolute(url) and not base:
        raise reader.error(
            url_node, f"open: {url!r} is relative; give the script a url (or a base URL)"
        )
    return OpenStep(url, timeout, line)


def _call(reader: _Reader, node: Node, line: int | None) -> CallStep:
    got = reader.fields(node, "call", _CALL, required=("tool",))
    tool = _tool_name(reader, got["tool"], "call tool")
    data = reader.json(got["input"], "input") if "input" in got else {}
    source = "owner"
    if "source" in got:
        source = reader.choice(got["source"], "source", ("owner", "page"))
    retry = reader.choice(got["retry"], "retry", ("auto", "none")) if "retry" in got else "none"
    attempts = 1 if retry == "none" else DEFAULT_ATTEMPTS
    if "attempts" in got:
        node_a = got["attempts"]
        value = reader.scalar(node_a) if isinstance(node_a, ScalarNode) else None
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ATTEMPTS:
            raise reader.error(node_a, f"attempts must be a whole number from 1 to {MAX_ATTEMPTS}")
        if retry != "auto":
            raise reader.error(node_a, "attempts needs retry: auto")
        attempts = value
    timeout = reader.seconds(got["timeout"], "timeout") if "timeout" in got else None
    expect = _expect(reader, got["expect"]) if "expect" in got else None
    return CallStep(
        tool,
        data,
        "page" if source == "page" else "owner",
        expect,
        "auto" if retry == "auto" else "none",
        attempts,
        timeout,
        line,
    )


def _expect(reader: _Reader, node: Node) -> Expect:
    got = reader.fields(node, "expect", _EXPECT)
    if not got:
        raise reader.error(node, f"expect is empty; give one of: {', '.join(_EXPECT)}")
    ok = reader.boolean(got["ok"], "ok") if "ok" in got else None
    code = reader.choice(got["code"], "code", _CODES) if "code" in got else None
    kind = reader.choice(got["kind"], "kind", KINDS) if "kind" in got else None
    held: Literal["ask", "stop"] | None = None
    if "held" in got:
        held = "ask" if reader.choice(got["held"], "held", ("ask", "stop")) == "ask" else "stop"
    reason = None
    if "reason" in got:
        text = reader.text(got["reason"], "reason").replace("\u2019", "'")
        if text not in REASONS:
            listed = "; ".join(REASONS)
            raise reader.error(got["reason"], f"reason must be one of, word for word: {listed}")
        reason = text
    if ok is True and (code or kind or held or reason):
        raise reader.error(node, "ok: true can't go with code, kind, held or reason")
    if (held or reason) and (code or kind or ok is not None):
        raise reader.error(node, "held and reason can't go with ok, code or kind")
    path = path_text = None
    if "path" in got:
        path_text = reader.text(got["path"], "path")
        try:
            path = parse_path(path_text)
        except ValueError as err:
            raise reader.error(got["path"], str(err)) from None
        if "equals" not in got and "contains" not in got:
            raise reader.error(got["path"], "path needs equals or contains")
    equals = reader.json(got["equals"], "equals") if "equals" in got else MISSING
    contains = reader.json(got["contains"], "contains") if "contains" in got else MISSING
    return Expect(ok, code, kind, held, reason, path, path_text, equals, contains, _line(node))
