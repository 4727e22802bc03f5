"""The families of checks and their scores: a check id's prefix names its family, one table
titles them, and a prefix the table does not know is a family of its own."""

from __future__ import annotations

from pathlib import Path

from webmcp_harness.conformance.families import FAMILIES, family_of, score_families
from webmcp_harness.conformance.findings import CHECKS, Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def test_every_registered_check_belongs_to_a_family_of_the_table() -> None:
    titled = {f.prefix for f in FAMILIES}
    assert {check.family for check in CHECKS.values()} <= titled


def test_the_families_the_issue_names_have_titles_and_meanings() -> None:
    assert family_of("form.submit-button").title == "Forms"
    assert family_of("readiness.anything").title == "Agent readiness"
    assert family_of("injection.anything").title == "Prompt injection"
    assert all(f.meaning.endswith("?") for f in FAMILIES)


def test_an_unknown_prefix_is_a_family_under_its_own_name() -> None:
    family = family_of("latency.first-call")
    assert (family.prefix, family.title) == ("latency", "latency")
    assert "latency." in family.meaning


def test_a_check_scores_1_when_clean_half_with_a_warning_and_0_with_an_error() -> None:
    (metadata,) = score_families(
        [
            ("metadata.a", []),
            ("metadata.b", [INFO]),  # info costs nothing
            ("metadata.c", [W, INFO]),
            ("metadata.d", [W, E]),  # the worst finding counts
        ]
    )
    assert (metadata.checks, metadata.passed, metadata.warned, metadata.failed) == (4, 2, 1, 1)
    assert metadata.score == 62  # 100 × (2 + 0.5) / 4, rounded


def test_families_come_in_the_tables_order_then_unknown_ones_by_name() -> None:
    scores = score_families(
        [("zeta.x", [E]), ("safety.x", []), ("alpha.x", []), ("discovery.x", [W])]
    )
    assert [s.family.prefix for s in scores] == ["discovery", "safety", "alpha", "zeta"]
    assert [s.score for s in scores] == [50, 100, 100, 0]
    assert score_families([]) == []


def test_docs_codes_md_lists_every_family_of_the_table() -> None:
    text = (Path(__file__).parents[2] / "docs" / "codes.md").read_text(encoding="utf-8")
    for family in FAMILIES:
        assert f"| `{family.prefix}` | {family.title} | {family.meaning} |" in text, family
