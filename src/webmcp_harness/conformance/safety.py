"""Safety checks: tool poisoning, missing untrusted-content hints, acting tools marked read-only.

Rules from the WebMCP spec's security section:
https://webmachinelearning.github.io/webmcp/#metadata-description-attacks (tool poisoning: the
agent reads tool metadata as context, so instructions hidden in a name, description or parameter
description can override the user's), #output-injection-attacks and
#mitigation-untrusted-annotation (user-generated content in results, marked with
untrustedContentHint), and #dom-toolannotations-readonlyhint ("the tool does not modify any
state"). The patterns are heuristics: they name the words they matched so a person can judge.
"""

from __future__ import annotations

import contextlib
import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.records import CallRecord, Tool, normalise_annotations
from ..core.urls import split_origin
from . import ids
from .findings import Collector, Finding, Severity, excerpt
from .metadata import frame_of

__all__ = [
    "INJECTION_PATTERNS",
    "SAFETY_CHECKS",
    "InjectionMatch",
    "check_result",
    "check_safety",
    "check_tool_safety",
    "consequential_word",
    "find_hidden_characters",
    "find_injections",
    "is_read_only",
    "is_untrusted",
    "runs_code",
    "user_content_cue",
    "user_content_word",
]

SAFETY_CHECKS = (
    ids.INJECTION_METADATA,
    ids.SAFETY_HIDDEN_CHARACTERS,
    ids.SAFETY_UNTRUSTED_CONTENT,
    ids.SAFETY_READONLY_CONSEQUENTIAL,
    ids.SAFETY_CODE_EXECUTION,
)
# A tool that runs what it is given: its name or description says so, or a parameter is code.
_RUNS_CODE = re.compile(
    r"\beval(?:uate)?\s*(?:js|javascript|code|scripts?)\b|\beval\s*\(|"
    r"\b(?:run|execute|exec|evaluate)s?\s+(?:(?:arbitrary|any|the|a|some|given|custom|user|your|"
    r"raw)\s+){0,2}(?:javascript|js|code|scripts?|expressions?)\b",
    re.IGNORECASE,
)
_CODE_WORDS = re.compile(r"javascript|\bjs\b|\beval|execut|\brun\b|\bexpression", re.I)
_CODE_PARAMS = frozenset({"code", "script", "js", "javascript", "source", "expression", "eval"})

_MAX_SCHEMA_STRINGS = 2_000  # strings read from one inputSchema at most
_SCAN_LIMIT = 200_000  # characters of one string scanned for injected instructions


def _hint(tool: Tool, name: str) -> bool:
    """An annotation under the spec's name (a hand-made Tool's CDP spelling is read as that)."""
    return bool(normalise_annotations(tool.annotations).get(name))


def is_read_only(tool: Tool) -> bool:
    """Whether the tool is marked readOnlyHint."""
    return _hint(tool, "readOnlyHint")


def is_untrusted(tool: Tool) -> bool:
    """Whether the tool is marked untrustedContentHint."""
    return _hint(tool, "untrustedContentHint")


# --- injected instructions -------------------------------------------------------------------


@dataclass(frozen=True)
class _Pattern:
    id: str
    what: str
    regex: re.Pattern[str]
    severity: Severity


def _p(id_: str, what: str, pattern: str, severity: Severity = Severity.ERROR) -> _Pattern:
    return _Pattern(id_, what, re.compile(pattern, re.IGNORECASE), severity)


_GAP = r"[^.!?]{0,80}?"  # a bounded stretch within one sentence (no runaway backtracking)
_SENSITIVE = (
    r"(?:passwords?|credentials?|api[ _-]?keys?|tokens?|cookies?|session (?:ids?|tokens?)|"
    r"credit[ -]?cards?|card numbers?|ssn|social security|(?:browsing|search|chat|conversation) "
    r"history|system prompt|(?:personal|private|sensitive) (?:data|details|information|info))"
)
_PERSONAL = r"(?:location|(?:home )?address|e-?mail(?: address)?|phone(?: number)?|contacts)"
_EMAIL = r"\b[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{2,63}\b"

