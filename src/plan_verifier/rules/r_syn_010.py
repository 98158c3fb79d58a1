from __future__ import annotations

from plan_verifier.findings import Category, Severity
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

    def check(self, ctx):
        yield from self.diagnostics(ctx)
