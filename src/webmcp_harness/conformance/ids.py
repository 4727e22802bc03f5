"""The id of every check, one constant each: code names a check by its constant, never by a
string (the registry, `findings.CHECKS`, gives each its severity, title and rule)."""

from __future__ import annotations

__all__ = [
    "BEHAVIOUR_ACCEPTS_VALID_INPUT",
    "BEHAVIOUR_ANSWERS",
    "BEHAVIOUR_ERROR_CODED",
    "BEHAVIOUR_FAILURE_FLAGGED",
    "BEHAVIOUR_FORM_RESULT_DATA",
    "BEHAVIOUR_NO_NAVIGATION",
    "BEHAVIOUR_REJECTS_INVALID_INPUT",
    "BEHAVIOUR_VALID_RESULT",
    "DISCOVERY_MODEL_CONTEXT",
    "DISCOVERY_NAMES_UNIQUE",
    "DISCOVERY_PAGE_ERRORS",
    "DISCOVERY_PAGE_LOAD",
    "DISCOVERY_PERMISSIONS_POLICY",
    "DISCOVERY_REGISTRATION_REFUSED",
    "DISCOVERY_SECURE_CONTEXT",
    "DISCOVERY_TOOLS_FOUND",
    "DISCOVERY_TOOL_COUNT",
    "FORM_BROWSER_ISSUES",
    "FORM_CONTROLS_IN_SCHEMA",
    "FORM_OPTIONS_REACHABLE",
    "FORM_PARAMS_DESCRIBED",
    "FORM_REQUIRED_CHECKBOX",
    "FORM_REQUIRED_IN_SCHEMA",
    "FORM_SUBMIT_BUTTON",
    "INJECTION_METADATA",
    "METADATA_DESCRIPTION_LENGTH",
    "METADATA_DESCRIPTION_PRESENT",
    "METADATA_DESCRIPTION_USEFUL",
    "METADATA_NAME_VALID",
    "METADATA_PARAMS_DESCRIBED",
    "METADATA_PARAMS_IN_PROPERTIES",
    "METADATA_REQUIRED_DEFINED",
    "METADATA_SCHEMA_OBJECT",
    "METADATA_SCHEMA_VALID",
    "READINESS_ACCESSIBILITY_TREE",
    "READINESS_FORM_COVERAGE",
    "READINESS_LAYOUT_SHIFT",
    "READINESS_LLMS_TXT",
    "SAFETY_CODE_EXECUTION",
    "SAFETY_HIDDEN_CHARACTERS",
    "SAFETY_OUTPUT_INJECTION",
    "SAFETY_READONLY_CONSEQUENTIAL",
    "SAFETY_UNTRUSTED_CONTENT",
]


# Discovery: what the page offers at all.
DISCOVERY_PAGE_LOAD = "discovery.page-load"
DISCOVERY_MODEL_CONTEXT = "discovery.model-context"
DISCOVERY_SECURE_CONTEXT = "discovery.secure-context"
DISCOVERY_TOOLS_FOUND = "discovery.tools-found"
DISCOVERY_TOOL_COUNT = "discovery.tool-count"
DISCOVERY_NAMES_UNIQUE = "discovery.names-unique"
DISCOVERY_PAGE_ERRORS = "discovery.page-errors"
DISCOVERY_REGISTRATION_REFUSED = "discovery.registration-refused"
DISCOVERY_PERMISSIONS_POLICY = "discovery.permissions-policy"

# Metadata: what an agent reads before it calls.
METADATA_NAME_VALID = "metadata.name-valid"
METADATA_DESCRIPTION_PRESENT = "metadata.description-present"
METADATA_DESCRIPTION_USEFUL = "metadata.description-useful"
METADATA_DESCRIPTION_LENGTH = "metadata.description-length"
METADATA_SCHEMA_VALID = "metadata.schema-valid"
METADATA_SCHEMA_OBJECT = "metadata.schema-object"
METADATA_PARAMS_DESCRIBED = "metadata.params-described"
METADATA_REQUIRED_DEFINED = "metadata.required-defined"
METADATA_PARAMS_IN_PROPERTIES = "metadata.params-in-properties"

# Injection: instructions to the agent in any string of a tool's metadata a model reads.
INJECTION_METADATA = "injection.metadata"

# Safety: what could turn an agent against its user.
SAFETY_HIDDEN_CHARACTERS = "safety.hidden-characters"
SAFETY_UNTRUSTED_CONTENT = "safety.untrusted-content"
SAFETY_READONLY_CONSEQUENTIAL = "safety.readonly-consequential"
SAFETY_OUTPUT_INJECTION = "safety.output-injection"
SAFETY_CODE_EXECUTION = "safety.code-execution"

# Behaviour: judged from the records of the calls made.
BEHAVIOUR_ANSWERS = "behaviour.answers"
BEHAVIOUR_VALID_RESULT = "behaviour.valid-result"
BEHAVIOUR_ACCEPTS_VALID_INPUT = "behaviour.accepts-valid-input"
BEHAVIOUR_REJECTS_INVALID_INPUT = "behaviour.rejects-invalid-input"
BEHAVIOUR_ERROR_CODED = "behaviour.error-coded"
BEHAVIOUR_FAILURE_FLAGGED = "behaviour.failure-flagged"
BEHAVIOUR_NO_NAVIGATION = "behaviour.no-navigation"
BEHAVIOUR_FORM_RESULT_DATA = "behaviour.form-result-data"

# Declarative forms: the browser's schema against the form's controls.
FORM_PARAMS_DESCRIBED = "form.params-described"
FORM_REQUIRED_IN_SCHEMA = "form.required-in-schema"
FORM_CONTROLS_IN_SCHEMA = "form.controls-in-schema"
FORM_OPTIONS_REACHABLE = "form.options-reachable"
FORM_REQUIRED_CHECKBOX = "form.required-checkbox"
FORM_BROWSER_ISSUES = "form.browser-issues"
FORM_SUBMIT_BUTTON = "form.submit-button"

# Agent readiness: what agents that read and click the page (not only call its tools) meet.
READINESS_FORM_COVERAGE = "readiness.form-coverage"
READINESS_ACCESSIBILITY_TREE = "readiness.accessibility-tree"
READINESS_LLMS_TXT = "readiness.llms-txt"
READINESS_LAYOUT_SHIFT = "readiness.layout-shift"
