"""The kinematic simulated execution: verified joint targets and durations followed, deviations and collisions caught."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

from plan_verifier.actions import approved_yaml
from plan_verifier.executor.job import JobRejected, prepare_job, start_pose
from plan_verifier.executor.kinematic import Contacts, Fault, Follower, commanded_at, job_points, sample_times, start_offset
from plan_verifier.graph.open import open_graph
from plan_verifier.motion.verified import step_motions
from plan_verifier.pipeline import Verifier
from plan_verifier.robot_sequence import steps_sha256
from plan_verifier.robots.spec import load_robot

CELL = open_graph(cell="weld_cell").snapshot()
ROBOT = load_robot("ur10e")
PROGRAM = """
GOAL Execute_Process() {
  MoveJoint(PosJ(170, -90, 90, -90, -90, 0), 60, 60, 0, 0);
  MoveLinear(PosX(500, -200, 300, 180, 0, 90), 100, 200, 0, 0);
  Delay(0.5);
  MoveLinear(PosX(500, 200, 300, 180, 0, 90), 100, 200, 0, 0);
  End();
}
"""


def approved(program: str = PROGRAM):
    report = Verifier(ROBOT).verify(program)
    assert report.approved, [f.message for f in report.findings]
    text, sha = approved_yaml(report, correlation_id="job", robot="ur10e", graph_fingerprint=None)
    return report, text, sha


def follow(job, start, contacts=None, fault=Fault()):
    """Every sample of the job (each publish period of 0.05 s), or up to the first failure."""
    return follow_with(job, start, contacts, fault, tolerance_deg=1.0)


def test_durations_and_targets_come_from_the_verified_blocks() -> None:
    report, text, sha = approved()
    job = prepare_job(text, sha256=sha, correlation_id="job", start=start_pose(None), robot=ROBOT)
    verified = step_motions(report.motion)
    for segment in job.segments:
        if segment.step in verified:
            assert segment.duration_s == verified[segment.step].duration_s and segment.how == "verified joint trajectory"
            assert segment.points[-1] == (segment.duration_s, tuple(float(v) for v in verified[segment.step].joints_deg))
            assert segment.after.joints == segment.points[-1][1] and segment.tool == 0
        else:
            assert segment.points == ()
    assert job.duration_s == pytest.approx(report.execution["cycle_time_s"] + 0.5, abs=0.01)  # plus the Delay


def test_a_clean_run_follows_the_verified_configurations_and_ends_at_the_last_target() -> None:
    report, text, sha = approved()
    job = prepare_job(text, sha256=sha, correlation_id="job", start=start_pose(None), robot=ROBOT)
    home = report.motion.start.joints_deg
    samples, follower = follow(job, home, Contacts(ROBOT, None))
    assert not [s for _, s in samples if s.failure]
    assert tuple(follower.position) == pytest.approx(job.segments[3].points[-1][1])
    # Inside the linear move the commanded joints are the verified path: the TCP stays on the line (within ~1 mm).
    line = next(m for m in report.motion.motions if m.motion.step == 2)
    arm = Contacts(ROBOT, None).arm
    tcp = arm.tcp_pose(np.radians([s.commanded_deg for step, s in samples if step == 2]), 0)[:, :3, 3]
    a, b = line.tcp_mm[0], line.tcp_mm[-1]
    offsets = np.linalg.norm(np.cross(tcp - a, b - a), axis=1) / np.linalg.norm(b - a)
    assert offsets.max() < 2.0


def test_an_injected_fault_is_a_deviation_failure() -> None:
    _, text, sha = approved()
    job = prepare_job(text, sha256=sha, correlation_id="job", start=start_pose(None), robot=ROBOT)
    samples, _ = follow(job, ROBOT.home_joints_deg, fault=Fault(joint=3, offset_deg=2.5, after_s=1.0))
    step, last = samples[-1]
    assert last.failure.startswith("deviation: joint 3 is 2.50°") and last.reached_deg[2] - last.commanded_deg[2] == pytest.approx(2.5)
    at = sum(s.duration_s for s in job.segments if s.step < step) + last.t_s
    assert 1.0 <= at <= 1.0 + 0.05 + 1e-9  # the first sample after the fault begins
    clean, _ = follow(job, ROBOT.home_joints_deg, fault=Fault(joint=3, offset_deg=0.5))  # within the 1° tolerance
    assert not [s for _, s in clean if s.failure]


def test_a_fault_that_drives_the_arm_into_an_obstacle_is_a_collision() -> None:
    contacts = Contacts(ROBOT, CELL)
    # The arm folded down to the table: the wrist and tool go through the floor.
    assert contacts.contact(np.array([170.0, -20.0, 120.0, -90.0, -90.0, 0.0]), 0).startswith("collision:")
    assert contacts.contact(np.asarray(ROBOT.home_joints_deg, dtype=float), 0) is None


def test_the_whole_job_is_one_trajectory_with_holds() -> None:
    _, text, sha = approved()
    job = prepare_job(text, sha256=sha, correlation_id="job", start=start_pose(None), robot=ROBOT)
    points = job_points(job, ROBOT.home_joints_deg)
    times = [t for t, _ in points]
    assert times == sorted(times) and times[-1] == pytest.approx(job.duration_s)
    delay = next(s for s in job.segments if s.step == 3)
    held = [q for t, q in points if t == pytest.approx(sum(s.duration_s for s in job.segments if s.step <= 3))]
    assert held and held[-1] == job.segments[1].points[-1][1]  # the Delay holds the arm still
    assert delay.points == () and commanded_at(delay, np.array(held[-1]), 0.3).tolist() == list(held[-1])


def test_an_unreadable_verified_block_is_rejected() -> None:
    _, text, _ = approved()
    document = yaml.safe_load(text)
    document["RobotSequence"]["steps"][0]["verified"]["joints_deg"] = "home"
    document["RobotSequence"]["verification"]["sha256"] = sha = steps_sha256(document["RobotSequence"]["steps"])
    with pytest.raises(JobRejected, match="unreadable verified block"):
        prepare_job(yaml.safe_dump(document, sort_keys=False), sha256=sha, correlation_id="job", start=start_pose(None), robot=ROBOT)


def test_the_offset_from_the_verified_start_is_measured() -> None:
    report, text, sha = approved()
    job = prepare_job(text, sha256=sha, correlation_id="job", start=start_pose(None), robot=ROBOT)
    assert job.verified_start_deg == tuple(report.motion.start.joints_deg)
    assert start_offset(job, job.verified_start_deg) == 0.0
    moved = list(job.verified_start_deg)
    moved[4] += 7.5
    assert start_offset(job, moved) == pytest.approx(7.5)
    document = yaml.safe_load(text)
    del document["RobotSequence"]["verification"]["start_joints_deg"]
    older = prepare_job(yaml.safe_dump(document, sort_keys=False), sha256=sha, correlation_id="job", start=start_pose(None), robot=ROBOT)
    assert start_offset(older, moved) is None


def test_a_fault_that_drives_the_arm_into_a_tool_stand_ends_the_job_as_a_collision() -> None:
    verifier = Verifier(ROBOT, graph=open_graph(cell="weld_cell"))
    plan = json.dumps([{"id": 1, "action": "move", "target": "Tool_Weld_Safe_Position"},
                       {"id": 2, "action": "move", "target": "Tool_Weld_Position"}])
    report = verifier.verify(plan)
    text, sha = approved_yaml(report, correlation_id="job", robot="ur10e", graph_fingerprint=None)
    job = prepare_job(text, sha256=sha, correlation_id="job", start=start_pose(CELL), cell=CELL, robot=ROBOT)
    contacts = Contacts(ROBOT, CELL)
    clean, _ = follow(job, report.motion.start.joints_deg, contacts)
    assert not [s for _, s in clean if s.failure]
    # The shoulder 30° low (with the deviation check out of the way): the wrist goes into the Welder's stand.
    follower_fault = Fault(joint=2, offset_deg=30.0, after_s=0.5)
    samples, _ = follow_with(job, report.motion.start.joints_deg, contacts, follower_fault, tolerance_deg=180.0)
    failure = samples[-1][1].failure
    assert failure.startswith("collision: wrist 3 (link6) in ToolStand_Welder by"), failure


def follow_with(job, start, contacts, fault, *, tolerance_deg):
    follower = Follower(job, start, contacts, fault=fault, tolerance_deg=tolerance_deg)
    samples = []
    for segment in job.segments:
        for t in sample_times(segment.duration_s, 0.05):
            samples.append((segment.step, follower.sample(segment, t)))
            if samples[-1][1].failure:
                return samples, follower
        follower.end(segment)
    return samples, follower
