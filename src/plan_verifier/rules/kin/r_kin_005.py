from __future__ import annotations

from plan_verifier.findings import Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule, motion_evidence, where
from plan_verifier.rules.kin.r_kin_004 import fastest, singular

#: Within this share of a joint's speed limit is a warning (the contract: within 20 %).
WARN_SHARE = 0.8


@register
class RKin005(ExecutionRule):
    """The joint speeds a linear or circular move needs stay within the joints' limits.

    A TCP moving on a straight line at the commanded `velocity` turns its
    joints at rates that depend on where it is (they grow near singularities
    and close to the base). Along every linear and circular path the rates
    between samples are computed from the commanded speed and compared with
    each joint's `max_speed_deg_s`: above the limit is CRITICAL (the
    controller cannot follow the path at that speed), within 20 % of it a
    WARNING. Moves that break off, or whose fast joint comes from a nearby
    singularity, are R-KIN-003's and R-KIN-004's.

    **Unsafe**::

        // UR10e, base joint limited to 120°/s: a fast sweep close to the base
        SPAWN MoveLinear(PosX(300, -300, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
        SPAWN MoveLinear(PosX(300, 300, 300, 180, 0, 0), 1000, 400, 0, 0) WITH WAIT;

    **Safe**::

        SPAWN MoveLinear(PosX(300, 300, 300, 180, 0, 0), 200, 100, 0, 0) WITH WAIT;
    """

    id = "R-KIN-005"
    name = "joint-speeds-within-limits"
    emits = (Severity.CRITICAL, Severity.WARNING)

    def judge(self, execution, ctx):
        worst = fastest(execution.demands)
        # One mistake, one finding: a path that breaks off is R-KIN-003's, a fast joint at a singularity R-KIN-004's.
        excused = {b.motion.step for b in execution.breaks} | {d.motion.step for d in worst if singular(d)}
        for speed in worst:
            motion = speed.motion
            share = speed.share
            if motion.step in excused or share <= WARN_SHARE:
                continue
            over = share > 1.0
            slower = fmt_number(round(speed.velocity_mm_s * WARN_SHARE / share))
            yield self.finding(
                f"{motion.command} at {fmt_number(speed.velocity_mm_s)} mm/s needs joint {speed.joint} ({speed.name}) to turn at "
                f"{fmt_number(round(speed.needed_deg_s))}°/s {where(motion, speed.s, speed.ends[0].tcp)}: "
                + (f"above its {fmt_number(speed.limit_deg_s)}°/s limit" if over else
                   f"within {round(100 * (1 - share))}% of its {fmt_number(speed.limit_deg_s)}°/s limit"),
                severity=Severity.CRITICAL if over else Severity.WARNING, span=motion.span, step=motion.step,
                evidence={**motion_evidence(motion, speed.s, speed.ends[0].tcp), "joint": speed.joint,
                          "needed_deg_s": round(speed.needed_deg_s, 1), "limit_deg_s": speed.limit_deg_s,
                          "velocity_mm_s": speed.velocity_mm_s},
                suggestion=f"Lower the velocity to {slower} mm/s or less, or keep the path farther from the base")
