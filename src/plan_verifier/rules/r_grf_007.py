from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf007(SimulationRule):
    """tool_release only while holding a tool.

    Releasing with an empty wrist means the plan's idea of the tool state is
    wrong from here on (seed 003: "Not Holding Tool - cannot release").

    **Unsafe**::

        {"id": 3, "action": "routine", "target": "tool_release", "position": "Tool_Weld_Position"}   // empty wrist

    **Safe**::

        {"id": 3, "action": "routine", "target": "tool_attach", "position": "Tool_Weld_Position", "tool": "Welder"},
        {"id": 4, "action": "routine", "target": "tool_release", "position": "Tool_Weld_Position"}
    """

    id = "R-GRF-007"
    name = "release-while-empty"
