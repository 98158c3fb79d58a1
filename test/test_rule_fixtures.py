"""The one parametrised runner for every rule's YAML fixture (test/fixtures/rules/R-*.yaml).

Each fixture lists cases with a plan and the exact findings of that rule the
plan must produce (`expect: []` for passing cases). A case with `llm_answers`
runs the llm semantic grader against a local chat-completions server that
gives those answers in turn (test/chat_server.py); a case with `graph_uri`
is checked against the Neo4j backend at that URI; a case with `start_joints`
starts the execution level from those joints (what the node reads from
/joint_states). For rules after the syntax
stage, a case must also be free of syntax errors, so a "passing" case really
exercised the rule instead of being skipped.

Before any case runs, every fixture is checked against
schemas/rule_fixture.schema.json (unknown keys are errors at every level but a
finding's `evidence`), its file name against its rule id, its case names for
uniqueness and its `options` with VerifyOptions.from_mapping; one problem
anywhere stops the collection with the file, case and key of each problem.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from jsonschema import Draft202012Validator

from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.open import open_graph
from plan_verifier.options import VerifyOptions
from plan_verifier.pipeline import Verifier

from chat_server import ChatServer

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "rules"
SCHEMA_PATH = FIXTURE_DIR.parents[2] / "schemas" / "rule_fixture.schema.json"
_VALIDATOR = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
_FIELDS = ("severity", "line", "column", "end_line", "end_column", "step")


class FixtureError(Exception):
    """A rule fixture that does not match schemas/rule_fixture.schema.json (or its rule id)."""


def fixture_problems(file_name: str, data: Any) -> list[str]:
    """Every problem of one fixture file, each naming the file, the case and the key."""
    problems = [f"{file_name}: {_where(data, list(error.absolute_path))}: {_explain(error)}"
                for error in sorted(_VALIDATOR.iter_errors(data), key=lambda e: [(isinstance(p, str), p) for p in e.absolute_path])]
    if problems:
        return problems
    if f"{data['rule']}.yaml" != file_name:
        problems.append(f"{file_name}: rule {data['rule']} must live in {data['rule']}.yaml")
    names = [case["name"] for case in data["cases"]]
    problems += [f"{file_name}: case {name!r}: name used {names.count(name)} times" for name in sorted(set(names)) if names.count(name) > 1]
    for case in data["cases"]:
        try:
            VerifyOptions.from_mapping(case.get("options"))
        except (TypeError, ValueError) as exc:
            problems.append(f"{file_name}: case {case['name']!r}: options: {exc}")
    return problems


def _where(data: Any, path: list) -> str:
    """`case 'name'` (or `case #3`) plus the key path inside it; `file` for the top level."""
    if len(path) >= 2 and path[0] == "cases":
        case = data["cases"][path[1]]
        label = f"case {case['name']!r}" if isinstance(case, dict) and isinstance(case.get("name"), str) else f"case #{path[1] + 1}"
        inner = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[2:])
        return label + (f" {inner.lstrip('.')}" if inner else "")
    return "file" + ("" if not path else " " + ".".join(map(str, path)))


def _explain(error) -> str:
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(allowed))
        return f"unknown key(s) {', '.join(map(repr, unknown))} (allowed: {', '.join(allowed)})"
    return error.message


def _load_fixtures() -> list[dict]:
    """Every fixture, checked before any case runs: one bad key anywhere stops the run, naming all of them."""
    fixtures, problems = [], []
    for path in sorted(FIXTURE_DIR.glob("R-*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        problems += fixture_problems(path.name, data)
        fixtures.append(data)
    if problems:
        raise FixtureError(f"{len(problems)} problem(s) in {FIXTURE_DIR} (schema: {SCHEMA_PATH}):\n  " + "\n  ".join(problems))
    return fixtures


def _cases() -> Iterator:
    for data in _load_fixtures():
        for case in data["cases"]:
            yield pytest.param(data, case, id=f"{data['rule']}::{case['name']}")


def _config(value: str | None) -> str | None:
    """A shipped robot/cell name as it is; a path (`test/fixtures/...`) from the repository root."""
    return str(FIXTURE_DIR.parents[2] / value) if value and "/" in value else value


def _verifier(data: dict, case: dict) -> Verifier:
    cell = _config(case.get("cell", data.get("cell")))
    graph = EmbeddedGraph.from_file(cell) if cell else open_graph(uri=case.get("graph_uri"), timeout_s=2)
    return Verifier(_config(case.get("robot", data.get("robot", "ur10e"))), graph=graph,
                    profile=case.get("profile", "default"), level=case.get("level", "FULL" if case.get("instruction") else "STANDARD"))


def _plan_text(case: dict) -> str:
    """The case's plan; `repeat: {text, times}` expands a `{{repeat}}` marker (for size limits)."""
    plan = case["plan"]
    if "repeat" in case:
        plan = plan.replace("{{repeat}}", case["repeat"]["text"] * case["repeat"]["times"])
    return plan


