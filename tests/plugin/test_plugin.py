"""The pytest plugin, through pytester: each test runs a small suite in a fresh pytest process.

The inner suites are what a user writes: a test file that serves its own pages on 127.0.0.1 and
asks for `page` and `webmcp`, with no conftest unless a test is about one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zipfile
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

# A module-scoped server for the inner test files: the files carry it, no conftest needed.
SERVE = """
import functools
import http.server
import threading
from pathlib import Path

import pytest


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    handler = functools.partial(_Quiet, directory=str(Path(__file__).parent / "site"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()
"""

PAGE = """<!doctype html><meta charset="utf-8"><title>plugin test page</title>
<form toolname="subscribe" tooldescription="Subscribe to the newsletter">
  <input name="email" required toolparamdescription="Your email"><button>Subscribe</button>
</form>
<script>
window.cancelled = [];
const mc = document.modelContext;
mc.addEventListener("toolcancel", (e) => window.cancelled.push("toolcancel:" + e.toolName));
mc.registerTool({name: "echo", description: "Echo the text back.",
  inputSchema: {type: "object", properties: {text: {type: "string"}}, required: ["text"]},
  execute: async (input) => ({echo: input.text})});
mc.registerTool({name: "boom", description: "Always fails.",
  execute: async () => { throw new Error("the kettle is broken"); }});
mc.registerTool({name: "hang", description: "Never answers.",
  execute: (input, options) => new Promise(() => {
    options.signal.addEventListener("abort", () => window.cancelled.push("abort:hang"));
  })});
if (location.hash === "#late") {
  setTimeout(() => mc.registerTool({name: "late", description: "Comes later.",
    execute: async () => "here"}), 300);
}
const gone = new AbortController();
mc.registerTool({name: "fleeting", description: "Goes away when asked.",
  execute: async () => "bye"}, {signal: gone.signal});
window.dropFleeting = () => setTimeout(() => gone.abort(), 200);
document.querySelector("form").addEventListener("submit", (e) => {
  e.preventDefault();
  if (e.agentInvoked) e.respondWith(Promise.resolve({subscribed: e.target.email.value}));
});
</script>
"""

HEADER = "from webmcp_harness import expect\n" + SERVE


def suite(pytester: pytest.Pytester, body: str, name: str = "test_user") -> Path:
    """Write the page and one inner test file (server included); return the file."""
    site = pytester.path / "site"
    site.mkdir(exist_ok=True)
    (site / "index.html").write_text(PAGE, encoding="utf-8")
    return pytester.makepyfile(**{name: HEADER + body})


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=180)


# The user files that need no conftest and no option but --webmcp-coverage share one inner run
# (one process, one browser): each test below checks its own file's part of it, by its inner
# tests' names.
_PLAIN_RUN: list[pytest.RunResult] = []


def plain_run(pytester: pytest.Pytester) -> pytest.RunResult:
    """The one inner run of the plain files (USER_FILE ... CLEAN_FILE) under --webmcp-coverage
    (the leak check's condition: it keeps every call's record), started by the first test that
    asks for it."""
    if not _PLAIN_RUN:
        files = USER_FILE + FIXTURE_FILE + ASSERTIONS_FILE + MARKER_FILE + TIMEOUTS_FILE
        suite(pytester, files + CLEAN_FILE)
        assert not list(pytester.path.rglob("conftest.py"))
        _PLAIN_RUN.append(run(pytester, "-rA", "--webmcp-coverage"))
    return _PLAIN_RUN[0]


def outcomes(result: pytest.RunResult, body: str) -> dict[str, int]:
    """How the inner tests defined in ``body`` ended, from the run's -rA summary."""
    names = re.findall(r"^def (test_\w+)", body, re.M)
    found: dict[str, int] = {}
    for line in result.outlines:
        m = re.match(r"(PASSED|FAILED|ERROR) test_user\.py::(test_\w+)", line)
        if m and m.group(2) in names:
            key = {"PASSED": "passed", "FAILED": "failed", "ERROR": "errors"}[m.group(1)]
            found[key] = found.get(key, 0) + 1
    return found


# -- a user's test file ----------------------------------------------------------------------
USER_FILE = """

def test_calls_a_tool(page, webmcp, site):
    page.goto(site)
    result = webmcp.call("echo", {"text": "hi"})
    expect(result).to_succeed()
    assert result["content"][0]["text"] == '{"echo":"hi"}'


def test_a_missing_tool_is_unavailable(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("no_such_tool")).to_have_code("unavailable")


def test_a_form_waiting_for_a_person_needs_user(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("subscribe", {"email": "a@example.com"})).to_have_code("needs_user")


def test_a_timed_out_tool_is_cancelled_in_the_page(page, webmcp, site):
    page.goto(site)
    result = webmcp.call("hang", {}, timeout=0.3)
    expect(result).to_have_code("timeout")
    page.wait_for_function(
        "window.cancelled.includes('toolcancel:hang') && window.cancelled.includes('abort:hang')",
        timeout=5000,
    )
"""


FIXTURE_FILE = """

from webmcp_harness.errors import SessionClosedError
from webmcp_harness.sync_api import WebMCPSession

held = []


def test_webmcp_is_the_sync_session_of_page(page, webmcp):
    assert isinstance(webmcp, WebMCPSession)
    assert webmcp.page is page
    assert webmcp.timeout == 30.0
    held.append(webmcp)


def test_the_session_was_closed_after_its_test(webmcp):
    assert held and held[0] is not webmcp
    with pytest.raises(SessionClosedError):
        held[0].tools()


def test_the_demo_shop_is_served(page, webmcp, webmcp_demo_url):
    assert webmcp_demo_url.startswith("http://127.0.0.1:")
    page.goto(webmcp_demo_url)
    expect(webmcp).to_have_tool("get_product")
    expect(webmcp.call("get_product", {"product_id": "beacon-lantern"})).to_succeed()
"""


def test_a_user_test_file_without_conftest_gets_the_fixture_and_coded_results(
    pytester: pytest.Pytester,
) -> None:
    assert outcomes(plain_run(pytester), USER_FILE + FIXTURE_FILE) == {"passed": 7}


# -- launching -------------------------------------------------------------------------------
OVERRIDE_CONFTEST = """
import pytest


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "slow_mo": 5,
        "args": ["--user-agent=harness-probe/1.0", "--enable-features=NetworkServiceInProcess"],
    }
"""

OVERRIDE_FILE = """

def test_the_override_is_kept_and_webmcp_works(page, webmcp, site, browser_type_launch_args):
    assert browser_type_launch_args["slow_mo"] == 5
    args = browser_type_launch_args["args"]
    assert "--user-agent=harness-probe/1.0" in args
    features = [a for a in args if a.startswith("--enable-features=")]
    assert len(features) == 1
    assert {"NetworkServiceInProcess", "WebMCP"} <= set(features[0].split("=")[1].split(","))
    page.goto(site)
    assert page.evaluate("navigator.userAgent") == "harness-probe/1.0"
    expect(webmcp.call("echo", {"text": "hi"})).to_succeed()
"""


def test_a_user_override_of_browser_type_launch_args_is_kept(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(OVERRIDE_CONFTEST)
    suite(pytester, OVERRIDE_FILE)
    result = run(pytester)
    result.assert_outcomes(passed=1)


BROWSERS_FILE = """

def test_uses_webmcp(page, webmcp, site):
    page.goto(site)
    expect(webmcp).to_have_tool("echo")


def test_launch_args_are_per_browser(browser_name, browser_type_launch_args):
    args = " ".join(browser_type_launch_args.get("args", []))
    if browser_name == "chromium":
        assert "WebMCP" in args and browser_type_launch_args["executable_path"]
    else:
        assert "WebMCP" not in args and "executable_path" not in browser_type_launch_args
"""


def test_another_browser_skips_with_a_reason_and_gets_no_chromium_switches(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester, BROWSERS_FILE)
    result = run(pytester, "-rs", "--browser", "chromium", "--browser", "firefox")
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED *WebMCP needs Chromium; this run uses firefox."])


NO_WEBMCP_CONFTEST = """
import pytest


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "args": ["--disable-features=WebMCP,WebMCPTesting"]}
"""


def test_a_browser_without_webmcp_skips_with_a_reason(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(NO_WEBMCP_CONFTEST)
    suite(pytester, "\ndef test_uses_webmcp(webmcp):\n    pass\n")
    result = run(pytester, "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED *has no WebMCP: document.modelContext is missing*"])


# -- options and the marker --------------------------------------------------------------------
OPTIONS_FILE = """

def test_timeout_option(page, webmcp, site):
    assert webmcp.timeout == 2.5
    assert webmcp.core.backend.name == "cdp"
    page.goto(site)
    result = webmcp.call("hang")
    expect(result).to_have_code("timeout")
    assert "no answer in 2.5 s" in result["content"][0]["text"]


def test_confirm_option_submits_the_form(page, webmcp, site):
    page.goto(site)
    result = webmcp.call("subscribe", {"email": "a@example.com"})
    expect(result).to_succeed()
    assert "a@example.com" in result["content"][0]["text"]


@pytest.mark.webmcp(timeout=4, confirm=False)
def test_the_marker_beats_the_options(page, webmcp, site):
    assert webmcp.timeout == 4
    page.goto(site)
    expect(webmcp.call("subscribe", {"email": "a@example.com"})).to_have_code("needs_user")


def test_browser_path_option(browser_type_launch_args):
    assert browser_type_launch_args["executable_path"].endswith("my-chromium")
"""


# An ini file the command line's options beat, each one (its defaults: test_ini_options_...).
BEATEN_INI = """
[pytest]
webmcp_timeout = 7
webmcp_confirm = false
webmcp_backend = inpage
"""


def test_the_options_set_timeout_confirm_browser_path_and_backend_and_beat_the_ini_file(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini(BEATEN_INI)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    link = pytester.path / "my-chromium"
    link.symlink_to(chromium)
    suite(pytester, OPTIONS_FILE)
    result = run(
        pytester,
        "--webmcp-timeout=2.5",
        "--webmcp-confirm",
        f"--webmcp-browser-path={link}",
        "--webmcp-backend=cdp",
    )
    result.assert_outcomes(passed=4)


def test_the_options_are_one_group_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:asyncio", "--help")
    result.stdout.fnmatch_lines(
        [
            "WebMCP (webmcp-harness):",
            "*--webmcp-timeout=SECONDS*",
            "*--webmcp-browser-path=PATH*",
            "*--webmcp-confirm*",
            "*--webmcp-backend=NAME*",
        ]
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--webmcp-timeout=soon", "ERROR: --webmcp-timeout must be a number of seconds*'soon'"),
        ("--webmcp-timeout=0", "ERROR: --webmcp-timeout must be more than 0 seconds; got '0'"),
        ("--webmcp-timeout=nan", "ERROR: --webmcp-timeout must be more than 0 seconds; got 'nan'"),
        ("--webmcp-browser-path=/nowhere/chrome", "ERROR: --webmcp-browser-path: no executable*"),
        ("--webmcp-backend=magic", "ERROR: --webmcp-backend must be one of auto, cdp, inpage*"),
        ("--webmcp-confirm=yes", "*argument --webmcp-confirm: ignored explicit argument 'yes'"),
    ],
)
def test_a_bad_option_value_is_a_usage_error(
    pytester: pytest.Pytester, option: str, message: str
) -> None:
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest("-p", "no:asyncio", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


MARKER_FILE = """

@pytest.mark.webmcp(timeout=0.25)
def test_the_marker_sets_the_timeout(page, webmcp, site):
    assert webmcp.timeout == 0.25
    page.goto(site)
    result = webmcp.call("hang")
    expect(result).to_have_code("timeout")
    assert "no answer in 0.25 s" in result["content"][0]["text"]


@pytest.mark.webmcp(confirm=True)
def test_the_marker_acts_as_the_person(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("subscribe", {"email": "a@example.com"})).to_succeed()


def test_without_the_marker_the_defaults_hold(page, webmcp, site):
    assert webmcp.timeout == 30.0
    page.goto(site)
    expect(webmcp.call("subscribe", {"email": "a@example.com"})).to_have_code("needs_user")


@pytest.mark.webmcp(timeout="soon")
def test_a_bad_timeout(webmcp):
    pass


@pytest.mark.webmcp(retries=3)
def test_an_unknown_setting(webmcp):
    pass
"""


def test_the_marker_sets_timeout_and_confirm_per_test(pytester: pytest.Pytester) -> None:
    result = plain_run(pytester)
    assert outcomes(result, MARKER_FILE) == {"passed": 3, "errors": 2}
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.webmcp: timeout must be a number of seconds more than 0; got 'soon'",
            "@pytest.mark.webmcp: unknown settings retries; known: timeout, confirm, backend",
        ]
    )


# -- assertions --------------------------------------------------------------------------------
ASSERTIONS_FILE = """

def test_to_have_code_passes(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("hang", timeout=0.2)).to_have_code("timeout")


def test_not_to_have_code_passes(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("echo", {"text": "hi"})).not_to_have_code("failed")


def test_to_succeed_passes(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("echo", {"text": "hi"})).to_succeed()


def test_not_to_succeed_passes(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("boom")).not_to_succeed()


def test_to_have_tool_waits_for_the_tool(page, webmcp, site):
    page.goto(site + "#late")
    expect(webmcp).to_have_tool("late")


def test_not_to_have_tool_waits_for_the_tool_to_go(page, webmcp, site):
    page.goto(site)
    expect(webmcp).to_have_tool("fleeting")
    page.evaluate("dropFleeting()")
    expect(webmcp).not_to_have_tool("fleeting")


def test_to_have_code_fails(page, webmcp, site):
    page.goto(site)
    result = webmcp.call("echo", {"text": "hi"})
    expect(result).to_have_code("timeout")  # user line


def test_not_to_have_code_fails(page, webmcp, site):
    page.goto(site)
    result = webmcp.call("no_such_tool", {"q": 1})
    expect(result).not_to_have_code("unavailable")  # user line


def test_to_succeed_fails(page, webmcp, site):
    page.goto(site)
    result = webmcp.call("boom")
    expect(result).to_succeed()  # user line


def test_not_to_succeed_fails(page, webmcp, site):
    page.goto(site)
    result = webmcp.call("echo", {"text": "hi"})
    expect(result).not_to_succeed()  # user line


def test_to_have_tool_fails_after_its_timeout(page, webmcp, site):
    page.goto(site)
    expect(webmcp).to_have_tool("late", timeout=0.3)  # user line


def test_not_to_have_tool_fails_after_its_timeout(page, webmcp, site):
    page.goto(site)
    expect(webmcp).not_to_have_tool("echo", timeout=0.3)  # user line
"""


def test_each_assertion_passes_and_fails_with_the_call_record_at_the_user_s_line(
    pytester: pytest.Pytester,
) -> None:
    result = plain_run(pytester)
    assert outcomes(result, ASSERTIONS_FILE) == {"passed": 6, "failed": 6}
    out = result.stdout
    out.fnmatch_lines(
        [
            "*_ test_to_have_code_fails*",
            '>*expect(result).to_have_code("timeout")  # user line',
            "E*AssertionError: expected the result to have code 'timeout', got 'success'",
            "E*call #1: echo in frame http://127.0.0.1:*/index.html",
            'E*input:   {"text": "hi"}',
            'E*browser: {"status": "Completed", "output": {"echo": "hi"}*',
            'E*result:  {"content": ?{"type": "text", "text": "{\\"echo\\":\\"hi\\"}"}?}',
            "test_user.py:*: AssertionError",
            "*_ test_not_to_have_code_fails*",
            '>*expect(result).not_to_have_code("unavailable")  # user line',
            "E*expected the result not to have code 'unavailable', got 'unavailable'",
            "E*call #1: no_such_tool",
            'E*input:   {"q": 1}',
            'E*result:  {"content": ?{"type": "text", "text": "Error ?unavailable?: No tool*',
            "*_ test_to_succeed_fails*",
            ">*expect(result).to_succeed()  # user line",
            "E*expected the result to succeed, got 'failed'",
            'E*browser: {"status": "Error"*the kettle is broken*',
            "*_ test_not_to_succeed_fails*",
            ">*expect(result).not_to_succeed()  # user line",
            "E*expected the result not to succeed, got 'success'",
            "*_ test_to_have_tool_fails_after_its_timeout*",
            '>*expect(webmcp).to_have_tool("late", timeout=0.3)  # user line',
            "E*expected a tool 'late' within 0.3 s; the page has: boom, echo, fleeting, hang, subscribe (*",
            "*_ test_not_to_have_tool_fails_after_its_timeout*",
            '>*expect(webmcp).not_to_have_tool("echo", timeout=0.3)  # user line',
            "E*expected no tool 'echo' within 0.3 s; the page has: boom, echo, fleeting, hang, subscribe (*",
        ]
    )
    assert "assertions.py" not in out.str()
    assert "sync_api.py" not in out.str()


# -- artifacts ---------------------------------------------------------------------------------
ARTIFACTS_FILE = """

def test_passes_after_calls(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("echo", {"text": "fine"})).to_succeed()


def test_fails_after_calls(page, webmcp, site):
    page.goto(site)
    for n in range(7):
        webmcp.call("echo", {"text": f"call {n}"})
    assert False, "the test's own failure"


def test_fails_without_calls(page, webmcp):
    assert False
"""


def test_artifacts_are_written_only_for_failed_tests_beside_playwright_s(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester, ARTIFACTS_FILE)
    result = run(pytester, "--output=artifacts", "--screenshot=only-on-failure")
    result.assert_outcomes(passed=1, failed=2)
    output = pytester.path / "artifacts"
    (calls,) = output.rglob("webmcp-calls.json")
    folder = calls.parent
    assert "test-fails-after-calls" in folder.name
    assert (folder / "test-failed-1.png").is_file()  # pytest-playwright's, same folder
    records = json.loads(calls.read_text(encoding="utf-8"))
    assert [r["id"] for r in records] == list(range(1, 8))
    assert records[0]["input"] == {"text": "call 0"}
    assert records[0]["browser"]["status"] == "Completed"
    assert records[0]["result"] == {"content": [{"type": "text", "text": '{"echo":"call 0"}'}]}
    assert not [p for p in output.iterdir() if "passes" in p.name]
    result.stdout.fnmatch_lines(
        [
            "*- webmcp calls (last 5) -*",
            '#3 echo({"text": "call 2"}) -> ok: {"echo":"call 2"}',
            "#4 echo(*",
            "#5 echo(*",
            "#6 echo(*",
            '#7 echo({"text": "call 6"}) -> ok: {"echo":"call 6"}',
            f"all calls (7): {os.path.relpath(calls, pytester.path)}",
        ]
    )
    assert "#2 echo(" not in result.stdout.str()


# -- traces ------------------------------------------------------------------------------------
TRACE_FILE = """

def test_calls_in_the_trace(page, webmcp, site):
    page.goto(site)
    expect(webmcp.call("echo", {"text": "hi"})).to_succeed()  # line 28
    expect(webmcp.call("boom")).to_have_code("failed")
"""


def test_with_tracing_on_each_call_is_a_group_in_trace_zip(pytester: pytest.Pytester) -> None:
    suite(pytester, TRACE_FILE)
    result = run(pytester, "--tracing=on")
    result.assert_outcomes(passed=1)
    (trace,) = (pytester.path / "test-results").rglob("trace.zip")
    with zipfile.ZipFile(trace) as archive:
        events = [
            json.loads(line)
            for line in archive.read("trace.trace").decode("utf-8").splitlines()
            if line.strip()
        ]
    groups = [e for e in events if e.get("method") == "tracingGroup" and e["type"] == "before"]
    by_id = {g["callId"]: g for g in groups}
    tops = [g for g in groups if "parentId" not in g]
    assert [g["title"] for g in tops] == ["echo → ok", "boom → failed"]
    assert tops[0]["stack"][0]["file"].endswith("test_user.py")
    assert tops[0]["stack"][0]["line"] == 28
    inner = {
        by_id[g["parentId"]]["title"]: [
            c["title"] for c in groups if c.get("parentId") == g["parentId"]
        ]
        for g in groups
        if "parentId" in g
    }
    assert inner["echo → ok"] == [
        'input {"text": "hi"}',
        'result {"content": [{"type": "text", "text": "{\\"echo\\":\\"hi\\"}"}]}',
    ]
    assert inner["boom → failed"][0] == "input {}"
    assert "the kettle is broken" in inner["boom → failed"][1]


# -- the timeout convention: seconds, and what reads as milliseconds is refused -------------------
TIMEOUTS_FILE = """
from webmcp_harness.errors import UsageError


def test_expect_takes_seconds(page, webmcp, site):
    page.goto(site)
    expect(webmcp).to_have_tool("echo", timeout=0.5)
    expect(webmcp).not_to_have_tool("nothing", timeout=0.1)


def test_expect_refuses_milliseconds(page, webmcp, site):
    page.goto(site)
    with pytest.raises(UsageError) as caught:
        expect(webmcp).to_have_tool("echo", timeout=5000)
    assert str(caught.value) == (
        "expect(...): timeout=5000 looks like milliseconds: webmcp-harness takes seconds "
        "(Playwright takes milliseconds), and 5000 s is 83 minutes. Write timeout=5 for "
        "5000 ms; waits of 100 s or more are refused here."
    )
    with pytest.raises(UsageError, match="timeout=300 looks like milliseconds"):
        expect(webmcp).to_match_tool_snapshot(timeout=300)


def test_a_fixture_call_refuses_milliseconds(page, webmcp, site):
    page.goto(site)
    with pytest.raises(UsageError, match="webmcp.call.'echo'.: timeout=30000 looks like milli"):
        webmcp.call("echo", {"text": "hi"}, timeout=30000)
    assert webmcp.records == []


@pytest.mark.webmcp(timeout=5000)
def test_the_marker_refuses_milliseconds(webmcp):
    pass
"""


def test_timeouts_are_seconds_and_a_value_that_reads_as_milliseconds_is_refused(
    pytester: pytest.Pytester,
) -> None:
    result = plain_run(pytester)
    assert outcomes(result, TIMEOUTS_FILE) == {"passed": 3, "errors": 1}
    result.stdout.fnmatch_lines(
        ["*@pytest.mark.webmcp: timeout=5000 looks like milliseconds: webmcp-harness takes sec*"]
    )


# -- ini options -------------------------------------------------------------------------------
INI = """
[pytest]
webmcp_timeout = 2.5
webmcp_confirm = true
webmcp_backend = cdp
webmcp_coverage = true
"""

INI_FILE = """

def test_the_ini_file_sets_timeout_confirm_and_backend(page, webmcp, site):
    assert webmcp.timeout == 2.5
    assert webmcp.core.backend.name == "cdp"
    page.goto(site)
    expect(webmcp.call("subscribe", {"email": "a@example.com"})).to_succeed()
"""


def test_ini_options_give_defaults(pytester: pytest.Pytester) -> None:
    # that the command line beats them: test_the_options_set_..._and_beat_the_ini_file
    pytester.makeini(INI)
    suite(pytester, INI_FILE)
    from_ini = run(pytester)
    from_ini.assert_outcomes(passed=1)
    from_ini.stdout.fnmatch_lines(["*- WebMCP coverage -*", "1 of 5 tools called (20.0%)"])


@pytest.mark.parametrize(
    ("ini", "message"),
    [
        ("webmcp_timeout = soon", "ERROR: webmcp_timeout (ini) must be a number of seconds*'soon'"),
        ("webmcp_timeout = 5000", "ERROR: webmcp_timeout (ini): timeout=5000 looks like millis*"),
        ("webmcp_backend = magic", "ERROR: webmcp_backend (ini) must be one of auto, cdp, inpage*"),
        ("webmcp_coverage_fail_under = most", "ERROR: webmcp_coverage_fail_under (ini) must be a*"),
    ],
)
def test_a_bad_ini_value_is_a_usage_error(
    pytester: pytest.Pytester, ini: str, message: str
) -> None:
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest("-p", "no:asyncio")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


# -- clean sessions ----------------------------------------------------------------------------
# Each test asserts that every session before it is garbage: the weak references are exact, so a
# session that survives its test fails the very next one. So three tests (under
# --webmcp-coverage, which keeps every call's record) prove it as the 200 of old did: the second
# checks a session closed after a test, the third one closed after a session that came before it,
# and an end test checks the last session too. Put a leak back (the plugin keeping each session in
# a list) and the second test fails.
LEAK_TESTS = 3
CLEAN_FILE = f"""
import gc
import weakref

sessions = []


def alive():
    if all(ref() is None for ref in sessions):
        return []  # freed already: no collection needed
    gc.collect()
    return [n for n, ref in enumerate(sessions) if ref() is not None]


@pytest.mark.parametrize("n", range({LEAK_TESTS}))
def test_each_session_is_garbage_after_its_test(page, webmcp, site, n):
    assert alive() == [], "sessions still alive after their tests"
    page.goto(site)
    expect(webmcp.call("echo", {{"text": str(n)}})).to_succeed()
    sessions.append(weakref.ref(webmcp.core))


def test_zz_the_last_session_is_garbage_too():
    assert len(sessions) == {LEAK_TESTS}
    assert alive() == []
"""


def test_no_session_survives_its_test(pytester: pytest.Pytester) -> None:
    assert outcomes(plain_run(pytester), CLEAN_FILE) == {"passed": LEAK_TESTS + 1}
