"""The conformance checker's checks and reports (the browser-free parts).

A runner feeds these with what it saw on each page: the tools (`Tool`), each declarative form's
controls (`forms.EXTRACT_FORM_JS`), and the records of the calls it made. Every check has a
stable id in `CHECKS`; a `Collector` gathers one page's findings and which checks ran on what, and
a `CheckReport` goes to the JSON, JUnit XML, HTML and terminal writers.
"""

from __future__ import annotations

from ..core import schema  # noqa: F401  # first: it holds back jsonschema's slow format modules

# isort: split
from .behaviour import BEHAVIOUR_CHECKS, check_call
from .config import ConfigError, PageConfig, PageRule, load_config
from .findings import CHECKS, Check, Collector, Finding, Severity, Target, checks, get_check
from .forms import EXTRACT_FORM_JS, EXTRACT_FORMS_JS, FORM_CHECKS, check_form
from .inputs import InvalidInput, invalid_input, invalid_inputs, valid_input
from .metadata import DISCOVERY_CHECKS, METADATA_CHECKS, check_discovery, check_metadata
from .reports import (
    CheckReport,
    PageResult,
    to_html,
    to_json,
    to_junit,
    write_html,
    write_json,
    write_junit,
)
from .safety import SAFETY_CHECKS, check_result, check_safety

# One name a line, so adding an export is adding a line.
__all__ = [
    "BEHAVIOUR_CHECKS",
    "CHECKS",
    "DISCOVERY_CHECKS",
    "EXTRACT_FORMS_JS",
    "EXTRACT_FORM_JS",
    "FORM_CHECKS",
    "METADATA_CHECKS",
    "SAFETY_CHECKS",
    "Check",
    "CheckReport",
    "Collector",
    "ConfigError",
    "Finding",
    "InvalidInput",
    "PageConfig",
    "PageResult",
    "PageRule",
    "Severity",
    "Target",
    "check_call",
    "check_discovery",
    "check_form",
    "check_metadata",
    "check_result",
    "check_safety",
    "checks",
    "get_check",
    "invalid_input",
    "invalid_inputs",
    "load_config",
    "to_html",
    "to_json",
    "to_junit",
    "valid_input",
    "write_html",
    "write_json",
    "write_junit",
]
