from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import NO_TOOL, Cell
from plan_verifier.graph.repair import release_first
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf008(TraceRule):
    """Never approach the stand of one tool while holding another.

    A move to a tool stand's position while the simulated robot holds a
    different tool would drive that tool into the occupied stand (seed 003,
    move check 2) - however many steps earlier the tool was attached. The
    hint says where to release the held tool first. Applies to TDL motions
    through graph positions as well.

    **Unsafe**::

        // holding Camera
        {"id": 3, "action": "move", "target": "Tool_Weld_Position"}

    **Safe**::

        // holding Camera: release it at its own stand, then fetch the Welder
        {"id": 3, "action": "move", "target": "Tool_Camera_Position"}
    """

    id = "R-GRF-008"
    name = "tool-stand-collision"
    formats = frozenset({"json", "tdl"})
    check_order = 3

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for move in trace.moves:
            target, held = move.target, move.before.tool
            if target not in cell.positions or held == NO_TOOL:
                continue
            stand_tool = cell.tool_at(target)
            if stand_tool is None or stand_tool == held:
                continue
            message = f"Cannot move to '{target}' (tool stand for '{stand_tool}') while holding '{held}'"
            yield self.problem(move, message, feedback=f"Collision risk - must release '{held}' before approaching '{stand_tool}' tool stand",
                               hint=release_first(cell, held, move.before.position), conflict=message,
                               position=target, stand_tool=stand_tool, held_tool=held)
