from __future__ import annotations

import math

from plan_verifier.findings import Category, Severity
from plan_verifier.ir import Step, fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

_CLEAR = "SPAWN SetWorkpieceWeight(0, Trans(0, 0, 0, 0, 0, 0)) WITH WAIT;"


@register
class RCon007(Rule):
    """The declared payload agrees with what the gripper holds.

    The controller only knows the load it carries from ``SetWorkpieceWeight``
    (a HEADER ``PAYLOAD_KG`` is a comment to it). Reports, in this order:

    * a payload declared (HEADER ``PAYLOAD_KG`` or ``SetWorkpieceWeight`` > 0)
      in a program that never grasps anything (nothing else is checked then);
    * a HEADER ``PAYLOAD_KG`` that no ``SetWorkpieceWeight`` applies, or that
      matches none of the weights the program sets;
    * a payload still set after the last release: the robot moves empty while
      the controller expects the load (collision detection is less sensitive),
      and the stale setting carries over to the next program.

    Grasps and releases come from the gripper timeline (see R-SAF-005). A
    grasp without any payload declaration is not reported: the weight of a
    light part is unknown and often negligible.

    **Unsafe**::

        SPAWN SetWorkpieceWeight(15.0, PosX(0, 0, 0, 0, 0, 0)) WITH WAIT;
        SPAWN MoveLinear(PosX(100, 100, 100, 0, 0, 0), 50, 50, 0, 0) WITH WAIT;   // nothing is grasped

    **Safe**::

        SPAWN SetDigitalOutput(1, 1) WITH WAIT;                              // grasp
        SPAWN SetWorkpieceWeight(15.0, Trans(0, 0, 80, 0, 0, 0)) WITH WAIT;
        ...
        SPAWN SetDigitalOutput(1, 0) WITH WAIT;                              // release
        SPAWN SetWorkpieceWeight(0, Trans(0, 0, 0, 0, 0, 0)) WITH WAIT;
    """

    id = "R-CON-007"
    name = "payload-bookkeeping"
    severity = Severity.WARNING
    category = Category.CONSISTENCY
    reason_code = "self_inconsistency"

    def check(self, ctx):
        plan = ctx.plan
        header = plan.header_value("PAYLOAD_KG")
        header_kg = _positive(header.value) if header else None
        settings = [s for s in plan.steps if s.command == "SetWorkpieceWeight"]
        loads = [(s, w) for s in settings if (w := s.number("weight")) is not None and w > 0]
        timeline = ctx.timeline
        grasps = [a for a in timeline.gripper if a.grasps]
        if not grasps and (header_kg is not None or loads):
            if header_kg is not None:
                kg, where, span, step = header_kg, "HEADER PAYLOAD_KG", header.span, None
            else:
                first, kg = loads[0]
                where, span, step = f"SetWorkpieceWeight at line {_line(first)}", first.span, first.index
            port = f" (gripper DO {timeline.port})" if timeline.port is not None else " (no gripper command)"
            yield self.finding(f"Payload of {fmt_number(kg)} kg is declared by {where} but nothing is ever grasped{port}",
                               span=span, step=step, evidence={"payload_kg": kg, "declared_by": where},
                               suggestion="Remove the payload declaration, or add the grasp the task needs")
            return
        if header_kg is not None and not settings:
            yield self.finding(f"HEADER declares PAYLOAD_KG {fmt_number(header_kg)} but no SetWorkpieceWeight applies it to the controller",
                               span=header.span, evidence={"payload_kg": header_kg},
                               suggestion=f"Add 'SPAWN SetWorkpieceWeight({fmt_number(header_kg)}, Trans(0, 0, 0, 0, 0, 0)) WITH WAIT;' "
                                          f"after the grasp at line {_line(grasps[0].step)}")
        elif header_kg is not None and loads and not any(math.isclose(w, header_kg, rel_tol=1e-6) for _, w in loads):
            step, weight = loads[0]
            yield self.finding(f"HEADER PAYLOAD_KG {fmt_number(header_kg)} does not match the SetWorkpieceWeight of {fmt_number(weight)} kg at line {_line(step)}",
                               span=header.span, evidence={"payload_kg": header_kg, "set_kg": [w for _, w in loads]},
                               suggestion="Make the HEADER and SetWorkpieceWeight agree on the object's weight")
        releases = [a for a in timeline.gripper if a.releases]
        if not releases or releases[-1].step.index < grasps[-1].step.index:
            return  # the program ends holding the object: the payload is right to stay
        release = releases[-1].step
        last_setting = settings[-1] if settings else None
        weight = last_setting.number("weight") if last_setting else None
        if last_setting is not None and last_setting.index < release.index and weight is not None and weight > 0:
            yield self.finding(f"Payload of {fmt_number(weight)} kg (SetWorkpieceWeight at line {_line(last_setting)}) is still set "
                               f"after the last release at line {_line(release)}",
                               span=release.span, step=release.index, evidence={"payload_kg": weight, "set_step": last_setting.index},
                               suggestion=f"Add '{_CLEAR}' after the release")


def _positive(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        return None
    return float(value)


def _line(step: Step) -> int | str:
    return step.span.line if step.span else "?"
