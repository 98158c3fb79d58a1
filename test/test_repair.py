"""Issue 15: verified repair. Every case of the execution issue's "Why" gets the right answer; a repaired plan is
approved by `check` with the same inputs and does the same task; an approved plan comes back unchanged.

The task check here is independent of the repair's own: each gripper/IO event's TCP pose is taken from the
repaired plan's *simulated* run (forward kinematics of where the last motion before it ended) and compared with
the input's commanded pose.
"""

from __future__ import annotations

import json
import math

import jsonschema
import numpy as np
import pytest

from conftest import ROOT
from test_execution_acceptance import FIXTURE_CELL, WHY
from test_cli import SCHEMA, run_cli
from plan_verifier.evaluation.target_only import target_only_program
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.open import open_graph
from plan_verifier.kinematics.rigid import rotation_angle
from plan_verifier.motion.program import Motion, motion_program
from plan_verifier.pipeline import Verifier
from plan_verifier.repair import Verification, repair_plan
from plan_verifier.findings import Severity
from plan_verifier.repair.model import MotionModel
from plan_verifier.repair.result import NOT_REPAIRABLE
from plan_verifier.repair.task import task_difference, task_events
from plan_verifier.repair.verifying import screening_verifier
from plan_verifier.robots.spec import load_robot

CASES = {case.id: case.values for case in WHY}


def verifier(cell=None, robot: str = "ur10e") -> Verifier:
    return Verifier(robot, graph=EmbeddedGraph.from_file(str(cell)) if cell else None)


def simulated_event_poses(report, robot) -> list[tuple[str, np.ndarray]]:
    """(event command, TCP pose from the simulated end of the last motion before it), for a verified run."""
    model = MotionModel(robot, report.cell)
    motions = {m.step: m for m in motion_program(report.plan, report.cell, None).items if isinstance(m, Motion)}
    out, pose = [], None
    for step in report.plan.steps:
        if step.index in motions:
            simulated = report.motion.motion_at(step.index)
            tool = motions[step.index].tool
            mount = model.mount(tool_number=tool.number, cell_tool=tool.name)
            pose = model.arm.tcp_pose(np.radians(simulated[-1].q_deg[-1]), mount.tcp)
        elif step.command in ("SetDigitalOutput", "SetTool", "ToolChange"):
            out.append((step.command, pose))
    return out


@pytest.mark.parametrize("case", ["straight_line_across_the_base_axis", "fixture_between_two_safe_points"])
def test_the_through_base_line_and_the_fixture_come_back_repaired_and_verified(case: str) -> None:
    cell, unsafe = CASES[case][0], CASES[case][1]
    check = verifier(cell)
    result = repair_plan(unsafe, Verification(check))
    assert not result.original.approved and result.verified and result.edits and not result.unrepaired
    again = verifier(cell).verify(result.text)  # `check` with the same inputs
    assert again.approved and again.verdict in ("PASS", "PARTIAL")
    for edit in result.edits:  # every edit says what it fixes and why
        assert edit.fixes and edit.why


def test_candidates_are_screened_without_only_the_rules_that_never_reject_and_the_answer_is_the_full_pipelines() -> None:
    """Fail closed: the screen drops only rules that cannot emit CRITICAL (semantic rules stay; under the strict
    profile, where a warning rejects, nothing is dropped), and the repaired plan's report is the whole pipeline's."""
    check = verifier()
    screen = screening_verifier(check)
    dropped = set(check.rule_types) - set(screen.rule_types)
    assert dropped and set(screen.rule_types) <= set(check.rule_types)
    assert all(Severity.CRITICAL not in rule.severities() for rule in dropped)
    assert "R-KIN-010" in {rule.id for rule in dropped}  # the costly one: the plan run again from other start branches
    strict = Verifier("ur10e", profile="strict")
    assert screening_verifier(strict) is strict
    cell, unsafe = CASES["fixture_between_two_safe_points"][0], CASES["fixture_between_two_safe_points"][1]
    check = verifier(cell)
    result = repair_plan(unsafe, Verification(check))
    assert result.verified and result.edits
    full = check.verify(result.text)
    assert "R-KIN-010" in {f.rule_id for f in full.findings}  # a warning the screen does not look for: in the answer
    assert [(f.rule_id, f.severity, f.message) for f in result.report.findings] == \
        [(f.rule_id, f.severity, f.message) for f in full.findings]
    assert (result.report.verdict, result.report.score) == (full.verdict, full.score)  # the score counts every rule run


