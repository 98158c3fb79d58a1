from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import Cell
from plan_verifier.graph.repair import did_you_mean
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf003(TraceRule):
    """Every routine the plan runs exists in the knowledge graph.

    A routine step's `target` must name a :Routine node (seed 003, routine
    check 1); the hint names the closest existing routines.

    **Unsafe**::

        {"id": 9, "action": "routine", "target": "tack_welding", "position": "Pos_1"}

    **Safe**::

        {"id": 9, "action": "routine", "target": "tack_weld", "position": "Pos_1"}
    """

    id = "R-GRF-003"
    name = "routine-exists"
    check_order = 1

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for run in trace.routines:
            if run.routine not in cell.routines:
                yield self.problem(run, f"Routine '{run.routine}' does not exist in graph", feedback=f"Routine '{run.routine}' does not exist in graph",
                                   suggestion=did_you_mean("routine", run.routine, cell.routines), routine=run.routine)
