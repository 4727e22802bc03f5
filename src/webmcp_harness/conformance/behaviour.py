"""Behaviour checks: pure judgements of the call records a runner made (no browser here).

The runner calls a tool (with generated valid input, and with invalid input that bypasses the
harness's own validation) and hands each `CallRecord` to `check_call`, saying what the call was
for. Event names are the session's: navigated, detached, closed, crashed, disconnected, timeout.
"""

from __future__ import annotations

from typing import Any, Literal

from ..records import CallRecord, Tool
from ..results import tool_error_code
from .findings import Collector, Finding, Severity, excerpt
from .metadata import frame_of

__all__ = ["BEHAVIOUR_CHECKS", "Purpose", "check_call"]

Purpose = Literal["valid", "invalid", "plain"]

BEHAVIOUR_CHECKS = (
    "behaviour.answers",
    "behaviour.valid-result",
    "behaviour.accepts-valid-input",
    "behaviour.rejects-invalid-input",
    "behaviour.error-coded",
    "behaviour.no-navigation",
)
_LEFT_PAGE = {"navigated", "detached", "closed", "crashed", "disconnected"}


def _text_of(result: Any) -> str:
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        for item in result["content"]:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                return str(item["text"])
    return ""


def _shape_problem(output: Any) -> str | None:
    """Why what the page returned is not a usable tool result, or None."""
    if output == "[object Object]":
        return 'the tool returned the text "[object Object]" (an object turned into a string)'
    if isinstance(output, dict) and "content" in output:
        content = output["content"]
        if not isinstance(content, list):
            return '"content" is not a list'
        for index, item in enumerate(content[:1000]):
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                return f'content[{index}] has no "type"'
            if item["type"] == "text" and not isinstance(item.get("text"), str):
                return f'content[{index}] is a text item without a "text" string'
        if "isError" in output and not isinstance(output["isError"], bool):
            return '"isError" is not true or false'
    return None


def check_call(
    record: CallRecord,
    tool: Tool | None,
    *,
    page: str,
    purpose: Purpose = "plain",
    out: Collector | None = None,
) -> list[Finding]:
    """Judge one call: it answered in time, with a valid result, and behaved for its purpose.

    purpose "valid": the input was generated to fit the schema, and should be accepted.
    purpose "invalid": the input breaks the schema (sent past the harness's validation), and
    should be refused with invalid_input or an error, not accepted silently.
    """
    col = Collector(page)
    name = record.tool
    frame = frame_of(tool, page) if tool is not None else None
    declarative = record.declarative or bool(tool is not None and tool.declarative)
    ran = ["behaviour.answers", "behaviour.valid-result", "behaviour.error-coded"]
    if not declarative:
        ran.append("behaviour.no-navigation")
    if purpose == "valid":
        ran.append("behaviour.accepts-valid-input")
    elif purpose == "invalid":
        ran.append("behaviour.rejects-invalid-input")
    col.ran_all(ran, name, frame)

    def add(check_id: str, message: str, **kw: Any) -> None:
        col.add(check_id, message, tool=name, frame=frame, detail={"call": record.id}, **kw)

    result = record.result if isinstance(record.result, dict) else {}
    code_found = tool_error_code(result) if result else None
    code = record.code or (code_found.value if code_found is not None else None)
    events = {e.type for e in record.events}
    left = sorted(events & _LEFT_PAGE)
    given = excerpt(repr(record.input), 120)

    if code == "timeout" or (record.pending and code != "needs_user"):
        add(
            "behaviour.answers",
            f"Call #{record.id} with {given} got no answer in time. Answer every call (resolve "
            "or throw), even when the input is wrong, and honour cancellation.",
        )
    if record.browser.status == "Error" and "circular" in (
        str((record.browser.exception or {}).get("description", "")).lower()
    ):
        add(
            "behaviour.valid-result",
            f"Call #{record.id} returned something that is not JSON (a circular structure). "
            "Return plain data, a string, or an MCP result.",
        )
    elif record.browser.status == "Completed":
        problem = _shape_problem(record.browser.output)
        if problem:
            add(
                "behaviour.valid-result",
                f"Call #{record.id} returned an invalid result: {problem}. Return plain data, a "
                'string, or {content: [{type: "text", text}]}.',
            )
    if (
        result.get("isError") is True
        and code_found is None
        and record.browser.status == "Completed"
    ):
        add(
            "behaviour.error-coded",
            f"Call #{record.id} failed with {excerpt(_text_of(result), 100)}, without a known "
            "code. Start the text with Error [code]: (cancelled, interrupted, timeout, "
            "unavailable, invalid_input, needs_user, failed) or use toolError(code, message), "
            "so agents know what to do next.",
        )
    if not declarative and left:
        add(
            "behaviour.no-navigation",
            f"Call #{record.id} made the page leave ({', '.join(left)}). An imperative tool "
            "should answer, not navigate: update the page in place, or return a URL to open.",
        )
    if purpose == "valid" and code == "invalid_input":
        add(
            "behaviour.accepts-valid-input",
            f"Call #{record.id} with {given}, which fits the inputSchema, was refused as "
            f"invalid: {excerpt(_text_of(result), 120)}. Make the schema say what the tool "
            "really accepts (enum, pattern, minimum...), or accept the input.",
        )
    elif purpose == "valid" and code == "failed":
        add(
            "behaviour.accepts-valid-input",
            f"Call #{record.id} with {given}, which fits the inputSchema, failed: "
            f"{excerpt(_text_of(result), 120)}. If the input was the problem, say so in the "
            "schema; if not, check the tool.",
            severity=Severity.WARNING,
        )
    if purpose == "invalid" and code not in ("timeout",) and not record.pending:
        refused = code == "invalid_input" or result.get("isError") is True
        refused = refused or record.browser.status == "Error"
        if not refused:
            add(
                "behaviour.rejects-invalid-input",
                f"Call #{record.id} with {given}, which breaks the inputSchema, was accepted. "
                "Check the input and answer toolError('invalid_input', what is wrong), or throw.",
            )
    if out is not None:
        out.extend(col)
    return col.findings
