"""Scripted agent runs: a script's steps through the gateway, each kept as it ends.

``await play_script(script, page)`` attaches a session to a fresh Playwright page (before the
first ``open``, so no tool is missed), puts a ``Gateway`` with the script's owner in front of it,
and runs the steps in order. Each step ends as a ``StepResult``; with a transcript, its line is
written (redacted, flushed) before the next step starts. The run stops at the first step that
doesn't pass: later steps depend on earlier ones.

What each step does, and when it passes:

- ``open``: goes to the URL (relative to the script's ``url``, or the ``base_url`` given) and
  waits for ``load``. Passes when the page answered below HTTP 400; otherwise its outcome is the
  kind ``kinds.kind_for_http`` gives (``unavailable`` when nothing answered).
- ``call``: ``gateway.use_tool(tool, input, source=...)``: the check, then the page. With
  ``expect``, passes when every given field holds (``script.match_expect``); without it, when
  the tool's result came back (not a failure, not held).
- ``wait_for_tool``: passes when the page has the tool within the step's timeout; otherwise
  ``not_found``.
- ``confirm``: acts as the person: ``session.confirm_pending`` on the last call to the tool
  that waits for them (``needs_user``). Passes like a call.
- ``approve``: the owner says yes to the call the check held (``gateway.approve``). Fails when
  there is nothing to approve, or the check stopped that call: a stop can't be approved.

Retry: a call with ``retry: auto`` is tried again only while its code is one ``RETRYABLE``
marks retryable (``interrupted``, ``timeout``, ``unavailable``, ``invalid_input``), up to
``attempts`` tries in all. Before each new try the runner waits (backoff: 0.25 s, doubling,
at most 2 s) and re-reads the page's tools, waiting up to as long again for the tool to be
there. A held call, a failure without a code and a non-retryable code are never retried. The
step's transcript line keeps every attempt's outcome.

Timeouts: a step's own ``timeout``, else the script's (default 30 s), bounds each attempt.

``await replay_transcript(transcript, page)`` repeats a transcript's steps against the page (the
same site, or ``base_url`` for a new version): every step runs, whatever earlier ones gave,
and ``diff_outcomes`` compares the coded outcomes. A secret the transcript redacted is replayed
as the check saw it: a call whose recorded input holds ``[redacted]`` is stopped again, with the
same reason, and never sent to the page.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlunsplit

from ..core.results import RETRYABLE
from ..core.secrets import REDACTED
from ..core.timeouts import DEFAULT_TIMEOUT
from ..core.urls import join_url, split_url
from ..session.browser import explain_load_error
from .gateway import Gateway, GatewayCall
from .kinds import failure, kind_for_http
from .outcome import Outcome, answer_text
from .policy import SENDS_SECRETS, Check, CheckRequest, Decision, default_check
from .script import (
    MISSING,
    ApproveStep,
    CallStep,
    ConfirmStep,
    OpenStep,
    Script,
    Step,
    WaitForToolStep,
    match_expect,
    not_a_result,
)
from .transcript import Difference, Transcript, TranscriptWriter, diff_outcomes, step_entry

if TYPE_CHECKING:
    from playwright.async_api import Page

    from ..session import BackendChoice, WebMCPSession

__all__ = [
    "RETRY_BASE",
    "RETRY_CAP",
    "ReplayResult",
    "RunResult",
    "Runner",
    "StepResult",
    "play_script",
    "replay_steps",
    "replay_transcript",
]

RETRY_BASE: Final = 0.25
"""Seconds before the second try of a ``retry: auto`` call; doubles for each try after it."""
RETRY_CAP: Final = 2.0
"""The longest wait between two tries."""
_SLACK: Final = 10.0  # beyond its timeouts, how long a step may take before the runner gives up

OnStep = Callable[["StepResult"], None]


@dataclass
class StepResult:
    """One step as it ended: whether it passed, its coded outcome, and what came back."""

    index: int
    action: str
    label: str
    passed: bool
    outcome: Outcome
    answer: Any
    misses: list[str] = field(default_factory=list)
    attempts: int = 1
    ms: float = 0.0
    line: int | None = None
    tool: str | None = None
    entry: dict[str, Any] = field(default_factory=dict)
    """The transcript line of the step (redacted when a transcript was written)."""

    def describe(self) -> str:
        """One line: index, mark, step, outcome (and the tries, when there were several)."""
        mark = "✓" if self.passed else "✗"
        tries = f" after {self.attempts} tries" if self.attempts > 1 else ""
        return f"{self.index:>3} {mark} {self.label:<32} {self.outcome.describe()}{tries}"


@dataclass
class RunResult:
    """A whole run: its steps (up to the first that failed) and how long it took."""

    name: str
    url: str | None
    steps: list[StepResult]
    total: int
    ms: float = 0.0

    @property
    def passed(self) -> bool:
        """Whether every step of the script ran and passed."""
        return len(self.steps) == self.total and all(s.passed for s in self.steps)

    @property
    def failed(self) -> StepResult | None:
        """The step that failed, if one did."""
        return next((s for s in self.steps if not s.passed), None)


@dataclass
class ReplayResult:
    """A replay: the steps as they went this time, and how their coded outcomes differ."""

    steps: list[StepResult]
    differences: list[Difference]
    url: str | None = None
    ms: float = 0.0

    @property
    def same(self) -> bool:
        """Whether no coded outcome differs."""
        return not self.differences


class Runner:
    """Runs steps on one session through one gateway; writes each step's line as it ends."""

    def __init__(
        self,
        session: WebMCPSession,
        gateway: Gateway,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        writer: TranscriptWriter | None = None,
        on_step: OnStep | None = None,
    ) -> None:
        self.session = session
        self.gateway = gateway
        self.base_url = base_url
        self.timeout = timeout
        self.writer = writer
        self.on_step = on_step

    async def run(
        self, steps: Sequence[Step], *, stop_on_failure: bool = True, expect: bool = True
    ) -> list[StepResult]:
        """Run the steps in order; with ``expect=False`` (replays) a step passes when it ran."""
        done: list[StepResult] = []
        for index, step in enumerate(steps, start=1):
            result = await self.step(index, step, expect=expect)
            done.append(result)
            if stop_on_failure and not result.passed:
                break
        return done

    async def step(self, index: int, step: Step, *, expect: bool = True) -> StepResult:
        """Run one step, keep its line, and tell ``on_step``. Never raises but cancellation."""
        started = time.perf_counter()
        limit = _limit(step, self.timeout)
        try:
            result = await asyncio.wait_for(self._step(index, step, limit), _bound(step, limit))
        except asyncio.TimeoutError:
            answer = failure("unavailable", f"The step didn't end in {_bound(step, limit):g} s.")
            result = self._result(index, step, answer, None, [f"no end: {answer['message']}"])
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a harness bug ends this step, not the run's transcript
            answer = failure("unavailable", f"The harness failed: {err!r}")
            result = self._result(index, step, answer, None, [answer["message"]])
        result.ms = (time.perf_counter() - started) * 1000
        if not expect:
            result.passed, result.misses = True, []
        result.entry["ms"] = round(result.ms, 3)
        result.entry["passed"], result.entry["misses"] = result.passed, list(result.misses)
        if self.writer is not None:
            result.entry = self.writer.step(result.entry)
        if self.on_step is not None:
            self.on_step(result)
        return result

    # -- the steps -------------------------------------------------------------------------
    async def _step(self, index: int, step: Step, limit: float) -> StepResult:
        if isinstance(step, OpenStep):
            return await self._open(index, step, limit)
        if isinstance(step, CallStep):
            return await self._call(index, step, limit)
        if isinstance(step, WaitForToolStep):
            return await self._wait_for_tool(index, step, limit)
        if isinstance(step, ConfirmStep):
            return await self._confirm(index, step, limit)
        return self._approve(index, step)

    def resolve(self, url: str) -> str:
        """An ``open`` URL made absolute against the base URL."""
        if split_url(url).scheme.lower() in ("http", "https", "file") or not self.base_url:
            return url
        return join_url(self.base_url, url)

    async def _open(self, index: int, step: OpenStep, limit: float) -> StepResult:
        url = self.resolve(step.url)
        page = self.session.page
        answer: dict[str, Any]
        try:
            response = await page.goto(url, timeout=limit * 1000, wait_until="load")
        except Exception as err:
            said = explain_load_error(url, str(err) or repr(err))
            answer = failure("unavailable", f"Could not open {url}: {said}")
        else:
            status = response.status if response is not None else 200
            kind = kind_for_http(status)
            if kind is None:
                answer = {"url": page.url, "status": status}
            else:
                answer = failure(kind, f"{url} answered HTTP {status}.")
        outcome = Outcome.of(answer)
        misses = [] if outcome.ok else [answer_text(answer)]
        result = self._result(index, step, answer, None, misses)
        result.entry.update(target=step.url, url=url)
        return result

    async def _call(self, index: int, step: CallStep, limit: float) -> StepResult:
        tries: list[dict[str, Any]] = []
        attempts = step.attempts if step.retry == "auto" else 1
        answer: dict[str, Any] = {}
        call: GatewayCall | None = None
        for attempt in range(1, attempts + 1):
            if attempt > 1:
                await self._backoff(step.tool, attempt - 1)
            answer = await self.gateway.use_tool(
                step.tool, step.input, source=step.source, timeout=limit
            )
            call = self.gateway.calls[-1]
            tries.append({"attempt": attempt, **call.outcome.to_dict(), "ms": round(call.ms, 3)})
            if not _retryable(call):
                break
        code = call.code_text if call is not None else None
        if step.expect is not None:
            pending = call is not None and call.record is not None and call.record.pending
            misses = match_expect(step.expect, answer, code=code, pending=pending)
        else:
            misses = _must_be_ok(answer, code)
        result = self._result(index, step, answer, call, misses)
        result.attempts = len(tries)
        result.entry.update(retry=step.retry, attempts=tries)
        return result

    async def _backoff(self, tool: str, retry: int) -> None:
        """Wait before another try, then re-read the page's tools until ``tool`` is there."""
        delay = min(RETRY_BASE * 2 ** (retry - 1), RETRY_CAP)
        await asyncio.sleep(delay)
        with contextlib.suppress(Exception):
            await self.session.wait_for_tool(tool, timeout=delay)

    async def _wait_for_tool(self, index: int, step: WaitForToolStep, limit: float) -> StepResult:
        found = await self.session.wait_for_tool(step.tool, timeout=limit)
        if found is not None:
            answer: dict[str, Any] = {"tool": found.name, "frameUrl": found.frame_url}
            misses: list[str] = []
        else:
            answer = failure("not_found", f"No tool {step.tool} appeared within {limit:g} s.")
            misses = [answer["message"]]
        return self._result(index, step, answer, None, misses)

    async def _confirm(self, index: int, step: ConfirmStep, limit: float) -> StepResult:
        answer = await self.gateway.confirm(step.tool, timeout=limit)
        call = self.gateway.calls[-1]
        code = call.code_text
        if step.expect is not None:
            misses = match_expect(step.expect, answer, code=code)
        else:
            misses = _must_be_ok(answer, code)
        return self._result(index, step, answer, call, misses)

    def _approve(self, index: int, step: ApproveStep) -> StepResult:
        held = self.gateway.held(step.tool)
        explicit = step.input is not MISSING
        approved = step.input if explicit else (held.input if held else None)
        outcome = Outcome(True)
        why = ""
        if not explicit and held is None:
            why = f"the check held back no call to {step.tool}; nothing to approve"
            outcome = Outcome(False, kind="not_found")
        elif not self.gateway.approve(step.tool, approved):
            why = f"the check stopped that call to {step.tool}; a stop can't be approved"
            reason = held.decision.reason if held and held.decision else None
            outcome = Outcome(False, held="stop", reason=reason)
        answer: dict[str, Any] = {"approved": outcome.ok, "tool": step.tool}
        if why:
            answer["why"] = why
        result = self._result(index, step, answer, None, [why] if why else [], outcome=outcome)
        result.entry.update(input=approved, explicit=explicit)
        return result

    # -- what a step leaves ------------------------------------------------------------------
    def _result(
        self,
        index: int,
        step: Step,
        answer: Any,
        call: GatewayCall | None,
        misses: list[str],
        *,
        outcome: Outcome | None = None,
    ) -> StepResult:
        code = call.code_text if call is not None else None
        coded = outcome if outcome is not None else Outcome.of(answer, code=code)
        tool = None if isinstance(step, OpenStep) else step.tool
        extra: dict[str, Any] = {"timeout": getattr(step, "timeout", None)}
        if call is not None:
            extra.update(
                decision=call.decision.to_dict() if call.decision else None,
                kind=call.kind,
                condition=call.condition,
                record=call.record.to_dict() if call.record else None,
            )
        entry = step_entry(
            index,
            step.action,
            tool=tool,
            input=call.input if call is not None else None,
            source=call.source if call is not None else None,
            answer=answer,
            code=code,
            outcome=coded,
            line=step.line,
            passed=not misses,
            misses=misses,
            **extra,
        )
        return StepResult(
            index=index,
            action=step.action,
            label=_label(step),
            passed=not misses,
            outcome=coded,
            answer=answer,
            misses=misses,
            line=step.line,
            tool=tool,
            entry=entry,
        )


