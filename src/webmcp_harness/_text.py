"""Moved to `webmcp_harness.core.text`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from .core.text import (
    TooBig,
    cell,
    dumps,
    json_ready,
    markup,
    no_surrogates,
    read_bounded,
    safe_text,
    text,
    write_json,
)

__all__ = [
    "TooBig",
    "cell",
    "dumps",
    "json_ready",
    "markup",
    "no_surrogates",
    "read_bounded",
    "safe_text",
    "text",
    "write_json",
]
