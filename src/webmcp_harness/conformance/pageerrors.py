"""The page's own errors as findings: uncaught errors, refused registrations, permissions policy.

The runner records every uncaught error and unhandled rejection the page (any of its frames)
throws, when it threw (loading, or during which call), and every `registerTool` attempt each frame
made (`WATCH_REGISTRATIONS_JS`). `check_page_errors` turns them into findings, with no browser.

What Chromium 156 throws (measured): `InvalidStateError: Invalid tool name`, `InvalidStateError:
Duplicate tool name`, `TypeError: Failed to execute 'registerTool' on 'ModelContext': Failed to
read the 'description' property from 'ModelContextTool': Required member is undefined.`, and in a
frame without `allow="tools"`: `NotAllowedError: Access to the feature "tools" is disallowed by
permissions policy.`; each as an unhandled rejection of registerTool's promise, DOMExceptions
without a stack. Aborting a registration's signal before its promise settles (a React effect's
cleanup on re-render) rejects it with `AbortError: signal is aborted without reason`, or not,
depending on timing: uncaught AbortErrors are the page's own choice and are not reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.coding import removed_api
from ..core.records import Tool
from . import ids
from .findings import Collector, Finding, excerpt

__all__ = [
    "ERROR_CHECKS",
    "FRAMES_WITHOUT_TOOLS_JS",
    "WATCH_REGISTRATIONS_JS",
    "Attempt",
    "PageError",
    "check_page_errors",
]

ERROR_CHECKS = (
    ids.DISCOVERY_PAGE_ERRORS,
    ids.DISCOVERY_REGISTRATION_REFUSED,
    ids.DISCOVERY_PERMISSIONS_POLICY,
)
_VALID_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
_MAX_REPORTED = 20  # uncaught errors reported per page at most (the rest are counted)

# In every frame, before the page's scripts: note each registerTool attempt (name, whether it
# had a description, the caller's place). The call itself is passed on untouched.
WATCH_REGISTRATIONS_JS = """(() => {
  try {
    const proto = window.ModelContext && window.ModelContext.prototype;
    const original = proto && proto.registerTool;
    if (typeof original !== "function" || window.__webmcpCheckAttempts) return;
    const seen = [];
    Object.defineProperty(window, "__webmcpCheckAttempts", { value: seen });
    const registerTool = function registerTool(tool) {
      let name = null, described = false, at = "";
      try {
        name = tool && typeof tool.name === "string" ? tool.name.slice(0, 200) : null;
        described = !!(tool && typeof tool.description === "string" && tool.description);
      } catch (e) {}
      try { at = String(new Error().stack || "").split("\\n")[2] || ""; } catch (e) {}
      if (seen.length < 500) seen.push({ name, described, at: at.trim().slice(0, 300) });
      return original.apply(this, arguments);
    };
    Object.defineProperty(proto, "registerTool", {
      value: registerTool, writable: true, configurable: true, enumerable: false,
    });
  } catch (e) {}
})();"""
# The main document's cross-origin <iframe>s whose allow attribute does not grant "tools".
FRAMES_WITHOUT_TOOLS_JS = """() => {
  const out = [];
  for (const f of Array.prototype.slice.call(document.querySelectorAll("iframe"), 0, 200)) {
    try {
      const src = new URL(f.getAttribute("src") || "about:blank", document.baseURI);
      const allow = (f.getAttribute("allow") || "").split(";").map((s) => s.trim().split(/\\s+/)[0]);
      if (src.origin !== location.origin && !allow.includes("tools"))
        out.push({ src: src.href.slice(0, 500), id: (f.id || "").slice(0, 100) });
    } catch (e) {}
  }
  return out;
}"""


@dataclass(frozen=True)
class PageError:
    """An uncaught error or unhandled rejection: its name, message, stack, and when it happened.

    during: None while the page loaded, else "call #N of TOOL".
    """

    name: str
    message: str
    stack: str = ""
    during: str | None = None
    tool: str | None = None

    @property
    def location(self) -> str | None:
        """Where it was thrown (the stack's first `at` line), when the browser gave one."""
        for line in self.stack.splitlines()[1:]:
            line = line.strip()
            if line.startswith("at "):
                return line[3:][:300]
        return None


@dataclass(frozen=True)
class Attempt:
    """One registerTool call a frame made, as the page gave it."""

    name: str | None
    described: bool
    at: str
    frame: str | None = None

    @classmethod
    def from_js(cls, data: Any, frame: str | None) -> Attempt | None:
        if not isinstance(data, dict):
            return None
        name = data.get("name")
        return cls(
            name if isinstance(name, str) else None,
            data.get("described") is True,
            str(data.get("at") or "").removeprefix("at ")[:300],
            frame,
        )


def _kind(error: PageError) -> str:
    text = f"{error.name}: {error.message}"
    if "permissions policy" in text and '"tools"' in text:
        return "policy"
    if "Invalid tool name" in text:
        return "name"
    if "Duplicate tool name" in text:
        return "duplicate"
    if "registerTool" in text and "description" in text.lower():
        return "description"
    if "Description is required" in text or "Tool name is required" in text:
        return "description"
    if "registerTool" in text:
        return "other"
    return "error"


_FIXES = {
    "name": "Give it a name of 1-128 letters, digits, _ . or -.",
    "duplicate": "Give each tool its own name, or unregister the old one first (abort the "
    "signal you registered it with).",
    "description": "Give it a description that says what it does and when to use it.",
    "other": "Pass registerTool a tool object with name, description, inputSchema and execute.",
}


def _culprit(kind: str, attempts: list[Attempt], registered: set[str]) -> Attempt | None:
    """The attempt this refusal was about (taken from attempts), when it can be told."""
    seen: dict[tuple[str | None, str | None], int] = {}
    for index, attempt in enumerate(attempts):
        key = (attempt.frame, attempt.name)
        seen[key] = seen.get(key, 0) + 1
        fits = (
            (kind == "name" and not (attempt.name and _VALID_NAME.fullmatch(attempt.name)))
            or (kind == "description" and not attempt.described)
            or (kind == "duplicate" and seen[key] > 1)
        )
        if fits:
            return attempts.pop(index)
    return None


def check_page_errors(
    errors: Sequence[PageError],
    attempts: Sequence[Attempt],
    frames_without_tools: Sequence[dict[str, Any]],
    tools: Sequence[Tool],
    *,
    page: str,
    out: Collector | None = None,
) -> list[Finding]:
    """Findings from the page's uncaught errors: refusals of registerTool, permissions policy,
    and every other uncaught error (with its message, location, and when it was thrown)."""
    col = Collector(page)
    col.ran_all(ERROR_CHECKS)
    left = list(attempts)
    registered = {t.name for t in tools}
    frames = list(frames_without_tools)
    others: list[PageError] = []
    seen: set[tuple[str, str, str | None]] = set()
    for error in errors:
        if error.name == "AbortError":
            # The page aborted something itself (a registration's signal, a fetch): whether the
            # abort beat the promise is timing, so reporting it would make findings flaky.
            continue
        key = (error.name, error.message[:500], error.during)
        if key in seen:  # the same error again (a reload after a call) is one finding
            continue
        seen.add(key)
        said = excerpt(f"{error.name}: {error.message}", 200)
        when = f" during {error.during}" if error.during else " while the page loaded"
        removed = removed_api(f"{error.name}: {error.message}")
        if removed is not None:  # before _kind: "unregisterTool" is no registerTool refusal
            at = error.location
            col.add(
                ids.DISCOVERY_PAGE_ERRORS,
                f"The page uses a WebMCP API this browser does not have{when} (it threw {said}"
                f"{f' at {at}' if at else ''}): {removed}.",
                tool=error.tool,
                detail={"error": error.message[:500], "at": at, "during": error.during},
            )
            continue
        kind = _kind(error)
        if kind == "policy":
            frame = frames.pop(0) if frames else None
            where = (
                f'the <iframe src="{excerpt(frame["src"], 120)[1:-1]}">'
                if frame
                else "a frame of another origin"
            )
            col.add(
                ids.DISCOVERY_PERMISSIONS_POLICY,
                f"{where[0].upper()}{where[1:]} tried to register tools and the browser refused "
                f'({said}), so its tools are missing. Add allow="tools" to the <iframe> that '
                "embeds it (or a Permissions-Policy header that grants tools to its origin).",
                frame=frame["src"] if frame else None,
                detail={"error": error.message[:500]},
            )
            continue
        if kind != "error":
            culprit = _culprit(kind, left, registered)
            name = culprit.name if culprit is not None else None
            at = (culprit.at if culprit is not None else "") or error.location
            what = f"registerTool({{name: {excerpt(name, 60)}}})" if name else "A registerTool call"
            col.add(
                ids.DISCOVERY_REGISTRATION_REFUSED,
                f"{what}{f' at {at}' if at else ''} was refused by the browser{when}: {said}. "
                f"The tool is missing for agents. {_FIXES[kind]}",
                tool=name,
                frame=culprit.frame if culprit is not None else None,
                detail={"error": error.message[:500], "at": at or None},
            )
            continue
        others.append(error)
    for error in others[:_MAX_REPORTED]:
        said = excerpt(f"{error.name}: {error.message}", 200)
        at = error.location
        when = f"during {error.during}" if error.during else "while the page loaded"
        col.add(
            ids.DISCOVERY_PAGE_ERRORS,
            f"The page threw an uncaught error {when}: {said}"
            + (f" at {at}" if at else "")
            + ". An uncaught error can stop the script that registers tools or answers calls: "
            "catch it, or fix its cause.",
            tool=error.tool,
            detail={"error": error.message[:500], "at": at, "during": error.during},
        )
    if len(others) > _MAX_REPORTED:
        col.add(
            ids.DISCOVERY_PAGE_ERRORS,
            f"The page threw {len(others) - _MAX_REPORTED} more uncaught errors (not listed).",
        )
    if out is not None:
        out.extend(col)
    return col.findings
