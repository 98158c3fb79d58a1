from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.analysis.points import describe, pose_points
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RDom002(Rule):
    """Positions named "Safe…" are at a safe height.

    Every position whose name contains "safe" (any case) — DEFINE'd, assigned
    or a cell graph position with coordinates — must have Z of at least the
    robot spec's ``limits.safe_height_mm`` (seed 000: 100 mm). Joint-space
    positions are checked through forward kinematics where the spec has DH
    parameters. When a pose expression has several readings (``p *
    Trans(...)``) the lowest one counts. Each position is checked once, where
    it is defined.

    **Unsafe**::

        DEFINE A_Safe_Pose = PosX(300, 200, 60, 0, 180, 0);

    **Safe**::

        DEFINE A_Safe_Pose = PosX(300, 200, 160, 0, 180, 0);
    """

    id = "R-DOM-002"
    name = "safe-height"
    severity = Severity.WARNING
    category = Category.DOMAIN
    formats = frozenset({"tdl", "json"})

    def check(self, ctx):
        minimum = ctx.robot.limits.safe_height_mm
        for site in ctx.plan.pose_sites:
            pose = site.pose
            if not pose.name or "safe" not in pose.name.lower():
                continue
            points = pose_points(pose, ctx.robot)
            if not points:
                continue
            lowest = min(points, key=lambda p: p.xyz[2])
            z = lowest.xyz[2]
            if z >= minimum:
                continue
            yield self.finding(f"Safe height {fmt_number(round(z, 1))}mm may be too low (recommend >= {fmt_number(minimum)}mm): "
                               f"{pose.name}{describe(lowest, pose)}",
                               span=site.span, step=site.step, evidence={"position": pose.name, "z_mm": round(z, 3), "safe_height_mm": minimum},
                               suggestion=f"Raise {pose.name} to z >= {fmt_number(minimum)}, or rename it if it is not a safe position")
