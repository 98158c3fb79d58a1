from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import Cell
from plan_verifier.graph.repair import path_text
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf002(TraceRule):
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
    check_order = 5

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for move in trace.moves:
            here, target = move.before.position, move.target
            if target not in cell.positions or here is None or here not in cell.positions or cell.allows(here, target):
                continue
            path = cell.shortest_path(here, target)
            message = f"No :ONLY_ALLOWED_MOVE_TO edge from '{here}' to '{target}'"
            yield self.problem(move, message, feedback=message,
                               hint=f"legal path {path_text(path)}" if path else f"no legal path leads from '{here}' to '{target}'",
                               suggestion=f"Insert the moves of the shortest legal path {path_text(path)}" if path else
                               f"No legal path leads from '{here}' to '{target}' in this cell; choose another target",
                               illegal_edge=(here, target), **{"from": here, "to": target, "path": path})
