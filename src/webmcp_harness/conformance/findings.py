"""Findings, their severities, and the registry of every check the conformance checker knows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Literal

from ..core.records import ToolLocation
from . import ids

__all__ = [
    "CHECKS",
    "CODES_DOC",
    "SPEC_URL",
    "Check",
    "Collector",
    "Finding",
    "Scope",
    "Severity",
    "Target",
    "checks",
    "codes",
    "excerpt",
    "get_check",
    "spec",
]

SPEC_URL = "https://webmachinelearning.github.io/webmcp/"
# This project's page on the checks and the error codes (docs/codes.md; one anchor per check).
# The lead may point it at the published docs once they have a public address.
CODES_DOC = "docs/codes.md"
# The spec's declarative section points to the explainer (toolparamdescription, toolautosubmit).
DECLARATIVE = f"{SPEC_URL}#declarative-api"

Scope = Literal["page", "tool"]


def spec(anchor: str) -> str:
    """The URL of a section of the WebMCP spec."""
    return f"{SPEC_URL}#{anchor}"


def codes(check_id: str) -> str:
    """Where docs/codes.md explains a check (its id, dots as dashes, is the anchor)."""
    return f"{CODES_DOC}#{check_id.replace('.', '-')}"


def excerpt(text: str, limit: int = 80) -> str:
    """text quoted for a message, cut to limit characters (page strings can be megabytes)."""
    flat = " ".join(text[: limit * 4].split())
    if len(flat) > limit or len(text) > limit * 4:
        flat = flat[: limit - 1] + "…"
    return f"“{flat}”"


class Severity(str, Enum):
    """How much a finding matters: errors fail a check run, warnings fail it with --strict."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """0 for errors, 1 for warnings, 2 for info: sorts the worst first."""
        return _RANK[self]

    def fails(self, *, strict: bool = False) -> bool:
        """Whether a finding of this severity makes the run fail."""
        return self is Severity.ERROR or (strict and self is Severity.WARNING)


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True)
class Check:
    """One check: a stable id, its family, its usual severity, what it asks, and its rule."""

    id: str
    family: str
    severity: Severity
    title: str
    rule: str
    scope: Scope = "tool"
    lighthouse: str | None = None
    """The id of the Lighthouse audit that checks the same thing, where one does."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "family": self.family,
            "severity": self.severity.value,
            "title": self.title,
            "rule": self.rule,
            "scope": self.scope,
            "lighthouse": self.lighthouse,
        }


CHECKS: dict[str, Check] = {}


def _register(
    id_: str,
    severity: Severity,
    title: str,
    rule: str,
    *,
    scope: Scope = "tool",
    lighthouse: str | None = None,
) -> Check:
    family = id_.split(".", 1)[0]
    check = Check(id_, family, severity, title, rule, scope, lighthouse)
    CHECKS[id_] = check
    return check


E, W = Severity.ERROR, Severity.WARNING

# Discovery: what the page offers at all. Data-only ones live in metadata.py; the runner
# reports the browser-side ones (page-load, model-context, secure-context) with the same ids.
_register(ids.DISCOVERY_PAGE_LOAD, E, "The page loads and stays alive", spec("api"), scope="page")
_register(
    ids.DISCOVERY_MODEL_CONTEXT,
    E,
    "document.modelContext is present",
    spec("dom-document-modelcontext"),
    scope="page",
)
_register(
    ids.DISCOVERY_SECURE_CONTEXT,
    E,
    "The page is a secure context",
    spec("document-extension"),
    scope="page",
)
_register(
    ids.DISCOVERY_TOOLS_FOUND,
    E,
    "The page exposes tools",
    spec("api"),
    scope="page",
    lighthouse="webmcp-registered-tools",
)
_register(
    ids.DISCOVERY_TOOL_COUNT,
    W,
    "At most 50 tools on a page",
    spec("mitigation-restrict-input-lengths"),
    scope="page",
)
_register(
    ids.DISCOVERY_NAMES_UNIQUE,
    W,
    "Tool names are unique across the page's frames",
    spec("tool-definition-name"),
    scope="page",
)

