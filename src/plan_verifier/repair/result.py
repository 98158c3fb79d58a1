"""What a repair returns (contract §8): the repaired plan, every edit, what could not be repaired, and the
verification of the result.

`verified` is never set by a strategy: it is the approval of the final plan by the
full pipeline with the same robot, cell, start and level (`Report.approved`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from plan_verifier.report import Report


@dataclass(frozen=True)
class Edit:
    """One change to the input plan.

    TDL: `line` is the input line; `before` its text and `after` the new text, or `before`
    None for lines inserted before it (`after` holds them, newline-separated). JSON/YAML
    plans: `line` is the line of the step the change is made at (None when it has none),
    `step` its 1-based index in the input.
    """

    line: int | None
    before: str | None
    after: str
    fixes: tuple[str, ...]
    why: str
    step: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "before": self.before, "after": self.after, "fixes": list(self.fixes), "why": self.why}
        if self.step is not None:
            out["step"] = self.step
        return out


@dataclass(frozen=True)
class Unrepaired:
    """A finding no motion change can remove: why, and the nearest thing the planner could ask for instead."""

    rule_id: str
    line: int | None
    step: int | None
    why: str
    alternative: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule_id": self.rule_id, "line": self.line, "step": self.step, "why": self.why,
                               "alternative": self.alternative}
        if self.evidence:
            out["evidence"] = self.evidence
        return out


@dataclass(frozen=True)
class RepairResult:
    """The repaired plan's text (in the input's format), its edits, what stays unrepaired, and its report."""

    text: str
    edits: tuple[Edit, ...]
    unrepaired: tuple[Unrepaired, ...]
    report: Report
    original: Report
    #: Seconds spent, and how many candidate plans the pipeline verified on the way.
    seconds: float = 0.0
    candidates: int = 0

    @property
    def verified(self) -> bool:
        return self.report.approved

    @property
    def changed(self) -> bool:
        return bool(self.edits)

    def to_dict(self) -> dict[str, Any]:
        """The repair report of contract §8."""
        return {
            "verified": self.verified,
            "edits": [e.to_dict() for e in self.edits],
            "unrepaired": [u.to_dict() for u in self.unrepaired],
            "report": self.report.to_dict(),
            "plan": self.text,
            "candidates": self.candidates,
            "seconds": round(self.seconds, 3),
        }
