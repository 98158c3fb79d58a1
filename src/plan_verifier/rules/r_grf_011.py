from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf011(SimulationRule):
    """Tool changes happen at the right stand.

    `tool_attach` must run at a tool stand and take the tool that stands
    there (a step's `tool` must match the stand's tool); `tool_release` must
    put the held tool back on its own stand, never on another tool's stand or
    where there is none.

    **Unsafe**::

        {"id": 3, "action": "routine", "target": "tool_attach", "position": "Tool_Weld_Position", "tool": "Camera"}

    **Safe**::

        {"id": 3, "action": "routine", "target": "tool_attach", "position": "Tool_Camera_Position", "tool": "Camera"}
    """

    id = "R-GRF-011"
    name = "tool-stand-match"
