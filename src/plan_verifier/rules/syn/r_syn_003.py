from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.syn._pose_arity import non_numeric
from plan_verifier.rules.base import Rule


@register
class RSyn003(Rule):
    """PosJ needs exactly 6 numeric joint angles.

    Every ``PosJ(...)`` (in a DEFINE, an Assign or inline as a target) must have
    six numeric parameters, one per joint, in degrees.

    **Unsafe**::

        PosJ(0, 0, 90, 0, 90)       // Only 5 parameters
        PosJ(0, 0, 90, 0, 90, 0, 0) // 7 parameters

    **Safe**::

        PosJ(0, 0, 90, 0, 90, 0)
        PosJ(0.0, -45.5, 90.0, 0.0, 90.0, 0.0)
    """

    id = "R-SYN-003"
    name = "posj-arity"
    severity = Severity.CRITICAL
    category = Category.SYNTAX

    def check(self, ctx):
        for literal in ctx.plan.pose_literals:
            if literal.constructor != "PosJ":
                continue
            count = len(literal.args)
            if count != 6:
                yield self.finding(f"PosJ requires exactly 6 parameters, found {count}", span=literal.span,
                                   evidence={"count": count, "context": literal.context},
                                   suggestion="Give the six joint angles j1..j6 in degrees")
                continue
            for index, arg in non_numeric(literal):
                yield self.finding(f"PosJ parameter {index} must be a number", span=arg.span or literal.span,
                                   evidence={"parameter": index, "context": literal.context})
