"""The synchronous face of the harness, for Playwright's sync API: the same core, run in place.

The public path of `webmcp_harness.session.sync`.
"""

from __future__ import annotations

from .session.sync import WebMCPSession

__all__ = ["WebMCPSession"]
