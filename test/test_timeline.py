"""The motion and gripper timeline shared by the gripper and pick-and-place rules."""

from __future__ import annotations

import pytest

from conftest import CONFIG
from plan_verifier.analysis.points import format_xyz, pose_points
from plan_verifier.analysis.timeline import build_timeline, descent_before, is_descent, lift_after
from plan_verifier.robots.spec import load_robot
from plan_verifier.tdl.lower import lower_tdl

UR10E = load_robot("ur10e")

PICK_AND_PLACE = """
GOAL Execute_Process() {
    SPAWN SetDigitalOutput(1, 0) WITH WAIT;
    SPAWN MoveLinear(PosX(400, 0, 200, 0, 180, 0), 100, 50, 0, 0) WITH WAIT;
    SPAWN MoveLinear(PosX(400, 0, 100, 0, 180, 0), 50, 50, 0, 0) WITH WAIT;
    SPAWN SetDigitalOutput(1, 1) WITH WAIT;
    SPAWN Delay(0.5) WITH WAIT;
    SPAWN MoveLinear(PosX(400, 0, 200, 0, 180, 0), 50, 50, 0, 0) WITH WAIT;
    SPAWN MoveLinear(PosX(400, 300, 100, 0, 180, 0), 50, 50, 0, 0) WITH WAIT;
    SPAWN SetDigitalOutput(1, 0) WITH WAIT;
    SPAWN SetDigitalOutput(1, 0) WITH WAIT;
    SPAWN MoveLinear(PosX(400, 300, 200, 0, 180, 0), 50, 50, 0, 0) WITH WAIT;
}
"""


def timeline(text, robot=UR10E):
    return build_timeline(lower_tdl(text), robot)


def test_gripper_states_grasp_release_and_redundancy():
    t = timeline(PICK_AND_PLACE)
    assert (t.port, t.spec_port, t.inferred_port) == (1, 1, False)
    opened, grasp, release, again = t.gripper
    assert (opened.closes, opened.state_before, opened.grasps, opened.releases) == (False, None, False, False)
    assert (grasp.grasps, grasp.state_before, grasp.holding_before) == (True, "open", False)
    assert (release.releases, release.holding_before) == (True, True)
    assert again.redundant and not again.releases
    assert t.holding_at_end is None


def test_moves_around_an_action():
    t = timeline(PICK_AND_PLACE)
    opened, grasp, release, again = t.gripper
    assert [m.xyz for m in grasp.moves_before] == [(400, 0, 200), (400, 0, 100)]
    assert grasp.move_after.xyz == (400, 0, 200)
    assert grasp.delay_after is not None and grasp.delay_after.command == "Delay"
    assert release.delay_after is None
    # the next gripper command comes before the next move: nothing moves after the release itself
    assert release.move_after is None
    assert again.move_after.xyz == (400, 300, 200)
    assert descent_before(grasp) is True and lift_after(grasp) is True
    assert descent_before(release) is False  # reached sideways and down by 100 mm over a 300 mm drift
    assert lift_after(release) is False


def test_holding_at_end_is_the_last_grasp():
    t = timeline("""
    GOAL Execute_Process() {
        SPAWN SetDigitalOutput(1, 1) WITH WAIT;
        SPAWN SetDigitalOutput(1, 0) WITH WAIT;
        SPAWN SetDigitalOutput(1, 1) WITH WAIT;
    }""")
    assert t.holding_at_end is t.gripper[2]


def test_polarity_from_the_spec(tmp_path):
    spec = tmp_path / "low.yaml"
    spec.write_text((CONFIG / "robots" / "ur5e.yaml").read_text(encoding="utf-8")
                    .replace("gripper: {port: 1, close_value: 1}", "gripper: {port: 1, close_value: 0}"), encoding="utf-8")
    t = timeline("GOAL G() { SPAWN SetDigitalOutput(1, 0) WITH WAIT; }", load_robot(str(spec)))
    assert t.gripper[0].closes and t.gripper[0].grasps


@pytest.mark.parametrize(("outputs", "port", "inferred"), [
    ([0, 0], 0, True),          # one other output: the program's gripper
    ([0, 1], 1, False),         # the spec's output is used: that is the gripper
    ([0, 2], None, False),      # two other outputs: no way to tell
    ([], None, False),
])
def test_gripper_port_inference(outputs, port, inferred):
    body = "".join(f"SPAWN SetDigitalOutput({o}, 1) WITH WAIT;\n" for o in outputs)
    t = timeline(f"GOAL G() {{\n{body}SPAWN Delay(0.5) WITH WAIT;\n}}")
    assert (t.port, t.inferred_port) == (port, inferred)
    assert len(t.gripper) == (len([o for o in outputs if o == port]) if port is not None else 0)


def test_a_move_to_a_run_time_position_is_still_a_move():
    # Regression: moves whose target cannot be evaluated used to be left out, so the
    # approach looked like the last move before the grasp and "no descent" was reported.
    t = timeline("""
    GOAL G() {
        SPAWN SetDigitalOutput(1, 0) WITH WAIT;
        SPAWN Assign(pick_from_camera, GetAnalogInput(3)) WITH WAIT;
        SPAWN MoveLinear(PosX(400, 0, 200, 0, 180, 0), 100, 50, 0, 0) WITH WAIT;
        SPAWN MoveLinear(pick_from_camera, 50, 50, 0, 0) WITH WAIT;
        SPAWN SetDigitalOutput(1, 1) WITH WAIT;
        SPAWN MotionWait(0) WITH WAIT;
        SPAWN MoveLinear(PosX(400, 0, 200, 0, 180, 0), 50, 50, 0, 0) WITH WAIT;
    }""")
    assert [m.step.command for m in t.moves] == ["MoveLinear", "MoveLinear", "MoveLinear"]
    grasp = t.gripper[1]
    assert grasp.moves_before[-1].xyz is None
    assert descent_before(grasp) is None and lift_after(grasp) is None


def test_joint_moves_are_placed_by_forward_kinematics():
    t = timeline("GOAL G() { SPAWN MoveJoint(PosJ(0, 0, 90, 0, 90, 0), 50, 50, 0, 0) WITH WAIT; }")
    assert t.moves[0].xyz == pytest.approx((-492.85, -174.15, -507.4))


def test_descent_allows_some_drift_but_not_a_traverse():
    t = timeline("""
    GOAL G() {
        SPAWN MoveLinear(PosX(400, 0, 200, 0, 180, 0), 100, 50, 0, 0) WITH WAIT;
        SPAWN MoveLinear(PosX(430, 0, 100, 0, 180, 0), 100, 50, 0, 0) WITH WAIT;
        SPAWN MoveLinear(PosX(800, 0, 50, 0, 180, 0), 100, 50, 0, 0) WITH WAIT;
    }""")
    a, b, c = t.moves
    assert is_descent(a, b) and not is_descent(b, c)


def test_pose_points_of_an_ambiguous_offset():
    plan = lower_tdl("""
    GOAL G() {
        SPAWN Assign(p, PosX(400, 0, 50, 0, 180, 0)) WITH WAIT;
        SPAWN Assign(q, p * Trans(0, 0, 100, 0, 0, 0)) WITH WAIT;
    }""")
    q = next(s.pose for s in plan.pose_sites if s.pose.name == "q")
    base, tool = pose_points(q, UR10E)
    assert (base.alternative, tool.alternative) == (False, True)
    assert format_xyz(base.xyz) == "(400,0,150)" and format_xyz(tool.xyz) == "(400,0,-50)"
