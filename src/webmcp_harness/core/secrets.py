"""Secrets in a value: the detectors the check stops on and transcripts redact.

Keys are read as well as values, at any depth, and strings at any length: a card number used as a
key is redacted (and found) as one in a value.

One set of detectors serves both, so what the check refuses to send is exactly what a transcript
never keeps. ``find_secrets(value)`` lists them, ``redact(value)`` replaces them with
``"[redacted]"``. Neither raises, whatever it is given.

What counts as a secret (``what`` in a ``Finding``):

- ``password``: the value of a key that names a password or a credential: ``password``,
  ``passwd``, ``pwd``, ``passphrase``, ``passcode``, ``secret`` (``client_secret``), ``api_key``,
  ``access_token``, ``auth_token``, ``refresh_token``, ``bearer``, ``private_key``, ``otp``; a PIN
  (``pin``, ``pin_code``) when its value is 4 to 12 digits. Keys are split into words
  (``newPassword``, ``new-password`` and ``NEW_PASSWORD`` are all ``new password``) and must end
  with the secret's words, perhaps followed by one word such as ``value``, ``confirm`` or
  ``hash`` (``password_min_length`` and ``password_hint`` are not secrets); any non-empty
  string or number under such a key is a secret, however deep. In free text:
  ``password: hunter2``, ``"password":"hunter2"``, ``pin=1234`` (the value after the ``:``/``=``),
  and phrases such as ``my password is hunter2`` (not ``password is required`` and the like).
- ``card``: a card number: 13 to 19 digits starting with 2 to 6 (the ranges card networks use),
  either in one run or in groups split by one kind of single separator (a space, a no-break
  space, a dot or a dash) with a first group of 4 (``4111 1111 1111 1111``, ``4111.1111.1111.1111``,
  ``3782-822463-10005``), passing the Luhn check, with no letter, digit or ``+``
  right before it and no letter or digit right after. The same digits as a JSON number count
  too. Also the value of ``card_number``, ``cc_number``, ``credit_card``, ``cvv``, ``cvc``,
  ``csc``, ``security_code`` keys when it holds at least 3 digits.
- ``bank``: an IBAN (country code with its IBAN length, two check digits, passing mod-97; in one
  run or in groups split by single spaces; either letter case); the value of ``iban``,
  ``bank_account``, ``account_number``, ``routing_number``, ``sort_code`` keys with at least 4
  digits.
- ``id``: a US social security number ``123-45-6789`` (also with single spaces; never area
  000, 666 or 900-999, group 00 or serial 0000); a UK National Insurance number (``AB 12 34 56
  C``, valid prefixes only); a Spanish DNI or NIE whose check letter matches (``12345678Z``,
  ``X1234567L``); the value of ``ssn``, ``social_security``, ``national_id``,
  ``national_insurance``, ``nino``, ``passport``, ``tax_id``, ``driver_license`` and ``id_number``
  keys with at least 4 digits.

Left out on purpose, to keep normal traffic clean: bare 9-digit numbers (order numbers, ZIP+4),
phone numbers, postal codes, prices, dates, order ids like ``ORD-20261130-0042``, hashes and UUIDs
(digits next to letters are never a card).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

__all__ = [
    "REDACTED",
    "Finding",
    "find_secrets",
    "iban_ok",
    "key_secret",
    "key_words",
    "luhn_ok",
    "redact",
    "secret_spans",
]

REDACTED: Final = "[redacted]"
What = Literal["password", "card", "bank", "id"]
_MAX_DEPTH: Final = 400


@dataclass(frozen=True)
class Finding:
    """One secret: where it is (a JSON path such as ``$.payment.card``) and what it is."""

    path: str
    what: What


# -- keys ------------------------------------------------------------------------------------
# (words in a row, what, the value it needs: "any" non-empty, or at least N digits)
_KEY_PHRASES: Final[tuple[tuple[tuple[str, ...], What, int], ...]] = (
    (("password",), "password", 0),
    (("passwd",), "password", 0),
    (("pwd",), "password", 0),
    (("passphrase",), "password", 0),
    (("passcode",), "password", 0),
    (("secret",), "password", 0),
    (("apikey",), "password", 0),
    (("api", "key"), "password", 0),
    (("access", "token"), "password", 0),
    (("auth", "token"), "password", 0),
    (("refresh", "token"), "password", 0),
    (("session", "token"), "password", 0),
    (("bearer",), "password", 0),
    (("private", "key"), "password", 0),
    (("otp",), "password", 0),
    (("pin",), "password", -4),
    (("pincode",), "password", -4),
    (("card", "number"), "card", 3),
    (("cardnumber",), "card", 3),
    (("cc", "number"), "card", 3),
    (("credit", "card"), "card", 3),
    (("debit", "card"), "card", 3),
    (("cvv",), "card", 3),
    (("cvv2",), "card", 3),
    (("cvc",), "card", 3),
    (("cvc2",), "card", 3),
    (("csc",), "card", 3),
    (("security", "code"), "card", 3),
    (("iban",), "bank", 4),
    (("bank", "account"), "bank", 4),
    (("account", "number"), "bank", 4),
    (("routing", "number"), "bank", 4),
    (("sort", "code"), "bank", 4),
    (("ssn",), "id", 4),
    (("social", "security"), "id", 4),
    (("national", "id"), "id", 4),
    (("national", "insurance"), "id", 4),
    (("nino",), "id", 4),
    (("passport",), "id", 4),
    (("tax", "id"), "id", 4),
    (("driver", "license"), "id", 4),
    (("driver", "licence"), "id", 4),
    (("drivers", "license"), "id", 4),
    (("id", "number"), "id", 4),
)

_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")


_CACHED_KEY: Final = 200  # keys up to this long have their reading cached (a tool's keys repeat)


def key_words(key: object) -> tuple[str, ...]:
    """A key's words, lower case: ``newPassword`` and ``new_password`` are ``("new", "password")``."""
    text = key if isinstance(key, str) else str(key)
    return _words(text[:_CACHED_KEY])


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    text = _CAMEL_2.sub(r"\1 \2", _CAMEL_1.sub(r"\1 \2", text))
    return tuple(w.lower() for w in _NON_ALNUM.split(text) if w)


