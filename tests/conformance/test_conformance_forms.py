"""Declarative form checks: the form's controls against the schema Chromium synthesises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page

from webmcp_harness.conformance.findings import Severity
from webmcp_harness.conformance.forms import (
    EXTRACT_FORM_JS,
    EXTRACT_FORMS_JS,
    FORM_CHECKS,
    check_form,
    schema_controls,
)

PAGE = "http://127.0.0.1:1/form"

GET_TOOLS = """async () => (await document.modelContext.getTools())
  .map(t => ({name: t.name, inputSchema: typeof t.inputSchema === "string"
    ? JSON.parse(t.inputSchema) : t.inputSchema}))"""


def control(name: str, type_: str = "text", **kw: Any) -> dict[str, Any]:
    tag = kw.pop("tag", "select" if type_.startswith("select") else "input")
    return {"tag": tag, "type": type_, "name": name, "labels": [], "label": "", **kw}


def form(*controls: dict[str, Any], autosubmit: bool = True, buttons: int = 1) -> dict[str, Any]:
    return {
        "toolname": "book",
        "autosubmit": autosubmit,
        "controls": list(controls),
        "submitButtons": [{"tag": "button", "type": "submit", "disabled": False}] * buttons,
    }


def ids(findings: list[Any]) -> list[str]:
    return sorted(f.check for f in findings)


# --- pure checks ---------------------------------------------------------------------------------


def test_a_described_form_whose_schema_matches_has_no_findings() -> None:
    described = form(
        control("q", required=True, toolparamdescription="Words to look for"),
        control("n", "number", labels=["How many"], label="How many"),
    )
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "number"}},
        "required": ["q"],
    }
    assert check_form(described, schema, page=PAGE) == []


def test_a_control_without_description_or_label_is_flagged() -> None:
    found = check_form(
        form(control("q"), control("r", ariaDescription="ok")),
        {"type": "object", "properties": {"q": {"type": "string"}, "r": {"type": "string"}}},
        page=PAGE,
    )
    assert ids(found) == ["form.params-described"]
    assert "“q”" in found[0].message
    assert "“r”" not in found[0].message
    assert found[0].tool == "book"
    assert found[0].severity is Severity.WARNING


def test_a_schema_description_counts_as_described() -> None:
    found = check_form(
        form(control("q")),
        {"type": "object", "properties": {"q": {"type": "string", "description": "Words"}}},
        page=PAGE,
    )
    assert found == []


def test_a_radio_group_is_described_by_its_fieldset() -> None:
    radios = [control("size", "radio", value=v, labels=[v], label=v) for v in ("s", "m")]
    schema = {"type": "object", "properties": {"size": {"type": "string", "enum": ["s", "m"]}}}
    found = check_form(form(*radios), schema, page=PAGE)
    assert ids(found) == ["form.params-described"]
    assert "<fieldset>" in found[0].message
    described = [{**r, "fieldsetDescription": "Shirt size"} for r in radios]
    assert check_form(form(*described), schema, page=PAGE) == []


def test_a_required_control_missing_from_schema_required_is_an_error() -> None:
    found = check_form(
        form(control("q", required=True, toolparamdescription="Words")),
        {"type": "object", "properties": {"q": {"type": "string"}}, "required": []},
        page=PAGE,
    )
    assert ids(found) == ["form.required-in-schema"]
    assert found[0].severity is Severity.ERROR


def test_a_schema_requiring_an_optional_control_is_a_warning() -> None:
    found = check_form(
        form(control("q", toolparamdescription="Words")),
        {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        page=PAGE,
    )
    assert ids(found) == ["form.required-in-schema"]
    assert found[0].severity is Severity.WARNING


def test_controls_missing_from_the_schema_and_properties_without_controls_are_flagged() -> None:
    found = check_form(
        form(
            control("q", toolparamdescription="Words"),
            control("ghost_control", toolparamdescription="Not in schema"),
        ),
        {
            "type": "object",
            "properties": {"q": {"type": "string"}, "phantom": {"type": "string"}},
        },
        page=PAGE,
    )
    assert ids(found) == ["form.controls-in-schema", "form.controls-in-schema"]
    text = " ".join(f.message for f in found)
    assert "ghost_control" in text
    assert "phantom" in text


def test_controls_the_browser_leaves_out_on_purpose_are_not_flagged() -> None:
    found = check_form(
        form(
            control("token", "hidden"),
            control("upload", "file"),
            control("go", "submit"),
            control("old", disabled=True),
            control("fixed", readonly=True),
            control("", toolparamdescription="nameless"),
            control("out", "output", tag="output"),
        ),
        {"type": "object", "properties": {}},
        page=PAGE,
    )
    assert found == []


def test_controls_sharing_a_name_are_reported_as_dropped() -> None:
    found = check_form(
        form(
            control("note", toolparamdescription="a"),
            control("note", toolparamdescription="b"),
        ),
        {"type": "object", "properties": {}},
        page=PAGE,
    )
    assert ids(found) == ["form.controls-in-schema"]
    assert "share the name" in found[0].message


def test_disabled_options_and_unknown_values_and_missing_options_are_unreachable() -> None:
    options = [
        {"value": "a", "label": "A", "disabled": False},
        {"value": "b", "label": "B", "disabled": True},
        {"value": "c", "label": "C", "disabled": False},
    ]
    select = control("pick", "select-one", options=options, toolparamdescription="Pick one")
    found = check_form(
        form(select),
        {"type": "object", "properties": {"pick": {"type": "string", "enum": ["a", "b", "z"]}}},
        page=PAGE,
    )
    assert ids(found) == ["form.options-reachable"]
    message = found[0].message
    assert "disabled option(s) “b”" in message
    assert "offers “z”, not an option" in message
    assert "leaves out option(s) “c”" in message


def test_a_required_select_offering_its_empty_placeholder_is_flagged() -> None:
    options = [
        {"value": "", "label": "Choose", "disabled": False},
        {"value": "a", "label": "A", "disabled": False},
    ]
    select = control("pick", "select-one", options=options, required=True, labels=["Pick"])
    schema = {
        "type": "object",
        "properties": {"pick": {"type": "string", "enum": ["", "a"]}},
        "required": ["pick"],
    }
    found = check_form(form(select), schema, page=PAGE)
    assert ids(found) == ["form.options-reachable"]
    assert "placeholder" in found[0].message


def test_options_are_read_from_any_of_consts_and_array_items() -> None:
    boxes = [
        control("tags", "checkbox", value="x", fieldsetDescription="Tags"),
        control("tags", "checkbox", value="y", fieldsetDescription="Tags", disabled=False),
    ]
    schema = {
        "type": "object",
        "properties": {
            "tags": {
                "type": "array",
                "items": {"anyOf": [{"const": "x"}, {"const": "y"}]},
                "uniqueItems": True,
            }
        },
    }
    assert check_form(form(*boxes), schema, page=PAGE) == []


def test_a_choice_with_no_enabled_option_is_flagged() -> None:
    options = [{"value": "a", "label": "A", "disabled": True}]
    select = control("pick", "select-one", options=options, labels=["Pick"])
    found = check_form(
        form(select),
        {"type": "object", "properties": {"pick": {"type": "string", "enum": ["a"]}}},
        page=PAGE,
    )
    assert ids(found) == ["form.options-reachable"]
    assert "no option that can be chosen" in found[0].message


def test_a_required_single_checkbox_is_flagged() -> None:
    found = check_form(
        form(control("terms", "checkbox", required=True, labels=["I agree"])),
        {"type": "object", "properties": {"terms": {"type": "boolean"}}, "required": ["terms"]},
        page=PAGE,
    )
    assert ids(found) == ["form.required-checkbox"]


def test_a_form_without_autosubmit_needs_a_submit_button() -> None:
    schema = {"type": "object", "properties": {}}
    assert ids(check_form(form(autosubmit=False, buttons=0), schema, page=PAGE)) == [
        "form.submit-button"
    ]
    assert check_form(form(autosubmit=True, buttons=0), schema, page=PAGE) == []
    assert check_form(form(autosubmit=False, buttons=1), schema, page=PAGE) == []
    disabled = form(autosubmit=False, buttons=0)
    disabled["submitButtons"] = [{"tag": "button", "type": "submit", "disabled": True}]
    found = check_form(disabled, schema, page=PAGE)
    assert ids(found) == ["form.submit-button"]
    assert found[0].severity is Severity.WARNING


def test_broken_input_is_tolerated() -> None:
    odd: dict[str, Any] = {"controls": "nope", "autosubmit": True}
    assert check_form(odd, None, page=PAGE, tool="t") == []
    odd = {"controls": [1, None, {"name": 3}], "submitButtons": "x", "autosubmit": True}
    assert check_form(odd, {"properties": []}, page=PAGE) == []
    assert ids(check_form({"autosubmit": False}, {}, page=PAGE)) == ["form.submit-button"]


def test_a_bare_list_of_controls_is_checked_without_the_submit_button_check() -> None:
    from webmcp_harness.conformance.findings import Collector

    out = Collector(PAGE)
    found = check_form([control("q")], {"properties": {"q": {}}}, page=PAGE, tool="t", out=out)
    assert ids(found) == ["form.params-described"]
    assert "form.submit-button" not in {t.check for t in out.targets}
    assert check_form({}, {}, page=PAGE) == []


def test_the_collector_records_every_form_check_as_run() -> None:
    from webmcp_harness.conformance.findings import Collector

    out = Collector(PAGE)
    check_form(form(control("q", labels=["Q"])), {"properties": {"q": {}}}, page=PAGE, out=out)
    assert sorted(t.check for t in out.targets) == sorted(FORM_CHECKS)
    assert {t.tool for t in out.targets} == {"book"}


def test_schema_controls_groups_radios_and_skips_non_parameters() -> None:
    grouped = schema_controls(
        [control("a", "radio", value="1"), control("a", "radio", value="2"), control("b", "reset")]
    )
    assert list(grouped) == ["a"]
    assert len(grouped["a"]) == 2


# --- in Chromium ---------------------------------------------------------------------------------

DEFECTIVE = """<!doctype html><meta charset="utf-8"><title>forms</title>
<form id="bad" toolname="book_table" tooldescription="Book a table at the restaurant">
  <input name="guest" required>
  <label for="p">Party size</label><input id="p" name="party" type="number" min="1" max="12" required>
  <select name="time" required toolparamdescription="Time slot">
    <option value="">Choose</option>
    <option value="18:00">6 pm</option>
    <option value="19:00" disabled>7 pm</option>
  </select>
  <input name="note" toolparamdescription="first"><input name="note" toolparamdescription="second">
  <input type="checkbox" name="terms" required toolparamdescription="Accept the terms">
  <input type="hidden" name="token" value="abc">
