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


#: `Unrepaired.kind`: no motion change can remove the finding (the target, the cell, the start, anything that is not a
#: motion, or a motion that starts where such a finding leaves the arm) ...
NOT_REPAIRABLE = "not_repairable"
#: ... or one might, but the repair found none within its candidates (`why` lists what it tried).
GAVE_UP = "gave_up"


@dataclass(frozen=True)
class Unrepaired:
    """A finding the repair did not remove: why, whether a motion change could (`kind`), and the nearest thing the planner
    could ask for instead."""

    rule_id: str
    line: int | None
    step: int | None
    why: str
    alternative: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    kind: str = NOT_REPAIRABLE

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule_id": self.rule_id, "line": self.line, "step": self.step, "why": self.why,
                               "alternative": self.alternative, "kind": self.kind}
        if self.evidence:
            out["evidence"] = self.evidence
        return out


@dataclass(frozen=True)
class RepairResult:
    """The repaired plan's text (in the input's format), its edits, what stays unrepaired, and its report."""

    text: str
    edits: tuple[Edit, ...]
    unrepaired: tuple[Unrepaired, ...]
    #: The repaired plan's report, always the whole pipeline's (`verified` is its approval).
    report: Report
    #: The input's report: for a TDL program the repair changed, the screen's (`verifying.Verification.screen`: the
    #: same rejecting findings, no warnings of the rules that never reject); else the whole pipeline's.
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
