"""The README's contract snapshot (missing, then matching) and coverage run, as written.

The README's other examples run in tests/test_docs.py."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_block(after: str, language: str = "python") -> str:
    """The first ```language block after the heading (or text) `after`."""
    text = README.read_text(encoding="utf-8")
    section = text.split(after, 1)[1]
    match = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert match, f"the README has no {language} block after {after!r}"
    return match.group(1)


def readme_example() -> str:
    return readme_block("### End-to-end tests")


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_readme_snapshot_test_and_coverage_run_work_against_the_demo_site(
    tmp_path: Path,
) -> None:
    section = "#### Tool contract snapshots and coverage"
    (tmp_path / "test_shop.py").write_text(readme_example(), encoding="utf-8")
    (tmp_path / "test_contracts.py").write_text(readme_block(section), encoding="utf-8")
    first = pytest_in(tmp_path, "test_contracts.py")
    assert first.returncode == 1, first.stdout[-3000:]
    assert "A snapshot doesn't exist at test_contracts.py-snapshots/" in first.stdout
    (snapshot,) = (tmp_path / "test_contracts.py-snapshots").glob("*.json")
    assert '"search_products"' in snapshot.read_text(encoding="utf-8")

    command = readme_block(section, "console").strip().removeprefix("$ ")
    assert command.startswith("pytest ")
    done = pytest_in(tmp_path, *shlex.split(command)[1:])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\b4 passed\b", done.stdout), done.stdout[-2000:]
    assert re.search(r"search_products +page|search_products +http://127\.0\.0\.1", done.stdout)
    assert "NEVER CALLED" in done.stdout
    assert re.search(r"\d+ of \d+ tools called", done.stdout)
