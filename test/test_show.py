"""`plan-verify show`: the worst instant of a simulated run, the projections, and the PNG it writes."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from plan_verifier.cli.main import main
from plan_verifier.collision.shapes import Box, Capsule, Cylinder, Sphere
from plan_verifier.kinematics.arm import arm_for
from plan_verifier.kinematics.bodies import body_set
from plan_verifier.motion.draw import COLOURS, FAILED, WARNED, NEUTRAL, convex_hull, outline, picture, worst_instant
from plan_verifier.pipeline import Verifier

VERIFIER = Verifier("ur10e")
DOWN = "180, 0, 0"  # the tool pointing down


def program(*moves: str) -> str:
    return "GOAL Execute_Process() {\n" + "".join(f"    SPAWN {m} WITH WAIT;\n" for m in moves) + "    SPAWN End() WITH WAIT;\n}\n"


def linear(x: float, y: float, z: float, orientation: str = DOWN) -> str:
    return f"MoveLinear(PosX({x}, {y}, {z}, {orientation}), 100, 100, 0, 0)"


#: The issue's case: the tool pointing up at z = 60 puts the wrist under the table (R-COL-001).
UNDER_THE_TABLE = program(linear(400, 0, 300), linear(400, 0, 60, "0, 0, 0"))
CLEAN = program(linear(500, 0, 500), linear(500, 200, 500))


def verified(text: str):
    report = VERIFIER.verify(text)
    assert report.motion is not None and report.motion.unavailable is None
    return report, report.motion


def lowest_point(bodies, q_deg: np.ndarray, name: str) -> float:
    """The lowest z of a body's bounding capsule at a configuration (an independent look at the geometry)."""
    k = next(i for i, b in enumerate(bodies.bodies) if b.name == name)
    seg = bodies.segments(np.radians(q_deg))[k]
    return float(seg[:, 2].min() - bodies.radii[k])


def test_the_worst_instant_of_a_floor_collision_is_the_deepest_contact() -> None:
    report, execution = verified(UNDER_THE_TABLE)
    finding = next(f for f in report.findings if f.rule_id == "R-COL-001")
    instant = worst_instant(execution)
    motion = execution.motions[instant.motion]
    assert instant.kind == "contact" and motion.motion.step == finding.step
    deepest = min(execution.approaches, key=lambda a: a.distance_mm)
    assert instant.body == deepest.body == finding.evidence["body"] and instant.other == "floor"
    assert motion.s[instant.sample] == pytest.approx(deepest.s)
    # The robot drawn there really is under the table, by about the depth the rule reports.
    q = motion.q_deg[instant.sample]
    bodies = body_set(arm_for(VERIFIER.robot), motion.tool_shape)
    assert lowest_point(bodies, q, instant.body) < -0.5 * finding.evidence["depth_mm"]
    # ... and it is the deepest instant of the motion: every other sample is shallower.
    others = [lowest_point(bodies, motion.q_deg[k], instant.body) for k in range(len(motion.s))]
    assert min(others) == pytest.approx(others[instant.sample], abs=1.0)


def test_without_contact_the_closest_approach_is_shown_then_the_end() -> None:
    report, execution = verified(program(linear(500, 0, 300), linear(500, 0, 6)))
    assert [f.rule_id for f in report.findings if f.category.value == "execution"] == ["R-COL-004"]
    instant = worst_instant(execution)
    assert instant.kind == "clearance" and instant.other == "floor"
    assert execution.motions[instant.motion].motion.step == 2 and instant.sample == len(execution.motions[1].s) - 1
    _, clean = verified(CLEAN)
    end = worst_instant(clean)
    assert (end.kind, end.motion, end.sample) == ("end", len(clean.motions) - 1, len(clean.motions[-1].s) - 1)


def test_a_path_that_breaks_off_is_shown_where_it_stops() -> None:
    # The case: a line across the base axis, both targets fine (R-KIN-003).
    report, execution = verified(program(linear(500, -300, 300), linear(-500, 300, 300)))
    assert any(f.rule_id == "R-KIN-003" for f in report.findings)
    instant = worst_instant(execution)
    motion = execution.motions[instant.motion]
    assert instant.kind == "break" and motion.motion.step == 2 and not motion.complete
    assert instant.sample == len(motion.s) - 1  # the last configuration the arm reaches on its branch


