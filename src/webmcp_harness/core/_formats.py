"""jsonschema's 2020-12 format checker, without building the IRI grammar at every start.

`jsonschema[format-nongpl]` checks `iri` and `iri-reference` with `rfc3987_syntax`, which builds
its grammar when imported: seconds at every start of the CLI and of every test process. It is
kept out of jsonschema's own import here, and loaded the first time a schema uses those formats;
so is `isoduration` (with `arrow`), for `duration`.
Imported first by the package, before anything imports jsonschema.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["FORMATS"]

_GRAMMAR = "rfc3987_syntax"
_DURATION = "isoduration"  # (it imports arrow: a third of jsonschema's own import)
_DEFERRED = (_GRAMMAR, _DURATION)
_held = [] if "jsonschema" in sys.modules else [n for n in _DEFERRED if n not in sys.modules]
for _module in _held:
    sys.modules[_module] = None  # type: ignore[assignment]  # jsonschema skips what can't import
try:
    from jsonschema import Draft202012Validator, FormatChecker
finally:
    for _module in _held:
        if sys.modules.get(_module, ...) is None:
            del sys.modules[_module]

FORMATS = FormatChecker()
"""The formats JSON Schema 2020-12 defines, as jsonschema checks them."""
FORMATS.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)


def _deferred_module(name: str) -> Any:
    """The module called name, loaded now; None when it is not installed (then its format is
    not checked, as jsonschema does)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _iri_check(rule: str) -> Any:
    def check(instance: object) -> bool:
        grammar = _deferred_module(_GRAMMAR) if isinstance(instance, str) else None
        return grammar is None or bool(grammar.is_valid_syntax(rule, instance))

    return check


for _name, _rule in (("iri", "iri"), ("iri-reference", "iri_reference")):
    if _name not in FORMATS.checkers:
        FORMATS.checks(_name)(_iri_check(_rule))


def _duration(instance: object) -> bool:
    """ISO 8601 durations, as jsonschema checks them (isoduration loaded at the first one)."""
    parser = _deferred_module(_DURATION) if isinstance(instance, str) else None
    if parser is None:
        return True
    try:
        parser.parse_duration(instance)
    except parser.DurationParsingException:
        return False
    return str(instance).endswith(tuple("DMYWHMS"))  # (as jsonschema: isoduration takes "P1")


if "duration" not in FORMATS.checkers:
    FORMATS.checks("duration")(_duration)
