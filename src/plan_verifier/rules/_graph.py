"""Shared by R-GRF-001…011: a graph rule reports the simulation's events that carry its id.

The checks themselves live once in `plan_verifier.graph.simulate`, because
seed 003's `VerificationResult` (the report's `graph` field) must list every
problem whichever rules are selected; the rules are the findings' view of it.
"""

from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.rules.base import Rule


class SimulationRule(Rule):
    severity = Severity.CRITICAL
    category = Category.GRAPH
    formats = frozenset({"json"})

    def check(self, ctx) -> Iterator[Finding]:
        for event in ctx.simulation.events_for(self.id):
            yield self.finding(event.message, span=event.span, step=event.step, evidence=event.evidence, suggestion=event.suggestion)
