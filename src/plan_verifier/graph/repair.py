"""Repairs for JSON/YAML step plans, built from the same cell questions as the checks.

The repairer walks the plan like the simulation and rewrites what the graph
alone can fix: missing waypoints (shortest legal path, avoiding other tools'
stands and work positions the held tool has no routine at), the release/attach
detour before a routine that needs another tool or before a tool stand, a
release at the held tool's own stand, a release with an empty wrist (dropped).
What would change the task itself - a position or routine the graph lacks, a
routine where it is not supported - is left as it is and listed as
unresolved. The result is a proposal: it must be verified (and approved)
like any other plan before it runs.

The repair hints of the graph rules' findings share the small helpers at the
top: how a path reads, which names are close to an unknown one, where to put
the held tool down.
"""

from __future__ import annotations

import difflib
from collections import deque
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from plan_verifier.graph.model import NO_TOOL, TOOL_ATTACH, TOOL_RELEASE, Cell
from plan_verifier.graph.simulate import SimState
from plan_verifier.ir import Plan, Step


def path_text(path: Sequence[str]) -> str:
    return " -> ".join(path)


def did_you_mean(kind: str, name: str, known: Mapping[str, Any]) -> str:
    """The closest existing names to an unknown `kind` (position, routine, tool) `name`."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    if close:
        return f"Did you mean {' or '.join(repr(c) for c in close)}?"
    return f"Use a {kind} that exists in the cell graph"


def release_first(cell: Cell, tool: str, here: str | None) -> str:
    """Put `tool` down at its own stand first; with `here`, the shortest legal path there."""
    stand = cell.stand_of(tool)
    if stand is None:
        return f"release '{tool}' first"
    path = cell.shortest_path(here, stand) if here in cell.positions else None
    via = f" (path {path_text(path)})" if path and len(path) > 1 else ""
    return f"release '{tool}' at its stand {stand} first{via}"


@dataclass(frozen=True)
class Repair:
    steps: tuple[dict[str, Any], ...]
    changes: tuple[str, ...]
    unresolved: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def repair_plan(plan: Plan, cell: Cell, start: SimState) -> Repair:
    """Rewrite a JSON plan so that the cell's rules hold wherever the graph can say how."""
    if plan.format != "json":
        raise ValueError("repair works on JSON/YAML step plans")
    return _Repairer(plan, cell, start).run()


