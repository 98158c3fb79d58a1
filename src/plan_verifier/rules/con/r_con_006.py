from __future__ import annotations

from plan_verifier.analysis.blocks import enclosing_blocks
from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

SEED_MESSAGE = "Program should end with End() command"


@register
class RCon006(Rule):
    """The program ends with End(), and nothing comes after it.

    The last command in execution order (the end of Finalize_Process, or of
    the last GOAL) must be an unconditional ``End()``. Commands after an
    unconditional ``End()`` never run: the robot stops before them (reported
    once, at the first of them, unless a ``Label`` makes them reachable by
    ``GoTo``). An ``End()`` inside ``If``/``While``/``For`` is an early exit
    and does not end the program. A missing ``End()`` is also what a
    generator's output looks like when it was cut off.

    **Unsafe**::

        GOAL Finalize_Process() {
            SPAWN MoveJoint(Home_Pose, 50, 50, 0, 0) WITH WAIT;
        }

    **Safe**::

        GOAL Finalize_Process() {
            SPAWN MoveJoint(Home_Pose, 50, 50, 0, 0) WITH WAIT;
            SPAWN End() WITH WAIT;
        }
    """

    id = "R-CON-006"
    name = "end-command"
    severity = Severity.WARNING
    category = Category.CONSISTENCY
    reason_code = "truncation_or_cutoff"

    def check(self, ctx):
        plan = ctx.plan
        if not plan.goals:
            return
        blocks = enclosing_blocks(plan)
        ends = [s for s in plan.steps if s.command == "End" and not blocks[s.index - 1]]
        if ends and ends[0] is not plan.steps[-1]:
            end = ends[0]
            after = plan.steps[end.index:]
            if not any(s.command == "Label" for s in after):
                first = after[0]
                yield self.finding(f"{SEED_MESSAGE}: {len(after)} command(s) after End() at line {end.span.line if end.span else '?'} never run",
                                   span=first.span, step=first.index, evidence={"end_step": end.index, "unreachable_steps": len(after)},
                                   suggestion="Move End() to the end of the program or remove the commands after it")
                return
        if ends and ends[-1] is plan.steps[-1]:
            return
        last = plan.steps[-1] if plan.steps else None
        goal = next((g for g in plan.goals if last is not None and g.name == last.goal), None) or plan.goals[-1]
        yield self.finding(SEED_MESSAGE, span=last.span if last else goal.name_span or goal.span, step=last.index if last else None,
                           evidence={"goal": goal.name},
                           suggestion=f"Add 'SPAWN End() WITH WAIT;' as the last statement of GOAL '{goal.name}'")
