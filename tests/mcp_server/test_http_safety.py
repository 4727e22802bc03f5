"""`serve --http` refuses, with raw HTTP, what a local MCP server must refuse (the MCP
specification's security guidance), and the page's tool never runs for a refused request.

- a ``Host`` that is not local (DNS rebinding): 421, before anything else is read;
- an ``Origin`` that is not local: 403;
- a ``tools/call`` with no ``Mcp-Session-Id``: 400; with an unknown one: 404.

The page's ``bump`` tool answers how often it ran: after every refused request, one call in a
real session answers 1.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
WAIT = 90.0  # the most any one step may take (the machine is shared)
CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "bump", "arguments": {}},
}
JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def port(pages_url: str) -> Iterator[int]:
    """A `serve --http 0` process on the counter page; its port."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    page = f"{pages_url}/mcp/counter.html"
    process = subprocess.Popen(
        [sys.executable, "-m", "webmcp_harness", "serve", page, "--http", "0", "--timeout", "10"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert process.stderr is not None
    stderr = process.stderr

    def read() -> None:
        for line in stderr:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    found = None
    seen: list[str] = []
    while found is None:
        try:
            seen.append(lines.get(timeout=WAIT))
        except queue.Empty:
            break
        found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", seen[-1])
    if found is None:
        process.kill()
        raise AssertionError("the HTTP server did not start:\n" + "".join(seen))
    yield int(found.group(1))
    process.terminate()
    try:
        process.wait(WAIT)
    except subprocess.TimeoutExpired:
        process.kill()


def _post(port: int, body: Any, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        conn.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        data = json.dumps(body).encode()
        conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        response = conn.getresponse()
        return (
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            response.read().decode(),
        )
    finally:
        conn.close()


def _answer(text: str) -> dict[str, Any]:
    """The JSON-RPC message of a JSON or an event-stream body."""
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            answer: dict[str, Any] = json.loads(line[5:])
            return answer
    answer = json.loads(text)
    return answer


def _session(port: int) -> str:
    """A session opened the way a client opens one; its id."""
    local = {"Host": f"127.0.0.1:{port}", **JSON}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    status, headers, body = _post(port, init, local)
    assert status == 200, body
    sid = headers["mcp-session-id"]
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert _post(port, done, {**local, "Mcp-Session-Id": sid})[0] == 202
    return sid


def _bumps(port: int, sid: str) -> int:
    """How often bump has run, counting the call made here."""
    headers = {"Host": f"127.0.0.1:{port}", "Mcp-Session-Id": sid, **JSON}
    status, _, body = _post(port, CALL, headers)
    assert status == 200, body
    result = _answer(body)["result"]
    assert not result.get("isError"), result
    return int(result["content"][0]["text"])


@pytest.fixture
def sid(port: int) -> str:
    """A session whose page has registered bump (the server waits for the tool's event)."""
    session = _session(port)
    ready = {
        "jsonrpc": "2.0",
        "id": 6,
        "method": "tools/call",
        "params": {"name": "browser_wait_for_tool", "arguments": {"name": "bump", "timeout": 60}},
    }
    headers = {"Host": f"127.0.0.1:{port}", "Mcp-Session-Id": session, **JSON}
    status, _, body = _post(port, ready, headers)
    assert status == 200, body
    assert not _answer(body)["result"].get("isError"), body
    return session


@pytest.mark.parametrize("host", ["evil.example:80", "attacker.test", "127.0.0.1.nip.io"])
def test_a_host_that_is_not_local_is_refused_421_before_anything_else(
    port: int, sid: str, host: str
) -> None:
    before = _bumps(port, sid)
    headers = {"Host": host, "Mcp-Session-Id": sid, **JSON}
    status, _, _ = _post(port, CALL, headers)
    assert status == 421
    # before anything else: a body that is not even JSON-RPC, with no content type, is still 421
    assert _post(port, "x", {"Host": host})[0] == 421
    assert _bumps(port, sid) == before + 1


@pytest.mark.parametrize("origin", ["http://evil.example", "https://127.0.0.1.nip.io", "null"])
def test_an_origin_that_is_not_local_is_refused_403(port: int, sid: str, origin: str) -> None:
    before = _bumps(port, sid)
    headers = {"Host": f"127.0.0.1:{port}", "Origin": origin, "Mcp-Session-Id": sid, **JSON}
    status, _, _ = _post(port, CALL, headers)
    assert status == 403
    assert _bumps(port, sid) == before + 1


def test_a_local_origin_is_served(port: int, sid: str) -> None:
    before = _bumps(port, sid)
    headers = {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}", **JSON}
    status, _, body = _post(port, CALL, {**headers, "Mcp-Session-Id": sid})
    assert status == 200, body
    assert _answer(body)["result"]["content"][0]["text"] == str(before + 1)


def test_a_call_without_a_session_id_is_refused_400_and_runs_nothing(port: int, sid: str) -> None:
    before = _bumps(port, sid)
    status, headers, _ = _post(port, CALL, {"Host": f"127.0.0.1:{port}", **JSON})
    assert status == 400
    if "mcp-session-id" in headers:  # the session the SDK opened for it is gone again
        again = {"Host": f"127.0.0.1:{port}", "Mcp-Session-Id": headers["mcp-session-id"], **JSON}
        assert _post(port, CALL, again)[0] == 404
    assert _bumps(port, sid) == before + 1


@pytest.mark.parametrize("bad", ["0" * 32, "not-a-session", "../" * 30])
def test_a_call_with_an_unknown_session_id_is_refused_404_and_runs_nothing(
    port: int, sid: str, bad: str
) -> None:
    before = _bumps(port, sid)
    headers = {"Host": f"127.0.0.1:{port}", "Mcp-Session-Id": bad, **JSON}
    assert _post(port, CALL, headers)[0] == 404
    assert _bumps(port, sid) == before + 1