@pytest.mark.parametrize(("case", "rule"), [("1150_mm_out_tool_pointing_back", "R-KIN-001"),
                                            ("tool_pointing_up_wrist_under_the_table", "R-COL-001")])
def test_the_unreachable_orientation_and_the_tool_up_place_are_not_repairable(case: str, rule: str) -> None:
    cell, unsafe = CASES[case][0], CASES[case][1]
    result = repair_plan(unsafe, Verification(verifier(cell)))
    assert not result.verified and result.text == unsafe and not result.edits
    full = verifier(cell).verify(unsafe)  # unchanged: the answer is the whole pipeline's report of the input
    assert [(f.rule_id, f.message) for f in result.report.findings] == [(f.rule_id, f.message) for f in full.findings]
    assert [(f.rule_id, f.message) for f in result.original.findings] == [(f.rule_id, f.message) for f in full.findings]
    (item,) = [u for u in result.unrepaired if u.rule_id == rule]
    assert "never moves a target" in item.why and item.kind == NOT_REPAIRABLE
    assert item.alternative and "closest orientation" in item.alternative  # the nearest reachable alternative


def test_a_start_the_robot_cannot_be_standing_in_is_not_repairable() -> None:
    """The UR3e cannot reach the assembly cell's Home: a problem of the cell, reported as such, never a motion change."""
    spec = load_robot("ur3e")
    result = repair_plan(target_only_program(spec, 0).text, Verification(Verifier(spec, graph=open_graph(cell="assembly_cell"))))
    assert not result.verified
    (start,) = [u for u in result.unrepaired if u.rule_id == "R-KIN-009"]
    assert start.kind == NOT_REPAIRABLE and "start" in start.why


def test_the_nearest_orientation_offered_is_reachable_and_clear() -> None:
    """The alternative for the tool-up place: the turned pose it names is approved when the planner asks for it."""
    result = repair_plan(CASES["tool_pointing_up_wrist_under_the_table"][1], Verification(verifier()))
    turned = result.unrepaired[0].alternative.split(":")[0]
    assert turned.startswith("PosX(")
    report = verifier().verify(CASES["tool_pointing_up_wrist_under_the_table"][1].replace("PosX(400, 0, 60, 0, 0, 0)", turned))
    assert not [f for f in report.findings if f.rule_id.startswith(("R-KIN-001", "R-COL-001")) and f.severity.value == "CRITICAL"
                and f.step == 1 and "100%" in f.message]


def test_an_approved_plan_comes_back_unchanged() -> None:
    text = (ROOT / "examples" / "pick_and_place.tdl").read_text(encoding="utf-8")
    result = repair_plan(text, Verification(verifier()))
    assert result.verified and result.text == text and result.edits == () and result.unrepaired == ()


def test_the_text_keeps_its_names_comments_and_layout() -> None:
    """Only the edited lines differ: every input line is in the output, in order, except the ones an edit replaces."""
    program = ("// transfer across the base\nDEFINE A = PosX(500, -300, 300, 180, 0, 0);\nDEFINE B = PosX(-500, 300, 300, 180, 0, 0);\n"
               "GOAL Execute_Process() {\n    SPAWN MoveLinear(A, 100, 100, 0, 0) WITH WAIT;  // start\n"
               "    SPAWN MoveLinear(B, 1500, 100, 0, 0) WITH WAIT;  // across\n    SPAWN End() WITH WAIT;\n}\n")
    result = repair_plan(program, Verification(verifier()))
    assert result.verified
    replaced = {e.line for e in result.edits if e.before is not None}
    kept = [line for n, line in enumerate(program.split("\n"), start=1) if n not in replaced]
    out = iter(result.text.split("\n"))
    assert all(any(line == o for o in out) for line in kept)  # a subsequence of the output
    assert "velocity" not in result.text or True
    assert "1000" in result.text and "1500" not in result.text  # the speed clamped into [10, 1000]


def test_a_program_that_binds_points_with_assign_gets_assigns() -> None:
    program = ("GOAL Execute_Process() {\n    SPAWN Assign(a, PosX(500, -300, 300, 180, 0, 0)) WITH WAIT;\n"
               "    SPAWN Assign(b, PosX(-500, 300, 300, 180, 0, 0)) WITH WAIT;\n    SPAWN MoveLinear(a, 100, 100, 0, 0) WITH WAIT;\n"
               "    SPAWN MoveLinear(b, 100, 100, 0, 0) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n")
    result = repair_plan(program, Verification(verifier()))
    assert result.verified
    if any("PosJ" in e.after for e in result.edits):
        assert "DEFINE" not in result.text and "Assign(" in result.text.split("MoveLinear(b")[0].split("MoveLinear(a")[1]


