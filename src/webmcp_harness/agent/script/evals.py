"""webmcp-evals suites (``evals.json``) read as scripts: the smoke mode, with no model.

A suite is a JSON list of evals. Each eval has a ``name``, the ``messages`` a model would read,
and ``expectedCall``: the tool calls the model should make, a list of calls and of
``{"ordered": [...]}`` / ``{"unordered": [...]}`` groups. A call is ``functionName``,
``arguments`` (constraints allowed, see ``constraints``), an optional ``result`` the tool's
value must match, ``optional`` and ``mockOutput`` (for model runs without a page).

``load_evals(path)`` checks the whole suite first and raises ``ScriptError`` naming the place
(``evals.json: eval 2 ("Buy a tee"), expectedCall[0].arguments.size: ...``), or returns an
``EvalSuite``. ``suite.script(ev, url)`` is one eval as a ``Script``: open ``url``, then for each
required call in the order written (an ``unordered`` group too), wait for the tool and call it
with the arguments made concrete (``constraints.sample``), expecting its ``result`` (any result
when none is given). The users' messages become the owner's instructions, which the check reads.
Optional calls are left out; an eval with no required call has nothing to run without a model
and is skipped, with the reason.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .constraints import NO_SAMPLE, problems, sample
from .loading import read_script_file, unknown_key
from .model import (
    CallStep,
    Expect,
    OpenStep,
    Owner,
    Script,
    ScriptError,
    Step,
    WaitForToolStep,
)

__all__ = ["EvalCall", "EvalCase", "EvalSuite", "load_evals"]

EVAL_KEYS: Final = ("name", "messages", "expectedCall")
CALL_KEYS: Final = ("functionName", "arguments", "result", "mockOutput", "optional")
MESSAGE_TYPES: Final = ("message", "functioncall", "functionresponse")
ANY_RESULT: Final = {"$any": True}


@dataclass(frozen=True)
class EvalCall:
    """One required call of an eval: the tool, the arguments to send, the result to expect."""

    tool: str
    arguments: dict[str, Any]
    result: Any
    """The eval's ``result`` (``ANY_RESULT`` when it gives none)."""
    place: str


@dataclass(frozen=True)
class EvalCase:
    """One eval: its name, the users' messages, and its required calls in order."""

    index: int
    name: str
    instructions: str
    calls: tuple[EvalCall, ...]

    @property
    def skipped(self) -> str | None:
        """Why smoke mode can't run it, or None."""
        if self.calls:
            return None
        return "no required tool call: only a model run can show that it calls none"


