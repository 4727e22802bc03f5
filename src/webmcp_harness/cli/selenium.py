"""The command line on a Selenium Grid 4: ``--selenium-grid URL`` and ``--selenium-capabilities
JSON`` on every command, checked before anything starts, and the browsers of the grid's sessions.

Both options default to the variables Playwright reads for its own grid support
(``SELENIUM_REMOTE_URL``, ``SELENIUM_REMOTE_CAPABILITIES``): the harness reads them, and sets
nothing (see `session.selenium`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import click

from ..core.errors import UsageError
from ..session.selenium import CAPABILITIES_ENV, GRID_ENV

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

    from ..session.selenium import GridSessions, SeleniumGrid
    from .common import BrowserOptions

__all__ = ["grid_browser", "grid_from", "grid_sessions", "selenium_options"]


def selenium_options() -> list[Any]:
    """--selenium-grid and --selenium-capabilities, for every command."""
    return [
        click.option(
            "--selenium-grid",
            metavar="URL",
            envvar=GRID_ENV,
            help="Use Chromium from a Selenium Grid 4: the URL of its hub, router or standalone "
            f"server (http://user:password@host:4444 for one that asks) [env {GRID_ENV}].",
        ),
        click.option(
            "--selenium-capabilities",
            metavar="JSON",
            envvar=CAPABILITIES_ENV,
            help="More capabilities to ask the grid for, a JSON object; merged with the "
            "harness's own (its switches and yours both kept) [env "
            f"{CAPABILITIES_ENV}].",
        ),
    ]


def grid_from(kwargs: dict[str, Any], options: BrowserOptions) -> SeleniumGrid | None:
    """The grid of --selenium-grid (None without it), its capabilities made from the options,
    and asked for its /status: a usage error, saying what to do, when anything is wrong."""
    url = kwargs.pop("selenium_grid", None)
    given = kwargs.pop("selenium_capabilities", None)
    if not url:
        if given:
            raise click.UsageError(
                "--selenium-capabilities needs --selenium-grid URL (or $SELENIUM_REMOTE_URL)."
            )
        return None
    if options.connect or options.cdp:
        raise click.UsageError("Give one of --selenium-grid, --connect and --cdp.")
    from ..session.selenium import SeleniumGrid, capabilities, parse_capabilities

    # A path of $WEBMCP_BROWSER_PATH is this machine's: only --browser-path names a node's.
    explicit = options.browser_path if options.browser_path_source == "--browser-path" else None
    hint = "--selenium-grid"
    try:
        hint = "--selenium-capabilities"
        caps = capabilities(
            parse_capabilities(given) if given else None,
            headless=not options.headed,
            webmcp=options.webmcp,
            browser_path=explicit,
        )
        hint = "--selenium-grid"
        grid = SeleniumGrid.at(url, caps)
        grid.status()
    except UsageError as exc:
        raise click.BadParameter(exc.message, param_hint=hint) from None
    return grid


@contextlib.asynccontextmanager
async def grid_browser(playwright: Playwright, options: BrowserOptions) -> AsyncIterator[Browser]:
    """The Chromium of a new session of the options' grid, checked to have WebMCP (as
    `--connect`'s: an error with --backend cdp, else a warning); the session ends after."""
    from ..session.selenium import no_webmcp_message, open_session
    from .common import without_webmcp

    assert options.grid is not None
    opened = await open_session(playwright, options.grid, probe=options.backend != "inpage")
    try:
        if opened.webmcp is False:
            await without_webmcp(opened.browser, options, no_webmcp_message(opened.session))
        yield opened.browser
    finally:
        await opened.close()


@contextlib.asynccontextmanager
async def grid_sessions(
    playwright: Playwright, options: BrowserOptions, count: int
) -> AsyncIterator[tuple[Browser, str, GridSessions]]:
    """count sessions of the options' grid for a check: the first one's browser and name once it
    comes (checked as in `grid_browser`), and the source of the others; all end after, and
    sessions that did not come are named in warnings."""
    from ..session.selenium import GridSessions, no_webmcp_message
    from .common import err, without_webmcp
    from .text import markup

    assert options.grid is not None
    sessions = GridSessions(playwright, options.grid, count, probe=options.backend != "inpage")
    try:
        first = await sessions.first()  # (none: its error says why)
    except BaseException:
        await sessions.aclose()
        raise
    try:
        if first.webmcp is False:
            await without_webmcp(first.browser, options, no_webmcp_message(first.session))
        yield first.browser, first.session.name, sessions
    finally:
        await sessions.aclose()
        for failure in dict.fromkeys(sessions.failures):
            err.print(f"[yellow]warning:[/] a session of the grid was not used: {markup(failure)}")
