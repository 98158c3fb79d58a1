"""Issue 9's acceptance, through the public `Verifier` API: what used to be approved is rejected.

Each case of the issue's "Why" — plans whose targets are all fine but whose
motions are not — must be rejected by the execution family that owns the
fault, and the corrected plan a robot programmer would write instead must be
approved with no CRITICAL finding at all (a false alarm on the fix is as bad
as missing the fault). A robot without a kinematic model is never approved
(outcome UNKNOWN, reason code `exec_unavailable`); a clean simulated run
makes the outcome OK. The per-rule details are pinned in the rule fixtures
(test/fixtures/rules/R-KIN-*.yaml, R-COL-*.yaml); this file checks the
verdicts end to end.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, ROOT
from plan_verifier.findings import Severity
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.model import parse_cell
from plan_verifier.graph.open import open_graph
from plan_verifier.kinematics import arm_for
from plan_verifier.kinematics.bodies import body_set
from plan_verifier.orientation import rotation
from plan_verifier.pipeline import Verifier
from plan_verifier.robots.spec import load_robot

#: Contract section 7's example cell: Fixture_1, a 200 x 300 x 250 mm box at x = 600.
FIXTURE_CELL = FIXTURES / "cells" / "fixture_cell.yaml"
NO_KINEMATICS = FIXTURES / "robots" / "no_kinematics.yaml"


def program(*moves: str) -> str:
    """A minimal TDL program: the moves in one GOAL, then End()."""
    body = "".join(f"    SPAWN {m} WITH WAIT;\n" for m in moves)
    return f"GOAL Execute_Process() {{\n{body}    SPAWN End() WITH WAIT;\n}}\n"


def linear(x: float, y: float, z: float, rx: float = 180, ry: float = 0, rz: float = 0, velocity: float = 100, acceleration: float = 100) -> str:
    return f"MoveLinear(PosX({x}, {y}, {z}, {rx}, {ry}, {rz}), {velocity}, {acceleration}, 0, 0)"


def joint(x: float, y: float, z: float, rx: float = 180, ry: float = 0, rz: float = 0) -> str:
    return f"MoveJoint(PosX({x}, {y}, {z}, {rx}, {ry}, {rz}), 60, 60, 0, 0)"


def ur10e(cell=None) -> Verifier:
    return Verifier("ur10e", graph=EmbeddedGraph.from_file(str(cell)) if cell else None)


#: (case, cell, the plan of the issue, the rule families that may own its fault, the corrected plan)
WHY = [
    pytest.param(None, program(linear(500, -300, 300), linear(-500, 300, 300)), {"R-KIN-003", "R-KIN-004"},
                 program(linear(500, -300, 300), linear(0, -550, 300), linear(-550, 0, 300), linear(-500, 300, 300)),
                 id="straight_line_across_the_base_axis"),
    pytest.param(None, program(joint(400, -175, 400), linear(-400, -175, 400, velocity=250)), {"R-KIN-003", "R-KIN-004"},
                 program(joint(400, -175, 400), linear(400, 175, 400, velocity=250)),
                 id="fast_line_right_past_the_base_axis"),
    pytest.param(None, program(joint(1150, 0, 180, 0, -90, 0)), {"R-KIN-001"},
                 program(joint(1150, 0, 180, 180, 0, 0)),
                 id="1150_mm_out_tool_pointing_back"),
    pytest.param(None, program(linear(400, 0, 60, 0, 0, 0)), {"R-COL-001"},
                 program(linear(400, 0, 200), linear(400, 0, 60), linear(400, 0, 200)),
                 id="tool_pointing_up_wrist_under_the_table"),
    pytest.param(FIXTURE_CELL, program(linear(400, 0, 150), linear(800, 0, 150)), {"R-COL-002"},
                 program(linear(400, 0, 150), linear(400, 0, 450), linear(800, 0, 450), linear(800, 0, 150)),
                 id="fixture_between_two_safe_points"),
]


@pytest.mark.parametrize(("cell", "unsafe", "families", "corrected"), WHY)
def test_every_case_of_the_issue_is_rejected_by_its_family(cell, unsafe: str, families: set[str], corrected: str) -> None:
    report = ur10e(cell).verify(unsafe)
    assert not report.approved and report.verdict == "FAIL" and report.outcome == "FAIL"
    critical = {f.rule_id for f in report.findings if f.severity is Severity.CRITICAL}
    assert critical & families, f"expected one of {sorted(families)}, got {sorted(critical)}"
    assert critical <= families | {"R-COL-001", "R-COL-002", "R-COL-003"}, \
        f"no rule outside the execution level may reject a plan whose targets are all fine: {sorted(critical)}"
    assert report.level_failed == "EXECUTION"


@pytest.mark.parametrize(("cell", "unsafe", "families", "corrected"), WHY)
def test_the_corrected_plan_is_approved(cell, unsafe: str, families: set[str], corrected: str) -> None:
    report = ur10e(cell).verify(corrected)
    critical = [(f.rule_id, f.message) for f in report.findings if f.severity is Severity.CRITICAL]
    assert not critical and report.approved
    assert report.outcome == "OK" and report.execution["ran"] and report.execution["proven"]


def test_the_unsafe_plans_all_pass_the_target_checks_alone() -> None:
    """What made them dangerous: BASIC (no execution level) approves every one of them."""
    for case in WHY:
        cell, unsafe = case.values[0], case.values[1]
        report = Verifier("ur10e", graph=EmbeddedGraph.from_file(str(cell)) if cell else None, level="BASIC").verify(unsafe)
        assert report.approved, (case.id, [(f.rule_id, f.message) for f in report.findings if f.severity is Severity.CRITICAL])


def test_a_robot_without_kinematics_is_never_approved() -> None:
    plan = program(linear(450, -300, 300))
    report = Verifier(str(NO_KINEMATICS)).verify(plan)
    assert not report.approved and report.verdict == "FAIL"
    assert report.outcome == "UNKNOWN" and "exec_unavailable" in report.reason_codes
    assert report.execution == {"ran": False, "reason": "robot spec no_kinematics has no kinematics"}
    (finding,) = [f for f in report.findings if f.rule_id == "R-KIN-000"]
    assert finding.indeterminate and finding.severity is Severity.CRITICAL


def test_a_json_plan_on_a_robot_without_kinematics_is_never_approved() -> None:
    plan = (ROOT / "examples" / "weld_seam_1.json").read_text(encoding="utf-8")
    report = Verifier(str(NO_KINEMATICS), graph=open_graph(cell="weld_cell")).verify(plan)
    assert not report.approved and report.outcome == "UNKNOWN" and "exec_unavailable" in report.reason_codes


@pytest.mark.parametrize(("robot", "cell", "example"), [("ur10e", None, "pick_and_place.tdl"), ("ur10e", "weld_cell", "weld_seam_1.json")])
def test_a_clean_simulated_run_makes_the_outcome_ok(robot: str, cell: str | None, example: str) -> None:
    plan = (ROOT / "examples" / example).read_text(encoding="utf-8")
    report = Verifier(robot, graph=open_graph(cell=cell) if cell else None).verify(plan)
    assert report.verdict == "PASS" and report.outcome == "OK" and report.reason_codes == ()
    summary = report.execution
    assert summary["ran"] and summary["simulated"] == summary["motions"] > 0 and summary["not_simulated"] == []
    assert summary["closest_mm"] > summary["clearance_mm"]


def test_the_robots_real_joints_decide_the_branch() -> None:
    """Contract section 7: from [0, -90, 90, -90, -90, 0] (reaching backwards) the nearest solution for a
    tool-down target in front has its elbow under the table; from the spec's home it is fine."""
    plan = program(joint(500, 0, 300))
    from_home = ur10e().verify(plan)
    assert from_home.approved and from_home.execution["start"]["source"] == "home_joints_deg"
    from_behind = ur10e().verify(plan, start_joints=[0, -90, 90, -90, -90, 0])
    assert not from_behind.approved and from_behind.execution["start"] == {"joints_deg": [0, -90, 90, -90, -90, 0], "source": "request",
                                                                   "assumed": False}
    assert {f.rule_id for f in from_behind.findings if f.severity is Severity.CRITICAL} == {"R-COL-001"}


