"""The README's example test runs as written, with no conftest."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("### End-to-end tests", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README's end-to-end section has no python example"
    return match.group(1)


def test_the_readme_example_test_passes_against_the_demo_site(tmp_path: Path) -> None:
    (tmp_path / "test_shop.py").write_text(readme_example(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_shop.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\b3 passed\b", done.stdout), done.stdout[-2000:]
