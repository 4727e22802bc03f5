"""What a command writes from a hostile page's strings: text, with nothing raw in it."""

from __future__ import annotations

import re

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")
"""What must never reach a terminal or a file raw: C0 but tab and new line, DEL, C1, bidi
controls, line/paragraph separators, lone surrogates."""


def inert(output: bytes | str) -> str:
    """output as text, asserting it is UTF-8 (bytes: decoded strictly, so no lone surrogate was
    written) with no raw control character and no traceback."""
    text = output.decode("utf-8") if isinstance(output, bytes) else output
    assert "Traceback" not in text, text[-2000:]
    assert not RAW.findall(text), f"raw control characters got out: {RAW.findall(text)!r}"
    return text
