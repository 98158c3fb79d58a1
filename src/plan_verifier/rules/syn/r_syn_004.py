from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.syn._pose_arity import non_numeric
from plan_verifier.rules.base import Rule


@register
class RSyn004(Rule):
    """PosX needs 6 numeric parameters (x, y, z, rx, ry, rz; optional ``sol``).

    Applies to ``PosX`` and ``PosY`` (6 numbers plus an optional solution-space
    argument) and to the ``Trans`` offset (exactly 6 numbers).

    **Unsafe**::

        PosX(300, 200, 50)          // Only 3 parameters

    **Safe**::

        PosX(300, 200, 50, 0, 0, 0)
        PosX(0.0, 0.0, 150.0, 0.0, 0.0, 0.0)
    """

    id = "R-SYN-004"
    name = "posx-arity"
    severity = Severity.CRITICAL
    category = Category.SYNTAX

    def check(self, ctx):
        for literal in ctx.plan.pose_literals:
            if literal.constructor == "PosJ":
                continue
            count = len(literal.args)
            allowed = (6,) if literal.constructor == "Trans" else (6, 7)
            if count not in allowed:
                yield self.finding(f"{literal.constructor} requires exactly 6 parameters (x,y,z,rx,ry,rz), found {count}",
                                   span=literal.span, evidence={"count": count, "context": literal.context},
                                   suggestion="Give x, y, z in mm and rx, ry, rz in degrees")
                continue
            for index, arg in non_numeric(literal):
                if index == 7:
                    continue  # the solution-space argument may be None or a name
                yield self.finding(f"{literal.constructor} parameter {index} must be a number", span=arg.span or literal.span,
                                   evidence={"parameter": index, "context": literal.context})
