from __future__ import annotations

from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule, xyz


@register
class RKin001(ExecutionRule):
    """Every Cartesian target has an inverse-kinematics solution: the arm can reach its position *and* orientation.

    The reach sphere (R-SAF-001) is necessary, not sufficient: a target inside
    it can still be out of reach with the tool turned the wrong way, or too
    close to the base. Each Cartesian target (PosX, a cell position's pose; in
    every reading of an ambiguous `p * Trans(...)`) is solved with the robot's
    inverse kinematics for the tool the motion uses (all branches; closed form
    for the UR and spherical-wrist arms). Without any solution the plan is
    rejected; the finding says how far the closest configuration misses the
    position and the orientation. One finding per target, at its first use.

    **Unsafe**::

        // UR10e: 1,150 mm out at shoulder height, tool pointing back at the base
        SPAWN MoveJoint(PosX(1150, 0, 180, 0, -90, 0), 60, 60, 0, 0) WITH WAIT;

    **Safe**::

        SPAWN MoveJoint(PosX(900, 0, 180, 0, 90, 0), 60, 60, 0, 0) WITH WAIT;
    """

    id = "R-KIN-001"
    name = "target-reachable"

    def judge(self, execution, ctx):
        seen: dict[tuple, list[int]] = {}
        first = {}
        for check in execution.targets:
            if check.solutions:
                continue
            key = (check.pose, check.reading, check.motion.tool)
            seen.setdefault(key, []).append(check.motion.step)
            first.setdefault(key, check)
        for key, check in first.items():
            motion = check.motion
            reading = " (alternative reading of an ambiguous pose expression)" if check.reading else ""
            turned = f" and the orientation by {fmt_number(round(check.miss_deg, 1))}°" if check.miss_deg >= 0.1 else ""
            yield self.finding(
                f"No inverse-kinematics solution for {motion.target} at {xyz(check.pose[:3])}{reading} with {motion.tool}: "
                f"the {ctx.robot.model} cannot reach it (the closest configuration misses the position by "
                f"{fmt_number(round(check.miss_mm, 1))} mm{turned})",
                span=check.span or motion.span, step=motion.step,
                evidence={"target": motion.target, "pose": list(check.pose), "reading": check.reading, "tool": motion.tool,
                          "miss_mm": round(check.miss_mm, 1), "miss_deg": round(check.miss_deg, 1), "steps": seen[key]},
                suggestion="Bring the target into the arm's workspace: closer to the base, or with the tool turned so the "
                           "wrist can get there (tool pointing down for a pick from above)")
