"""The one parametrised runner for every rule's YAML fixture (test/fixtures/rules/R-*.yaml).

Each fixture lists cases with a plan and the exact findings of that rule the
plan must produce (`expect: []` for passing cases). A case with `llm_answers`
runs the llm semantic grader against a local chat-completions server that
gives those answers in turn (test/chat_server.py); a case with `graph_uri`
is checked against the Neo4j backend at that URI. For rules after the syntax
stage, a case must also be free of syntax errors, so a "passing" case really
exercised the rule instead of being skipped.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
import yaml

from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.open import open_graph
from plan_verifier.pipeline import Verifier

from chat_server import ChatServer

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "rules"
_FIELDS = ("severity", "line", "column", "end_line", "end_column", "step")


def _cases():
    for path in sorted(FIXTURE_DIR.glob("R-*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
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
        options = case.get("options")
        if "llm_answers" in case:  # the llm grader, answered by a local chat-completions server
            server = stack.enter_context(ChatServer(case["llm_answers"]))
            options = {"semantic_grader": "llm", "llm_url": server.url, **(options or {})}
        report = _verifier(data, case).verify(
            _plan_text(case),
            plan_format=case.get("plan_format", "auto"),
            instruction=case.get("instruction"),
            start_position=case.get("start_position"),
            start_tool=case.get("start_tool"),
            options=options,
        )
    if rule.category is not Category.SYNTAX:
        syntax = [f"{f.rule_id}: {f.message}" for f in report.findings if f.category is Category.SYNTAX and f.severity is Severity.CRITICAL]
        assert not syntax, f"case must parse so that {rule_id} runs: {syntax}"
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
        if rule.id == "R-SYS-001":
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