INJECTION_PATTERNS: tuple[_Pattern, ...] = (
    _p(
        "override",
        "tells the agent to ignore its instructions",
        r"\b(?:ignore|disregard|forget|override|bypass)\b"
        + _GAP
        + r"\b(?:previous|prior|above|earlier|preceding|original|all|any|other|system|your|the "
        r"user'?s?)\b" + _GAP + r"\b(?:instructions?|prompts?|rules?|directions?|guidelines?|"
        r"directives?|context|messages?|guardrails?|policies|policy)\b",
    ),
    _p(
        "fake-authority",
        "poses as a system or priority message",
        r"<\s*/?\s*(?:important|system|instructions?|admin|critical|secret|hidden|"
        r"assistant|developer|sys)\s*>"
        r"|\[\s*(?:system|admin|developer|instructions?)\b\s*(?:override|instructions?|"
        r"message|note|prompt)?\s*[:\]]"
        r"|\b(?:system|developer|admin)\s+(?:instruction|override|message|prompt|note)s?\s*:"
        r"|<\|\s*(?:im_start|im_end|system|endoftext|begin_of_text|start_header_id)\s*\|>"
        r"|\[/?INST\]"
        r"|-{2,}\s*end (?:of )?(?:user |tool )?(?:content|output|description|input)\s*-{2,}",
    ),
    _p(
        "secrecy",
        "asks to keep something from the user",
        r"\b(?:do not|don'?t|never|must not|without)\s+(?:tell|telling|inform|informing|notify|"
        r"notifying|mention|mentioning|reveal|revealing|alert|alerting|let|letting|show|showing|"
        r"disclose|disclosing)\b" + _GAP + r"\b(?:the )?(?:user|human|person|owner|customer)s?\b"
        r"|\b(?:keep|hide)\s+(?:this|it|these)\b"
        + _GAP
        + r"\b(?:secret|hidden|private|from the user|between us)\b"
        r"|\bthe (?:user|human) (?:must|should) not (?:know|see|be told)\b",
    ),
    _p(
        "skip-confirmation",
        "tells the agent not to ask the user",
        r"\bwithout (?:asking|confirming|confirmation|consent|permission|the user'?s? "
        r"(?:approval|consent|permission|knowledge))\b"
        r"|\b(?:do not|don'?t|never)\s+(?:ask|prompt|check with|confirm with)\b"
        + _GAP
        + r"\b(?:user|human|permission|confirmation|consent)\b",
        Severity.WARNING,
    ),
    _p(
        "exfiltration",
        "tells the agent to send data elsewhere",
        r"\bexfiltrat\w*"
        # "email": or Email: is a field, not an instruction (a result's JSON, a label).
        r"|\b(?:send|forward|post|upload|transmit|leak|share|e-?mail|copy)\b(?![\"']?\s*:)"
        + _GAP
        + r"(?:https?://|"
        + _EMAIL
        + r"|\bto (?:the )?(?:attacker|external|remote|third[- ]party)\b)"
        r"|\b(?:send|forward|post|upload|transmit|leak|share|include|append|attach|add)\b"
        + _GAP
        + r"\b"
        + _SENSITIVE
        + r"\b"
        r"|\b(?:always|must)\b"
        + _GAP
        + r"\b(?:include|append|attach|add|send)\b"
        + _GAP
        + r"\b(?:the )?(?:user'?s?|their)\s+(?:\w+\s+)?"
        + _PERSONAL
        + r"\b",
    ),
    _p(
        "other-tools",
        "tells the agent what to do with other tools or sites",
        r"\b(?:after|before|instead of) (?:using|calling|running|invoking) this tool\b"
        r"|\balways (?:call|invoke|use|run|execute)\b" + _GAP + r"\btool\b"
        r"|\bnavigate to\b" + _GAP + r"(?:https?://|\b[\w-]+\.(?:com|net|org|io)\b)"
        r"|\b(?:whenever|when|if) (?:the )?[\w.-]{1,64} tool (?:is )?(?:used|called|invoked)\b",
        Severity.WARNING,
    ),
    _p(
        "role-play",
        "tries to change the agent's role",
        r"\byou are now\b|\bact as (?:an? )?(?:admin|system|developer|root|unrestricted)\b"
        r"|\bnew (?:instructions|rules|task)\s*:",
    ),
    _p(
        "html-comment",
        "hides text in an HTML comment",
        r"<!--",
        Severity.WARNING,
    ),
)


