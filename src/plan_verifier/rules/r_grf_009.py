from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._graph import SimulationRule


@register
class RGrf009(SimulationRule):
    """Enter a work position only with a tool that some routine there uses.

    Moving to a position with role `work` while holding a tool that no
    routine supported at that position needs is a planning error (seed 003,
    move check 3): the robot carries the wrong tool into the work area. The
    hint lists the routines at the position and the tools they need.

    **Unsafe**::

        // holding Camera; only Welder routines are supported at Pos_5
        {"id": 4, "action": "move", "target": "Pos_5"}

    **Safe**::

        // holding Welder
        {"id": 4, "action": "move", "target": "Pos_5"}
    """

    id = "R-GRF-009"
    name = "work-position-tool"
    formats = frozenset({"json", "tdl"})
