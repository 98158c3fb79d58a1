"""Seed 003's state simulation: walk a plan step by step against one cell snapshot.

The simulator keeps the robot's simulated position and tool, checks every
step against the graph (positions exist, moves follow :ONLY_ALLOWED_MOVE_TO,
routines are :SUPPORTED_AT where they run, the held tool fits) and records
one event per problem. The R-GRF rules report those events; the report's
`graph` field is the seed's `VerificationResult` view of the same events.

No cascades (contract §5): whatever a step gets wrong, the simulation goes on
from the state the plan intended after that step, so one mistake produces one
finding. Checks on a step are independent and all reported (a move can hit a
tool stand with the wrong tool *and* lack an edge), except that nothing more
is asked about a position or routine the graph does not have.

The simulator only asks the cell its question methods (`allows`, `support`,
`routines_using_at`, `tool_at`, `shortest_path` ...), so a backend that
answers them with live queries (seed 003's per-step strategy) runs the same
code. Feedback lines follow seed 003 word for word; repair hints follow the
line they belong to as `Step N: Hint: ...`.
"""

from __future__ import annotations

import difflib
import types
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

from plan_verifier import catalogue as cat
from plan_verifier.findings import Span
from plan_verifier.graph.model import NO_TOOL, TOOL_ATTACH, TOOL_RELEASE, Cell
from plan_verifier.ir import ListValue, Plan, Ref, Reference, Step, Text

_ALIAS_DEPTH = 16


@dataclass(frozen=True, slots=True)
class SimState:
    """Where the simulated robot is (None: not at a known graph position) and what it holds."""

    position: str | None
    tool: str = NO_TOOL


@dataclass(frozen=True, slots=True)
class GraphEvent:
    """One problem found by the simulation, ready to become a finding."""

    rule_id: str
    step: int | None
    message: str
    feedback: tuple[str, ...]
    suggestion: str | None = None
    span: Span | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", types.MappingProxyType(dict(self.evidence)))


@dataclass(frozen=True, slots=True)
class StepTrace:
    """What one step did to the simulated state; `visits` are the graph positions it moved through."""

    step: int
    before: SimState
    after: SimState
    visits: tuple[str, ...]
    ok: bool


@dataclass(frozen=True)
class VerificationResult:
    """Seed 003's result object; `to_dict` is the report's `graph` field."""

    valid: bool
    missing_positions: tuple[str, ...] = ()
    illegal_edges: tuple[tuple[str, str], ...] = ()
    unsupported_routines: tuple[tuple[str, str], ...] = ()
    tool_conflicts: tuple[str, ...] = ()
    feedback: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "missing_positions": list(self.missing_positions),
            "illegal_edges": [{"from": a, "to": b} for a, b in self.illegal_edges],
            "unsupported_routines": [{"routine": r, "position": p} for r, p in self.unsupported_routines],
            "tool_conflicts": list(self.tool_conflicts),
            "feedback": "\n".join(self.feedback),
        }


@dataclass(frozen=True)
class Simulation:
    start: SimState
    result: VerificationResult
    events: tuple[GraphEvent, ...]
    trace: tuple[StepTrace, ...]

    def events_for(self, rule_id: str) -> Iterator[GraphEvent]:
        return (e for e in self.events if e.rule_id == rule_id)

    @property
    def final(self) -> SimState:
        return self.trace[-1].after if self.trace else self.start


def simulate(plan: Plan, cell: Cell, start: Any) -> Simulation:
    """Run the plan against the cell from `start` (anything with `.position` and `.tool`)."""
    return _Simulator(plan, cell, SimState(start.position, start.tool or NO_TOOL)).run()


def path_text(path: Sequence[str]) -> str:
    return " -> ".join(path)


