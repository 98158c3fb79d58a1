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
    execution level.

    A motion the simulation cannot follow rejects the plan as well (CRITICAL,
    outcome UNKNOWN, reason code `insufficient_evidence`), one finding per
    motion naming its step and the expression: a target only known at run
    time (a pose computed from a value the program reads as it runs, a name
    defined nowhere — R-CON-008 and R-CON-001 say why), a cell position
    without coordinates (give it a `pose` or `joints`), or a target beyond any
    arm (a coordinate beyond 100 m, a joint beyond ±720°: R-SAF-001 and
    R-SAF-007 reject those too). Neither that motion nor the way from it to
    the next target was checked for collisions, joint limits or
    singularities, and a plan is never approved on a motion nobody checked.
    Nor on one whose collision sweep could not prove every instant clear
    (`motion.sweep` gives up after 24 rounds of halving its segments), nor on
    a program whose motions run in an order decided at run time: after an
    ``If``/``Else``, a loop (``While``, ``For``), a jump (``GoTo``,
    ``IfGoTo``), ``Call`` or ``ThreadRun`` the robot may go from any motion to
    another, and the simulation follows the text order only, so those ways
    were never checked.

    After a motion that fails (no IK solution, a path that breaks off) the
    controller stops the program: the motions after it are not simulated, and
    one INFO finding says so, tied to the failing step (its own CRITICAL
    finding is the one mistake: one mistake, one finding).

    **Unsafe**::

        plan-verify check job.tdl --robot my_arm_without_kinematics.yaml
        SPAWN MoveLinear(target_pose=GetCurrentPose() * Trans(0, 0, 100, 0, 0, 0), ...) WITH WAIT;  // not simulated

    **Safe**::

        plan-verify check job.tdl --robot ur10e
        SPAWN MoveLinear(target_pose=PosX(450, -300, 300, 180, 0, 90), ...) WITH WAIT;
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
        for skipped in execution.not_simulated:
            if skipped.cause == AFTER_FAILURE:
                continue
            if skipped.param == "order":
                yield self.finding(
                    f"Step {skipped.step} {skipped.command}: {skipped.reason}; the simulation follows the text order only, so the "
                    f"way from the motion before it to the next one was not checked (plan rejected: fail closed)",
                    span=skipped.span, step=skipped.step, indeterminate=True,
                    evidence={"step": skipped.step, "command": skipped.command, "param": skipped.param, "expression": skipped.expression,
                              "reason": skipped.reason, "reason_code": "insufficient_evidence"},
                    suggestion="Write the motions out in the order the robot runs them (one straight-line plan per case) and verify "
                               "each; the planner can resubmit the case that applies")
                continue
            yield self.finding(
                f"Step {skipped.step} {skipped.command} was not simulated: {skipped.reason}; neither the motion nor the way "
                f"to the next target was checked (plan rejected: fail closed)",
                span=skipped.span, step=skipped.step, indeterminate=True,
                evidence={"step": skipped.step, "command": skipped.command, "param": skipped.param,
                          "expression": skipped.expression, "reason": skipped.reason, "reason_code": "insufficient_evidence"},
                suggestion=_NO_COORDINATES.format(skipped.expression) if "no coordinates" in skipped.reason
                else "Give the target as numbers the verifier can evaluate (a PosX/PosJ literal, a DEFINE, an Assign of a literal); "
                     "a value known only at run time needs the plan verified again with that value")
        for motion in execution.motions:
            if not motion.proven:
                ref = motion.motion
                yield self.finding(
                    f"Step {ref.step} {ref.command} to {ref.target}: the collision sweep could not prove every instant of the motion "
                    f"clear (plan rejected: fail closed)",
                    span=ref.span, step=ref.step, indeterminate=True,
                    evidence={"step": ref.step, "command": ref.command, "target": ref.target, "reason_code": "insufficient_evidence"},
                    suggestion="Split the motion with a waypoint; please report the plan (a verifier limit)")


_NO_COORDINATES = ("Give position '{}' a pose or joints in the cell, or verify against a graph without coordinates at --level BASIC "
                   "(graph checks only, nothing simulated)")
