from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import NO_TOOL, TOOL_ATTACH, Cell
from plan_verifier.graph.repair import release_first
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf006(TraceRule):
    """tool_attach only with an empty wrist.

    Attaching while the simulated robot already holds a tool would crash the
    tool changer (seed 003: "Already Holding Tool - cannot attach another").

    **Unsafe**::

        {"id": 3, "action": "routine", "target": "tool_attach", "position": "Tool_Weld_Position", "tool": "Welder"},
        {"id": 4, "action": "routine", "target": "tool_attach", "position": "Tool_Weld_Position", "tool": "Welder"}

    **Safe**::

        {"id": 3, "action": "routine", "target": "tool_attach", "position": "Tool_Weld_Position", "tool": "Welder"}
    """

    id = "R-GRF-006"
    name = "attach-while-holding"
    check_order = 9

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for run in trace.routines:
            name, position, held = run.routine, run.position, run.before.tool
            if name not in cell.routines or position not in cell.positions or cell.routines[name].kind != TOOL_ATTACH or held == NO_TOOL:
                continue
            wanted = run.tool or cell.tool_at(position)
            message = f"Cannot attach '{wanted or 'a tool'}' while holding '{held}'"
            yield self.problem(run, message, feedback=f"Already holding tool '{held}' - cannot attach another",
                               hint=release_first(cell, held, None), conflict=message, held_tool=held, tool=wanted)