@dataclass(frozen=True)
class InjectionMatch:
    """One suspicious passage: which pattern, where, and the words matched."""

    pattern: str
    what: str
    where: str
    text: str
    severity: Severity


def find_injections(text: str, where: str = "description") -> list[InjectionMatch]:
    """The injection patterns text matches (at most one match per pattern), in the text as
    written and as a model reads it (``as_read``: past invisible characters, other forms of
    letters and lookalikes from any script).

    Only the first 200,000 characters are read: a longer description already fails
    metadata.description-length, and the scan must stay fast on hostile pages.
    """
    found: list[InjectionMatch] = []
    if not text:
        return found
    text = text[:_SCAN_LIMIT]
    read = as_read(text)
    for pattern in INJECTION_PATTERNS:
        match = pattern.regex.search(text)
        here = where
        if match is None and read is not None:
            match = pattern.regex.search(read)
            here = f"{where} (read past lookalike or hidden characters)"
        if match:
            found.append(
                InjectionMatch(pattern.id, pattern.what, here, match.group(0), pattern.severity)
            )
    return found


def as_read(text: str) -> str | None:
    """text as a model reads it: invisible and direction characters dropped, compatibility forms
    (fullwidth, mathematical letters) folded (NFKC), and letters of any script that look like
    Latin ones (Unicode's confusables, through confusable_homoglyphs) written as those. None when
    that is text itself."""
    if text.isascii():
        return None
    read = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))
    if not read.isascii():
        read = read.translate(_lookalikes(read))
    return read if read != text else None


def _lookalikes(text: str) -> dict[int, str]:
    """Each non-Latin character of text that looks like a Latin letter or digit, and that one."""
    from confusable_homoglyphs import confusables

    distinct = "".join(sorted({c for c in text if not c.isascii()}))
    found = confusables.is_confusable(distinct, greedy=True, preferred_aliases=["latin"]) or []
    table: dict[int, str] = {}
    for item in found:
        char = item.get("character", "")
        for glyph in item.get("homoglyphs", ()):
            latin = glyph.get("c", "")
            if len(latin) == 1 and latin.isascii() and latin.isalnum():
                # Unicode draws I, l and 1 as one; a capital that looks like l is an I.
                table[ord(char)] = "I" if latin == "l" and char.isupper() else latin
                break
    return table


_INVISIBLE_RANGES = (
    (0x0000, 0x0008),
    (0x000B, 0x000C),
    (0x000E, 0x001F),
    (0x007F, 0x009F),
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul fillers
    (0x17B4, 0x17B5),
    (0x180B, 0x180E),  # Mongolian selectors and vowel separator
    (0x200B, 0x200F),  # zero-width space/joiners, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x2064),  # word joiner, invisible operators
    (0x2066, 0x206F),  # bidi isolates, deprecated format characters
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0E),  # variation selectors (FE0F, the emoji one, is left alone)
    (0xFEFF, 0xFEFF),  # zero-width no-break space / BOM
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),  # interlinear annotations
    (0x1D173, 0x1D17A),  # musical formatting
    (0xE0000, 0xE007F),  # tag characters: invisible ASCII ("ASCII smuggling")
    (0xE0100, 0xE01EF),  # variation selectors supplement
)
_INVISIBLE = re.compile(
    "[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _INVISIBLE_RANGES) + "]"
)


