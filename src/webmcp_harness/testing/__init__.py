"""What tests of a WebMCP site use on top of the session: `expect`, contract snapshots, coverage,
and the demo shop's server. The pytest plugin (`webmcp_harness.plugin`) is their face.
"""

from __future__ import annotations

__all__: list[str] = []
