from __future__ import annotations

from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.col._contacts import deepest
from plan_verifier.rules.execution import ExecutionRule, body, motion_evidence, where


@register
class RCol003(ExecutionRule):
    """The robot does not run into itself: no two non-adjacent links (or the tool and a link) touch.

    Every pair of the robot's bodies that can meet (like MoveIt's allowed
    collision matrix: neighbours in the chain and pairs that always touch are
    left out, computed from the geometry) is checked at every instant of every
    motion; their distance changes only through the joints between them, which
    bounds the sampling as in R-COL-001. The link capsules already enclose the
    vendor's collision meshes, so only contact counts, no clearance on top.

    **Unsafe**::

        // UR10e: folding the elbow until the tool runs into the upper arm
        SPAWN MoveJoint(PosJ(180, -90, 150, -60, -90, 0), 60, 60, 0, 0) WITH WAIT;

    **Safe**::

        SPAWN MoveJoint(PosJ(180, -90, 90, -90, -90, 0), 60, 60, 0, 0) WITH WAIT;
    """

    id = "R-COL-003"
    name = "no-self-contact"

    def judge(self, execution, ctx):
        for worst, group in deepest(execution.approaches, "self"):
            motion = worst.motion
            yield self.finding(
                f"{body(worst.body)} and {body(worst.other)} collide ({fmt_number(round(-worst.distance_mm, 1))} mm deep) "
                f"{where(motion, worst.s, worst.tcp)}",
                span=motion.span, step=motion.step,
                evidence={**motion_evidence(motion, worst.s, worst.tcp), "bodies": [worst.body, worst.other],
                          "depth_mm": round(-worst.distance_mm, 1), "pairs": [[a.body, a.other] for a in group]},
                suggestion="Choose another arm configuration for this motion: a different target orientation, or an "
                           "intermediate joint position that keeps the wrist away from the arm")