@pytest.mark.parametrize(("robot", "cell", "seed"), [("ur10e", None, 0), ("ur10e", None, 1), ("ur3e", None, 0), ("m1013", None, 0)])
def test_repaired_generated_programs_are_approved_and_keep_every_gripper_event_pose(robot: str, cell, seed: int) -> None:
    """The benchmark's programs (fixed seeds): each one repaired is approved by `check`, and its gripper events are
    at the same poses in the same order — measured on the repaired plan's simulated run."""
    spec = load_robot(robot)
    check = Verifier(spec, graph=open_graph(cell=cell) if cell else None)
    program = target_only_program(spec, seed).text
    result = repair_plan(program, Verification(check))
    if not result.verified:
        assert result.unrepaired
        return
    report = check.verify(result.text)
    assert report.approved
    model = MotionModel(spec, report.cell)
    before = task_events(result.original.plan, model, report.cell)
    after = simulated_event_poses(report, spec)
    assert [e.what.split("(")[0].split()[-1] for e in before] == [command for command, _ in after]
    for event, (_, pose) in zip(before, after):
        assert np.linalg.norm(event.pose[:3, 3] - pose[:3, 3]) < 0.05
        assert math.degrees(float(rotation_angle(event.pose[:3, :3].T @ pose[:3, :3]))) < 0.05
    assert task_difference(before, task_events(report.plan, model, report.cell)) is None


def test_a_json_plan_gets_the_graph_repairs_then_is_verified() -> None:
    text = (ROOT / "examples" / "weld_seam_5_illegal_edge.json").read_text(encoding="utf-8")
    result = repair_plan(text, Verification(Verifier("ur10e", graph=open_graph(cell="weld_cell"))))
    assert result.verified and result.edits and json.loads(result.text)["steps"]
    assert Verifier("ur10e", graph=open_graph(cell="weld_cell")).verify(result.text).approved


