from __future__ import annotations

import traceback

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSys001(Rule):
    """A check crashed; the plan is rejected (fail closed).

    If any rule raises an exception, the verifier reports it here instead of
    approving a plan on missing evidence. The verdict is FAIL and the outcome
    UNKNOWN; the message names the rule and the error. This is a verifier bug:
    please report it with the plan.

    **Unsafe**::

        any plan whose checking hits a verifier bug

    **Safe**::

        (nothing to fix in the plan; fix or report the verifier)
    """

    id = "R-SYS-001"
    name = "internal-error"
    severity = Severity.CRITICAL
    category = Category.SAFETY
    formats = frozenset({"tdl", "json"})
    reason_code = "tool_failure"
    reports_crashes = True

    def check(self, ctx):
        for crash in ctx.options.crashes:
            where = crash.rule_id or "the plan reader"
            yield Finding(
                rule_id=self.id,
                severity=Severity.CRITICAL,
                category=crash.category,
                message=f"Internal error in {where}: {format_exception(crash.error)} (plan rejected, fail closed)",
                evidence={"rule": crash.rule_id or "reader", "reason_code": "tool_failure"},
                indeterminate=True,
            )


def format_exception(exc: BaseException) -> str:
    """One line: what was raised and where."""
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
    return f"{exc.__class__.__name__}: {exc}{where}"
