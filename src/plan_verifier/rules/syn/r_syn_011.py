from __future__ import annotations

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn011(Rule):
    """Arguments have the type their parameter needs.

    Pose parameters take a PosJ/PosX/PosY constructor, a defined name or a pose
    expression (a bare tuple or a Trans offset is not a target); numeric
    parameters take numbers, numeric variables or arithmetic; pose lists take
    lists of poses.

    A number must be finite wherever the verifier evaluates it (a pose's
    coordinates, a speed, a tool number, an I/O value): ``nan``, ``inf`` and
    ``infinity`` (any case) are not finite numbers, not names; nor is a literal
    beyond the range of a double (``1e999``), nor arithmetic whose result is
    (``1e308 * 10``, ``100 / 0``). No check can compare such a value with a
    limit (a NaN compares false with everything), so the plan is rejected.

    **Unsafe**::

        SPAWN MoveLinear("home", 100, 50, 0, 0) WITH WAIT;
        SPAWN MoveLinear(Trans(0, 0, 100, 0, 0, 0), 100, 50, 0, 0) WITH WAIT;
        DEFINE A_Safe_Pose = PosX(nan, -300, 300, 180, 0, 90);     // not a finite number
        SPAWN MoveLinear(A_Safe_Pose, 1e999, 50, 0, 0) WITH WAIT;   // beyond the range of a double

    **Safe**::

        SPAWN MoveLinear(PosX(300, 0, 200, 0, 180, 0), 100, 50, 0, 0) WITH WAIT;
    """

    id = "R-SYN-011"
    name = "argument-type"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    owns = frozenset({K.NON_FINITE_NUMBER})

    def check(self, ctx):
        yield from self.owned_problems(ctx)
        for step in ctx.plan.steps:
            binding = step.binding
            if binding is None:
                continue
            for param, arg, expected in binding.type_errors:
                yield self.finding(f"Parameter '{param}' of '{step.command}' must be {expected}",
                                   span=arg.span or step.span, step=step.index,
                                   evidence={"command": step.command, "param": param},
                                   suggestion="Wrap coordinates in PosX(...) or PosJ(...)" if "pose" in expected else None)

    def word(self, problem: Problem) -> Finding:
        text, context = problem.values["text"], problem.values["context"]
        return self.finding(f"'{text}' in {context} is not a finite number", span=problem.span, step=problem.step,
                            evidence={"value": text, "context": context, "reason_code": "numeric_error"},
                            suggestion="Give a finite number (mm, degrees, mm/s ...): the verifier cannot check a NaN or an infinity "
                                       "against any limit")
