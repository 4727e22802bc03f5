"""A script's model: its steps and expectations as frozen dataclasses (format: the package's docstring)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal

from ...core.timeouts import DEFAULT_TIMEOUT
from ...core.urls import join_url, split_url
from ..policy import first_name

DEFAULT_ATTEMPTS: Final = 3
MAX_ATTEMPTS: Final = 10
MAX_SCRIPT_BYTES: Final = 1_000_000
"""The largest script file ``load_script`` reads (a megabyte)."""


class ScriptError(Exception):
    """A script that can't run as written: the line (1-based, None if unknown) and why."""

    def __init__(self, line: int | None, message: str, *, source: str | None = None) -> None:
        self.line = line
        self.message = message
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        return f"{where}: {self.message}" if where else self.message


class _Missing(enum.Enum):
    MISSING = "MISSING"

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing.MISSING
"""An ``equals``/``contains``/``input`` that was not given (``null`` is a value)."""

PathPart = str | int


# -- the model -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Owner:
    """Whose run it is: their name and what they asked for."""

    name: str = ""
    instructions: str = ""

    @property
    def first_name(self) -> str:
        """The first word of the name, or "the owner"."""
        return first_name(self.name)


@dataclass(frozen=True)
class Expect:
    """What a step's answer must be; every given field must hold."""

    ok: bool | None = None
    code: str | None = None
    kind: str | None = None
    held: Literal["ask", "stop"] | None = None
    reason: str | None = None
    path: tuple[PathPart, ...] | None = None
    path_text: str | None = None
    equals: Any = MISSING
    contains: Any = MISSING
    line: int | None = None
    matches: Any = MISSING
    """A webmcp-evals ``result`` (``constraints``): the tool's value must match it. Set by
    ``load_evals``; a YAML script has no key for it."""


@dataclass(frozen=True)
class OpenStep:
    """Open a URL in the page."""

    action: ClassVar[str] = "open"
    url: str
    timeout: float | None = None
    line: int | None = None


@dataclass(frozen=True)
class CallStep:
    """Call a tool through the gateway (the check first, then the page)."""

    action: ClassVar[str] = "call"
    tool: str
    input: Any = field(default_factory=dict)
    source: Literal["owner", "page"] = "owner"
    expect: Expect | None = None
    retry: Literal["auto", "none"] = "none"
    attempts: int = 1
    timeout: float | None = None
    line: int | None = None


@dataclass(frozen=True)
class WaitForToolStep:
    """Wait until the page has a tool of this name."""

    action: ClassVar[str] = "wait_for_tool"
    tool: str
    timeout: float | None = None
    line: int | None = None


@dataclass(frozen=True)
class ConfirmStep:
    """Act as the person: confirm the form of this tool that waits for them."""

    action: ClassVar[str] = "confirm"
    tool: str
    expect: Expect | None = None
    timeout: float | None = None
    line: int | None = None


@dataclass(frozen=True)
class ApproveStep:
    """The owner says yes to a held call, so the next identical call goes through.

    ``input`` is MISSING for "the last call to this tool the check held back".
    """

    action: ClassVar[str] = "approve"
    tool: str
    input: Any = MISSING
    line: int | None = None


Step = OpenStep | CallStep | WaitForToolStep | ConfirmStep | ApproveStep


@dataclass(frozen=True)
class Script:
    """A parsed script, ready to run."""

    name: str
    steps: tuple[Step, ...]
    owner: Owner = field(default_factory=Owner)
    url: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    source: str | None = None

    def resolve(self, url: str, base_url: str | None = None) -> str:
        """An ``open`` step's URL made absolute against ``base_url`` or the script's ``url``."""
        base = base_url or self.url
        if is_absolute(url):
            return url
        if not base:
            raise ScriptError(None, f"{url!r} is relative and the script has no url")
        return join_url(base, url)


def is_absolute(url: str) -> bool:
    """Whether a script's URL is absolute (http, https or file), not relative to its ``url``."""
    return split_url(url).scheme.lower() in ("http", "https", "file")
