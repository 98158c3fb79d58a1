from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.ir import JOINT, fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSaf007(Rule):
    """Joint targets within the robot's joint limits.

    Every PosJ target (at its DEFINE or Assign, or inline) is compared joint
    by joint with the working ranges in the robot spec; each joint outside its
    range is one CRITICAL finding. The ranges differ per robot: a UR arm turns
    every joint ±360°, a Doosan M1013 limits J3 to ±160°, an H2017 J2 to ±125°.

    **Unsafe**::

        DEFINE Reach_Back = PosJ(0, 0, 170, 0, 90, 0);    // --robot m1013: J3 beyond ±160°
        DEFINE Wound_Up = PosJ(400, 0, 90, 0, 90, 0);     // any robot here: J1 beyond ±360°

    **Safe**::

        DEFINE Home_Pose = PosJ(0, 0, 90, 0, 90, 0);
    """

    id = "R-SAF-007"
    name = "joint-limits"
    severity = Severity.CRITICAL
    category = Category.SAFETY

    def check(self, ctx):
        joints = ctx.robot.joints
        for site in ctx.plan.pose_sites:
            if site.pose.kind != JOINT:
                continue
            for number, (angle, joint) in enumerate(zip(site.pose.values, joints), start=1):
                if joint.min_deg <= angle <= joint.max_deg:
                    continue
                which = joint.name if joint.name.upper() == f"J{number}" else f"{number} ({joint.name})"
                yield self.finding(
                    f"Joint {which} angle {fmt_number(angle)}° in {site.pose.label} is outside the joint limit "
                    f"[{fmt_number(joint.min_deg)}°, {fmt_number(joint.max_deg)}°] of the {ctx.robot.model}",
                    span=site.span, step=site.step,
                    evidence={"joint": number, "name": joint.name, "angle_deg": angle,
                              "min_deg": joint.min_deg, "max_deg": joint.max_deg, "position": site.pose.label},
                    suggestion=f"Choose a joint {number} angle between {fmt_number(joint.min_deg)}° and {fmt_number(joint.max_deg)}°")
