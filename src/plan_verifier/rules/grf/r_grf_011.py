from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import NO_TOOL, TOOL_ATTACH, TOOL_RELEASE, Cell
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf011(TraceRule):
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
    check_order = 11

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for run in trace.routines:
            name, position = run.routine, run.position
            if name not in cell.routines or position not in cell.positions:
                continue
            kind, stand_tool = cell.routines[name].kind, cell.tool_at(position)
            if kind == TOOL_ATTACH and stand_tool is None:
                message = f"Cannot attach a tool at '{position}': no tool stand there"
                yield self.problem(run, message, feedback=f"Wrong tool stand - no tool stand at '{position}'", hint=_stands_at(cell, run.tool),
                                   conflict=message, position=position, tool=run.tool)
            elif kind == TOOL_ATTACH and run.tool and run.tool != stand_tool:
                message = f"Cannot attach '{run.tool}' at '{position}': the stand there holds '{stand_tool}'"
                yield self.problem(run, message, feedback=f"Wrong tool stand - '{run.tool}' is not at '{position}'", hint=_stands_at(cell, run.tool),
                                   conflict=message, position=position, tool=run.tool, stand_tool=stand_tool)
            elif kind == TOOL_RELEASE and run.before.tool != NO_TOOL and stand_tool != run.before.tool:
                held = run.before.tool
                where = f"it is the stand of '{stand_tool}'" if stand_tool else "no tool stand there"
                message = f"Cannot release '{held}' at '{position}': {where}"
                yield self.problem(run, message, feedback=f"Wrong tool stand - '{held}' belongs at '{cell.stand_of(held)}'", hint=_stands_at(cell, held),
                                   conflict=message, position=position, tool=held, stand_tool=stand_tool)


def _stands_at(cell: Cell, tool: str | None) -> str | None:
    stand = cell.stand_of(tool) if tool else None
    return f"'{tool}' stands at {stand}" if stand else None