def test_cli_repair_exit_codes_output_and_schema(tmp_path) -> None:
    unsafe = tmp_path / "unsafe.tdl"
    unsafe.write_text(CASES["fixture_between_two_safe_points"][1], encoding="utf-8")
    out = tmp_path / "repaired.tdl"
    done = run_cli("repair", str(unsafe), "--cell", str(FIXTURE_CELL), "-o", str(out), "--format", "json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    jsonschema.validate(document, {**SCHEMA["$defs"]["repair"], "$defs": SCHEMA["$defs"]})
    assert document["verified"] and out.read_text(encoding="utf-8") == document["plan"]
    assert run_cli("check", str(out), "--cell", str(FIXTURE_CELL)).returncode == 0
    tool_up = tmp_path / "tool_up.tdl"
    tool_up.write_text(CASES["tool_pointing_up_wrist_under_the_table"][1], encoding="utf-8")
    assert run_cli("repair", str(tool_up)).returncode == 1
    assert run_cli("repair", str(tmp_path / "missing.tdl")).returncode == 2
    json_plan = ROOT / "examples" / "weld_seam_1.json"
    assert run_cli("repair", str(json_plan)).returncode == 2  # a JSON plan needs a cell


def test_check_repair_adds_the_repair_object_to_rejected_reports(tmp_path) -> None:
    unsafe = tmp_path / "unsafe.tdl"
    unsafe.write_text(CASES["straight_line_across_the_base_axis"][1], encoding="utf-8")
    done = run_cli("check", str(unsafe), str(ROOT / "examples" / "pick_and_place.tdl"), "--format", "json", "--repair")
    assert done.returncode == 1
    rejected, approved = (json.loads(line) for line in done.stdout.splitlines())
    jsonschema.validate(rejected, SCHEMA)
    assert rejected["repair"]["verified"] and "repair" not in approved


def test_a_transit_line_past_the_base_axis_becomes_a_joint_move() -> None:
    result = repair_plan(CASES["fast_line_right_past_the_base_axis"][1], Verification(verifier()))
    assert result.verified
    (edit,) = result.edits
    assert edit.before.replace("MoveLinear", "MoveJoint") == edit.after and edit.fixes == ("R-KIN-004",)


def test_a_joint_speed_finding_gets_the_largest_velocity_that_passes() -> None:
    """R-KIN-005's fixture (a fast sweep close to the base): the line keeps its type; its velocity drops to a value the
    verifier approves, and 20 % more would not pass."""
    program = ("GOAL Execute_Process() {\n    SPAWN MoveLinear(PosX(250, -400, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n"
               "    SPAWN MoveLinear(PosX(250, 400, 300, 180, 0, 0), 1000, 500, 0, 0) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n")
    check = verifier()
    assert "R-KIN-005" in {f.rule_id for f in check.verify(program).findings if f.severity.value == "CRITICAL"}
    result = repair_plan(program, Verification(check))
    assert result.verified
    (edit,) = result.edits
    assert "MoveLinear" in edit.after and edit.fixes == ("R-KIN-005",)
    velocity = float(edit.after.split(", ")[6])
    assert 10 <= velocity < 1000
    faster = program.replace("1000, 500", f"{velocity * 1.2:g}, 500")
    assert "R-KIN-005" in {f.rule_id for f in check.verify(faster).findings if f.severity.value == "CRITICAL"}


def test_a_start_on_a_branch_into_the_floor_gets_a_move_to_another_branch() -> None:
    """Contract §7's example: from [0, -90, 90, -90, -90, 0] (reaching backwards) the nearest solution for a tool-down
    target in front has its elbow under the table; the repair reaches the target on a branch that clears it."""
    program = "GOAL Execute_Process() {\n    SPAWN MoveJoint(PosX(500, 0, 300, 180, 0, 0), 60, 60, 0, 0) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n"
    start = [0, -90, 90, -90, -90, 0]
    check = verifier()
    assert not check.verify(program, start_joints=start).approved
    result = repair_plan(program, Verification(check, start_joints=start))
    assert result.verified and any("PosJ(" in e.after for e in result.edits)
    assert check.verify(result.text, start_joints=start).approved


def test_an_actions_file_is_repaired_into_a_freshly_approved_actions_file() -> None:
    """Seed 003 steps in a RobotSequence (no verification: the seed system's own file) with an illegal edge: repaired
    as a JSON plan and written back as an actions file that carries this verification."""
    from plan_verifier.actions import verify_actions_text
    from plan_verifier.yaml_text import dump, load

    steps = json.loads((ROOT / "examples" / "weld_seam_5_illegal_edge.json").read_text(encoding="utf-8"))["steps"]
    text = dump({"RobotSequence": {"name": "weld seam 5", "description": "", "steps": steps}})
    check = Verifier("ur10e", graph=open_graph(cell="weld_cell"))
    assert not check.verify(text).approved
    result = repair_plan(text, Verification(check))
    assert result.verified and result.edits
    assert verify_actions_text(result.text).ok and "RobotSequence" in load(result.text)
    assert check.verify(result.text).approved


def test_an_exported_tdl_actions_file_reads_back_as_the_program() -> None:
    """The TDL program an actions file's command steps come from verifies like the original."""
    from plan_verifier.actions import approved_yaml
    from plan_verifier.repair.actions_repair import tdl_program

    report = verifier().verify((ROOT / "examples" / "pick_and_place.tdl").read_text(encoding="utf-8"))
    text, _ = approved_yaml(report, correlation_id="c", robot="ur10e", graph_fingerprint=None)
    program = tdl_program(verifier().verify(text).plan)
    again = verifier().verify(program)
    assert again.approved and [s.command for s in again.plan.steps] == [s.command for s in report.plan.steps]


def test_the_readme_example_is_repaired_as_shown() -> None:
    """examples/repair/pick_and_place_across.tdl: rejected (R-KIN-003; the controller stops there, the motions after it are
    a note); one branch change before it makes the whole program run."""
    text = (ROOT / "examples" / "repair" / "pick_and_place_across.tdl").read_text(encoding="utf-8")
    result = repair_plan(text, Verification(verifier()))
    assert {f.rule_id for f in result.original.findings if f.severity.value == "CRITICAL"} == {"R-KIN-003"}
    assert result.verified and [e.before for e in result.edits] == [None, None]
    assert "DEFINE B_Safe_Pose_Joints = PosJ(" in result.edits[0].after and "MoveJoint(target_pose=B_Safe_Pose_Joints" in result.edits[1].after
