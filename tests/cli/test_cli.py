"""The command line as a new user meets it: messages that say what to do, one --json, exit statuses.

Every command runs as a user runs it, in its own process, against the demo shop or test pages; one
that opens a page uses the worker's browser server (`--connect`), but for the tests of where the
browser comes from, which launch one.
Exit statuses: 0 done, 1 checks or expectations failed, 2 usage errors, 3 the browser or the page
could not be reached.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from interrupt import hears_ctrl_c
from webmcp_harness.cli.common import EXIT_FAILED, EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE

ROOT = Path(__file__).resolve().parents[2]
HARNESS = str(Path(sys.executable).with_name("webmcp-harness"))
EXAMPLE = ROOT / "examples" / "shop_purchase.yaml"


@dataclass
class Command:
    code: int
    out: str
    err: str


def harness(*args: str | Path, columns: int = 80, **env: str) -> Command:
    """Run the CLI as a user would, its output piped (so not a terminal), $COLUMNS wide."""
    environ = {k: v for k, v in os.environ.items() if k != "WEBMCP_BROWSER_PATH"}
    environ.update(COLUMNS=str(columns), **env)
    done = subprocess.run(
        [HARNESS, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=180,
        env=environ,
        check=False,
    )
    return Command(done.returncode, done.stdout, done.stderr)


def one_json_document(text: str) -> object:
    """stdout holds exactly one JSON document (json.loads refuses anything after it)."""
    return json.loads(text)


def closed_port() -> int:
    """A port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- where the browser comes from --------------------------------------------------------------
def test_a_missing_browser_named_by_the_environment_says_so_and_how_to_fix_it() -> None:
    ran = harness("tools", "http://127.0.0.1:9/", WEBMCP_BROWSER_PATH="/nonexistent")
    assert ran.code == EXIT_UNREACHABLE, ran.err
    assert "(from WEBMCP_BROWSER_PATH)" in ran.err
    assert "--browser-path" not in ran.err.split("(from")[1].split(".")[0]
    assert "unset it" in ran.err


def test_a_missing_browser_named_by_the_option_names_the_option() -> None:
    ran = harness("tools", "http://127.0.0.1:9/", "--browser-path", "/nonexistent")
    assert ran.code == EXIT_UNREACHABLE, ran.err
    assert "(from --browser-path)" in ran.err
    assert "Give --browser-path the path of a Chromium" in ran.err


def test_a_program_that_is_not_a_browser_is_called_that() -> None:
    ran = harness("tools", "http://127.0.0.1:9/", "--browser-path", "/bin/true")
    assert ran.code == EXIT_UNREACHABLE, ran.err
    assert "Target page, context or browser has been closed" not in ran.err
    assert "is not a Chromium that Playwright can drive" in ran.err
    assert "playwright install chromium" in ran.err


# -- options ------------------------------------------------------------------------------------
def test_a_timeout_that_is_not_a_number_asks_for_seconds() -> None:
    ran = harness("tools", "http://127.0.0.1:9/", "--timeout", "abc")
    assert ran.code == EXIT_USAGE
    assert "float range" not in ran.err
    assert "'abc' is not a number of seconds; give one like --timeout 10" in ran.err


@pytest.mark.parametrize("command", [["tools"], ["call", "--json"], ["check"]])
def test_a_file_url_is_refused_with_how_to_serve_the_folder(command: list[str]) -> None:
    name, *rest = command
    args = [name, "file:///tmp/page.html", *(["echo"] if name == "call" else []), *rest]
    ran = harness(*args)
    assert ran.code == EXIT_USAGE, ran.err
    assert "serve_folder" in ran.err


# -- pages that cannot be reached --------------------------------------------------------------
def test_an_unsafe_port_becomes_advice_on_one_line(browser_server: str) -> None:
    ran = harness("tools", "http://127.0.0.1:6000/", "--connect", browser_server)
    assert ran.code == EXIT_UNREACHABLE, ran.err
    (line,) = ran.err.strip().splitlines()  # never cut mid-line, however long
    assert "Serve the page on another port" in line
    assert line.endswith("(Chromium: net::ERR_UNSAFE_PORT)")


def test_a_refused_connection_says_to_start_the_server(browser_server: str) -> None:
    port = closed_port()
    url = f"http://127.0.0.1:{port}/"
    ran = harness("call", url, "search_products", "--json", "--connect", browser_server)
    assert ran.code == EXIT_UNREACHABLE, ran.err
    assert ran.out == ""
    (line,) = ran.err.strip().splitlines()
    assert f"nothing is listening on 127.0.0.1:{port}. Start the server first" in line
    assert "webmcp-harness demo" in line


