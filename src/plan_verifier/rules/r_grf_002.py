from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf002(SimulationRule):
    """Every move follows an :ONLY_ALLOWED_MOVE_TO edge from the simulated position.

    The simulation tracks where the robot is after each step; a move needs an
    edge from there to the target (a move to where the robot already is needs
    none). Applies to JSON move steps and to TDL motions whose target is a
    graph position (by name, or through a DEFINE'd or Assign'ed name). The
    hint gives the shortest legal path.

    **Unsafe**::

        {"id": 1, "action": "move", "target": "Home"},
        {"id": 2, "action": "move", "target": "Pos_5"}        // no edge Home -> Pos_5

    **Safe**::

        {"id": 1, "action": "move", "target": "Home"},
        {"id": 2, "action": "move", "target": "Safe_Pos_2"},
        {"id": 3, "action": "move", "target": "Pos_5"}
    """

    id = "R-GRF-002"
    name = "allowed-move"
    formats = frozenset({"json", "tdl"})
