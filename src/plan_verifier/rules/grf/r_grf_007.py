from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Finding
from plan_verifier.graph.model import NO_TOOL, TOOL_RELEASE, Cell
from plan_verifier.graph.simulate import Simulation
from plan_verifier.rules import register
from plan_verifier.rules.grf.trace import TraceRule


@register
class RGrf007(TraceRule):
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
    check_order = 10

    def judge(self, trace: Simulation, cell: Cell) -> Iterator[Finding]:
        for run in trace.routines:
            name = run.routine
            if name not in cell.routines or run.position not in cell.positions or cell.routines[name].kind != TOOL_RELEASE:
                continue
            if run.before.tool == NO_TOOL:
                message = "Cannot release a tool: the robot holds no tool"
                yield self.problem(run, message, feedback="Not holding a tool - cannot release", hint="remove this tool_release step",
                                   conflict=message)
