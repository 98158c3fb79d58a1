"""What the graph rules R-GRF-001…011 share: they judge the state simulation's trace.

`graph.simulate` records what every step does to the simulated robot and
judges nothing; each rule module walks that trace, asks the `Cell` what it
needs, decides, and words its own finding, seed 003 feedback lines and
repair hint. A finding carries its `GraphProblem`, from which
`graph.result` assembles the report's `graph` field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Collection, Iterator

from plan_verifier.findings import Category, Finding, GraphProblem, Severity
from plan_verifier.graph.model import Cell
from plan_verifier.graph.simulate import Simulation, Transition
from plan_verifier.rules.base import Rule

if TYPE_CHECKING:
    from plan_verifier.context import RuleContext


class TraceRule(Rule):
    """A graph rule: needs a cell, and judges the simulation's trace (`judge`)."""

    severity = Severity.CRITICAL
    category = Category.GRAPH
    formats = frozenset({"json"})
    #: This check's place in seed 003's sequence of questions about one step (moves: position
    #: exists, tool stand, work-position tool, edge; routines: routine exists, position exists,
    #: where the robot is, :SUPPORTED_AT, tool, attach, release): the order of the step's feedback lines.
    check_order: ClassVar[int]

    def check(self, ctx: "RuleContext") -> Iterator[Finding]:
        return self.judge(ctx.simulation, ctx.cell)

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        raise NotImplementedError

    def problem(self, at: Transition | None, message: str, *, feedback: str, hint: str | None = None, suggestion: str | None = None,
                conflict: str | None = None, missing_position: str | None = None, illegal_edge: tuple[str, str] | None = None,
                unsupported_routine: tuple[str, str] | None = None, **evidence: Any) -> Finding:
        """A finding about transition `at` (None: the start state) with its seed 003 lines; the hint is
        also the suggestion unless one is given."""
        step = at.step if at is not None else None
        index = at.index if at is not None else GraphProblem.START
        problem = GraphProblem.of(index, self.check_order, step, feedback, hint=hint, conflict=conflict,
                                  missing_position=missing_position, illegal_edge=illegal_edge,
                                  unsupported_routine=unsupported_routine)
        return self.finding(message, span=at.span if at is not None else None, step=step, evidence=evidence,
                            suggestion=suggestion or hint, graph=problem)


def trace_findings(trace: Simulation, cell: Cell, *, plan_format: str | None = None,
                   skip: Collection[type[Rule]] = ()) -> list[Finding]:
    """Every graph rule's findings on a trace, outside a verification (the `graph show` picture), or for
    the rules a verification did not select (`skip` the ones that ran), so that the report's `graph`
    field is always the whole VerificationResult."""
    from plan_verifier import rules as registry

    return [f for cls in registry.in_categories([Category.GRAPH])
            if issubclass(cls, TraceRule) and cls not in skip and (plan_format is None or plan_format in cls.formats)
            for f in cls().judge(trace, cell)]
