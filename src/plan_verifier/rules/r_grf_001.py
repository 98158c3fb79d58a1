from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf001(SimulationRule):
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
