"""How the repair asks the verifier: the same pipeline, inputs and level as `check`, for every candidate.

A candidate plan is kept only on the word of `pipeline.Verifier.verify` with the
robot, cell, start and level the input was checked with — never on a shortcut that
could disagree with `check`. `Judge` also holds what every candidate is compared
with: the input's task (`repair.task`) and, at level FULL, its semantic verdict.
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
    #: Candidates verified so far, and the seconds they took.
    count: int = 0
    seconds: float = field(default=0.0)

    @property
    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def __call__(self, text: str, plan_format: str = "auto") -> Report:
        t0 = time.perf_counter()
        try:
            return self.verifier.verify(text, plan_format=plan_format, level=self.level, instruction=self.instruction,
                                        start_position=self.start_position, start_tool=self.start_tool,
                                        start_joints=self.start_joints, start_joints_source=self.start_joints_source,
                                        path=self.path)
        finally:
            self.count += 1
            self.seconds += time.perf_counter() - t0


def blocking(report: Report) -> list[Finding]:
    """The findings that reject the plan (CRITICAL), in the report's order."""
    return [f for f in report.findings if f.severity is Severity.CRITICAL]


def semantic_verdict(report: Report) -> tuple[tuple[str, str], ...]:
    """The semantic stage's findings (rule id, severity): what must not change at level FULL."""
    return tuple(sorted((f.rule_id, f.severity.value) for f in report.findings if f.category is Category.SEMANTIC))
