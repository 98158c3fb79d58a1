from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import NO_TOOL, Cell
from plan_verifier.graph.repair import did_you_mean
from plan_verifier.graph.simulate import Move, RoutineRun, Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf001(TraceRule):
    """Every position the plan names exists in the knowledge graph.

    Checks move targets and the positions routines run at (seed 003, check 1),
    and the start position and start tool (from the request or the cell's
    initial state); for TDL programs only the start state, since a name that is
    neither DEFINE'd nor a graph position is R-CON-001's business. The hint
    names the closest existing positions.

    **Unsafe**::

        {"id": 2, "action": "move", "target": "Pos_99"}

    **Safe**::

        {"id": 2, "action": "move", "target": "Safe_Pos_1"}
    """

    id = "R-GRF-001"
    name = "position-exists"
    formats = frozenset({"json", "tdl"})
    check_order = 2

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        start = trace.start
        if start.position is not None and start.position not in cell.positions:
            yield self.problem(None, f"Start position '{start.position}' does not exist in graph",
                               feedback=f"Position '{start.position}' does not exist in graph",
                               suggestion=did_you_mean("position", start.position, cell.positions),
                               missing_position=start.position, position=start.position)
        if start.tool != NO_TOOL and start.tool not in cell.tools:
            yield self.problem(None, f"Start tool '{start.tool}' does not exist in graph", feedback=f"Tool '{start.tool}' does not exist in graph",
                               suggestion=did_you_mean("tool", start.tool, cell.tools), tool=start.tool)
        for at in trace.transitions:
            if isinstance(at, Move):
                name: str | None = at.target
            elif isinstance(at, RoutineRun) and at.routine in cell.routines:  # an unknown routine is R-GRF-003's
                name = at.position
            else:
                continue
            if name is not None and name not in cell.positions:
                yield self.problem(at, f"Position '{name}' does not exist in graph", feedback=f"Position '{name}' does not exist in graph",
                                   suggestion=did_you_mean("position", name, cell.positions), missing_position=name, position=name)