# --------------------------------------------------------------------------- obstacles on random segments

#: Moderate: each example verifies the plan three times (no obstacle, on the path, moved clear).
PROPERTY = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
ROBOT = load_robot("ur10e")
#: Tool 0's bodies (the program's `tool=0`): the swept volume the moved obstacle must keep 100 mm from.
BODIES = body_set(arm_for(ROBOT), ROBOT.tools[0].tool_shape)
CLEAR_MM = 100.0

#: Tool-down targets in front of the robot, away from the base axis and the edge of the workspace.
points = st.tuples(st.floats(350.0, 800.0), st.floats(-400.0, 400.0), st.floats(200.0, 500.0))


def _cell(*obstacles: dict) -> EmbeddedGraph:
    return EmbeddedGraph(parse_cell({
        "name": "random_obstacle", "initial_state": {"position": "Home", "tool": "none"}, "floor_z_mm": 0, "clearance_mm": 10,
        "positions": [{"name": "Home", "role": "home", "pose": [600, 0, 450, 180, 0, 0]}],
        "moves": [], "one_way_moves": [], "tools": [], "routines": [], "collision_objects": list(obstacles)}))


def _box(center, size, rpy) -> dict:
    return {"name": "Box", "shape": "box", "size": [round(v, 3) for v in size], "pose": [*(round(v, 3) for v in center), *rpy]}


