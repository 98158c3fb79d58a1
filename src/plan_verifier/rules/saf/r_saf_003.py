from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.saf._ranges import out_of_range, recommendation
from plan_verifier.rules.base import Rule


@register
class RSaf003(Rule):
    """Motion acceleration within the robot's safe range, preferably the recommended one.

    Every motion command and every JSON/YAML plan step that carries an
    ``acceleration`` field is compared with ``limits.acceleration_mm_s2`` of
    the robot spec (seed 000: CRITICAL outside [10, 500] mm/s², WARNING
    outside the recommended [20, 200] mm/s²). An acceleration given as a
    variable that cannot be evaluated is not checked here.

    **Unsafe**::

        SPAWN MoveLinear(target_pose=A, velocity=100, acceleration=800, tool=0, blending_radius=0) WITH WAIT;  // too high
        SPAWN MoveLinear(target_pose=A, velocity=100, acceleration=300, tool=0, blending_radius=0) WITH WAIT;  // warning

    **Safe**::

        SPAWN MoveLinear(target_pose=A, velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    """

    id = "R-SAF-003"
    name = "acceleration"
    severity = Severity.CRITICAL
    emits = (Severity.CRITICAL, Severity.WARNING)
    category = Category.SAFETY
    formats = frozenset({"tdl", "json"})

    def check(self, ctx):
        limits = ctx.robot.limits.acceleration_mm_s2
        for step in ctx.plan.steps:
            acceleration = step.number("acceleration")
            if acceleration is None:
                continue
            for severity, where, evidence in out_of_range(acceleration, limits):
                yield self.finding(f"Acceleration {fmt_number(acceleration)} mm/s² is outside {where}", severity=severity,
                                   span=step.arg_span("acceleration"), step=step.index,
                                   evidence={"acceleration_mm_s2": acceleration, **evidence, "command": step.command},
                                   suggestion=recommendation(limits, " mm/s²"))
