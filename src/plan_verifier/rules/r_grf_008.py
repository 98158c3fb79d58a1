from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf008(SimulationRule):
    """Never approach the stand of one tool while holding another.

    A move to a tool stand's position while the simulated robot holds a
    different tool would drive that tool into the occupied stand (seed 003,
    move check 2) - however many steps earlier the tool was attached. The
    hint says where to release the held tool first. Applies to TDL motions
    through graph positions as well.

    **Unsafe**::

        // holding Camera
        {"id": 3, "action": "move", "target": "Tool_Weld_Position"}

    **Safe**::

        // holding Camera: release it at its own stand, then fetch the Welder
        {"id": 3, "action": "move", "target": "Tool_Camera_Position"}
    """

    id = "R-GRF-008"
    name = "tool-stand-collision"
    formats = frozenset({"json", "tdl"})
