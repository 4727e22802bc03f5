"""``webmcp-harness run`` and ``webmcp-harness replay``: scripted agent runs from the shell.

``run SCRIPT.yaml [--transcript PATH] [--url URL]``: checks the whole script first (a bad one is
refused with its line and why, exit 2, before any browser starts), then runs it in a fresh
browser context. ``run evals.json`` (a file ending in ``.json``) reads a webmcp-evals suite
instead and runs each eval as a script of its own (``agent.script.evals``) in a fresh context
at ``--url`` (the page the suite is for; default the demo shop's catalog), printing each eval's
steps and verdict; exit 1 when one failed. A script without ``url`` runs against the demo shop, served for the run.
Prints one line per step as it ends (``--json``: on stderr, and the run as one JSON document on
stdout). Exit 0 when every step passed, 1 when one failed, 2 when the script or the transcript
path was the problem (a transcript the disk would not take, after the results), 3 when the browser could not be started or reached (a page that does not
open is a failed step).

``replay TRANSCRIPT [--against URL]``: repeats the recorded steps (against URL instead of the
recorded site; the demo shop again when the run used it) and prints how the coded outcomes
differ, one line a step, or "no differences" (``--json``: one JSON document). Exit 0 when none
differ, 1 when some do, 2 when the transcript can't be read, 3 when the browser could not be
started or reached.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from ..agent.runner import ReplayResult, RunResult, StepResult, play_script, replay_transcript
from ..agent.script import EvalSuite, Script, ScriptError, load_evals, load_script
from ..agent.transcript import (
    Transcript,
    TranscriptError,
    TranscriptWriter,
    format_diff,
    read_transcript,
)
from ..core.secrets import redact
from ..core.text import safe_text
from .common import (
    BrowserOptions,
    browser_options,
    check_url,
    err,
    open_browser,
    open_context,
    open_transcript,
    options_from,
    print_json,
    run,
)
from .text import markup

__all__ = ["replay", "run_script"]

# Stands in for the site while the script is checked, so relative opens pass before it is served.
_PLACEHOLDER_BASE = "http://127.0.0.1/"


def _explicit(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


@contextlib.contextmanager
def _site(url: str | None) -> Iterator[tuple[str, bool]]:
    """(base URL, whether it is the demo shop served for this command)."""
    if url:
        yield url, False
        return
    from ..testing.demo import serve_demo

    server = serve_demo()
    try:
        err.print(f"Using the demo shop at {escape(server.url)}", soft_wrap=True)
        yield server.url, True
    finally:
        server.stop()


def _echo(line: str, *, to_stderr: bool = False) -> None:
    """One line on stdout (or stderr): secrets redacted, page text shown as text."""
    click.echo(safe_text(redact(line)), err=to_stderr)


def escape(text: str) -> str:
    """Text for a rich message on stderr: secrets redacted, markup and controls defused."""
    return markup(redact(text))


def _print_step(step: StepResult, *, to_stderr: bool = False) -> None:
    _echo(step.describe(), to_stderr=to_stderr)
    for miss in step.misses:
        _echo(f"      {miss}", to_stderr=to_stderr)


def _step_json(step: StepResult) -> dict[str, Any]:
    return {
        "index": step.index,
        "action": step.action,
        "label": step.label,
        "tool": step.tool,
        "line": step.line,
        "passed": step.passed,
        "outcome": step.outcome.to_dict(),
        "attempts": step.attempts,
        "ms": round(step.ms, 3),
        "misses": list(step.misses),
    }


def _run_json(result: RunResult) -> dict[str, Any]:
    """The run as one JSON document: what `run --json` prints."""
    failed = result.failed
    return {
        "name": result.name,
        "url": result.url,
        "passed": result.passed,
        "total": result.total,
        "ran": len(result.steps),
        "failedAt": failed.index if failed is not None else None,
        "ms": round(result.ms, 3),
        "steps": [_step_json(step) for step in result.steps],
    }


def _fail(message: str) -> None:
    err.print(f"[red]error:[/] {escape(message)}", soft_wrap=True)
    sys.exit(2)


def _lost(writer: TranscriptWriter | None) -> None:
    """Exit 2 when the transcript could not be written (a full disk): the results are out."""
    if writer is not None and writer.error is not None:
        _fail(f"{writer.error}; the results above are complete, the transcript is not")


@click.command("run")
@click.argument("script_path", metavar="SCRIPT.yaml", type=click.Path(path_type=Path))
@click.option(
    "--transcript",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the run here: JSON Lines, one line per step, each written as the step ends.",
)
@click.option(
    "--url",
    "base_url",
    metavar="URL",
    help="Base URL for relative `open:` paths, instead of the script's url "
    "(default: the script's url, else the demo shop served for the run).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the run as one JSON document (the step lines go to stderr).",
)
@browser_options
@click.pass_context
def run_script(
    ctx: click.Context,
    /,
    script_path: Path,
    transcript: Path | None,
    base_url: str | None,
    as_json: bool,
    **kw: Any,
) -> None:
    """Run the agent script SCRIPT.yaml through the gateway, step by step.

    A file ending in .json is a webmcp-evals suite (evals.json): each eval's expected tool calls
    run on a fresh page at --url (smoke mode, no model), and each eval passes or fails.

    Exit status: 0 every step passed, 1 a step failed (a page that does not open is a failed
    step), 2 the script or an option was wrong, 3 the browser could not be started or reached.
    """
    timeout_given = _explicit(ctx, "timeout")
    options = options_from(kw)
    if base_url is not None:
        check_url(base_url)
    if script_path.suffix.lower() == ".json":
        _run_suite(script_path, base_url, transcript, as_json, options, timeout_given)
    try:
        script = load_script(script_path, base_url=base_url or _PLACEHOLDER_BASE)
    except ScriptError as exc:
        _fail(str(exc))
        return
    if base_url is None and script.url:
        check_url(script.url, param_hint=f"the url of {script_path}")
    if timeout_given:
        script = _with_timeout(script, options.timeout)
    writer = open_transcript(transcript)
    try:
        with _site(base_url or script.url) as (base, demo):
            err.print(
                f"Running {escape(script.name)} ({len(script.steps)} steps) at {escape(base)}",
                soft_wrap=True,
            )
            result = run(_play(script, base, demo, options, writer, as_json))
    finally:
        if writer is not None:
            writer.close()
    _summary(result, transcript, to_stderr=as_json)
    if as_json:
        print_json(redact(_run_json(result)))
    _lost(writer)
    sys.exit(0 if result.passed else 1)


def _run_suite(
    path: Path,
    base_url: str | None,
    transcript: Path | None,
    as_json: bool,
    options: BrowserOptions,
    timeout_given: bool,
) -> None:
    """``run evals.json``: each eval of a webmcp-evals suite as a script of its own; exits."""
    try:
        suite = load_evals(path)
    except ScriptError as exc:
        _fail(str(exc))
        return
    if all(case.skipped for case in suite.evals):
        _fail(f"{path}: no eval has a required tool call; a smoke run has nothing to call")
    writer = open_transcript(transcript)
    try:
        with _site(base_url) as (base, demo):
            err.print(
                f"Running the {len(suite.evals)} evals of {escape(str(path))} at {escape(base)}",
                soft_wrap=True,
            )
            results = run(_play_suite(suite, base, demo, options, writer, timeout_given, as_json))
    finally:
        if writer is not None:
            writer.close()
    ran = [r for r in results.values() if r is not None]
    passed = sum(r.passed for r in ran)
    _echo(
        f"{'passed' if passed == len(ran) else 'failed'}: {passed} of {len(ran)} evals passed"
        + (f", {len(results) - len(ran)} skipped" if len(ran) < len(results) else ""),
        to_stderr=as_json,
    )
    if transcript is not None:
        err.print(f"transcript: {escape(str(transcript))}", soft_wrap=True)
    if as_json:
        print_json(redact(_suite_json(suite, results, base)))
    _lost(writer)
    sys.exit(0 if passed == len(ran) else 1)


async def _play_suite(
    suite: EvalSuite,
    base: str,
    demo: bool,
    options: BrowserOptions,
    writer: TranscriptWriter | None,
    timeout_given: bool,
    quiet: bool,
) -> dict[int, RunResult | None]:
    """Each eval on a fresh context's page, in file order: its result, None when skipped."""
    results: dict[int, RunResult | None] = {}
    async with open_browser(options) as browser:
        for case in suite.evals:
            head = f"eval {case.index} of {len(suite.evals)}: {case.name}"
            if case.skipped:
                _echo(f"{head}: skipped ({case.skipped})", to_stderr=quiet)
                results[case.index] = None
                continue
            _echo(head, to_stderr=quiet)
            script = suite.script(case, base)
            if timeout_given:
                script = _with_timeout(script, options.timeout)
            info = {"demo": demo, "suite": suite.source, "eval": case.index}
            result = await _play_in(browser, script, base, options, writer, quiet, info)
            results[case.index] = result
            verdict = "passed" if result.passed else "FAILED"
            _echo(f"eval {case.index} {verdict}: {case.name}", to_stderr=quiet)
    return results