_TAILS: Final = frozenset(
    {"value", "text", "hash", "confirm", "confirmation", "again", "repeat", "input", "code",
     "number", "no", "num", "digits", "string", "field", "entry", "plain", "raw"}
)  # fmt: skip


def _ends_with_phrase(words: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    """Whether the key ends with the phrase, or with the phrase and one word such as "value"."""
    n = len(phrase)
    return words[-n:] == phrase or (words[-n - 1 : -1] == phrase and words[-1] in _TAILS)


def key_secret(key: object) -> tuple[What, int] | None:
    """What a key names, and the digits its value needs (0: any value; -N: only N-12 digits).

    The key must end with the secret's words (``new_password``, ``cardNumber``), perhaps with one
    more word like ``value`` or ``confirm`` (``password_confirm``); ``password_min_length`` and
    ``password_hint`` name no secret.
    """
    if isinstance(key, str) and len(key) <= _CACHED_KEY:
        return _str_key_secret(key)
    return _words_secret(key_words(key))


@functools.lru_cache(maxsize=4096)
def _str_key_secret(key: str) -> tuple[What, int] | None:
    return _words_secret(key_words(key))


def _words_secret(words: tuple[str, ...]) -> tuple[What, int] | None:
    for phrase, what, need in _KEY_PHRASES:
        if _ends_with_phrase(words, phrase):
            return what, need
    return None


def _value_fits(value: object, need: int) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return False
        text = str(int(value)) if float(value).is_integer() else str(value)
    elif isinstance(value, str):
        text = value
    else:
        return False
    if not text.strip() or text == REDACTED:
        return False
    digits = sum(c.isdigit() for c in text)
    if need == 0:
        return True
    if need < 0:
        stripped = text.strip()
        return stripped.isdigit() and -need <= len(stripped) <= 12
    return digits >= need


# -- text ------------------------------------------------------------------------------------
# Not part of a longer token: no letter, digit or + before, nor a letter or digit joined by
# - . or / (ORD-4111..., 4111....5); the same after.
_BEFORE = r"(?<![A-Za-z0-9+])(?<![A-Za-z0-9][-./])"
_AFTER = r"(?![A-Za-z0-9])(?![-./][A-Za-z0-9])"
_CARD_RUN = re.compile(_BEFORE + r"(\d{13,19})" + _AFTER)
_CARD_SEPARATOR = "[ \u00a0\u2007\u202f.-]"  # space, no-break spaces, dot, dash
_CARD_GROUPS = re.compile(
    _BEFORE + r"(\d{4}(?:(" + _CARD_SEPARATOR + r")\d{2,6})(?:\2\d{1,6}){1,3})" + _AFTER
)
_NOT_DIGIT = re.compile(r"\D")
_SSN = re.compile(_BEFORE + r"(?<!-)(\d{3})([- ])(\d{2})\2(\d{4})" + _AFTER + r"(?!-)")
_NINO = re.compile(
    r"(?<![A-Za-z0-9])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?([A-D])"
    r"(?![A-Za-z0-9])"
)
_NINO_BAD_PREFIX: Final = frozenset({"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"})
_DNI = re.compile(r"(?<![A-Za-z0-9])([XYZ]?)(\d{7,8})[- ]?([A-Z])(?![A-Za-z0-9])")
_DNI_LETTERS: Final = "TRWAGMYFPDXBNJZSQVHLCKE"
_IBAN_START = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{2})(\d{2})")
_SECRET_WORD = (
    r"(?:password|passwd|passphrase|passcode|pwd|secret|api[_ -]?key|access[_ -]?token"
    r"|auth[_ -]?token|refresh[_ -]?token)"
)
_LABELLED = re.compile(
    r"(?i)(?<![A-Za-z0-9])" + _SECRET_WORD + r"[\"']?\s{0,3}[:=]\s{0,3}[\"']?([^\s\"',;}{\]\[]+)"
)
# "my password is hunter2", "the password is: x"; not "password is required" and the like.
_PHRASED = re.compile(
    r"(?i)(?<![A-Za-z0-9])"
    + _SECRET_WORD
    + r"\s{1,3}(?:is|was)(?:\s{0,3}[:=]\s{0,3}|\s{1,3})[\"'“‘]?"
    r"([^\s\"',;}{\]\[”’]+)"
)
_NOT_A_SECRET: Final = frozenset(
    {"a", "an", "the", "not", "no", "too", "required", "incorrect", "invalid", "wrong", "empty",
     "missing", "correct", "valid", "weak", "strong", "expired", "set", "changed", "reset",
     "needed", "optional", "case", "being", "now", "also", "still", "only", "at", "of", "in",
     "your", "my", "our", "their", "this", "that", "it", "sent", "stored", "saved", "hidden",
     "shown", "never", "always", "used", "updated", "short", "long", "ok", "fine",
     "good", "bad", "secure", "insecure", "encrypted", "hashed", "unknown", "blank", "null",
     "none", "[redacted]"}
)  # fmt: skip
_LABELLED_PIN = re.compile(
    r"(?i)(?<![A-Za-z0-9])pin(?:[_ -]?code)?[\"']?\s{0,3}[:=]\s{0,3}[\"']?(\d{4,12})(?!\d)"
)

