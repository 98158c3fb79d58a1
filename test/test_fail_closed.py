"""Issue 14: nothing the verifier could not evaluate is approved — the issue's own examples through the
command line, and each fail-open path the audit closed (the fuzz campaign, test_fuzz.py, looks for more)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT
from plan_verifier.context import RuleContext
from plan_verifier.graph.neo4j_backend import build_cell
from plan_verifier.graph.port import GraphUnavailable
from plan_verifier.ir import Plan
from plan_verifier.motion.facts import Execution, MotionRef, SimulatedMotion, Start
from plan_verifier.pipeline import Verifier
from plan_verifier.robots.spec import load_robot
from plan_verifier.rules import get

EXAMPLE = (ROOT / "examples" / "pick_and_place.tdl").read_text(encoding="utf-8")
SAFE_POSE = "PosX(450, -300, 300, 180, 0, 90)"
HOME_POSE = "PosJ(180, -90, 90, -90, -90, 0)"
#: The issue's examples: what replaces the literal, and the rule that must reject the plan.
EXAMPLES = [
    (SAFE_POSE, "PosX(nan, -300, 300, 180, 0, 90)", "R-SYN-011"),
    (SAFE_POSE, "PosX(inf, -300, 300, 180, 0, 90)", "R-SYN-011"),
    (SAFE_POSE, "PosX(-inf, -300, 300, 180, 0, 90)", "R-SYN-011"),
    (SAFE_POSE, "PosX(foo, -300, 300, 180, 0, 90)", "R-CON-001"),
    (SAFE_POSE, "PosX(-foo, -300, 300, 180, 0, 90)", "R-CON-001"),
    (HOME_POSE, "PosJ(nan, -90, 90, -90, -90, 0)", "R-SYN-011"),
    (SAFE_POSE, "PosX(1e308, -300, 300, 180, 0, 90)", "R-SAF-001"),
    (SAFE_POSE, "PosX(1e999, -300, 300, 180, 0, 90)", "R-SYN-011"),
]


@pytest.mark.parametrize(("literal", "mutated", "rule"), EXAMPLES, ids=[e[1] for e in EXAMPLES])
@pytest.mark.parametrize("profile", ["default", "strict"])
def test_the_issues_examples_are_rejected_with_a_clear_finding(tmp_path, literal: str, mutated: str, rule: str, profile: str) -> None:
    plan = tmp_path / "plan.tdl"
    plan.write_text(EXAMPLE.replace(literal, mutated), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "plan_verifier.cli.main", "check", str(plan), "--format", "json", "--profile", profile],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr == ""
    report = json.loads(done.stdout)
    assert not report["approved"] and report["verdict"] == "FAIL"
    rules = {f["rule_id"] for f in report["findings"] if f["severity"] == "CRITICAL"}
    assert rule in rules and not any(r.startswith("R-SYS") for r in rules), rules
    finding = next(f for f in report["findings"] if f["rule_id"] == rule)
    assert finding["line"] == EXAMPLE.replace(literal, mutated).splitlines().index(
        next(line for line in EXAMPLE.replace(literal, mutated).splitlines() if mutated in line)) + 1


def test_a_motion_not_simulated_names_the_expression_and_the_step(tmp_path) -> None:
    plan = tmp_path / "plan.tdl"
    plan.write_text(EXAMPLE.replace(SAFE_POSE, "PosX(foo, -300, 300, 180, 0, 90)"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "plan_verifier.cli.main", "check", str(plan), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    skipped = [f for f in report["findings"] if f["rule_id"] == "R-KIN-000"]
    assert [(f["step"], f["evidence"]["expression"], f["evidence"]["param"]) for f in skipped] == [
        (4, "A_Safe_Pose", "target_pose"), (8, "A_Safe_Pose", "target_pose")]
    assert report["execution"]["not_simulated"] == [4, 8] and report["outcome"] == "FAIL"
    undefined = next(f for f in report["findings"] if f["rule_id"] == "R-CON-001")
    assert (undefined["line"], undefined["column"], undefined["end_column"]) == (4, 27, 30)


def test_a_run_time_value_asks_for_the_plan_again_with_the_value() -> None:
    program = EXAMPLE.replace("velocity=200, acceleration=100, tool=0, blending_radius=0) WITH WAIT;   // approach",
                              "velocity=GetAnalogInput(1), acceleration=100, tool=0, blending_radius=0) WITH WAIT;   // approach")
    for level in ("BASIC", "STANDARD"):
        report = Verifier(level=level).verify(program)
        assert not report.approved and "reverify_with_value" in report.reason_codes
        (finding,) = [f for f in report.findings if f.rule_id == "R-CON-008"]
        assert finding.step == 4 and finding.evidence["expression"] == "GetAnalogInput(1)"


def test_an_approved_file_with_an_unevaluated_expression_is_rejected() -> None:
    """Actions files the seed system writes carry no hash; an `{expression: ...}` target is re-verified and rejected."""
    from plan_verifier.actions import approved_yaml

    report = Verifier().verify(EXAMPLE)
    text, _ = approved_yaml(report, correlation_id="t", robot="ur10e", graph_fingerprint=None)
    text = text[: text.index("\n  verification:") + 1]
    start = text.index('target: "A_Safe_Pose"')
    pose, speed = text.index("target_pose:", start), text.index("velocity:", start)
    changed = text[:pose] + 'target_pose: {expression: "A_Safe_Pose"}\n        ' + text[speed:]
    for level in ("BASIC", "STANDARD"):
        rejected = Verifier(level=level).verify(changed)
        assert not rejected.approved and "R-CON-008" in rejected.violated_constraints
    nan = text.replace("velocity: 200", "velocity: .nan", 1)
    assert [f.rule_id for f in Verifier().verify(nan).findings if f.severity.value == "CRITICAL"] == ["R-SYN-008"]


def _unproven_execution() -> Execution:
    ref = MotionRef(1, None, "MoveJoint", "joint", "Home_Pose", "tool 0")
    motion = SimulatedMotion(ref, np.array([0.0, 1.0]), np.zeros((2, 6)), np.array([0.0, 1.0]), np.zeros((2, 3)), True, False)
    return Execution(start=Start((0.0,) * 6, "home_joints_deg"), motions=(motion,))


def test_a_motion_whose_sweep_was_not_proven_is_never_approved() -> None:
    ctx = RuleContext(Plan(format="tdl", source=""), load_robot("ur10e"))
    ctx.__dict__["execution"] = _unproven_execution()  # the fact the sweep records when it gives up
    (finding,) = get("R-KIN-000")().check(ctx)
    assert finding.severity.value == "CRITICAL" and finding.indeterminate and finding.step == 1
    assert "could not prove every instant" in finding.message


def test_a_graph_position_whose_pose_is_not_finite_makes_the_graph_unreadable() -> None:
    rows = [("Home", "home", None, None, [0.0, -300.0, math.nan, 180.0, 0.0, 90.0], None)]
    with pytest.raises(GraphUnavailable, match="Position 'Home' pose is nan, not a finite number"):
        build_cell("cell", rows, [], [], [], {}, [], None)


def test_strict_never_approves_what_default_rejects() -> None:
    for literal, mutated, _ in EXAMPLES:
        program = EXAMPLE.replace(literal, mutated)
        assert not Verifier(profile="strict").verify(program).approved
        assert not Verifier(profile="default").verify(program).approved


def test_a_cell_position_without_an_orientation_is_not_given_one(tmp_path) -> None:
    """A TDL target naming a cell position with x, y, z only: reach and floor use them, the simulation does not invent
    where the tool points (it used rx = ry = rz = 0 and reported collisions of a pose nobody wrote)."""
    from plan_verifier.graph.embedded import EmbeddedGraph

    cell = tmp_path / "cell.yaml"
    cell.write_text("""name: three
initial_state: {position: Home, tool: none}
positions:
  - {name: Home, role: home, pose: [450, -300, 300, 180, 0, 90]}
  - {name: Above, role: safe_approach, pose: [450, 300, 300]}
moves: [[Home, Above]]
""", encoding="utf-8")
    program = """GOAL Execute_Process() {
    SPAWN MoveJoint(target_pose=Home, velocity=100, acceleration=100, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=Above, velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    SPAWN End() WITH WAIT;
}
"""
    report = Verifier(graph=EmbeddedGraph.from_file(str(cell))).verify(program)
    assert [(f.rule_id, f.step) for f in report.findings if f.severity.value == "CRITICAL"] == [("R-KIN-000", 2)]
    assert "'Above' is a cell position with no coordinates the simulation can use" in report.findings[0].message
    assert Verifier(graph=EmbeddedGraph.from_file(str(cell)), level="BASIC").verify(program).approved  # the graph vouches
