from __future__ import annotations

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn010(Rule):
    """The plan is within the size limits (1 MiB, 100,000 commands, brackets 64 deep).

    Larger inputs are rejected before parsing, so a runaway generator cannot
    stall the verifier; the plan is not processed at all.

    **Unsafe**::

        a 3 MiB program, or 250,000 SPAWN statements

    **Safe**::

        GOAL Execute_Process() { SPAWN Delay(0.5) WITH WAIT; }
    """

    id = "R-SYN-010"
    name = "size-limit"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    formats = frozenset({"tdl", "json"})
    reason_code = "truncation_or_cutoff"
    owns = frozenset({K.PLAN_TOO_LARGE, K.TOO_MANY_COMMANDS, K.NESTING_TOO_DEEP})

    def check(self, ctx):
        yield from self.owned_problems(ctx)

    def word(self, problem: Problem) -> Finding:
        kind, v, span = problem.kind, problem.values, problem.span
        if kind is K.PLAN_TOO_LARGE:
            return self.finding(f"Plan is {v['bytes']} bytes; the limit is {v['limit']} bytes ({v['limit'] / 2**20:g} MiB)", span=span,
                                evidence={"bytes": v["bytes"], "limit": v["limit"]}, suggestion="Split the task into smaller plans")
        if kind is K.TOO_MANY_COMMANDS:
            return self.finding(f"Plan has about {v['commands']} commands; the limit is {v['limit']}", span=span,
                                evidence={"commands": v["commands"], "limit": v["limit"]}, suggestion="Split the task into smaller plans")
        return self.finding(f"Brackets are nested more than {v['limit']} levels deep", span=span, evidence={"limit": v["limit"]},
                            suggestion="Flatten the expression")