IBAN_LENGTHS: Final[Mapping[str, int]] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
    "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
    "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23,
    "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}  # fmt: skip
"""IBAN length by country (ISO 13616 registry)."""


def luhn_ok(digits: str) -> bool:
    """Whether a string of digits passes the Luhn check (False for anything else)."""
    if not digits or not digits.isascii() or not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_ok(digits: str) -> bool:
    return 13 <= len(digits) <= 19 and digits[0] in "23456" and luhn_ok(digits)


def iban_ok(text: str) -> bool:
    """Whether text (spaces allowed) is an IBAN: known country, its length, and mod-97 == 1."""
    compact = text.replace(" ", "").upper()
    if not compact.isascii() or not compact.isalnum() or len(compact) < 5:
        return False
    if IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact[2:4].isdigit():
        return False
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in moved)
    return int(number) % 97 == 1


def _ibans(text: str) -> Iterator[tuple[int, int]]:
    for m in _IBAN_START.finditer(text):
        want = IBAN_LENGTHS.get(m.group(1).upper())
        if want is None:
            continue
        start, i, got = m.start(), m.start(), 0
        while i < len(text) and got < want:
            ch = text[i]
            if ch.isascii() and ch.isalnum():
                got += 1
                i += 1
            elif ch == " " and got > 0 and i + 1 < len(text) and text[i + 1].isalnum():
                i += 1
            else:
                break
        if got != want or (i < len(text) and text[i].isascii() and text[i].isalnum()):
            continue
        if iban_ok(text[start:i]):
            yield start, i


