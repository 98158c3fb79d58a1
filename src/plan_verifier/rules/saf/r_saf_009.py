from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.saf._ranges import out_of_range, recommendation
from plan_verifier.rules.base import Rule

#: command -> (parameter, limits attribute, unit, what it sets)
_SETTINGS = {
    "SetTaskVelocity": ("mm_per_sec", "task_velocity_mm_s", " mm/s", "task velocity"),
    "SetTaskAcceleration": ("mm_per_sec2", "task_acceleration_mm_s2", " mm/s²", "task acceleration"),
    "SetJointVelocity": ("percent", "joint_velocity_percent", "%", "joint velocity"),
    "SetJointAcceleration": ("percent", "joint_acceleration_percent", "%", "joint acceleration"),
}


@register
class RSaf009(Rule):
    """Global speed settings within the robot's limits.

    ``SetTaskVelocity`` and ``SetTaskAcceleration`` set the default Cartesian
    speed and acceleration of every later motion; ``SetJointVelocity`` and
    ``SetJointAcceleration`` set the joint speed and acceleration as a percent
    of the maximum. They are compared with ``limits.task_velocity_mm_s``
    (seed 000 defaults [10, 1000], recommended [50, 500] mm/s),
    ``limits.task_acceleration_mm_s2`` ([10, 500], recommended [20, 200]
    mm/s²) and ``limits.joint_velocity_percent`` /
    ``limits.joint_acceleration_percent`` ([1, 100] %). CRITICAL outside the
    hard range, WARNING outside the recommended one.

    **Unsafe**::

        SPAWN SetTaskAcceleration(1250) WITH WAIT;   // above 500 mm/s²
        SPAWN SetJointVelocity(150) WITH WAIT;       // above 100 %

    **Safe**::

        SPAWN SetTaskVelocity(100) WITH WAIT;
        SPAWN SetTaskAcceleration(100) WITH WAIT;
        SPAWN SetJointVelocity(50) WITH WAIT;
    """

    id = "R-SAF-009"
    name = "speed-settings"
    severity = Severity.CRITICAL
    emits = (Severity.CRITICAL, Severity.WARNING)
    category = Category.SAFETY

    def check(self, ctx):
        for step in ctx.plan.steps:
            setting = _SETTINGS.get(step.command)
            if setting is None:
                continue
            param, attribute, unit, what = setting
            value = step.number(param)
            if value is None:
                continue
            limits = getattr(ctx.robot.limits, attribute)
            for severity, where, evidence in out_of_range(value, limits):
                yield self.finding(f"{step.command}({fmt_number(value)}): {what} {fmt_number(value)}{unit} is outside {where}",
                                   severity=severity, span=step.arg_span(param), step=step.index,
                                   evidence={"value": value, "unit": unit.strip(), **evidence, "command": step.command},
                                   suggestion=recommendation(limits, unit))
