from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf005(SimulationRule):
    """A routine that needs a tool runs only while the robot holds that tool.

    Compares the routine's `required_tool` with the simulated tool (seed 003,
    routine check 4). The hint spells out the detour: release the held tool
    at its stand, attach the needed one at its stand, return, each leg along
    the shortest legal path.

    **Unsafe**::

        {"id": 6, "action": "routine", "target": "inspect", "position": "Pos_2"}   // holding Welder

    **Safe**::

        ... release Welder at Tool_Weld_Position, attach Camera at Tool_Camera_Position ...
        {"id": 14, "action": "routine", "target": "inspect", "position": "Pos_2"}
    """

    id = "R-GRF-005"
    name = "required-tool"
