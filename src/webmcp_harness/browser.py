"""Moved to `webmcp_harness.session.browser`; this path stays until the work in flight is on the new one."""

from __future__ import annotations

from .session.browser import (
    BROWSER_ENV,
    LAUNCH_OPTIONS_HEADER,
    NO_WEBMCP_CDP,
    NO_WEBMCP_REMOTE,
    WEBMCP_FEATURES,
    browser_has_webmcp,
    connect,
    explain_load_error,
    find_browser,
    launch,
    launch_args,
    launch_options,
    playwright_chromium_path,
)

__all__ = [
    "BROWSER_ENV",
    "LAUNCH_OPTIONS_HEADER",
    "NO_WEBMCP_CDP",
    "NO_WEBMCP_REMOTE",
    "WEBMCP_FEATURES",
    "browser_has_webmcp",
    "connect",
    "explain_load_error",
    "find_browser",
    "launch",
    "launch_args",
    "launch_options",
    "playwright_chromium_path",
]
