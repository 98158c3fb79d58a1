from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import Cell
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf004(TraceRule):
    """A routine runs only where it is :SUPPORTED_AT.

    The routine's position (its `position` field, else where the simulated
    robot is) needs a :SUPPORTED_AT edge from the routine (seed 003, routine
    check 3). The hint lists the positions that support it.

    **Unsafe**::

        {"id": 5, "action": "routine", "target": "tackweld", "position": "Pos_2"}

    **Safe**::

        {"id": 5, "action": "routine", "target": "tackweld", "position": "Pos_1"}
    """

    id = "R-GRF-004"
    name = "routine-supported"
    check_order = 7

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for run in trace.routines:
            name, position = run.routine, run.position
            if name not in cell.routines or position not in cell.positions or cell.support(name, position) is not None:
                continue
            where = cell.supported_positions(name)
            message = f"Routine '{name}' not supported at '{position}' (no :SUPPORTED_AT edge)"
            yield self.problem(run, message, feedback=message,
                               hint=f"'{name}' is supported at {', '.join(repr(p) for p in where)}" if where else f"'{name}' is not supported at any position",
                               unsupported_routine=(name, position), routine=name, position=position, supported_at=list(where))