def test_check_of_a_site_that_is_not_there_exits_3(browser_server: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    ran = harness("check", url, "--timeout", "5", "--connect", browser_server)
    assert ran.code == EXIT_UNREACHABLE, ran.out + ran.err


# -- tools --------------------------------------------------------------------------------------
def test_tools_is_one_line_a_tool_within_80_columns(
    webmcp_demo_url: str, browser_server: str
) -> None:
    ran = harness("tools", f"{webmcp_demo_url}/", "--connect", browser_server)
    assert ran.code == EXIT_OK, ran.err
    lines = ran.out.rstrip("\n").splitlines()
    assert lines[0].startswith("8 tools at ")
    assert len(lines) == 3 + 8  # title, header, rule, a line per tool
    assert max(len(line) for line in lines) <= 80
    assert lines[1].split() == ["name", "kind", "parameters", "frame", "description"]
    kinds = {line.split()[1] for line in lines[3:]}
    assert kinds == {"imperative", "declarative"}  # the words the HTML report uses
    support = next(line for line in lines if line.startswith("ask_support"))
    assert "localhost:" in support  # the one tool outside the main frame says where


def test_tools_shows_no_frame_column_when_every_tool_is_in_the_main_frame(
    webmcp_demo_url: str, browser_server: str
) -> None:
    ran = harness("tools", f"{webmcp_demo_url}/checkout", "--connect", browser_server, columns=120)
    lines = ran.out.rstrip("\n").splitlines()
    assert lines[1].split() == ["name", "kind", "parameters", "description"]
    assert max(len(line) for line in lines) <= 120
    assert any(len(line) > 80 for line in lines)  # the width given is used


def test_zero_tools_says_why_there_might_be_none(pages_url: str, browser_server: str) -> None:
    # --settle 0: the advice is the same whether or not the harness waited for a first tool.
    url = f"{pages_url}/defects/no-tools.html"
    ran = harness("tools", url, "--settle", "0", "--connect", browser_server)
    assert ran.code == EXIT_OK, ran.err
    assert "0 tools at" in ran.err
    assert "--settle" in ran.err
    assert "Chromium 146+" in ran.err


def test_tools_json_is_one_document(webmcp_demo_url: str, browser_server: str) -> None:
    ran = harness("tools", f"{webmcp_demo_url}/", "--json", "--connect", browser_server)
    tools = one_json_document(ran.out)
    assert isinstance(tools, list)
    assert {t["name"] for t in tools} >= {"search_products"}


def test_a_command_keeps_its_playwright_drivers_compiled_code_in_the_cache_folder(
    webmcp_demo_url: str, browser_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NODE_COMPILE_CACHE", raising=False)
    ran = harness(
        "tools", webmcp_demo_url, "--json", "--connect", browser_server,
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )  # fmt: skip
    assert ran.code == EXIT_OK, ran.err
    assert any(
        p.is_file() for p in (tmp_path / "cache/webmcp-harness/node-compile-cache").rglob("*")
    )


def test_a_node_compile_cache_the_user_set_is_the_one_used(
    webmcp_demo_url: str, browser_server: str, tmp_path: Path
) -> None:
    ran = harness(
        "tools", webmcp_demo_url, "--json", "--connect", browser_server,
        XDG_CACHE_HOME=str(tmp_path / "cache"), NODE_COMPILE_CACHE=str(tmp_path / "mine"),
    )  # fmt: skip
    assert ran.code == EXIT_OK, ran.err
    assert any(p.is_file() for p in (tmp_path / "mine").rglob("*"))
    assert not (tmp_path / "cache/webmcp-harness").exists()


# -- call ---------------------------------------------------------------------------------------
def test_call_says_it_is_waiting_for_a_tool_that_is_not_there_yet(
    webmcp_demo_url: str, browser_server: str
) -> None:
    ran = harness(
        "call",
        f"{webmcp_demo_url}/",
        "serch_products",
        '{"q": "wool"}',
        "--timeout",
        "2",
        "--connect",
        browser_server,
    )
    assert ran.code == EXIT_OK  # a coded failure is the command doing its job
    assert "waiting up to 2 s for the tool 'serch_products'" in ran.err
    assert "unavailable" in ran.err


def test_call_json_is_one_document_and_a_coded_failure_exits_0(
    webmcp_demo_url: str, browser_server: str
) -> None:
    ran = harness(  # no place_order on /: --timeout 2 bounds the wait for it (5 s by default)
        "call",
        f"{webmcp_demo_url}/",
        "place_order",
        '{"email": "a@b.c"}',
        "--json",
        "--timeout",
        "2",
        "--connect",
        browser_server,
    )
    assert ran.code == EXIT_OK, ran.err
    result = one_json_document(ran.out)
    assert isinstance(result, dict)
    assert result["isError"] is True


def test_call_with_arguments_that_are_not_an_object_is_a_coded_invalid_input(
    webmcp_demo_url: str, browser_server: str
) -> None:
    ran = harness(
        "call", f"{webmcp_demo_url}/", "search_products", "[1]", "--connect", browser_server
    )
    assert ran.code == EXIT_OK, ran.err
    assert "Error [invalid_input]" in ran.out
    assert "must be a JSON object" in ran.out


# -- check --------------------------------------------------------------------------------------
def test_check_json_prints_the_report_on_stdout_and_json_report_writes_it(
    pages_url: str, tmp_path: Path, browser_server: str
) -> None:
    report = tmp_path / "report.json"
    url = f"{pages_url}/defects/no-tools.html"
    ran = harness(
        "check",
        url,
        "--timeout",
        "5",
        "--strict",
        "--json",
        "--json-report",
        report,
        "--connect",
        browser_server,
    )
    assert ran.code == EXIT_FAILED, ran.err  # no tools is a warning; --strict fails on it
    printed = one_json_document(ran.out)
    assert printed == json.loads(report.read_text(encoding="utf-8"))


def test_check_respects_the_width_it_is_given_when_piped(
    pages_url: str, browser_server: str
) -> None:
    url = f"{pages_url}/defects/no-tools.html"
    ran = harness("check", url, "--timeout", "5", "--connect", browser_server, columns=60)
    table = [line for line in ran.out.splitlines() if line[:1] in "┏┃┡│└┗━─╇"]
    assert table, ran.out
    assert max(len(line) for line in table) <= 60


def test_check_json_needs_no_path_any_more() -> None:
    ran = harness("check", "--json", "report.json")
    assert ran.code == EXIT_USAGE
    assert "'report.json' is not an http(s) URL" in ran.err


@pytest.mark.parametrize("command", ["tools", "check"])
def test_a_url_python_cannot_split_is_a_usage_error_not_a_traceback(command: str) -> None:
    ran = harness(command, "http://[x/")
    assert ran.code == EXIT_USAGE
    assert "'http://[x/' is not a URL (Invalid IPv6 URL)" in ran.err
    assert "Traceback" not in ran.err


# -- run and replay (the shop example's --json run and replay: tests/cli/test_run.py) ----------
def test_run_of_a_script_whose_url_is_a_file_is_refused_once(tmp_path: Path) -> None:
    script = tmp_path / "local.yaml"
    script.write_text("name: local\nurl: file:///tmp/shop/\nsteps:\n  - open: /\n", "utf-8")
    ran = harness("run", script)
    assert ran.code == EXIT_USAGE, ran.out + ran.err
    assert "serve_folder" in ran.err
    assert ran.err.lower().count("could not open") == 0


def test_run_opening_a_file_says_could_not_open_once_and_how_to_serve_it(
    tmp_path: Path, browser_server: str
) -> None:
    script = tmp_path / "local.yaml"
    script.write_text("name: local\nsteps:\n  - open: file:///tmp/page.html\n", "utf-8")
    ran = harness("run", script, "--json", "--connect", browser_server)
    assert ran.code == EXIT_FAILED, ran.out + ran.err
    (step,) = one_json_document(ran.out)["steps"]  # type: ignore[index]
    (miss,) = step["misses"]
    assert miss.lower().count("could not open") == 1
    assert "WebMCP is absent on file: pages" in miss
    assert "serve_folder" in miss


def test_run_against_a_site_that_is_not_there_fails_its_open_step(browser_server: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    ran = harness("run", EXAMPLE, "--url", url, "--json", "--connect", browser_server)
    assert ran.code == EXIT_FAILED, ran.err
    first = one_json_document(ran.out)["steps"][0]  # type: ignore[index]
    assert "Start the server first" in first["misses"][0]


# -- demo ---------------------------------------------------------------------------------------
def test_demo_json_prints_its_url_as_one_document() -> None:
    demo = subprocess.Popen(
        [HARNESS, "demo", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=hears_ctrl_c,
    )
    try:
        assert demo.stdout is not None
        line = demo.stdout.readline()
        assert json.loads(line)["url"].startswith("http://127.0.0.1:")
    finally:
        demo.send_signal(signal.SIGINT)
        _, err = demo.communicate(timeout=30)
    assert demo.returncode == EXIT_OK
    assert "Traceback" not in err


# -- late tools: settling as a browser auditor does ---------------------------------------------
def test_tools_lists_a_tool_registered_900_ms_after_load(
    pages_url: str, browser_server: str
) -> None:
    ran = harness(
        "tools", f"{pages_url}/ready/late-tool.html", "--json", "--connect", browser_server
    )
    tools = one_json_document(ran.out)
    assert isinstance(tools, list)
    assert {t["name"] for t in tools} == {"list_orders", "count_orders"}


def test_a_short_settle_still_overrides_and_reads_the_list_before_the_late_tool(
    pages_url: str, browser_server: str
) -> None:
    url = f"{pages_url}/ready/late-tool.html"
    ran = harness("tools", url, "--json", "--settle", "0.1", "--connect", browser_server)
    tools = one_json_document(ran.out)
    assert isinstance(tools, list)
    assert {t["name"] for t in tools} == {"list_orders"}


def test_check_checks_a_tool_registered_900_ms_after_load(
    pages_url: str, browser_server: str
) -> None:
    ran = harness(
        "check", f"{pages_url}/ready/late-tool.html", "--json", "--connect", browser_server
    )
    report = one_json_document(ran.out)
    assert isinstance(report, dict)
    [page] = report["pages"]
    assert {t["name"] for t in page["tools"]} == {"list_orders", "count_orders"}
    called = {r["tool"] for r in report["records"]}
    assert "count_orders" in called, called


# -- where each tool was registered --------------------------------------------------------------
def test_tools_json_says_where_each_tool_was_registered(
    pages_url: str, browser_server: str
) -> None:
    ran = harness("tools", f"{pages_url}/ready/located.html", "--json", "--connect", browser_server)
    [tool] = one_json_document(ran.out)  # type: ignore[misc]
    assert tool["location"] == {
        "url": f"{pages_url}/ready/located.js",
        "line": 3,
        "column": 30,
    }


def test_a_finding_about_a_tool_says_where_it_was_registered(
    pages_url: str, browser_server: str
) -> None:
    ran = harness("check", f"{pages_url}/ready/located.html", "--json", "--connect", browser_server)
    report = one_json_document(ran.out)
    assert isinstance(report, dict)
    [finding] = [f for f in report["findings"] if f["tool"] == "get_stock"]
    assert finding["check"] == "metadata.description-useful"
    assert finding["location"]["url"] == f"{pages_url}/ready/located.js"
    assert finding["location"]["line"] == 3


def test_a_source_that_cannot_tell_where_a_tool_was_registered_gives_no_location(
    pages_url: str, browser_server: str
) -> None:
    url = f"{pages_url}/ready/located.html"
    ran = harness("tools", url, "--json", "--backend", "inpage", "--connect", browser_server)
    [tool] = one_json_document(ran.out)  # type: ignore[misc]
    assert tool["name"] == "get_stock"
    assert "location" not in tool


@pytest.mark.parametrize(
    ("tool", "args", "why"),
    [
        ("get_item", '{"id": 7}', ""),  # its own {content, isError: true}: fastapi-webmcp's way
        ("book_table", '{"party_size": 30, "date": "soon"}', "validation errors"),  # the bistro's
    ],
)
def test_call_says_failed_for_an_answer_that_is_a_refusal(
    pages_url: str, browser_server: str, tool: str, args: str, why: str
) -> None:
    ran = harness(
        "call", f"{pages_url}/truth/refusals.html", tool, args, "--connect", browser_server
    )
    assert ran.code == EXIT_OK, ran.err
    assert f"{tool}: failed" in ran.err
    assert why in ran.err
    assert f"{tool}: ok" not in ran.err


@pytest.mark.parametrize(
    ("page", "said"),
    [
        ("navigator-only.html", "registers on navigator.modelContext, which this browser does not"),
        ("failed-shim.html", "/truth/vendor/webmcp-shim.js did not run (HTTP 404)"),
    ],
)
def test_tools_says_exactly_why_a_page_has_none(
    pages_url: str, browser_server: str, page: str, said: str
) -> None:
    # --settle 0: the reasons are read from the loaded page, not from waiting for a first tool.
    url = f"{pages_url}/truth/{page}"
    ran = harness("tools", url, "--settle", "0", "--connect", browser_server, columns=400)
    assert ran.code == EXIT_OK, ran.err
    assert "0 tools" in ran.err
    assert said in ran.err
