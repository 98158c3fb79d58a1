from __future__ import annotations

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule
from plan_verifier.rules.syn import _tokens


@register
class RSyn005(Rule):
    """SPAWN format: ``SPAWN Cmd(args) WITH WAIT|NOWAIT;``.

    A statement is ``SPAWN Cmd(args) WITH WAIT;``, ``SPAWN Cmd(args) WITH NOWAIT;``
    or a plain ``Cmd(args);`` (which means WITH WAIT). Reported: a missing
    ``WITH``, a missing or unknown option, a missing ``;`` or ``)``, and a
    ``WITH`` clause without ``SPAWN``. Parsing resumes after each error, so
    every statement is checked.

    **Unsafe**::

        SPAWN MoveLinear(...) WAIT;        // Missing WITH
        SPAWN MoveLinear(...) WITH WAIT    // Missing semicolon

    **Safe**::

        SPAWN MoveLinear(target_pose=A_Safe_Pose, velocity=100, ...) WITH WAIT;
        SPAWN Delay(duration_sec=0.5) WITH WAIT;
    """

    id = "R-SYN-005"
    name = "spawn-format"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    owns = frozenset({K.STATEMENT_UNEXPECTED_TOKEN, K.STATEMENT_MISSING_SEMICOLON, K.STATEMENT_MISSING_RPAR, K.SPAWN_MISSING_WITH,
                      K.SPAWN_MISSING_OPTION, K.SPAWN_WITH_WITHOUT_OPTION, K.SPAWN_UNKNOWN_OPTION, K.WITH_WITHOUT_SPAWN})

    def check(self, ctx):
        yield from self.owned_problems(ctx)

    def word(self, problem: Problem) -> Finding:
        kind, v, span = problem.kind, problem.values, problem.span
        prefix = f"Invalid SPAWN command format at line {span.line}"
        if kind is K.STATEMENT_UNEXPECTED_TOKEN:
            return self.finding(f"{prefix}: {_tokens.unexpected(v)}", span=span, evidence=_tokens.evidence(v))
        if kind is K.STATEMENT_MISSING_SEMICOLON:
            return self.finding(f"{prefix}: missing ';' at the end of the statement", span=span, suggestion="End the statement with ';'")
        if kind is K.STATEMENT_MISSING_RPAR:
            return self.finding(f"missing ')' at line {span.line}", span=span, suggestion="Close the argument list with ')'")
        if kind is K.SPAWN_MISSING_WITH:
            return self.finding(f"{prefix}: missing WITH before {v['option']}", span=span, suggestion=f"Write 'WITH {v['option']};'")
        if kind is K.SPAWN_MISSING_OPTION:
            return self.finding(f"{prefix}: missing 'WITH WAIT' or 'WITH NOWAIT'", span=span, suggestion="Write 'SPAWN Cmd(...) WITH WAIT;'")
        if kind is K.SPAWN_WITH_WITHOUT_OPTION:
            return self.finding(f"{prefix}: WITH must be followed by WAIT or NOWAIT", span=span, suggestion="Write 'WITH WAIT;' or 'WITH NOWAIT;'")
        if kind is K.SPAWN_UNKNOWN_OPTION:
            return self.finding(f"{prefix}: unknown option '{v['option']}' (expected WAIT or NOWAIT)", span=span,
                                suggestion="Use WITH WAIT or WITH NOWAIT")
        return self.finding(f"{prefix}: 'WITH {v['option']}' without SPAWN", span=span,
                            suggestion="Write 'SPAWN Cmd(...) WITH WAIT;' or drop the WITH clause")