class _Repairer:
    def __init__(self, plan: Plan, cell: Cell, start: SimState) -> None:
        self.plan = plan
        self.cell = cell
        self.here = start.position
        self.tool = start.tool
        self.out: list[dict[str, Any]] = []
        self.changes: list[str] = []
        self.unresolved: list[str] = []

    def run(self) -> Repair:
        for step in self.plan.steps:
            if step.action == "move":
                self.move(step)
            else:
                self.routine(step)
        if all(isinstance(s.fields.get("id"), int) for s in self.plan.steps):
            steps = [{**s, "id": i} for i, s in enumerate(self.out, start=1)]
        else:  # ids the plan does not number: inserted steps get none
            steps = [{k: v for k, v in s.items() if not (k == "id" and v is None)} for s in self.out]
        return Repair(tuple(steps), tuple(self.changes), tuple(self.unresolved))

    # ------------------------------------------------------------------ plan steps
    def move(self, step: Step) -> None:
        target = step.target_name or ""
        if target not in self.cell.positions or self.here not in self.cell.positions:
            if target not in self.cell.positions:
                self.unresolved.append(f"Step {step.index}: position '{target}' does not exist in graph")
            self.keep(step, target)
            return
        stand_tool = self.cell.tool_at(target)
        if stand_tool is not None and self.tool not in (NO_TOOL, stand_tool):
            self.release_detour(step.index, f"before approaching the stand of '{stand_tool}'")
        elif self.cell.positions[target].role == "work" and self.tool != NO_TOOL and not self.cell.routines_using_at(self.tool, target):
            needed = self.tool_needed_next_at(step.index, target)
            if needed and needed != self.tool:
                self.swap_detour(step.index, needed, f"'{self.tool}' has no routine at '{target}'")
            else:
                self.release_detour(step.index, f"'{self.tool}' has no routine at '{target}'")
        self.go(step.index, target, final=True)
        self.keep(step, target)

    def routine(self, step: Step) -> None:
        name = step.routine or ""
        routine = self.cell.routines.get(name)
        position = step.position or self.here
        if routine is None or position not in self.cell.positions:
            self.unresolved.append(f"Step {step.index}: " + (f"routine '{name}' does not exist in graph" if routine is None
                                                               else f"position '{position}' does not exist in graph"))
            self.keep(step, position)
            return
        if self.cell.support(name, position) is None:
            self.unresolved.append(f"Step {step.index}: routine '{name}' is not supported at '{position}'")
        if routine.kind == TOOL_RELEASE:
            self.release_step(step, position)
            return
        if routine.kind == TOOL_ATTACH and self.tool != NO_TOOL:
            self.release_detour(step.index, "before attaching another tool")
        if routine.required_tool and routine.required_tool != self.tool:
            self.swap_detour(step.index, routine.required_tool, f"'{name}' needs '{routine.required_tool}'")
        self.go(step.index, position)
        self.out.append(dict(step.fields))
        if routine.kind == TOOL_ATTACH:
            stand_tool = self.cell.tool_at(position)
            if step.tool and stand_tool and step.tool != stand_tool:
                self.unresolved.append(f"Step {step.index}: attaches '{step.tool}' at the stand of '{stand_tool}'")
            self.tool = step.tool or stand_tool or self.tool

    def release_step(self, step: Step, position: str) -> None:
        if self.tool == NO_TOOL:
            self.changes.append(f"Step {step.index}: dropped tool_release (the wrist is empty)")
            return
        stand = self.cell.stand_of(self.tool)
        if stand is not None and stand != position:
            self.changes.append(f"Step {step.index}: release '{self.tool}' at its own stand {stand}, not at {position}")
            self.go(step.index, stand)
            self.out.append({**dict(step.fields), "position": stand})
        else:
            self.go(step.index, position)
            self.out.append(dict(step.fields))
        self.tool = NO_TOOL

    def keep(self, step: Step, position: str | None) -> None:
        self.out.append(dict(step.fields))
        self.here = position

    # ------------------------------------------------------------------ detours
    def release_detour(self, index: int, why: str) -> None:
        stand = self.cell.stand_of(self.tool)
        if stand is None:
            self.unresolved.append(f"Step {index}: '{self.tool}' has no stand to be released at")
            return
        self.changes.append(f"Step {index}: release '{self.tool}' at {stand} first ({why})")
        self.go(index, stand)
        self.tool_change(TOOL_RELEASE, stand, self.tool)
        self.tool = NO_TOOL

    def swap_detour(self, index: int, needed: str, why: str) -> None:
        """Release the held tool (if any) and attach `needed`; the caller then moves on to where it was going."""
        if self.tool != NO_TOOL:
            self.release_detour(index, why)
        stand = self.cell.stand_of(needed)
        if stand is None:
            self.unresolved.append(f"Step {index}: '{needed}' has no stand to be attached from")
            return
        self.changes.append(f"Step {index}: attach '{needed}' at {stand} ({why})")
        self.go(index, stand)
        self.tool_change(TOOL_ATTACH, stand, needed)
        self.tool = needed

    def tool_change(self, kind: str, stand: str, tool: str) -> None:
        routine = next((r for r in sorted(self.cell.routines) if self.cell.routines[r].kind == kind and self.cell.support(r, stand)), kind)
        support = self.cell.support(routine, stand)
        verb = "Attach" if kind == TOOL_ATTACH else "Release"
        self.out.append({"id": None, "name": f"{verb} {tool}", "action": "routine", "target": routine, "position": stand, "tool": tool,
                         **(support.metadata() if support else {})})

    def go(self, index: int, target: str, *, final: bool = False) -> None:
        """Insert the moves that lead from here to `target`; `final`: the plan's own next step is the move to `target`."""
        if self.here == target:
            return
        path = self.legal_path(self.here, target) if self.here in self.cell.positions else None
        if path is None:
            self.unresolved.append(f"Step {index}: no legal path from '{self.here}' to '{target}'")
            self.here = target
            return
        inserted = path[1:-1] if final else path[1:]
        if inserted:
            self.changes.append(f"Step {index}: insert {path_text(path)}")
        for position in inserted:
            self.out.append({"id": None, "name": f"Move to {position}", "action": "move", "target": position})
        self.here = target

    def legal_path(self, src: str, dst: str) -> list[str] | None:
        """Shortest path along allowed moves that the held tool may take (no foreign stands, no work
        positions without a routine for it), deterministic by name order."""
        previous: dict[str, str] = {src: src}
        queue = deque([src])
        while queue:
            node = queue.popleft()
            if node == dst:
                path = [dst]
                while path[-1] != src:
                    path.append(previous[path[-1]])
                return path[::-1]
            for nxt in self.cell.neighbours(node):
                if nxt not in previous and (nxt == dst or self.passable(nxt)):
                    previous[nxt] = node
                    queue.append(nxt)
        return None

    def passable(self, position: str) -> bool:
        stand_tool = self.cell.tool_at(position)
        if stand_tool is not None and self.tool not in (NO_TOOL, stand_tool):
            return False
        if self.cell.positions[position].role == "work" and self.tool != NO_TOOL:
            return bool(self.cell.routines_using_at(self.tool, position))
        return True

    def tool_needed_next_at(self, index: int, position: str) -> str | None:
        """The tool of the next routine the plan runs at `position` after step `index`, if it needs one."""
        for step in self.plan.steps[index:]:
            if step.action == "move" and step.target_name != position:
                return None
            if step.action == "routine" and (step.position or position) == position:
                routine = self.cell.routines.get(step.routine or "")
                return routine.required_tool if routine is not None else None
        return None
