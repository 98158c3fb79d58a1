from __future__ import annotations

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn009(Rule):
    """The plan is text: valid UTF-8, no binary data, no characters outside the language.

    Reports bytes that are not UTF-8, NUL characters, unterminated strings and
    characters that no TDL token can contain (outside strings and comments).

    **Unsafe**::

        SPAWN PrintLog("unterminated) WITH WAIT;
        SPAWN Delay(0.5) WITH WAIT; @

    **Safe**::

        SPAWN PrintLog("박스 옮기기 시작") WITH WAIT;  // non-ASCII text in strings and comments is fine
    """

    id = "R-SYN-009"
    name = "text-encoding"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    formats = frozenset({"tdl", "json"})
    owns = frozenset({K.BAD_CHARACTERS, K.NOT_UTF8, K.UNPAIRED_SURROGATE, K.NUL_CHARACTER})

    def check(self, ctx):
        yield from self.owned_problems(ctx)

    def word(self, problem: Problem) -> Finding:
        kind, v, span = problem.kind, problem.values, problem.span
        if kind is K.BAD_CHARACTERS:
            chunk = v["text"]
            if chunk[:1] in "\"'":
                return self.finding(f"unterminated string literal starting with {chunk[:20]!r}", span=span,
                                    suggestion="Close the string on the same line")
            more = f" (and {len(chunk) - 1} more)" if len(chunk) > 1 else ""
            return self.finding(f"unexpected character {chunk[:1]!r}{more}", span=span,
                                suggestion="Remove the character or put the text in a // comment")
        if kind is K.NOT_UTF8:
            return self.finding(f"Plan is not valid UTF-8 text: byte 0x{v['byte']:02x} at offset {v['offset']}", span=span,
                                evidence={"offset": v["offset"]}, suggestion="Send the plan as UTF-8 text")
        if kind is K.UNPAIRED_SURROGATE:
            return self.finding(f"Plan contains an unpaired surrogate at offset {v['offset']}", span=span)
        return self.finding(f"Plan contains binary data (a NUL character at offset {v['offset']})", span=span,
                            suggestion="Send the plan as text")