def _ssn_ok(area: str, group: str, serial: str) -> bool:
    a = int(area)
    return a != 0 and a != 666 and a < 900 and group != "00" and serial != "0000"


def secret_spans(text: str) -> list[tuple[int, int, What]]:
    """Where text holds secrets: (start, end, what), sorted, not overlapping. Never raises."""
    if not isinstance(text, str):
        return []
    spans: list[tuple[int, int, What]] = []
    for m in _CARD_RUN.finditer(text):
        if _card_ok(m.group(1)):
            spans.append((m.start(1), m.end(1), "card"))
    for m in _CARD_GROUPS.finditer(text):
        if _card_ok(_NOT_DIGIT.sub("", m.group(1))):
            spans.append((m.start(1), m.end(1), "card"))
    for start, end in _ibans(text):
        spans.append((start, end, "bank"))
    for m in _SSN.finditer(text):
        if _ssn_ok(m.group(1), m.group(3), m.group(4)):
            spans.append((m.start(), m.end(), "id"))
    for m in _NINO.finditer(text):
        if m.group(1) not in _NINO_BAD_PREFIX:
            spans.append((m.start(), m.end(), "id"))
    for m in _DNI.finditer(text):
        prefix, number, letter = m.groups()
        if (prefix and len(number) != 7) or (not prefix and len(number) != 8):
            continue
        value = int(str("XYZ".index(prefix)) + number) if prefix else int(number)
        if _DNI_LETTERS[value % 23] == letter:
            spans.append((m.start(), m.end(), "id"))
    for m in _LABELLED.finditer(text):
        spans.append((m.start(1), m.end(1), "password"))
    for m in _PHRASED.finditer(text):
        word = m.group(1).rstrip(".!?:)").lower()
        if word and word not in _NOT_A_SECRET:
            spans.append((m.start(1), m.start(1) + len(m.group(1).rstrip(".!?:)")), "password"))
    for m in _LABELLED_PIN.finditer(text):
        spans.append((m.start(1), m.end(1), "password"))
    return _merge(spans)


def _merge(spans: list[tuple[int, int, What]]) -> list[tuple[int, int, What]]:
    spans.sort()
    out: list[tuple[int, int, What]] = []
    for start, end, what in spans:
        if out and start < out[-1][1]:
            last = out[-1]
            out[-1] = (last[0], max(last[1], end), last[2])
        else:
            out.append((start, end, what))
    return out


def _number_secret(value: int | float) -> What | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer() or abs(value) >= 1e19:
            return None
        value = int(value)
    if value < 0 or value >= 10**19:
        return None
    return "card" if _card_ok(str(value)) else None


# -- values ----------------------------------------------------------------------------------
def _key_path(path: str, key: object) -> str:
    if isinstance(key, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}"
    text = _redact_key(key, REDACTED)  # a path never spells out a secret key
    text = text if isinstance(text, str) else str(text)
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'{path}["{escaped}"]'


