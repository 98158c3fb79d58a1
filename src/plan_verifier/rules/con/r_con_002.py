from __future__ import annotations

from typing import Any

from plan_verifier.analysis.blocks import LOOPS, enclosing_blocks
from plan_verifier.findings import Category, Severity, Span
from plan_verifier.ir import Definition, Plan, Pose, Unresolved, fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RCon002(Rule):
    """A name is defined once.

    Reports a second ``DEFINE`` of a name, an ``Assign`` that overrides a
    ``DEFINE`` (the DEFINE'd pose silently stops applying from that step on),
    an ``Assign`` that gives an already assigned name a different value, and two
    GOALs with the same name (only the first one can be called). Re-assigning
    the same value, and updating a variable inside a ``While``/``For`` loop or
    from its own value (``Assign(i, i + 1)``), are not duplicates.

    **Unsafe**::

        DEFINE Home_Pose = PosJ(0, 0, 90, 0, 90, 0);
        DEFINE Home_Pose = PosJ(0, 0, 0, 0, 0, 0);  // Duplicate!

    **Safe**::

        DEFINE Home_Pose = PosJ(0, 0, 90, 0, 90, 0);
        DEFINE Ready_Pose = PosJ(0, 0, 0, 0, 0, 0);
    """

    id = "R-CON-002"
    name = "duplicate-definition"
    severity = Severity.WARNING
    category = Category.CONSISTENCY
    reason_code = "self_inconsistency"

    def check(self, ctx):
        plan = ctx.plan
        blocks = enclosing_blocks(plan)
        reads = {(r.step, r.name) for r in plan.references}
        first_of: dict[str, Definition] = {}
        latest: dict[str, Definition] = {}
        for d in plan.definitions:
            first = first_of.setdefault(d.name, d)
            previous = latest.get(d.name)
            latest[d.name] = d
            if previous is None:
                continue
            first_line = _line(first.span)
            if d.kind == "define":
                detail, suggestion = f"already defined at line {first_line}", f"Remove one DEFINE of '{d.name}' or rename it"
            elif first.kind == "define":
                detail = f"Assign overrides the DEFINE at line {first_line}"
                suggestion = f"Assign to a new name instead of the DEFINE'd '{d.name}'"
            else:
                if LOOPS.intersection(blocks[d.step - 1]) or (d.step, d.name) in reads:
                    continue  # a variable update (in a loop, or from its own value), not a second definition
                (old, old_text), (new, new_text) = _assigned_value(plan, previous), _assigned_value(plan, d)
                if old == new:
                    continue
                first_line = _line(previous.span)
                detail = f"re-assigned from {old_text} (line {first_line}) to {new_text}"
                suggestion = f"Use a new name for the second value of '{d.name}'"
            yield self._duplicate(d.name, d.name_span or d.span, d.step, first_line, detail, suggestion, d.kind)
        goals: dict[str, Any] = {}
        for goal in plan.goals:
            first = goals.setdefault(goal.name, goal)
            if first is not goal:
                first_line = _line(first.name_span or first.span)
                yield self._duplicate(goal.name, goal.name_span or goal.span, None, first_line, f"GOAL already defined at line {first_line}",
                                      f"Rename one of the GOALs '{goal.name}' or merge their bodies", "goal")

    def _duplicate(self, name: str, span: Span | None, step: int | None, first_line: Any, detail: str, suggestion: str, kind: str):
        return self.finding(f"Duplicate definition of '{name}' at line {_line(span)}: {detail}", span=span, step=step, suggestion=suggestion,
                            evidence={"name": name, "kind": kind, "earlier_line": first_line})


def _line(span: Span | None) -> Any:
    return span.line if span else "?"


def _assigned_value(plan: Plan, d: Definition) -> tuple[Any, str]:
    """What an Assign stores, as a key comparable across Assigns and as text for the message."""
    value = plan.step(d.step).params.get("source") if d.step else None
    if isinstance(value, Pose):
        return (value.kind, value.values), value.label
    if isinstance(value, Unresolved):
        text = " ".join(value.text.split())
        return ("expression", text), f"'{text}'"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), fmt_number(value)
    return value, repr(value)
