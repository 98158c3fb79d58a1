"""Correct JSON step plans (contract §5) on a cell graph, for generated tool jobs.

A job is "run routine R at position P with tool T". Plans are built from the
cell itself, so any cell file works: fetch the tool from its stand
(tool_attach), travel along allowed moves, run the routine, put the tool back
(tool_release), go home. Paths are breadth-first over the cell's edges and
never pass through another work position or tool stand on the way (a robot
holding a welder has no business at the camera stand), so a generated plan
is legal by construction; `check_legal` replays it against the graph before
it is used as a positive example.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, replace

from plan_verifier.graph.model import NO_TOOL, TOOL_ATTACH, TOOL_RELEASE, Cell

_GENTLE_VELOCITY = 100.0


@dataclass(frozen=True, slots=True)
class Job:
    tool: str
    routine: str
    position: str


@dataclass(frozen=True)
class CellTask:
    kind: str  # attach_tool | tool_job | two_jobs
    jobs: tuple[Job, ...] = ()
    attach_only: str | None = None  # the tool of an attach_tool task
    release: bool = True
    return_home: bool = True
    gentle: bool = False


def work_routines(cell: Cell) -> list[tuple[str, str, str]]:
    """(tool, routine, position) for every work routine the cell supports, in name order."""
    out = []
    for routine in sorted(cell.routines.values(), key=lambda r: r.name):
        if routine.kind in (TOOL_ATTACH, TOOL_RELEASE) or routine.name in (TOOL_ATTACH, TOOL_RELEASE):
            continue
        if routine.required_tool is None or routine.required_tool not in cell.tools:
            continue
        for position in sorted(routine.supported_at):
            out.append((routine.required_tool, routine.name, position))
    return out


def home_of(cell: Cell) -> str:
    homes = sorted(p.name for p in cell.positions.values() if p.role == "home")
    return cell.initial_position or (homes[0] if homes else sorted(cell.positions)[0])


def path(cell: Cell, src: str, dst: str) -> list[str]:
    """Fewest moves from src to dst whose intermediate positions are all home/safe_approach."""
    if src == dst:
        return [src]
    previous = {src: src}
    queue = deque([src])
    while queue:
        node = queue.popleft()
        for nxt in cell.neighbours(node):
            if nxt in previous:
                continue
            previous[nxt] = node
            if nxt == dst:
                route = [dst]
                while route[-1] != src:
                    route.append(previous[route[-1]])
                return route[::-1]
            if cell.positions[nxt].role in ("home", "safe_approach"):
                queue.append(nxt)
    raise ValueError(f"no path from {src} to {dst} in cell {cell.name}")


def build_steps(cell: Cell, task: CellTask, velocity: float | None = None) -> list[dict]:
    """The plan's steps; moves carry `velocity` when the task is gentle."""
    steps: list[dict] = []
    here, holding = home_of(cell), NO_TOOL
    speed = velocity if velocity is not None else (_GENTLE_VELOCITY if task.gentle else None)

    def go(target: str) -> None:
        nonlocal here
        for position in path(cell, here, target)[1:]:
            step = {"name": f"Move to {position}", "action": "move", "target": position}
            if speed is not None:
                step["velocity"] = speed
            steps.append(step)
        here = target

    def routine(name: str, position: str, tool: str, title: str) -> None:
        support = cell.routines[name].supported_at.get(position)
        step = {"name": title, "action": "routine", "target": name, "position": position, "tool": tool}
        if support is not None and support.stabilize is not None:
            step["stabilize"] = support.stabilize
        steps.append(step)

    def attach(tool: str) -> None:
        nonlocal holding
        mount = cell.tools[tool].position
        go(mount)
        routine(TOOL_ATTACH, mount, tool, f"Attach {tool}")
        holding = tool

    def release() -> None:
        nonlocal holding
        mount = cell.tools[holding].position
        go(mount)
        routine(TOOL_RELEASE, mount, holding, f"Release {holding}")
        holding = NO_TOOL

    if task.attach_only:
        attach(task.attach_only)
    for job in task.jobs:
        if holding != job.tool:
            if holding != NO_TOOL:
                release()
            attach(job.tool)
        go(job.position)
        routine(job.routine, job.position, job.tool, f"{job.routine.replace('_', ' ').capitalize()} at {job.position}")
    if task.release and holding != NO_TOOL and task.jobs:
        release()
    if task.return_home:
        go(home_of(cell))
    for n, step in enumerate(steps, start=1):
        steps[n - 1] = {"id": n, **step}
    return steps


def renumber(steps: list[dict]) -> list[dict]:
    return [{**{k: v for k, v in s.items() if k != "id"}, "id": n} if "id" in s else s for n, s in enumerate(steps, start=1)]


def dump(steps: list[dict], name: str | None, description: str | None) -> str:
    """JSON text: a bare list, or the `{name, description, steps}` object when a name is given."""
    data = steps if name is None else {"name": name, "description": description or "", "steps": steps}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def check_legal(cell: Cell, steps: list[dict]) -> None:
    """Raise if the plan breaks the cell graph (a generator bug, never a label)."""
    here, holding = home_of(cell), NO_TOOL
    for step in steps:
        if step["action"] == "move":
            assert cell.allows(here, step["target"]), (here, step)
            here = step["target"]
            continue
        name, position = step["target"], step["position"]
        assert position == here and position in cell.routines[name].supported_at, step
        if name == TOOL_ATTACH:
            assert holding == NO_TOOL and cell.tool_at(position) == step["tool"], step
            holding = step["tool"]
        elif name == TOOL_RELEASE:
            assert holding == step["tool"] == cell.tool_at(position), step
            holding = NO_TOOL
        else:
            assert cell.routines[name].required_tool == holding == step["tool"], step


def with_job(task: CellTask, index: int, **changes) -> CellTask:
    jobs = list(task.jobs)
    jobs[index] = replace(jobs[index], **changes)
    return replace(task, jobs=tuple(jobs))