def test_the_picture_marks_failing_steps_and_the_bodies_in_contact() -> None:
    report, execution = verified(UNDER_THE_TABLE)
    view = picture(execution, arm_for(VERIFIER.robot), None, report.findings, title="t")
    assert [p.status for p in view.paths] == [NEUTRAL, FAILED]
    assert {"floor", worst_instant(execution).body} <= set(view.highlight)
    assert "R-COL-001" in view.title and len(view.robot) == len(body_set(arm_for(VERIFIER.robot), execution.motions[1].tool_shape).bodies)
    clean_report, clean = verified(CLEAN)
    calm = picture(clean, arm_for(VERIFIER.robot), None, clean_report.findings, title="t")
    assert {p.status for p in calm.paths} == {NEUTRAL} and calm.highlight == () and calm.notes == ()


@pytest.mark.parametrize("shape, transform, axes, extent", [
    # a capsule along x: a stadium L + 2r long, 2r wide
    (Capsule(radius=20, length=100), np.array([[0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1]], float), (0, 1), (140, 40)),
    # a cube turned 45 degrees about z: seen from above, a diamond sqrt(2) times as wide
    (Box(100, 100, 100), np.array([[math.cos(math.pi / 4), -math.sin(math.pi / 4), 0, 0],
                                   [math.sin(math.pi / 4), math.cos(math.pi / 4), 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]), (0, 1),
     (100 * math.sqrt(2), 100 * math.sqrt(2))),
    (Cylinder(radius=30, length=200), np.eye(4), (0, 2), (60, 200)),  # a standing column from the front
    (Sphere(radius=50), np.eye(4), (1, 2), (100, 100)),
])
def test_a_projection_is_the_shape_seen_along_an_axis(shape, transform, axes, extent) -> None:
    corners = outline(shape, transform, axes)
    assert corners.max(axis=0) - corners.min(axis=0) == pytest.approx(extent, rel=0.01)


def test_the_convex_hull_keeps_only_the_corners() -> None:
    rng = np.random.default_rng(3)
    inside = rng.random((50, 2)) * 0.8 + 0.1
    hull = convex_hull(np.vstack([inside, [[0, 0], [1, 0], [1, 1], [0, 1]]]))
    assert sorted(map(tuple, hull)) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def _pixels(path: Path, colour: str) -> int:
    """How many pixels of the PNG are (almost) `colour`: the file must decode."""
    from matplotlib import image

    rgb = image.imread(path)[..., :3] * 255.0
    target = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)], float)
    return int(np.count_nonzero(np.all(np.abs(rgb - target) < 30.0, axis=-1)))


def test_show_writes_a_png_with_the_failing_motion_in_red(tmp_path, capsys) -> None:
    plan = tmp_path / "under.tdl"
    plan.write_text(UNDER_THE_TABLE)
    out = tmp_path / "under.png"
    assert main(["show", str(plan), "--png", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _pixels(out, COLOURS[FAILED]) > 500
    assert "FAIL" in capsys.readouterr().out


def test_show_of_a_clean_plan_has_no_red(tmp_path) -> None:
    plan = tmp_path / "clean.tdl"
    plan.write_text(CLEAN)
    out = tmp_path / "clean.png"
    assert main(["show", str(plan), "--png", str(out)]) == 0
    assert _pixels(out, COLOURS[FAILED]) == 0 and _pixels(out, COLOURS[WARNED]) == 0
    assert _pixels(out, COLOURS[NEUTRAL]) > 100  # the paths are there


def test_show_draws_a_json_plan_in_its_cell(tmp_path) -> None:
    out = tmp_path / "weld.png"
    assert main(["show", str(ROOT / "examples" / "weld_seam_1.json"), "--cell", "weld_cell", "--png", str(out)]) == 0
    assert _pixels(out, "#cdbb94") > 1000  # the cell's collision objects


@pytest.mark.parametrize("args, message", [
    (["show", str(ROOT / "examples" / "weld_seam_1.json")], "needs a cell graph"),
    (["show", "-"], "nothing to draw"),
    (["show", str(ROOT / "examples" / "weld_seam_1.json"), "--graph-uri", "bolt://127.0.0.1:1", "--graph-timeout", "1"],
     "unavailable"),
])
def test_show_says_why_it_cannot_draw(tmp_path, monkeypatch, capsys, args, message) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"GOAL broken {")))
    assert main([*args, "--png", str(tmp_path / "x.png")]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "x.png").exists()


