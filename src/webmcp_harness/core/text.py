"""The one output layer for page strings: every command prints hostile text through here.

A page's names, descriptions, schemas, results, titles and errors are hostile data. Before they
reach a terminal they go through ``safe_text``: C0 and C1 control characters (escape sequences,
carriage returns), bidi overrides and isolates, zero-width and line-separator characters become
visible escapes (``\\x1b``, ``\\u202e``), and lone surrogates become U+FFFD; the terminal's
rich ``Text`` cells and markup are built on it by the command line. ``dumps`` writes JSON that
is always valid and never raises: NaN and infinities become ``null``, objects JSON can't carry
become text, and lone surrogates, C1 controls and bidi characters are written as ``\\uXXXX``
escapes (the same value, safe to print).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Mapping
from typing import IO, Any, Final

__all__ = [
    "UNSAFE_CHARACTERS",
    "TooBig",
    "clip",
    "dumps",
    "json_ready",
    "no_surrogates",
    "read_bounded",
    "safe_text",
    "write_json",
]

UNSAFE_CHARACTERS: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
"""The characters a page's text must not bring to a terminal or a report as they are: C0 (but tab
and newline), DEL, C1, zero-width and direction marks, line/paragraph separators, bidi
embeddings/overrides/isolates, the BOM and lone surrogates. `safe_text` shows them as escapes."""

# Escaped inside JSON text (json.dumps already escapes C0): DEL, C1, the same marks, surrogates.
_JSON_UNSAFE: Final = re.compile(
    "[\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_MAX_DEPTH: Final = 200


def _visible(match: re.Match[str]) -> str:
    ch = match.group()
    if "\ud800" <= ch <= "\udfff":
        return "\ufffd"
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(value: object) -> str:
    """Text that shows as itself on a terminal: controls and bidi visible, surrogates U+FFFD."""
    if not isinstance(value, str):
        try:
            value = str(value)
        except Exception:
            value = f"<{type(value).__name__}>"
    return UNSAFE_CHARACTERS.sub(_visible, value)


def clip(text: str, limit: int) -> str:
    """text cut to limit characters, saying how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def no_surrogates(value: str) -> str:
    """value with each lone surrogate replaced by U+FFFD (so it can be encoded as UTF-8)."""
    return _SURROGATE.sub("\ufffd", value)


def json_ready(value: object, _depth: int = 0) -> Any:
    """A copy JSON can carry: non-finite floats as None, other objects as text; never raises."""
    if _depth > _MAX_DEPTH:
        return "…"
    if isinstance(value, int) and not isinstance(value, bool) and _too_long(value):
        return _long_int(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    try:
        if isinstance(value, Mapping):
            return {
                k if isinstance(k, str) else safe_text(k): json_ready(v, _depth + 1)
                for k, v in list(value.items())
            }
        if isinstance(value, (list, tuple, set, frozenset)):
            return [json_ready(v, _depth + 1) for v in list(value)]
        to_dict = getattr(value, "to_dict", None)
        if callable(to_dict) and not isinstance(value, type):
            return json_ready(to_dict(), _depth + 1)
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
    except Exception:
        pass
    return safe_text(value)


def _too_long(value: int) -> bool:
    """Whether Python would refuse to write value in decimal (its int-to-str digit limit)."""
    limit = sys.get_int_max_str_digits()
    return bool(limit) and value.bit_length() > (limit - 1) * 3.32  # bits per decimal digit


def _long_int(value: int) -> str:
    """An integer too long to write in decimal, as text: its size and its hexadecimal."""
    digits = int(value.bit_length() * 0.30103) + 1
    return clip(f"(an integer of about {digits:,} digits) {value:#x}", 2_000)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def dumps(value: object, *, indent: int | None = None, compact: bool = False) -> str:
    """Valid JSON of value, safe on a terminal and encodable as UTF-8; never raises."""
    separators = (",", ":") if compact else None
    data = json_ready(value)
    text_ = json.dumps(
        data, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators
    )
    # Outside strings JSON has only ASCII, so every match is inside a string: \\uXXXX is the
    # same value there.
    return _JSON_UNSAFE.sub(_json_escape, text_)


def write_json(value: object, stream: IO[str], *, indent: int | None = None) -> None:
    """One JSON document and a newline on stream (ASCII-only if the stream can't take UTF-8)."""
    line = dumps(value, indent=indent) + "\n"
    try:
        stream.write(line)
    except UnicodeEncodeError:
        stream.write(json.dumps(json.loads(line), ensure_ascii=True, indent=indent) + "\n")
    stream.flush()


class TooBig(ValueError):
    """A file over the size a command accepts."""


def read_bounded(path: str | os.PathLike[str], limit: int, *, errors: str = "replace") -> str:
    """A file's UTF-8 text (bad bytes replaced; ``errors="strict"``: UnicodeDecodeError), read at
    most limit bytes; TooBig beyond that.

    Bounded for files whose size isn't known up front too (``/dev/zero``, a pipe).
    """
    with open(path, "rb") as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise TooBig(f"it is over {limit:,} bytes")
    return data.decode("utf-8", errors)
