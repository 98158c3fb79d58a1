from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSaf011(Rule):
    """The program drives the gripper on the robot's gripper output.

    The robot spec names the digital output wired to the gripper
    (``gripper.port``). A program that never writes that output but drives
    one other output consistently was written for a different cell (some
    generators use DO0, the seed examples DO1): on this robot its gripper
    commands would switch something else and the gripper would not actuate.
    The other gripper rules read such a program with the port it uses, so
    that its open/close logic is still checked.

    **Unsafe**::

        SPAWN SetDigitalOutput(0, 1) WITH WAIT;   // the spec's gripper is on DO1

    **Safe**::

        SPAWN SetDigitalOutput(1, 1) WITH WAIT;
    """

    id = "R-SAF-011"
    name = "gripper-port"
    severity = Severity.WARNING
    category = Category.SAFETY

    def check(self, ctx):
        timeline = ctx.timeline
        if not timeline.inferred_port:
            return
        first = next(s for s in ctx.plan.steps if s.command == "SetDigitalOutput" and s.number("port") == timeline.port)
        yield self.finding(
            f"Gripper commands use digital output {timeline.port}, but the {ctx.robot.model} gripper is on output "
            f"{timeline.spec_port}: the gripper would not actuate",
            span=first.arg_span("port"), step=first.index,
            evidence={"port": timeline.port, "gripper_port": timeline.spec_port},
            suggestion=f"Use SetDigitalOutput({timeline.spec_port}, ...) for the gripper, or check the robot spec (--robot)")
