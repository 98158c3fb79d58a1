from __future__ import annotations

from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.col._contacts import deepest
from plan_verifier.rules.execution import ExecutionRule, body, motion_evidence, where


@register
class RCol001(ExecutionRule):
    """No link of the robot and no part of the tool goes below the floor during any motion.

    The floor (the cell's `floor_z_mm`, else the robot spec's `limits.z.min_mm`)
    is checked against every link capsule and the tool's shape at every
    instant of every motion, not only at the targets: a target high enough for
    the TCP can still put the wrist under the table when the tool points up.
    Instants are sampled by conservative advancement: between two samples no
    point of a body can move further than the joints' travel times its
    distance from their axes, so a segment whose two samples are together
    farther from the floor than that bound cannot touch it; every other
    segment is split until the bodies move less than 1 mm between samples.
    No contact deeper than 0.5 mm is missed. One finding per motion, naming
    the deepest body, the instant and the penetration depth.

    **Unsafe**::

        // tool pointing up at z = 60: the wrist is about 60 mm under the table
        SPAWN MoveLinear(PosX(400, 0, 60, 0, 0, 0), 100, 100, 0, 0) WITH WAIT;

    **Safe**::

        SPAWN MoveLinear(PosX(400, 0, 60, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;   // tool pointing down
    """

    id = "R-COL-001"
    name = "no-floor-contact"

    def judge(self, execution, ctx):
        floor = fmt_number(execution.floor_z_mm)
        for worst, group in deepest(execution.approaches, "floor"):
            motion = worst.motion
            others = sorted({a.body for a in group} - {worst.body})
            also = f"; also {', '.join(body(b) for b in others)}" if others else ""
            yield self.finding(
                f"{body(worst.body)} goes {fmt_number(round(-worst.distance_mm, 1))} mm below the floor (z = {floor}) "
                f"{where(motion, worst.s, worst.tcp)}{also}",
                span=motion.span, step=motion.step,
                evidence={**motion_evidence(motion, worst.s, worst.tcp), "body": worst.body, "depth_mm": round(-worst.distance_mm, 1),
                          "floor_z_mm": execution.floor_z_mm, "bodies": [a.body for a in group]},
                suggestion="Keep the whole arm above the floor: raise the target, turn the tool to point down, or approach "
                           "from above through an intermediate waypoint")
