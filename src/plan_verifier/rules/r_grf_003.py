from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf003(SimulationRule):
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
