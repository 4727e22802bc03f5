"""Moved to `webmcp_harness.core.secrets`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from ..core.secrets import (
    REDACTED,
    Finding,
    find_secrets,
    iban_ok,
    key_secret,
    key_words,
    luhn_ok,
    redact,
    secret_spans,
)

__all__ = [
    "REDACTED",
    "Finding",
    "find_secrets",
    "iban_ok",
    "key_secret",
    "key_words",
    "luhn_ok",
    "redact",
    "secret_spans",
]
