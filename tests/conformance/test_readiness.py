"""Agent readiness (issue 27): forms that are not tools, the accessibility tree agents read
(axe-core), the site's llms.txt and layout shifts, each naming its Lighthouse counterpart; and a
page that painted nothing (where Lighthouse stops) is still checked.

Each page of tests/pages/ready/ is served from a folder of its own (so its /llms.txt is the
test's), and checked by the command line as a user runs it.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from webmcp_harness.conformance.readiness import LlmsTxt, llms_problem

READY = Path(__file__).parents[1] / "pages" / "ready"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    asked: list[str]  # the paths asked for, in order (each site's own list)

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.asked.append(self.path)
        super().do_GET()


@pytest.fixture
def asked() -> list[str]:
    """The paths the site's server was asked for."""
    return []


@pytest.fixture
def site(tmp_path: Path, asked: list[str]) -> Iterator[tuple[Path, str]]:
    """tests/pages/ready/ copied into a folder served on 127.0.0.1: (folder, base URL)."""
    root = tmp_path / "site"
    shutil.copytree(READY, root)
    served = type("_Served", (_Quiet,), {"asked": asked})
    handler = functools.partial(served, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def check(url: str, browser_server: str) -> dict[str, Any]:
    """`webmcp-harness check URL --json`, as a user runs it (in the worker's browser): the report."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "webmcp_harness",
            "check",
            url,
            "--json",
            "--connect",
            browser_server,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def found(report: dict[str, Any], check_id: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["check"] == check_id]


def test_a_page_that_is_not_agent_ready_gets_a_finding_for_each_lack(
    site: tuple[Path, str], browser_server: str
) -> None:
    _, base = site
    report = check(f"{base}/not-agent-ready.html", browser_server)
    [forms] = found(report, "readiness.form-coverage")
    assert "form#newsletter" in forms["message"]
    assert forms["severity"] == "info"
    rules = {f["detail"]["rule"] for f in found(report, "readiness.accessibility-tree")}
    assert {"button-name", "label"} <= rules
    [shift] = found(report, "readiness.layout-shift")
    assert shift["detail"]["cls"] > 0.1
    assert not found(report, "readiness.llms-txt")  # no llms.txt (a 404) is fine


def test_each_readiness_check_names_its_lighthouse_audit_in_the_json_report(
    site: tuple[Path, str], browser_server: str
) -> None:
    _, base = site
    report = check(f"{base}/not-agent-ready.html", browser_server)
    lighthouse = {c["id"]: c["lighthouse"] for c in report["checks"]}
    assert lighthouse["readiness.form-coverage"] == "webmcp-form-coverage"
    assert lighthouse["readiness.accessibility-tree"] == "agent-accessibility-tree"
    assert lighthouse["readiness.layout-shift"] == "cumulative-layout-shift"
    assert lighthouse["discovery.tools-found"] == "webmcp-registered-tools"
    assert all(f["lighthouse"] for f in report["findings"] if f["check"].startswith("readiness."))


def test_a_page_that_painted_nothing_is_still_checked(
    site: tuple[Path, str], browser_server: str
) -> None:
    _, base = site
    report = check(f"{base}/painted-nothing.html", browser_server)
    [page] = report["pages"]
    assert [t["name"] for t in page["tools"]] == ["get_status"]
    assert [r["tool"] for r in report["records"]] == ["get_status"]
    [forms] = found(report, "readiness.form-coverage")
    assert "form#search" in forms["message"]
    assert report["summary"]["passed"]


def test_axe_reads_the_page_without_waiting_on_its_iframes(
    site: tuple[Path, str], asked: list[str], browser_server: str
) -> None:
    # axe-core is in the main frame only, so no iframe answers its question: it waited 500 ms
    # (its ping wait) on each one for nothing. The page's own nameless button is still found.
    _, base = site
    report = check(f"{base}/framed.html", browser_server)
    rules = {f["detail"]["rule"] for f in found(report, "readiness.accessibility-tree")}
    assert "button-name" in rules
    assert "/framed-widget.html" in asked
    assert "/asked-by-axe.txt" not in asked


def test_a_malformed_llms_txt_is_a_warning(site: tuple[Path, str], browser_server: str) -> None:
    root, base = site
    (root / "llms.txt").write_text("Welcome to our shop.\n", encoding="utf-8")
    report = check(f"{base}/painted-nothing.html", browser_server)
    [llms] = found(report, "readiness.llms-txt")
    assert llms["severity"] == "warning"
    assert "H1 title" in llms["message"]
    assert "links" in llms["message"]


def test_a_well_formed_llms_txt_or_none_is_fine() -> None:
    good = "# Harbor shop\n\n> Mugs and more.\n\n- [Products](https://example.com/products)\n"
    assert llms_problem(LlmsTxt(200, good)) is None
    assert llms_problem(LlmsTxt(404)) is None
    assert llms_problem(LlmsTxt(0)) is None
    assert "HTTP 503" in (llms_problem(LlmsTxt(503)) or "")
