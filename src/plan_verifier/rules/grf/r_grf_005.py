from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import NO_TOOL, Cell
from plan_verifier.graph.repair import path_text
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf005(TraceRule):
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
    check_order = 8

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for run in trace.routines:
            name, position, held = run.routine, run.position, run.before.tool
            if name not in cell.routines or position not in cell.positions:
                continue
            required = cell.routines[name].required_tool
            if not required or held == required:
                continue
            message = f"Routine '{name}' requires tool '{required}', but robot has '{held}'"
            yield self.problem(run, message, feedback=f"Tool mismatch - need '{required}', have '{held}'",
                               hint=_detour(cell, held, required, run.before.position, position), conflict=message,
                               routine=name, required_tool=required, held_tool=held)


def _detour(cell: Cell, held: str, needed: str, here: str | None, position: str) -> str:
    """The release/attach detour: which stands, along which legal paths, then back to the work position."""
    parts: list[str] = []
    at = here if here in cell.positions else position
    if held != NO_TOOL:
        stand = cell.stand_of(held)
        if stand is None:
            return f"release '{held}' and attach '{needed}' before this step"
        parts.append(_leg(cell, f"release '{held}' at {stand}", at, stand))
        at = stand
    target = cell.stand_of(needed)
    if target is None:
        return f"attach '{needed}' before this step"
    parts.append(_leg(cell, f"attach '{needed}' at {target}", at, target))
    parts.append(_leg(cell, f"return to {position}", target, position))
    return ", ".join(parts)


def _leg(cell: Cell, what: str, src: str, dst: str) -> str:
    path = cell.shortest_path(src, dst)
    if path is None:
        return f"{what} (no legal path from '{src}')"
    via = f" (path {path_text(path)})" if len(path) > 1 else ""
    return f"{what}{via}"
