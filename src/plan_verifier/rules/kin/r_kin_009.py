from __future__ import annotations

from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule, angles, body, xyz

#: What each kind of start problem means, for the message.
_WHY = {
    "unreachable": "its pose has no inverse-kinematics solution",
    "outside_limits": "every inverse-kinematics solution of its pose puts a joint outside its limits",
}


@register
class RKin009(ExecutionRule):
    """The start the verifier assumes is a configuration the robot can be standing in.

    When the robot's joints are not given (no `/joint_states`, no
    `--start-joints`), the execution level starts at the start position: its
    taught `joints` when they fit the robot, else one of the inverse-kinematics
    solutions of its pose — the nearest to `home_joints_deg` among those within
    the joint limits that touch nothing standing still (floor, obstacles, the
    robot's own links, with the tool it holds), preferring those that keep the
    cell's clearance. A start position with no such configuration (unreachable,
    only outside the joint limits, every solution in collision; or taught joints
    in collision or outside the limits; or, with no start position, the spec's
    `home_joints_deg` in collision) is a problem of the cell, not of the plan: the
    robot cannot be standing there, so no run from it proves anything. The plan
    is rejected (outcome UNKNOWN) with this finding, which names the position;
    the run is still simulated from the nearest configuration, and what that
    configuration touches standing still is not reported again as a collision at
    0 % of the first motion. `plan-verify graph lint` lists such positions.

    **Unsafe**::

        # cell: the start position's pose is inside the press (test/fixtures/cells/start_cell.yaml)
        positions:
          - {name: Buried, role: work, pose: [500, 300, 100, 180, 0, 0]}
        collision_objects:
          - {name: Press, shape: box, size: [300, 300, 300], pose: [500, 300, 100, 0, 0, 0]}
        plan-verify check plan.json --cell start_cell.yaml --start-position Buried

    **Safe**::

        plan-verify check plan.json --cell start_cell.yaml --start-position Over_Press   # 300 mm above the press
    """

    id = "R-KIN-009"
    name = "start-configuration-possible"
    reason_code = "start_infeasible"

    def judge(self, execution, ctx):
        start = execution.start
        problem = start.problem if start is not None else None
        if problem is None:
            return
        model = ctx.robot.model
        at = angles(start.joints_deg)
        if problem.where == "home_joints_deg":
            what = f"The {model}'s home_joints_deg {at}, where the run starts without a start position, touch something: {_touching(problem)}"
        elif problem.taught and problem.kind == "outside_limits":
            what = f"The taught joints of start position '{problem.where}' {at} are outside the {model}'s joint limits"
        elif problem.taught:
            what = f"The taught joints of start position '{problem.where}' {at} put the {model} in collision: {_touching(problem)}"
        else:
            pose = ctx.cell.positions[problem.where].pose if ctx.cell is not None and problem.where in ctx.cell.positions else None
            where = f"start position '{problem.where}'" + (f" at {xyz(pose[:3])}" if pose else "")
            if problem.kind == "collision":
                what = (f"The {model} cannot be standing at {where}: each of its {problem.solutions} configurations within the joint "
                        f"limits touches something (the nearest to home_joints_deg, {at}: {_touching(problem)})")
            else:
                what = f"The {model} cannot be standing at {where}: {_WHY[problem.kind]} (the run starts from home_joints_deg {at})"
        yield self.finding(
            f"{what}; the plan cannot be verified from a start the robot cannot be in (its first motion is checked at its target only)",
            indeterminate=True,
            evidence={"position": problem.where, "kind": problem.kind, "taught": problem.taught, "configurations": problem.solutions,
                      "start_deg": [round(v, 3) for v in start.joints_deg],
                      "contacts": [{"body": c.body, "other": c.other, "depth_mm": round(c.depth_mm, 1)} for c in problem.contacts]},
            suggestion="Give the robot's joints (--start-joints, the node's /joint_states), or fix the cell: a pose or taught "
                       "joints the robot can stand in (`plan-verify graph lint` lists the positions that have none)")


def _touching(problem) -> str:
    """`upper arm (link2.1) and wrist 1 (link4.1) 3.8 mm deep, wrist 3 (link6) 173 mm into Press`: the deepest three."""
    parts = []
    for c in problem.contacts[:3]:
        depth = f"{fmt_number(round(c.depth_mm, 1))} mm"
        parts.append(f"{body(c.body)} and {body(c.other)} {depth} deep" if c.kind == "self" else
                     f"{body(c.body)} {depth} into {'the floor' if c.kind == 'floor' else c.other}")
    return ", ".join(parts) + (" ..." if len(problem.contacts) > 3 else "")
