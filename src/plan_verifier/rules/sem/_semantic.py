"""Shared by the R-SEM rules: confidence decides severity, and abstaining has one form.

Each R-SEM rule judges one aspect of `ctx.grounding` (the instruction's tasks
paired with the program's transfers, each aspect a neutral comparison). How
sure a comparison makes a rule is decided in `_evidence.py` (pose names and
cell positions 0.9, comments 0.8, other free words 0.75 when corroborated);
the finding's severity follows that confidence (`evidence["confidence"]`):
CRITICAL from 0.70 (the plan is rejected), WARNING from 0.50, INFO below.
0.70 sits below the confidence seed 000 §2.3 gives its weakest failing example
(75, "Grip the part tightly") and above what a guess would deserve.

Where the program gives nothing to compare — a place it never names, an
object name that matches nothing in the instruction, evidence that contradicts
itself — the rule abstains: one WARNING per rule, `indeterminate`, reason code
`insufficient_evidence`, so the verdict is PARTIAL (approved, flagged) and the
outcome UNKNOWN (seed 004). A correct plan with unusual names is never rejected
on a guess.
"""

from __future__ import annotations

from typing import Iterable

from plan_verifier.findings import Category, Finding, Severity, Span
from plan_verifier.rules.base import Rule
from plan_verifier.semantic.activity import Named

CONFIDENT = 0.70
PLAUSIBLE = 0.50


def severity_for(confidence: float) -> Severity:
    if confidence >= CONFIDENT:
        return Severity.CRITICAL
    if confidence >= PLAUSIBLE:
        return Severity.WARNING
    return Severity.INFO


class SemanticRule(Rule):
    severity = Severity.CRITICAL
    emits = (Severity.CRITICAL, Severity.WARNING, Severity.INFO)
    category = Category.SEMANTIC
    formats = frozenset({"tdl", "json"})
    reason_code = "instruction_conflict"

    def judged(self, message: str, confidence: float, *, step: int | None = None, span: Span | None = None,
               suggestion: str | None = None, **evidence) -> Finding:
        evidence = {k: v for k, v in evidence.items() if v is not None}
        return self.finding(message, span=span, step=step, severity=severity_for(confidence), suggestion=suggestion,
                            evidence={**evidence, "confidence": round(confidence, 2)})

    def abstain(self, what: Iterable[str], *, step: int | None = None, span: Span | None = None) -> Finding:
        """The stage could not check these aspects: approved with a warning, outcome UNKNOWN."""
        items = list(dict.fromkeys(what))
        return self.finding("Cannot verify against the instruction: " + "; ".join(items), span=span, step=step,
                            severity=Severity.WARNING, indeterminate=True,
                            evidence={"reason_code": "insufficient_evidence", "unverified": items},
                            suggestion="Name the object and places in the pose names or step comments, or check by hand")


def quote(named: Named | None) -> str:
    """How a message cites the program: its text and step."""
    if named is None:
        return "its coordinates"
    where = f", step {named.step}" if named.step is not None else ""
    return f"'{named.quote}'{where}"


def said(text: str) -> str:
    """How a message cites the instruction: the words of the task, without the punctuation around them."""
    words = text.strip().strip(",;:-–—").strip()
    for lead in ("and then ", "then ", "and ", "also "):
        if words.lower().startswith(lead):
            words = words[len(lead):]
    return f"'{words}'"
