"""Behaviour checks: the one judge of the call records a runner made (no browser here).

The runner calls a tool (with generated valid input, and with invalid input that bypasses the
harness's own validation) and hands each `CallRecord` to `check_call`, saying what the call was
for. `check_call` is the only place a call is judged: the `check` command uses it too. Event names
are the session's (navigated, detached, closed, crashed, disconnected, timeout) and the runner's
(pageNavigated: the main frame started a new document during the call).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ..core.coding import code_report, normalise_output, removed_api
from ..core.errors import ToolErrorCode
from ..core.records import CallRecord, Tool
from ..core.results import is_error_text, tool_error_code
from . import ids
from .findings import Collector, Finding, Severity, excerpt
from .metadata import frame_of

__all__ = [
    "BEHAVIOUR_CHECKS",
    "BUG_ERRORS",
    "GONE_EVENTS",
    "Purpose",
    "answered_normally",
    "check_call",
    "page_text",
    "reads_as_failure",
    "result_problem",
]

Purpose = Literal["valid", "invalid", "plain"]

BEHAVIOUR_CHECKS = (
    ids.BEHAVIOUR_ANSWERS,
    ids.BEHAVIOUR_VALID_RESULT,
    ids.BEHAVIOUR_ACCEPTS_VALID_INPUT,
    ids.BEHAVIOUR_REJECTS_INVALID_INPUT,
    ids.BEHAVIOUR_ERROR_CODED,
    ids.BEHAVIOUR_FAILURE_FLAGGED,
    ids.BEHAVIOUR_NO_NAVIGATION,
    ids.BEHAVIOUR_FORM_RESULT_DATA,
)
# Thrown errors that are bugs in the tool's code, not answers about the input.
BUG_ERRORS = frozenset({"TypeError", "ReferenceError", "SyntaxError", "RangeError"})
GONE_EVENTS = frozenset({"crashed", "closed", "disconnected"})
"""Call record events that say the page went away (crashed, closed, its browser lost)."""
_LEFT_PAGE = frozenset({"navigated", "pageNavigated", "detached"})
_KNOWN_CODES = frozenset(c.value for c in ToolErrorCode)
_MCP_CONTENT_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link"})
_UNSERIALISABLE = (
    "circular structure",
    "BigInt",
    "could not be cloned",
    "cyclic object",
    "Converting circular",
)
_FORM_VALIDATION = "Form validation failed"  # Chromium's refusal by a form's HTML rules
_FAILURE_STATUS = frozenset({"error", "failed", "failure", "fail", "invalid"})


def _short(value: Any, limit: int = 120) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return excerpt(text, limit)


def _first_text(value: Any) -> str:
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        for item in value["content"]:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                return str(item["text"])
    return ""


def result_problem(output: Any) -> str | None:
    """Why a tool's answer is not a valid MCP tool result, or None.

    Plain values (strings, objects without `content`) are fine: the harness wraps them. An object
    that looks like an MCP result (it has `content` or `isError`) must be one.
    """
    if output == "[object Object]":
        return 'the tool returned the text "[object Object]" (an object turned into a string)'
    if not isinstance(output, dict) or not ("content" in output or "isError" in output):
        return None
    content = output.get("content")
    if not isinstance(content, list):
        kind = "missing" if content is None else f"a {type(content).__name__}"
        return f'"content" must be a list of content items, but it is {kind}'
    for index, item in enumerate(content[:1_000]):
        where = f"content[{index}]"
        if not isinstance(item, dict):
            return f"{where} must be an object, not {_short(item, 40)}"
        kind = str(item.get("type"))
        if kind not in _MCP_CONTENT_TYPES:
            return (
                f"{where} has type {_short(item.get('type'), 40)}; use text, image, audio, "
                "resource or resource_link"
            )
        if kind == "text" and not isinstance(item.get("text"), str):
            return f'{where} is a text item without a "text" string'
        if kind in ("image", "audio") and not (
            isinstance(item.get("data"), str) and isinstance(item.get("mimeType"), str)
        ):
            return f'{where} is an {kind} item without "data" and "mimeType" strings'
        if kind == "resource" and not isinstance(item.get("resource"), dict):
            return f'{where} is a resource item without a "resource" object'
        if kind == "resource_link" and not isinstance(item.get("uri"), str):
            return f'{where} is a resource_link item without a "uri" string'
    if "isError" in output and not isinstance(output["isError"], bool):
        return f'"isError" must be true or false, not {_short(output["isError"], 40)}'
    structured = output.get("structuredContent")
    if "structuredContent" in output and not isinstance(structured, dict):
        return f'"structuredContent" must be an object, not {_short(structured, 40)}'
    return None


def _exception(record: CallRecord) -> dict[str, Any]:
    exc = record.browser.exception
    return exc if isinstance(exc, dict) else {}


def page_text(record: CallRecord) -> str:
    """What the page itself said in its answer (never the harness's own coded text)."""
    report = record.browser
    if report.status == "Completed":
        value = normalise_output(report.output)
        return value if isinstance(value, str) else _first_text(value)
    if report.status == "Error":
        exc = _exception(record)
        message = exc.get("message")
        if isinstance(message, str) and message:
            return message
        description = exc.get("description")
        if isinstance(description, str) and description:
            return description.split("\n    at ")[0]
        if "value" in exc:
            return str(exc.get("value"))
        return report.error_text or ""
    return ""


def _thrown_bug(record: CallRecord) -> str | None:
    """The name of a thrown TypeError, ReferenceError, SyntaxError or RangeError, or None."""
    if record.browser.status != "Error":
        return None
    exc = _exception(record)
    for key in ("name", "className"):
        name = exc.get(key)
        if isinstance(name, str) and name in BUG_ERRORS:
            return name
    description = str(exc.get("description") or record.browser.error_text or "")
    head = description.split(":", 1)[0].strip()
    return head if head in BUG_ERRORS else None


def _page_error_code(record: CallRecord) -> tuple[bool, str | None]:
    """Whether the page itself answered with an error, and the code it gave (None: none known).

    Only what the page chose counts: errors the harness or the browser coded (timeouts,
    interruptions, form validation) and plain thrown errors (the harness codes them failed) do not.
    """
    report = record.browser
    if report.status == "Completed":
        value = normalise_output(report.output)
        if isinstance(value, dict) and isinstance(value.get("content"), list):
            text = _first_text(value)
            if value.get("isError") is True or is_error_text(text):
                code = tool_error_code(value)
                return True, code.value if code is not None else None
            return False, None
        if isinstance(value, str) and is_error_text(value):
            code = tool_error_code({"content": [{"type": "text", "text": value}]})
            return True, code.value if code is not None else None
        return False, None
    if report.status == "Error":
        exc = _exception(record)
        code = exc.get("code")
        if isinstance(code, str) and code:  # (a DOMException's numeric legacy code is no code)
            return True, code if code in _KNOWN_CODES else None
        message = exc.get("message")
        if isinstance(message, str) and message.startswith("Error ["):
            coded = tool_error_code({"content": [{"type": "text", "text": message}]})
            return True, coded.value if coded is not None else None
    return False, "known"


def reads_as_failure(output: Any) -> str | None:
    """Why an answer not marked isError reads as a failure to an agent, or None.

    `{"status": "error"}` (or `"failed"`), an object whose `error` is set, a list of validation
    errors (`[{message, path}]`), or text that starts with "Error" but is not an `Error [code]:`
    or `Error:` answer the harness already codes.
    """
    value = normalise_output(output)
    if isinstance(value, dict) and "content" in value:
        if value.get("isError") is True:
            return None
        text = _first_text(value)
        parsed = normalise_output(text) if text[:1] in ("{", "[") else None
        if isinstance(parsed, (dict, list)):
            return reads_as_failure(parsed)
        value = text
    if isinstance(value, str):
        head = value.lstrip()[:40]
        if head[:5].lower() == "error" and not is_error_text(value):
            return f"its text starts with {excerpt(head, 40)}"
        return None
    if isinstance(value, dict):
        status = value.get("status")
        if isinstance(status, str) and status.strip().lower() in _FAILURE_STATUS:
            return f'it says "status": {_short(status, 30)}'
        if value.get("success") is False or value.get("ok") is False:
            return 'it says "success" or "ok" is false'
        error = value.get("error") if "error" in value else value.get("errors")
        if error not in (None, False, "", [], {}):
            return f'it carries an "error": {_short(error, 60)}'
        return None
    if isinstance(value, list) and value:
        items = value[:50]
        if all(
            isinstance(item, dict)
            and "message" in item
            and ("path" in item or "code" in item or "field" in item)
            for item in items
        ):
            return "it is a list of validation errors (a message and a path or field each)"
    return None


def answered_normally(record: CallRecord, tool: Tool | None) -> bool:
    """Whether the page survived the call, answered it, and stayed (worth calling again)."""
    events = {e.type for e in record.events}
    if events & GONE_EVENTS:
        return False
    if record.code == ToolErrorCode.TIMEOUT or (
        record.pending and record.code != ToolErrorCode.NEEDS_USER
    ):
        return False
    declarative = record.declarative or bool(tool is not None and tool.declarative)
    return declarative or not events & _LEFT_PAGE


def check_call(
    record: CallRecord,
    tool: Tool | None,
    *,
    page: str,
    purpose: Purpose = "plain",
    reason: str | None = None,
    timeout: float | None = None,
    script_free: bool = False,
    out: Collector | None = None,
) -> list[Finding]:
    """Judge one call: it answered in time, with a valid result, and behaved for its purpose.

    purpose "valid": the input was generated to fit the schema, and should be accepted.
    purpose "invalid": the input breaks the schema (reason says how; sent past the harness's
    validation), and should be refused with invalid_input or an error, not accepted silently.
    script_free: the tool is a declarative form on a page without script, so what it accepts is
    the browser's doing (its findings are info at most).
    """
    col = Collector(page)
    name = record.tool
    shown = excerpt(name, 60)
    frame = frame_of(tool, page) if tool is not None else None
    declarative = record.declarative or bool(tool is not None and tool.declarative)
    ran = [
        ids.BEHAVIOUR_ANSWERS,
        ids.BEHAVIOUR_VALID_RESULT,
        ids.BEHAVIOUR_ERROR_CODED,
        ids.BEHAVIOUR_FAILURE_FLAGGED,
    ]
    ran.append(ids.BEHAVIOUR_FORM_RESULT_DATA if declarative else ids.BEHAVIOUR_NO_NAVIGATION)
    if purpose == "valid":
        ran.append(ids.BEHAVIOUR_ACCEPTS_VALID_INPUT)
    elif purpose == "invalid":
        ran.append(ids.BEHAVIOUR_REJECTS_INVALID_INPUT)
    col.ran_all(ran, name, frame)

    def done() -> list[Finding]:
        if out is not None:
            out.extend(col)
        return col.findings

    def add(check_id: str, message: str, severity: Severity | None = None) -> None:
        col.add(
            check_id,
            message,
            tool=name,
            frame=frame,
            severity=severity,
            detail={"call": record.shown_number, "input": _short(record.input, 300)},
        )

    given = _short(record.input)
    kind = "schema-valid input" if purpose == "valid" else "input"
    if purpose == "invalid":
        kind = f"schema-invalid input ({reason})" if reason else "schema-invalid input"
    events = {e.type for e in record.events}
    report = record.browser
    code = record.code
    if code == ToolErrorCode.INTERRUPTED and "toolRemoved" in events and report.status:
        # The tool was removed (and registered again, say on a re-render) during the call, and
        # the page answered all the same: judge the answer, whichever reached us first.
        code = tool_error_code(code_report(report))

    if events & GONE_EVENTS:
        add(
            ids.DISCOVERY_PAGE_LOAD,
            f"The page crashed while {shown} ran (call #{record.shown_number}, {kind} {given}). A tool "
            "must not take the page down: look for runaway memory use or recursion.",
        )
        return done()
    hung = code == ToolErrorCode.TIMEOUT and ("timeout" in events or not report.status)
    if hung or (record.pending and code != ToolErrorCode.NEEDS_USER):
        within = f"within {timeout:g} s " if timeout is not None else "in time "
        add(
            ids.BEHAVIOUR_ANSWERS,
            f"{shown} did not answer {within}(call #{record.shown_number}, {kind} {given}). Resolve or "
            "reject every call, and stop work when the call's signal aborts; answer with an "
            "error rather than never.",
        )
        return done()
    if code == ToolErrorCode.UNAVAILABLE and not report.status:
        add(
            ids.BEHAVIOUR_ANSWERS,
            f"{shown} was listed, but call #{record.shown_number} could not reach it "
            f"({excerpt(_first_text(record.result), 160)}). An agent that sees a tool must be "
            "able to call it: keep a listed tool registered in the frame it was listed in.",
        )
        return done()
    if not declarative and events & _LEFT_PAGE:
        add(
            ids.BEHAVIOUR_NO_NAVIGATION,
            f"Calling {shown} navigated the page (call #{record.shown_number}, {kind} {given}), which "
            "ends the agent's tools and context mid-task. Answer the call first and let the "
            "agent decide to navigate, or make it a declarative form.",
        )
        return done()

    problem: str | None = None
    if report.status == "Completed":
        problem = result_problem(normalise_output(report.output))
    elif report.status == "Error":
        exc = _exception(record)
        text = " ".join(str(exc.get(k) or "") for k in ("description", "message"))
        if any(marker in text for marker in _UNSERIALISABLE):
            problem = f"its value could not be turned into JSON ({excerpt(text, 100)})"
    if problem is not None:
        add(
            ids.BEHAVIOUR_VALID_RESULT,
            f"{shown} answered call #{record.shown_number} with something that is not a valid MCP tool "
            f"result: {problem}. Return plain JSON data, or a result with a content list of "
            'items such as {type: "text", text: "..."}.',
        )
    said = page_text(record)
    bug = _thrown_bug(record) if problem is None else None
    page_error, page_code = _page_error_code(record)
    if page_error and page_code is None:
        add(
            ids.BEHAVIOUR_ERROR_CODED,
            f"{shown} answered call #{record.shown_number} with an error that carries no known code "
            f"({excerpt(said, 100)}). Start error text with Error [code]: (invalid_input, "
            "needs_user, unavailable, failed, ...) or throw an error whose code is one of them, "
            "so agents know what to do next.",
        )
    completed = report.status == "Completed" and code is None
    why = reads_as_failure(report.output) if completed else None
    if why is not None:
        add(
            ids.BEHAVIOUR_FAILURE_FLAGGED,
            f"{shown} answered call #{record.shown_number} with what reads as a failure ({why}), but "
            "not as an error, so an agent takes it for success. Return "
            "{content: [...], isError: true} with Error [code]: text, or throw.",
        )
    if declarative and report.status == "Completed" and normalise_output(report.output) == []:
        add(
            ids.BEHAVIOUR_FORM_RESULT_DATA,
            f"The form {shown} submitted (call #{record.shown_number}) to a page that carries no JSON-LD, "
            "so the agent got [] back and cannot tell what happened. Put the result on the "
            'next page as <script type="application/ld+json">, or answer with '
            "event.respondWith().",
        )
    refused = excerpt(said or _first_text(record.result), 160)
    if (
        purpose == "valid"
        and code == ToolErrorCode.INVALID_INPUT
        and declarative
        and (_FORM_VALIDATION in refused)
    ):
        add(
            ids.BEHAVIOUR_ACCEPTS_VALID_INPUT,
            f"The browser's form validation refused call #{record.shown_number} of {shown} "
            f"({given}): {refused}. The form's own HTML rules explain it (type=email or url, "
            "a date's min or max, a pattern HTML anchors), which Chromium leaves out of the "
            "schema it makes for agents, so they learn them only by being refused. Nothing to "
            "fix on the page; toolparamdescription can say the rule.",
            Severity.INFO,
        )
    elif purpose == "valid" and code == ToolErrorCode.INVALID_INPUT:
        add(
            ids.BEHAVIOUR_ACCEPTS_VALID_INPUT,
            f"{shown} rejected input that its inputSchema allows (call #{record.shown_number}: {given}; "
            f"it said {excerpt(said or _first_text(record.result), 120)}). Make the schema say what the tool really accepts "
            "(enum, pattern, examples), or answer a value that is well-formed but unknown with "
            "another code (failed, unavailable).",
        )
    elif purpose == "valid" and bug is not None and (removed := removed_api(said)) is not None:
        add(
            ids.BEHAVIOUR_ACCEPTS_VALID_INPUT,
            f"{shown} uses a WebMCP API this browser does not have (call #{record.shown_number}: "
            f"it threw {excerpt(said, 160)}): {removed}.",
        )
    elif purpose == "valid" and bug is not None:
        add(
            ids.BEHAVIOUR_ACCEPTS_VALID_INPUT,
            f"{shown} crashed on input that fits its inputSchema (call #{record.shown_number}: {given}): "
            f"it threw {excerpt(said, 160)}. A {bug} is a bug in the tool's code: fix it, or "
            "make the schema say what the tool really needs.",
        )
    elif purpose == "valid" and page_error and page_code == ToolErrorCode.FAILED and said:
        add(
            ids.BEHAVIOUR_ACCEPTS_VALID_INPUT,
            f"{shown} failed on input that fits its inputSchema (call #{record.shown_number}: {given}): "
            f"{excerpt(said, 120)}. Fine if the input names something that does not exist; if "
            "the input itself was the problem, say so in the schema.",
            Severity.INFO,
        )
    # (A refusal not marked as one is failure-flagged's, not an input accepted.)
    if purpose == "invalid" and code is None and report.status == "Completed" and why is None:
        add(
            ids.BEHAVIOUR_REJECTS_INVALID_INPUT,
            f"{shown} accepted input its inputSchema forbids ({kind}: call #{record.shown_number}, "
            f"{given}) without an error. Check the input and answer Error [invalid_input]: "
            "saying what to fix, so an agent's mistakes do not pass silently."
            + (
                " (The form has no script: the browser coerced the value, so only a script "
                "that checks the input could answer.)"
                if script_free and declarative
                else ""
            ),
            Severity.INFO if script_free and declarative else None,
        )
    return done()