def _suite_json(
    suite: EvalSuite, results: dict[int, RunResult | None], base: str
) -> dict[str, Any]:
    """The suite's run as one JSON document: what `run evals.json --json` prints."""
    evals: list[dict[str, Any]] = []
    for case in suite.evals:
        result = results.get(case.index)
        entry: dict[str, Any] = {"index": case.index, "name": case.name}
        if result is None:
            entry.update(passed=None, skipped=case.skipped)
        else:
            entry.update(_run_json(result), name=case.name, skipped=None)
        evals.append(entry)
    ran = [e for e in evals if e["passed"] is not None]
    return {
        "suite": suite.name,
        "url": base,
        "passed": all(e["passed"] for e in ran),
        "evals": evals,
    }


def _with_timeout(script: Script, timeout: float) -> Script:
    return dataclasses.replace(script, timeout=timeout)


async def _play(
    script: Script,
    base: str,
    demo: bool,
    options: BrowserOptions,
    writer: TranscriptWriter | None,
    quiet: bool = False,
) -> RunResult:
    async with open_browser(options) as browser:
        return await _play_in(browser, script, base, options, writer, quiet, {"demo": demo})


async def _play_in(
    browser: Any,
    script: Script,
    base: str,
    options: BrowserOptions,
    writer: TranscriptWriter | None,
    quiet: bool,
    info: dict[str, Any],
) -> RunResult:
    """The script on a page of a fresh context of ``browser``."""
    async with open_context(browser, options) as context:
        page = await context.new_page()
        return await play_script(
            script,
            page,
            base_url=base,
            transcript=writer,
            backend=options.backend,
            on_step=lambda step: _print_step(step, to_stderr=quiet),
            info=info,
        )