</form>
<form id="good" toolname="search_menu" tooldescription="Search the menu for dishes" toolautosubmit>
  <label>Dish <input name="q" required></label>
  <fieldset toolparamdescription="Course"><legend>Course</legend>
    <label><input type="radio" name="course" value="starter"> Starter</label>
    <label><input type="radio" name="course" value="main"> Main</label>
  </fieldset>
  <select name="diet" toolparamdescription="Diet">
    <option value="any">Any</option><option value="vegan">Vegan</option>
  </select>
  <button>Search</button>
</form>
<form id="confirm" toolname="subscribe" tooldescription="Subscribe to the newsletter by email">
  <input name="email" type="email" required toolparamdescription="Your email address">
  <button type="submit">Subscribe</button>
</form>
"""


def _schemas(tab: Page) -> dict[str, Any]:
    tab.wait_for_function("document.modelContext !== undefined")
    tab.wait_for_function(
        "async () => (await document.modelContext.getTools()).length === 3", polling=50
    )
    return {t["name"]: t["inputSchema"] for t in tab.evaluate(GET_TOOLS)}


def test_the_extractor_describes_a_form_as_chromium_sees_it(
    tab: Page, serve: Callable[[str, str], str]
) -> None:
    tab.goto(serve("forms.html", DEFECTIVE))
    described = tab.locator("#bad").evaluate(EXTRACT_FORM_JS)
    assert described["toolname"] == "book_table"
    assert described["autosubmit"] is False
    assert described["submitButtons"] == []
    by_name = {c["name"]: c for c in described["controls"]}
    assert by_name["guest"]["required"] is True
    assert by_name["guest"]["labels"] == []
    assert by_name["party"]["labels"] == ["Party size"]
    assert by_name["time"]["toolparamdescription"] == "Time slot"
    assert by_name["time"]["options"][2] == {"value": "19:00", "label": "7 pm", "disabled": True}
    assert by_name["token"]["hidden"] is True
    good = tab.locator("#good").evaluate(EXTRACT_FORM_JS)
    course = [c for c in good["controls"] if c["name"] == "course"]
    assert [c["fieldsetDescription"] for c in course] == ["Course", "Course"]
    assert good["controls"][0]["label"] == "Dish"  # the input's own text is not in its label
    assert [f["toolname"] for f in tab.evaluate(EXTRACT_FORMS_JS)] == [
        "book_table",
        "search_menu",
        "subscribe",
    ]


def test_a_defective_form_gives_exactly_the_expected_findings(
    tab: Page, serve: Callable[[str, str], str]
) -> None:
    tab.goto(serve("forms.html", DEFECTIVE))
    schemas = _schemas(tab)
    found = check_form(
        tab.locator("#bad").evaluate(EXTRACT_FORM_JS), schemas["book_table"], page=tab.url
    )
    assert ids(found) == [
        "form.controls-in-schema",
        "form.options-reachable",
        "form.params-described",
        "form.required-checkbox",
        "form.submit-button",
    ]
    messages = {f.check: f.message for f in found}
    assert "“guest”" in messages["form.params-described"]
    assert "“party”" not in messages["form.params-described"]
    assert "“note”" in messages["form.controls-in-schema"]
    assert "“19:00”" in messages["form.options-reachable"]
    assert "placeholder" in messages["form.options-reachable"]
    assert all(f.tool == "book_table" for f in found)


def test_model_forms_give_no_findings(tab: Page, serve: Callable[[str, str], str]) -> None:
    tab.goto(serve("forms.html", DEFECTIVE))
    schemas = _schemas(tab)
    for form_id, name in (("#good", "search_menu"), ("#confirm", "subscribe")):
        described = tab.locator(form_id).evaluate(EXTRACT_FORM_JS)
        assert check_form(described, schemas[name], page=tab.url) == [], name


def test_a_huge_form_is_described_within_bounds(
    tab: Page, serve: Callable[[str, str], str]
) -> None:
    inputs = f'<input name="f" toolparamdescription="{"x" * 1500}">' + "<input>" * 2050
    tab.goto(serve("huge.html", f'<form toolname="huge" tooldescription="Huge">{inputs}</form>'))
    described = tab.locator("form").evaluate(EXTRACT_FORM_JS)
    assert described["truncated"] is True
    assert len(described["controls"]) == 2000
    assert len(described["controls"][0]["toolparamdescription"]) == 1000


def test_the_browsers_form_issues_are_findings_once_each_without_the_duplicate() -> None:
    from webmcp_harness.conformance.forms import check_browser_form_issues

    form = {"nodeName": "FORM", "attributes": ["toolname", "find_hotels", "action", "/h"]}
    control = {"nodeName": "INPUT", "attributes": ["toolparamdescription", "City", "required", ""]}
    issues = [
        {"errorType": "FormModelContextMissingToolDescription", "node": form},
        {"errorType": "FormModelContextMissingToolDescription", "node": form},  # sent again
        {"errorType": "FormModelContextRequiredParameterMissingName", "node": control},
        {"errorType": "FormModelContextParameterMissingTitleAndDescription", "node": control},
        {"errorType": "SomethingElse", "node": control},
    ]
    found = check_browser_form_issues(issues, page="http://127.0.0.1:1/")
    assert [(f.check, f.tool, f.severity.value) for f in found] == [
        ("form.browser-issues", "find_hotels", "error"),
        ("form.browser-issues", None, "error"),
    ]
    assert '<form toolname="find_hotels">' in found[0].message
    assert "no name" in found[1].message


def test_valid_form_input_also_meets_the_html_rules_the_browser_leaves_out() -> None:
    from webmcp_harness.conformance.forms import with_html_rules
    from webmcp_harness.conformance.inputs import valid_input

    schema = {
        "type": "object",
        "properties": {
            "email": {"type": "string"},
            "note": {"type": "string"},
            "day": {"type": "string", "format": "date"},
            "code": {"type": "string", "pattern": "[0-9]{3}"},
        },
        "required": ["email", "note", "day", "code"],
    }
    form = {
        "controls": [
            {"tag": "input", "type": "email", "name": "email", "rules": {}},
            {"tag": "textarea", "type": "textarea", "name": "note", "rules": {"minlength": "12"}},
            {"tag": "input", "type": "date", "name": "day", "rules": {"min": "2030-01-01"}},
            {"tag": "input", "type": "text", "name": "code", "rules": {"pattern": "[0-9]{3}"}},
        ]
    }
    made = valid_input(with_html_rules(schema, form))
    assert made is not None
    assert "@" in made["email"]
    assert len(made["note"]) >= 12
    assert made["day"] == "2030-01-01"
    assert len(made["code"]) == 3
    assert schema["properties"]["email"] == {"type": "string"}  # the tool's own is untouched
