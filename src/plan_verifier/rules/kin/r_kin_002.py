from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule, xyz


@register
class RKin002(ExecutionRule):
    """A reachable target has a solution within the joint limits.

    Inverse kinematics may find configurations for a target only with some
    joint outside its working range (a Doosan J3 beyond ±160°, an H2017's J2
    beyond ±125°): the controller refuses the motion. Every IK branch is tried, with
    every 2π variant of each joint; when none fits the limits the plan is
    rejected. Joint targets written as PosJ are R-SAF-007's.

    **Unsafe**::

        // M1013 (J3 within ±160°): tool pointing up right beside the base, every solution folds the elbow too far
        SPAWN MoveJoint(PosX(-200, 0, 400, 0, 0, 0), 60, 60, 0, 0) WITH WAIT;

    **Safe**::

        SPAWN MoveJoint(PosX(600, 0, 400, 0, 180, 0), 60, 60, 0, 0) WITH WAIT;
    """

    id = "R-KIN-002"
    name = "target-within-joint-limits"

    def judge(self, execution, ctx):
        reported: set[tuple] = set()
        for check in execution.targets:
            key = (check.pose, check.reading, check.motion.tool)
            if not check.solutions or check.within_limits or key in reported:
                continue
            reported.add(key)
            motion = check.motion
            limits = ", ".join(f"{j.name} [{j.min_deg:g}, {j.max_deg:g}]" for j in ctx.robot.joints)
            yield self.finding(
                f"{motion.target} at {xyz(check.pose[:3])}: all {check.solutions} inverse-kinematics solutions put a joint of "
                f"the {ctx.robot.model} outside its limits",
                span=check.span or motion.span, step=motion.step,
                evidence={"target": motion.target, "pose": list(check.pose), "solutions": check.solutions, "reading": check.reading},
                suggestion=f"Choose a target the arm reaches within its joint limits ({limits})")
