from __future__ import annotations

import math
import re

from plan_verifier.findings import Category, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

_WEIGHT = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*(?:kg)?\s*$", re.IGNORECASE)


@register
class RSaf008(Rule):
    """Declared payloads within the robot's rated payload.

    The HEADER entry ``PAYLOAD_KG`` and every ``SetWorkpieceWeight(weight,
    cog)`` are compared with ``rated_payload_kg`` of the robot spec. A payload
    above the rating overloads the arm; a negative weight is meaningless and
    makes the controller's load compensation wrong. Both are CRITICAL, and so
    is a ``PAYLOAD_KG`` that is not a number of kg (``heavy``, ``nan``): a
    payload that cannot be compared with the rating is not approved. A robot
    read from a URDF alone has no rated payload: a positive payload is then a
    WARNING that it was not checked.

    **Unsafe**::

        HEADER
        PAYLOAD_KG: 15.0
        END_HEADER
        SPAWN SetWorkpieceWeight(15.0, Trans(0, 0, 50, 0, 0, 0)) WITH WAIT;   // UR10e is rated 12.5 kg

    **Safe**::

        SPAWN SetWorkpieceWeight(0.2, Trans(0, 0, 50, 0, 0, 0)) WITH WAIT;
    """

    id = "R-SAF-008"
    name = "payload"
    severity = Severity.CRITICAL
    emits = (Severity.CRITICAL, Severity.WARNING)
    category = Category.SAFETY

    def check(self, ctx):
        entry = ctx.plan.header_value("PAYLOAD_KG")
        if entry is not None:
            weight = _weight(entry.value)
            if weight is None:  # a declared payload nobody can compare with the rating is not approved either
                yield self.finding(f"Payload '{entry.value}' (HEADER PAYLOAD_KG) is not a number of kg: it was not checked",
                                   span=entry.span, evidence={"payload": str(entry.value), "source": "HEADER PAYLOAD_KG",
                                                              "reason_code": "insufficient_evidence"},
                                   suggestion="Give the workpiece mass as a number of kg, e.g. PAYLOAD_KG: 2.5")
            else:
                yield from self._judge(ctx, weight, "HEADER PAYLOAD_KG", entry.span, None)
        for step in ctx.plan.steps:
            if step.command == "SetWorkpieceWeight":
                weight = step.number("weight")
                if weight is not None:
                    yield from self._judge(ctx, weight, "SetWorkpieceWeight", step.arg_span("weight"), step.index)

    def _judge(self, ctx, weight, source, span, step):
        rated = ctx.robot.rated_payload_kg
        evidence = {"payload_kg": weight, "rated_payload_kg": rated, "source": source}
        if weight < 0:
            yield self.finding(f"Payload {fmt_number(weight)} kg ({source}) is negative", span=span, step=step,
                               evidence=evidence, suggestion="Give the workpiece mass in kg (0 or more)")
        elif rated is None:
            if weight > 0:
                yield self.finding(f"Payload {fmt_number(weight)} kg ({source}) is not checked: the robot model gives no rated "
                                   f"payload (a URDF has none)", severity=Severity.WARNING, span=span, step=step,
                                   evidence=evidence, suggestion="Give rated_payload_kg in a robot spec YAML that names the URDF")
        elif weight > rated:
            yield self.finding(f"Payload {fmt_number(weight)} kg ({source}) exceeds the rated payload of "
                               f"{fmt_number(rated)} kg of the {ctx.robot.model}",
                               span=span, step=step, evidence=evidence,
                               suggestion=f"Use a robot rated for {fmt_number(weight)} kg or more, or lighten the load")


def _weight(value) -> float | None:
    """A header value as kg: a number, or text such as "15 kg"; None when it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    match = _WEIGHT.match(str(value))
    return float(match.group(1)) if match else None
