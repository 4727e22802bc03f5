"""A package's public names are listed once (its `TYPE_CHECKING` re-exports) and load on use."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from webmcp_harness.core.lazy import _homes

PACKAGES = ["webmcp_harness", "webmcp_harness.session", "webmcp_harness.mcp_server"]


@pytest.mark.parametrize("name", PACKAGES)
def test_each_listed_name_is_its_home_modules_own(name: str) -> None:
    package = importlib.import_module(name)
    assert package.__all__
    for public in package.__all__:
        home = importlib.import_module(package._names.homes[public], name)
        assert getattr(package, public) is getattr(home, public), public


def test_only_explicit_relative_re_exports_in_the_type_checking_block_are_public() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from .eager import Loaded as Loaded\n"
        "if TYPE_CHECKING:\n"
        "    from playwright.async_api import Page as Page\n"
        "    from .a import Public as Public\n"
        "    from .a import ForAnnotations\n"
        "    from ..b.c import Far as Far, Other as Renamed\n"
    )
    assert _homes(source) == {"Public": ".a", "Far": "..b.c"}


def test_importing_the_package_loads_none_of_its_names() -> None:
    code = (
        "import sys, webmcp_harness, webmcp_harness.mcp_server\n"
        "print(sorted(m for m in sys.modules if m.startswith(('playwright', 'mcp.', 'webmcp_harness.s'))))"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert ran.stdout.strip() == "[]"