def _limit(step: Step, default: float) -> float:
    own = getattr(step, "timeout", None)
    return float(own) if isinstance(own, (int, float)) and own > 0 else default


def _bound(step: Step, limit: float) -> float:
    tries = step.attempts if isinstance(step, CallStep) and step.retry == "auto" else 1
    return tries * (2 * limit + 2 * RETRY_CAP) + _SLACK


def _retryable(call: GatewayCall) -> bool:
    return call.code is not None and RETRYABLE.get(call.code, False) is True


def _must_be_ok(answer: Any, code: str | None) -> list[str]:
    outcome = Outcome.of(answer, code=code)
    return [] if outcome.ok else [not_a_result(answer, outcome)]


def _label(step: Step) -> str:
    if isinstance(step, OpenStep):
        return f"open {step.url}"
    return f"{step.action} {step.tool}"


# -- whole runs ------------------------------------------------------------------------------
async def play_script(
    script: Script,
    page: Page,
    *,
    base_url: str | None = None,
    transcript: TranscriptWriter | None = None,
    check: Check | None = None,
    backend: BackendChoice = "auto",
    on_step: OnStep | None = None,
    info: Mapping[str, Any] | None = None,
) -> RunResult:
    """Run a script on a fresh page: attach, then each step, each written as it ends.

    ``base_url`` stands in for the script's ``url`` (relative ``open`` paths resolve against
    it). ``check`` defaults to ``default_check``. ``info`` is added to the transcript's ``run``
    line. The transcript gets its ``run`` line first and its ``end`` line last; it is not closed.
    """
    from ..session import WebMCPSession

    base = base_url or script.url
    started = time.perf_counter()
    if transcript is not None:
        transcript.run(
            script=script.name,
            file=script.source,
            url=base,
            owner={"name": script.owner.name, "instructions": script.owner.instructions},
            timeout=script.timeout,
            steps=len(script.steps),
            **dict(info or {}),
        )
    session = await WebMCPSession.attach(page, timeout=script.timeout, backend=backend)
    try:
        gateway = Gateway(session, owner=script.owner, check=check)
        runner = Runner(
            session,
            gateway,
            base_url=base,
            timeout=script.timeout,
            writer=transcript,
            on_step=on_step,
        )
        steps = await runner.run(script.steps)
    finally:
        with contextlib.suppress(Exception):
            await session.close()
    result = RunResult(script.name, base, steps, len(script.steps))
    result.ms = (time.perf_counter() - started) * 1000
    if transcript is not None:
        failed = result.failed
        transcript.end(
            passed=result.passed,
            ran=len(steps),
            failedStep=failed.index if failed else None,
            failedLine=failed.line if failed else None,
            ms=round(result.ms, 3),
        )
    return result


