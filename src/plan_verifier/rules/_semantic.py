"""Shared by the R-SEM rules: one rule per issue category of the semantic assessment.

The grader runs once per verification (`RuleContext.semantic`); each rule
reports the issues of its category. Severity follows the issue's confidence
(`semantic.assessment.severity_for`): only a confident judgement is CRITICAL.
The confidence is in `evidence["confidence"]`.
"""

from __future__ import annotations

from typing import ClassVar

from plan_verifier.findings import Category, Severity
from plan_verifier.rules.base import Rule
from plan_verifier.semantic.assessment import severity_for


class SemanticRule(Rule):
    severity = Severity.CRITICAL
    emits = (Severity.CRITICAL, Severity.WARNING, Severity.INFO)
    category = Category.SEMANTIC
    formats = frozenset({"tdl", "json"})
    reason_code = "instruction_conflict"
    #: The assessment's issue category this rule reports.
    issue_category: ClassVar[str]

    def check(self, ctx):
        for issue in ctx.semantic.of(self.issue_category):
            evidence = {**issue.evidence, "confidence": round(issue.confidence, 2), "grader": issue.grader}
            yield self.finding(issue.message, span=issue.span, step=issue.step, severity=severity_for(issue.confidence),
                               evidence=evidence, suggestion=issue.suggestion)