_TAGS = re.compile("[\U000e0020-\U000e007e]+")


def find_hidden_characters(text: str) -> tuple[list[str], str]:
    """The invisible characters in text (as "U+XXXX NAME", deduplicated), and any ASCII hidden
    in Unicode tag characters. Tab, newline and carriage return are ordinary whitespace."""
    if not text:
        return [], ""
    distinct = sorted(c for c in set(text) if _INVISIBLE.match(c))
    if not distinct:
        return [], ""
    seen: dict[str, None] = {}
    for char in distinct:
        code = ord(char)
        if 0xE0000 <= code <= 0xE007F:
            seen.setdefault("U+E0000-E007F TAG characters", None)
        else:
            seen.setdefault(f"U+{code:04X} {unicodedata.name(char, '')}".strip(), None)
    smuggled = "".join(
        "".join(chr(ord(c) - 0xE0000) for c in run) for run in _TAGS.findall(text[:_SCAN_LIMIT])
    )
    return list(seen), smuggled


def _schema_strings(schema: Any) -> Iterator[tuple[str, str]]:
    """(where, text) for the names, descriptions and titles inside an inputSchema."""
    stack: list[tuple[str, Any]] = [("inputSchema", schema)]
    seen = 0
    while stack and seen < _MAX_SCHEMA_STRINGS:
        path, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                here = f"{path}/{key}"
                if key in ("description", "title") and isinstance(value, str):
                    seen += 1
                    yield here, value
                elif key in _VALUE_KEYS and isinstance(value, str):
                    seen += 1
                    yield here, value  # a const or default a model reads as it is
                elif key in _VALUE_KEYS and isinstance(value, list):
                    for i, item in enumerate(value):  # enum values, examples
                        if isinstance(item, str):
                            seen += 1
                            yield f"{here}/{i}", item
                elif key == "properties" and isinstance(value, dict):
                    for prop, sub in value.items():
                        seen += 1
                        yield f"{here}/{prop} (name)", str(prop)
                        stack.append((f"{here}/{prop}", sub))
                elif isinstance(value, (dict, list)):
                    stack.append((here, value))
        elif isinstance(node, list):
            stack.extend((f"{path}/{i}", item) for i, item in enumerate(node))


_VALUE_KEYS = ("enum", "const", "default", "examples")


def _tool_strings(tool: Tool) -> Iterator[tuple[str, str]]:
    """Every string of a tool a model reads: name, title, description, and the schema's."""
    yield "name", tool.name
    if isinstance(tool.title, str) and tool.title:
        yield "title", tool.title
    title = tool.annotations.get("title")
    if isinstance(title, str) and title:
        yield "annotations/title", title
    if isinstance(tool.description, str):
        yield "description", tool.description
    if tool.input_schema is not None:
        yield from _schema_strings(tool.input_schema)


# --- words that say what a tool does ----------------------------------------------------------


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