_register(
    ids.DISCOVERY_PAGE_ERRORS,
    E,
    "The page throws no uncaught errors or unhandled rejections",
    spec("api"),
    scope="page",
)
_register(
    ids.DISCOVERY_REGISTRATION_REFUSED,
    E,
    "The browser accepts every registerTool call",
    spec("model-context-container"),
    scope="page",
)
_register(
    ids.DISCOVERY_PERMISSIONS_POLICY,
    E,
    'Frames that register tools are allowed to (allow="tools")',
    spec("permissions-policy"),
    scope="page",
)

# Metadata: what an agent reads before it calls.
_register(
    ids.METADATA_NAME_VALID, E, "Tool name is 1-128 of [A-Za-z0-9_.-]", spec("tool-definition-name")
)
_register(
    ids.METADATA_DESCRIPTION_PRESENT,
    E,
    "Tool has a description",
    spec("dom-modelcontexttool-description"),
)
_register(
    ids.METADATA_DESCRIPTION_USEFUL,
    W,
    "Description says more than the name",
    spec("dom-modelcontexttool-description"),
)
_register(
    ids.METADATA_DESCRIPTION_LENGTH,
    W,
    "Description is concise (at most 500 characters)",
    spec("mitigation-restrict-input-lengths"),
)
_register(
    ids.METADATA_SCHEMA_VALID,
    E,
    "inputSchema is a valid JSON Schema (2020-12 meta-schema)",
    spec("dom-modelcontexttool-inputschema"),
    lighthouse="webmcp-schema-validity",
)
_register(
    ids.METADATA_SCHEMA_OBJECT,
    E,
    'inputSchema has "type": "object"',
    spec("dom-modelcontexttool-inputschema"),
)
_register(
    ids.METADATA_PARAMS_DESCRIBED,
    W,
    "Every parameter has a description",
    spec("dom-modelcontexttool-inputschema"),
)
_register(
    ids.METADATA_REQUIRED_DEFINED,
    E,
    "Every required parameter is defined in properties",
    spec("dom-modelcontexttool-inputschema"),
)

_register(
    ids.METADATA_PARAMS_IN_PROPERTIES,
    E,
    "Parameters are defined inside properties",
    spec("dom-modelcontexttool-inputschema"),
)

# Injection: instructions to the agent in any string of a tool's metadata a model reads.
_register(
    ids.INJECTION_METADATA,
    E,
    "No instructions to the agent in any string of a tool's metadata",
    spec("metadata-description-attacks"),
)

# Safety: what could turn an agent against its user.
_register(
    ids.SAFETY_HIDDEN_CHARACTERS,
    E,
    "No invisible or direction-changing characters in names or descriptions",
    spec("metadata-description-attacks"),
)
_register(
    ids.SAFETY_UNTRUSTED_CONTENT,
    W,
    "Tools returning user content set untrustedContentHint",
    spec("mitigation-untrusted-annotation"),
)
_register(
    ids.SAFETY_READONLY_CONSEQUENTIAL,
    W,
    "Tools that act (order, pay, delete, send) are not marked readOnlyHint",
    spec("dom-toolannotations-readonlyhint"),
)
_register(
    ids.SAFETY_OUTPUT_INJECTION,
    W,
    "Results without untrustedContentHint carry no instructions to the agent",
    spec("output-injection-attacks"),
)

_register(
    ids.SAFETY_CODE_EXECUTION,
    E,
    "No tool runs code it is given (eval, run JavaScript)",
    spec("tool-implementation-targets"),
)

