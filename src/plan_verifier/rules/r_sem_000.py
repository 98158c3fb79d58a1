from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSem000(Rule):
    """The semantic stage could judge the plan (it has an instruction and its grader answered).

    At level FULL the plan is compared with the natural-language instruction.
    When that comparison cannot happen — no instruction was given, or the llm
    grader timed out, could not be reached or answered something that is not
    the JSON its prompt asks for — this INFO finding says why (evidence
    `reason_code`: insufficient_evidence, tool_timeout, tool_failure,
    tool_output_invalid). It makes the outcome UNKNOWN and leaves the verdict
    to the deterministic checks: a missing opinion never approves or rejects.

    **Unsafe**::

        plan-verify check pick.tdl --level FULL          # no --instruction: nothing to compare with

    **Safe**::

        plan-verify check pick.tdl --level FULL --instruction "Pick the apple at A"
    """

    id = "R-SEM-000"
    name = "semantic-stage-available"
    severity = Severity.INFO
    category = Category.SEMANTIC
    formats = frozenset({"tdl", "json"})
    reason_code = "insufficient_evidence"

    def check(self, ctx):
        for problem in ctx.semantic.unavailable:
            yield self.finding(problem.message, evidence={"reason_code": problem.reason_code, "grader": problem.grader},
                               indeterminate=True,
                               suggestion="Give the instruction (--instruction) or check the llm endpoint (--llm-url, --llm-timeout)")
