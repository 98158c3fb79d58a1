from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import Cell
from plan_verifier.graph.repair import path_text
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf010(TraceRule):
    """A routine runs where the robot is.

    A routine step's `position` must be the simulated position: a plan that
    welds at Pos_1 while the robot is still at Safe_Pos_1 skipped a move. The
    hint gives the legal path to insert before the routine.

    **Unsafe**::

        {"id": 7, "action": "move", "target": "Safe_Pos_1"},
        {"id": 8, "action": "routine", "target": "tack_weld", "position": "Pos_1"}

    **Safe**::

        {"id": 7, "action": "move", "target": "Safe_Pos_1"},
        {"id": 8, "action": "move", "target": "Pos_1"},
        {"id": 9, "action": "routine", "target": "tack_weld", "position": "Pos_1"}
    """

    id = "R-GRF-010"
    name = "routine-location"
    check_order = 6

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for run in trace.routines:
            name, position, here = run.routine, run.position, run.before.position
            if name not in cell.routines or position not in cell.positions or here is None or here == position:
                continue
            path = cell.shortest_path(here, position) if here in cell.positions else None
            message = f"Routine '{name}' runs at '{position}' but the robot is at '{here}'"
            yield self.problem(run, message, feedback=message,
                               hint=f"move first along {path_text(path)}" if path else f"move to '{position}' first",
                               routine=name, position=position, robot_at=here, path=path)
