from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf004(SimulationRule):
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