def test_a_plan_without_motions_shows_the_robot_where_it_starts() -> None:
    report, execution = verified(program("SetDigitalOutput(1, 0)"))
    assert worst_instant(execution) is None
    view = picture(execution, arm_for(VERIFIER.robot), None, report.findings, title="t")
    assert view.paths == () and view.robot and "no motion was simulated: the robot at its start (home_joints_deg)" in view.title


def test_a_joint_faster_than_its_limit_is_shown_where_it_peaks() -> None:
    # As R-KIN-005's example: a fast sweep close to the base (the UR10e's base joint turns at most 120 deg/s).
    report, execution = verified(program(linear(250, -300, 500), "MoveLinear(PosX(250, 300, 500, 180, 0, 0), 1000, 400, 0, 0)"))
    assert any(f.rule_id == "R-KIN-005" for f in report.findings)
    instant = worst_instant(execution, report.findings)
    fast = max(execution.demands, key=lambda d: d.share)
    if fast.share <= 1.0:  # within the limit (R-KIN-005's warning): shown because a finding is about its step
        assert worst_instant(execution).kind == "end"
    assert instant.kind == "speed" and execution.motions[instant.motion].motion == fast.motion
    s = execution.motions[instant.motion].s
    assert abs(s[instant.sample] - fast.s) <= np.max(np.diff(s)) / 2 + 1e-9  # the sample next to the peak


def test_show_starts_where_the_robot_is(tmp_path, capsys) -> None:
    """--start-joints as in `check`: from the contract's backwards-reaching start the same target is reached elbow-down."""
    plan = tmp_path / "front.tdl"
    plan.write_text("GOAL Execute_Process() {\n    SPAWN MoveJoint(PosX(500, 0, 300, 180, 0, 0), 60, 60, 0, 0) WITH WAIT;\n"
                    "    SPAWN End() WITH WAIT;\n}\n")
    assert main(["show", str(plan), "--png", str(tmp_path / "home.png")]) == 0
    assert "PASS" in capsys.readouterr().out
    assert main(["show", str(plan), "--png", str(tmp_path / "back.png"), "--start-joints=0,-90,90,-90,-90,0"]) == 0
    assert "FAIL" in capsys.readouterr().out
    assert _pixels(tmp_path / "back.png", COLOURS[FAILED]) > 500


def test_show_repair_draws_the_failing_motion_and_the_repaired_path(tmp_path) -> None:
    """Issue 15: `show --repair` draws the repaired run, the original failing motion dashed under it."""
    from plan_verifier.cli.main import main
    from plan_verifier.kinematics.arm import arm_for
    from plan_verifier.motion.draw import picture
    from plan_verifier.pipeline import Verifier
    from plan_verifier.repair import Verification, repair_plan

    plan = ("GOAL Execute_Process() {\n    SPAWN MoveLinear(PosX(500, -300, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n"
            "    SPAWN MoveLinear(PosX(-500, 300, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n")
    verifier = Verifier("ur10e")
    before = verifier.verify(plan)
    repaired = repair_plan(plan, Verification(verifier))
    view = picture(repaired.report.motion, arm_for(verifier.robot), None, repaired.report.findings, title="t",
                   before=(before.motion, before.findings))
    assert [p.step for p in view.replaced] == [2] and all(p.status != "failed" for p in view.paths)
    source = tmp_path / "across.tdl"
    source.write_text(plan, encoding="utf-8")
    png = tmp_path / "across.png"
    assert main(["show", str(source), "--png", str(png), "--repair"]) == 0 and png.stat().st_size > 10_000