# Behaviour: judged from the records of calls the runner made.
_register(ids.BEHAVIOUR_ANSWERS, E, "Answers within the timeout", codes(ids.BEHAVIOUR_ANSWERS))
_register(
    ids.BEHAVIOUR_VALID_RESULT,
    E,
    "Returns a valid MCP tool result",
    codes(ids.BEHAVIOUR_VALID_RESULT),
)
_register(
    ids.BEHAVIOUR_ACCEPTS_VALID_INPUT,
    E,
    "Accepts schema-valid input",
    codes(ids.BEHAVIOUR_ACCEPTS_VALID_INPUT),
)
_register(
    ids.BEHAVIOUR_REJECTS_INVALID_INPUT,
    W,
    "Rejects schema-invalid input with invalid_input or an error",
    codes(ids.BEHAVIOUR_REJECTS_INVALID_INPUT),
)
_register(
    ids.BEHAVIOUR_ERROR_CODED,
    W,
    "Error results carry a known code",
    codes(ids.BEHAVIOUR_ERROR_CODED),
)
_register(
    ids.BEHAVIOUR_FAILURE_FLAGGED,
    W,
    "A result that reads as a failure is marked isError",
    codes(ids.BEHAVIOUR_FAILURE_FLAGGED),
)
_register(
    ids.BEHAVIOUR_NO_NAVIGATION,
    E,
    "An imperative call does not navigate",
    codes(ids.BEHAVIOUR_NO_NAVIGATION),
)
_register(
    ids.BEHAVIOUR_FORM_RESULT_DATA,
    W,
    "A form that submits to another page finds JSON-LD there for the agent",
    DECLARATIVE,
)

# Declarative forms: the browser's synthesised schema against the form's controls.
_register(
    ids.FORM_PARAMS_DESCRIBED,
    W,
    "Every form control has toolparamdescription or a label",
    DECLARATIVE,
)
_register(
    ids.FORM_REQUIRED_IN_SCHEMA,
    E,
    "Required controls are required in the schema",
    DECLARATIVE,
)
_register(
    ids.FORM_CONTROLS_IN_SCHEMA,
    W,
    "Every named control is in the schema, and every property has a control",
    DECLARATIVE,
)
_register(
    ids.FORM_OPTIONS_REACHABLE,
    W,
    "The schema offers exactly the options a person could pick",
    DECLARATIVE,
)
_register(
    ids.FORM_REQUIRED_CHECKBOX,
    W,
    "A required checkbox is not offered as a free boolean",
    DECLARATIVE,
)
_register(
    ids.FORM_BROWSER_ISSUES,
    E,
    "Chromium finds no problem in the page's tool forms (toolname, tooldescription, names)",
    DECLARATIVE,
    scope="page",
    lighthouse="webmcp-schema-validity",
)
_register(
    ids.FORM_SUBMIT_BUTTON,
    E,
    "A form without toolautosubmit has a submit button",
    DECLARATIVE,
)

# Agent readiness: what agents that read and click the page meet (Lighthouse's agentic audits).
_register(
    ids.READINESS_FORM_COVERAGE,
    Severity.INFO,
    "Each form is a WebMCP tool (toolname and tooldescription)",
    DECLARATIVE,
    scope="page",
    lighthouse="webmcp-form-coverage",
)
_register(
    ids.READINESS_ACCESSIBILITY_TREE,
    W,
    "The accessibility tree agents read names every button, link and field (axe-core)",
    codes(ids.READINESS_ACCESSIBILITY_TREE),
    scope="page",
    lighthouse="agent-accessibility-tree",
)
_register(
    ids.READINESS_LLMS_TXT,
    W,
    "The site's /llms.txt, where there is one, is Markdown with a title and links",
    codes(ids.READINESS_LLMS_TXT),
    scope="page",
    lighthouse="llms-txt",
)
_register(
    ids.READINESS_LAYOUT_SHIFT,
    W,
    "The page does not shift under an agent's clicks (cumulative layout shift at most 0.1)",
    codes(ids.READINESS_LAYOUT_SHIFT),
    scope="page",
    lighthouse="cumulative-layout-shift",
)

del E, W


def get_check(check_id: str) -> Check:
    """The registered check with this id (KeyError names the known families if not)."""
    try:
        return CHECKS[check_id]
    except KeyError:
        raise KeyError(f"no check {check_id!r}; known: {', '.join(sorted(CHECKS))}") from None


def checks(family: str | None = None) -> list[Check]:
    """Every registered check (of one family), in registration order."""
    return [c for c in CHECKS.values() if family is None or c.family == family]


