"""Hostile pages cannot make the harness wait without end: dialogs, popups, floods, hung workers,
restless tool lists, sabotaged globals and busy renderers (issue 29). Each bound is asserted as
the timeout plus its documented margin: a correctness check, not a timing.

The bounds (docs: README "Bounds", `session/limits.py`, `session/browser.py`): a call ends within
its timeout + CANCEL (cancelling in the page); `session.close()` within CLOSE_WAIT; a context and
then its browser close within BROWSER_CLOSE_WAIT each (a launched browser within
LAUNCHED_CLOSE_WAIT, or it is killed). `tools` and `call` let go of their page within LET_GO and
close their launched browser at once, without closing its context first.
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from webmcp_harness import WebMCPSession, tool_error_code
from webmcp_harness.cli.common import LET_GO
from webmcp_harness.session.browser import (
    BROWSER_CLOSE_WAIT,
    LAUNCHED_CLOSE_WAIT,
    close_browser,
    launch,
    new_context,
)
from webmcp_harness.session.limits import CLOSE_WAIT, DIALOGS_KEPT, POPUPS_FOLLOWED

SRC = Path(__file__).parent.parent / "src"
SLACK = 3.0  # seconds a loaded machine may add to any bound
# A navigation flood costs Chromium itself 1.2-1.4 cores while it lasts (the page's loop, and the
# browser's work for each of ~100 URL changes a second), against half a core for a busy loop on
# the same loaded machine; the harness's Python handles those events in under 7 % of a core
# (measured during a 5 s flood call at load 9-12). On a loaded 2-core machine that starves the
# harness's process, lagging its timers by seconds (a clean-clone CI run measured a 3 s call
# ending 8.6 s in). The bound holds; its slack is wider.
FLOOD_SLACK = 6.0
CANCEL = 2.0  # a timed-out call's cancelling in the page (session._CANCEL_WAIT)
CLOSING = CLOSE_WAIT + 2 * BROWSER_CLOSE_WAIT  # the session, its context, then the browser
# The --timeout of these tests: a storm or flood shows itself within milliseconds, and burns the
# CPU of a core or more for as long as the call lasts, so it is kept short.
T = 2.0
# In-process tests: opening the page, waiting for its tool, and a call that answers (no bound).
OPEN = 10.0
# From opening the page to the end: the load, and the wait for the tool or the list, each
# within --timeout; a call within its timeout and its cancelling; then closing.
# `tools` and `call`: letting go of the page, then closing the browser they launched.
COMMAND_CLOSING = LET_GO + LAUNCHED_CLOSE_WAIT
CALL_BOUND = T + T + (T + CANCEL) + COMMAND_CLOSING
LIST_BOUND = T + T + COMMAND_CLOSING
HOSTILE = Path(__file__).parent / "pages" / "hostile"


@dataclass
class Ran:
    """A command's output, and when it ended (time.monotonic())."""

    returncode: int
    stdout: str
    stderr: str
    ended: float


def command(*args: str) -> Ran:
    """The real command line, in a child process."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "webmcp_harness", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    return Ran(done.returncode, done.stdout, done.stderr, time.monotonic())


class Served:
    """tests/pages/hostile on a free port, noting when each path was first asked for (the
    moment a command opened it: its launch, which a loaded machine stretches, came before)."""

    def __init__(self) -> None:
        self.first: dict[str, float] = {}
        first = self.first

        class Handler(http.server.SimpleHTTPRequestHandler):
            def do_GET(self) -> None:
                first.setdefault(self.path.split("?")[0], time.monotonic())
                super().do_GET()

            def log_message(self, format: str, *args: object) -> None:
                pass

        handler = functools.partial(Handler, directory=str(HOSTILE))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def since(self, path: str, done: Ran) -> float:
        """Seconds from the command's first request for path to its end."""
        return done.ended - self.first[path]


@pytest.fixture
def hostile() -> Iterator[Served]:
    served = Served()
    yield served
    served.server.shutdown()
    served.server.server_close()


def call_seconds(stderr: str) -> float:
    """The call's own time, from `call`'s status line."""
    found = re.search(r": \w+ in (\d+) ms", stderr)
    assert found, stderr
    return float(found.group(1)) / 1000


def code(result: Any) -> str | None:
    found = tool_error_code(result)
    return found.value if found else None


def on_page(
    url: str, body: Any, *, backend: str = "auto", downloads: bool = False, load: str = "load"
) -> Any:
    """Run body(session, page) on url in a new browser; returns (its value, seconds the session's
    close took)."""

    async def run() -> Any:
        async with async_playwright() as p:
            browser = await launch(p)
            try:
                context = await new_context(browser, downloads=downloads)
                page = await context.new_page()
                session = await WebMCPSession.attach(page, timeout=T, backend=backend)  # type: ignore[arg-type]
                await page.goto(url, timeout=OPEN * 1000, wait_until=load)  # type: ignore[arg-type]
                try:
                    return await body(session, page), None
                finally:
                    started = time.monotonic()
                    await session.close()
                    closed = time.monotonic() - started
                    assert closed < CLOSE_WAIT + SLACK
            finally:
                await close_browser(browser)

    return asyncio.run(run())[0]


