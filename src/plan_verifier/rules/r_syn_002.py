from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn002(Rule):
    """Position definition format: ``DEFINE <name> = PosJ|PosX|PosY(<params>);``.

    Checks that a DEFINE names an identifier, has an ``=``, binds a PosJ, PosX or
    PosY constructor, and ends with ``;``.

    **Unsafe**::

        DEFINE Bad_Pose = PosX(0, 0, 150)  // Missing semicolon
        DEFINE Bad_Pose = (0, 0, 150);     // Missing Pos type

    **Safe**::

        DEFINE Home_Pose = PosJ(0, 0, 90, 0, 90, 0);
        DEFINE A_Safe_Pose = PosX(0, 0, 150, 0, 0, 0);
    """

    id = "R-SYN-002"
    name = "define-format"
    severity = Severity.CRITICAL
    category = Category.SYNTAX

    def check(self, ctx):
        yield from self.diagnostics(ctx)
