"""Approved actions carry what was verified: joint targets, durations, the start, the cycle time (contract §6, §7).

Each simulated motion step gets a `verified` block (inside the sha256), the
verification block says where the simulation started and how long the plan
takes; re-verifying the file compares its joint targets with what the verifier
computes now and refuses a file whose targets differ (R-KIN-007, a finding).
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import yaml

from conftest import ROOT
from plan_verifier.actions import approved_yaml
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.kinematics.arm import arm_for
from plan_verifier.motion.verified import VIA_STEP_DEG, step_motions
from plan_verifier.pipeline import Verifier
from plan_verifier.robot_sequence import steps_sha256
from plan_verifier.robots.spec import load_robot

PROGRAM = """
GOAL Execute_Process() {
  MoveJoint(PosJ(170, -90, 90, -90, -90, 0), 60, 60, 0, 0);
  MoveLinear(PosX(500, -200, 300, 180, 0, 90), 100, 200, 0, 0);
  MoveLinear(PosX(500, 200, 300, 180, 0, 90), 100, 200, 0, 0);
  Delay(0.5);
  MoveJoint(PosJ(170, -80, 80, -90, -90, 10), 60, 60, 0, 0);
  End();
}
"""
#: Its first target is Cartesian, reached by the IK solution nearest to wherever the robot starts.
CARTESIAN_FIRST = """
GOAL Execute_Process() {
  MoveJoint(PosX(500, -200, 300, 180, 0, 90), 60, 60, 0, 0);
  End();
}
"""
TDL = Verifier("ur10e")


def _emit(verifier: Verifier, plan: str, **kwargs) -> dict:
    report = verifier.verify(plan, **kwargs)
    assert report.approved, [f.message for f in report.findings]
    text, _ = approved_yaml(report, correlation_id="c-1", robot="ur10e", graph_fingerprint=None, timestamp="2026-01-01T00:00:00Z")
    return yaml.safe_load(text)


def _dump(document: dict, *, rehash: bool = True) -> str:
    """The document as YAML; with `rehash`, its sha256 recomputed (a forger who knows the scheme)."""
    sequence = document["RobotSequence"]
    if rehash:
        sequence["verification"]["sha256"] = steps_sha256(sequence["steps"])
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)


def test_motion_steps_carry_the_joint_targets_and_durations() -> None:
    sequence = _emit(TDL, PROGRAM)["RobotSequence"]
    steps = sequence["steps"]
    assert [("verified" in s) for s in steps] == [True, True, True, False, True, False]
    first, line_a, line_b, _, last, _ = steps
    assert first["verified"]["joints_deg"] == [170, -90, 90, -90, -90, 0]  # a PosJ target is its own joint target
    assert last["verified"]["joints_deg"] == [170, -80, 80, -90, -90, 10]
    assert (first["verified"]["path"], line_a["verified"]["path"]) == ("joint", "linear")
    arm = arm_for(load_robot("ur10e"))
    for step in (line_a, line_b):  # the chosen joints put the TCP (tool 0) on the target
        tcp = arm.tcp_pose(np.radians(step["verified"]["joints_deg"]), 0)
        assert np.allclose(tcp[:3, 3], step["args"]["target_pose"]["PosX"][:3], atol=0.5)
    assert all(s["verified"]["duration_s"] > 0 for s in (first, line_a, line_b, last))
    verification = sequence["verification"]
    assert verification["start_joints_source"] == "home"
    assert verification["start_joints_deg"] == list(load_robot("ur10e").home_joints_deg)
    total = sum(s["verified"]["duration_s"] for s in steps if "verified" in s)
    assert math.isclose(verification["cycle_time_s"], total, abs_tol=0.005)
    assert verification["sha256"] == steps_sha256(steps)  # the verified blocks are inside the hash


def test_a_linear_move_carries_points_no_joint_further_apart_than_the_step() -> None:
    step = _emit(TDL, PROGRAM)["RobotSequence"]["steps"][2]
    via = step["verified"]["via"]
    times = [p["t_s"] for p in via]
    assert times == sorted(times) and 0 < times[0] and times[-1] < step["verified"]["duration_s"]
    previous = _emit(TDL, PROGRAM)["RobotSequence"]["steps"][1]["verified"]["joints_deg"]
    chain = [previous, *(p["joints_deg"] for p in via), step["verified"]["joints_deg"]]
    jumps = [max(abs(a - b) for a, b in zip(p, q)) for p, q in zip(chain, chain[1:])]
    assert max(jumps) <= VIA_STEP_DEG + 1.0  # evenly spaced in time: the step holds on average, within a degree


def test_the_start_says_where_it_came_from() -> None:
    request = _emit(TDL, PROGRAM, start_joints=(175, -95, 95, -90, -90, 5))["RobotSequence"]["verification"]
    assert (request["start_joints_source"], request["start_joints_deg"]) == ("request", [175, -95, 95, -90, -90, 5])
    live = _emit(TDL, PROGRAM, start_joints=(175, -95, 95, -90, -90, 5), start_joints_source="joint_states")
    assert live["RobotSequence"]["verification"]["start_joints_source"] == "joint_states"
    cell = Verifier("ur10e", graph=EmbeddedGraph.from_file("weld_cell"))
    plan = '[{"id": 1, "action": "move", "target": "Safe_Pos_1"}]'
    sequence = _emit(cell, plan)["RobotSequence"]
    assert sequence["verification"]["start_joints_source"] == "start_position"  # the cell's initial position
    assert len(sequence["steps"][0]["verified"]["joints_deg"]) == 6


def test_a_re_verified_file_starts_where_its_approval_did_and_passes() -> None:
    document = _emit(TDL, PROGRAM, start_joints=(175, -95, 95, -90, -90, 5))
    again = TDL.verify(_dump(document, rehash=False))
    assert again.verdict == "PASS", [f.message for f in again.findings]
    assert again.execution["start"] == {"joints_deg": [175, -95, 95, -90, -90, 5], "source": "approved", "assumed": False}
    assert {s: m.joints_deg for s, m in step_motions(again.motion).items()} == {
        i: tuple(s["verified"]["joints_deg"]) for i, s in enumerate(document["RobotSequence"]["steps"], 1) if "verified" in s}


def test_a_changed_joint_target_is_refused_even_with_a_matching_hash() -> None:
    document = _emit(TDL, PROGRAM)
    document["RobotSequence"]["steps"][1]["verified"]["joints_deg"][5] += 180  # the same TCP position, another wrist turn
    report = TDL.verify(_dump(document))
    assert report.verdict == "FAIL"
    found = [f for f in report.findings if f.rule_id == "R-KIN-007"]
    assert len(found) == 1 and found[0].step == 2 and found[0].evidence["joint"] == 6
    assert found[0].evidence["difference_deg"] == pytest.approx(180, abs=0.01)
    assert not [f for f in report.findings if f.rule_id == "R-SYN-012"]


def test_unreadable_or_misplaced_verified_blocks_are_findings_not_crashes() -> None:
    document = _emit(TDL, PROGRAM)
    steps = document["RobotSequence"]["steps"]
    steps[0]["verified"] = {"joints_deg": ["a"] * 6, "duration_s": 1}
    steps[3]["verified"] = {"joints_deg": [0, 0, 0, 0, 0, 0], "duration_s": 1}  # a Delay does not move
    report = TDL.verify(_dump(document))
    found = sorted((f.step, f.message.split(":")[0]) for f in report.findings if f.rule_id == "R-KIN-007")
    assert [step for step, _ in found] == [1, 4] and report.verdict == "FAIL"
    assert not [f for f in report.findings if f.rule_id == "R-SYS-001"]  # no crash finding


def test_a_different_start_gives_other_targets_and_the_file_is_refused() -> None:
    document = _emit(TDL, CARTESIAN_FIRST)
    # Re-verified from a start on the other side of the base: the nearest solution of the Cartesian target differs.
    report = TDL.verify(_dump(document, rehash=False), start_joints=(0, -90, 90, -90, -90, 0))
    assert report.execution["start"]["source"] == "request"
    assert [f.step for f in report.findings if f.rule_id == "R-KIN-007"] == [1]
    assert TDL.verify(_dump(document, rehash=False)).verdict == "PASS"  # from its own start it is the approved plan


def test_files_without_verified_blocks_are_checked_as_before() -> None:
    document = _emit(TDL, PROGRAM)
    for step in document["RobotSequence"]["steps"]:
        step.pop("verified", None)
    for key in ("start_joints_deg", "start_joints_source", "cycle_time_s"):
        document["RobotSequence"]["verification"].pop(key)
    report = TDL.verify(_dump(document))
    assert report.verdict == "PASS" and report.execution["start"]["source"] == "home_joints_deg"


def test_cli_start_joints(tmp_path) -> None:
    plan = tmp_path / "p.tdl"
    plan.write_text(PROGRAM, encoding="utf-8")
    out = tmp_path / "a.yaml"
    cli = [sys.executable, "-m", "plan_verifier.cli.main", "check", str(plan)]
    done = subprocess.run([*cli, "--start-joints=175,-95,95,-90,-90,5", "--emit-yaml", str(out)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    verification = yaml.safe_load(out.read_text(encoding="utf-8"))["RobotSequence"]["verification"]
    assert verification["start_joints_source"] == "request"
    bad = subprocess.run([*cli, "--start-joints", "1,2,3"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "six finite angles" in bad.stderr
