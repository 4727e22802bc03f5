"""Test and script web pages that expose tools to AI agents through WebMCP, in a real browser.

The names below load on first use: `import webmcp_harness` is quick, and the command line
starts the browser while the rest loads. Each is listed once, in the `TYPE_CHECKING` block
(`core/lazy.py`): adding an export is adding a line there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.lazy import LazyNames

if TYPE_CHECKING:
    from .core.errors import Error as Error
    from .core.errors import WebToolError as WebToolError
    from .core.records import CallRecord as CallRecord
    from .core.records import CallResult as CallResult
    from .core.records import Tool as Tool
    from .core.records import ToolLocation as ToolLocation
    from .core.results import RETRYABLE as RETRYABLE
    from .core.results import ToolErrorCode as ToolErrorCode
    from .core.results import ToolResult as ToolResult
    from .core.results import error_result as error_result
    from .core.results import error_text as error_text
    from .core.results import is_abort_error as is_abort_error
    from .core.results import is_error_text as is_error_text
    from .core.results import to_tool_result as to_tool_result
    from .core.results import tool_error as tool_error
    from .core.results import tool_error_code as tool_error_code
    from .session import WebMCPSession as WebMCPSession
    from .session.browser import find_browser as find_browser
    from .session.browser import launch as launch
    from .session.browser import launch_args as launch_args
    from .session.probe import PageProbe as PageProbe
    from .session.probe import probe as probe
    from .testing.assertions import expect as expect
    from .testing.demo import DemoServer as DemoServer
    from .testing.demo import serve_demo as serve_demo
    from .testing.demo import serve_folder as serve_folder

_names = LazyNames(globals())
__all__ = _names.all


def __getattr__(name: str) -> Any:
    """A name of `__all__` from its module, loaded now (`probe` is the function, not the module)."""
    return _names.load(name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
