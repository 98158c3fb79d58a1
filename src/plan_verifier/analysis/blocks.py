"""Which flow blocks enclose each step.

TDL writes control flow as flat commands (`If … Else … EndIf`, `While …
EndWhile`, `For … Next`), so a plan's steps look like straight-line code.
Rules that reason about "what runs after what" must know when a step is
conditional or repeated: an `End()` inside an `If` does not make the rest of
the program unreachable, and an `Assign` inside a loop is a variable update,
not a second definition.
"""

from __future__ import annotations

from plan_verifier.ir import Plan

#: Opening command -> the command that closes its block.
BLOCKS = {"If": "EndIf", "While": "EndWhile", "For": "Next"}
LOOPS = frozenset({"While", "For"})
_OPENER_OF = {closer: opener for opener, closer in BLOCKS.items()}


def enclosing_blocks(plan: Plan) -> tuple[tuple[str, ...], ...]:
    """For each step (0-based, execution order) the openers of the blocks around it, outermost first.

    An opener or closer is outside its own block. A closer without a matching
    opener is ignored (R-SYN rules own malformed flow), and blocks still open
    at the end simply extend to the last step.
    """
    stack: list[str] = []
    out: list[tuple[str, ...]] = []
    for step in plan.steps:
        opener = _OPENER_OF.get(step.command)
        if opener is not None and opener in stack:
            del stack[len(stack) - 1 - stack[::-1].index(opener):]
        out.append(tuple(stack))
        if step.command in BLOCKS:
            stack.append(step.command)
    return tuple(out)
