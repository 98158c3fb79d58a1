from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf010(SimulationRule):
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
