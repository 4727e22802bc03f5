"""Agent runs: the ``use_tool`` gateway, the check, scripted runs and transcripts (seed 003).

- ``Gateway(session, owner=..., check=...)``: ``await gateway.use_tool(name, input,
  source="owner")`` returns the tool's result, ``{error, message, card?}`` (``KINDS``), or the
  check's ``{not_done_yet}`` / ``{refused}``; never raises. ``SyncGateway`` is the same for
  Playwright's sync API; ``gateway.tool_specs()`` is the page's tools as MCP ``tools/list``.
- The check: any callable from ``CheckRequest`` to ``Decision`` (``allow``, ``ask(reason)``,
  ``stop(reason)``, one of ``REASONS``); ``default_check`` runs the built-in rules.
- Scripts: ``load_script(path)``, then ``await play_script(script, page)``; transcripts with
  ``TranscriptWriter``, read back with ``read_transcript`` and repeated with
  ``replay_transcript``. From the shell: ``webmcp-harness run`` and ``webmcp-harness replay``.
"""

from __future__ import annotations

from ..core.secrets import find_secrets, redact
from .gateway import Gateway, GatewayCall, SyncGateway
from .kinds import KINDS, ROWS, failure, is_failure, kind_for
from .outcome import Outcome
from .policy import (
    REASONS,
    Approvals,
    Check,
    CheckRequest,
    Decision,
    allow_all,
    default_check,
    hold_message,
    in_thread,
    make_check,
    run_check,
)
from .runner import ReplayResult, RunResult, StepResult, play_script, replay_transcript
from .script import Owner, Script, ScriptError, load_script
from .transcript import (
    Transcript,
    TranscriptError,
    TranscriptWriter,
    diff_outcomes,
    format_diff,
    read_transcript,
)

__all__ = [
    "KINDS",
    "REASONS",
    "ROWS",
    "Approvals",
    "Check",
    "CheckRequest",
    "Decision",
    "Gateway",
    "GatewayCall",
    "Outcome",
    "Owner",
    "ReplayResult",
    "RunResult",
    "Script",
    "ScriptError",
    "StepResult",
    "SyncGateway",
    "Transcript",
    "TranscriptError",
    "TranscriptWriter",
    "allow_all",
    "default_check",
    "diff_outcomes",
    "failure",
    "find_secrets",
    "format_diff",
    "hold_message",
    "in_thread",
    "is_failure",
    "kind_for",
    "load_script",
    "make_check",
    "play_script",
    "read_transcript",
    "redact",
    "replay_transcript",
    "run_check",
]
