"""The demo server stands alone: the benchmark's floor loads demo.py by its path."""

from __future__ import annotations

import subprocess
import sys

from webmcp_harness.testing import demo

LOAD_ALONE = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("demo_alone", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
with module.serve_demo() as server:
    print(server.url)
"""


def test_demo_py_loads_by_its_path_without_the_package() -> None:
    ran = subprocess.run(
        [sys.executable, "-I", "-c", LOAD_ALONE, demo.__file__],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("http://127.0.0.1:")
