"""Moved to `webmcp_harness.testing.demo`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from .testing.demo import (
    DemoServer,
    demo_site_path,
    load_expectations,
    serve_demo,
    serve_folder,
)

__all__ = [
    "DemoServer",
    "demo_site_path",
    "load_expectations",
    "serve_demo",
    "serve_folder",
]
