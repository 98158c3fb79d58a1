from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule, motion_evidence, where
from plan_verifier.rules.kin.r_kin_004 import singularities_near


@register
class RKin003(ExecutionRule):
    """A linear or circular move can follow its whole path without changing arm configuration.

    A controller runs `MoveLinear`/`MoveCircular` on the inverse-kinematics
    branch (shoulder, elbow, wrist configuration) it starts on. The path is
    followed on that branch in steps of 20 mm / 5°; where the branch has no
    solution any more the motion fails: either another branch could continue
    (a configuration flip the controller will not make mid-motion) or no branch
    can (the line leaves the workspace, e.g. it passes too close to the base
    axis, where a UR's wrist cannot go). The finding gives where the path
    breaks off; the simulation then continues from the move's target.

    **Unsafe**::

        // UR10e: the straight line crosses the base axis (shoulder singularity)
        SPAWN MoveLinear(PosX(500, -300, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
        SPAWN MoveLinear(PosX(-500, 300, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;

    **Safe**::

        SPAWN MoveLinear(PosX(500, -300, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
        SPAWN MoveJoint(PosX(-500, 300, 300, 180, 0, 0), 60, 60, 0, 0) WITH WAIT;   // joint move around the base
    """

    id = "R-KIN-003"
    name = "path-keeps-configuration"

    def judge(self, execution, ctx):
        for broke in execution.breaks:
            motion = broke.motion
            kinds = singularities_near(broke.last)
            near = f" near the {' and '.join(kinds)} singularity" if kinds else ""
            if broke.flip:
                what = f"the arm would have to change configuration (IK branch){near}"
            else:
                what = f"the path leaves the arm's workspace{near}: no configuration reaches that point"
            yield self.finding(
                f"{motion.command} cannot follow its path {where(motion, broke.s, broke.tcp)}: {what}",
                span=motion.span, step=motion.step,
                evidence={**motion_evidence(motion, broke.s, broke.tcp), "flip": broke.flip, "near": list(kinds)},
                suggestion="Add an intermediate waypoint that keeps the path away from the base axis and the edge of the "
                           "workspace, or make this a MoveJoint (joint interpolation has no such limit)")
