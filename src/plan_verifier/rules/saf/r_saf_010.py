from __future__ import annotations

from plan_verifier.analysis.points import describe, format_xyz, pose_points
from plan_verifier.findings import Category, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.robots.spec import horizontal_distance
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSaf010(Rule):
    """No target inside the robot's base keep-out zone.

    The zone is the cylinder around the base axis given by the robot spec:
    closer than ``base_keepout_radius_mm`` horizontally and lower than
    ``base_keepout_height_mm``. A target there is inside the robot's own base
    and shoulder, and near the axis the wrist passes through a singularity.
    Generators produce such targets when they take a task's object coordinate
    ``(0, 0, 0)`` literally: the point is the robot base origin, not the
    object. Every motion target is checked once where it is written, in every
    reading, joint poses by forward kinematics.

    **Unsafe**::

        SPAWN MoveLinear(target_pose=PosX(0, 0, 10, 0, 0, 0), velocity=50, acceleration=50, tool=0, blending_radius=0) WITH WAIT;

    **Safe**::

        SPAWN MoveLinear(target_pose=PosX(400, 0, 10, 0, 180, 0), velocity=50, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    """

    id = "R-SAF-010"
    name = "base-keepout"
    severity = Severity.CRITICAL
    category = Category.SAFETY
    formats = frozenset({"tdl", "json"})

    def check(self, ctx):
        radius = ctx.robot.base_keepout_radius_mm
        height = ctx.robot.base_keepout_height_mm
        for site in ctx.plan.pose_sites:
            for point in pose_points(site.pose, ctx.robot):
                x, y, z = point.xyz
                horizontal = horizontal_distance(x, y)
                if horizontal < radius and z < height:
                    yield self.finding(
                        f"Position {site.pose.label} at {format_xyz(point.xyz)} is inside the robot base keep-out zone "
                        f"({fmt_number(radius)}mm around the base axis, below z={fmt_number(height)}mm)" + describe(point, site.pose),
                        span=site.span, step=site.step,
                        evidence={"horizontal_mm": round(horizontal, 1), "z_mm": round(z, 1), "radius_mm": radius,
                                  "height_mm": height, "position": site.pose.label},
                        suggestion="Move the target away from the base (check the coordinate frame of the object position)")
                    break
