from __future__ import annotations

import math

from plan_verifier.analysis.points import describe, format_xyz, pose_points
from plan_verifier.findings import Category, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSaf001(Rule):
    """Every target lies within the robot's reach.

    Each place the plan writes down a Cartesian target is checked once: a
    DEFINE'd or Assign'ed pose at its definition, an inline target at the
    literal, a graph position at its first use. The distance
    sqrt(x² + y² + z²) from the base origin must not exceed the spec's
    ``reach_mm`` (seed 000). An ambiguous ``p * Trans(...)`` is checked in
    every reading, and the message says when only the alternative reading is
    out of reach.

    Joint targets (PosJ) are not compared with this sphere: every joint
    configuration is physically reachable, and the sphere around the base
    origin would reject upright poses such as the Doosan zero pose
    ``PosJ(0, 0, 0, 0, 0, 0)`` (an M1013 flange 1452 mm from the origin, reach
    1300 mm). Their flange is checked by forward kinematics against the floor
    (R-SAF-004) and the base keep-out zone (R-SAF-010), their angles against
    the joint limits (R-SAF-007).

    **Unsafe**::

        DEFINE A_Pose = PosX(2000, 1000, 500, 0, 0, 0);  // UR10e: 2291 mm > 1300 mm

    **Safe**::

        DEFINE A_Pose = PosX(300, 200, 50, 0, 0, 0);     // 361 mm
        DEFINE B_Pose = PosX(1000, 500, 200, 0, 0, 0);   // 1136 mm
    """

    id = "R-SAF-001"
    name = "reach"
    severity = Severity.CRITICAL
    category = Category.SAFETY
    formats = frozenset({"tdl", "json"})

    def check(self, ctx):
        reach = ctx.robot.reach_mm
        for site in ctx.plan.pose_sites:
            for point in pose_points(site.pose, ctx.robot):
                if point.by_kinematics:
                    continue
                distance = math.dist(point.xyz, (0.0, 0.0, 0.0))
                if not distance <= reach:  # a coordinate that is not finite is out of reach too (NaN compares false)
                    yield self.finding(
                        f"Position {site.pose.label} at {format_xyz(point.xyz)} exceeds robot reach of {fmt_number(reach)}mm"
                        + describe(point, site.pose),
                        span=site.span, step=site.step,
                        evidence={"distance_mm": round(distance, 1), "reach_mm": reach, "position": site.pose.label},
                        suggestion=f"Bring the target within {fmt_number(reach)} mm of the robot base")
                    break