class _Simulator:
    def __init__(self, plan: Plan, cell: Cell, start: SimState) -> None:
        self.plan = plan
        self.cell = cell
        self.start = start
        self.state = start
        self.events: list[GraphEvent] = []
        self.trace: list[StepTrace] = []
        self.missing: list[str] = []
        self.illegal: list[tuple[str, str]] = []
        self.unsupported: list[tuple[str, str]] = []
        self.conflicts: list[str] = []
        self.feedback: list[str] = []
        self._refs: dict[tuple[int | None, str, str], Reference] = {}
        for ref in plan.references:
            self._refs.setdefault((ref.step, ref.param, ref.name), ref)

    # ------------------------------------------------------------------ driver
    def run(self) -> Simulation:
        self.check_start()
        for step in self.plan.steps:
            before, count = self.state, len(self.events)
            if step.action == "move":
                visits = self.move(step.index, step.target_name or "", step.span)
            elif step.action == "routine":
                visits = self.routine(step)
            else:
                visits = self.command(step)
            self.trace.append(StepTrace(step.index, before, self.state, tuple(visits), len(self.events) == count))
        result = VerificationResult(
            valid=not self.events,
            missing_positions=tuple(self.missing),
            illegal_edges=tuple(self.illegal),
            unsupported_routines=tuple(self.unsupported),
            tool_conflicts=tuple(self.conflicts),
            feedback=tuple(self.feedback),
        )
        return Simulation(self.start, result, tuple(self.events), tuple(self.trace))

    def emit(self, rule_id: str, step: int | None, message: str, *, feedback: str, hint: str | None = None,
             suggestion: str | None = None, span: Span | None = None, conflict: str | None = None, **evidence: Any) -> None:
        label = f"Step {step}" if step is not None else "Start"
        lines = [f"{label}: {feedback}"] + ([f"{label}: Hint: {hint}"] if hint else [])
        self.feedback.extend(lines)
        if conflict is not None:
            self.conflicts.append(f"{label}: {conflict}")
        self.events.append(GraphEvent(rule_id, step, message, tuple(lines), suggestion or hint, span, evidence))

    # ------------------------------------------------------------------ start state
    def check_start(self) -> None:
        position, tool = self.start.position, self.start.tool
        if position is not None and position not in self.cell.positions:
            self.emit("R-GRF-001", None, f"Start position '{position}' does not exist in graph",
                      feedback=f"Position '{position}' does not exist in graph", suggestion=self.closest("position", position, self.cell.positions),
                      position=position)
            self._note_missing(position)
        if tool != NO_TOOL and tool not in self.cell.tools:
            self.emit("R-GRF-001", None, f"Start tool '{tool}' does not exist in graph",
                      feedback=f"Tool '{tool}' does not exist in graph", suggestion=self.closest("tool", tool, self.cell.tools), tool=tool)

    # ------------------------------------------------------------------ moves
    def move(self, step: int, target: str, span: Span | None) -> list[str]:
        """A move to a named position: existence, tool stand collision, work-position tool, edge."""
        here, tool = self.state.position, self.state.tool
        self.state = SimState(target, tool)
        if target not in self.cell.positions:
            self._note_missing(target)
            self.emit("R-GRF-001", step, f"Position '{target}' does not exist in graph", feedback=f"Position '{target}' does not exist in graph",
                      suggestion=self.closest("position", target, self.cell.positions), span=span, position=target)
            return []
        stand_tool = self.cell.tool_at(target)
        if stand_tool is not None and tool != NO_TOOL and tool != stand_tool:
            hint = self.release_hint(tool, here)
            self.emit("R-GRF-008", step, f"Cannot move to '{target}' (tool stand for '{stand_tool}') while holding '{tool}'",
                      feedback=f"Collision risk - must release '{tool}' before approaching '{stand_tool}' tool stand", hint=hint, span=span,
                      conflict=f"Cannot move to '{target}' (tool stand for '{stand_tool}') while holding '{tool}'",
                      position=target, stand_tool=stand_tool, held_tool=tool)
        if self.cell.positions[target].role == "work" and tool != NO_TOOL and tool in self.cell.tools and not self.cell.routines_using_at(tool, target):
            self.emit("R-GRF-009", step, f"Cannot move to work position '{target}' holding '{tool}': no routine using '{tool}' is supported there",
                      feedback=f"Incompatible tool - no supported routine for '{tool}' at '{target}'", hint=self.work_hint(target, tool), span=span,
                      conflict=f"No routine using '{tool}' is supported at work position '{target}'", position=target, held_tool=tool)
        if here is not None and here in self.cell.positions and not self.cell.allows(here, target):
            self.illegal.append((here, target))
            path = self.cell.shortest_path(here, target)
            hint = f"legal path {path_text(path)}" if path else f"no legal path leads from '{here}' to '{target}'"
            self.emit("R-GRF-002", step, f"No :ONLY_ALLOWED_MOVE_TO edge from '{here}' to '{target}'",
                      feedback=f"No :ONLY_ALLOWED_MOVE_TO edge from '{here}' to '{target}'", hint=hint,
                      suggestion=f"Insert the moves of the shortest legal path {path_text(path)}" if path else
                      f"No legal path leads from '{here}' to '{target}' in this cell; choose another target",
                      span=span, **{"from": here, "to": target, "path": path})
        return [target]

    # ------------------------------------------------------------------ routines
    def routine(self, step: Step) -> list[str]:
        i, name, span = step.index, step.routine or "", step.span
        here, tool = self.state.position, self.state.tool
        position = step.position or here
        routine = self.cell.routines.get(name)
        kind = routine.kind if routine is not None else None
        self.state = SimState(position, self._tool_after(kind, step.tool, position, tool))
        if routine is None:
            self.emit("R-GRF-003", i, f"Routine '{name}' does not exist in graph", feedback=f"Routine '{name}' does not exist in graph",
                      suggestion=self.closest("routine", name, self.cell.routines), span=span, routine=name)
            return []
        if position is None:
            return []
        if position not in self.cell.positions:
            self._note_missing(position)
            self.emit("R-GRF-001", i, f"Position '{position}' does not exist in graph", feedback=f"Position '{position}' does not exist in graph",
                      suggestion=self.closest("position", position, self.cell.positions), span=span, position=position)
            return []
        visits = [position] if position != here else []
        if here is not None and here != position:
            path = self.cell.shortest_path(here, position) if here in self.cell.positions else None
            self.emit("R-GRF-010", i, f"Routine '{name}' runs at '{position}' but the robot is at '{here}'",
                      feedback=f"Routine '{name}' runs at '{position}' but the robot is at '{here}'",
                      hint=f"move first along {path_text(path)}" if path else f"move to '{position}' first",
                      span=span, routine=name, position=position, robot_at=here, path=path)
        if self.cell.support(name, position) is None:
            self.unsupported.append((name, position))
            where = self.cell.supported_positions(name)
            hint = f"'{name}' is supported at {', '.join(repr(p) for p in where)}" if where else f"'{name}' is not supported at any position"
            self.emit("R-GRF-004", i, f"Routine '{name}' not supported at '{position}' (no :SUPPORTED_AT edge)",
                      feedback=f"Routine '{name}' not supported at '{position}' (no :SUPPORTED_AT edge)", hint=hint, span=span,
                      routine=name, position=position, supported_at=list(where))
        required = routine.required_tool
        if required and tool != required:
            self.emit("R-GRF-005", i, f"Routine '{name}' requires tool '{required}', but robot has '{tool}'",
                      feedback=f"Tool mismatch - need '{required}', have '{tool}'", hint=self.detour_hint(tool, required, here, position),
                      span=span, conflict=f"Routine '{name}' requires tool '{required}', but robot has '{tool}'",
                      routine=name, required_tool=required, held_tool=tool)
        if kind == TOOL_ATTACH:
            self.attach(i, step, position, tool, span)
        elif kind == TOOL_RELEASE:
            self.release(i, position, tool, span)
        return visits

    def attach(self, i: int, step: Step, position: str, tool: str, span: Span | None) -> None:
        stand_tool = self.cell.tool_at(position)
        wanted = step.tool or stand_tool
        if tool != NO_TOOL:
            stand = self.cell.stand_of(tool)
            self.emit("R-GRF-006", i, f"Cannot attach '{wanted or 'a tool'}' while holding '{tool}'",
                      feedback=f"Already holding tool '{tool}' - cannot attach another",
                      hint=f"release '{tool}' at its stand {stand} first" if stand else f"release '{tool}' first",
                      span=span, conflict=f"Cannot attach '{wanted or 'a tool'}' while holding '{tool}'", held_tool=tool, tool=wanted)
        if stand_tool is None:
            self.emit("R-GRF-011", i, f"Cannot attach a tool at '{position}': no tool stand there",
                      feedback=f"Wrong tool stand - no tool stand at '{position}'", span=span,
                      hint=self._stand_hint(wanted), conflict=f"Cannot attach a tool at '{position}': no tool stand there", position=position, tool=wanted)
        elif step.tool and step.tool != stand_tool:
            self.emit("R-GRF-011", i, f"Cannot attach '{step.tool}' at '{position}': the stand there holds '{stand_tool}'",
                      feedback=f"Wrong tool stand - '{step.tool}' is not at '{position}'", hint=self._stand_hint(step.tool), span=span,
                      conflict=f"Cannot attach '{step.tool}' at '{position}': the stand there holds '{stand_tool}'",
                      position=position, tool=step.tool, stand_tool=stand_tool)

    def release(self, i: int, position: str, tool: str, span: Span | None) -> None:
        if tool == NO_TOOL:
            self.emit("R-GRF-007", i, "Cannot release a tool: the robot holds no tool", feedback="Not holding a tool - cannot release",
                      hint="remove this tool_release step", span=span, conflict="Cannot release a tool: the robot holds no tool")
            return
        stand_tool = self.cell.tool_at(position)
        if stand_tool != tool:
            where = f"it is the stand of '{stand_tool}'" if stand_tool else "no tool stand there"
            self.emit("R-GRF-011", i, f"Cannot release '{tool}' at '{position}': {where}",
                      feedback=f"Wrong tool stand - '{tool}' belongs at '{self.cell.stand_of(tool)}'", hint=self._stand_hint(tool), span=span,
                      conflict=f"Cannot release '{tool}' at '{position}': {where}", position=position, tool=tool, stand_tool=stand_tool)

    def _tool_after(self, kind: str | None, named: str | None, position: str | None, tool: str) -> str:
        """The tool the plan intends to hold after a routine step (whether or not the step is valid)."""
        if kind == TOOL_RELEASE:
            return NO_TOOL
        if kind == TOOL_ATTACH:
            return named or (self.cell.tool_at(position) if position else None) or tool
        return tool

    # ------------------------------------------------------------------ TDL commands
    def command(self, step: Step) -> list[str]:
        """A TDL command: motions through graph positions get the move checks; ToolChange(graph tool) swaps the tool."""
        spec = cat.lookup(step.command)
        if spec is None:
            return []
        if step.command == "ToolChange":
            value = step.args.get("id")
            name = value.name if isinstance(value, Ref) else value.value if isinstance(value, Text) else None
            if name in self.cell.tools:
                self.state = SimState(self.state.position, name)
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

    # ------------------------------------------------------------------ repair hints
    def release_hint(self, tool: str, here: str | None) -> str:
        stand = self.cell.stand_of(tool)
        if stand is None:
            return f"release '{tool}' first"
        path = self.cell.shortest_path(here, stand) if here in self.cell.positions else None
        return f"release '{tool}' at its stand {stand} first" + (f" (path {path_text(path)})" if path and len(path) > 1 else "")

    def work_hint(self, target: str, tool: str) -> str:
        uses = [(name, self.cell.routines[name].required_tool) for name in sorted(self.cell.routines)
                if self.cell.routines[name].required_tool and self.cell.support(name, target) is not None]
        if not uses:
            return f"release '{tool}' before moving to '{target}'"
        return f"routines at '{target}': " + ", ".join(f"{name} (needs '{need}')" for name, need in uses)

    def detour_hint(self, held: str, needed: str, here: str | None, position: str) -> str:
        """The release/attach detour: which stands, along which legal paths, then back to the work position."""
        parts: list[str] = []
        at = here if here in self.cell.positions else position
        if held != NO_TOOL:
            stand = self.cell.stand_of(held)
            if stand is None:
                return f"release '{held}' and attach '{needed}' before this step"
            parts.append(self._leg(f"release '{held}' at {stand}", at, stand))
            at = stand
        target = self.cell.stand_of(needed)
        if target is None:
            return f"attach '{needed}' before this step"
        parts.append(self._leg(f"attach '{needed}' at {target}", at, target))
        parts.append(self._leg(f"return to {position}", target, position))
        return ", ".join(parts)

    def _leg(self, what: str, src: str, dst: str) -> str:
        path = self.cell.shortest_path(src, dst)
        if path is None:
            return f"{what} (no legal path from '{src}')"
        return what + (f" (path {path_text(path)})" if len(path) > 1 else "")

    def _stand_hint(self, tool: str | None) -> str | None:
        stand = self.cell.stand_of(tool) if tool else None
        return f"'{tool}' stands at {stand}" if stand else None

    def closest(self, kind: str, name: str, known: Mapping[str, Any]) -> str:
        close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
        if close:
            return f"Did you mean {' or '.join(repr(c) for c in close)}?"
        return f"Use a {kind} that exists in the cell graph"

    def _note_missing(self, position: str) -> None:
        if position not in self.missing:
            self.missing.append(position)
