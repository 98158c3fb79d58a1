"""Seed 003's `VerificationResult` - the report's `graph` field - assembled from the graph rules' findings.

Every R-GRF rule that finds a problem attaches a `GraphProblem` to its
finding: the seed's per-step feedback lines and what the problem adds to the
result's lists. `verification_result` puts the problems of all graph rules in
the seed's order - by step (and waypoint, for a TDL motion through several
graph positions), then in the order seed 003 asks a step's questions - and
builds the result. The rules decide and word; this module only collects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from plan_verifier.findings import Finding

#: `GraphProblem.at` of a problem with the start state (before any step).
START = -1


@dataclass(frozen=True, slots=True)
class GraphProblem:
    """What one graph finding adds to seed 003's VerificationResult.

    `at` is the index of the simulated transition the problem is about
    (`START` for the start state) and `order` the checking rule's place in
    seed 003's sequence of checks on one transition; together they order the
    feedback lines.
    """

    at: int
    order: int
    feedback: tuple[str, ...]
    missing_position: str | None = None
    illegal_edge: tuple[str, str] | None = None
    unsupported_routine: tuple[str, str] | None = None
    tool_conflict: str | None = None

    @classmethod
    def of(cls, at: int, order: int, step: int | None, feedback: str, *, hint: str | None = None, conflict: str | None = None,
           missing_position: str | None = None, illegal_edge: tuple[str, str] | None = None,
           unsupported_routine: tuple[str, str] | None = None) -> "GraphProblem":
        """Seed 003's line format: `Step N: <feedback>`, then `Step N: Hint: <hint>` (`Start:` before the first step);
        the long tool-conflict form carries the same label."""
        label = f"Step {step}" if step is not None else "Start"
        lines = (f"{label}: {feedback}",) + ((f"{label}: Hint: {hint}",) if hint else ())
        return cls(at, order, lines, missing_position, illegal_edge, unsupported_routine,
                   f"{label}: {conflict}" if conflict is not None else None)


@dataclass(frozen=True)
class VerificationResult:
    """Seed 003's result object; `to_dict` is the report's `graph` field."""

    valid: bool
    missing_positions: tuple[str, ...] = ()
    illegal_edges: tuple[tuple[str, str], ...] = ()
    unsupported_routines: tuple[tuple[str, str], ...] = ()
    tool_conflicts: tuple[str, ...] = ()
    feedback: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "missing_positions": list(self.missing_positions),
            "illegal_edges": [{"from": a, "to": b} for a, b in self.illegal_edges],
            "unsupported_routines": [{"routine": r, "position": p} for r, p in self.unsupported_routines],
            "tool_conflicts": list(self.tool_conflicts),
            "feedback": "\n".join(self.feedback),
        }


def graph_problems(findings: Iterable[Finding]) -> list[GraphProblem]:
    """The findings' graph problems in seed 003's order (stable: one rule's problems on one transition keep theirs)."""
    return sorted((f.graph for f in findings if f.graph is not None), key=lambda p: (p.at, p.order))


def verification_result(findings: Iterable[Finding]) -> VerificationResult:
    problems = graph_problems(findings)
    missing: list[str] = []
    for problem in problems:
        if problem.missing_position is not None and problem.missing_position not in missing:
            missing.append(problem.missing_position)
    return VerificationResult(
        valid=not problems,
        missing_positions=tuple(missing),
        illegal_edges=tuple(p.illegal_edge for p in problems if p.illegal_edge is not None),
        unsupported_routines=tuple(p.unsupported_routine for p in problems if p.unsupported_routine is not None),
        tool_conflicts=tuple(p.tool_conflict for p in problems if p.tool_conflict is not None),
        feedback=tuple(line for p in problems for line in p.feedback),
    )
