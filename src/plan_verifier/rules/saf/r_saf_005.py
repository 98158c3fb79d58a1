from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSaf005(Rule):
    """Gripper commands follow a logical open/close sequence.

    The gripper is the digital output named in the robot spec (DO1, value 1
    closes, in the seed examples; a program that drives one other output
    consistently is read with that output, see R-SAF-011). Three things are
    reported, each as a WARNING:

    * the same state commanded twice in a row (redundant command);
    * a grasp while the gripper state is unknown: it was never opened first,
      so it may already be closed and miss the object;
    * the program ends still holding the object it grasped.

    **Unsafe**::

        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;  // close
        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;  // close again: redundant

    **Safe**::

        SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;  // open
        ...
        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;  // close
        ...
        SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;  // release
    """

    id = "R-SAF-005"
    name = "gripper-state"
    severity = Severity.WARNING
    category = Category.SAFETY

    def check(self, ctx):
        timeline = ctx.timeline
        for action in timeline.gripper:
            step = action.step
            line = step.span.line if step.span else step.index
            evidence = {"port": action.port, "command": "close" if action.closes else "open"}
            if action.redundant:
                yield self.finding(f"Redundant gripper command detected at line {line}", span=step.span, step=step.index,
                                   evidence={**evidence, "state_before": action.state_before},
                                   suggestion="Remove the repeated gripper command")
            elif action.closes and action.state_before is None:
                yield self.finding(f"Gripper closes at line {line} without having been opened first (initial gripper state unknown)",
                                   span=step.span, step=step.index, evidence=evidence,
                                   suggestion=f"Open the gripper (SetDigitalOutput({action.port}, {1 - ctx.robot.gripper.close_value})) "
                                              "before approaching the object")
        holding = timeline.holding_at_end
        if holding is not None:
            step = holding.step
            line = step.span.line if step.span else step.index
            yield self.finding(f"Program ends still holding the object grasped at line {line}", span=step.span, step=step.index,
                               evidence={"port": holding.port, "grasp_step": step.index},
                               suggestion="Place the object and open the gripper before the program ends")
