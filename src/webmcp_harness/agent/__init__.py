"""Agent runs: the ``use_tool`` gateway, the check, scripted runs and transcripts (seed 003)."""

from __future__ import annotations

from .check import (
    REASONS,
    Approvals,
    Check,
    CheckRequest,
    Decision,
    default_check,
    hold_message,
    run_check,
)
from .gateway import Gateway, GatewayCall, SyncGateway
from .kinds import KINDS, failure, kind_for
from .outcome import Outcome
from .script import Script, ScriptError, load_script
from .sensitive import find_secrets, redact
from .transcript import TranscriptWriter, diff_outcomes, read_transcript

__all__ = [
    "KINDS",
    "REASONS",
    "Approvals",
    "Check",
    "CheckRequest",
    "Decision",
    "Gateway",
    "GatewayCall",
    "Outcome",
    "Script",
    "ScriptError",
    "SyncGateway",
    "TranscriptWriter",
    "default_check",
    "diff_outcomes",
    "failure",
    "find_secrets",
    "hold_message",
    "kind_for",
    "load_script",
    "read_transcript",
    "redact",
    "run_check",
]
