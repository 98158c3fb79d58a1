from __future__ import annotations

from plan_verifier.ir import fmt_number
from plan_verifier.motion.verified import JOINT_TOLERANCE_DEG, step_motions
from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule, angles


@register
class RKin007(ExecutionRule):
    """An approved-actions file's joint targets are the ones the verifier computes for it now.

    Each motion step of an approved-actions file carries the joint target the
    verifier chose (`verified.joints_deg`, contract §6) and the executor runs
    exactly that. Re-verifying the file runs the execution level again — from
    the joints the request gives, else from the `start_joints_deg` its
    verification recorded — and compares: a target more than 0.05° away in
    any joint from what the simulation reaches now (another IK branch, a
    changed robot spec or cell, another start), a `verified` block on a step
    that does not move or that could not be simulated, or one that cannot be
    read, means the robot would run configurations that were not checked:
    the file is refused. A motion that now breaks off, or a JSON move to a
    position the cell does not have, is left to the rule that rejects it. Files without `verified` blocks (the seed system's,
    or written before they existed) are checked as before.

    **Unsafe**::

        steps:
          - id: 1
            command: "MoveJoint"
            args: {target_pose: {PosJ: [180, -90, 90, -90, -90, 0]}, ...}
            verified: {joints_deg: [180, -90, 90, -90, -90, 45], duration_s: 0.8, path: "joint"}

    **Safe**::

        steps:
          - id: 1
            command: "MoveJoint"
            args: {target_pose: {PosJ: [180, -90, 90, -90, -90, 0]}, ...}
            verified: {joints_deg: [180, -90, 90, -90, -90, 0], duration_s: 0.8, path: "joint"}
    """

    id = "R-KIN-007"
    name = "approved-joint-targets-match"
    formats = frozenset({"actions"})

    def judge(self, execution, ctx):
        approved = ctx.plan.approved_motions
        if not approved:
            return
        now = step_motions(execution)
        for motion in approved:
            step = ctx.plan.step(motion.step) if motion.step <= len(ctx.plan.steps) else None
            label = f"step {motion.step}" + (f" ({step.command if step.action == 'command' else step.name or step.action})" if step else "")
            if motion.joints_deg is None:
                yield self.finding(f"The verified block of {label} cannot be read: {motion.problem}", span=motion.span, step=motion.step,
                                   evidence={"step": motion.step}, suggestion="Verify the plan again and run the file it writes")
                continue
            computed = now.get(motion.step)
            if computed is None and _reported_elsewhere(motion.step, step, execution, ctx):
                continue
            if computed is None:
                yield self.finding(f"{label} carries joint target {angles(motion.joints_deg)}, but the verifier simulated no "
                                   f"complete motion for it now", span=motion.span, step=motion.step,
                                   evidence={"step": motion.step, "approved_deg": list(motion.joints_deg)},
                                   suggestion="Verify the plan again and run the file it writes")
                continue
            differs = len(computed.joints_deg) != len(motion.joints_deg) or any(
                abs(a - b) > JOINT_TOLERANCE_DEG for a, b in zip(computed.joints_deg, motion.joints_deg))
            if differs:
                worst = max(range(min(len(computed.joints_deg), len(motion.joints_deg))),
                            key=lambda j: abs(computed.joints_deg[j] - motion.joints_deg[j]))
                delta = abs(computed.joints_deg[worst] - motion.joints_deg[worst])
                yield self.finding(
                    f"{label}: the approved joint target {angles(motion.joints_deg)} is not the one the verifier computes now "
                    f"{angles(computed.joints_deg)} (joint {worst + 1} differs by {fmt_number(round(delta, 3))}°, from the start "
                    f"{angles(execution.start.joints_deg)} ({execution.start.source})); the robot would run a configuration "
                    f"that was not checked",
                    span=motion.span, step=motion.step,
                    evidence={"step": motion.step, "approved_deg": list(motion.joints_deg), "computed_deg": list(computed.joints_deg),
                              "joint": worst + 1, "difference_deg": round(delta, 3), "tolerance_deg": JOINT_TOLERANCE_DEG,
                              "start_source": execution.start.source},
                    suggestion="Verify the plan again from where the robot is (its joints) and run the file it writes")


def _reported_elsewhere(index: int, step, execution, ctx) -> bool:
    """A motion that broke off (R-KIN-002/003) or a JSON move to no position of the cell (R-GRF-000, the graph rules):
    its own rule rejects the plan; one mistake, one finding."""
    if execution.motion_at(index):
        return True
    if step is None or ctx.plan.format != "json" or step.action != "move":
        return False
    return ctx.cell is None or step.target_name not in ctx.cell.positions

