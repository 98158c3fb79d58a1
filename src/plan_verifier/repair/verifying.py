"""How the repair asks the verifier: the same pipeline, inputs and level as `check`.

A repaired plan is kept only on the word of `pipeline.Verifier.verify` with the robot,
cell, start and level the input was checked with — `verified: true` only then. While
it searches, the repair screens its candidates with the same pipeline less the rules
that can never reject a plan (`Verification.screen`): a rule whose findings are at
most WARNINGs cannot change which findings reject a candidate under the default
profile, and the one such rule that costs most — R-KIN-010, which runs the whole
plan again from every other configuration the robot could be standing in at its
start — is most of a verification's time when the start is assumed. The semantic
stage stays (its verdict, warnings included, must not change), and under the strict
profile, where a warning rejects, the screen is the full pipeline. The final plan
is verified by the full pipeline once, and that report is the answer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.report import Report


@dataclass
class Verification:
    """One verifier and the arguments every plan of this repair is verified with."""

    verifier: Any  # pipeline.Verifier (typed loosely: the pipeline imports nothing from here)
    level: str | None = None
    instruction: str | None = None
    start_position: str | None = None
    start_tool: str | None = None
    start_joints: Sequence[float] | None = None
    start_joints_source: str = "request"
    path: str | None = None
    #: A time.monotonic() after which no further candidate is verified (the ROS service's bound on a repair; the command
    #: line has none, so its result depends on nothing but the inputs).
    deadline: float | None = None
    #: Plans verified so far (full pipeline and screens), and the seconds they took.
    count: int = 0
    seconds: float = field(default=0.0)
    _screen: Any = field(default=None, repr=False)

    @property
    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    @property
    def strict(self) -> bool:
        return getattr(self.verifier, "profile", "default") == "strict"

    def __call__(self, text: str, plan_format: str = "auto") -> Report:
        """The full pipeline's report: the answer."""
        return self._run(self.verifier, text, plan_format)

    def screen(self, text: str, plan_format: str = "auto") -> Report:
        """A candidate's report from the pipeline without the rules that never reject (the same CRITICAL findings)."""
        if self._screen is None:
            self._screen = screening_verifier(self.verifier)
        return self._run(self._screen, text, plan_format)

    def _run(self, verifier: Any, text: str, plan_format: str) -> Report:
        t0 = time.perf_counter()
        try:
            return verifier.verify(text, plan_format=plan_format, level=self.level, instruction=self.instruction,
                                   start_position=self.start_position, start_tool=self.start_tool,
                                   start_joints=self.start_joints, start_joints_source=self.start_joints_source,
                                   path=self.path)
        finally:
            self.count += 1
            self.seconds += time.perf_counter() - t0

    def blocking(self, report: Report) -> list[Finding]:
        return blocking(report, strict=self.strict)


def screening_verifier(verifier: Any) -> Any:
    """`verifier` without its rules that emit nothing that rejects (semantic rules kept); itself when strict."""
    if getattr(verifier, "profile", "default") == "strict":
        return verifier
    kept = [rule for rule in verifier.rule_types
            if Severity.CRITICAL in rule.severities() or rule.category is Category.SEMANTIC]
    if len(kept) == len(verifier.rule_types):
        return verifier
    return type(verifier)(verifier.robot, graph=verifier.graph, profile=verifier.profile, level=verifier.level, rules=kept,
                          options=verifier.options)


def blocking(report: Report, *, strict: bool = False) -> list[Finding]:
    """The findings that reject the plan (CRITICAL; under the strict profile WARNINGs too), in the report's order."""
    rejecting = (Severity.CRITICAL, Severity.WARNING) if strict else (Severity.CRITICAL,)
    return [f for f in report.findings if f.severity in rejecting]


def semantic_verdict(report: Report) -> tuple[tuple[str, str], ...]:
    """The semantic stage's findings (rule id, severity): what must not change at level FULL."""
    return tuple(sorted((f.rule_id, f.severity.value) for f in report.findings if f.category is Category.SEMANTIC))
