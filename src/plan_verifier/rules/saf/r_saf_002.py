from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.saf._ranges import out_of_range, recommendation
from plan_verifier.rules.base import Rule


@register
class RSaf002(Rule):
    """Motion velocity within the robot's safe range, preferably the recommended one.

    Every motion command (MoveJoint, MoveLinear, MoveCircular, MoveBlend and
    their asynchronous forms) and every JSON/YAML plan step that carries a
    ``velocity`` field is compared with ``limits.velocity_mm_s`` of the robot
    spec (seed 000: CRITICAL outside [10, 1000] mm/s, WARNING outside the
    recommended [50, 500] mm/s). Like the seed, one range applies to every
    Move command. A velocity given as a variable that cannot be evaluated is
    not checked here.

    **Unsafe**::

        SPAWN MoveLinear(target_pose=A, velocity=1500, acceleration=50, tool=0, blending_radius=0) WITH WAIT;  // too fast
        SPAWN MoveLinear(target_pose=A, velocity=5, acceleration=50, tool=0, blending_radius=0) WITH WAIT;     // too slow
        SPAWN MoveLinear(target_pose=A, velocity=800, acceleration=50, tool=0, blending_radius=0) WITH WAIT;   // warning

    **Safe**::

        SPAWN MoveLinear(target_pose=A, velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    """

    id = "R-SAF-002"
    name = "velocity"
    severity = Severity.CRITICAL
    emits = (Severity.CRITICAL, Severity.WARNING)
    category = Category.SAFETY
    formats = frozenset({"tdl", "json"})

    def check(self, ctx):
        limits = ctx.robot.limits.velocity_mm_s
        for step in ctx.plan.steps:
            velocity = step.number("velocity")
            if velocity is None:
                continue
            for severity, where, evidence in out_of_range(velocity, limits):
                yield self.finding(f"Velocity {fmt_number(velocity)} mm/s is outside {where}", severity=severity,
                                   span=step.arg_span("velocity"), step=step.index,
                                   evidence={"velocity_mm_s": velocity, **evidence, "command": step.command},
                                   suggestion=recommendation(limits, " mm/s"))