READ_VERBS = _wordset(
    "get list search find lookup look view show read fetch load query describe count check "
    "preview estimate calculate compute track browse explore inspect filter sort suggest "
    "recommend compare validate verify summarize summarise retrieve see display open status "
    "is has can download export print"
)
# Acting verbs whose meaning does not change with position: money, deletion, messages.
STRONG_VERBS = _wordset(
    "pay purchase buy checkout delete remove destroy erase purge wipe drop transfer withdraw "
    "deposit refund send submit unsubscribe subscribe publish cancel reserve donate sell "
    "approve reject sign terminate revoke ban block kick"
)
# Words that are verbs in front ("order_pizza") but nouns elsewhere ("get_order").
AMBIGUOUS_VERBS = _wordset("order post book share email mail charge place message reply")
# General state changes: still not read-only, just less drastic.
MUTATING_VERBS = _wordset(
    "add create update edit set save write modify change clear reset rename move upload apply "
    "assign archive enable disable toggle mark register join invite follow unfollow like "
    "vote schedule confirm accept decline login logout signup insert replace "
    "patch put restore upgrade downgrade"
)
_NOUN_AFTER = _wordset(
    "status history details detail info information list lookup summary tracking count id ids "
    "number numbers state total totals preview options search"
)
USER_CONTENT_NOUNS = _wordset(
    "review reviews comment comments message messages post posts forum forums thread threads "
    "reply replies chat chats inbox email emails mail mails feedback testimonial testimonials "
    "discussion discussions ugc tweet tweets feed feeds conversation conversations guestbook"
)
_USER_CONTENT_PHRASE = re.compile(
    r"\buser[- ](?:generated|submitted|written|provided|created|supplied)\b|\bugc\b"
    r"|\bthird[- ]party (?:content|data)\b|\bfrom (?:other )?(?:users|customers|visitors|"
    r"members|buyers|the community)\b",
    re.IGNORECASE,
)
_RETURNS = re.compile(
    r"\b(?:returns?|retrieves?|fetch(?:es)?|lists?|gets?|reads?|loads?|search(?:es)?|finds?)"
    r"\b[^.!?]{0,40}?\b(" + "|".join(sorted(USER_CONTENT_NOUNS, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)


def _tokens(text: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text[:2_000])
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _stem(word: str) -> str:
    for suffix, cut in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            base = word[: -len(suffix)] + cut
            if (
                base in STRONG_VERBS
                or base in MUTATING_VERBS
                or base in READ_VERBS
                or base in AMBIGUOUS_VERBS
            ):
                return base
    return word


def _front_verb(words: list[str], *, stem: bool = False) -> tuple[str, bool] | None:
    """The acting verb words start with (names use the base form, descriptions "Deletes")."""
    if not words:
        return None
    first = _stem(words[0]) if stem else words[0]
    if first in READ_VERBS or (len(words) > 1 and words[1] in _NOUN_AFTER):
        return None  # "order_status", "transfer_history": a noun, not a verb
    if first in STRONG_VERBS or first in AMBIGUOUS_VERBS:
        return first, True
    if first in MUTATING_VERBS:
        return first, False
    return None


def consequential_word(tool: Tool) -> tuple[str, bool] | None:
    """The word that makes a tool sound like it acts, and whether it is a strong one
    (money, deletion, messages) rather than a general change of state."""
    words = _tokens(tool.name)
    if words and words[0] in READ_VERBS:
        return None
    found = _front_verb(words)
    if found is None or not found[1]:
        for i, word in enumerate(words[1:], start=1):
            if word in READ_VERBS:
                break  # what follows a read verb is its object: cart_get_total
            following = words[i + 1] if i + 1 < len(words) else ""
            if word in STRONG_VERBS and following not in _NOUN_AFTER:
                return word, True
    if found is not None:
        return found
    description = tool.description if isinstance(tool.description, str) else ""
    return _front_verb(_tokens(description[:200])[:2], stem=True)


def user_content_word(tool: Tool) -> str | None:
    """The word that says a tool returns content other people wrote, or None."""
    cue = user_content_cue(tool)
    return cue[0] if cue is not None else None


def user_content_cue(tool: Tool) -> tuple[str, bool] | None:
    """The word that says a tool returns content other people wrote, and whether the tool
    surely returns it (a script's tool whose name reads it, get_reviews, or a read-only one
    named for it); None if nothing says so. A word alone (a support_chat, a sign-up form's
    "email") or only the description says less: the tool may take such content, not return it."""
    words = _tokens(tool.name)
    description = tool.description if isinstance(tool.description, str) else ""
    if words and not is_read_only(tool) and _front_verb(words) is not None:
        return None  # post_comment, send_message: it writes user content, not returns it
    reads = bool(words) and words[0] in READ_VERBS
    for word in words[1:] if reads else words:
        if word in USER_CONTENT_NOUNS:
            return word, (reads or is_read_only(tool)) and not tool.declarative
    phrase = _USER_CONTENT_PHRASE.search(description[:5_000])
    if phrase:
        return phrase.group(0), False
    returned = _RETURNS.search(description[:1_000])
    return (returned.group(1).lower(), False) if returned else None


# --- the checks -------------------------------------------------------------------------------


def check_safety(
    tools: Sequence[Tool], *, page: str, out: Collector | None = None
) -> list[Finding]:
    """The safety checks for every tool of a page."""
    col = Collector(page)
    for tool in tools:
        check_tool_safety(tool, page=page, out=col)
    if out is not None:
        out.extend(col)
    return col.findings


def check_tool_safety(tool: Tool, *, page: str, out: Collector | None = None) -> list[Finding]:
    """Injected instructions, hidden characters, untrusted content, acting tools marked read-only."""
    col = Collector(page)
    frame = frame_of(tool, page)
    name = tool.name
    col.ran_all(SAFETY_CHECKS, name, frame)

    matches: list[InjectionMatch] = []
    hidden: list[tuple[str, list[str], str]] = []
    for where, text in _tool_strings(tool):
        matches.extend(find_injections(text, where))
        chars, smuggled = find_hidden_characters(text)
        if chars:
            hidden.append((where, chars, smuggled))
            if smuggled:
                matches.extend(find_injections(smuggled, f"{where} (hidden text)"))
    if matches:
        worst = min(matches, key=lambda m: m.severity.rank)
        listed = "; ".join(
            f"{m.where} {m.what}: {excerpt(m.text, 60)}" for m in _first_per_where(matches)[:5]
        )
        col.add(
            ids.INJECTION_METADATA,
            f"Text an agent reads as instructions ({listed}). Tool metadata should only describe "
            "the tool: remove instructions aimed at the agent.",
            tool=name,
            frame=frame,
            severity=worst.severity,
            detail={
                "matches": [
                    {"pattern": m.pattern, "where": m.where, "text": m.text[:200]}
                    for m in matches[:20]
                ]
            },
        )
    if hidden:
        parts = []
        for where, chars, smuggled in hidden[:5]:
            part = f"{where}: {', '.join(chars[:4])}"
            if smuggled:
                part += f" (hidden text {excerpt(smuggled, 60)})"
            parts.append(part)
        col.add(
            ids.SAFETY_HIDDEN_CHARACTERS,
            f"Invisible characters in tool metadata ({'; '.join(parts)}). People reviewing the "
            "tool cannot see them, but models read them: remove them.",
            tool=name,
            frame=frame,
            detail={"hidden": [{"where": w, "chars": c[:20]} for w, c, _ in hidden[:20]]},
        )
    cue = None if is_untrusted(tool) else user_content_cue(tool)
    if cue is not None:
        word, sure = cue
        col.add(
            ids.SAFETY_UNTRUSTED_CONTENT,
            f"The tool seems to return content other people wrote ({excerpt(word, 40)}) but "
            "is not marked untrustedContentHint. If it does, set annotations: "
            "{untrustedContentHint: true} so agents treat its output as data, not instructions.",
            tool=name,
            frame=frame,
            severity=None if sure else Severity.INFO,
        )
    if is_read_only(tool):
        acting = consequential_word(tool)
        if acting:
            word, strong = acting
            col.add(
                ids.SAFETY_READONLY_CONSEQUENTIAL,
                f"The tool sounds like it acts ({excerpt(word, 40)}) but is marked readOnlyHint, "
                "which tells agents it changes nothing, so they may call it without asking the "
                "user. Remove readOnlyHint, or rename and describe the tool if it only reads.",
                tool=name,
                frame=frame,
                severity=Severity.ERROR if strong else Severity.WARNING,
            )
    runs = runs_code(tool)
    if runs:
        col.add(
            ids.SAFETY_CODE_EXECUTION,
            f"The tool runs code it is given ({runs}). Whoever steers the agent (a page, a "
            "review, an email it read) then runs script in the user's session: offer tools that "
            "do one thing each instead.",
            tool=name,
            frame=frame,
        )
    if out is not None:
        out.extend(col)
    return col.findings


_URL = re.compile(r"https?://[^\s\"'<>()]+", re.IGNORECASE)


def _without_own_links(text: str, page: str) -> str:
    """text with the page's own-origin URLs written as "(link)": sharing a link to the site
    itself sends nothing elsewhere."""
    own = split_origin(page)
    if own is None or "://" not in text:
        return text
    return _URL.sub(lambda m: "(link)" if split_origin(m.group(0)) == own else m.group(0), text)


def runs_code(tool: Tool) -> str | None:
    """Why the tool looks like it runs code it is given (eval, "run JavaScript", a code or
    script parameter that is code), or None."""
    texts = (
        ("name", tool.name.replace("_", " ").replace("-", " ")),
        ("description", tool.description),
    )
    for where, text in texts:
        match = _RUNS_CODE.search(text[:5_000]) if isinstance(text, str) else None
        if match:
            return f"its {where} says {excerpt(match.group(0), 40)}"
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    props = schema.get("properties")
    for key, sub in list(props.items())[:200] if isinstance(props, dict) else []:
        if not (isinstance(key, str) and key.lower() in _CODE_PARAMS):
            continue
        said = sub.get("description") if isinstance(sub, dict) else None
        said = (said if isinstance(said, str) else "") + " " + str(tool.description)
        if _CODE_WORDS.search(said[:5_000]):
            return f"it takes a {excerpt(key, 30)} parameter that is code"
    return None


def _first_per_where(matches: list[InjectionMatch]) -> list[InjectionMatch]:
    ordered = sorted(matches, key=lambda m: m.severity.rank)
    seen: set[tuple[str, str]] = set()
    kept = []
    for m in ordered:
        if (m.where, m.pattern) not in seen:
            seen.add((m.where, m.pattern))
            kept.append(m)
    return kept


def _result_text(result: Any) -> str:
    if not isinstance(result, dict):
        return ""
    parts: list[str] = []
    content = result.get("content")
    if isinstance(content, list):
        for item in content[:100]:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                parts.append(item["text"])
    structured = result.get("structuredContent")
    if structured is not None:
        with contextlib.suppress(TypeError, ValueError):
            parts.append(json.dumps(structured, ensure_ascii=False)[:200_000])
    return "\n".join(parts)[:1_000_000]


def check_result(
    record: CallRecord,
    tool: Tool | None,
    *,
    page: str,
    out: Collector | None = None,
) -> list[Finding]:
    """Instructions to the agent in a call's result, from a tool not marked untrustedContentHint."""
    col = Collector(page)
    frame = frame_of(tool, page) if tool is not None else None
    col.ran(ids.SAFETY_OUTPUT_INJECTION, record.tool, frame)
    if tool is not None and is_untrusted(tool):
        if out is not None:
            out.extend(col)
        return col.findings
    text = _without_own_links(_result_text(record.result), page)
    matches = [m for m in find_injections(text, "result") if m.pattern != "html-comment"]
    _chars, smuggled = find_hidden_characters(text)
    if smuggled:
        matches.extend(find_injections(smuggled, "result (hidden text)"))
    if matches:
        listed = "; ".join(f"{m.what}: {excerpt(m.text, 60)}" for m in matches[:3])
        col.add(
            ids.SAFETY_OUTPUT_INJECTION,
            f"The result of call #{record.shown_number} holds text an agent may follow as instructions "
            f"({listed}). If the tool returns content others wrote, set untrustedContentHint; "
            "otherwise remove the instructions from the result.",
            tool=record.tool,
            frame=frame,
            detail={"call": record.shown_number},
        )
    if out is not None:
        out.extend(col)
    return col.findings
