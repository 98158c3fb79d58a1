from __future__ import annotations

import re

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

SEED_MESSAGE = "Consider using conventional GOAL names (Initialize_Process, Execute_Process, Finalize_Process)"
#: CamelCase (PickApple) or Snake_Case (Pick_Apple, Initialize_Process): a capital first letter, words joined by single '_'.
_STYLE = re.compile(r"[A-Z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")
_CONVENTIONAL = ("initialize", "execute", "finalize")
#: Names that say nothing about what the GOAL does (compared without digits and '_').
_PLACEHOLDERS = frozenset({"goal", "task", "test", "temp", "tmp", "foo", "bar", "untitled", "new", "newgoal", "mygoal", "sub", "func", "function", "step", "block"})


@register
class RCon003(Rule):
    """GOAL names follow the naming convention.

    A GOAL name starts with a letter, uses only ASCII letters, digits and ``_``,
    is CamelCase or Snake_Case (capital first letter) and says what the GOAL
    does (not ``Goal1`` or ``Test``). A program of several GOALs should name its
    phases Initialize_Process, Execute_Process and Finalize_Process (so R-CON-005
    can check their order); one finding at the first GOAL when none of them does.

    **Unsafe**::

        GOAL goal_1() { ... }
        GOAL _tmp() { ... }

    **Safe**::

        GOAL Initialize_Process() { ... }
        GOAL Execute_Process() { ... }
        GOAL Finalize_Process() { ... }
    """

    id = "R-CON-003"
    name = "goal-naming"
    severity = Severity.INFO
    category = Category.CONSISTENCY

    def check(self, ctx):
        goals = ctx.plan.goals
        for goal in goals:
            problem = _style_problem(goal.name)
            if problem:
                yield self.finding(f"{SEED_MESSAGE}: GOAL '{goal.name}' {problem}", span=goal.name_span or goal.span,
                                   evidence={"goal": goal.name}, suggestion="Name GOALs like Initialize_Process or PickApple")
        names = {g.name for g in goals}
        if len(names) > 1 and not any(n.lower().startswith(_CONVENTIONAL) for n in names):
            first = goals[0]
            yield self.finding(SEED_MESSAGE, span=first.name_span or first.span, evidence={"goals": sorted(names)},
                               suggestion="Split the program into Initialize_Process, Execute_Process and Finalize_Process")


def _style_problem(name: str) -> str | None:
    if not name[:1].isascii() or not name[:1].isalpha():
        return "does not start with a letter"
    if not re.fullmatch(r"\w+", name, re.ASCII):
        return "uses characters other than ASCII letters, digits and '_'"
    if not _STYLE.fullmatch(name):
        return "is neither CamelCase nor Snake_Case"
    words = re.sub(r"[\d_]", "", name).lower()
    if len(words) < 3 or words in _PLACEHOLDERS:
        return "does not say what the GOAL does"
    return None