def _summary(result: RunResult, transcript: Path | None, *, to_stderr: bool = False) -> None:
    seconds = result.ms / 1000
    if result.passed:
        _echo(f"passed: {result.total} steps in {seconds:.1f} s", to_stderr=to_stderr)
    else:
        failed = result.failed
        where = f"step {failed.index}" if failed else f"step {len(result.steps) + 1}"
        if failed is not None and failed.line is not None:
            where += f" (line {failed.line})"
        _echo(
            f"failed at {where}; {len(result.steps)} of {result.total} steps ran",
            to_stderr=to_stderr,
        )
    if transcript is not None:
        err.print(f"transcript: {escape(str(transcript))}", soft_wrap=True)


@click.command("replay")
@click.argument("transcript_path", metavar="TRANSCRIPT", type=click.Path(path_type=Path))
@click.option(
    "--against",
    metavar="URL",
    help="Repeat the calls against this site (base URL) instead of the recorded one.",
)
@click.option(
    "--transcript",
    "new_transcript",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the replay's own transcript here.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the differences as one JSON document.")
@browser_options
def replay(
    transcript_path: Path,
    against: str | None,
    new_transcript: Path | None,
    as_json: bool,
    **kw: Any,
) -> None:
    """Repeat the calls of TRANSCRIPT and print how their coded outcomes differ."""
    options = options_from(kw)
    if against is not None:
        check_url(against)
    try:
        recorded = read_transcript(transcript_path)
    except TranscriptError as exc:
        _fail(f"{transcript_path}: {exc}")
        return
    if not recorded.steps:
        _fail(f"{transcript_path}: no steps to replay")
    if recorded.truncated or not recorded.finished:
        err.print(
            f"[yellow]note:[/] {escape(str(transcript_path))} is a run that didn't finish; "
            f"replaying its {len(recorded.steps)} complete steps",
            soft_wrap=True,
        )
    run_line = recorded.run or {}
    recorded_url = run_line.get("url") if isinstance(run_line.get("url"), str) else None
    site = against or (None if run_line.get("demo") else recorded_url)
    writer = open_transcript(new_transcript, "--transcript")
    try:
        with _site(site) as (base, _demo):
            where = escape(str(transcript_path))
            err.print(
                f"Replaying {len(recorded.steps)} steps of {where} at {escape(base)}",
                soft_wrap=True,
            )
            result = run(_replay(recorded, base, options, writer))
    finally:
        if writer is not None:
            writer.close()
    if as_json:
        print_json(
            redact(
                {
                    "steps": len(result.steps),
                    "same": result.same,
                    "differences": [d.to_dict() for d in result.differences],
                }
            )
        )
    else:
        _echo(format_diff(result.differences))
    _lost(writer)
    sys.exit(0 if result.same else 1)


async def _replay(
    recorded: Transcript, base: str, options: BrowserOptions, writer: TranscriptWriter | None
) -> ReplayResult:
    async with open_browser(options) as browser, open_context(browser, options) as context:
        page = await context.new_page()
        return await replay_transcript(
            recorded,
            page,
            base_url=base,
            transcript=writer,
            backend=options.backend,
        )
