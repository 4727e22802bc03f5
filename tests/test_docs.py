"""The README and docs/ run as written: every code block marked runnable is run, in order.

The marker is an HTML comment on the line before the fence (invisible on GitHub):

- ``<!-- runnable: file NAME -->`` writes the block to NAME (a page, a conftest, a test, a script);
- ``<!-- runnable -->`` runs the block: a ``python`` block as a script, a ``sh`` block line by
  line (``webmcp-harness`` and ``pytest`` commands; each must exit 0).

A document's blocks share one folder (with the repository's ``examples/`` in it), so a later
block runs what an earlier one wrote. In ``sh`` blocks ``http://127.0.0.1:8000`` stands for the
demo shop: the document's first ``webmcp-harness demo`` line is started on a free port instead of
8000, and its URL is used (a later block's ``demo`` line finds it serving, as one left running
would); without one, the run's demo shop (``webmcp_demo_url``) stands in.

The ``webmcp-harness`` command lines of every document use the worker's one Chromium
(``browser_server``, given as ``--connect``) rather than each launching one (how the CLI finds and
launches a browser is tested in tests/cli). ``pytest`` lines launch their own: a pytest run on a
browser server measured no faster than one that launches Chromium.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from interrupt import hears_ctrl_c
from webmcp_harness import Tool

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
DEMO_URL = "http://127.0.0.1:8000"
MARKED = re.compile(
    r"^<!-- runnable(?::\s*file\s+(\S+))?\s*-->\n```(\w*)[^\n]*\n(.*?)^```", re.M | re.S
)


@dataclass
class Block:
    document: Path
    line: int
    language: str
    file: str | None
    text: str

    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"


def runnable_blocks(document: Path) -> list[Block]:
    text = document.read_text(encoding="utf-8")
    return [
        Block(document, text.count("\n", 0, m.start()) + 1, m.group(2), m.group(1), m.group(3))
        for m in MARKED.finditer(text)
    ]


def test_every_marker_is_read() -> None:
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        assert text.count("<!-- runnable") == len(runnable_blocks(document)), document.name


def test_the_readme_marks_its_library_example_its_recipe_and_its_command_lines() -> None:
    blocks = runnable_blocks(ROOT / "README.md")
    files = {b.file for b in blocks if b.file}
    assert {"test_shop.py", "pages/index.html", "conftest.py", "test_greeter.py"} <= files
    assert any(b.language == "python" and b.file is None for b in blocks)  # the library example
    commands = [b for b in blocks if b.language == "sh"]
    assert any("webmcp-harness tools" in b.text for b in commands)


def test_the_readme_tours_an_eval_suite() -> None:
    blocks = runnable_blocks(ROOT / "README.md")
    suites = [b.file for b in blocks if b.file and b.file.endswith(".json")]
    assert suites, "the README has no runnable evals.json"
    assert any(f"webmcp-harness run {suites[0]}" in b.text for b in blocks if b.language == "sh")


def test_the_readme_names_only_attributes_a_tool_has() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sentence = readme.split("A `Tool` has ", 1)[1].split(";", 1)[0]
    named = set(re.findall(r"`(\w+)`", sentence))
    fields = {f.name for f in dataclasses.fields(Tool)}
    assert named, sentence
    assert named <= fields, named - fields
    assert not re.search(r"\btool\.(frame|inputSchema)\b", readme)


def test_every_picture_the_readme_shows_is_a_png_in_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert {"docs/demo-shop.png", "docs/check-report.png"} <= set(pictures)
    for picture in pictures:
        assert picture.startswith("docs/"), picture  # in the repository, no request to see it
        assert (ROOT / picture).read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), picture


# The commands that open a browser, and the options that say which browser: a line that names
# its own is run as written; the others get the worker's browser server.
BROWSER_COMMANDS = {"tools", "call", "check", "run", "replay", "serve", "watch"}
BROWSER_CHOSEN = ("--connect", "--cdp", "--selenium-grid", "--browser-path")


class Demo:
    """The demo shop and the browser the document's command lines use: the shop of the first
    `demo` line when the document has one, else the run's (asked for when first needed)."""

    def __init__(self, shared: Callable[[], str], browser: str) -> None:
        self.shared = shared
        self.browser = browser
        self.url: str | None = None
        self.served = False  # whether a `demo` line of the document started the shop

    def base(self) -> str:
        if self.url is None:
            self.url = self.shared()
        return self.url

    def with_browser(self, args: list[str]) -> list[str]:
        """A command's args, told to use the browser server unless they choose a browser."""
        if any(a.startswith(BROWSER_CHOSEN) for a in args):
            return args
        if Path(args[0]).name == "webmcp-harness" and args[1:2] and args[1] in BROWSER_COMMANDS:
            return [*args, "--connect", self.browser]
        return args


@contextmanager
def demo_command(args: list[str], cwd: Path) -> Iterator[str]:
    """`webmcp-harness demo ...` on a free port: its URL while it runs; it must stop quietly."""
    args = [
        "0" if previous == "--port" else a
        for previous, a in zip(["", *args[:-1]], args, strict=True)
    ]
    served = subprocess.Popen(
        args,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=hears_ctrl_c,
    )
    try:
        assert served.stdout is not None
        url = served.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        served.send_signal(signal.SIGINT)
        _, err = served.communicate(timeout=30)
    assert served.returncode == 0, err
    assert "Traceback" not in err, err


def run_line(block: Block, line: str, cwd: Path, demo: Demo, stack: ExitStack) -> None:
    args = shlex.split(line, comments=True)
    if not args:
        return
    assert args[0] in ("webmcp-harness", "pytest"), f"{block.where()}: {line}"
    args[0] = str(BIN / args[0])
    if args[1:2] == ["demo"]:
        if not demo.served:  # a later block's `demo` line: the shop of the first still serves
            demo.url = stack.enter_context(demo_command(args, cwd))
            demo.served = True
        return
    args = [a.replace(DEMO_URL, demo.base()) if DEMO_URL in a else a for a in args]
    done = subprocess.run(
        demo.with_browser(args), cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, (
        f"{block.where()}: `{line}` exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}"
    )


def run_block(block: Block, cwd: Path, demo: Demo, stack: ExitStack) -> None:
    if block.file is not None:
        target = cwd / block.file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text, encoding="utf-8")
    elif block.language == "python":
        script = cwd / f"block_{block.line}.py"
        script.write_text(block.text, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, script.name],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, (
            f"{block.where()}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
    elif block.language == "sh":
        for line in block.text.splitlines():
            run_line(block, line, cwd, demo, stack)
    else:
        pytest.fail(
            f"{block.where()}: a runnable {block.language or 'untyped'} block needs `file NAME`"
        )


@pytest.mark.parametrize(
    "document",
    [d for d in DOCUMENTS if runnable_blocks(d)],
    ids=lambda d: d.name,
)
def test_the_runnable_blocks_run_as_written(
    document: Path, tmp_path: Path, request: pytest.FixtureRequest, browser_server: str
) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    with ExitStack() as stack:
        demo = Demo(lambda: str(request.getfixturevalue("webmcp_demo_url")), browser_server)
        for block in runnable_blocks(document):
            run_block(block, tmp_path, demo, stack)
