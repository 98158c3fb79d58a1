"""Approved YAML (contract §6): seed 003's RobotSequence, the sha256 an executor checks, atomic writes."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from plan_verifier import actions
from plan_verifier.actions import approved_yaml, verify_actions_file, write_atomic
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.pipeline import Verifier
from plan_verifier.robot_sequence import steps_sha256

# Seed 003's YAML example, verbatim.
SEED_YAML = '''
name: "Robot Sequence"
description: "Weld at position 1"
steps:
  - id: 1
    name: "Move to Home"
    action: "move"
    target: "Home"
  
  - id: 2
    name: "Move to Tool_Weld_Safe_Position"
    action: "move"
    target: "Tool_Weld_Safe_Position"
  
  - id: 3
    name: "Move to Tool_Weld_Position"
    action: "move"
    target: "Tool_Weld_Position"
  
  - id: 4
    name: "Attach Welder"
    action: "routine"
    target: "tool_attach"
    position: "Tool_Weld_Position"
    tool: "Welder"
    stabilize: 1.5
    action_after: "attach_tool"
    verify: "Welder"
  
  - id: 5
    name: "Move to Tool_Weld_Safe_Position"
    action: "move"
    target: "Tool_Weld_Safe_Position"
  
  - id: 6
    name: "Move to Home"
    action: "move"
    target: "Home"
  
  - id: 7
    name: "Move to Safe_Pos_1"
    action: "move"
    target: "Safe_Pos_1"
  
  - id: 8
    name: "Move to Pos_1"
    action: "move"
    target: "Pos_1"
  
  - id: 9
    name: "Tack Weld at Pos_1"
    action: "routine"
    target: "tack_weld"
    position: "Pos_1"
    stabilize: 1.5
    verify: "weld_quality_check"
'''


@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return Verifier("ur10e", graph=EmbeddedGraph.from_file("weld_cell"))


def _emit(verifier: Verifier, plan: str, **kwargs) -> tuple[str, str]:
    report = verifier.verify(plan, **kwargs)
    assert report.approved, [f.message for f in report.findings]
    return approved_yaml(report, correlation_id="req-42", robot="ur10e", graph_fingerprint=report.cell.fingerprint,
                         timestamp="2026-01-02T03:04:05Z")


def test_seed_003_example_reproduces(verifier) -> None:
    seed = yaml.safe_load(SEED_YAML)
    text, digest = _emit(verifier, json.dumps(seed))
    sequence = yaml.safe_load(text)["RobotSequence"]
    as_written = [{k: v for k, v in step.items() if k != "verified"} for step in sequence["steps"]]  # the execution level's addition
    assert (sequence["name"], sequence["description"], as_written) == (seed["name"], seed["description"], seed["steps"])
    verification = sequence["verification"]
    assert {k: verification[k] for k in list(verification)[:8]} == {
        "verifier_id": verifier.verify(json.dumps(seed)).verifier_id, "correlation_id": "req-42", "robot": "ur10e",
        "graph_fingerprint": EmbeddedGraph.from_file("weld_cell").snapshot().fingerprint, "timestamp": "2026-01-02T03:04:05Z",
        "verdict": "PASS", "plan_format": "json", "sha256": digest}
    assert list(verification)[8:] == ["start_joints_deg", "start_joints_source", "cycle_time_s"]  # contract §6 grows only by adding
    assert text.startswith('RobotSequence:\n  name: "Robot Sequence"\n')
    assert '\n  steps:\n    - id: 1\n      name: "Move to Home"\n      action: "move"\n' in text  # seed 003: block style, 2-space indent, quoted strings
    assert "{" not in text and "[" not in text


def test_json_steps_keep_their_key_order_and_unknown_fields(verifier) -> None:
    plan = [{"target": "Safe_Pos_1", "action": "move", "id": 1, "operator_note": "slow near the fixture", "speed_profile": {"max": 0.5}}]
    text, _ = _emit(verifier, json.dumps(plan))
    step = yaml.safe_load(text)["RobotSequence"]["steps"][0]
    assert list(step) == ["target", "action", "id", "operator_note", "speed_profile", "verified"]
    assert {k: v for k, v in step.items() if k != "verified"} == plan[0]


def test_unicode_stays_readable(verifier) -> None:
    plan = {"name": "용접 작업", "description": "Pos_1 용접", "steps": [{"id": 1, "name": "안전 위치로 이동", "action": "move", "target": "Safe_Pos_1"}]}
    text, _ = _emit(verifier, json.dumps(plan, ensure_ascii=False))
    assert 'name: "용접 작업"' in text and "안전 위치로 이동" in text and "\\u" not in text


def test_tdl_program_becomes_one_step_per_executed_command(verifier) -> None:
    program = """
