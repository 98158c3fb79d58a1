from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn011(Rule):
    """Arguments have the type their parameter needs.

    Pose parameters take a PosJ/PosX/PosY constructor, a defined name or a pose
    expression (a bare tuple or a Trans offset is not a target); numeric
    parameters take numbers, numeric variables or arithmetic; pose lists take
    lists of poses.

    **Unsafe**::

        SPAWN MoveLinear("home", 100, 50, 0, 0) WITH WAIT;
        SPAWN MoveLinear(Trans(0, 0, 100, 0, 0, 0), 100, 50, 0, 0) WITH WAIT;

    **Safe**::

        SPAWN MoveLinear(PosX(300, 0, 200, 0, 180, 0), 100, 50, 0, 0) WITH WAIT;
    """

    id = "R-SYN-011"
    name = "argument-type"
    severity = Severity.CRITICAL
    category = Category.SYNTAX

    def check(self, ctx):
        for step in ctx.plan.steps:
            binding = step.binding
            if binding is None:
                continue
            for param, arg, expected in binding.type_errors:
                yield self.finding(f"Parameter '{param}' of '{step.command}' must be {expected}",
                                   span=arg.span or step.span, step=step.index,
                                   evidence={"command": step.command, "param": param},
                                   suggestion="Wrap coordinates in PosX(...) or PosJ(...)" if "pose" in expected else None)
