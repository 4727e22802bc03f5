"""Checking a call's arguments against a tool's inputSchema (JSON Schema 2020-12)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError, best_match

__all__ = ["schema_problem", "validate_args", "validator_for"]  # and check_form, loaded on use


# `format` is checked, as every other keyword, for the formats JSON Schema 2020-12 defines (date,
# time, date-time, duration, email, idn-email, hostname, idn-hostname, ipv4, ipv6, uri,
# uri-reference, iri, iri-reference, uuid, uri-template, json-pointer, relative-json-pointer,
# regex): jsonschema's checker for 2020-12 holds exactly these (`jsonschema[format-nongpl]`).
# An unknown format (Chromium writes a regular expression there for `<input type=time>`) passes.
_FORMATS = Draft202012Validator.FORMAT_CHECKER


@lru_cache(maxsize=4096)
def _compiled(schema_json: str) -> Draft202012Validator | str:
    schema = json.loads(schema_json)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return f"the tool's inputSchema is not a valid JSON Schema: {exc.message}"
    return Draft202012Validator(schema, format_checker=_FORMATS)


def validator_for(schema: dict[str, Any]) -> Draft202012Validator | str:
    """A compiled validator for schema (cached), or why the schema itself is broken."""
    return _compiled(json.dumps(schema, sort_keys=True, separators=(",", ":")))


def schema_problem(schema: Any) -> str | None:
    """Why schema is not a usable JSON Schema, or None."""
    if not isinstance(schema, dict):
        return "the tool's inputSchema is not a JSON object"
    found = validator_for(schema)
    return found if isinstance(found, str) else None


def _pointer(error: ValidationError) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path]
    return "/" + "/".join(parts) if parts else "/"


def validate_args(schema: dict[str, Any] | None, args: Any) -> str | None:
    """Why args do not fit schema (message with a JSON pointer), or None when they do.

    A tool without a schema takes any JSON object. A broken schema is not held against the
    caller: the call goes ahead, and the conformance checker reports the schema.
    """
    if not isinstance(args, dict):
        return f"arguments must be a JSON object, not {_json_type(args)}"
    if schema is None:
        return None
    if not isinstance(schema, dict):
        return None
    validator = validator_for(schema)
    if isinstance(validator, str):
        return None
    error = best_match(validator.iter_errors(args))
    if error is None:
        return None
    return f"{error.message} (at {_pointer(error)})"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def __getattr__(name: str) -> Any:
    """`check_form`: a declarative form's controls against the browser's synthesised schema."""
    if name == "check_form":
        from .conformance.forms import check_form

        return check_form
    raise AttributeError(name)
