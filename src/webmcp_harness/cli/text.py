"""Page strings on the terminal: rich `Text` that rich never reads as markup or emoji codes.

``cell`` and ``text`` wrap `webmcp_harness.core.text.safe_text` in a rich ``Text``, so ``[link=…]``
and ``[/]`` stay text; ``markup`` escapes it for a message that carries rich markup of our own.
"""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from ..core.text import safe_text

__all__ = ["cell", "markup", "text"]


def text(value: object, style: str = "") -> Text:
    """A rich Text of a page string: never read as markup or emoji, controls made visible."""
    return Text(safe_text(value), style=style)


def cell(value: object) -> Text:
    """One table cell from a page string (any renderer calls this per cell)."""
    return text("" if value is None else value)


def markup(value: object) -> str:
    """A page string to put inside a rich markup message of our own."""
    return escape(safe_text(value))
