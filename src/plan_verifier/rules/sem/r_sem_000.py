from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSem000(Rule):
    """The semantic stage could judge the plan: it has an instruction, could read it, and its grader answered.

    At level FULL the plan is compared with the natural-language instruction.
    When that comparison cannot happen, this finding says why and makes the
    outcome UNKNOWN (seed 004: a missing opinion never approves or rejects):

    * no instruction was given (INFO, reason code `insufficient_evidence`);
    * the instruction asks for nothing the reader could place as a task, or
      part of it could not be read ("Do the usual", a verb without its object,
      a transfer whose destination it found but could not give a role: "take
      the cube and frobnicate it at the tray"): WARNING, `insufficient_evidence`
      — the plan is approved but flagged, never passed in silence;
    * the llm grader timed out, could not be reached or answered something
      that is not the JSON its prompt asks for (INFO, `tool_timeout`,
      `tool_failure`, `tool_output_invalid`).

    **Unsafe**::

        plan-verify check pick.tdl --level FULL          # no --instruction: nothing to compare with

    **Safe**::

        plan-verify check pick.tdl --level FULL --instruction "Pick the apple at A"
    """

    id = "R-SEM-000"
    name = "semantic-stage-available"
    severity = Severity.INFO
    emits = (Severity.WARNING, Severity.INFO)
    category = Category.SEMANTIC
    formats = frozenset({"tdl", "json"})
    reason_code = "insufficient_evidence"

    def check(self, ctx):
        reading = ctx.instruction_reading
        if reading is None:
            yield self.finding("No instruction given: the semantic checks (level FULL) need the natural-language instruction",
                               evidence={"reason_code": "insufficient_evidence"}, indeterminate=True,
                               suggestion="Give the instruction (--instruction)")
            return
        if not reading.tasks and not reading.excluded:
            yield self.finding(f"Cannot verify against the instruction: no task could be read from '{reading.text.strip()}'",
                               severity=Severity.WARNING, indeterminate=True,
                               evidence={"reason_code": "insufficient_evidence", "unread": list(reading.unread)},
                               suggestion="Say what to move (or do) and where, e.g. 'Move the red cube from bin 3 to the tray'")
        elif reading.unread:
            parts = "; ".join(f"'{u.strip()}'" for u in reading.unread)
            yield self.finding(f"Cannot verify against the instruction: could not read {parts}", severity=Severity.WARNING,
                               indeterminate=True, evidence={"reason_code": "insufficient_evidence", "unread": list(reading.unread)},
                               suggestion="Say what to move (or do) and where")
        review = ctx.review
        if review is not None and review.unavailable is not None:
            code, message = review.unavailable
            yield self.finding(message, evidence={"reason_code": code, "grader": "llm"}, indeterminate=True,
                               suggestion="Check the llm endpoint (--llm-url, --llm-timeout)")
