from __future__ import annotations

import math
from typing import Iterable

from plan_verifier.ir import fmt_number
from plan_verifier.motion.facts import JointDemand, MotionRef, Proximity
from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule, motion_evidence, where

#: Close to a singularity (docs/robots.md): the wrist point this near the plane of axes 1 and 2 (mm) ...
SHOULDER_MM = 50.0
#: ... the elbow angle's sine under this (the arm stretched or folded flat) ...
ELBOW_SIN = 0.05
#: ... axes 4 and 6 within this sine of each other ...
WRIST_SIN = 0.05
#: ... and, for an arm without a closed form, the Jacobian's smallest singular value (linear rows per reach) under this.
SIGMA_MIN = 0.02

_WHY = {"shoulder": "the wrist point passes the base axis", "elbow": "the arm is stretched or folded flat",
        "wrist": "joints 4 and 6 line up", "generic": "the Jacobian loses rank"}


def singularities_near(at: Proximity) -> tuple[str, ...]:
    """The singularities a measured configuration is close to: shoulder, elbow, wrist (closed-form arms), generic."""
    if at.shoulder_mm is None:
        return ("generic",) if at.sigma_min < SIGMA_MIN else ()
    found = []
    if at.shoulder_mm < SHOULDER_MM:
        found.append("shoulder")
    if at.elbow_sin is not None and at.elbow_sin < ELBOW_SIN:
        found.append("elbow")
    if at.wrist_sin is not None and at.wrist_sin < WRIST_SIN:
        found.append("wrist")
    return tuple(found)


def fastest(demands: Iterable[JointDemand]) -> list[JointDemand]:
    """Per motion, the demand nearest its joint's limit (the lowest joint on a tie), in the run's order."""
    out: dict[MotionRef, JointDemand] = {}
    for demand in demands:
        best = out.get(demand.motion)
        if best is None or demand.share > best.share:
            out[demand.motion] = demand
    return list(out.values())


def singular(demand: JointDemand) -> bool:
    """This rule's case: the joint needs more than its limit with the arm close to a singularity at either end."""
    return demand.needed_deg_s > demand.limit_deg_s and any(singularities_near(end) for end in demand.ends)


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
        for demand in fastest(execution.demands):
            motion = demand.motion
            if motion.step in broken or not singular(demand):
                continue
            i = 1 if demand.ends[1].sigma_min < demand.ends[0].sigma_min else 0  # the end nearer the singularity
            near = demand.ends[i]
            kinds_found = singularities_near(near) or singularities_near(demand.ends[1 - i])
            kinds = " and ".join(kinds_found) or "a"
            why = "; ".join(_WHY[k] for k in kinds_found if k in _WHY)
            yield self.finding(
                f"{motion.command} passes a {kinds} singularity {where(motion, demand.s, near.tcp)}{f' ({why})' if why else ''}: "
                f"joint {demand.joint} ({demand.name}) would have to turn at {fmt_number(round(demand.needed_deg_s))}°/s, "
                f"above its {fmt_number(demand.limit_deg_s)}°/s limit; the controller will stop",
                span=motion.span, step=motion.step,
                evidence={**motion_evidence(motion, demand.s, near.tcp), "kinds": list(kinds_found),
                          "sigma_min": round(near.sigma_min, 4) if math.isfinite(near.sigma_min) else None,
                          "joint": demand.joint, "needed_deg_s": round(demand.needed_deg_s, 1),
                          "limit_deg_s": demand.limit_deg_s},
                suggestion="Route the move around the singular region with an intermediate waypoint, or make it a MoveJoint")
