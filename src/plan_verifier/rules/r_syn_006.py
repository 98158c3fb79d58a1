from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn006(Rule):
    """Every required parameter of a command is given.

    Parameters without a default in the command catalogue are required, whether
    passed by name or by position. A ``...`` placeholder (copied from an example)
    does not supply anything.

    **Unsafe**::

        MoveLinear(target_pose=A, velocity=100)  // Missing parameters

    **Safe**::

        MoveLinear(target_pose=A, velocity=100, acceleration=50, tool=0, blending_radius=0)
    """

    id = "R-SYN-006"
    name = "required-parameters"
    severity = Severity.CRITICAL
    category = Category.SYNTAX

    def check(self, ctx):
        yield from self.diagnostics(ctx)
        for step in ctx.plan.steps:
            binding = step.binding
            if binding is None or not binding.known:
                continue
            for param in binding.missing:
                message = f"Missing required parameter '{param}' for command '{step.command}'"
                if binding.elided:
                    message += " ('...' is a placeholder, not an argument)"
                yield self.finding(message, span=step.span, step=step.index, evidence={"command": step.command, "param": param},
                                   suggestion=f"Add {param}=... to {step.command}(...)")
