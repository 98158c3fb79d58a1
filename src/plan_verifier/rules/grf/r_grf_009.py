from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import NO_TOOL, Cell
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf009(TraceRule):
    """Enter a work position only with a tool that some routine there uses.

    Moving to a position with role `work` while holding a tool that no
    routine supported at that position needs is a planning error (seed 003,
    move check 3): the robot carries the wrong tool into the work area. The
    hint lists the routines at the position and the tools they need.

    **Unsafe**::

        // holding Camera; only Welder routines are supported at Pos_5
        {"id": 4, "action": "move", "target": "Pos_5"}

    **Safe**::

        // holding Welder
        {"id": 4, "action": "move", "target": "Pos_5"}
    """

    id = "R-GRF-009"
    name = "work-position-tool"
    formats = frozenset({"json", "tdl"})
    check_order = 4

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for move in trace.moves:
            target, held = move.target, move.before.tool
            if target not in cell.positions or cell.positions[target].role != "work" or held == NO_TOOL or held not in cell.tools:
                continue
            if cell.routines_using_at(held, target):
                continue
            yield self.problem(move, f"Cannot move to work position '{target}' holding '{held}': no routine using '{held}' is supported there",
                               feedback=f"Incompatible tool - no supported routine for '{held}' at '{target}'", hint=_routines_at(cell, target, held),
                               conflict=f"No routine using '{held}' is supported at work position '{target}'", position=target, held_tool=held)


def _routines_at(cell: Cell, target: str, held: str) -> str:
    uses = [(name, cell.routines[name].required_tool) for name in sorted(cell.routines)
            if cell.routines[name].required_tool and cell.support(name, target) is not None]
    if not uses:
        return f"release '{held}' before moving to '{target}'"
    listed = ", ".join(f"{name} (needs '{need}')" for name, need in uses)
    return f"routines at '{target}': {listed}"
