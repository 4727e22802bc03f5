"""The families of checks (a check id's prefix, before its first dot) and how each is scored.

One table names each family and says what its score means; a family the table does not know
(a check added without a row here) still scores, under its own prefix, and never fails a report.

The score of a family is the share of its checks that passed, out of 100: every check that ran
on a page or on a tool counts once; it scores 1 with no error or warning, 0.5 when its worst
finding is a warning, and 0 with an error (an info finding costs nothing; a skipped check does
not count). It does not depend on --strict, so the same page scores the same either way.
docs/codes.md says the same ("How the report scores").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .findings import Severity

__all__ = [
    "FAMILIES",
    "Family",
    "FamilyScore",
    "FamilyTally",
    "family_of",
    "family_rank",
    "score_families",
]


@dataclass(frozen=True)
class Family:
    """A family of checks: its id prefix, its title, and what its score says."""

    prefix: str
    title: str
    meaning: str


FAMILIES: tuple[Family, ...] = (
    Family("discovery", "Discovery", "Can an agent find the page's tools at all?"),
    Family("metadata", "Metadata", "Can an agent tell what each tool does and what to send it?"),
    Family("behaviour", "Behaviour", "Do the tools answer calls, with valid and coded results?"),
    Family("form", "Forms", "Do declarative forms offer the agent what they offer a person?"),
    Family("safety", "Safety", "Is nothing in the tools set to turn an agent against its user?"),
    Family(
        "readiness",
        "Agent readiness",
        "Could an agent finish the site's tasks with its tools alone?",
    ),
    Family(
        "injection",
        "Prompt injection",
        "Do the tools resist text written to steer the agent?",
    ),
)
_BY_PREFIX = {f.prefix: f for f in FAMILIES}
_ORDER = {f.prefix: i for i, f in enumerate(FAMILIES)}


def family_of(check_id: str) -> Family:
    """The family of a check id; a prefix the table does not know is a family of its own."""
    prefix = check_id.split(".", 1)[0]
    known = _BY_PREFIX.get(prefix)
    if known is not None:
        return known
    return Family(prefix, prefix, f"The checks whose ids start with “{prefix}.”.")


def family_rank(check_id: str) -> int:
    """Where a check's family comes in the table (unknown families after every known one)."""
    return _ORDER.get(check_id.split(".", 1)[0], len(_ORDER))


@dataclass(frozen=True)
class FamilyScore:
    """How one family did: checks run, passed, warned and failed, and the score (0-100)."""

    family: Family
    checks: int
    passed: int
    warned: int
    failed: int

    @property
    def score(self) -> int:
        """The share of the family's checks that passed, out of 100 (a warning counts half)."""
        if not self.checks:
            return 0
        return round(100 * (self.passed + self.warned / 2) / self.checks)


class FamilyTally:
    """The families' checks counted as they come (one check on one target at a time)."""

    def __init__(self) -> None:
        self._counts: dict[str, list[int]] = {}  # prefix: [checks, passed, warned, failed]

    def add(self, check_id: str, severities: Iterable[Severity]) -> None:
        """Count a check that ran on a target, by the severities of its findings."""
        prefix = check_id.split(".", 1)[0]
        counts = self._counts.setdefault(prefix, [0, 0, 0, 0])
        worst = min((s.rank for s in severities), default=Severity.INFO.rank)
        counts[0] += 1
        if worst == Severity.ERROR.rank:
            counts[3] += 1
        elif worst == Severity.WARNING.rank:
            counts[2] += 1
        else:
            counts[1] += 1

    def scores(self) -> list[FamilyScore]:
        """Each family's score: the table's families first, in its order, then unknown ones by
        name. A family with no check run is not listed."""
        ordered = sorted(self._counts, key=lambda p: (family_rank(p), p))
        return [FamilyScore(family_of(p), *self._counts[p]) for p in ordered]


def score_families(cases: Iterable[tuple[str, Iterable[Severity]]]) -> list[FamilyScore]:
    """Each family's score from its checks run: (check id, severities of its findings) per check
    on a target (skipped checks left out by the caller), as `FamilyTally.scores` lists them."""
    tally = FamilyTally()
    for check_id, severities in cases:
        tally.add(check_id, severities)
    return tally.scores()
