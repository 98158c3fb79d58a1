"""A cell's taught joints are used only by the robot they were taught on (motion/taught.py).

The shipped cells carry UR10e configurations (`graph lint --teach`). Verified
with a Doosan arm, those angles are another robot's: used as they are, they
put the M1013's forearm through the table and every plan on the cell would be
rejected. Joints that do not put the robot's flange or a tool's TCP on the
position's pose are set aside for the pose; joints without a pose stay.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from conftest import ROOT
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.model import load_cell_file as load_cell
from plan_verifier.kinematics import arm_for
from plan_verifier.motion.lint import lint_cell
from plan_verifier.motion.taught import TaughtJoints
from plan_verifier.pipeline import Verifier
from plan_verifier.robots.spec import load_robot

WELD_CELL = ROOT / "config" / "cells" / "weld_cell.yaml"


def taught(robot: str) -> TaughtJoints:
    return TaughtJoints(arm_for(load_robot(robot)), load_cell(WELD_CELL))


def test_the_ur10e_uses_the_joints_taught_on_it_and_the_m1013_does_not() -> None:
    cell = load_cell(WELD_CELL)
    with_joints = [p for p in cell.positions.values() if p.joints is not None]
    assert with_joints
    assert all(taught("ur10e").usable(p) for p in with_joints)
    assert not any(taught("m1013").usable(p) for p in with_joints)


def test_joints_without_a_pose_are_kept_and_a_position_without_joints_has_none() -> None:
    cell = load_cell(WELD_CELL)
    home = cell.positions["Home"]
    assert taught("m1013").usable(dataclasses.replace(home, pose=None))
    assert not taught("ur10e").usable(dataclasses.replace(home, joints=None))


def test_joints_a_few_degrees_off_the_pose_are_not_the_pose() -> None:
    home = load_cell(WELD_CELL).positions["Home"]
    nudged = dataclasses.replace(home, joints=(home.joints[0] + 2.0, *home.joints[1:]))
    assert not taught("ur10e").usable(nudged)


@pytest.mark.parametrize("robot", ["ur10e", "m1013"])
def test_a_json_plan_on_the_weld_cell_is_approved_on_either_arm(robot: str) -> None:
    plan = (ROOT / "examples" / "weld_seam_1.json").read_text(encoding="utf-8")
    report = Verifier(robot, graph=EmbeddedGraph.from_file(WELD_CELL)).verify(plan)
    assert report.verdict == "PASS", [f.message for f in report.findings]
    start = report.execution["start"]
    home = load_cell(WELD_CELL).positions["Home"].joints
    assert start["source"] == "position 'Home'"
    assert (start["joints_deg"] == pytest.approx(list(home))) is (robot == "ur10e")


def test_lint_with_another_arm_solves_the_poses_instead_of_using_the_ur10e_joints() -> None:
    cell = load_cell(WELD_CELL)
    result = lint_cell(cell, load_robot("m1013"))
    home = result.configurations["Home"]
    assert home is not None and home != pytest.approx(cell.positions["Home"].joints)
    assert not any("joint limits" in p.message for p in result.problems), json.dumps([p.message for p in result.problems])
