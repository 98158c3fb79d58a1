"""Seed 003's state simulation: walk a plan against one cell snapshot and record what each step does.

The simulation is the neutral half of the graph checks. It keeps the robot's
simulated position and tool and records, for every step, what the step means
to do in graph terms - go to a position, run a routine somewhere (a tool
attach or release changes the tool), change the tool (TDL `ToolChange`) -
with the simulated state before and after. It judges nothing: whether a move
has its :ONLY_ALLOWED_MOVE_TO edge or a routine its tool is decided by the
R-GRF rules (`rules/grf/`), each over this trace and the `Cell`'s questions.

No cascades (contract §5): the state after a step is the state the plan
intended, whether or not the step is legal (the robot is where the step put
it and holds what the step attached), so one mistake gives one finding.

TDL programs: a motion whose target names a graph position - directly,
through a DEFINE'd name equal to one, or through `Assign`ed aliases of one -
is a move there (a `MoveBlend`/`MoveCircular` is one move per graph waypoint,
in order); a motion to any other pose is local to the last graph position
and leaves the simulated position where it was. `ToolChange(T)` with a graph
tool `T` changes the simulated tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from plan_verifier import catalogue as cat
from plan_verifier.findings import Span
from plan_verifier.graph.model import NO_TOOL, TOOL_ATTACH, TOOL_RELEASE, Cell
from plan_verifier.ir import ListValue, Plan, Ref, Reference, Step, Text

_ALIAS_DEPTH = 16


class SimState(NamedTuple):
    """Where the simulated robot is (None: not at a known graph position) and what it holds."""

    position: str | None
    tool: str = NO_TOOL


class Move(NamedTuple):
    """The robot goes to `target`: a JSON move step, or one graph waypoint of a TDL motion.

    `target` is the name the plan gives; the graph may not have it. `index`
    is the transition's place in the whole trace.
    """

    index: int
    step: int
    span: Span | None
    before: SimState
    after: SimState
    target: str


class RoutineRun(NamedTuple):
    """A routine step: `routine` runs at `position` (the step's `position`, else where the robot was;
    None when neither is known); `tool` is the tool the step names, if any."""

    index: int
    step: int
    span: Span | None
    before: SimState
    after: SimState
    routine: str
    position: str | None
    tool: str | None


class ToolChange(NamedTuple):
    """A TDL `ToolChange` to the graph tool `tool`."""

    index: int
    step: int
    span: Span | None
    before: SimState
    after: SimState
    tool: str


#: One thing a step does to the simulated robot (a step may do several: a TDL motion through
#: several graph positions). Named tuples, like `Span`: a plan makes one per step, and tuples
#: are the cheapest immutable values Python has.
Transition = Move | RoutineRun | ToolChange


class StepTrace(NamedTuple):
    """What one step did to the simulated state; `visits` are the graph positions it took the robot to
    (a routine the graph does not have takes it nowhere)."""

    step: int
    before: SimState
    after: SimState
    visits: tuple[str, ...]


@dataclass(frozen=True)
class Simulation:
    """The trace of one plan: the start state, every transition in order, and a summary per step."""

    start: SimState
    transitions: tuple[Transition, ...]
    steps: tuple[StepTrace, ...]

    @cached_property
    def moves(self) -> tuple[Move, ...]:
        return tuple(t for t in self.transitions if isinstance(t, Move))

    @cached_property
    def routines(self) -> tuple[RoutineRun, ...]:
        return tuple(t for t in self.transitions if isinstance(t, RoutineRun))


def simulate(plan: Plan, cell: Cell, start: Any) -> Simulation:
    """Run the plan against the cell from `start` (anything with `.position` and `.tool`)."""
    return _Simulator(plan, cell, SimState(start.position, start.tool or NO_TOOL)).run()


class _Simulator:
    def __init__(self, plan: Plan, cell: Cell, start: SimState) -> None:
        self.plan = plan
        self.cell = cell
        self.start = start
        self.state = start
        self.transitions: list[Transition] = []
        self.steps: list[StepTrace] = []
        self._refs: dict[tuple[int | None, str, str], Reference] = {}
        for ref in plan.references:
            self._refs.setdefault((ref.step, ref.param, ref.name), ref)

    def run(self) -> Simulation:
        for step in self.plan.steps:
            before = self.state
            if step.action == "move":
                visits = self.move(step.index, step.target_name or "", step.span)
            elif step.action == "routine":
                visits = self.routine(step)
            else:
                visits = self.command(step)
            self.steps.append(StepTrace(step.index, before, self.state, tuple(visits)))
        return Simulation(self.start, tuple(self.transitions), tuple(self.steps))

    def move(self, step: int, target: str, span: Span | None) -> list[str]:
        before = self.state
        self.state = SimState(target, before.tool)
        self.transitions.append(Move(len(self.transitions), step, span, before, self.state, target))
        return [target] if target in self.cell.positions else []

    def routine(self, step: Step) -> list[str]:
        before = self.state
        name = step.routine or ""
        position = step.position or before.position
        routine = self.cell.routines.get(name)
        self.state = SimState(position, self._tool_after(routine.kind if routine is not None else None, step.tool, position, before.tool))
        self.transitions.append(RoutineRun(len(self.transitions), step.index, step.span, before, self.state, name, position, step.tool))
        if routine is None or position is None or position not in self.cell.positions or position == before.position:
            return []
        return [position]

    def _tool_after(self, kind: str | None, named: str | None, position: str | None, tool: str) -> str:
        """The tool the plan intends to hold after a routine step (whether or not the step is valid)."""
        if kind == TOOL_RELEASE:
            return NO_TOOL
        if kind == TOOL_ATTACH:
            return named or (self.cell.tool_at(position) if position else None) or tool
        return tool

    def command(self, step: Step) -> list[str]:
        """A TDL command: motions through graph positions are moves; ToolChange(graph tool) swaps the tool."""
        spec = cat.lookup(step.command)
        if spec is None:
            return []
        if step.command == "ToolChange":
            value = step.args.get("id")
            name = value.name if isinstance(value, Ref) else value.value if isinstance(value, Text) else None
            if name in self.cell.tools:
                before = self.state
                self.state = SimState(before.position, name)
                self.transitions.append(ToolChange(len(self.transitions), step.index, step.span, before, self.state, name))
            return []
        if spec.kind != "motion":
            return []
        visits: list[str] = []
        for pname, value in step.args.items():
            param = spec.param(pname)
            if param is None or param.type not in ("pose", "pose_list"):
                continue
            items = value.items if isinstance(value, ListValue) else (value,)
            for item in items:
                name = self.graph_name(item, step.index, pname)
                if name is not None:
                    visits.extend(self.move(step.index, name, getattr(item, "span", None) or step.span))
        return visits

    def graph_name(self, value: Any, step: int, param: str) -> str | None:
        """The graph position a TDL pose argument names, following `Assign` aliases; None for other poses.

        A motion to a pose that is not a graph position is local to the last
        graph position (an approach offset, a DEFINE'd point near it): the
        simulated position stays where it was, so the next graph move is
        checked from there.
        """
        for _ in range(_ALIAS_DEPTH):
            if not isinstance(value, Ref):
                return None
            if value.name in self.cell.positions:
                return value.name
            ref = self._refs.get((step, param, value.name))
            definition = ref.definition if ref is not None else None
            if definition is None or definition.kind != "assign" or definition.step is None:
                return None
            value, step, param = definition.value, definition.step, "source"
        return None
