from __future__ import annotations

from plan_verifier.findings import Category, Severity, Span
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn001(Rule):
    """TDL document structure: at least one GOAL, bodies in braces, balanced braces.

    A program must contain at least one ``GOAL Name() { ... }`` block; every GOAL
    body must be enclosed in braces and every brace must be closed. Under
    ``--profile strict`` a DEFINE section is also required (seed 000). A HEADER
    block must be closed by ``END_HEADER`` and hold ``KEY: value`` lines, and a
    GOAL may not call itself.

    **Unsafe**::

        GOAL Execute_Process() {
            SPAWN MoveLinear(target_pose=A_Pose, velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;

    **Safe**::

        DEFINE A_Pose = PosX(300, 200, 150, 0, 180, 0);
        GOAL Execute_Process() {
            SPAWN MoveLinear(target_pose=A_Pose, velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
        }
    """

    id = "R-SYN-001"
    name = "document-structure"
    severity = Severity.CRITICAL
    category = Category.SYNTAX

    def check(self, ctx):
        yield from self.diagnostics(ctx)
        plan = ctx.plan
        if not plan.parsed:
            return
        if not plan.goals:
            message = "TDL document missing required DEFINE or GOAL sections: no GOAL block"
            if not plan.source.strip():
                message += " (the program is empty)"
            yield self.finding(message, span=Span.point(1, 1), suggestion="Wrap the commands in GOAL Execute_Process() { ... }")
        if ctx.strict and not plan.definitions:
            yield self.finding("TDL document missing required DEFINE or GOAL sections: no DEFINE statement (strict profile)",
                               span=Span.point(1, 1), suggestion="Declare every position with DEFINE Name = PosX(...); before the GOALs")
