from __future__ import annotations

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn012(Rule):
    """An approved-actions file's steps are the ones that were approved.

    The verifier writes a ``verification`` block with the sha256 of the steps
    into every approved-actions file (contract §6). When such a file is read
    back (``plan-verify check actions.yaml``, a replay, an executor), its steps
    must still hash to that sha256; otherwise they were changed after approval
    and the file is rejected, whatever the changed steps now say. Files of the
    seed system carry no verification block and are simply verified again.

    **Unsafe**::

        RobotSequence:
          steps:
            - {id: 1, command: "MoveLinear", args: {velocity: 900, ...}}   # edited after approval
          verification: {sha256: "4f2c...", ...}                             # still the approved hash

    **Safe**::

        RobotSequence:
          steps:
            - {id: 1, command: "MoveLinear", args: {velocity: 100, ...}}
          verification: {sha256: "4f2c...", ...}                             # the hash of these steps
    """

    id = "R-SYN-012"
    name = "actions-unchanged"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    formats = frozenset({"actions"})
    reason_code = "format_leak"
    owns = frozenset({K.ACTIONS_STEPS_CHANGED})

    def check(self, ctx):
        yield from self.owned_problems(ctx)

    def word(self, problem: Problem) -> Finding:
        expected, actual = problem.values["expected"], problem.values["actual"]
        if expected is None:
            message = "Actions file has a verification block without a sha256 of its steps: it cannot show they were approved"
        else:
            message = f"Actions file was changed after approval: its steps hash to {actual or 'nothing'}, the verification block says {expected}"
        return self.finding(message, span=problem.span, evidence={"expected_sha256": expected, "actual_sha256": actual},
                            suggestion="Send the plan to the verifier again; never edit an approved actions file")
