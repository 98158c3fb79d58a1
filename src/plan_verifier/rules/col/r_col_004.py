from __future__ import annotations

from plan_verifier.findings import Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.col._contacts import deepest
from plan_verifier.rules.execution import ExecutionRule, body, motion_evidence, where


@register
class RCol004(ExecutionRule):
    """Links and tool keep the cell's clearance from the floor and the obstacles.

    Closer than the cell's `clearance_mm` (10 mm when the cell does not say)
    without touching is a WARNING: the plan is approved, but a calibration
    error of that size would be a crash. Same sampling guarantee as R-COL-001
    (distances are exact below the clearance, never over-estimated). One
    finding per motion and thing approached, with the distance and instant.

    **Unsafe**::

        # cell: Fixture_1's top at z = 250, clearance 10 mm
        SPAWN MoveLinear(PosX(600, 0, 255, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;   // tool tip 5 mm above it

    **Safe**::

        SPAWN MoveLinear(PosX(600, 0, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
    """

    id = "R-COL-004"
    name = "clearance"
    severity = Severity.WARNING

    def judge(self, execution, ctx):
        # At the 0.1 mm the message shows: a body exactly at the clearance is not closer than it
        # (the distance engine rounds down by a hair so that it never over-estimates).
        near = [a for a in execution.approaches
                if a.kind in ("floor", "object") and a.distance_mm >= 0.0 and round(a.distance_mm, 1) < execution.clearance_mm]
        for kind in ("floor", "object"):
            for worst, group in deepest(near, kind, execution.clearance_mm):
                motion = worst.motion
                what = f"the floor (z = {fmt_number(execution.floor_z_mm)})" if kind == "floor" else worst.other
                yield self.finding(
                    f"{body(worst.body)} passes {fmt_number(round(worst.distance_mm, 1))} mm from {what} "
                    f"{where(motion, worst.s, worst.tcp)}, closer than the cell's clearance of {fmt_number(execution.clearance_mm)} mm",
                    span=motion.span, step=motion.step,
                    evidence={**motion_evidence(motion, worst.s, worst.tcp), "body": worst.body, "other": worst.other,
                              "distance_mm": round(worst.distance_mm, 1), "clearance_mm": execution.clearance_mm},
                    suggestion=f"Keep at least {fmt_number(execution.clearance_mm)} mm away: move the target or add a waypoint")
