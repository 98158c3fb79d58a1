from __future__ import annotations

from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.col._contacts import deepest
from plan_verifier.rules.execution import ExecutionRule, body, motion_evidence, where


@register
class RCol002(ExecutionRule):
    """No link and no tool runs into the cell's collision objects during any motion.

    Fixtures, tool stands, bins, conveyors, fences and columns of the cell
    (`collision_objects`; workpieces the robot grasps are not obstacles) are
    checked against every link capsule and the tool at every instant of every
    motion, with the same conservative advancement as R-COL-001: no
    penetration deeper than 0.5 mm is missed, whatever the obstacle's
    thickness. A fixture between two safe points is found on the way between
    them. One finding per motion and obstacle, naming the deepest body, the
    instant and the depth.

    **Unsafe**::

        # cell: Fixture_1, a 250 mm high box at x = 600
        SPAWN MoveLinear(PosX(450, 0, 150, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
        SPAWN MoveLinear(PosX(750, 0, 150, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;   // straight through it

    **Safe**::

        SPAWN MoveLinear(PosX(450, 0, 450, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;   // over it
        SPAWN MoveLinear(PosX(750, 0, 450, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
    """

    id = "R-COL-002"
    name = "no-obstacle-contact"

    def judge(self, execution, ctx):
        for worst, group in deepest(execution.approaches, "object"):
            motion = worst.motion
            others = sorted({a.body for a in group} - {worst.body})
            also = f"; also {', '.join(body(b) for b in others)}" if others else ""
            yield self.finding(
                f"{body(worst.body)} runs {fmt_number(round(-worst.distance_mm, 1))} mm into {worst.other} "
                f"{where(motion, worst.s, worst.tcp)}{also}",
                span=motion.span, step=motion.step,
                evidence={**motion_evidence(motion, worst.s, worst.tcp), "body": worst.body, "object": worst.other,
                          "depth_mm": round(-worst.distance_mm, 1), "bodies": [a.body for a in group]},
                suggestion=f"Go around {worst.other}: add a waypoint above it (a raised approach), or choose a target "
                           f"that does not put the arm into it")
