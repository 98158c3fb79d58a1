from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RDom003(Rule):
    """A gripper action is followed by a Delay before the robot moves.

    After each gripper command (the gripper's digital output, see R-SAF-005)
    that a motion follows, except a redundant one that leaves the gripper as
    it was, the commands before that motion must wait between
    the robot spec's ``limits.gripper_delay`` bounds (seed 000: 0.3-2.0 s) so
    the fingers finish closing or opening: Delays there are added up; a
    ``WaitForDigitalInput`` (waiting for the gripper's feedback signal) counts as
    waiting. No Delay at all, and a total outside the range, are reported with
    their own messages.

    **Unsafe**::

        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
        SPAWN MoveLinear(A_Safe_Pose, 50, 50, 0, 0) WITH WAIT;

    **Safe**::

        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
        SPAWN Delay(duration_sec=0.5) WITH WAIT;
        SPAWN MoveLinear(A_Safe_Pose, 50, 50, 0, 0) WITH WAIT;
    """

    id = "R-DOM-003"
    name = "gripper-delay"
    severity = Severity.WARNING
    category = Category.DOMAIN

    def check(self, ctx):
        limits = ctx.robot.limits.gripper_delay
        plan = ctx.plan
        for action in ctx.timeline.gripper:
            if action.move_after is None or action.redundant:
                continue  # nothing moves while the gripper works, or it does not move at all (R-SAF-005)
            step = action.step
            line = step.span.line if step.span else "?"
            window = plan.steps[step.index : action.move_after.step.index - 1]
            if any(s.command == "WaitForDigitalInput" for s in window):
                continue
            delays = [s for s in window if s.command == "Delay"]
            if not delays:
                yield self.finding(f"Missing delay after gripper action at line {line}", span=step.span, step=step.index,
                                   evidence={"range_s": [limits.min_s, limits.max_s]},
                                   suggestion=f"Add 'SPAWN Delay(duration_sec=0.5) WITH WAIT;' after line {line}")
                continue
            durations = [s.number("duration_sec") for s in delays]
            if any(d is None for d in durations):
                continue  # a computed delay: its length is not known statically
            total = sum(durations)
            if limits.min_s <= total <= limits.max_s:
                continue
            shown = fmt_number(round(total, 3))
            problem = "too short for the gripper to finish" if total < limits.min_s else "longer than needed"
            yield self.finding(f"Delay of {shown}s after gripper action at line {line} is outside "
                               f"[{fmt_number(limits.min_s)}-{fmt_number(limits.max_s)}]s ({problem})",
                               span=delays[0].arg_span("duration_sec"), step=delays[0].index,
                               evidence={"delay_s": total, "range_s": [limits.min_s, limits.max_s]},
                               suggestion=f"Use a Delay between {fmt_number(limits.min_s)} and {fmt_number(limits.max_s)} s")
