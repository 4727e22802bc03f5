"""Declarative form checks: the browser's synthesised inputSchema against the form's controls.

`EXTRACT_FORM_JS` describes a `<form>` as plain data (run it with `element.evaluate`, or through
`FORM_FUNCTION_DECLARATION` with the DevTools protocol's `Runtime.callFunctionOn` on the object of a
tool's `backendNodeId`); `check_form` compares that description with the tool's inputSchema.

What Chromium 156 puts in the schema (seen, see design/chromium-webmcp.md): named, enabled,
not read-only controls, except hidden, file, submit, reset, button and image inputs, buttons and
outputs; a name shared by controls other than one radio group or one checkbox group drops them all.
A control's description is its `toolparamdescription`, else its labels' text joined by "; ", else
its `aria-description`; a radio or checkbox group takes the `toolparamdescription` of the
`<fieldset>` around it. Disabled `<option>`s stay in a select's enum; disabled radios do not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from . import ids
from .findings import Collector, Finding, Severity, excerpt

__all__ = [
    "BROWSER_ISSUE_TYPES",
    "EXTRACT_FORMS_JS",
    "EXTRACT_FORM_JS",
    "FORM_CHECKS",
    "FORM_FUNCTION_DECLARATION",
    "FormControl",
    "FormDescription",
    "FormOption",
    "check_browser_form_issues",
    "check_form",
    "schema_controls",
    "with_html_rules",
]

FORM_CHECKS = (
    ids.FORM_PARAMS_DESCRIBED,
    ids.FORM_REQUIRED_IN_SCHEMA,
    ids.FORM_CONTROLS_IN_SCHEMA,
    ids.FORM_OPTIONS_REACHABLE,
    ids.FORM_REQUIRED_CHECKBOX,
    ids.FORM_SUBMIT_BUTTON,
)

_MAX_CONTROLS = 2000
_MAX_TEXT = 1000

# One function of the form element, returning plain JSON data. Bounded: at most _MAX_CONTROLS
# controls and _MAX_TEXT characters per string, so a hostile form cannot flood the checker.
EXTRACT_FORM_JS = """(form) => {
  const MAX_CONTROLS = @MAX_CONTROLS@, MAX_TEXT = @MAX_TEXT@;
  const cut = (s) => (s == null ? null : String(s).slice(0, MAX_TEXT));
  const text = (s) => cut(String(s || "").replace(/\\s+/g, " ").trim());
  const labelText = (label) => {
    const copy = label.cloneNode(true);
    copy.querySelectorAll("input,select,textarea,button,output,datalist,script,style")
      .forEach((e) => e.remove());
    return text(copy.textContent);
  };
  const attr = (el, name) => (el.hasAttribute(name) ? cut(el.getAttribute(name)) : null);
  const kindOf = (el, tag) => {
    if (tag === "input") return el.type || "text";
    if (tag === "button") return el.type || "submit";
    if (tag === "select") return el.multiple ? "select-multiple" : "select-one";
    return tag;
  };
  const controls = [];
  const submitButtons = [];
  const elements = Array.from(form.elements);
  for (const el of elements) {
    const tag = el.tagName.toLowerCase();
    if (tag === "fieldset" || tag === "object") continue;
    const type = kindOf(el, tag);
    const disabled = el.matches(":disabled");
    if ((tag === "button" && type === "submit") ||
        (tag === "input" && (type === "submit" || type === "image"))) {
      submitButtons.push({ tag, type, text: text(el.value || el.textContent), disabled });
    }
    if (controls.length >= MAX_CONTROLS) continue;
    const fieldset = el.parentElement ? el.parentElement.closest("fieldset") : null;
    let options = null;
    if (tag === "select") {
      options = Array.from(el.options).slice(0, MAX_CONTROLS).map((o) => ({
        value: cut(o.value),
        label: text(o.label || o.textContent),
        disabled: o.disabled ||
          (o.parentElement && o.parentElement.tagName === "OPTGROUP" && o.parentElement.disabled) ||
          false,
      }));
    }
    const labels = el.labels ? Array.from(el.labels).map(labelText).filter(Boolean) : [];
    controls.push({
      tag,
      type,
      name: cut(el.getAttribute("name") || ""),
      id: cut(el.id || ""),
      required: !!el.required,
      disabled,
      readonly: (tag === "input" || tag === "textarea") && !!el.readOnly,
      hidden: type === "hidden",
      visible: typeof el.checkVisibility === "function" ? el.checkVisibility() : true,
      toolparamdescription: attr(el, "toolparamdescription"),
      ariaDescription: attr(el, "aria-description"),
      fieldsetDescription: fieldset ? attr(fieldset, "toolparamdescription") : null,
      labels,
      label: labels.join("; "),
      value: tag === "input" && (type === "radio" || type === "checkbox") ? cut(el.value) : null,
      multiple: !!el.multiple,
      options,
      rules: Object.fromEntries(["minlength", "maxlength", "min", "max", "pattern"]
        .filter((a) => el.hasAttribute(a)).map((a) => [a, cut(el.getAttribute(a))])),
    });
  }
  return {
    toolname: attr(form, "toolname"),
    tooldescription: attr(form, "tooldescription"),
    autosubmit: form.hasAttribute("toolautosubmit"),
    id: cut(form.id || ""),
    action: cut(form.getAttribute("action") || ""),
    method: cut((form.method || "get").toLowerCase()),
    controls,
    controlCount: elements.length,
    truncated: elements.length > MAX_CONTROLS,
    submitButtons,
  };
}""".replace("@MAX_CONTROLS@", str(_MAX_CONTROLS)).replace("@MAX_TEXT@", str(_MAX_TEXT))

# Every form with a toolname in the document: `page.evaluate(EXTRACT_FORMS_JS)` (or a frame's).
EXTRACT_FORMS_JS = (
    "() => Array.from(document.querySelectorAll('form[toolname]')).slice(0, 1000)"
    f".map({EXTRACT_FORM_JS})"
)

# For Runtime.callFunctionOn with the form as `this` (the DevTools protocol's way).
FORM_FUNCTION_DECLARATION = f"function() {{ return ({EXTRACT_FORM_JS})(this); }}"


class FormOption(TypedDict):
    value: str
    label: str
    disabled: bool


class FormControl(TypedDict, total=False):
    """One control of a form, as EXTRACT_FORM_JS describes it (only name and type are needed)."""

    tag: str
    type: str
    name: str
    id: str
    required: bool
    disabled: bool
    readonly: bool
    hidden: bool
    visible: bool
    toolparamdescription: str | None
    ariaDescription: str | None
    fieldsetDescription: str | None
    labels: list[str]
    label: str
    value: str | None
    multiple: bool
    options: list[FormOption] | None
    rules: dict[str, str]  # the HTML constraint attributes it has: minlength, max, pattern...


class FormDescription(TypedDict, total=False):
    """A declarative form, as EXTRACT_FORM_JS describes it."""

    toolname: str | None
    tooldescription: str | None
    autosubmit: bool
    id: str
    action: str
    method: str
    controls: list[FormControl]
    controlCount: int
    truncated: bool
    submitButtons: list[dict[str, Any]]


_NOT_PARAMETERS = frozenset({"hidden", "file", "submit", "reset", "button", "image"})
_NOT_PARAMETER_TAGS = frozenset({"button", "output", "fieldset", "object"})


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _kind(control: Mapping[str, Any]) -> str:
    return _text(control.get("type")).lower() or "text"


def _why_not_parameter(control: Mapping[str, Any]) -> str | None:
    """Why the browser leaves a control out of the schema, or None if it should be in."""
    if not _text(control.get("name")):
        return "it has no name"
    if control.get("tag") in _NOT_PARAMETER_TAGS:
        return f"a <{control.get('tag')}> is not a parameter"
    if _kind(control) in _NOT_PARAMETERS or control.get("hidden"):
        return f"type={_kind(control)} is not a parameter"
    if control.get("disabled"):
        return "it is disabled"
    if control.get("readonly"):
        return "it is read-only"
    return None


@dataclass
class _Param:
    """The controls behind one schema property: one control, or a radio/checkbox group."""

    name: str
    controls: list[Mapping[str, Any]] = field(default_factory=list)

    @property
    def kind(self) -> str:
        kinds = {_kind(c) for c in self.controls}
        if kinds == {"radio"}:
            return "radio"
        if kinds == {"checkbox"} and len(self.controls) > 1:
            return "checkbox-group"
        if len(self.controls) == 1:
            return _kind(self.controls[0])
        return "clash"

    @property
    def required(self) -> bool:
        return any(bool(c.get("required")) for c in self.controls)


def schema_controls(controls: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """The controls the browser should turn into schema properties, by name."""
    params: dict[str, list[Mapping[str, Any]]] = {}
    for control in controls:
        if _why_not_parameter(control) is None:
            params.setdefault(_text(control.get("name")), []).append(control)
    return params


def _described(param: _Param, prop: Any) -> bool:
    if isinstance(prop, dict) and _text(prop.get("description")):
        return True
    if param.kind in ("radio", "checkbox-group"):
        return any(_text(c.get("fieldsetDescription")) for c in param.controls)
    control = param.controls[0]
    labels = control.get("labels")
    has_label = bool(_text(control.get("label"))) or (
        isinstance(labels, list) and any(_text(x) for x in labels)
    )
    return bool(
        _text(control.get("toolparamdescription"))
        or has_label
        or _text(control.get("ariaDescription"))
    )


def _options(param: _Param) -> list[tuple[str, bool]] | None:
    """(value, disabled) of every choice the control offers a person, or None if not a choice."""
    if param.kind in ("radio", "checkbox-group"):
        return [(_text(c.get("value")) or "on", bool(c.get("disabled"))) for c in param.controls]
    options = param.controls[0].get("options")
    if param.kind.startswith("select") and isinstance(options, list):
        return [
            (str(o.get("value", "")), bool(o.get("disabled")))
            for o in options
            if isinstance(o, Mapping)
        ]
    return None


def _offered(prop: Any) -> list[Any] | None:
    """The values a schema property offers (enum, or anyOf consts; array items too)."""
    if not isinstance(prop, dict):
        return None
    if prop.get("type") == "array" and isinstance(prop.get("items"), dict):
        prop = prop["items"]
    if isinstance(prop.get("enum"), list):
        return list(prop["enum"])
    any_of = prop.get("anyOf")
    if isinstance(any_of, list) and all(isinstance(x, dict) and "const" in x for x in any_of):
        return [x["const"] for x in any_of]
    return None


def _shown(values: Sequence[Any]) -> str:
    shown = ", ".join(excerpt(str(v), 30) for v in values[:8])
    return shown + (f" and {len(values) - 8} more" if len(values) > 8 else "")


def check_form(
    form: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    schema: Mapping[str, Any] | None,
    *,
    page: str,
    tool: str | None = None,
    frame: str | None = None,
    out: Collector | None = None,
) -> list[Finding]:
    """Compare a declarative form's controls (EXTRACT_FORM_JS's data) with its inputSchema.

    form may also be just the list of controls; the submit-button check then does not run
    (it needs the form's toolautosubmit and submit buttons).
    """
    if not isinstance(form, Mapping):
        form = {"controls": list(form)}
    col = Collector(page)
    name = tool if tool is not None else (_text(form.get("toolname")) or None)
    knows_submit = "autosubmit" in form or "submitButtons" in form
    col.ran_all(
        [c for c in FORM_CHECKS if knows_submit or c != ids.FORM_SUBMIT_BUTTON], name, frame
    )

    def add(check_id: str, message: str, **kw: Any) -> None:
        col.add(check_id, message, tool=name, frame=frame, **kw)

    raw_controls = form.get("controls")
    controls: list[Mapping[str, Any]] = [
        c
        for c in (raw_controls if isinstance(raw_controls, list) else [])
        if isinstance(c, Mapping)
    ]
    schema = schema if isinstance(schema, Mapping) else {}
    raw_props = schema.get("properties")
    props: Mapping[str, Any] = raw_props if isinstance(raw_props, Mapping) else {}
    raw_required = schema.get("required")
    required = (
        {r for r in raw_required if isinstance(r, str)} if isinstance(raw_required, list) else set()
    )

    params = {n: _Param(n, cs) for n, cs in schema_controls(controls).items()}

    # Controls that should be properties, and properties without a control.
    missing: list[str] = []
    for pname, param in params.items():
        if pname in props:
            continue
        if param.kind == "clash":
            kinds = ", ".join(sorted({_kind(c) for c in param.controls}))
            missing.append(
                f"{excerpt(pname, 40)} ({len(param.controls)} controls share the name: {kinds}; "
                "the browser drops them all)"
            )
        else:
            missing.append(excerpt(pname, 40))
    if missing:
        add(
            ids.FORM_CONTROLS_IN_SCHEMA,
            f"Controls an agent cannot fill (not in the schema): {'; '.join(missing[:8])}. Give "
            "each control its own name (a radio or checkbox group may share one).",
            detail={"controls": missing[:100]},
        )
    orphans = [p for p in props if p not in params]
    if orphans:
        add(
            ids.FORM_CONTROLS_IN_SCHEMA,
            f"Schema properties with no enabled, named control in the form: {_shown(orphans)}. "
            "An agent would fill in values the form cannot take.",
            detail={"properties": orphans[:100]},
        )

    # Required controls must be required in the schema, and only those.
    not_required = [
        p for p, param in params.items() if param.required and p in props and p not in required
    ]
    if not_required:
        add(
            ids.FORM_REQUIRED_IN_SCHEMA,
            f"Required controls that the schema does not mark required: {_shown(not_required)}. "
            "An agent may leave them out, and the browser will then refuse the form.",
            detail={"controls": not_required[:100]},
        )
    over_required = [p for p in required if p in params and not params[p].required and p in props]
    if over_required:
        add(
            ids.FORM_REQUIRED_IN_SCHEMA,
            f"The schema requires {_shown(sorted(over_required))}, but the form does not. Make "
            "the controls required, or the schema optional, so the two agree.",
            severity=Severity.WARNING,
            detail={"controls": sorted(over_required)[:100]},
        )

    # Every parameter described.
    undescribed = [p for p, param in params.items() if not _described(param, props.get(p))]
    if undescribed:
        groups = [p for p in undescribed if params[p].kind in ("radio", "checkbox-group")]
        hint = (
            " For a radio or checkbox group, put toolparamdescription on the <fieldset> around it."
            if groups
            else ""
        )
        add(
            ids.FORM_PARAMS_DESCRIBED,
            f"Controls without toolparamdescription or a label: {_shown(undescribed)}. Add "
            f"toolparamdescription (or a <label>) saying what to enter.{hint}",
            detail={"controls": undescribed[:100]},
        )

    # Options: what the schema offers against what a person could pick.
    problems: list[str] = []
    for pname, param in params.items():
        choices = _options(param)
        if choices is None:
            continue
        offered = _offered(props.get(pname))
        enabled = [v for v, disabled in choices if not disabled]
        disabled_values = {v for v, disabled in choices if disabled}
        if not enabled:
            problems.append(f"{excerpt(pname, 40)} has no option that can be chosen")
            continue
        if offered is None:
            continue
        dead = [v for v in offered if v in disabled_values and v not in enabled]
        if dead:
            problems.append(f"{excerpt(pname, 40)} offers disabled option(s) {_shown(dead)}")
        unknown = [v for v in offered if v not in enabled and v not in disabled_values]
        if unknown:
            problems.append(f"{excerpt(pname, 40)} offers {_shown(unknown)}, not an option")
        hidden = [v for v in enabled if v not in offered]
        if hidden:
            problems.append(f"{excerpt(pname, 40)} leaves out option(s) {_shown(hidden)}")
        if param.required and param.kind == "select-one" and "" in offered:
            problems.append(
                f"{excerpt(pname, 40)} offers the empty placeholder, which a required select refuses"
            )
    if problems:
        add(
            ids.FORM_OPTIONS_REACHABLE,
            f"Choices an agent cannot make, or may make wrongly: {'; '.join(problems[:8])}. Offer "
            "exactly the options a person could pick (remove or enable disabled ones; give a "
            "required select's placeholder the disabled attribute).",
            detail={"problems": problems[:100]},
        )

    # A required single checkbox must be ticked: the schema's boolean lets an agent send false.
    must_tick = [
        p
        for p, param in params.items()
        if param.kind == "checkbox" and param.required and p in props
    ]
    if must_tick:
        add(
            ids.FORM_REQUIRED_CHECKBOX,
            f"Required checkbox(es) {_shown(must_tick)}: the schema lets an agent send false, "
            "which the browser refuses. Say in toolparamdescription that it must be true, or "
            "drop required if the form works without it.",
        )

    # Without toolautosubmit, a person submits: there must be a button to do it with.
    if knows_submit and not form.get("autosubmit"):
        buttons = form.get("submitButtons")
        listed = [b for b in buttons if isinstance(b, Mapping)] if isinstance(buttons, list) else []
        if not listed:
            add(
                ids.FORM_SUBMIT_BUTTON,
                "The form has no toolautosubmit and no submit button, so a call can never "
                "finish (Chromium fails it). Add a <button type=submit>, or toolautosubmit if "
                "the form may submit without a person checking it.",
            )
        elif all(b.get("disabled") for b in listed):
            add(
                ids.FORM_SUBMIT_BUTTON,
                "The form's only submit button is disabled, so the person cannot confirm an "
                "agent's call. Enable it once the form is filled.",
                severity=Severity.WARNING,
            )
    if out is not None:
        out.extend(col)
    return col.findings


# Chromium's own lint of declarative forms (DevTools `Audits.issueAdded`, GenericIssue errorType;
# measured on Chromium 156). ParameterMissingTitleAndDescription is left out: form.params-described
# reports the same thing, with the schema beside it.
_BROWSER_ISSUES: dict[str, tuple[Severity, str]] = {
    "FormModelContextMissingToolName": (
        Severity.ERROR,
        "has tooldescription but no toolname, so the browser makes no tool of it. Add toolname.",
    ),
    "FormModelContextMissingToolDescription": (
        Severity.ERROR,
        "has toolname but no tooldescription, so the browser makes no tool of it. Add a "
        "tooldescription that says what the form does.",
    ),
    "FormModelContextRequiredParameterMissingName": (
        Severity.ERROR,
        "is required but has no name, so it is not in the tool's schema and an agent can never "
        "fill it: the form cannot be submitted. Give it a name.",
    ),
    "FormModelContextParameterMissingName": (
        Severity.WARNING,
        "has no name, so it is not in the tool's schema and an agent cannot fill it. Give it a "
        "name (or remove it).",
    ),
}
BROWSER_ISSUE_TYPES = frozenset(_BROWSER_ISSUES)


def _node_label(node: dict[str, Any]) -> tuple[str, str | None]:
    """A form or control as a person finds it in the source, and the form's toolname if any."""
    tag = str(node.get("nodeName") or "element").lower()[:20]
    raw = node.get("attributes")
    attributes = raw if isinstance(raw, list) else []
    pairs = dict(zip(attributes[0::2], attributes[1::2], strict=False))
    shown = [
        f'{key}="{excerpt(str(pairs[key]), 40)[1:-1]}"'
        for key in ("id", "toolname", "tooldescription", "type", "toolparamdescription")
        if key in pairs
    ][:2]
    toolname = pairs.get("toolname")
    return f"<{tag}{''.join(' ' + s for s in shown)}>", toolname if isinstance(
        toolname, str
    ) else None


def check_browser_form_issues(
    issues: list[dict[str, Any]], *, page: str, out: Collector | None = None
) -> list[Finding]:
    """Findings from Chromium's form issues: each {"errorType", "node": DOM.describeNode's node}."""
    col = Collector(page)
    col.ran(ids.FORM_BROWSER_ISSUES)
    seen: set[tuple[str, str]] = set()
    for issue in issues[:200]:
        kind = issue.get("errorType")
        if kind not in _BROWSER_ISSUES:
            continue
        node = issue.get("node") if isinstance(issue.get("node"), dict) else {}
        label, toolname = _node_label(node or {})
        if (kind, label) in seen:
            continue
        seen.add((kind, label))
        severity, fix = _BROWSER_ISSUES[kind]
        what = "The form" if label.startswith("<form") else "The control"
        col.add(
            ids.FORM_BROWSER_ISSUES,
            f"{what} {label} {fix} (Chromium reports {kind}.)",
            tool=toolname,
            severity=severity,
            detail={"errorType": kind},
        )
    if out is not None:
        out.extend(col)
    return col.findings


# What Chromium 156's synthesised schema leaves out of a control's HTML rules (measured: it keeps
# `required`, `pattern` verbatim, numbers' min/max/step and date's `format`). It enforces them
# on a call, except the lengths: HTML checks those only on what a person typed.
_TYPE_FORMATS = {"email": "email", "url": "uri"}
_LENGTHS = {"minlength": "minLength", "maxlength": "maxLength"}
_DATES = frozenset({"date", "time", "datetime-local", "month", "week"})


def with_html_rules(schema: Any, form: Mapping[str, Any] | None) -> Any:
    """schema with the rules of form's controls that the browser's synthesised schema leaves
    out (an email or URL's format, text lengths, a date's min and max, a pattern anchored as
    HTML anchors it): what a value must also meet for the browser's form validation to take it,
    and the lengths, which the browser does not check on a call but the page's own handler may.
    For making valid input only; schema itself is not changed."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict) or not form:
        return schema
    props = dict(schema["properties"])
    for control in form.get("controls") or []:
        name, sub = control.get("name"), props.get(control.get("name") or "")
        if not isinstance(sub, dict) or sub.get("type") != "string":
            continue
        sub = dict(sub)
        rules = control.get("rules") or {}
        kind = str(control.get("type") or "")
        if kind in _TYPE_FORMATS and "format" not in sub:
            sub["format"] = _TYPE_FORMATS[kind]
        for attr, keyword in _LENGTHS.items():
            if str(rules.get(attr, "")).isdigit() and keyword not in sub:
                sub[keyword] = int(rules[attr])
        pattern = rules.get("pattern")
        if isinstance(pattern, str) and sub.get("pattern") == pattern:
            sub["pattern"] = f"^(?:{pattern})$"
        bound = rules.get("min") or rules.get("max")
        if bound and "enum" not in sub and kind in _DATES:
            sub["enum"] = [bound]  # the bound itself is allowed
        props[str(name)] = sub
    return {**schema, "properties": props}
