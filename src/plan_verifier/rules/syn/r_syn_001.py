from __future__ import annotations

from plan_verifier.findings import Category, Finding, Severity, Span
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule
from plan_verifier.rules.syn import _tokens


@register
class RSyn001(Rule):
    """TDL document structure: at least one GOAL, bodies in braces, balanced braces.

    A program must contain at least one ``GOAL Name() { ... }`` block; every GOAL
    body must be enclosed in braces and every brace must be closed. Under
    ``--profile strict`` a DEFINE section is also required (seed 000). A HEADER
    block must be closed by ``END_HEADER`` and hold ``KEY: value`` lines, and a
    GOAL may not call itself.

    **Unsafe**::

        GOAL Execute_Process() {
            SPAWN MoveLinear(target_pose=A_Pose, velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;

    **Safe**::

        DEFINE A_Pose = PosX(300, 200, 150, 0, 180, 0);
        GOAL Execute_Process() {
            SPAWN MoveLinear(target_pose=A_Pose, velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
        }
    """

    id = "R-SYN-001"
    name = "document-structure"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    owns = frozenset({K.UNEXPECTED_TOKEN, K.STRAY_RBRACE, K.UNCLOSED_BRACE, K.BODY_WITHOUT_BRACES, K.BLOCK_MISSING_RPAR,
                      K.HEADER_UNCLOSED, K.HEADER_LINE_FORMAT, K.GOAL_RECURSION})

    def check(self, ctx):
        yield from self.owned_problems(ctx)
        plan = ctx.plan
        if not plan.parsed or plan.source_format == "actions":
            return  # an actions file holds the commands of a program, not its TDL document
        if not plan.goals:
            message = "TDL document missing required DEFINE or GOAL sections: no GOAL block"
            if not plan.source.strip():
                message += " (the program is empty)"
            yield self.finding(message, span=Span.point(1, 1), suggestion="Wrap the commands in GOAL Execute_Process() { ... }")
        if ctx.strict and not plan.definitions:
            yield self.finding("TDL document missing required DEFINE or GOAL sections: no DEFINE statement (strict profile)",
                               span=Span.point(1, 1), suggestion="Declare every position with DEFINE Name = PosX(...); before the GOALs")

    def word(self, problem: Problem) -> Finding:
        kind, v, span = problem.kind, problem.values, problem.span
        if kind is K.UNEXPECTED_TOKEN:
            return self.finding(f"TDL document structure: {_tokens.unexpected(v)} at line {span.line}", span=span,
                                evidence=_tokens.evidence(v))
        if kind is K.STRAY_RBRACE:
            return self.finding("TDL document structure: unbalanced braces, '}' without a matching '{'", span=span,
                                suggestion="Remove the extra '}'")
        if kind is K.UNCLOSED_BRACE:
            return self.finding(f"TDL document structure: unbalanced braces, {_block(v)} opened at line {v['opened_line']} is never closed",
                                span=span, evidence={"opened_line": v["opened_line"]}, suggestion="Add the missing '}'")
        if kind is K.BODY_WITHOUT_BRACES:
            return self.finding(f"TDL document structure: the body of {_block(v)} is not enclosed in braces", span=span,
                                suggestion="Write the body as '{ ... }'")
        if kind is K.BLOCK_MISSING_RPAR:
            return self.finding(f"missing ')' at line {span.line}", span=span, suggestion="Close the argument list with ')'")
        if kind is K.HEADER_UNCLOSED:
            return self.finding("TDL document structure: HEADER block is not closed by END_HEADER", span=span,
                                suggestion="End the header with a line containing END_HEADER")
        if kind is K.HEADER_LINE_FORMAT:
            return self.finding(f"TDL document structure: HEADER line '{v['line'][:40]}' is not 'KEY: value'", span=span,
                                suggestion="Write header lines as KEY: value")
        chain = " -> ".join(v["chain"])
        return self.finding(f"TDL document structure: GOAL '{v['goal']}' calls itself (recursion through {chain})", span=span,
                            suggestion="Remove the recursive GOAL call")


def _block(values) -> str:
    """How a message names a block: GOAL 'Name', COMMAND 'Name', or just "block"."""
    opener, name = values["opener"], values["name"]
    return f"{opener} '{name}'" if opener else "block"
