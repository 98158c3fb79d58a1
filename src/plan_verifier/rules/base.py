"""What a rule is: an id, a fixed severity, a category and a `check`.

A rule's class docstring is its user documentation (`plan-verify rules --doc`):
the first line is the one-line summary, the body says what it checks and gives
an **Unsafe** and a **Safe** example. Rules are stateless; everything about one
verification lives in the `RuleContext` they are given.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Iterator, Mapping

from plan_verifier.findings import Category, Finding, GraphProblem, Severity, Span
from plan_verifier.problems import Problem, ProblemKind

if TYPE_CHECKING:
    from plan_verifier.context import RuleContext

#: Seed 004 reason codes used when a rule does not name its own.
DEFAULT_REASON = {
    Category.SYNTAX: "format_leak",
    Category.SAFETY: "constraint_violation",
    Category.CONSISTENCY: "constraint_violation",
    Category.DOMAIN: "constraint_violation",
    Category.GRAPH: "constraint_violation",
    Category.EXECUTION: "test_fail",
    Category.SEMANTIC: "instruction_conflict",
}


class Rule:
    """Base class; subclasses set the class attributes and implement `check`."""

    id: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    category: ClassVar[Category]
    #: Plan formats the rule applies to: "tdl" and "json" by how the steps are written (`Plan.format`),
    #: "actions" for every approved-actions file read back (`Plan.source_format`).
    formats: ClassVar[frozenset[str]] = frozenset({"tdl"})
    #: Seed 004 reason code for this rule's violations (None: the category default).
    reason_code: ClassVar[str | None] = None
    #: Severities this rule may emit (defaults to just `severity`).
    emits: ClassVar[tuple[Severity, ...]] = ()
    #: Problem kinds recorded by the plan readers that this rule words into findings (`word`).
    owns: ClassVar[frozenset[ProblemKind]] = frozenset()
    #: Runs after the stages, and only when a check crashed (`ctx.options.crashes`): the fail-closed report.
    reports_crashes: ClassVar[bool] = False
    #: Runs at every level, whether or not the level selects its stage: the rules that say a value could
    #: not be evaluated (an undefined name, a value known only at run time), without which a level that
    #: skips their stage would approve a target nobody could check.
    every_level: ClassVar[bool] = False

    def check(self, ctx: "RuleContext") -> Iterable[Finding]:
        raise NotImplementedError

    # -- helpers for subclasses -------------------------------------------------
    def finding(
        self,
        message: str,
        *,
        span: Span | None = None,
        step: int | None = None,
        severity: Severity | None = None,
        evidence: Mapping[str, Any] | None = None,
        suggestion: str | None = None,
        indeterminate: bool = False,
        graph: GraphProblem | None = None,
    ) -> Finding:
        return Finding(
            rule_id=self.id,
            severity=severity or self.severity,
            category=self.category,
            message=message,
            span=span,
            step=step,
            evidence=evidence or {},
            suggestion=suggestion,
            indeterminate=indeterminate,
            graph=graph,
        )

    def owned_problems(self, ctx: "RuleContext") -> Iterator[Finding]:
        """The findings for the reader problems this rule owns, in the order they were found."""
        owns = self.owns
        for problem in ctx.plan.problems:
            if problem.kind in owns:
                yield self.word(problem)

    def word(self, problem: Problem) -> Finding:
        """The finding for one owned problem: the rule's message, suggestion and evidence."""
        raise NotImplementedError(f"{self.id} owns {problem.kind} but does not word it")

    # -- documentation ------------------------------------------------------------
    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        return cls.doc().split("\n", 1)[0].strip()

    @classmethod
    def severities(cls) -> tuple[Severity, ...]:
        return cls.emits or (cls.severity,)

    @classmethod
    def reason(cls) -> str:
        return cls.reason_code or DEFAULT_REASON[cls.category]
