"""A hostile page cannot reach the user: each page of tests/pages/hostile through the API and the CLI.

The network and file cases use a local server that records every request: a harness that fetched
a schema's ``$ref`` would show up there.
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
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import Page as AsyncPage
from playwright.sync_api import Page

from async_chromium import AsyncChromium
from inert import inert
from webmcp_harness import WebMCPSession, tool_error_code
from webmcp_harness.sync_api import WebMCPSession as SyncSession

HOSTILE = Path(__file__).parent / "pages" / "hostile"
SRC = Path(__file__).parent.parent / "src"
MARGIN = 3.0  # seconds beyond a timeout that a bounded call may take on a loaded machine
FILE_SECRET = "FILE-SECRET-CONTENT-15"
SECRETS = (
    "4111111111111111",
    "4111\u00a01111",
    "4111.1111.1111",
    "5500-0000-0000-0004",
    "DE89 3704 0044",
    "DE89370400440532013000",
    "hunter2",
    "swordfish",
)


class Recorder:
    """A local server that records every request and answers with a schema."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                recorder.requests.append(self.path)
                body = b'{"type": "string"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


class _HostileHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html; charset=utf-8",
    }
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(f"{self.headers.get('Host')}{self.path}")
        parts = urlsplit(self.path)
        if parts.path == "/redirect":
            # Same origin link, another origin target: localhost instead of 127.0.0.1.
            target = parse_qs(parts.query).get("to", ["other-origin.html"])[0]
            port = self.server.server_address[1]
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{port}/{target}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def hostile_url() -> Iterator[str]:
    handler = functools.partial(_HostileHandler, directory=str(HOSTILE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    found = Recorder()
    yield found
    found.server.shutdown()
    found.server.server_close()


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret.json"
    path.write_text(json.dumps({"type": "string", "description": FILE_SECRET}))
    return path


@pytest.fixture
def refs_url(hostile_url: str, recorder: Recorder, secret_file: Path) -> str:
    return f"{hostile_url}/refs.html?recorder={recorder.port}&file={secret_file}"


def cli(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[bytes]:
    """The real command line, in a child process (bytes: the test decodes them strictly)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "webmcp_harness", *args],
        capture_output=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def code(result: Any) -> str | None:
    found = tool_error_code(result)
    return found.value if found else None


def text_of(result: Any) -> str:
    return " ".join(
        str(p.get("text", "")) for p in result.get("content", []) if isinstance(p, dict)
    )


def open_page(page: Page, webmcp: SyncSession, url: str, tool: str) -> None:
    page.goto(url)
    assert webmcp.wait_for_tool(tool, timeout=10) is not None


def call_ms(stderr: str) -> float:
    """The call's own time from `call`'s status line (the process also starts Python and its
    Playwright driver, and opens a context)."""
    found = re.search(r": \w+ in (\d+) ms", stderr)
    assert found, stderr
    return float(found.group(1))


# -- schemas are closed worlds ---------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["remote_ref", "file_ref"])
def test_a_ref_outside_the_schema_is_never_fetched_and_refuses_the_call(
    page: Page, webmcp: SyncSession, refs_url: str, recorder: Recorder, tool: str
) -> None:
    open_page(page, webmcp, refs_url, tool)
    result = webmcp.call(tool, {"q": "word"})
    assert code(result) == "invalid_input"
    assert "refers outside itself" in text_of(result)
    assert FILE_SECRET not in json.dumps(result)
    assert recorder.requests == []
    assert page.evaluate("window.ran") == []


@pytest.mark.parametrize("tool", ["remote_ref", "file_ref"])
def test_the_cli_refuses_a_call_whose_schema_refers_outside_and_fetches_nothing(
    refs_url: str, recorder: Recorder, tool: str, browser_server: str
) -> None:
    done = cli("call", refs_url, tool, '{"q": "word"}', "--json", "--connect", browser_server)
    result = json.loads(inert(done.stdout))
    assert code(result) == "invalid_input"
    assert "refers outside itself" in text_of(result)
    assert FILE_SECRET not in inert(done.stdout) + inert(done.stderr)
    assert recorder.requests == []


@pytest.mark.parametrize("tool", ["ref_loop", "ref_mutual", "ref_nowhere"])
def test_ref_loops_and_dangling_refs_are_a_coded_invalid_input(
    page: Page, webmcp: SyncSession, refs_url: str, tool: str
) -> None:
    open_page(page, webmcp, refs_url, tool)
    result = webmcp.call(tool, {"q": "word"})
    assert code(result) == "invalid_input"
    assert page.evaluate("window.ran") == []


def test_the_cli_codes_a_ref_loop_without_a_traceback(refs_url: str, browser_server: str) -> None:
    done = cli("call", refs_url, "ref_mutual", '{"q": "word"}', "--connect", browser_server)
    assert done.returncode == 0
    assert "invalid_input" in inert(done.stderr)


def test_check_reports_outside_refs_as_a_finding_and_fetches_nothing(
    refs_url: str, recorder: Recorder, browser_server: str
) -> None:
    done = cli("check", refs_url, "--json", "--connect", browser_server)
    report = json.loads(inert(done.stdout))
    flagged = {
        f["tool"]
        for f in report["findings"]
        if f["check"] == "metadata.schema-valid" and "outside itself" in f["message"]
    }
    assert {"remote_ref", "file_ref"} <= flagged
    assert FILE_SECRET not in done.stdout.decode() + done.stderr.decode()
    assert recorder.requests == []


# -- bounded patterns ------------------------------------------------------------------------------

AAA = "a" * 34 + "!"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("redos_nested", {"q": AAA}),
        ("redos_alt", {"q": AAA}),
        ("redos_keys", {AAA: "x"}),
        ("redos_form", {"code": AAA}),
    ],
)
def test_a_backtracking_pattern_ends_within_the_calls_timeout(
    page: Page, webmcp: SyncSession, hostile_url: str, tool: str, args: dict[str, Any]
) -> None:
    open_page(page, webmcp, f"{hostile_url}/redos.html", tool)
    started = time.monotonic()
    result = webmcp.call(tool, args, timeout=2)
    took = time.monotonic() - started
    assert took < 2 + MARGIN
    assert code(result) == "invalid_input"


def test_the_cli_call_on_a_backtracking_pattern_ends_in_time(
    hostile_url: str, browser_server: str
) -> None:
    done = cli(
        "call", f"{hostile_url}/redos.html", "redos_alt", json.dumps({"q": AAA}), "--timeout", "2",
        "--connect", browser_server,
    )  # fmt: skip
    err = inert(done.stderr)
    assert "invalid_input" in err
    assert call_ms(err) < (2 + MARGIN) * 1000


def test_check_on_a_backtracking_pattern_ends_with_a_finding(
    hostile_url: str, browser_server: str
) -> None:
    started = time.monotonic()
    url = f"{hostile_url}/redos.html"
    done = cli("check", url, "--json", "--timeout", "5", "--connect", browser_server)
    report = json.loads(inert(done.stdout))
    assert time.monotonic() - started < 150
    flagged = {
        f["tool"]
        for f in report["findings"]
        if f["check"] == "metadata.schema-valid" and "backtracks" in f["message"]
    }
    assert {"redos_alt", "redos_keys"} <= flagged


# -- clean output ----------------------------------------------------------------------------------


def test_the_tools_table_shows_hostile_strings_as_text(
    hostile_url: str, browser_server: str
) -> None:
    done = cli("tools", f"{hostile_url}/text.html", "--connect", browser_server)
    assert done.returncode == 0
    out = inert(done.stdout)
    assert "hostile_text" in out
    assert "[link=https://evil.exam" in out  # shown (the table may cut it), not made a link
    assert "\x1b]8;" not in done.stdout.decode("utf-8", "replace")  # no terminal hyperlink
    assert "\\x1b[2J" in out
    assert "\\u202e" in out


def test_tools_json_is_valid_json_with_the_strings_escaped(
    hostile_url: str, browser_server: str
) -> None:
    done = cli("tools", f"{hostile_url}/text.html", "--json", "--connect", browser_server)
    tools = {t["name"]: t for t in json.loads(inert(done.stdout))}
    assert "\x1b[2J" in tools["hostile_text"]["description"]  # the same value, escaped


def test_call_prints_a_hostile_result_as_text_and_as_valid_json(
    hostile_url: str, browser_server: str
) -> None:
    url = f"{hostile_url}/text.html"
    shown = cli("call", url, "hostile_text", "--connect", browser_server)
    assert shown.returncode == 0
    assert "[/]" in inert(shown.stdout)
    as_json = cli("call", url, "hostile_text", "--json", "--connect", browser_server)
    result = json.loads(inert(as_json.stdout))
    assert "\x1b]0;pwned" in result["content"][0]["text"]


def test_content_that_is_not_a_list_of_parts_does_not_crash_the_output(
    page: Page, webmcp: SyncSession, hostile_url: str, browser_server: str
) -> None:
    url = f"{hostile_url}/text.html"
    for args in ((), ("--json",)):
        done = cli("call", url, "hostile_content", *args, "--connect", browser_server)
        assert done.returncode == 0
        inert(done.stdout)
    open_page(page, webmcp, url, "hostile_content")
    assert code(webmcp.call("hostile_content")) is None


def test_markup_in_a_url_or_tool_name_on_the_command_line_does_not_crash(
    hostile_url: str, browser_server: str
) -> None:
    url = f"{hostile_url}/text.html?x=[/]"
    # --timeout 2: `call` waits up to min(--timeout, 5 s) for a tool that never comes.
    done = cli("call", url, "[/][link=x]", "--timeout", "2", "--connect", browser_server)
    assert done.returncode == 0
    assert "unavailable" in inert(done.stderr)
    done = cli("tools", url, "--connect", browser_server)
    assert done.returncode == 0
    inert(done.stdout)


def test_the_check_summary_and_reports_hold_hostile_strings_safely(
    hostile_url: str, tmp_path: Path, browser_server: str
) -> None:
    junit, html_path = tmp_path / "junit.xml", tmp_path / "report.html"
    done = cli(
        "check", f"{hostile_url}/text.html", "--json", "--junit", str(junit),
        "--html", str(html_path), "--connect", browser_server,
    )  # fmt: skip
    report = json.loads(inert(done.stdout))
    assert report["summary"]["tools"] == 2
    inert(done.stderr)  # the summary goes to stderr with --json -
    ET.parse(junit)
    page = html_path.read_text(encoding="utf-8")
    assert "[link=https://evil.example]" in page
    assert "<script>const" not in page


# -- the page's own script API -------------------------------------------------------------------------


def test_a_sabotaged_json_stringify_does_not_stall_a_call(
    async_chromium: AsyncChromium, hostile_url: str
) -> None:
    async def body(session: WebMCPSession, page: AsyncPage) -> tuple[float, Any]:
        started = time.monotonic()
        result = await session.call("sabotaged", {"q": "hi"}, timeout=5)
        return time.monotonic() - started, result

    took, result = async_chromium.on_page(f"{hostile_url}/sabotage.html", body)
    assert took < 5 + MARGIN
    assert code(result) is None, text_of(result)
    assert "hi" in text_of(result)


def test_the_cli_calls_a_tool_on_a_page_that_broke_json(
    hostile_url: str, browser_server: str
) -> None:
    done = cli(
        "call", f"{hostile_url}/sabotage.html", "sabotaged", '{"q": "hi"}', "--timeout", "5",
        "--connect", browser_server,
    )  # fmt: skip
    err = inert(done.stderr)
    assert ": ok in" in err, err
    assert call_ms(err) < (5 + MARGIN) * 1000


# -- redaction ---------------------------------------------------------------------------------------


def _no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, secret


def test_run_keeps_secrets_out_of_stdout_stderr_and_the_transcript(
    hostile_url: str, tmp_path: Path, browser_server: str
) -> None:
    script = tmp_path / "secrets.yaml"
    script.write_text(
        f"url: {hostile_url}/secrets.html\n"
        "steps:\n"
        "  - open: secrets.html\n"
        "  - wait_for_tool: account\n"
        "  - call: {tool: account, expect: {path: $.phrase, equals: nothing}}\n"
    )
    transcript = tmp_path / "run.jsonl"
    done = cli("run", str(script), "--transcript", str(transcript), "--connect", browser_server)
    assert done.returncode == 1  # the expectation fails, and says what came back
    _no_secret(inert(done.stdout))
    _no_secret(inert(done.stderr))
    written = transcript.read_text(encoding="utf-8")
    _no_secret(written)
    assert "[redacted]" in written
    for line in written.splitlines():
        json.loads(line)


def test_check_reports_keep_secrets_out_of_their_call_records(
    hostile_url: str, tmp_path: Path, browser_server: str
) -> None:
    html_path = tmp_path / "report.html"
    done = cli(
        "check", f"{hostile_url}/secrets.html", "--json", "--html", str(html_path),
        "--connect", browser_server,
    )  # fmt: skip
    out = inert(done.stdout)
    report = json.loads(out)
    assert any(r.get("tool") == "account" for r in report["records"])
    _no_secret(out)
    _no_secret(html_path.read_text(encoding="utf-8"))


# -- bad values at the door ----------------------------------------------------------------------------


def test_deep_or_non_finite_arguments_are_coded_invalid_input_through_the_api(
    page: Page, webmcp: SyncSession, hostile_url: str
) -> None:
    open_page(page, webmcp, f"{hostile_url}/text.html", "hostile_content")
    deep: dict[str, Any] = {}
    for _ in range(60_000):
        deep = {"a": deep}
    for args in ({"n": float("nan")}, {"n": float("inf")}, deep):
        result = webmcp.call("hostile_content", args)
        assert code(result) == "invalid_input"


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "3601", "1e400"])
def test_the_timeout_must_be_finite_and_at_most_an_hour(value: str) -> None:
    done = cli("tools", "http://127.0.0.1:9/", "--timeout", value, timeout=60)
    assert done.returncode == 2
    assert "--timeout" in inert(done.stderr)


@pytest.mark.parametrize("args", ['{"n": NaN}', '{"n": Infinity}', '{"n": 1e999}', "[" * 60_000])
def test_deep_or_non_finite_json_arguments_are_a_usage_error(args: str) -> None:
    done = cli("call", "http://127.0.0.1:9/", "tool", args, timeout=60)
    assert done.returncode == 2
    assert "JSON_ARGS" in inert(done.stderr)


@pytest.mark.parametrize("command", ["run", "replay"])
def test_run_and_replay_refuse_an_endless_file(command: str) -> None:
    started = time.monotonic()
    done = cli(command, "/dev/zero", timeout=60)
    assert done.returncode == 2
    assert "too big" in inert(done.stderr)
    assert time.monotonic() - started < 30


# -- the crawl ----------------------------------------------------------------------------------------


def test_a_crawl_never_calls_the_tools_of_another_origin_it_was_redirected_to(
    hostile_url: str, browser_server: str
) -> None:
    """Passes once the crawl checks where a redirect ended (issue 14's fix of the crawl)."""
    _HostileHandler.seen.clear()
    url = f"{hostile_url}/crawl-start.html"
    done = cli("check", url, "--crawl", "1", "--json", "--connect", browser_server)
    report = json.loads(inert(done.stdout))
    called = {r.get("tool") for r in report["records"]}
    assert "start_tool" in called
    assert "other_origin_tool" not in called
    assert not any("called-other-origin-tool" in s for s in _HostileHandler.seen)


# -- use_tool never raises ------------------------------------------------------------------------------


class _Hostile:
    """An object that raises from everything Python may call on it."""

    def __repr__(self) -> str:
        raise RuntimeError("repr")

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __bool__(self) -> bool:
        raise RuntimeError("bool")


class _HostileStr(str):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    __hash__ = str.__hash__


@pytest.mark.parametrize(
    ("name", "given", "source"),
    [
        ("tool", {"x": _Hostile()}, "owner"),
        ("tool", _Hostile(), "owner"),
        (_Hostile(), {}, "owner"),
        ("tool", {}, _Hostile()),
        (_HostileStr("tool"), {_HostileStr("k"): _HostileStr("v")}, _HostileStr("owner")),
        ("tool", {"n": float("nan")}, "owner"),
    ],
)
def test_use_tool_never_raises_on_hostile_python_objects(
    name: Any, given: Any, source: Any
) -> None:
    from webmcp_harness.agent import Gateway

    gateway = Gateway(None, owner="Sam Rivera")
    answer = asyncio.run(gateway.use_tool(name, given, source=source))
    assert isinstance(answer, dict)
    assert "error" in answer
    json.dumps(gateway.calls[-1].to_dict())  # the record is plain data
