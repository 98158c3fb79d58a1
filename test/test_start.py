"""Where the execution level starts without the robot's joints (`motion.start`, R-KIN-009, R-KIN-010, issue 19).

The start is one the robot can be standing in; a start position with none is the cell's problem
(R-KIN-009, `graph lint`), never a collision at 0 % of the first motion; when the verdict depends on
which configuration of the start position the robot is in, R-KIN-010 says so; the approval records its
start and an executor refuses to run it from another.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import ROOT

from plan_verifier.actions import approved_yaml
from plan_verifier.cli.main import main
from plan_verifier.executor.job import JobRejected, prepare_job, start_pose
from plan_verifier.executor.kinematic import check_start, verified_start
from plan_verifier.findings import Severity
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.open import open_graph
from plan_verifier.motion.lint import lint_cell
from plan_verifier.motion.start import position_candidates, start_for
from plan_verifier.pipeline import Verifier
from plan_verifier.robots.spec import load_robot

START_CELL = ROOT / "test" / "fixtures" / "cells" / "start_cell.yaml"
WELD_SEAM_1 = (ROOT / "examples" / "weld_seam_1.json").read_text(encoding="utf-8")
#: From Pos_1 (no taught joints in the shipped weld cell) back to Safe_Pos_1 and Home (both taught).
PUT_AWAY = json.dumps({"name": "back from Pos_1", "steps": [{"id": 1, "action": "move", "target": "Safe_Pos_1"},
                                                            {"id": 2, "action": "move", "target": "Home"}]})
AT_POS_1 = {"start_position": "Pos_1", "start_tool": "Welder"}


def weld(robot: str = "ur10e") -> Verifier:
    return Verifier(robot, graph=open_graph(cell="weld_cell"))


def at_first_instant(report) -> list:
    """Findings reported at 0 % of a motion (the collision rules' `fraction`)."""
    return [f for f in report.findings if f.evidence.get("fraction") == 0]


# --------------------------------------------------------------------------- a nearest start in self-collision


def test_the_h2017s_home_nearest_to_its_home_joints_is_in_self_collision_and_is_not_the_start() -> None:
    """A real case: on the weld cell, the H2017's IK solution of Home nearest to home_joints_deg has its upper
    arm against wrist 1; the plan used to be rejected "at 0 % of move to Home". It starts from a free one."""
    robot, cell = load_robot("h2017"), open_graph(cell="weld_cell").snapshot()
    found = position_candidates(robot, cell, "Home")
    nearest = found.within_limits[0]
    assert not nearest.free and {(c.body, c.other, c.kind) for c in nearest.contacts} >= {("link2.1", "link4.1", "self")}
    assert found.free, "Home has configurations the H2017 can stand in"
    from_nearest = weld("h2017").verify(WELD_SEAM_1, start_joints=nearest.joints_deg)
    assert [(f.rule_id, f.evidence["fraction"]) for f in at_first_instant(from_nearest)] == [("R-COL-003", 0)]  # what it was

    report = weld("h2017").verify(WELD_SEAM_1)
    start = report.motion.start
    assert (start.source, start.assumed, start.problem) == ("position 'Home'", True, None)
    assert start.joints_deg == pytest.approx(found.choice().joints_deg)
    assert not at_first_instant(report) and report.approved, [f.message for f in report.findings]
    assert report.execution["start"]["assumed"] is True
    verification = yaml.safe_load(approved_yaml(report, correlation_id="h2017", robot="h2017", graph_fingerprint=None)[0])[
        "RobotSequence"]["verification"]
    assert verification["start_joints_deg"] == pytest.approx(list(start.joints_deg), abs=1e-3)
    assert verification["start_joints_source"] == "start_position"


def test_candidates_are_within_the_limits_nearest_to_home_first_and_say_what_they_touch() -> None:
    robot, cell = load_robot("ur10e"), load_cell(START_CELL)
    found = position_candidates(robot, cell, "Home")
    home = np.radians(robot.home_joints_deg)
    distances = [float(np.linalg.norm(c.q - home)) for c in found.within_limits]
    assert found.solutions == len(found.within_limits) == 8 and distances == sorted(distances)
    assert found.choice() is found.within_limits[0] and found.choice().clear
    taught = position_candidates(robot, open_graph(cell="weld_cell").snapshot(), "Home")
    assert taught.taught and len(taught.within_limits) == 1 and taught.within_limits[0].free
    assert position_candidates(robot, cell, "Nowhere") is None


def test_taught_joints_and_given_joints_are_not_assumed_and_have_no_alternatives() -> None:
    taught = weld().verify(WELD_SEAM_1)
    assert (taught.motion.start.assumed, taught.motion.start.alternatives) == (False, ())
    given = weld().verify(PUT_AWAY, start_joints=[139.331, -100.942, 128.646, -117.703, -90, 139.331], **AT_POS_1)
    assert (given.motion.start.source, given.motion.start.assumed, given.motion.start.alternatives) == ("request", False, ())
    assert "R-KIN-010" not in {f.rule_id for f in given.findings} and given.verdict == "PASS"


# --------------------------------------------------------------------------- the verdict depends on the start


def test_a_plan_that_passes_from_one_start_solution_and_fails_from_another_carries_the_warning() -> None:
    report = weld().verify(PUT_AWAY, **AT_POS_1)
    (warning,) = [f for f in report.findings if f.rule_id == "R-KIN-010"]
    assert warning.severity is Severity.WARNING and warning.indeterminate
    assert report.verdict == "PARTIAL" and report.approved and report.outcome == "UNKNOWN" and "start_dependent" in report.reason_codes
    assert "from which the plan is approved" in warning.message and "it is rejected (step 1 R-COL-002, step 1 R-COL-003)" in warning.message
    (other,) = warning.evidence["rejecting"]
    assert warning.evidence["assumed_rejects"] == [] and warning.evidence["approving_deg"] == []
    assert other["rejects"] == [{"rule_id": "R-COL-002", "step": 1}, {"rule_id": "R-COL-003", "step": 1}]
    # From that other configuration, given as the robot's joints, the plan is indeed rejected at step 1 ...
    there = weld().verify(PUT_AWAY, start_joints=other["start_deg"], **AT_POS_1)
    assert {(f.rule_id, f.step) for f in there.findings if f.severity is Severity.CRITICAL} == {("R-COL-002", 1), ("R-COL-003", 1)}
    # ... and from the assumed one it is clean, with nothing to warn about.
    here = weld().verify(PUT_AWAY, start_joints=warning.evidence["assumed_deg"], **AT_POS_1)
    assert here.verdict == "PASS" and here.reason_codes == ()


def test_the_warning_keeps_the_assumed_starts_rejection_and_names_the_starts_that_pass() -> None:
    """UR16e on the weld cell (the cell's taught joints are the UR10e's): from Home's configuration nearest to home
    the way to Pos_2 runs into the jig; from two of the three other configurations of Home the plan is clean."""
    report = weld("ur16e").verify(json.dumps({"steps": [{"id": 1, "action": "move", "target": "Safe_Pos_2"},
                                                        {"id": 2, "action": "move", "target": "Pos_2"}]}))
    (warning,) = [f for f in report.findings if f.rule_id == "R-KIN-010"]
    assert report.verdict == "FAIL" and not report.approved  # never approved on a start that merely happened to pass
    assert warning.evidence["assumed_rejects"] and len(warning.evidence["approving_deg"]) == 2
    assert "from which the plan is rejected" in warning.message and "2 approve it" in warning.message


def test_a_run_from_another_start_stops_where_it_joins_the_assumed_run(tmp_path: Path) -> None:
    """Safe_Pos_1 is taught: from either configuration of Pos_1 the arm is in the same configuration after step 1,
    so the other run stops at step 2 and takes the assumed run's findings from there on."""
    from plan_verifier.context import RuleContext

    verifier = weld()
    report = verifier.verify(PUT_AWAY, **AT_POS_1)
    cell = report.cell
    ctx = RuleContext(report.plan, verifier.robot, cell=cell, start=verifier.start_state(cell, "Pos_1", "Welder"))
    (other,) = ctx.start_alternatives
    assert other.joined_at == 2 and {m.motion.step for m in other.motions} == {1}
    untaught = Verifier("ur10e", graph=EmbeddedGraph.from_file(untaught_weld_cell(tmp_path)))
    report = untaught.verify(PUT_AWAY, **AT_POS_1)
    cell = report.cell
    ctx = RuleContext(report.plan, untaught.robot, cell=cell, start=untaught.start_state(cell, "Pos_1", "Welder"))
    assert ctx.start_alternatives and all(run.joined_at is None for run in ctx.start_alternatives)  # every position a pose


# --------------------------------------------------------------------------- no configuration to stand in


def test_a_start_position_with_no_collision_free_configuration_is_the_cells_problem_not_a_collision_at_0_percent() -> None:
    plan = json.dumps({"steps": [{"id": 1, "action": "move", "target": "Over_Press"}, {"id": 2, "action": "move", "target": "Home"}]})
    report = Verifier("ur10e", graph=EmbeddedGraph.from_file(START_CELL)).verify(plan, start_position="Buried")
    (problem,) = [f for f in report.findings if f.rule_id == "R-KIN-009"]
    assert problem.severity is Severity.CRITICAL and problem.indeterminate and problem.step is None
    assert "cannot be standing at start position 'Buried'" in problem.message and "each of its 8 configurations" in problem.message
    assert problem.evidence["position"] == "Buried" and problem.evidence["kind"] == "collision"
    assert {c["other"] for c in problem.evidence["contacts"]} == {"Press"}
    assert not any(f.rule_id.startswith("R-COL") for f in report.findings), [f.message for f in report.findings]
    assert not report.approved and report.outcome == "UNKNOWN" and report.reason_codes == ("start_infeasible",)
    assert report.motion.start.alternatives == ()
    first = report.motion.motions[0]
    assert len(first.s) == 1 and first.s[0] == 1.0  # the way out of a start the robot cannot be in is not the plan's


def test_taught_joints_in_collision_are_reported_as_the_start_problem(tmp_path: Path) -> None:
    """Joints taught for Home that reach its pose with the forearm through the wrist: the cell author's word, but not
    a configuration the robot can be in."""
    robot = load_robot("ur10e")
    cell = yaml.safe_load((ROOT / "config" / "cells" / "weld_cell.yaml").read_text(encoding="utf-8"))
    home = next(p for p in cell["positions"] if p["name"] == "Home")
    home.pop("joints")
    colliding = next(c for c in position_candidates(robot, load_cell_document(cell, tmp_path), "Home").within_limits
                     if any(t.kind == "self" for t in c.contacts))
    home["joints"] = [round(v, 6) for v in colliding.joints_deg]
    path = tmp_path / "taught.yaml"
    path.write_text(yaml.safe_dump(cell), encoding="utf-8")
    report = Verifier(robot, graph=EmbeddedGraph.from_file(path)).verify(WELD_SEAM_1)
    (problem,) = [f for f in report.findings if f.rule_id == "R-KIN-009"]
    assert problem.evidence["taught"] and "taught joints of start position 'Home'" in problem.message
    assert not at_first_instant(report)


def test_home_joints_in_collision_are_reported_when_there_is_no_start_position(tmp_path: Path) -> None:
    robot = load_robot("ur10e")
    flange = start_for(robot, None, None).joints_deg
    from plan_verifier.kinematics.arm import arm_for

    x, y, z = arm_for(robot).tcp_pose(np.radians(flange), np.eye(4))[:3, 3]
    cell = {"name": "boxed", "initial_state": {"position": "Somewhere", "tool": "none"},
            "positions": [{"name": "Somewhere", "role": "home"}], "moves": [], "one_way_moves": [], "tools": [], "routines": [],
            "collision_objects": [{"name": "Crate", "shape": "box", "size": [200, 200, 200], "pose": [float(x), float(y), float(z), 0, 0, 0]}]}
    path = tmp_path / "boxed.yaml"
    path.write_text(yaml.safe_dump(cell), encoding="utf-8")
    tdl = "GOAL Main() {\n    SPAWN MoveJoint(PosX(500, 0, 300, 180, 0, 0), 60, 60, 0, 0) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n"
    report = Verifier(robot, graph=EmbeddedGraph.from_file(path)).verify(tdl)
    (problem,) = [f for f in report.findings if f.rule_id == "R-KIN-009"]
    assert problem.evidence["position"] == "home_joints_deg" and "Crate" in problem.message
    assert not at_first_instant(report)


def test_graph_lint_lists_positions_with_no_collision_free_configuration(capsys) -> None:
    result = lint_cell(load_cell(START_CELL), load_robot("ur10e"))
    assert result.no_free_configuration == (("Buried", "the flange"),)
    assert any(p.where == "Buried" and p.message.startswith("no configuration the robot can stand in") for p in result.problems)
    assert main(["graph", "lint", str(START_CELL), "--format", "json"]) == 1
    listed = json.loads(capsys.readouterr().out)
    assert listed["no_collision_free_configuration"] == [{"position": "Buried", "tool": "the flange"}]
    assert lint_cell(open_graph(cell="weld_cell").snapshot(), load_robot("ur10e")).no_free_configuration == ()


# --------------------------------------------------------------------------- the executor runs only from the verified start


def test_the_executor_refuses_an_approval_from_another_start_and_by_default_starts_where_the_verifier_assumes() -> None:
    report = weld().verify(PUT_AWAY, **AT_POS_1)
    text, sha = approved_yaml(report, correlation_id="put-away", robot="ur10e", graph_fingerprint=report.cell.fingerprint)
    cell = report.cell
    state = start_pose(cell, "Pos_1", "Welder")
    job = prepare_job(text, sha256=sha, correlation_id="put-away", start=state, cell=cell, robot=load_robot("ur10e"))
    assumed = verified_start(load_robot("ur10e"), cell, state)
    assert assumed == pytest.approx(report.motion.start.joints_deg, abs=1e-6)
    assert assumed == pytest.approx(job.verified_start_deg, abs=1e-3)
    check_start(job, assumed)  # where it was verified from: runs
    elsewhere = report.motion.start.alternatives[0]
    with pytest.raises(JobRejected, match="from the joints the plan was verified from"):
        check_start(job, elsewhere)
    check_start(job, elsewhere, max_offset_deg=0)  # explicitly not checked
    assert verified_start(load_robot("ur10e"), cell, start_pose(cell)) == pytest.approx(cell.positions["Home"].joints)


# --------------------------------------------------------------------------- helpers


def load_cell(path: Path):
    return EmbeddedGraph.from_file(path).snapshot()


def load_cell_document(document: dict, tmp_path: Path):
    path = tmp_path / "cell.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return load_cell(path)


def untaught_weld_cell(tmp_path: Path) -> Path:
    """The shipped weld cell without its taught joints: every position only a pose."""
    document = yaml.safe_load((ROOT / "config" / "cells" / "weld_cell.yaml").read_text(encoding="utf-8"))
    for position in document["positions"]:
        position.pop("joints", None)
    path = tmp_path / "weld_cell_untaught.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path
