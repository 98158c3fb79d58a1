"""The plan as the robot would move: the motions the execution level simulates.

The IR says which commands move the robot and to what. This module turns that
into neutral motion requests in execution order — the path kind a controller
runs (joint interpolation, straight TCP line, arc), the target as joint angles
or as a TCP pose, the tool on the flange, the commanded speed and blend radius
— plus the steps whose motion cannot be known before run time. TDL programs
and JSON plans lower into the same requests, so the simulation and the
R-KIN/R-COL rules are written once.

JSON plans: a `move` is a joint move to the cell position (its `joints` when the
cell gives them, else its pose, read as the TCP pose of the tool held at that
moment); the tool held is the graph simulation's (`tool_attach`/`tool_release`
change it). A `tool_mount` position is the docking pose of the tool on its
stand: its pose is that tool's TCP, whether the robot arrives empty to attach
it or holding it to put it back, so the flange docks at the same place both
ways. Cell poses use fixed-axis roll-pitch-yaw like the cell's collision
objects (a cell is drawn once for any arm); program poses use the robot's
orientation convention. TDL: `MoveJoint`/`AMoveJoint` interpolate in joint space, `MoveLinear`
moves the TCP on a line, `MoveCircular` on an arc through its via pose, and
`MoveBlend` is a chain of linear moves through its poses; the `tool` argument
selects the robot spec's tool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Sequence

from plan_verifier import catalogue
from plan_verifier.findings import Span
from plan_verifier.graph.model import NO_TOOL, Cell
from plan_verifier.graph.simulate import Simulation
from plan_verifier.ir import JOINT, NO_COORDINATES, Plan, Pose, Step, unresolved_in

JOINT_PATH = "joint"
LINEAR_PATH = "linear"
CIRCULAR_PATH = "circular"
#: Beyond these the simulation does not follow a target (100 m; two turns of a joint, beyond every joint limit
#: of the shipped robots): such a motion is not simulated (it would be sampled into tens of thousands of points
#: for nothing: the safety rules reject it for reach or joint limits) and R-KIN-000 rejects the plan.
PHYSICAL_MM = 1e5
PHYSICAL_DEG = 720.0
#: Slower than this (mm/s, deg/s; mm/s², deg/s²) a motion cannot be timed (it would take 1e9 s and more).
MIN_RATE = 1e-3
#: Commands after which the motions may run in another order than the text's, decided as the program runs: a
#: branch, a loop, a jump, another program or thread. The simulation follows the text order only, so the way
#: from the last motion before one of them to the next motion after it is not known.
RUN_TIME_ORDER = frozenset({"If", "Else", "While", "EndWhile", "For", "Next", "Break", "Continue", "GoTo", "IfGoTo", "Call",
                            "ThreadRun"})
_ORDER_REASON = ("the motions after {} run in an order decided at run time (a branch, a loop, a jump, another program or "
                 "thread)")


@dataclass(frozen=True, slots=True)
class Waypoint:
    """Where a motion goes: joint angles (deg) or a TCP pose (mm, deg), as the plan wrote it."""

    label: str
    joints_deg: tuple[float, ...] | None = None
    pose: tuple[float, ...] | None = None
    span: Span | None = None
    #: Other readings of an ambiguous pose expression (`p * Trans(...)`): checked at the target only.
    alternatives: tuple[tuple[float, ...], ...] = ()
    #: How the orientation triple is read: None = the robot's convention, "rpy" for a cell pose.
    convention: str | None = None
    #: The cell position whose taught joints these are (`motion.taught` decides whether this robot uses them).
    position: str | None = None


@dataclass(frozen=True, slots=True)
class ToolRef:
    """The tool on the flange: a robot-spec tool number (TDL), a cell tool by name (JSON), or none."""

    number: int | None = None
    name: str | None = None
    #: The plan's tool argument could not be read as a tool number (an expression, a variable).
    unreadable: str | None = None

    @property
    def label(self) -> str:
        if self.number is not None:
            return f"tool {self.number}"
        if self.name is not None:
            return f"tool '{self.name}'"
        return "the flange"


@dataclass(frozen=True, slots=True)
class Motion:
    step: int
    span: Span | None
    command: str
    path: str  # joint | linear | circular
    #: joint/linear: the target; circular: the via pose, then the target.
    waypoints: tuple[Waypoint, ...]
    tool: ToolRef
    velocity: float | None = None
    acceleration: float | None = None
    blend_mm: float = 0.0
    #: The tool whose TCP the target pose is given for, when not the tool on the flange (a tool stand's
    #: docking pose is its tool's TCP).
    pose_tool: ToolRef | None = None

    @property
    def target(self) -> Waypoint:
        return self.waypoints[-1]


@dataclass(frozen=True, slots=True)
class Unknown:
    """A motion the simulation cannot follow: its target is not known before run time (or is beyond any arm)."""

    step: int
    span: Span | None
    command: str
    reason: str
    param: str = "target_pose"  # the parameter that could not be followed
    expression: str = ""  # ... as written: a name, an expression, the numbers


Item = Motion | Unknown


@dataclass(frozen=True, slots=True)
class MotionProgram:
    items: tuple[Item, ...]

    @property
    def motions(self) -> tuple[Motion, ...]:
        return tuple(i for i in self.items if isinstance(i, Motion))


def motion_program(plan: Plan, cell: Cell | None, trace: Simulation | None) -> MotionProgram:
    """The plan's motions in execution order (TDL commands, or JSON steps with the graph simulation's
    `trace` saying which tool is held)."""
    if plan.format == "json":
        return MotionProgram(tuple(_json_items(plan, cell, trace)))
    items: list[Item] = []
    tool = ToolRef(number=0)  # a motion without a tool argument (MoveBlend) keeps the last one, at first tool 0
    moving = [step.index for step in plan.steps if (spec := catalogue.lookup(step.command)) is not None and spec.motion is not None]
    for step in plan.steps:
        if step.command in RUN_TIME_ORDER and moving and step.index < moving[-1]:
            items.append(Unknown(step.index, step.span, step.command, _ORDER_REASON.format(step.command), "order", step.command))
            continue
        for item in _tdl_items(step, tool, cell):
            items.append(item)
            if isinstance(item, Motion):
                tool = item.tool
    return MotionProgram(tuple(items))


# --------------------------------------------------------------------------- TDL


def _tdl_items(step: Step, last_tool: ToolRef, cell: Cell | None) -> Iterator[Item]:
    spec = catalogue.lookup(step.command)
    if spec is None or spec.kind != "motion" or spec.motion is None:
        return
    velocity, acceleration = _rate(step, "velocity"), _rate(step, "acceleration")
    blend = step.number("blending_radius") or 0.0
    tool = _tool_number(step) if spec.param("tool") is not None else last_tool
    if spec.motion == "blend":
        values = step.params.get("pose_list")
        poses = [p for name, p in step.poses if name == "pose_list"]
        if not isinstance(values, list) or len(poses) != len(values) or not poses:
            expression = _expression(step, "pose_list")
            yield Unknown(step.index, step.span, step.command, f"its pose_list '{expression}' could not be evaluated", "pose_list",
                          expression)
            return
        beyond = next((p for p in poses if not _physical(p.kind, p.values)), None)
        if beyond is not None:
            yield Unknown(step.index, step.span, step.command, _beyond(beyond.kind, beyond.values, "pose_list"), "pose_list", beyond.label)
            return
        unplaced = next((p for p in poses if _unplaced(p, cell)), None)
        if unplaced is not None:
            yield Unknown(step.index, step.span, step.command, _unplaced(unplaced, cell, "pose_list"), "pose_list", unplaced.label)
            return
        for pose in poses:
            yield Motion(step.index, pose.span or step.span, step.command, LINEAR_PATH, (_waypoint(pose, cell),), tool,
                         velocity, acceleration, max(blend, 0.0))
        return
    names = ("via_pose", "target_pose") if spec.motion == "circular" else ("target_pose",)
    found = dict(step.poses)
    if any(name not in found for name in names):
        missing = next(name for name in names if name not in found)
        expression = _expression(step, missing)
        unresolved = unresolved_in(step.params.get(missing))
        if unresolved is not None and unresolved.causes and all(c.kind == NO_COORDINATES for c in unresolved.causes):
            reason = f"its {missing} '{expression}' is a cell position with no coordinates (no pose with orientation, no joints)"
        else:
            reason = f"its {missing} '{expression}' could not be evaluated"
        yield Unknown(step.index, step.span, step.command, reason, missing, expression)
        return
    for name in names:
        if not _physical(found[name].kind, found[name].values):
            yield Unknown(step.index, step.span, step.command, _beyond(found[name].kind, found[name].values, name), name,
                          found[name].label)
            return
        if _unplaced(found[name], cell):
            yield Unknown(step.index, step.span, step.command, _unplaced(found[name], cell, name), name, found[name].label)
            return
    path = {"joint": JOINT_PATH, "linear": LINEAR_PATH, "circular": CIRCULAR_PATH}[spec.motion]
    yield Motion(step.index, step.span, step.command, path, tuple(_waypoint(found[n], cell) for n in names), tool,
                 velocity, acceleration, max(blend, 0.0))


def _rate(step: Step, param: str) -> float | None:
    """A commanded speed or acceleration, None (the default) when there is none a motion can be timed with:
    absent, zero, negative or vanishingly small (R-SAF-002/003 reject the plan for it; the simulation
    still runs, at the default, instead of dividing by it)."""
    value = step.number(param)
    return value if value is not None and value >= MIN_RATE else None


def _expression(step: Step, param: str) -> str:
    """The parameter as written (what a finding quotes)."""
    value = step.params.get(param)
    if value is None:
        return "(missing)"
    if type(value) is list:
        return "[" + ", ".join(str(getattr(v, "text", None) or getattr(v, "label", v)) for v in value) + "]"
    return str(getattr(value, "text", value))


def _physical(kind: str, values: Sequence[float]) -> bool:
    """Every value finite, joint angles and positions within what an arm can turn (degrees) or reach (mm);
    a Cartesian orientation may be any finite angle (it is the same orientation modulo 360 degrees)."""
    if not all(math.isfinite(v) for v in values):
        return False
    if kind == JOINT:
        return all(abs(v) <= PHYSICAL_DEG for v in values)
    return all(abs(v) <= PHYSICAL_MM for v in values[:3])


def _beyond(kind: str, values: Sequence[float], param: str) -> str:
    bound = f"±{PHYSICAL_DEG:g} degrees" if kind == JOINT else f"{PHYSICAL_MM:g} mm"
    return f"its {param} has a value beyond what the simulation follows ({', '.join(f'{v:g}' for v in values)}: beyond {bound})"


def _tool_number(step: Step) -> ToolRef:
    if "tool" not in step.params:
        return ToolRef(number=0)
    value = step.params["tool"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
        return ToolRef(unreadable=str(getattr(value, "text", value)))
    return ToolRef(number=int(value))


def _unplaced(pose: Pose, cell: Cell | None, param: str = "target_pose") -> str | None:
    """Why a cell position named as a TDL target cannot be simulated (x, y, z without an orientation), else None.

    The reach and floor checks use its x, y, z; the simulation would have to invent where the tool points."""
    position = _position(pose, cell)
    if position is None or (position.pose is not None and len(position.pose) == 6) or position.joints is not None:
        return None
    return (f"its {param} '{pose.name}' is a cell position with no coordinates the simulation can use (x, y, z without "
            f"an orientation, no joints)")


def _position(pose: Pose, cell: Cell | None):
    """The cell position a graph pose names (None: not a graph pose)."""
    return cell.positions.get(pose.name) if cell is not None and pose.origin == "graph" and pose.name else None


def _waypoint(pose: Pose, cell: Cell | None = None) -> Waypoint:
    position = _position(pose, cell)
    if position is not None and position.joints is not None and (position.pose is None or len(position.pose) < 6):
        return Waypoint(pose.label, joints_deg=tuple(float(j) for j in position.joints), span=pose.span, position=position.name)
    values = tuple(float(v) for v in pose.values)
    if pose.kind == JOINT:
        return Waypoint(pose.label, joints_deg=values, span=pose.span)
    return Waypoint(pose.label, pose=values, span=pose.span, alternatives=pose.alternatives,
                    convention="rpy" if pose.origin == "graph" else None)


# --------------------------------------------------------------------------- JSON


def _json_items(plan: Plan, cell: Cell | None, trace: Simulation | None) -> Iterator[Item]:
    held = {t.step: t.before.tool for t in trace.steps} if trace is not None else {}
    for step in plan.steps:
        if step.action != "move":
            continue
        name = step.target_name or ""
        position = cell.positions.get(name) if cell is not None else None
        tool = held.get(step.index, NO_TOOL)
        ref = ToolRef(name=tool if tool != NO_TOOL else None)
        velocity, acceleration = _rate(step, "velocity"), _rate(step, "acceleration")
        if position is None:
            continue  # not a position of the cell (or no cell at all): the graph rules say so
        if position.joints is not None:
            waypoint = Waypoint(name, joints_deg=tuple(float(j) for j in position.joints), span=step.span, position=name)
        elif position.pose is not None and len(position.pose) == 6:
            waypoint = Waypoint(name, pose=tuple(float(v) for v in position.pose), span=step.span, convention="rpy")
        else:
            yield Unknown(step.index, step.span, "move", f"position '{name}' has no coordinates in the cell (no pose with orientation, no joints)",
                          "target", name)
            continue
        kind, values = (JOINT, waypoint.joints_deg) if waypoint.joints_deg is not None else ("cartesian", waypoint.pose)
        if not _physical(kind, values):
            yield Unknown(step.index, step.span, "move", _beyond(kind, values, "target"), "target", name)
            continue
        docked = cell.tool_at(name) if cell is not None and position.role == "tool_mount" else None
        pose_tool = ToolRef(name=docked) if docked is not None and docked != ref.name else None
        yield Motion(step.index, step.span, "move", JOINT_PATH, (waypoint,), ref, velocity, acceleration, pose_tool=pose_tool)
