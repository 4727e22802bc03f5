"""What docs/codes.md says about each check, read from the page itself (one text, not a copy).

The HTML report quotes it as a failed check's "how to fix". The wheel carries the page as
``webmcp_harness/_docs/codes.md``; a checkout reads the repository's ``docs/codes.md``. Without
either, there is nothing to quote (the report then gives the check's title alone).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

__all__ = ["codes_doc_path", "explanation"]

# <a id="anchor"></a>, its ### heading, then "**Title.** What it asks and how to meet it."
_ENTRY = re.compile(
    r'<a id="(?P<anchor>[a-z0-9-]+)"></a>\s*\n###[^\n]*\n\s*\n\*\*[^\n]*?\*\*\s*(?P<text>[^\n]+)'
)


def codes_doc_path() -> Path | None:
    """Where docs/codes.md is: inside the installed wheel, else the repository's copy."""
    package = Path(__file__).resolve().parents[1]  # webmcp_harness/
    for path in (package / "_docs" / "codes.md", package.parents[1] / "docs" / "codes.md"):
        if path.is_file():
            return path
    return None


@functools.lru_cache(maxsize=1)
def _entries() -> dict[str, str]:
    path = codes_doc_path()
    if path is None:
        return {}
    text = path.read_text(encoding="utf-8")
    return {m.group("anchor"): m.group("text").strip() for m in _ENTRY.finditer(text)}


def explanation(check_id: str) -> str:
    """docs/codes.md's paragraph on a check, after its title ("" when it has none)."""
    return _entries().get(check_id.replace(".", "-"), "")