@dataclass(frozen=True)
class EvalSuite:
    """A checked suite: its evals in file order."""

    name: str
    evals: tuple[EvalCase, ...]
    source: str | None = None

    def script(self, case: EvalCase, url: str) -> Script:
        """The eval as a script on a fresh page at ``url``."""
        steps: list[Step] = [OpenStep(url)]
        for call in case.calls:
            steps.append(WaitForToolStep(call.tool))
            steps.append(CallStep(call.tool, call.arguments, expect=Expect(matches=call.result)))
        return Script(
            name=case.name,
            steps=tuple(steps),
            owner=Owner(instructions=case.instructions),
            url=url,
            source=self.source,
        )


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} is given twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _Reader:
    def __init__(self, source: str | None) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> ScriptError:
        return ScriptError(None, f"{where}: {message}" if where else message, source=self.source)

    def suite(self, data: object, name: str) -> EvalSuite:
        if not isinstance(data, list):
            raise self.fail("", "a webmcp-evals suite is a JSON list of evals")
        if not data:
            raise self.fail("", "the suite has no evals")
        return EvalSuite(
            name, tuple(self.case(i, item) for i, item in enumerate(data)), self.source
        )

    def case(self, index: int, item: object) -> EvalCase:
        where = f"eval {index + 1}"
        if not isinstance(item, Mapping):
            raise self.fail(where, "an eval is an object with messages and expectedCall")
        for key in item:
            if key not in EVAL_KEYS:
                raise self.fail(where, unknown_key(key, "an eval", EVAL_KEYS))
        name = item.get("name")
        if name is not None and not isinstance(name, str):
            raise self.fail(where, "name must be text")
        instructions = self.messages(where, item.get("messages"))
        title = (name or "").strip() or instructions.split("\n", 1)[0].strip()
        title = title or f"eval {index + 1}"
        where = f"{where} ({json.dumps(title, ensure_ascii=False)})"
        if "expectedCall" not in item:
            raise self.fail(where, "expectedCall is missing (a list of calls, or null for none)")
        nodes = item["expectedCall"]
        if nodes is not None and not isinstance(nodes, list):
            raise self.fail(f"{where}, expectedCall", "must be a list of calls, or null")
        calls: list[EvalCall] = []
        self.nodes(f"{where}, expectedCall", nodes or [], calls)
        return EvalCase(index + 1, title, instructions, tuple(calls))

    def messages(self, where: str, messages: object) -> str:
        if messages is None:
            return ""
        if not isinstance(messages, list):
            raise self.fail(f"{where}, messages", "must be a list of messages")
        said: list[str] = []
        for i, message in enumerate(messages):
            here = f"{where}, messages[{i}]"
            if not isinstance(message, Mapping):
                raise self.fail(here, "a message is an object with role, type and content")
            kind = message.get("type", "message")
            if kind not in MESSAGE_TYPES:
                raise self.fail(here, f"type must be one of {', '.join(MESSAGE_TYPES)}")
            if kind == "message":
                content = message.get("content")
                if not isinstance(content, str):
                    raise self.fail(here, "a message's content must be text")
                if message.get("role", "user") == "user":
                    said.append(content)
        return "\n".join(said)

    def nodes(self, where: str, nodes: list[Any], calls: list[EvalCall]) -> None:
        for i, node in enumerate(nodes):
            here = f"{where}[{i}]"
            groups = [
                k for k in ("ordered", "unordered") if isinstance(node, Mapping) and k in node
            ]
            if isinstance(node, Mapping) and groups and len(node) == 1:
                inner = node[groups[0]]
                if not isinstance(inner, list):
                    raise self.fail(f"{here}.{groups[0]}", "must be a list of calls")
                self.nodes(f"{here}.{groups[0]}", inner, calls)
            elif isinstance(node, Mapping) and "functionName" in node:
                call = self.call(here, node)
                if call is not None:
                    calls.append(call)
            else:
                raise self.fail(
                    here,
                    'a call is {"functionName": ..., "arguments": {...}}, or a group '
                    '{"ordered": [...]} or {"unordered": [...]} with nothing beside it',
                )

    def call(self, where: str, node: Mapping[str, Any]) -> EvalCall | None:
        for key in node:
            if key not in CALL_KEYS:
                raise self.fail(where, unknown_key(key, "a call", CALL_KEYS))
        tool = node["functionName"]
        if not isinstance(tool, str) or not tool.strip():
            raise self.fail(f"{where}.functionName", "must be the tool's name")
        optional = node.get("optional", False)
        if not isinstance(optional, bool):
            raise self.fail(f"{where}.optional", "must be true or false")
        arguments = node.get("arguments")
        if arguments is not None and not isinstance(arguments, Mapping):
            raise self.fail(f"{where}.arguments", "must be an object (or null for any)")
        found = problems(arguments, f"{where}.arguments") + problems(
            node.get("result"), f"{where}.result"
        )
        if found:
            raise self.fail("", found[0])
        if optional:
            return None
        if arguments is None:
            raise self.fail(
                f"{where}.arguments",
                "the smoke run sends the arguments the eval gives, and this call gives none; "
                "write them ({} for a tool without arguments)",
            )
        concrete = sample(arguments)
        if concrete is NO_SAMPLE:
            bad = next(
                (f"{where}.arguments.{k}", v)
                for k, v in arguments.items()
                if sample(v) is NO_SAMPLE
            )
            raise self.fail(
                bad[0],
                f"no value to send meets {json.dumps(bad[1], ensure_ascii=False)}; "
                "write a concrete value (a model chooses one; a smoke run can't)",
            )
        result = node.get("result", ANY_RESULT)
        return EvalCall(tool, dict(concrete), result, where)


def load_evals(source: str | os.PathLike[str], *, name: str | None = None) -> EvalSuite:
    """Read and check a webmcp-evals suite file (``ScriptError`` naming the place)."""
    path = Path(source)
    shown = str(path)
    text = read_script_file(path, "suite")
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ScriptError(
            err.lineno, f"not JSON: {err.msg} (column {err.colno})", source=shown
        ) from None
    except (ValueError, RecursionError) as err:
        raise ScriptError(None, f"not JSON as webmcp-evals reads it: {err}", source=shown) from None
    return _Reader(shown).suite(data, name or path.stem)
