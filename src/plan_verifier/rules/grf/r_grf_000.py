from __future__ import annotations

from typing import Iterable

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RGrf000(Rule):
    """The knowledge graph is available and readable.

    A plan that must be checked against the cell graph (every JSON plan, and a
    TDL plan when a graph is configured) cannot be approved without it: a graph
    that is down, refuses the credentials, times out or holds unreadable data
    makes the verdict FAIL with outcome UNKNOWN (fail closed). The next
    verification tries the graph again.

    **Unsafe**::

        plan-verify check plan.json --graph-uri bolt://cell-db:7687   # server stopped

    **Safe**::

        plan-verify check plan.json --cell weld_cell
    """

    id = "R-GRF-000"
    name = "graph-available"
    severity = Severity.CRITICAL
    category = Category.GRAPH
    formats = frozenset({"tdl", "json"})
    reason_code = "tool_failure"

    def check(self, ctx):
        error = ctx.options.graph_error
        if error is None:
            return
        code = getattr(error, "reason_code", "tool_failure")
        yield self.finding(f"Knowledge graph unavailable: {error}", evidence={"reason_code": code}, indeterminate=True,
                           suggestion="Check the graph server and credentials, or verify against a cell file with --cell")

    @classmethod
    def reported(cls, findings: Iterable[Finding]) -> Finding | None:
        """This rule's finding among a report's findings: why the graph could not be read, if it could not."""
        return next((f for f in findings if f.rule_id == cls.id), None)
