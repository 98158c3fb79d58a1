"""Seed 003's `VerificationResult` - the report's `graph` field - assembled from the graph rules' findings.

Every R-GRF rule that finds a problem attaches a `GraphProblem`
(`plan_verifier.findings`, where a finding can name its type) to its finding:
the seed's per-step feedback lines and what the problem adds to the result's
lists. `verification_result` puts the problems of all graph rules in
the seed's order - by step (and waypoint, for a TDL motion through several
graph positions), then in the order seed 003 asks a step's questions - and
builds the result. The rules decide and word; this module only collects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from plan_verifier.findings import Finding, GraphProblem


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
