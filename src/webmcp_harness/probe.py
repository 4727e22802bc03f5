"""Moved to `webmcp_harness.session.probe`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from .session.probe import (
    FrameProbe,
    PageProbe,
    Surface,
    probe,
)

__all__ = [
    "FrameProbe",
    "PageProbe",
    "Surface",
    "probe",
]
