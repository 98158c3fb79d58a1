"""Immutable result values: what a rule reports and where.

A finding is the unit a planner repairs from, so it carries everything needed to
act on it without re-reading the plan: the rule id, a severity the verdict is
computed from, the exact span, the step, machine-readable evidence and a hint.
"""

from __future__ import annotations

import enum
import types
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, NamedTuple

class Severity(str, enum.Enum):
    """Severity fixed per rule by the contract; the verdict is derived from it."""

    CRITICAL = "CRITICAL"
    WARNING = "WARNING"
    INFO = "INFO"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.CRITICAL: 3, Severity.WARNING: 2, Severity.INFO: 1}


class Category(str, enum.Enum):
    """Validator a rule belongs to; also the order of `level_failed`."""

    SYNTAX = "syntax"
    SAFETY = "safety"
    CONSISTENCY = "consistency"
    DOMAIN = "domain"
    GRAPH = "graph"
    EXECUTION = "execution"
    SEMANTIC = "semantic"

    @property
    def stage(self) -> str:
        """The contract's `level_failed` name (domain rules count as consistency)."""
        return _STAGE_OF[self]


_STAGE_OF = {
    Category.SYNTAX: "SYNTAX",
    Category.SAFETY: "SAFETY",
    Category.CONSISTENCY: "CONSISTENCY",
    Category.DOMAIN: "CONSISTENCY",
    Category.GRAPH: "GRAPH",
    Category.EXECUTION: "EXECUTION",
    Category.SEMANTIC: "SEMANTIC",
}

#: The order in which `level_failed` is decided.
STAGE_ORDER = ("SYNTAX", "SAFETY", "CONSISTENCY", "GRAPH", "EXECUTION", "SEMANTIC")


class Span(NamedTuple):
    """A 1-based region of the TDL source (or of a JSON/YAML plan).

    `end_column` is exclusive (one past the last character), as in lark and SARIF.
    A named tuple: spans are created for every node of every plan, and tuples
    are the cheapest immutable value Python has.
    """

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int) -> "Span":
        return cls(line, column, line, column)

    def cover(self, other: "Span | None") -> "Span":
        """Smallest span containing both spans."""
        if other is None:
            return self
        start = min((self.line, self.column), (other.line, other.column))
        end = max((self.end_line, self.end_column), (other.end_line, other.end_column))
        return Span(start[0], start[1], end[0], end[1])


@dataclass(frozen=True, slots=True)
class GraphProblem:
    """What one graph finding adds to seed 003's VerificationResult.

    `at` is the index of the simulated transition the problem is about
    (`START` for the start state) and `order` the checking rule's place in
    seed 003's sequence of checks on one transition; together they order the
    feedback lines.
    """

    #: `at` of a problem with the start state (before any step).
    START: ClassVar[int] = -1

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


def _frozen_mapping(data: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return types.MappingProxyType(dict(data or {}))


@dataclass(frozen=True, slots=True)
class Finding:
    """One violation (or observation) reported by one rule."""

    rule_id: str
    severity: Severity
    category: Category
    message: str
    span: Span | None = None
    step: int | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)
    suggestion: str | None = None
    #: True when the finding says a check could not run (graph down, stage timed out);
    #: such findings make the outcome UNKNOWN rather than FAIL.
    indeterminate: bool = False
    #: A graph rule's problem as seed 003's VerificationResult lists it (`graph.result` builds the report's
    #: `graph` field from these); not part of the finding's JSON.
    graph: GraphProblem | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", _frozen_mapping(self.evidence))

    @property
    def sort_key(self) -> tuple:
        span = self.span
        return (
            span.line if span else 10**9,
            span.column if span else 0,
            self.step if self.step is not None else 10**9,
            -self.severity.rank,
            self.rule_id,
            self.message,
        )

    def to_dict(self) -> dict[str, Any]:
        span = self.span
        out: dict[str, Any] = {
            "rule_id": self.rule_id,
            "severity": self.severity.value,
            "category": self.category.value,
            "message": self.message,
            "line": span.line if span else None,
            "column": span.column if span else None,
            "end_line": span.end_line if span else None,
            "end_column": span.end_column if span else None,
            "step": self.step,
            "evidence": dict(self.evidence),
            "suggestion": self.suggestion,
        }
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Finding":
        """The inverse of `to_dict` (for reports received as JSON, e.g. from the ROS service)."""
        span = None
        if data.get("line") is not None:
            line, column = int(data["line"]), int(data.get("column") or 1)
            span = Span(line, column, int(data.get("end_line") or line), int(data.get("end_column") or column))
        return cls(
            rule_id=data["rule_id"],
            severity=Severity(data["severity"]),
            category=Category(data["category"]),
            message=data["message"],
            span=span,
            step=data.get("step"),
            evidence=data.get("evidence") or {},
            suggestion=data.get("suggestion"),
        )
