"""Nothing lost, nothing started for nothing: a full disk keeps the results and the server going;
a path that can't be written and a script that is not UTF-8 are refused before a browser starts."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

SRC = Path(__file__).parent.parent / "src"
UNREACHABLE = "http://127.0.0.1:9/"  # a browser that started would fail here with exit 3
# A path no process can write, root included: sysfs makes no files.
UNWRITABLE = "/sys/webmcp-harness-report"
BEFORE_A_BROWSER = 15.0  # seconds: a refusal comes from the option check, not a browser


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}


def cli(
    *args: str, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webmcp_harness", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=timeout,
        env=env(),
        cwd=cwd,
        check=False,
    )


@pytest.mark.parametrize("option", ["--json-report", "--junit", "--html"])
def test_check_refuses_a_report_path_it_cannot_write_before_a_browser_starts(option: str) -> None:
    started = time.monotonic()
    done = cli("check", UNREACHABLE, option, f"{UNWRITABLE}.out")
    assert done.returncode == 2, done.stderr
    assert option in done.stderr
    assert "can't write" in done.stderr
    assert "Traceback" not in done.stderr
    assert time.monotonic() - started < BEFORE_A_BROWSER


def test_run_refuses_a_script_that_is_not_utf8_naming_the_file_and_the_byte(tmp_path: Path) -> None:
    script = tmp_path / "latin1.yaml"
    script.write_bytes(b"name: caf\xe9\nurl: " + UNREACHABLE.encode() + b"\nsteps:\n  - open: /\n")
    done = cli("run", str(script))
    assert done.returncode == 2
    assert "latin1.yaml" in done.stderr
    assert "byte offset 9 (0xe9)" in done.stderr
    assert "\ufffd" not in done.stderr + done.stdout


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_run_on_a_full_disk_keeps_the_results_on_stdout_and_says_so(
    pages_url: str, tmp_path: Path, browser_server: str
) -> None:
    script = tmp_path / "echo.yaml"
    script.write_text(
        f"name: Echo\nurl: {pages_url}\ntimeout: 10\nsteps:\n"
        "  - open: /hostile/sizes/huge.html\n  - wait_for_tool: echo\n"
        "  - call: {tool: echo, input: {word: hi}, expect: {ok: true}}\n"
    )
    done = cli("run", str(script), "--transcript", "/dev/full", "--connect", browser_server)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 2
    assert "call echo" in done.stdout
    assert "passed: 3 steps" in done.stderr + done.stdout
    assert "No space left on device" in done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_serve_on_a_full_disk_goes_on_answering(
    pages_url: str, tmp_path: Path, browser_server: str
) -> None:
    log_path = tmp_path / "serve.log"
    url = f"{pages_url}/hostile/sizes/huge.html"
    args = ["-m", "webmcp_harness", "serve", url, "--transcript", "/dev/full", "--timeout", "10"]
    args += ["--connect", browser_server]
    params = StdioServerParameters(command=sys.executable, args=args, env=env())

    async def body() -> list[str]:
        answers = []
        with log_path.open("w") as log:
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await asyncio.wait_for(session.initialize(), 60)
                for word in ("one", "two"):
                    result = await asyncio.wait_for(session.call_tool("echo", {"word": word}), 30)
                    answers.append(" ".join(getattr(c, "text", "") for c in result.content))
        return answers

    answers = asyncio.run(body())
    assert "echo: one" in answers[0]
    assert "echo: two" in answers[1]
    log = log_path.read_text()
    assert "Traceback" not in log, log[-2000:]


QUIET = 1.0  # seconds without a list_changed notice after which the flicker page's flood is over


def test_serve_coalesces_a_flood_of_list_changed_and_announces_the_last_state(
    pages_url: str, tmp_path: Path, browser_server: str
) -> None:
    from mcp import types

    url = f"{pages_url}/hostile/sizes/flicker.html"
    args = ["-m", "webmcp_harness", "serve", url, "--timeout", "10", "--connect", browser_server]
    params = StdioServerParameters(command=sys.executable, args=args, env=env())
    told: list[float] = []

    async def body() -> tuple[float, int, list[str]]:
        told_again = asyncio.Event()

        async def on_message(message: object) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                told.append(time.monotonic())
                told_again.set()

        with (tmp_path / "serve.log").open("w") as log:
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write, message_handler=on_message) as session,
            ):
                await asyncio.wait_for(session.initialize(), 60)
                started = time.monotonic()
                await asyncio.wait_for(session.list_tools(), 30)
                listing = time.monotonic() - started
                window = time.monotonic()
                await asyncio.sleep(2)  # sleep-ok: counts the notices the flood makes in 2 s
                flood = len([t for t in told if t >= window])
                await asyncio.wait_for(session.call_tool("stop_flicker", {}), 30)
                # The flood is over once no notice came for QUIET seconds (notices come 4 a second).
                # Then the settle tool makes the one change left: a notice must announce it.
                with contextlib.suppress(asyncio.TimeoutError):
                    while True:
                        told_again.clear()
                        await asyncio.wait_for(told_again.wait(), QUIET)
                told_again.clear()
                await asyncio.wait_for(session.call_tool("settle", {}), 30)
                await asyncio.wait_for(told_again.wait(), 5)
                names = [t.name for t in (await session.list_tools()).tools]
        return listing, flood, names

    listing, flood, names = asyncio.run(body())
    assert listing < 1.0 + 2.0  # LIST_WAIT, and a margin
    assert 1 <= flood <= 2 * 4 + 2  # at most 4 a second
    assert "settled" in names  # a notice came after the last change, and the list shows it