@pytest.mark.parametrize(("data", "case"), list(_cases()))
def test_rule_case(data: dict, case: dict) -> None:
    rule_id = data["rule"]
    rule = registry.get(rule_id)
    with contextlib.ExitStack() as stack:
        options = dict(case.get("options") or {})
        if "llm_answers" in case:  # the llm grader, answered by a local chat-completions server
            server = stack.enter_context(ChatServer(case["llm_answers"]))
            options = {"semantic_grader": "llm", "llm_url": server.url, **options}
        report = _verifier(data, case).verify(
            _plan_text(case),
            plan_format=case.get("plan_format", "auto"),
            instruction=case.get("instruction"),
            start_position=case.get("start_position"),
            start_tool=case.get("start_tool"),
            start_joints=case.get("start_joints"),
            options=VerifyOptions.from_mapping(options),
        )
    if rule.category is not Category.SYNTAX:
        syntax = [f"{f.rule_id}: {f.message}" for f in report.findings if f.category is Category.SYNTAX and f.severity is Severity.CRITICAL]
        assert not syntax, f"case must parse so that {rule_id} runs: {syntax}"
    if rule_id != "R-SYS-001":
        crashed = [f.message for f in report.findings if f.rule_id == "R-SYS-001"]
        assert not crashed, f"a rule failed on this case (fail closed, but a defect): {crashed}"
    got = [f for f in report.findings if f.rule_id == rule_id]
    expected = case.get("expect") or []
    assert len(got) == len(expected), f"expected {len(expected)} {rule_id} findings, got {[(f.severity.value, f.span, f.message) for f in got]}"
    for want, f in zip(expected, got):
        for key in _FIELDS:
            if key in want:
                actual = f.severity.value if key == "severity" else (f.step if key == "step" else getattr(f.span, key, None))
                assert actual == want[key], f"{key}: expected {want[key]!r}, got {actual!r} ({f.message})"
        if "message" in want:
            assert f.message == want["message"]
        if "message_contains" in want:
            assert want["message_contains"] in f.message, f.message
        if "suggestion_contains" in want:
            assert f.suggestion and want["suggestion_contains"] in f.suggestion, f.suggestion
        for key, value in (want.get("evidence") or {}).items():
            assert f.evidence.get(key) == value, f"evidence {key}: expected {value!r}, got {f.evidence.get(key)!r}"
    if "verdict" in case:
        assert report.verdict == case["verdict"]


def test_every_rule_has_a_fixture_with_passing_and_failing_cases() -> None:
    for rule in registry.all_rules():
        if rule.reports_crashes:
            continue  # fires only on a verifier bug; covered by test_pipeline
        path = FIXTURE_DIR / f"{rule.id}.yaml"
        assert path.is_file(), f"missing fixture {path.name}"
        cases = yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
        assert any(not c.get("expect") for c in cases), f"{rule.id}: no passing case"
        assert any(c.get("expect") for c in cases), f"{rule.id}: no failing case"


def test_every_rule_documents_unsafe_and_safe_examples() -> None:
    for rule in registry.all_rules():
        doc = rule.doc()
        assert rule.summary(), rule.id
        assert "**Unsafe**" in doc and "**Safe**" in doc, f"{rule.id} docstring lacks examples"


def test_a_misspelt_key_is_named_with_its_file_case_and_key() -> None:
    data = {
        "rule": "R-SAF-002", "robt": "ur10e",
        "cases": [
            {"name": "too_fast", "plan": "p", "expect": [{"severity": "CRITICAL", "mesage": "m", "evidence": {"any_key": 1}}]},
            {"name": "slow", "plan": "p", "expect": [], "start_postion": "Home"},
            {"plan": "p", "expect": []},
        ],
    }
    problems = fixture_problems("R-SAF-002.yaml", data)
    assert len(problems) == 4, problems
    assert problems[0] == "R-SAF-002.yaml: file: unknown key(s) 'robt' (allowed: cases, cell, robot, rule)"
    assert problems[1].startswith("R-SAF-002.yaml: case 'too_fast' expect[0]: unknown key(s) 'mesage' (allowed: column, ")
    assert problems[2].startswith("R-SAF-002.yaml: case 'slow': unknown key(s) 'start_postion' (allowed: cell, ")
    assert "start_position" in problems[2]
    assert problems[3] == "R-SAF-002.yaml: case #3: 'name' is a required property"


def test_fixture_checks_beyond_the_schema() -> None:
    case = {"name": "a", "plan": "p", "expect": [{"severity": "WARNING", "step": None, "evidence": {"free": {"form": [1]}}}]}
    assert fixture_problems("R-SAF-002.yaml", {"rule": "R-SAF-002", "cases": [case]}) == []
    assert fixture_problems("R-SAF-003.yaml", {"rule": "R-SAF-002", "cases": [case]}) == ["R-SAF-003.yaml: rule R-SAF-002 must live in R-SAF-002.yaml"]
    assert fixture_problems("R-SAF-002.yaml", {"rule": "R-SAF-002", "cases": [case, case]}) == ["R-SAF-002.yaml: case 'a': name used 2 times"]
    bad_options = {**case, "options": {"semantic_gradr": "llm"}}
    (problem,) = fixture_problems("R-SAF-002.yaml", {"rule": "R-SAF-002", "cases": [bad_options]})
    assert problem.startswith("R-SAF-002.yaml: case 'a': options: unknown verification option(s): semantic_gradr")
    wrong_type = {**case, "expect": [{"severity": "FATAL", "line": "3"}]}
    assert fixture_problems("R-SAF-002.yaml", {"rule": "R-SAF-002", "cases": [wrong_type]}) == [
        "R-SAF-002.yaml: case 'a' expect[0].line: '3' is not of type 'integer'",
        "R-SAF-002.yaml: case 'a' expect[0].severity: 'FATAL' is not one of ['CRITICAL', 'WARNING', 'INFO']",
    ]