@dataclass(frozen=True)
class Finding:
    """Something a check found on a page or tool, and what to do about it."""

    check: str
    severity: Severity
    page: str
    message: str
    rule: str
    tool: str | None = None
    frame: str | None = None
    detail: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    location: ToolLocation | None = field(default=None, compare=False, hash=False)
    """Where the finding's tool was registered, where the source tells (`Tool.location`)."""

    @property
    def family(self) -> str:
        return self.check.split(".", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "severity": self.severity.value,
            "page": self.page,
            "tool": self.tool,
            "frame": self.frame,
            "message": self.message,
            "rule": self.rule,
            "lighthouse": getattr(CHECKS.get(self.check), "lighthouse", None),
            "detail": dict(self.detail),
            **({"location": self.location.to_dict()} if self.location is not None else {}),
        }

    @classmethod
    def make(
        cls,
        check_id: str,
        message: str,
        *,
        page: str,
        tool: str | None = None,
        frame: str | None = None,
        severity: Severity | None = None,
        detail: dict[str, Any] | None = None,
    ) -> Finding:
        """A finding of a registered check, with its usual severity and rule unless told."""
        check = get_check(check_id)
        return cls(
            check=check_id,
            severity=severity or check.severity,
            page=page,
            message=message,
            rule=check.rule,
            tool=tool,
            frame=frame or None,
            detail=detail or {},
        )


@dataclass(frozen=True)
class Target:
    """A check that ran (or was skipped) on one page, or one tool of it."""

    check: str
    page: str
    tool: str | None = None
    frame: str | None = None
    skipped: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "page": self.page,
            "tool": self.tool,
            "frame": self.frame,
            "skipped": self.skipped,
        }


class Collector:
    """Gathers the findings of one page, and which checks ran on what (passes included)."""

    def __init__(self, page: str) -> None:
        self.page = page
        self.findings: list[Finding] = []
        self.targets: list[Target] = []
        self._seen: set[tuple[str, str, str | None, str | None]] = set()

    def ran(self, check_id: str, tool: str | None = None, frame: str | None = None) -> None:
        """Note that a check ran on the page (tool None) or on a tool."""
        get_check(check_id)
        key = (check_id, self.page, tool, frame or None)
        if key not in self._seen:
            self._seen.add(key)
            self.targets.append(Target(check_id, self.page, tool, frame or None))

    def ran_all(
        self, check_ids: Iterable[str], tool: str | None = None, frame: str | None = None
    ) -> None:
        for check_id in check_ids:
            self.ran(check_id, tool, frame)

    def skip(
        self, check_id: str, reason: str, tool: str | None = None, frame: str | None = None
    ) -> None:
        """Note that a check did not run on a target, and why."""
        get_check(check_id)
        key = (check_id, self.page, tool, frame or None)
        if key not in self._seen:
            self._seen.add(key)
            self.targets.append(Target(check_id, self.page, tool, frame or None, reason))

    def skip_instead(self, check_ids: Iterable[str], reason: str) -> None:
        """Note that page checks did not run, and why, even if they were noted as run."""
        drop = set(check_ids)
        self.targets[:] = [t for t in self.targets if t.check not in drop or t.tool is not None]
        self._seen = {k for k in self._seen if k[0] not in drop or k[2] is not None}
        self.findings[:] = [f for f in self.findings if f.check not in drop or f.tool is not None]
        for check_id in check_ids:
            self.skip(check_id, reason)

    def add(
        self,
        check_id: str,
        message: str,
        *,
        tool: str | None = None,
        frame: str | None = None,
        severity: Severity | None = None,
        detail: dict[str, Any] | None = None,
    ) -> Finding:
        """Record a finding (which also marks the check as run on its target)."""
        found = Finding.make(
            check_id,
            message,
            page=self.page,
            tool=tool,
            frame=frame,
            severity=severity,
            detail=detail,
        )
        self.ran(check_id, tool, frame)
        self.findings.append(found)
        return found

    def locate(self, where: dict[tuple[str, str | None], ToolLocation]) -> None:
        """Name, in each finding about a tool, where it was registered: where maps a tool's
        (name, finding frame) to its location."""
        self.findings[:] = [
            replace(f, location=where[f.tool, f.frame])
            if f.tool is not None and (f.tool, f.frame) in where
            else f
            for f in self.findings
        ]

    def extend(self, other: Collector) -> None:
        """Take in another collector's findings and targets."""
        self.findings.extend(other.findings)
        for target in other.targets:
            key = (target.check, target.page, target.tool, target.frame)
            if key not in self._seen:
                self._seen.add(key)
                self.targets.append(target)
