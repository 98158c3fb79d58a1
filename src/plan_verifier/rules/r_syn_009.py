from __future__ import annotations

from plan_verifier.findings import Category, Severity
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

    def check(self, ctx):
        yield from self.diagnostics(ctx)
