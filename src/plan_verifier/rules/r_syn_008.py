from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn008(Rule):
    """JSON/YAML plan matches the plan schema (contract §5).

    A plan is a list of steps or ``{"name", "description", "steps": [...]}``;
    each step has ``action`` (``move`` or ``routine``) and a non-empty
    ``target``; ``position``, ``tool``, ``name``, ``id``, ``stabilize``,
    ``velocity`` and ``acceleration`` have the documented types. Every schema
    error is reported with its step number and field.

    **Unsafe**::

        [{"id": 1, "action": "fly", "target": "Pos_1"}]

    **Safe**::

        [{"id": 1, "name": "Move to Safe_Pos_1", "action": "move", "target": "Safe_Pos_1"}]
    """

    id = "R-SYN-008"
    name = "plan-schema"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    formats = frozenset({"json"})

    def check(self, ctx):
        yield from self.diagnostics(ctx)