def find_secrets(value: object) -> list[Finding]:
    """Every secret in a JSON-like value (dicts, lists, strings, numbers), in document order.

    Never raises: cycles are walked once, and any depth is fine (the walk keeps its own stack).
    """
    found: list[Finding] = []
    # (value, path, the secret its nearest secret-naming key says, if any)
    stack: list[tuple[object, str, tuple[What, int] | None]] = [(value, "$", None)]
    seen: set[int] = set()
    while stack:
        item, path, under = stack.pop()
        if isinstance(item, (Mapping, list, tuple)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            children: list[tuple[object, str, tuple[What, int] | None]] = []
            if isinstance(item, Mapping):
                try:
                    pairs = list(item.items())
                except Exception:
                    continue
                for k, v in pairs:
                    child = _key_path(path, k)
                    for what in _key_secrets(k):
                        found.append(Finding(child, what))
                    children.append((v, child, key_secret(k) or under))
            else:
                for i, v in enumerate(item):
                    children.append((v, f"{path}[{i}]", under))
            stack.extend(reversed(children))
            continue
        if under is not None and _value_fits(item, under[1]):
            found.append(Finding(path, under[0]))
            continue
        if isinstance(item, str):
            whats = {what for _, _, what in secret_spans(item)}
            for what in ("password", "card", "bank", "id"):
                if what in whats:
                    found.append(Finding(path, what))
        elif isinstance(item, (int, float)):
            number = _number_secret(item)
            if number is not None:
                found.append(Finding(path, number))
    return found


def redact(value: object, replacement: str = REDACTED) -> Any:
    """A copy of a JSON-like value with every secret ``find_secrets`` sees replaced.

    A value under a secret-naming key becomes ``replacement`` whole; a secret inside a longer
    string is replaced in place. Tuples become lists, other mappings dicts; a value nested
    beyond 400 levels or in a cycle is replaced too. Never raises.
    """
    return _redact(value, None, replacement, 0, set())


def _redact(
    item: object, under: tuple[What, int] | None, rep: str, depth: int, active: set[int]
) -> Any:
    if depth > _MAX_DEPTH:
        return rep
    if isinstance(item, (Mapping, list, tuple)):
        if id(item) in active:
            return rep
        active.add(id(item))
        try:
            if isinstance(item, Mapping):
                out: dict[Any, Any] = {}
                try:
                    pairs = list(item.items())
                except Exception:
                    return rep
                for k, v in pairs:
                    key = _redact_key(k, rep)
                    if key is not k and key in out:
                        n = 2
                        while f"{key} {n}" in out:
                            n += 1
                        key = f"{key} {n}"
                    out[key] = _redact(v, key_secret(k) or under, rep, depth + 1, active)
                return out
            return [_redact(v, under, rep, depth + 1, active) for v in item]
        finally:
            active.discard(id(item))
    if under is not None and _value_fits(item, under[1]):
        return rep
    if isinstance(item, str):
        return _redact_text(item, rep)
    if isinstance(item, (int, float)) and not isinstance(item, bool) and _number_secret(item):
        return rep
    return item


def _redact_text(item: str, rep: str) -> str:
    spans = secret_spans(item)
    if not spans:
        return item
    parts: list[str] = []
    last = 0
    for start, end, _ in spans:
        parts.append(item[last:start])
        parts.append(rep)
        last = end
    parts.append(item[last:])
    return "".join(parts)


def _redact_key(key: object, rep: str) -> Any:
    """A mapping key with the secrets in it replaced (the key itself when it holds none)."""
    if isinstance(key, str):
        redacted = _redact_text(key, rep)
        return key if redacted == key else redacted
    if isinstance(key, (int, float)) and not isinstance(key, bool) and _number_secret(key):
        return rep
    return key


def _key_secrets(key: object) -> tuple[What, ...]:
    """What secrets a mapping key itself holds (a card number as a key, say)."""
    if isinstance(key, str):
        return _str_key_secrets(key) if len(key) <= _CACHED_KEY else _text_secrets(key)
    if isinstance(key, (int, float)) and not isinstance(key, bool):
        number = _number_secret(key)
        return (number,) if number is not None else ()
    return ()


@functools.lru_cache(maxsize=4096)
def _str_key_secrets(key: str) -> tuple[What, ...]:
    return _text_secrets(key)


def _text_secrets(text: str) -> tuple[What, ...]:
    whats = {what for _, _, what in secret_spans(text)}
    return tuple(w for w in ("password", "card", "bank", "id") if w in whats)
