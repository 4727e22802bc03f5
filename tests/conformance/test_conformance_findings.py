"""The registry of checks, findings, and the collector that records what ran."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from webmcp_harness.conformance import ids
from webmcp_harness.conformance.findings import (
    CHECKS,
    SPEC_URL,
    Collector,
    Finding,
    Severity,
    Target,
    checks,
    excerpt,
    get_check,
)

PAGE = "http://127.0.0.1:1/"

# Section ids of https://webmachinelearning.github.io/webmcp/ (the published spec, June 2026).
SPEC_ANCHORS = {
    "api",
    "declarative-api",
    "document-extension",
    "dom-document-modelcontext",
    "dom-modelcontexttool-description",
    "dom-modelcontexttool-inputschema",
    "dom-toolannotations-readonlyhint",
    "metadata-description-attacks",
    "model-context-container",
    "permissions-policy",
    "tool-implementation-targets",
    "mitigation-restrict-input-lengths",
    "mitigation-untrusted-annotation",
    "output-injection-attacks",
    "tool-definition-name",
}
DOCS = Path(__file__).resolve().parents[2] / "docs"
PACKAGE = Path(__file__).resolve().parents[2] / "src" / "webmcp_harness"


def test_check_ids_are_stable_dotted_names_in_known_families() -> None:
    for check_id, check in CHECKS.items():
        assert re.fullmatch(r"[a-z]+\.[a-z]+(-[a-z]+)*", check_id), check_id
        assert check.id == check_id
        assert check.family == check_id.split(".")[0]
        assert check.title
        assert check.scope in ("page", "tool")
    assert {c.family for c in CHECKS.values()} == {
        "discovery",
        "metadata",
        "safety",
        "injection",
        "behaviour",
        "form",
        "readiness",
    }


def test_every_check_has_one_constant_and_the_code_names_checks_by_it() -> None:
    constants = {name: getattr(ids, name) for name in ids.__all__}
    assert sorted(constants.values()) == sorted(CHECKS)
    for name, check_id in constants.items():
        assert name == check_id.replace(".", "_").replace("-", "_").upper()
    families = "|".join(sorted({c.family for c in CHECKS.values()}))
    written = re.compile(rf"[\"'](?:{families})\.[a-z]+(?:-[a-z]+)*[\"']")
    found = [
        f"{path.relative_to(PACKAGE)}: {match.group(0)}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "ids.py"
        for match in written.finditer(path.read_text(encoding="utf-8"))
        if match.group(0)[1:-1] in CHECKS
    ]
    assert not found, "check ids written as strings (use conformance.ids):\n" + "\n".join(found)


def test_every_rule_links_a_spec_section_or_the_codes_page_never_a_seed() -> None:
    codes_page = (DOCS / "codes.md").read_text(encoding="utf-8")
    for check in CHECKS.values():
        anchor = check.id.replace(".", "-")
        assert f'<a id="{anchor}"></a>' in codes_page, check.id  # every check is explained
        if check.rule.startswith(SPEC_URL):
            assert check.rule.split("#", 1)[1] in SPEC_ANCHORS, check.id
        else:
            assert check.rule == f"docs/codes.md#{anchor}", check.id
        assert "seeds/" not in check.rule


def test_checks_can_be_listed_by_family() -> None:
    assert [c.id for c in checks("discovery")][:3] == [
        "discovery.page-load",
        "discovery.model-context",
        "discovery.secure-context",
    ]
    assert len(checks()) == len(CHECKS)


def test_an_unknown_check_id_is_refused_with_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"metadata\.name-valid"):
        get_check("metadata.nope")
    with pytest.raises(KeyError):
        Collector(PAGE).ran("nope.nope")


def test_errors_fail_a_run_and_warnings_only_when_strict() -> None:
    assert Severity.ERROR.fails()
    assert Severity.ERROR.fails(strict=True)
    assert not Severity.WARNING.fails()
    assert Severity.WARNING.fails(strict=True)
    assert not Severity.INFO.fails(strict=True)
    assert sorted(Severity, key=lambda s: s.rank) == [
        Severity.ERROR,
        Severity.WARNING,
        Severity.INFO,
    ]


def test_a_finding_takes_its_severity_and_rule_from_the_registry_unless_told() -> None:
    found = Finding.make("metadata.name-valid", "Fix it", page=PAGE, tool="t", frame="")
    assert found.severity is Severity.ERROR
    assert found.rule == f"{SPEC_URL}#tool-definition-name"
    assert found.frame is None
    assert found.family == "metadata"
    softer = Finding.make("metadata.name-valid", "Fix it", page=PAGE, severity=Severity.INFO)
    assert softer.severity is Severity.INFO
    assert found.to_dict() == {
        "check": "metadata.name-valid",
        "severity": "error",
        "page": PAGE,
        "tool": "t",
        "frame": None,
        "message": "Fix it",
        "rule": found.rule,
        "lighthouse": None,
        "detail": {},
    }


def test_a_check_with_a_lighthouse_counterpart_names_its_audit() -> None:
    assert get_check("form.browser-issues").lighthouse == "webmcp-schema-validity"
    assert get_check("readiness.form-coverage").to_dict()["lighthouse"] == "webmcp-form-coverage"
    assert get_check("safety.code-execution").lighthouse is None


def test_the_collector_records_each_target_once_and_findings_mark_their_check_as_run() -> None:
    out = Collector(PAGE)
    out.ran("metadata.name-valid", "a")
    out.ran("metadata.name-valid", "a")
    out.add("metadata.description-present", "Add one", tool="a")
    out.skip("behaviour.answers", "not called", tool="a")
    out.skip("behaviour.answers", "again", tool="a")
    assert out.targets == [
        Target("metadata.name-valid", PAGE, "a"),
        Target("metadata.description-present", PAGE, "a"),
        Target("behaviour.answers", PAGE, "a", None, "not called"),
    ]
    assert [f.check for f in out.findings] == ["metadata.description-present"]


def test_collectors_merge_without_duplicates_and_keep_pages_apart() -> None:
    first, second, other = Collector(PAGE), Collector(PAGE), Collector(PAGE + "other")
    first.ran("metadata.name-valid", "a")
    second.ran("metadata.name-valid", "a")
    second.add("metadata.name-valid", "bad", tool="b")
    other.ran("metadata.name-valid", "a")
    first.extend(second)
    first.extend(other)
    assert len(first.targets) == 3
    assert len(first.findings) == 1


def test_excerpts_are_short_flat_and_quoted() -> None:
    assert excerpt("a  b\nc") == "“a b c”"
    long = excerpt("x" * 1_000_000, 20)
    assert len(long) == 22
    assert long.endswith("…”")
