"""The coded outcome of a ``use_tool`` answer: what scripts expect and replays compare.

An outcome keeps only what is coded, never what varies from run to run (order numbers, times):
``ok`` (the tool's result came back), ``code`` (the harness's result code, when known),
``kind`` (the failure's kind), ``held`` (``"ask"`` or ``"stop"`` when the check held the call
back) and ``reason`` (the check's reason, word for word).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .kinds import is_failure
from .policy import REASONS

__all__ = ["Outcome", "answer_text", "tool_value"]

_ASK_HEAD = "Check with "
_STOP_HEAD = "Not done: "


@dataclass(frozen=True)
class Outcome:
    """What an answer says, coded: ok, code, kind, held, reason."""

    ok: bool
    code: str | None = None
    kind: str | None = None
    held: Literal["ask", "stop"] | None = None
    reason: str | None = None

    @classmethod
    def of(cls, answer: object, *, code: str | None = None) -> Outcome:
        """The outcome of what ``use_tool`` returned; ``code`` is the call's result code if any."""
        if isinstance(answer, Mapping):
            ask = answer.get("not_done_yet")
            stop = answer.get("refused")
            if isinstance(ask, str) and len(answer) == 1:
                return cls(False, None, None, "ask", _reason_in(ask))
            if isinstance(stop, str) and len(answer) == 1:
                return cls(False, None, None, "stop", _reason_in(stop))
            if is_failure(answer):
                return cls(False, code, str(answer["error"]))
        return cls(True, code)

    @classmethod
    def from_dict(cls, data: object) -> Outcome | None:
        """An outcome read back from ``to_dict`` (None for anything else)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("ok"), bool):
            return None
        held = data.get("held")
        return cls(
            bool(data["ok"]),
            _str_or_none(data.get("code")),
            _str_or_none(data.get("kind")),
            held if held in ("ask", "stop") else None,
            _str_or_none(data.get("reason")),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "code": self.code,
            "kind": self.kind,
            "held": self.held,
            "reason": self.reason,
        }

    def describe(self) -> str:
        """A short line: ``ok``, ``held (ask): <reason>``, ``bad_input (invalid_input)``."""
        if self.held:
            return f"held ({self.held}): {self.reason}" if self.reason else f"held ({self.held})"
        if self.ok:
            return f"ok ({self.code})" if self.code else "ok"
        return f"{self.kind} ({self.code})" if self.code else str(self.kind)


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _reason_in(text: str) -> str | None:
    for reason in REASONS:
        if f": {reason}. " in text:
            return reason
    return None


def answer_text(answer: object) -> str:
    """The text of an answer: a result's text parts (joined by newlines), a failure's message,
    a held call's message; compact JSON for anything else."""
    if isinstance(answer, Mapping):
        for key in ("not_done_yet", "refused"):
            if isinstance(answer.get(key), str) and len(answer) == 1:
                return str(answer[key])
        if is_failure(answer):
            return str(answer["message"])
        content = answer.get("content")
        if isinstance(content, list):
            return "\n".join(
                str(item.get("text", ""))
                for item in content
                if isinstance(item, Mapping) and item.get("type") == "text"
            )
    if isinstance(answer, str):
        return answer
    try:
        return json.dumps(answer, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return str(answer)


def tool_value(answer: object) -> tuple[bool, Any]:
    """The value a tool answered with: ``structuredContent``, else its first text part parsed as
    JSON. ``(False, None)`` when there is none."""
    if not isinstance(answer, Mapping):
        return False, None
    structured = answer.get("structuredContent")
    if isinstance(structured, Mapping):
        return True, structured
    content = answer.get("content")
    if isinstance(content, list):
        for item in content:
            if isinstance(item, Mapping) and item.get("type") == "text":
                try:
                    return True, json.loads(str(item.get("text", "")))
                except (ValueError, RecursionError):
                    return False, None
    return False, None
