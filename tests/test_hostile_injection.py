"""Prompt injection in metadata: one page of tests/pages/hostile/injection for each place a model
reads, checked as a user checks it (`check --json`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).parent.parent / "src"
PLACES = ("enum", "lookalike", "title", "hidden")


@pytest.fixture(scope="module")
def report(pages_url: str) -> dict[str, Any]:
    """One check of the four pages."""
    urls = [f"{pages_url}/hostile/injection/{place}.html" for place in PLACES]
    done = subprocess.run(
        [sys.executable, "-m", "webmcp_harness", "check", *urls, "--call", "none", "--json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=180,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.parametrize("place", PLACES)
def test_instructions_to_the_agent_are_found_in_every_place_a_model_reads(
    report: dict[str, Any], place: str
) -> None:
    found = {
        (f["check"], f.get("tool"))
        for f in report["findings"]
        if f["page"].endswith(f"/injection/{place}.html") and f["check"].startswith("injection.")
    }
    assert found == {("injection.metadata", "poisoned")}


def test_the_injection_check_has_a_family_of_its_own_in_the_report(report: dict[str, Any]) -> None:
    families = {c["id"]: c["family"] for c in report["checks"]}
    assert families["injection.metadata"] == "injection"
    assert "safety.description-injection" not in families


def test_a_lookalike_or_hidden_match_says_how_it_was_read(report: dict[str, Any]) -> None:
    messages = [f["message"] for f in report["findings"] if f["check"] == "injection.metadata"]
    assert sum("read past lookalike or hidden characters" in m for m in messages) == 2