DEFINE Above = PosX(500, -200, 300, 180, 0, 90);
GOAL Initialize_Process() { MoveJoint(Home, 100, 100, 0, 0); }
GOAL Execute_Process() {
  MoveJoint(Safe_Pos_1, 100, 100, 0, 0);
  MoveLinear(Above, 80, 80, 0, 0);
  MoveLinear(Above * Trans(0, 0, -20, 0, 0, 0), 50, 50, 0, 0);
  Delay(0.5);
}
GOAL Finalize_Process() { End(); }
"""
    text, digest = _emit(verifier, program)
    sequence = yaml.safe_load(text)["RobotSequence"]
    assert [s["command"] for s in sequence["steps"]] == ["MoveJoint", "MoveJoint", "MoveLinear", "MoveLinear", "Delay", "End"]
    assert [s["id"] for s in sequence["steps"]] == [1, 2, 3, 4, 5, 6]
    home, _, above, lowered, delay, _ = sequence["steps"]
    assert home["args"]["target_pose"] == {"PosX": [0, -300, 400, 180, 0, 90], "name": "Home"}  # the graph's pose
    assert (home["target"], home["goal"]) == ("Home", "Initialize_Process")
    assert above["args"]["target_pose"] == {"PosX": [500, -200, 300, 180, 0, 90], "name": "Above"}
    assert lowered["args"]["target_pose"]["PosX"][2] == 280
    assert delay["args"] == {"duration_sec": 0.5}
    assert sequence["verification"]["plan_format"] == "tdl"
    assert digest == steps_sha256(sequence["steps"])


def test_a_rejected_plan_gets_no_actions_file(verifier) -> None:
    report = verifier.verify(json.dumps([{"action": "move", "target": "Pos_5"}]))
    assert not report.approved
    with pytest.raises(ValueError, match="not approved"):
        approved_yaml(report, correlation_id="c", robot="ur10e", graph_fingerprint=None)


def test_executor_check_detects_changed_steps(verifier, tmp_path) -> None:
    text, digest = _emit(verifier, SEED_YAML)
    path = tmp_path / "actions.yaml"
    write_atomic(path, text)
    check = verify_actions_file(path)
    assert check and check.expected == digest == check.actual

    reformatted = yaml.safe_load(text)
    reformatted["RobotSequence"]["verification"]["timestamp"] = "later"  # outside the steps: still the approved steps
    path.write_text(yaml.safe_dump(reformatted, default_flow_style=True), encoding="utf-8")
    assert verify_actions_file(path)

    tampered = yaml.safe_load(text)
    tampered["RobotSequence"]["steps"][7]["target"] = "Pos_5"
    path.write_text(yaml.safe_dump(tampered, sort_keys=False), encoding="utf-8")
    check = verify_actions_file(path)
    assert not check and "changed after approval" in check.reason and check.expected == digest != check.actual

    del tampered["RobotSequence"]["verification"]
    path.write_text(yaml.safe_dump(tampered), encoding="utf-8")
    assert "no verification.sha256" in verify_actions_file(path).reason
    path.write_text("steps: [", encoding="utf-8")
    assert not verify_actions_file(path)
    assert not verify_actions_file(tmp_path / "missing.yaml")


def test_write_atomic_replaces_whole_files_and_leaves_no_debris(tmp_path, monkeypatch) -> None:
    path = tmp_path / "actions.yaml"
    write_atomic(path, "first\n")
    write_atomic(path, "second\n")
    assert path.read_text(encoding="utf-8") == "second\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["actions.yaml"]
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask

    def crash(src, dst):
        raise OSError("disk pulled")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk pulled"):
        write_atomic(path, "third\n")
    assert path.read_text(encoding="utf-8") == "second\n"  # the old file, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["actions.yaml"]
