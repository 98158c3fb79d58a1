from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.ir import Goal
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

SEED_MESSAGE = "Unusual GOAL execution order detected"
#: Phase of a GOAL by its name's prefix (case-insensitive): seed 000's names and common synonyms.
_PHASES = (
    (0, "Initialize", ("init", "setup", "set_up", "prepare")),
    (1, "Execute", ("exec", "run")),
    (2, "Finalize", ("final", "cleanup", "clean_up", "shutdown", "teardown", "finish")),
)


@register
class RCon005(Rule):
    """GOALs run in the order Initialize → Execute → Finalize.

    GOALs are taken in execution order: top-level GOALs in the order they are
    written, a GOAL called from another GOAL (``SPAWN Execute_Process() WITH
    WAIT;`` in a Main GOAL) where it is called. A GOAL's phase comes from its
    name: Initialize/Init/Setup/Prepare…, Execute/Exec/Run…,
    Finalize/Final/Cleanup/Shutdown/Teardown/Finish…; other GOALs are not
    ordered. One finding per program, at the first GOAL that runs after a GOAL
    of a later phase.

    **Unsafe**::

        Execute → Initialize → Finalize

    **Safe**::

        Initialize → Execute → Finalize
    """

    id = "R-CON-005"
    name = "goal-order"
    severity = Severity.WARNING
    category = Category.CONSISTENCY

    def check(self, ctx):
        callers = {g.called_by for g in ctx.plan.goals if g.called_by}
        ordered = sorted((g for g in ctx.plan.goals if g.order is not None and g.name not in callers), key=lambda g: g.order)
        latest: tuple[int, str, Goal] | None = None
        for goal in ordered:
            phase = _phase(goal.name)
            if phase is None:
                continue
            if latest is not None and phase[0] < latest[0]:
                sequence = " → ".join(g.name for g in ordered if _phase(g.name) is not None)
                where = f"the calls in GOAL '{goal.called_by}'" if goal.called_by else "the GOAL blocks"
                yield self.finding(f"{SEED_MESSAGE}: {phase[1]} GOAL '{goal.name}' runs after {latest[1]} GOAL '{latest[2].name}'",
                                   span=goal.name_span or goal.span, evidence={"order": [g.name for g in ordered]},
                                   suggestion=f"Reorder {where} to run Initialize → Execute → Finalize (now {sequence})")
                return
            if latest is None or phase[0] > latest[0]:
                latest = (phase[0], phase[1], goal)


def _phase(name: str) -> tuple[int, str] | None:
    lowered = name.lstrip("_").lower()
    for rank, label, prefixes in _PHASES:
        if lowered.startswith(prefixes):
            return rank, label
    return None