def _box_vertices(center: np.ndarray, size, rpy) -> np.ndarray:
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * np.array(size) / 2.0
    return center + corners @ rotation(*rpy).T


def _swept_bounds(report) -> tuple[np.ndarray, np.ndarray]:
    """An axis-aligned box that holds every body at every instant of the run: the capsules at the run's
    samples (forward kinematics), grown by their radii and by how far a body can travel between two samples."""
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    for motion in report.motion.motions:
        q = np.radians(np.asarray(motion.q_deg, dtype=float))
        ends = BODIES.segments(q)  # (N, B, 2, 3)
        travel = BODIES.motion_bound(q[:-1], q[1:]).max(axis=0) if len(q) > 1 else 0.0
        grow = (BODIES.radii + travel)[None, :, None]
        lo = np.minimum(lo, (ends.min(axis=2) - grow).min(axis=(0, 1)))
        hi = np.maximum(hi, (ends.max(axis=2) + grow).max(axis=(0, 1)))
    return lo, hi


def _moved_clear(center: np.ndarray, size, rpy, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The box shifted horizontally (the shortest of +-x, +-y) until it is CLEAR_MM outside the swept bounds."""
    vertices = _box_vertices(center, size, rpy)
    shifts = []
    for axis in (0, 1):
        shifts.append((axis, hi[axis] + CLEAR_MM - vertices[:, axis].min()))
        shifts.append((axis, lo[axis] - CLEAR_MM - vertices[:, axis].max()))
    axis, shift = min(shifts, key=lambda item: abs(item[1]))
    moved = center.copy()
    moved[axis] += shift
    return moved


def _critical_execution(report) -> set[str]:
    return {f.rule_id for f in report.findings if f.severity is Severity.CRITICAL and f.rule_id.startswith(("R-KIN", "R-COL"))}


@PROPERTY
@given(start=points, end=points, yaw=st.floats(-90.0, 90.0), fraction=st.floats(0.05, 0.95), height=st.floats(20.0, 175.0),
       size=st.tuples(*[st.floats(10.0, 120.0)] * 3), rpy=st.tuples(*[st.floats(-180.0, 180.0)] * 3))
def test_a_box_on_a_random_linear_path_is_always_found_and_clears_when_moved_away(start, end, yaw, fraction, height, size, rpy) -> None:
    """A box at least 10 mm thick whose centre the tool or the flange passes through (on the tool axis,
    `height` mm above the TCP at some instant of the line) is always reported by R-COL-002; the same
    box moved 100 mm clear of every body over the whole run gives no R-COL-002."""
    a, b = np.array(start), np.array(end)
    assume(np.linalg.norm(b - a) >= 50.0)
    plan = program(joint(*a, 180, 0, yaw), linear(*b, 180, 0, yaw))
    free = ur10e().verify(plan)
    assume(not _critical_execution(free))  # the path itself is fine: nothing but the box may stop it

    center = a + fraction * (b - a) + np.array([0.0, 0.0, height])
    hit = Verifier(ROBOT, graph=_cell(_box(center, size, rpy))).verify(plan)
    found = [f for f in hit.findings if f.rule_id == "R-COL-002"]
    assert found and all(f.evidence["object"] == "Box" for f in found), [(f.rule_id, f.message) for f in hit.findings]
    assert not hit.approved

    moved = _moved_clear(center, size, rpy, *_swept_bounds(free))
    clear = Verifier(ROBOT, graph=_cell(_box(moved, size, rpy))).verify(plan)
    assert not [f.message for f in clear.findings if f.rule_id in ("R-COL-002", "R-COL-004")]
    assert _critical_execution(clear) == set()