def replay_steps(recorded: Transcript, *, base_url: str | None = None) -> list[Step]:
    """The steps of a transcript, ready to run again (``open`` URLs rebased on ``base_url``)."""
    run = recorded.run or {}
    old_base = run.get("url") if isinstance(run.get("url"), str) else None
    steps: list[Step] = []
    for entry in recorded.steps:
        step = _step_from(entry, old_base, base_url)
        if step is not None:
            steps.append(step)
    return steps


def _step_from(entry: Mapping[str, Any], old_base: str | None, new_base: str | None) -> Step | None:
    action = entry.get("action")
    tool = entry.get("tool")
    line = entry.get("line") if isinstance(entry.get("line"), int) else None
    timeout = entry.get("timeout")
    seconds = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None
    if action == "open":
        target = entry.get("target") or entry.get("url")
        if not isinstance(target, str):
            return None
        return OpenStep(url=_rebase(target, old_base, new_base), timeout=seconds, line=line)
    if not isinstance(tool, str):
        return None
    if action == "call":
        data = entry.get("input")
        data = {} if data is None else data
        if entry.get("source") == "page":
            return CallStep(tool=tool, input=data, source="page", timeout=seconds, line=line)
        return CallStep(tool=tool, input=data, source="owner", timeout=seconds, line=line)
    if action == "wait_for_tool":
        return WaitForToolStep(tool=tool, timeout=seconds, line=line)
    if action == "confirm":
        return ConfirmStep(tool=tool, timeout=seconds, line=line)
    if action == "approve":
        approved = entry.get("input") if entry.get("explicit") else MISSING
        return ApproveStep(tool=tool, input=approved, line=line)
    return None


