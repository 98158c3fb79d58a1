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
