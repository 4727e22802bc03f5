"""jsonschema's 2020-12 format checker, without building the IRI grammar at every start.

`jsonschema[format-nongpl]` checks `iri` and `iri-reference` with `rfc3987_syntax`, which builds
its grammar when imported: seconds at every start of the CLI and of every test process. It is
kept out of jsonschema's own import here, and loaded the first time a schema uses those formats.
Imported first by the package, before anything imports jsonschema.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["FORMATS"]

_GRAMMAR = "rfc3987_syntax"
_deferred = _GRAMMAR not in sys.modules and "jsonschema" not in sys.modules
if _deferred:
    sys.modules[_GRAMMAR] = None  # type: ignore[assignment]  # jsonschema skips what can't import
try:
    from jsonschema import Draft202012Validator, FormatChecker
finally:
    if _deferred and sys.modules.get(_GRAMMAR, ...) is None:
        del sys.modules[_GRAMMAR]

FORMATS = FormatChecker()
"""The formats JSON Schema 2020-12 defines, as jsonschema checks them."""
FORMATS.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)


def _iri_check(rule: str) -> Any:
    def check(instance: object) -> bool:
        if not isinstance(instance, str):
            return True
        try:
            from rfc3987_syntax import is_valid_syntax  # type: ignore[import-untyped]
        except ImportError:  # not installed: the format is not checked, as jsonschema does
            return True
        return bool(is_valid_syntax(rule, instance))

    return check


for _name, _rule in (("iri", "iri"), ("iri-reference", "iri_reference")):
    if _name not in FORMATS.checkers:
        FORMATS.checks(_name)(_iri_check(_rule))