# -- dialogs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["alert_storm", "confirm_storm"])
def test_a_dialog_storm_ends_the_call_in_time_with_each_dialog_an_event(
    pages_url: str, tool: str
) -> None:
    async def body(session: WebMCPSession, page: Any) -> None:
        assert await session.wait_for_tool(tool, timeout=OPEN) is not None
        started = time.monotonic()
        result = await session.call(tool, timeout=T)
        assert time.monotonic() - started < T + CANCEL + SLACK
        assert code(result) == "timeout"
        dialogs = [e for e in result.record.events if e.type == "dialog"]
        assert 0 < len(dialogs) <= DIALOGS_KEPT
        assert dialogs[0].detail["text"] == "storm 0 \\x1b[2J\\u202e"  # escaped
        assert dialogs[0].detail["dialog"] == tool.split("_")[0]
        assert dialogs[0].detail["frameUrl"].endswith("/hostile/dialogs.html")

    on_page(f"{pages_url}/hostile/dialogs.html", body)


def test_one_dialog_is_dismissed_and_the_tool_answers(pages_url: str) -> None:
    async def body(session: WebMCPSession, page: Any) -> None:
        assert await session.wait_for_tool("one_alert", timeout=OPEN) is not None
        result = await session.call("one_alert", timeout=OPEN)  # answers: not a bound
        assert code(result) is None
        assert "after the alert" in json.dumps(result)
        (dialog,) = [e.to_dict() for e in result.record.events if e.type == "dialog"]
        assert dialog["text"] == "hello \\x1b[31mred\\u202e"

    on_page(f"{pages_url}/hostile/dialogs.html", body)


def test_the_cli_call_on_a_dialog_storm_ends_within_its_bound(hostile: Served) -> None:
    done = command(
        "call", f"{hostile.url}/dialogs.html", "alert_storm", "--timeout", f"{T:g}"
    )  # fmt: skip
    assert "timeout" in done.stderr
    assert call_seconds(done.stderr) < T + CANCEL + SLACK
    # opening (the load and the wait for the tool, each within --timeout), the call, closing
    assert hostile.since("/dialogs.html", done) < CALL_BOUND + SLACK


def test_a_storm_at_load_still_lists_the_tools_in_time(hostile: Served) -> None:
    done = command("tools", f"{hostile.url}/dialogs.html?atload=1", "--timeout", f"{T:g}")
    assert done.returncode == 0
    assert "stable" in done.stdout
    assert hostile.since("/dialogs.html", done) < LIST_BOUND + SLACK


@pytest.mark.parametrize(
    ("tool", "frame_host"),
    [("same_site_dialogs", "127.0.0.1"), ("cross_site_dialogs", "localhost")],
)
def test_a_frames_dialogs_are_events_of_the_call_with_their_frame(
    pages_url: str, tool: str, frame_host: str
) -> None:
    async def body(session: WebMCPSession, page: Any) -> None:
        assert await session.wait_for_tool(tool, timeout=OPEN) is not None
        result = await session.call(tool, timeout=OPEN)  # answers: not a bound
        assert code(result) is None, result
        dialogs = [e.detail for e in result.record.events if e.type == "dialog"]
        assert [d["dialog"] for d in dialogs] == ["alert", "confirm"]
        assert dialogs[0]["text"] == "frame alert \\x1b[2J\\u202e"
        for dialog in dialogs:
            assert f"//{frame_host}:" in dialog["frameUrl"]
            assert dialog["frameUrl"].endswith("/dialog-frame.html")
            assert dialog["frameId"] != result.record.frame_id

    on_page(f"{pages_url}/hostile/dialogs-frames.html", body)


def test_dialogs_in_the_page_and_a_cross_site_frame_at_once_keep_the_bound(hostile: Served) -> None:
    done = command(
        "call", f"{hostile.url}/dialogs-frames.html", "both_at_once", "--timeout", f"{T:g}"
    )  # fmt: skip
    assert call_seconds(done.stderr) < T + CANCEL + SLACK
    assert hostile.since("/dialogs-frames.html", done) < CALL_BOUND + SLACK


# -- popups, floods, workers, busy renderers ---------------------------------------------------------


def test_a_popup_storm_is_followed_only_so_far_and_the_record_says_so(pages_url: str) -> None:
    async def body(session: WebMCPSession, page: Any) -> None:
        assert await session.wait_for_tool("popup_storm", timeout=OPEN) is not None
        result = await session.call("popup_storm", timeout=T)
        tools = await session.tools(settle=0.5)
        assert sum(t.name == "child_tool" for t in tools) <= POPUPS_FOLLOWED
        return result

    result = on_page(f"{pages_url}/hostile/popups.html", body)
    (left,) = [e.detail for e in result.record.events if e.type == "popupsNotFollowed"]
    assert left["count"] >= 1


