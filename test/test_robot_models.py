"""Issue 16: robots as ROS describes them, exact geometry deciding, one mistake one finding.

Through the public `Verifier` API: a failing motion stops the simulation (the
controller stops the program there) instead of flooding the report; the
contract's simple capsule form does not put the mounted link into its floor.
"""

from __future__ import annotations

import pytest

from conftest import ROOT
from plan_verifier.findings import Severity
from plan_verifier.motion.facts import AFTER_FAILURE
from plan_verifier.pipeline import Verifier


def program(*moves: str) -> str:
    body = "".join(f"    SPAWN {m} WITH WAIT;\n" for m in moves)
    return f"GOAL Execute_Process() {{\n{body}    SPAWN End() WITH WAIT;\n}}\n"


HOME = "MoveJoint(PosJ(180, -90, 90, -90, -90, 0), 60, 60, 0, 0)"


def critical(report) -> list:
    return [f for f in report.findings if f.severity == Severity.CRITICAL]


# ---------------------------------------------------------------------------------------------- one mistake


#: A line from in front of the base to behind it breaks off at the shoulder singularity (step 2); before
#: the fix every later motion started from the configuration the plan intended for step 2's target, on a
#: branch the robot never reaches, and reported its own floor contacts.
BREAKS_THEN_MORE = program(HOME, "MoveLinear(PosX(-700, 100, 300, 180, 0, 0), 100, 100, 0, 0)",
                           "MoveLinear(PosX(-700, 100, 150, 180, 0, 0), 100, 100, 0, 0)",
                           "MoveLinear(PosX(-700, -300, 150, 180, 0, 0), 100, 100, 0, 0)", HOME)
#: The same with an unreachable target instead of a broken path, and a joint move after it.
UNREACHABLE_THEN_MORE = program(HOME, "MoveJoint(PosX(1150, 0, 180, 0, -90, 0), 60, 60, 0, 0)",
                                "MoveLinear(PosX(700, 0, 150, 180, 0, 0), 100, 100, 0, 0)", HOME)


@pytest.mark.parametrize(("plan", "rule", "step"), [(BREAKS_THEN_MORE, "R-KIN-003", 2), (UNREACHABLE_THEN_MORE, "R-KIN-001", 2)],
                         ids=["path_breaks_off", "unreachable_target"])
def test_one_bad_motion_gives_one_critical(plan: str, rule: str, step: int) -> None:
    report = Verifier("ur10e").verify(plan)
    assert not report.approved
    assert [(f.rule_id, f.step) for f in critical(report)] == [(rule, step)]
    execution = report.motion
    after = [n for n in execution.not_simulated if n.cause == AFTER_FAILURE]
    assert [n.step for n in after] == list(range(step + 1, 6 if plan is BREAKS_THEN_MORE else 5))
    assert {n.after_step for n in after} == {step}
    notes = [f for f in report.findings if f.rule_id == "R-KIN-000"]
    assert len(notes) == 1 and notes[0].severity == Severity.INFO and notes[0].evidence["after_step"] == step


def test_an_unreachable_target_later_in_the_plan_is_still_its_own_finding() -> None:
    """Stopping after a failure hides no independent mistake: every Cartesian target's IK is checked."""
    plan = program(HOME, "MoveLinear(PosX(-700, 100, 300, 180, 0, 0), 100, 100, 0, 0)",
                   "MoveJoint(PosX(1150, 0, 180, 0, -90, 0), 60, 60, 0, 0)")
    report = Verifier("ur10e").verify(plan)
    assert sorted((f.rule_id, f.step) for f in critical(report)) == [("R-KIN-001", 3), ("R-KIN-003", 2)]


# ---------------------------------------------------------------------------------------------- the mount


def test_the_contracts_simple_capsule_form_approves_pick_and_place(tmp_path) -> None:
    """Section 7's `link_radii_mm` on the shipped UR10e: the shoulder capsule stands on the mounting plane
    (it turns about the vertical axis only, so its height never changes): never a floor contact."""
    import yaml

    spec = yaml.safe_load((ROOT / "config" / "robots" / "ur10e.yaml").read_text())
    spec["collision_model"] = {"link_radii_mm": [90, 75, 65, 50, 50, 45]}
    path = tmp_path / "ur10e_simple.yaml"
    path.write_text(yaml.safe_dump(spec))
    report = Verifier(str(path)).verify((ROOT / "examples" / "pick_and_place.tdl").read_text())
    assert report.approved and not critical(report), report.findings
    # A real floor contact of a link that moves in height is still found.
    low = program(HOME, "MoveLinear(PosX(400, 0, 60, 0, 0, 0), 100, 100, 0, 0)")
    assert "R-COL-001" in {f.rule_id for f in critical(Verifier(str(path)).verify(low))}


def test_only_links_no_joint_can_raise_are_on_the_mount() -> None:
    from plan_verifier.kinematics import arm_for
    from plan_verifier.kinematics.bodies import body_set
    from plan_verifier.robots.spec import load_robot

    for name in ("ur10e", "m1013"):
        bodies = body_set(arm_for(load_robot(name)), None)
        assert [b.link for b, m in zip(bodies.bodies, bodies.on_mount) if m] == [b.link for b in bodies.bodies if b.link <= 1]
