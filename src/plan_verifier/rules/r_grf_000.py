from __future__ import annotations

from plan_verifier.findings import Category, Severity
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
        error = (ctx.options or {}).get("graph_error")
        if error is None:
            return
        code = getattr(error, "reason_code", "tool_failure")
        yield self.finding(f"Knowledge graph unavailable: {error}", evidence={"reason_code": code}, indeterminate=True,
                           suggestion="Check the graph server and credentials, or verify against a cell file with --cell")
