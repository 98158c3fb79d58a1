from __future__ import annotations

import math

from plan_verifier.ir import fmt_number

from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule, motion_evidence, where

_WHY = {"shoulder": "the wrist point passes the base axis", "elbow": "the arm is stretched or folded flat",
        "wrist": "joints 4 and 6 line up", "generic": "the Jacobian loses rank"}


@register
class RKin004(ExecutionRule):
    """A linear or circular move does not pass through (or close by) a singularity.

    Near a singular configuration the joint speeds a straight TCP path needs
    grow without bound; controllers slow down sharply or stop there (a
    protective stop). Along every linear and circular path the joint rates the
    commanded speed needs are computed between samples; where one exceeds its
    joint's `max_speed_deg_s` with the arm close to a singular configuration
    (UR and spherical-wrist arms: the wrist point within 50 mm of the plane of
    axes 1 and 2 — shoulder; the elbow angle's sine under 0.05 — elbow; axes 4
    and 6 within 3° — wrist; other arms: the smallest singular value of the
    Jacobian under 0.02), the move is rejected here — passing *through* a
    singularity shows the same way, as a jump of the followed IK branch. Being
    close to a singularity where the path needs no fast joint (a vertical
    descent beside the base axis) is no fault. A move whose path breaks off is
    R-KIN-003's; a fast joint away from singularities R-KIN-005's.

    **Unsafe**::

        // UR10e: a straight line that passes right over the base
        SPAWN MoveLinear(PosX(400, -175, 400, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
        SPAWN MoveLinear(PosX(-400, -175, 400, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;

    **Safe**::

        SPAWN MoveLinear(PosX(400, -175, 400, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
        SPAWN MoveLinear(PosX(400, 175, 400, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
    """

    id = "R-KIN-004"
    name = "path-avoids-singularities"

    def judge(self, execution, ctx):
        broken = {b.motion.step for b in execution.breaks}
        for near in execution.singular:
            motion = near.motion
            if motion.step in broken:
                continue
            kinds = " and ".join(near.kinds) or "a"
            why = "; ".join(_WHY[k] for k in near.kinds if k in _WHY)
            yield self.finding(
                f"{motion.command} passes a {kinds} singularity {where(motion, near.s, near.tcp)}{f' ({why})' if why else ''}: "
                f"joint {near.joint} ({near.name}) would have to turn at {fmt_number(round(near.needed_deg_s))}°/s, above its "
                f"{fmt_number(near.limit_deg_s)}°/s limit; the controller will stop",
                span=motion.span, step=motion.step,
                evidence={**motion_evidence(motion, near.s, near.tcp), "kinds": list(near.kinds),
                          "sigma_min": round(near.sigma_min, 4) if math.isfinite(near.sigma_min) else None,
                          "joint": near.joint, "needed_deg_s": round(near.needed_deg_s, 1), "limit_deg_s": near.limit_deg_s},
                suggestion="Route the move around the singular region with an intermediate waypoint, or make it a MoveJoint")