def _rebase(url: str, old_base: str | None, new_base: str | None) -> str:
    """A recorded URL moved from the old base's origin to the new base's."""
    parts = split_url(url)
    if not parts.scheme:
        return join_url(new_base, url) if new_base else url
    if not new_base or not old_base:
        return url
    old, new = split_url(old_base), split_url(new_base)
    if (parts.scheme, parts.netloc) != (old.scheme, old.netloc):
        return url
    return urlunsplit((new.scheme, new.netloc, parts.path, parts.query, parts.fragment))


def _has_redacted(value: object) -> bool:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return False
    return REDACTED in text


def _replay_check(check: Check) -> Check:
    """The check, but a recorded input with a redacted secret is stopped as the secret was."""

    async def replay_check(request: CheckRequest) -> Decision:
        if _has_redacted(request.input):
            return Decision.stop(
                SENDS_SECRETS, rule="redacted", detail="the transcript redacted a secret here"
            )
        decided: Any = check(request)
        if inspect.isawaitable(decided):
            decided = await decided
        if not isinstance(decided, Decision):
            raise TypeError(f"the check answered {type(decided).__name__}, not a Decision")
        return decided

    return replay_check


async def replay_transcript(
    recorded: Transcript,
    page: Page,
    *,
    base_url: str | None = None,
    transcript: TranscriptWriter | None = None,
    check: Check | None = None,
    backend: BackendChoice = "auto",
    on_step: OnStep | None = None,
) -> ReplayResult:
    """Repeat a transcript's steps on a fresh page and compare the coded outcomes.

    The owner (name and instructions) and the step timeout come from the transcript's ``run``
    line; ``base_url`` replaces its URL (``--against``). Every step runs.
    """
    from ..session import WebMCPSession

    run = recorded.run or {}
    owner = run.get("owner") if isinstance(run.get("owner"), Mapping) else {}
    name = str(owner.get("name") or "") if isinstance(owner, Mapping) else ""
    said = str(owner.get("instructions") or "") if isinstance(owner, Mapping) else ""
    timeout = run.get("timeout")
    limit = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else DEFAULT_TIMEOUT
    old_base = run.get("url") if isinstance(run.get("url"), str) else None
    base = base_url or old_base
    steps = replay_steps(recorded, base_url=base)
    started = time.perf_counter()
    if transcript is not None:
        transcript.run(
            script=run.get("script"),
            file=run.get("file"),
            url=base,
            owner={"name": name, "instructions": said},
            timeout=limit,
            steps=len(steps),
            replayOf=run.get("startedAt"),
        )
    session = await WebMCPSession.attach(page, timeout=limit, backend=backend)
    try:
        gateway = Gateway(
            session,
            owner=name,
            instructions=said,
            check=_replay_check(check if check is not None else default_check),
        )
        runner = Runner(
            session, gateway, base_url=base, timeout=limit, writer=transcript, on_step=on_step
        )
        done = await runner.run(steps, stop_on_failure=False, expect=False)
    finally:
        with contextlib.suppress(Exception):
            await session.close()
    differences = diff_outcomes(recorded.steps, [s.entry for s in done])
    result = ReplayResult(done, differences, base, (time.perf_counter() - started) * 1000)
    if transcript is not None:
        transcript.end(
            passed=result.same, ran=len(done), differences=len(differences), ms=round(result.ms, 3)
        )
    return result
