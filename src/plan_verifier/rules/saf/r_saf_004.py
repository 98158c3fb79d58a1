from __future__ import annotations

import math

from plan_verifier.analysis.points import describe, pose_points
from plan_verifier.findings import Category, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSaf004(Rule):
    """No target below the floor, none dangerously close to it.

    Every motion target (checked once where the plan writes it down, like
    R-SAF-001, in every reading of an ambiguous expression; joint poses by
    forward kinematics of the flange) must have z at or above
    ``limits.z.min_mm`` (seed 000: 0 mm, CRITICAL below) and should stay at or
    above ``limits.z.warn_below_mm`` (10 mm, WARNING below).

    **Unsafe**::

        PosX(300, 200, -10, 0, 0, 0)   // underground
        PosX(300, 200, 5, 0, 0, 0)     // too low (warning)
        PosJ(0, 0, 90, 0, 90, 0)       // on a UR10e: flange at z = -507 mm

    **Safe**::

        PosX(300, 200, 50, 0, 0, 0)
    """

    id = "R-SAF-004"
    name = "ground-clearance"
    severity = Severity.CRITICAL
    emits = (Severity.CRITICAL, Severity.WARNING)
    category = Category.SAFETY
    formats = frozenset({"tdl", "json"})

    def check(self, ctx):
        limits = ctx.robot.limits.z
        for site in ctx.plan.pose_sites:
            points = pose_points(site.pose, ctx.robot)
            if not points:
                continue
            point = min(points, key=lambda p: p.xyz[2] if p.xyz[2] == p.xyz[2] else -math.inf)
            z = point.xyz[2]
            shown = fmt_number(round(z, 1))
            evidence = {"z_mm": round(z, 1), "position": site.pose.label}
            if not z >= limits.min_mm:  # NaN compares false: a height that is not finite is below the floor too
                yield self.finding(f"Z-coordinate {shown}mm is below ground level (z={fmt_number(limits.min_mm)})" + describe(point, site.pose),
                                   span=site.span, step=site.step, evidence={**evidence, "min_mm": limits.min_mm},
                                   suggestion=f"Keep targets at z >= {fmt_number(limits.warn_below_mm)} mm")
            elif z < limits.warn_below_mm:
                yield self.finding(f"Z-coordinate {shown}mm is dangerously close to ground" + describe(point, site.pose),
                                   severity=Severity.WARNING, span=site.span, step=site.step,
                                   evidence={**evidence, "warn_below_mm": limits.warn_below_mm},
                                   suggestion=f"Keep targets at z >= {fmt_number(limits.warn_below_mm)} mm")