def test_check_on_a_popup_storm_ends_within_its_bound(hostile: Served) -> None:
    done = command(
        "check", f"{hostile.url}/popups.html", "--call", "all", "--json", "--timeout", f"{T:g}"
    )  # fmt: skip
    report = json.loads(done.stdout)
    calls = len(report["records"])
    assert calls >= 2
    # the load and the list (the first "+ 1"), then the calls, then closing
    assert hostile.since("/popups.html", done) < (calls + 1) * (T + CANCEL + SLACK) + CLOSING
    events = [e["type"] for r in report["records"] for e in r.get("events", [])]
    assert "popupsNotFollowed" in events


@pytest.mark.parametrize("tool", ["push_flood", "hash_flood"])
def test_a_navigation_flood_ends_the_call_and_the_command_in_time(
    hostile: Served, tool: str
) -> None:
    done = command("call", f"{hostile.url}/navflood.html", tool, "--timeout", f"{T:g}")
    assert call_seconds(done.stderr) < T + CANCEL + FLOOD_SLACK
    assert hostile.since("/navflood.html", done) < CALL_BOUND + FLOOD_SLACK


def test_a_service_worker_that_hangs_requests_does_not_hang_tools(hostile: Served) -> None:
    done = command("tools", f"{hostile.url}/sw-hang.html", "--timeout", f"{T:g}")
    assert done.returncode == 0, done.stderr
    assert hostile.since("/sw-hang.html", done) < LIST_BOUND + SLACK


def test_the_cli_prints_a_busy_tools_timeout_in_time(hostile: Served) -> None:
    done = command("call", f"{hostile.url}/busy.html", "busy", "--timeout", f"{T:g}")
    assert "timeout" in done.stderr
    assert call_seconds(done.stderr) < T + CANCEL + SLACK
    assert hostile.since("/busy.html", done) < CALL_BOUND + SLACK


def test_the_in_page_backend_on_sabotaged_globals_ends_in_time(pages_url: str) -> None:
    async def body(session: WebMCPSession, page: Any) -> None:
        started = time.monotonic()
        result = await session.call("sabotaged", {"q": "hi"}, timeout=T)
        assert time.monotonic() - started < T + CANCEL + SLACK
        assert code(result) is not None or "hi" in json.dumps(result)

    # The page's own scripts call the spinning JSON.stringify too: it never finishes loading.
    on_page(f"{pages_url}/hostile/sabotage-globals.html", body, backend="inpage", load="commit")


# -- a list that never goes quiet -------------------------------------------------------------------


def test_check_reads_a_restless_tool_list_as_it_is_and_checks_it(hostile: Served) -> None:
    done = command(
        "check", f"{hostile.url}/restless.html", "--call", "none", "--json", "--timeout", "5",
    )  # fmt: skip
    assert done.returncode != 3, done.stderr
    report = json.loads(done.stdout)
    assert report["summary"]["tools"] >= 227
    assert "could not be listed" not in done.stdout


# -- downloads ----------------------------------------------------------------------------------------


class _Downloads:
    """A server whose /big answers a 32 MB attachment, counting the bytes it got out."""

    SIZE = 32 * 1024 * 1024

    def __init__(self) -> None:
        self.sent = 0
        downloads = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path != "/big":
                    page = (Path(__file__).parent / "pages/hostile/downloads.html").read_bytes()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(page)))
                    self.end_headers()
                    self.wfile.write(page)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Disposition", 'attachment; filename="big.bin"')
                self.send_header("Content-Length", str(downloads.SIZE))
                self.end_headers()
                chunk = b"\0" * 65536
                try:
                    for _ in range(downloads.SIZE // len(chunk)):
                        self.wfile.write(chunk)
                        downloads.sent += len(chunk)
                except OSError:
                    pass

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def downloads() -> Iterator[_Downloads]:
    found = _Downloads()
    yield found
    found.server.shutdown()
    found.server.server_close()


def test_downloads_are_denied_by_default_and_the_call_is_not_a_failure(
    downloads: _Downloads,
) -> None:
    done = command(
        "call", f"{downloads.url}/downloads.html", "fetch_file", "--timeout", f"{3 * T:g}",
    )  # fmt: skip
    assert ": ok in" in done.stderr, done.stderr
    assert downloads.sent < downloads.SIZE // 2


def test_downloads_can_be_let_through_for_users_who_test_them(downloads: _Downloads) -> None:
    async def body(session: WebMCPSession, page: Any) -> None:
        async with page.expect_download(timeout=OPEN * 1000) as waiting:
            assert code(await session.call("fetch_file", timeout=OPEN)) is None
        download = await waiting.value
        assert await download.failure() is None

    on_page(f"{downloads.url}/downloads.html", body, downloads=True)
