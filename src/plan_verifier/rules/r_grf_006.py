from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf006(SimulationRule):
    """tool_attach only with an empty wrist.

    Attaching while the simulated robot already holds a tool would crash the
    tool changer (seed 003: "Already Holding Tool - cannot attach another").

    **Unsafe**::

        {"id": 3, "action": "routine", "target": "tool_attach", "position": "Tool_Weld_Position", "tool": "Welder"},
        {"id": 4, "action": "routine", "target": "tool_attach", "position": "Tool_Weld_Position", "tool": "Welder"}

    **Safe**::

        {"id": 3, "action": "routine", "target": "tool_attach", "position": "Tool_Weld_Position", "tool": "Welder"}
    """

    id = "R-GRF-006"
    name = "attach-while-holding"
