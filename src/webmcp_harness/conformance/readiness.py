"""Agent readiness: what an agent that reads and clicks the page meets, beside its tools. The
counterparts of Lighthouse's agentic-browsing audits (`findings.Check.lighthouse`): forms that
are not tools, the accessibility tree (axe-core's rules on names, labels and ARIA), the site's
llms.txt, and layout shifts. Pure rules over what `PageVisit.readiness` saw; no browser here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import ids
from .findings import Collector, excerpt

__all__ = [
    "AGENT_RULES",
    "READINESS_CHECKS",
    "LlmsTxt",
    "Readiness",
    "axe_violations",
    "check_readiness",
]

READINESS_CHECKS = (
    ids.READINESS_FORM_COVERAGE,
    ids.READINESS_ACCESSIBILITY_TREE,
    ids.READINESS_LLMS_TXT,
    ids.READINESS_LAYOUT_SHIFT,
)

AGENT_RULES = (
    "button-name", "input-button-name", "input-image-alt", "label", "link-name", "select-name",
    "document-title", "aria-allowed-attr", "aria-allowed-role", "aria-command-name",
    "aria-conditional-attr", "aria-dialog-name", "aria-hidden-body", "aria-hidden-focus",
    "aria-input-field-name", "aria-prohibited-attr", "aria-required-attr",
    "aria-required-children", "aria-required-parent", "aria-roles", "aria-text",
    "aria-toggle-field-name", "aria-tooltip-name", "aria-treeitem-name", "aria-valid-attr",
    "aria-valid-attr-value", "duplicate-id-aria", "definition-list", "table-duplicate-name",
    "tabindex", "autocomplete-valid", "presentation-role-conflict", "svg-img-alt",
)  # fmt: skip
"""The axe-core rules on what agents read (the set Lighthouse's agent-accessibility-tree runs)."""

CLS_LIMIT = 0.1  # "good" cumulative layout shift (Core Web Vitals)
_SHOWN = 3  # forms, elements or problems named in one message


@dataclass(frozen=True)
class LlmsTxt:
    """The answer to GET /llms.txt: its status (0: no answer) and text (cut short)."""

    status: int
    text: str = ""


@dataclass(frozen=True)
class Readiness:
    """What a look at the loaded page saw for the readiness checks (page strings: hostile)."""

    bare_forms: tuple[str, ...] = ()  # forms with neither toolname nor tooldescription
    layout_shift: float | None = None  # cumulative layout shift (None: not measured)
    violations: tuple[dict[str, Any], ...] = ()  # axe-core's, of AGENT_RULES (None: not run)
    axe_ran: bool = False
    llms: LlmsTxt | None = None  # None: not asked (a crawled page; the seed's answer stands)
    skipped: dict[str, str] = field(default_factory=dict)  # check id -> why it did not run


def axe_violations(response: Any) -> tuple[dict[str, Any], ...]:
    """The violations in axe-core's answer (run in the page: hostile data), each as
    {id, help, targets}, cut short."""
    raw = response.get("violations") if isinstance(response, dict) else None
    out = []
    for item in raw[:50] if isinstance(raw, list) else ():
        if not isinstance(item, dict):
            continue
        nodes = item.get("nodes")
        targets = [
            " ".join(map(str, n.get("target") or ()))[:200]
            for n in (nodes[:5] if isinstance(nodes, list) else ())
            if isinstance(n, dict) and isinstance(n.get("target"), list)
        ]
        out.append(
            {
                "id": str(item.get("id"))[:100],
                "help": str(item.get("help") or "")[:500],
                "targets": targets,
            }
        )
    return tuple(out)


def check_readiness(seen: Readiness, *, page: str, out: Collector) -> None:
    """The readiness findings of one page."""
    for check_id in READINESS_CHECKS:
        if check_id in seen.skipped:
            out.skip(check_id, seen.skipped[check_id])
        else:
            out.ran(check_id)
    if seen.bare_forms:
        shown = ", ".join(excerpt(f, 60) for f in seen.bare_forms[:_SHOWN])
        more = len(seen.bare_forms) - _SHOWN
        out.add(
            ids.READINESS_FORM_COVERAGE,
            f"{len(seen.bare_forms)} form(s) are not WebMCP tools: {shown}"
            + (f" and {more} more" if more > 0 else "")
            + ". Agents must fill them by clicking; give each a toolname and a tooldescription "
            "to make it a tool.",
            detail={"forms": list(seen.bare_forms[:20])},
        )
    for violation in seen.violations:
        rule = str(violation.get("id") or "")
        help_text = str(violation.get("help") or "")
        targets = [str(t) for t in violation.get("targets") or ()][:_SHOWN]
        where = ", ".join(excerpt(t, 60) for t in targets)
        out.add(
            ids.READINESS_ACCESSIBILITY_TREE,
            f"axe-core rule {excerpt(rule, 40)}: {excerpt(help_text, 120)}"
            + (f" ({where})" if where else "")
            + ". Agents read the accessibility tree to find what to click or fill: give each "
            "control a name and a label, and use ARIA as the spec allows.",
            detail={"rule": rule[:100], "targets": targets},
        )
    if seen.llms is not None:
        problem = llms_problem(seen.llms)
        if problem:
            out.add(ids.READINESS_LLMS_TXT, problem)
    if seen.layout_shift is not None and seen.layout_shift > CLS_LIMIT:
        out.add(
            ids.READINESS_LAYOUT_SHIFT,
            f"The page's layout shifted by {seen.layout_shift:.3f} while loading (cumulative "
            f"layout shift; good is at most {CLS_LIMIT:g}). An agent that clicks where a control "
            "was hits another: give images, ads and late content their space before they load.",
            detail={"cls": round(seen.layout_shift, 4)},
        )


def llms_problem(llms: LlmsTxt) -> str | None:
    """What is wrong with the site's llms.txt; None when it is fine or there is none (4xx)."""
    if llms.status == 0:
        return None  # no answer at all: not the site's llms.txt to judge
    if llms.status >= 500:
        return f"/llms.txt answered HTTP {llms.status}. Serve it, or answer 404 if there is none."
    if llms.status >= 400:
        return None  # none: fine (Lighthouse: not applicable)
    text = llms.text
    missing = []
    if not re.search(r"^#\s+.+", text, re.MULTILINE):
        missing.append('an H1 title ("# Site name")')
    if not re.search(r"\[.+\]\(.+\)", text):
        missing.append("links ([title](url))")
    if len(text) < 50:
        missing.append("more than a line of text")
    if not missing:
        return None
    return (
        "/llms.txt is there but lacks "
        + ", ".join(missing)
        + ". It should be Markdown: a title, a summary, and links to the pages agents need "
        "(https://llmstxt.org/)."
    )
