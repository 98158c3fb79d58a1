from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.motion.facts import AFTER_FAILURE
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RKin000(Rule):
    """The execution level could run: the robot has a kinematic model and every motion could be simulated.

    The execution level (seed 004's L3) moves the robot through the plan in a
    kinematic simulation of the cell. A robot spec without `kinematics` cannot
    be simulated: the plan is rejected (CRITICAL, outcome UNKNOWN, reason code
    `exec_unavailable`) rather than approved on missing evidence — add the
    kinematics to the spec, or verify at `--level BASIC`, which has no
    execution level. After a motion that fails (no IK solution, a path that
    breaks off) the controller stops the program: the motions after it are
    not simulated, and one INFO finding says so, tied to the failing step
    (its own CRITICAL finding is the one mistake). Motions whose target is only known at run time (a pose
    computed from a variable the program reads at run time, a cell position
    without coordinates) are not simulated: one INFO finding lists them and
    the outcome is UNKNOWN; the graph's :ONLY_ALLOWED_MOVE_TO edges still vouch
    for moves between taught positions.

    **Unsafe**::

        plan-verify check job.tdl --robot my_arm_without_kinematics.yaml

    **Safe**::

        plan-verify check job.tdl --robot ur10e
    """

    id = "R-KIN-000"
    name = "execution-level-ran"
    severity = Severity.CRITICAL
    emits = (Severity.CRITICAL, Severity.INFO)
    category = Category.EXECUTION
    formats = frozenset({"tdl", "json"})
    reason_code = "exec_unavailable"

    def check(self, ctx):
        execution = ctx.execution
        if execution.unavailable is not None:
            yield self.finding(f"Execution level could not run: {execution.unavailable}; no motion of the plan was simulated",
                               indeterminate=True, evidence={"robot": ctx.robot.name},
                               suggestion="Add kinematics (dh or chain) to the robot spec, or verify at --level BASIC (no execution level)")
            return
        after = [n for n in execution.not_simulated if n.cause == AFTER_FAILURE]
        if after:  # a consequence of an earlier motion's own CRITICAL finding, not a second mistake
            steps = [n.step for n in after]
            yield self.finding(f"{len(after)} motion(s) not simulated after step {after[0].after_step}, whose motion fails: "
                               f"the controller stops the program there (steps {', '.join(map(str, steps[:6]))}{' ...' if len(steps) > 6 else ''})",
                               severity=Severity.INFO, span=after[0].span, step=after[0].step,
                               evidence={"steps": steps, "after_step": after[0].after_step, "cause": AFTER_FAILURE},
                               suggestion=f"Fix step {after[0].after_step} first; the motions after it are checked once it runs")
        skipped = [n for n in execution.not_simulated if n.cause != AFTER_FAILURE]
        if not skipped:
            return
        steps = [n.step for n in skipped]
        first = skipped[0]
        more = f" (and {len(skipped) - 1} more: steps {', '.join(map(str, steps[1:6]))}{' ...' if len(steps) > 6 else ''})" if len(skipped) > 1 else ""
        yield self.finding(f"{len(skipped)} motion(s) not simulated: step {first.step} {first.command}: {first.reason}{more}",
                           severity=Severity.INFO, span=first.span, step=first.step, indeterminate=True,
                           evidence={"steps": steps, "reasons": sorted({n.reason for n in skipped})},
                           suggestion="Give the targets as poses the verifier can evaluate (PosX/PosJ literals, DEFINE, Assign), "
                                      "and the cell's positions coordinates (pose or joints)")
