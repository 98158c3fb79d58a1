from __future__ import annotations

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule
from plan_verifier.rules.syn import _tokens


@register
class RSyn002(Rule):
    """Position definition format: ``DEFINE <name> = PosJ|PosX|PosY(<params>);``.

    Checks that a DEFINE names an identifier, has an ``=``, binds a PosJ, PosX or
    PosY constructor, and ends with ``;``.

    **Unsafe**::

        DEFINE Bad_Pose = PosX(0, 0, 150)  // Missing semicolon
        DEFINE Bad_Pose = (0, 0, 150);     // Missing Pos type

    **Safe**::

        DEFINE Home_Pose = PosJ(0, 0, 90, 0, 90, 0);
        DEFINE A_Safe_Pose = PosX(0, 0, 150, 0, 0, 0);
    """

    id = "R-SYN-002"
    name = "define-format"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    owns = frozenset({K.DEFINE_UNEXPECTED_TOKEN, K.DEFINE_MISSING_SEMICOLON, K.DEFINE_MISSING_RPAR, K.DEFINE_MISSING_EQUAL,
                      K.DEFINE_MISSING_POS_TYPE, K.DEFINE_NOT_A_POSE})

    def check(self, ctx):
        yield from self.owned_problems(ctx)

    def word(self, problem: Problem) -> Finding:
        kind, v, span = problem.kind, problem.values, problem.span
        prefix = f"Invalid position definition at line {v.get('line', span.line)}"
        if kind is K.DEFINE_UNEXPECTED_TOKEN:
            return self.finding(f"{prefix}: {_tokens.unexpected(v)}", span=span, evidence=_tokens.evidence(v))
        if kind is K.DEFINE_MISSING_SEMICOLON:
            return self.finding(f"{prefix}: missing ';' after the DEFINE statement", span=span, suggestion="End the DEFINE statement with ';'")
        if kind is K.DEFINE_MISSING_RPAR:
            return self.finding(f"missing ')' at line {span.line}", span=span, suggestion="Close the argument list with ')'")
        if kind is K.DEFINE_MISSING_EQUAL:
            return self.finding(f"{prefix}: missing '=' after the name", span=span, suggestion="Write 'DEFINE Name = PosX(...);'")
        if kind is K.DEFINE_MISSING_POS_TYPE:
            return self.finding(f"{prefix}: missing Pos type (PosJ, PosX or PosY) before '('", span=span,
                                suggestion=f"Write 'DEFINE {v['name']} = PosX{v['text']};'")
        return self.finding(f"{prefix}: DEFINE must bind PosJ(...), PosX(...) or PosY(...)", span=span,
                            suggestion=f"Write 'DEFINE {v['name']} = PosX(x, y, z, rx, ry, rz);'")
