from __future__ import annotations

from plan_verifier.analysis.timeline import descent_before, lift_after
from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSaf006(Rule):
    """Pick and place follow approach, descend, grasp, lift, …, descend, release, retreat.

    For every grasp (the gripper closes while empty) and every release (it
    opens while holding), the moves around it are checked: a grasp must be
    preceded by a descent onto the object and followed by a lift; a release
    must be preceded by a descent onto the place position and followed by a
    retreat upwards. A release right after a lift or after a joint move to a
    home pose drops the object in mid-air. One WARNING per gripper action
    lists every missing part. Positions come from the motion timeline (joint
    targets by forward kinematics); a move whose target cannot be evaluated is
    not held against the plan.

    **Unsafe**::

        SPAWN MoveLinear(banana_approach, 40, 40, 0, 0.0, None) WITH WAIT;   // lift to z=200
        SPAWN SetDigitalOutput(1, 0) WITH WAIT;                              // release in mid-air

    **Safe**::

        SPAWN MoveLinear(place_approach, 100, 50, 0, 0) WITH WAIT;   // z=200
        SPAWN MoveLinear(place, 50, 50, 0, 0) WITH WAIT;             // descend to z=100
        SPAWN SetDigitalOutput(1, 0) WITH WAIT;                      // release
        SPAWN MoveLinear(place_approach, 50, 50, 0, 0) WITH WAIT;    // retreat
    """

    id = "R-SAF-006"
    name = "pick-place-sequence"
    severity = Severity.WARNING
    category = Category.SAFETY

    def check(self, ctx):
        for action in ctx.timeline.gripper:
            if action.grasps:
                what, before, after = "grasp", "a descent onto the object", "a lift"
            elif action.releases:
                what, before, after = "release", "a descent onto the place position", "a retreat upwards"
            else:
                continue
            missing = []
            if descent_before(action) is False:
                missing.append(f"not preceded by {before}")
            if lift_after(action) is False:
                missing.append(f"not followed by {after}")
            if not missing:
                continue
            step = action.step
            line = step.span.line if step.span else step.index
            position = action.position
            yield self.finding(
                f"Potentially unsafe motion sequence detected: the {what} at line {line} is {' and '.join(missing)}",
                span=step.span, step=step.index,
                evidence={"action": what, "missing": missing,
                          "position_mm": [round(v, 1) for v in position.xyz] if position and position.xyz else None},
                suggestion="Approach above the spot, descend, act on the gripper, then move up again")
