"""Scripted agent runs: the YAML format, parsed to dataclasses, checked before anything runs.

A script is one YAML document (full reference: ``docs/scripts.md``)::

    name: Buy a rain jacket               # optional; defaults to the file's name
    owner:                                # optional; whose run it is, for the check
      name: Dana Reyes                    # required in owner; the check uses the first name
      instructions: Buy the rain jacket p-101 in size M.   # optional; what the owner asked
    url: http://127.0.0.1:8000            # optional base for relative `open` paths
    timeout: 30                           # optional; seconds per step (default 30)
    steps:                                # required, at least one
      - open: /catalog                    # URL, or a path joined to `url`
      - call:                             # a call through the gateway (the check, then the tool)
          tool: search_products           # required
          input: {query: rain jacket}     # optional JSON value (default {})
          source: owner                   # owner (default) | page: who asked for it
          timeout: 10                     # optional, this step only
          retry: auto                     # none (default) | auto: retry RETRYABLE codes
          attempts: 3                     # with retry: auto, 1-10 (default 3)
          expect:                         # optional; what must come back
            ok: true                      # the tool's result (not a failure, not held)
            path: $.items[0].id           # a JSON path into the answer ...
            equals: p-101                 # ... equal to this, and/or
            contains: p-                  # ... containing this
      - call: {tool: place_order, expect: {code: unavailable, kind: not_found}}
      - call: {tool: pay, input: {...}, expect: {held: ask}}
      - approve: pay                      # the owner says yes to the call the check held
      - wait_for_tool: place_order        # or {tool: place_order, timeout: 5}
      - confirm: choose_size              # act as the person: confirm the form that waits

Steps are mappings with exactly one key. ``open``, ``wait_for_tool``, ``confirm`` and
``approve`` take a string, or a mapping: ``open: {url, timeout}``, ``wait_for_tool: {tool,
timeout}``, ``confirm: {tool, timeout, expect}``, ``approve: {tool, input}`` (``input`` names
the exact call to approve; without it, the last call to that tool the check held back).

``expect`` keys: ``ok`` (bool), ``code`` (one of the seven result codes), ``kind`` (one of the
twelve error kinds), ``held`` (``ask`` | ``stop``), ``reason`` (one of the six reasons, word for
word; implies held), ``path`` (needs ``equals`` or ``contains``), ``equals``, ``contains``.
``ok: true`` can't go with ``code``/``kind``/``held``/``reason``. Without ``path``, ``equals``
and ``contains`` look at the answer's text (a result's text parts, a failure's message, a held
call's message). Paths are ``$`` then ``.key``, ``[N]`` (negative from the end) or
``["any key"]``; ``$`` is the answer ``use_tool`` returned; for a tool's result, a path whose
first key is not one of the result's own keys reads the tool's value instead
(``structuredContent``, else its first text part parsed as JSON), and a string holding JSON is
parsed on the way. So ``$.content[0].text`` and ``$.order.id`` both work. ``contains``: a
substring of a string, an element of a list (each element, for a list), the key/value pairs
of an object. Values compare as JSON (``true`` is not ``1``; ``2`` is ``2.0``).

Decisions: YAML is read with the 1.2 core types: only ``true``/``false`` are booleans (``size:
NO``, ``answer: yes`` stay strings), dates and times stay strings, integers with a leading zero
stay strings (``zip: 02134``). Anchors, aliases and ``<<`` merges work. Duplicate keys,
unknown keys, wrong types and missing fields are errors. Input, ``equals`` and ``contains`` must
be JSON (no NaN or infinity, text keys only). A relative ``open`` needs ``url`` (or the
``base_url`` given to ``load_script``). Every error is a ``ScriptError`` with the line.
"""

from __future__ import annotations

from .evals import EvalCall, EvalCase, EvalSuite, load_evals
from .loading import load_script
from .matching import match_expect, not_a_result, parse_path, resolve_path
from .model import (
    MISSING,
    ApproveStep,
    CallStep,
    ConfirmStep,
    Expect,
    OpenStep,
    Owner,
    Script,
    ScriptError,
    Step,
    WaitForToolStep,
)

__all__ = [
    "MISSING",
    "ApproveStep",
    "CallStep",
    "ConfirmStep",
    "EvalCall",
    "EvalCase",
    "EvalSuite",
    "Expect",
    "OpenStep",
    "Owner",
    "Script",
    "ScriptError",
    "Step",
    "WaitForToolStep",
    "load_evals",
    "load_script",
    "match_expect",
    "not_a_result",
    "parse_path",
    "resolve_path",
]
