from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


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

    def check(self, ctx):
        yield from self.diagnostics(ctx)
