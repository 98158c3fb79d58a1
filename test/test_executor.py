"""The simulated executor's core: approvals become timed steps; the walk changes the robot state."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from plan_verifier.kinematics.chain import flange_position
from plan_verifier.actions import approved_yaml
from plan_verifier.executor.job import JobRejected, RobotPose, Timing, prepare_job, start_pose
from plan_verifier.executor.runner import ABORTED, FINISHED, STARTED, SUCCEEDED, run_job
from plan_verifier.graph.open import open_graph
from plan_verifier.pipeline import Verifier
from plan_verifier.robot_sequence import steps_sha256
from plan_verifier.robots.spec import load_robot

ROOT = Path(__file__).resolve().parents[1]
CELL = open_graph(cell="weld_cell").snapshot()
ROBOT = load_robot("ur10e")
VERIFIER = Verifier(ROBOT, graph=open_graph(cell="weld_cell"))


def approval(plan: str, robot: str = "ur10e", *, verified: bool = False, **start) -> tuple[str, str]:
    """The approved YAML; without `verified`, as a file from before the execution level (the estimates' case)."""
    report = VERIFIER.verify(plan, **start)
    assert report.approved, report.findings
    text, sha = approved_yaml(report, correlation_id="job", robot=robot, graph_fingerprint=CELL.fingerprint)
    if verified:
        return text, sha
    document = yaml.safe_load(text)
    for step in document["RobotSequence"]["steps"]:
        step.pop("verified", None)
    document["RobotSequence"]["verification"]["sha256"] = sha = steps_sha256(document["RobotSequence"]["steps"])
    return yaml.safe_dump(document, sort_keys=False), sha


def job(plan: str, *, verified: bool = False, **kwargs):
    text, sha = approval(plan, verified=verified)
    return prepare_job(text, sha256=sha, correlation_id="job", start=start_pose(CELL), cell=CELL, robot=ROBOT, **kwargs)


def test_json_steps_take_distance_over_velocity_and_the_stabilize_time():
    weld = job((ROOT / "examples" / "weld_seam_1.json").read_text())
    durations = {s.name: s.duration_s for s in weld.segments}
    # Tool_Weld_Safe_Position (-400,-400,350) -> Tool_Weld_Position (-400,-400,120): 230 mm at the default 250 mm/s
    assert durations["Move to Tool_Weld_Position"] == pytest.approx(230 / 250)
    assert durations["Move to Home"] == pytest.approx(math.dist((-400, -400, 350), (0, -300, 400)) / 250)
    assert durations["Attach Welder"] == 1.5 and durations["Tack Weld at Pos_1"] == 1.5
    assert weld.duration_s == pytest.approx(sum(s.duration_s for s in weld.segments))
    states = [(s.after.position, s.after.tool) for s in weld.segments]
    assert states[3] == ("Tool_Weld_Position", "Welder") and states[-1] == ("Pos_1", "Welder")


def test_a_step_velocity_and_the_cells_stabilize_time_are_used():
    plan = json.dumps({"steps": [
        {"id": 1, "action": "move", "target": "Tool_Weld_Safe_Position", "velocity": 100},
        {"id": 2, "action": "move", "target": "Tool_Weld_Position"},
        {"id": 3, "action": "routine", "target": "tool_attach", "position": "Tool_Weld_Position"},  # no stabilize: the cell's 1.5 s
        {"id": 4, "action": "routine", "target": "tool_release", "position": "Tool_Weld_Position"}]})
    steps = job(plan, timing=Timing(velocity_mm_s=115.0)).segments
    assert steps[0].duration_s == pytest.approx(math.dist((0, -300, 400), (-400, -400, 350)) / 100)
    assert steps[1].duration_s == pytest.approx(230 / 115)
    assert (steps[2].duration_s, steps[2].after.tool) == (1.5, "Welder")  # the tool on the stand there
    assert "SUPPORTED_AT" in steps[2].how
    assert steps[3].after.tool == "none"


def test_tdl_motions_delays_and_joint_moves():
    program = (ROOT / "examples" / "pick_and_place.tdl").read_text()
    steps = job(program).segments
    by_id = {s.step: s for s in steps}
    # MoveLinear A_Safe_Pose -> A_Grasp_Pose: 180 mm down at velocity 50 mm/s
    assert by_id[5].duration_s == pytest.approx(180 / 50) and by_id[5].how == "180.0 mm at 50 mm/s"
    assert by_id[3].duration_s == 0.5  # Delay(duration_sec=0.5)
    assert by_id[2].duration_s == 0.0  # I/O
    # poses that are not cell positions keep the robot at its last cell position (seed 003's simulation)
    assert {s.after.position for s in steps} == {"Home"}
    # MoveJoint to Home_Pose (a PosJ) from B_Safe_Pose: Cartesian path through the forward kinematics at the default speed
    home = flange_position(ROBOT, (180, -90, 90, -90, -90, 0))
    assert by_id[14].duration_s == pytest.approx(math.dist((450, 300, 300), home) / 250)


def test_a_joint_move_between_two_joint_targets_takes_the_largest_joint_travel():
    program = """GOAL Execute_Process() {
    MoveJoint(target_pose=PosJ(180, -90, 90, -90, -90, 0), velocity=30, acceleration=50, tool=0, blending_radius=0);
    MoveJoint(target_pose=PosJ(135, -90, 60, -90, -90, 0), velocity=30, acceleration=50, tool=0, blending_radius=0);
    End();
}
"""
    steps = job(program).segments
    assert steps[1].duration_s == pytest.approx(45 / 30) and "joint travel" in steps[1].how


def test_changed_steps_another_sha256_and_another_robot_are_rejected():
    text, sha = approval((ROOT / "examples" / "weld_seam_1.json").read_text())
    start = start_pose(CELL)
    with pytest.raises(JobRejected, match="changed after approval"):
        prepare_job(text.replace("Pos_1", "Pos_2"), sha256=sha, correlation_id="x", start=start, cell=CELL, robot=ROBOT)
    with pytest.raises(JobRejected, match="not the one in the approved YAML"):
        prepare_job(text, sha256="0" * 64, correlation_id="x", start=start, cell=CELL, robot=ROBOT)
    with pytest.raises(JobRejected, match="approved for robot ur10e, this executor runs ur5e"):
        prepare_job(text, sha256=sha, correlation_id="x", start=start, cell=CELL, robot=load_robot("ur5e"))
    with pytest.raises(JobRejected, match="cannot read"):
        prepare_job("RobotSequence: [", sha256=sha, correlation_id="x", start=start)
    assert prepare_job(text, sha256=sha, correlation_id="x", start=start).segments  # no cell, no robot: default timings


def test_without_a_cell_unknown_poses_take_the_default_move_time():
    text, sha = approval((ROOT / "examples" / "weld_seam_1.json").read_text())
    steps = prepare_job(text, sha256=sha, correlation_id="x", start=RobotPose("Home"), timing=Timing(move_s=3.0)).segments
    assert steps[1].duration_s == 3.0 and "unknown" in steps[1].how
    assert steps[3].after.tool == "Welder"  # the step names the tool


def test_run_job_reports_every_step_and_stops_when_the_wait_is_interrupted():
    weld = job((ROOT / "examples" / "weld_seam_1.json").read_text())
    start = start_pose(CELL)
    waited, events = [], []
    end = run_job(weld, start, sleep=lambda s: waited.append(s) or True, report=events.append)
    assert waited == [s.duration_s for s in weld.segments]
    assert [e.event for e in events] == [STARTED, FINISHED] * len(weld.segments) + [SUCCEEDED]
    assert end == weld.segments[-1].after and events[-1].planned_elapsed_s == pytest.approx(weld.duration_s)
    assert events[0].state == start  # a step's start reports the state before it

    events.clear()
    calls = iter([True, True, False])
    end = run_job(weld, start, sleep=lambda s: next(calls), report=events.append)
    assert events[-1].event == ABORTED and end == weld.segments[1].after


def test_a_step_whose_target_was_never_evaluated_is_never_run():
    """An approval from before issue 14 could carry `{expression: ...}` for a target nobody computed: the executor refuses it."""
    from plan_verifier import yaml_text
    from plan_verifier.robot_sequence import steps_sha256

    text, _ = approval((ROOT / "examples" / "pick_and_place.tdl").read_text())
    document = yaml.safe_load(text)
    step = next(s for s in document["RobotSequence"]["steps"] if s.get("target") == "A_Safe_Pose")
    step["args"]["target_pose"] = {"expression": "A_Safe_Pose"}
    sha = steps_sha256(document["RobotSequence"]["steps"])
    document["RobotSequence"]["verification"]["sha256"] = sha
    with pytest.raises(JobRejected, match="target_pose is an expression the verifier could not evaluate"):
        prepare_job(yaml_text.dump(document), sha256=sha, correlation_id="x", start=start_pose(CELL), cell=CELL, robot=ROBOT)
