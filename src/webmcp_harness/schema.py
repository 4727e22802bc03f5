"""Moved to `webmcp_harness.core.schema`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from .core.schema import (
    MAX_ARGS_DEPTH,
    MAX_REF_DEPTH,
    PATTERN_BUDGET,
    args_problem,
    fits,
    schema_hazard,
    schema_problem,
    validate_args,
    validator_for,
)

__all__ = [
    "MAX_ARGS_DEPTH",
    "MAX_REF_DEPTH",
    "PATTERN_BUDGET",
    "args_problem",
    "fits",
    "schema_hazard",
    "schema_problem",
    "validate_args",
    "validator_for",
]
