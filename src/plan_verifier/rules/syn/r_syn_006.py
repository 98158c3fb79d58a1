from __future__ import annotations

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.problems import Problem, ProblemKind as K
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
    owns = frozenset({K.NESTED_CALL_MISSING_PARAMETER})

    def check(self, ctx):
        yield from self.owned_problems(ctx)
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

    def word(self, problem: Problem) -> Finding:
        command, param = problem.values["command"], problem.values["param"]
        return self.finding(f"Missing required parameter '{param}' for command '{command}'", span=problem.span, step=problem.step,
                            evidence={"command": command, "param": param})
