"""What a semantic grader returns, and how confidence becomes severity.

Both graders (rule_check and llm) answer with an `Assessment`: a verdict, a
confidence in it, and the issues found, each in one of seed 000 §2.4's
categories with its own confidence. The R-SEM rules turn issues into
findings; severity follows confidence so that only a confident semantic
judgement can reject a plan:

* confidence >= 0.70: CRITICAL (the plan is rejected),
* 0.50 <= confidence < 0.70: WARNING (approved, flagged for review),
* below 0.50: INFO.

0.70 sits below the confidence seed 000 §2.3 gives its weakest failing
example (75, "Grip the part tightly" without a delay) and above the point
where a keyword match is no better than a guess.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any, Mapping

from plan_verifier.findings import Severity, Span

CONFIDENT = 0.70
PLAUSIBLE = 0.50


def severity_for(confidence: float) -> Severity:
    if confidence >= CONFIDENT:
        return Severity.CRITICAL
    if confidence >= PLAUSIBLE:
        return Severity.WARNING
    return Severity.INFO


@dataclass(frozen=True, slots=True)
class Issue:
    """One way the plan departs from the instruction."""

    category: str  # object | action | location | sequence | missing | review (R-SEM-001 ... R-SEM-006)
    message: str
    confidence: float  # 0..1
    grader: str
    step: int | None = None
    span: Span | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)
    suggestion: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", types.MappingProxyType(dict(self.evidence)))


@dataclass(frozen=True, slots=True)
class Unavailable:
    """The semantic stage could not judge the plan (no instruction, grader timed out ...)."""

    message: str
    reason_code: str  # seed 004: insufficient_evidence | tool_timeout | tool_output_invalid | tool_failure
    grader: str


@dataclass(frozen=True, slots=True)
class Assessment:
    grader: str
    verdict: str  # PASS | FAIL | UNKNOWN
    confidence: float  # confidence in the verdict, 0..1
    issues: tuple[Issue, ...] = ()
    unavailable: tuple[Unavailable, ...] = ()

    def of(self, category: str) -> tuple[Issue, ...]:
        return tuple(i for i in self.issues if i.category == category)


def decide(grader: str, issues: list[Issue], pass_confidence: float) -> Assessment:
    """FAIL with the strongest issue's confidence when one is confident, else PASS."""
    confident = [i.confidence for i in issues if i.confidence >= CONFIDENT]
    if confident:
        return Assessment(grader, "FAIL", max(confident), tuple(issues))
    doubt = max((i.confidence for i in issues), default=0.0)
    return Assessment(grader, "PASS", round(min(pass_confidence, 1.0 - doubt), 3), tuple(issues))
