"""A plan's input is read once: decoded, limited, detected, and its JSON/YAML document parsed once."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from plan_verifier.inputs import read_plan_text
from plan_verifier.pipeline import Verifier
from plan_verifier.plans import document as doc
from plan_verifier.problems import ProblemKind

SEED_FRAGMENT = """RobotSequence:
  name: weld_at_position_1_and_2_abc123
  steps:
    - id: 1
      action: move
      target: Safe_Pos_1
    # ... (all steps)
"""


@pytest.mark.parametrize(("text", "requested", "expected"), [
    ("GOAL A() { SPAWN Delay(1) WITH WAIT; }", "auto", "tdl"),
    ('[{"action": "move", "target": "Home"}]', "auto", "json"),
    ("  \ufeff{\"steps\": []}", "auto", "json"),
    ("name: x\nsteps:\n  - {action: move, target: Home}\n", "auto", "json"),
    (SEED_FRAGMENT, "auto", "actions"),
    ('{"RobotSequence": {"steps": [{"action": "move", "target": "Home"}]}}', "auto", "actions"),
    ("steps: [\n", "auto", "tdl"),  # looks like YAML but is not: read as TDL, as it always was
    ("note: steps\n", "auto", "tdl"),
    ("GOAL A() { }", "json", "json"),
    ('[{"action": "move"}]', "tdl", "tdl"),
    ("GOAL A() { }", "yaml?", "tdl"),  # an unknown request is detected
])
def test_the_format_is_detected(text: str, requested: str, expected: str) -> None:
    assert read_plan_text(text, requested).format == expected


def test_unreadable_input_has_problems_and_no_text() -> None:
    read = read_plan_text(b"GOAL \xff", "json")
    assert read.text is None and read.format == "tdl" and [p.kind for p in read.problems] == [ProblemKind.NOT_UTF8]


def test_a_plan_text_is_given_as_it_is_and_decoded_once(monkeypatch) -> None:
    calls = []
    decode = doc.decode_document
    monkeypatch.setattr(doc, "decode_document", lambda text: calls.append(text) or decode(text))
    plan_text = read_plan_text(SEED_FRAGMENT)
    assert read_plan_text(plan_text) is plan_text
    report = Verifier("ur10e").verify(plan_text)
    assert len(calls) == 1 and report.plan_format == "actions"
    with pytest.raises(ValueError):
        Verifier("ur10e").verify(plan_text, plan_format="tdl")


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["steps", "RobotSequence", "a", "action"]), inner,
                                                                               max_size=4), max_leaves=25)


@settings(max_examples=200, deadline=None)
@given(st.lists(_JSON, max_size=4) | st.dictionaries(st.sampled_from(["steps", "RobotSequence", "name"]), _JSON, max_size=4),
       st.sampled_from([None, 0, 2]), st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : ")]), st.integers(0, 6))
def test_json_is_decoded_as_json_loads_decodes_it(value, indent, separators, cut) -> None:
    # (A document is JSON when it starts with [ or {; a cut-off one may then be empty, which is YAML's business.)
    text = json.dumps(value, indent=indent, separators=separators)
    for variant in (text, text[: len(text) - cut], text + " x", "\ufeff" + text, text.replace("]", ",]", 1)):
        if variant.lstrip("\ufeff \t\r\n")[:1] not in ("[", "{"):
            continue
        try:
            expected, error = json.loads(variant.lstrip("\ufeff")), None
        except json.JSONDecodeError as exc:
            expected, error = None, exc
        got = doc.decode_document(variant)
        if error is None:
            assert got.problem is None and got.data == expected
        else:
            assert got.problem.kind is ProblemKind.JSON_INVALID
            assert got.problem.values["reason"] == error.msg and tuple(got.problem.span[:2]) == (error.lineno, error.colno)


def test_step_positions_are_where_the_steps_are_written() -> None:
    text = '{\n "steps": [\n  {"action": "move", "target": "Home"},\n  {"action": "move",\n   "target": "Pos_1"}\n ]\n}'
    document = doc.decode_document(text)
    assert tuple(document.span(("steps", 0))) == (3, 3, 3, 39)  # end columns are exclusive
    assert tuple(document.span(("steps", 1))) == (4, 3, 5, 22)
    assert tuple(document.span(("steps", 1, "target"))) == (5, 14, 5, 21)


def test_yaml_positions_agree_with_the_yaml_reference_loader() -> None:
    # libyaml puts the end of a document without a final line break on a line of its own; ours is where the text ends.
    for text in ("steps:\n- action: move\n  target: A\n- action: move\n  target: B", "steps:\n  - {action: move, target: é}\n"):
        reference = yaml.compose(text, Loader=yaml.SafeLoader).value[0][1].value
        document = doc.decode_document(text)
        for k, node in enumerate(reference):
            assert tuple(document.span(("steps", k))) == (node.start_mark.line + 1, node.start_mark.column + 1,
                                                          node.end_mark.line + 1, node.end_mark.column + 1)


def test_a_yaml_scalar_that_cannot_be_built_is_a_finding_not_a_crash() -> None:
    report = Verifier("ur10e").verify("steps:\n  - action: move\n    target: 2001-13-45\n", plan_format="json")
    assert [f.rule_id for f in report.findings if f.rule_id.startswith("R-SYN")] == ["R-SYN-008"]
    assert "month must be in 1..12" in report.findings[0].message or any("month" in f.message for f in report.findings)
