from __future__ import annotations

import math

from plan_verifier.analysis.points import format_xyz
from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

#: Readings closer than this (mm) are the same place.
_SAME_PLACE_MM = 1.0


@register
class RSaf012(Rule):
    """A pose expression whose frame is undefined puts the robot in different places.

    TDL does not say whether ``p * Trans(dx, dy, dz, ...)`` offsets ``p`` in the
    base frame or in the tool frame. With a tool pointing down (ry = 180) the
    two readings differ in height by twice the offset: an "approach 100 mm
    above the pick" becomes a point 100 mm *below* it, inside the table or the
    part. The reach, Z and keep-out rules check every reading; this rule warns
    that the program's meaning depends on a convention the language leaves open.

    **Unsafe**::

        SPAWN Assign(p_pick, PosX(-101, 199, 645, 0, 180, 0)) WITH WAIT;
        SPAWN Assign(p_approach, p_pick * Trans(0, 0, 100, 0, 0, 0)) WITH WAIT;  // z=745 or z=545?

    **Safe**::

        SPAWN Assign(p_pick, PosX(-101, 199, 645, 0, 180, 0)) WITH WAIT;
        SPAWN Assign(p_approach, PosX(-101, 199, 745, 0, 180, 0)) WITH WAIT;
    """

    id = "R-SAF-012"
    name = "ambiguous-pose-frame"
    severity = Severity.WARNING
    category = Category.SAFETY

    def check(self, ctx):
        for site in ctx.plan.pose_sites:
            pose = site.pose
            if not pose.alternatives:
                continue
            readings = [r[:3] for r in pose.readings]
            spread = max(math.dist(a, b) for a in readings for b in readings)
            if spread <= _SAME_PLACE_MM:
                continue
            heights = [r[2] for r in readings]
            yield self.finding(
                f"Pose {pose.label} depends on an undefined frame convention: it is {format_xyz(readings[0])} with the offset in the "
                f"base frame and {format_xyz(readings[1])} with the offset in the tool frame ({spread:.0f} mm apart)",
                span=site.span, step=site.step,
                evidence={"base_frame_mm": [round(v, 1) for v in readings[0]], "tool_frame_mm": [round(v, 1) for v in readings[1]],
                          "height_difference_mm": round(max(heights) - min(heights), 1)},
                suggestion="Write the target as an explicit PosX(...) in the base frame",
            )
