"""An approved plan as a simulated executor runs it: steps with durations and the state after each.

The input is what the node publishes on ~/approved_actions: the approved YAML
(read as a `robot_sequence.RobotSequence`) and the sha256 of its steps. A job is only built when the steps still hash
to that sha256 (and, given a robot, when the approval names that robot); a
robot never runs steps the verifier did not approve.

Durations: a move takes distance / velocity where both ends are known (cell
poses for JSON plans' named positions, PosX targets, PosJ targets through the
robot's forward kinematics, or the largest joint travel for a joint move
between two PosJ targets), with the step's own velocity when it has one; a
routine takes its `stabilize` time (the step's, else the cell's
:SUPPORTED_AT metadata); `Delay` its duration. What cannot be derived gets
the `Timing` default, and each segment says how its duration was found.

Steps approved with the execution level carry a `verified` block (the joint
target the verifier chose, the motion's duration, the configurations on the
way; `motion.verified`): its duration is the step's, and its points are the
step's joint trajectory (`Segment.points`), which `executor.kinematic`
follows and checks. The estimates above are only for files without it.

State: seed 003's simulation rules. A move to a cell position puts the robot
there; a TDL motion to a pose that is not a cell position keeps the last cell
position (an approach offset near it); tool_attach takes the step's tool (or
the tool on the stand where it runs), tool_release leaves the wrist empty,
`ToolChange(id)` holds `id`.

A step that carries an `{expression: ...}` argument and no `verified` block
(an approval by a verifier that let an unevaluated value through) is never
run: JobRejected. The verifier no longer approves such steps (R-CON-008).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from plan_verifier.actions import check_sequence
from plan_verifier.graph.model import NO_TOOL, TOOL_ATTACH, TOOL_RELEASE, Cell
from plan_verifier.kinematics.chain import flange_position
from plan_verifier.robot_sequence import ActionStep, FormatError, RobotSequence
from plan_verifier.robots.spec import RobotSpec

_JOINT_MOVES = frozenset({"MoveJoint", "AMoveJoint"})
_POSE_ARGS = ("target_pose", "pose_list")


class JobRejected(Exception):
    """The approval is not executed; the message says why."""


@dataclass(frozen=True)
class Timing:
    """Defaults for what a step does not say."""

    velocity_mm_s: float = 250.0  # Cartesian moves without a velocity
    joint_velocity_deg_s: float = 60.0  # joint moves without a velocity
    move_s: float = 2.0  # moves whose distance is unknown
    stabilize_s: float = 0.0  # routines without a stabilize time
    command_s: float = 0.0  # other commands (I/O, settings)


@dataclass(frozen=True)
class RobotPose:
    """Where the simulated robot is: a cell position name, the tool it holds, and its last known coordinates."""

    position: str
    tool: str = NO_TOOL
    point: tuple[float, float, float] | None = None  # flange/TCP position, mm
    joints: tuple[float, ...] | None = None  # degrees, after a PosJ target


@dataclass(frozen=True)
class Segment:
    step: int  # 1-based, in execution order
    name: str
    duration_s: float
    after: RobotPose
    how: str
    #: The verified joint trajectory: (seconds from the step's start, joints in degrees), ending at the target; () = holds still.
    points: tuple[tuple[float, tuple[float, ...]], ...] = ()
    #: The tool on the flange during the step: a robot-spec tool number (TDL), a cell tool name (JSON), None = the flange.
    tool: int | str | None = None


@dataclass(frozen=True)
class Job:
    correlation_id: str
    sha256: str
    robot: str
    name: str
    segments: tuple[Segment, ...]
    #: The joints (degrees) the verification started from (`verification.start_joints_deg`), when it recorded them.
    verified_start_deg: tuple[float, ...] | None = None

    @property
    def duration_s(self) -> float:
        return sum(s.duration_s for s in self.segments)


def start_pose(cell: Cell | None, position: str | None = None, tool: str | None = None) -> RobotPose:
    """The given state, else the cell's initial state, else Home with an empty wrist; coordinates from the cell."""
    where = position or (cell.initial_position if cell is not None else None) or "Home"
    held = tool or (cell.initial_tool if cell is not None else None) or NO_TOOL
    return RobotPose(where, held, _cell_point(cell, where))


def prepare_job(actions_yaml: str, *, sha256: str, correlation_id: str, start: RobotPose, cell: Cell | None = None,
                robot: RobotSpec | None = None, timing: Timing = Timing()) -> Job:
    """The timed steps of an approval; JobRejected when its steps are not the approved ones or it is for another robot."""
    sequence = check_approval(actions_yaml, sha256=sha256, robot=robot)
    walker = _Walker(cell, robot, timing, start)
    segments = tuple(walker.step(i, step) for i, step in enumerate(sequence.steps, 1))
    verification = sequence.verification
    return Job(correlation_id, sha256, (verification.robot if verification is not None else None) or "", sequence.name or "", segments,
               verification.start_joints_deg if verification is not None else None)


def check_approval(actions_yaml: str, *, sha256: str, robot: RobotSpec | None = None) -> RobotSequence:
    """The approved RobotSequence, once its steps hash to `sha256` and it names this robot; else JobRejected."""
    try:
        sequence = RobotSequence.read(actions_yaml, source="the approved YAML")
    except FormatError as exc:
        raise JobRejected(str(exc)) from None
    check = check_sequence(sequence)
    if not check:
        raise JobRejected(check.reason)
    if check.expected != sha256:
        raise JobRejected(f"the message's sha256 {sha256[:12]}… is not the one in the approved YAML ({str(check.expected)[:12]}…)")
    approved_for = (sequence.verification.robot if sequence.verification is not None else None) or ""
    if robot is not None and approved_for and approved_for != robot.name:
        raise JobRejected(f"approved for robot {approved_for}, this executor runs {robot.name}")
    return sequence


class _Walker:
    def __init__(self, cell: Cell | None, robot: RobotSpec | None, timing: Timing, start: RobotPose) -> None:
        self.cell, self.robot, self.timing, self.state = cell, robot, timing, start

    def step(self, index: int, action: ActionStep) -> Segment:
        step = action.fields
        if action.command is not None:
            name, duration, how = self._command(action)
        elif step.get("action") == "move":
            name, duration, how = self._move(step)
        elif step.get("action") == "routine":
            name, duration, how = self._routine(step)
        else:
            name, duration, how = str(step.get("name") or step.get("action") or f"step {index}"), self.timing.command_s, "default command time"
        if not action.has_verified:
            return Segment(index, name, duration, self.state, how)
        duration, points = _verified(action)
        self.state = replace(self.state, joints=points[-1][1])
        return Segment(index, name, duration, self.state, "verified joint trajectory", points, self._tool(action))

    def _tool(self, action: ActionStep) -> int | str | None:
        """The tool during a verified motion: the TDL step's tool number (0 without one), else the cell tool held."""
        if action.command is not None:
            tool = action.args.get("tool", 0)
            return int(tool) if isinstance(tool, (int, float)) and not isinstance(tool, bool) and float(tool).is_integer() else None
        return self.state.tool if self.state.tool != NO_TOOL else None

    # ------------------------------------------------------------------ JSON plans (seed 003 steps)
    def _move(self, step: Mapping[str, Any]) -> tuple[str, float, str]:
        target = str(step.get("target") or "")
        point = _cell_point(self.cell, target)
        duration, how = self._travel(self.state.point, point, _number(step.get("velocity")))
        self.state = RobotPose(target, self.state.tool, point)
        return str(step.get("name") or f"Move to {target}"), duration, how

    def _routine(self, step: Mapping[str, Any]) -> tuple[str, float, str]:
        routine = str(step.get("target") or "")
        where = str(step.get("position") or self.state.position)
        stabilize, how = _number(step.get("stabilize")), "the step's stabilize time"
        support = self.cell.support(routine, where) if self.cell is not None else None
        if stabilize is None and support is not None and support.stabilize is not None:
            stabilize, how = support.stabilize, "stabilize time of the cell's :SUPPORTED_AT"
        if stabilize is None:
            stabilize, how = self.timing.stabilize_s, "default stabilize time"
        kind = self.cell.routines[routine].kind if self.cell is not None and routine in self.cell.routines else routine
        tool = self.state.tool
        if kind == TOOL_ATTACH:
            tool = str(step.get("tool") or (self.cell.tool_at(where) if self.cell is not None else None) or step.get("verify") or tool)
        elif kind == TOOL_RELEASE:
            tool = NO_TOOL
        moved = where != self.state.position
        self.state = RobotPose(where, tool, _cell_point(self.cell, where) if moved else self.state.point, None if moved else self.state.joints)
        return str(step.get("name") or routine), stabilize, how

    # ------------------------------------------------------------------ TDL commands
    def _command(self, action: ActionStep) -> tuple[str, float, str]:
        command, args, step = str(action.command), action.args, action.fields
        unevaluated = next((name for name, value in args.items() if _expression(value)), None)
        if unevaluated is not None and not action.has_verified:  # approved before issue 14: nobody checked where it goes
            raise JobRejected(f"{command} step's {unevaluated} is an expression the verifier could not evaluate "
                              f"({_expression(args[unevaluated])!r}): it was never checked, re-verify the plan with numbers")
        target = _target_pose(args)
        if target is not None:
            return command, *self._motion(command, step, args, target)
        if command == "Delay":
            seconds = _number(args.get("duration_sec"))
            return command, (seconds if seconds is not None else self.timing.command_s), "the Delay's duration"
        if command == "ToolChange" and isinstance(args.get("id"), str):
            self.state = replace(self.state, tool=args["id"])
        return command, self.timing.command_s, "default command time"

    def _motion(self, command: str, step: Mapping[str, Any], args: Mapping[str, Any], target: Mapping[str, Any]) -> tuple[float, str]:
        velocity = _number(args.get("velocity"))
        joints = _values(target.get("PosJ"))
        cartesian = _values(target.get("PosX")) or _values(target.get("PosY"))
        point = cartesian[:3] if cartesian else (flange_position(self.robot, joints) if self.robot is not None and joints else None)
        if command in _JOINT_MOVES and joints and self.state.joints:
            speed = velocity or self.timing.joint_velocity_deg_s
            travel = max(abs(a - b) for a, b in zip(joints, self.state.joints))
            duration, how = travel / speed, f"{travel:.1f}° joint travel at {speed:g}°/s"
        else:  # a joint move's velocity is in °/s: without joint angles at both ends, its Cartesian path takes the default speed
            duration, how = self._travel(self.state.point, point, None if command in _JOINT_MOVES else velocity)
        name = str(target.get("name") or step.get("target") or "")
        position = name if name and (self.cell is None or name in self.cell.positions) else self.state.position
        self.state = RobotPose(position, self.state.tool, tuple(point) if point else None, tuple(joints) if joints else None)
        return duration, how

    def _travel(self, start: Sequence[float] | None, end: Sequence[float] | None, velocity: float | None) -> tuple[float, str]:
        if start is None or end is None:
            return self.timing.move_s, "default move time (a pose is unknown)"
        speed = velocity or self.timing.velocity_mm_s
        distance = math.dist(start[:3], end[:3])
        return distance / speed, f"{distance:.1f} mm at {speed:g} mm/s"


def _verified(action: ActionStep) -> tuple[float, tuple[tuple[float, tuple[float, ...]], ...]]:
    """(duration, points) of a step's `verified` block. The sha256 check has vouched for its content, so a block that
    cannot be read is an error of the writer: JobRejected."""
    verified = action.verified
    if verified is None:
        raise JobRejected(f"unreadable verified block: {action.unreadable}")
    return verified.duration_s, (*((p.t_s, p.joints_deg) for p in verified.via), (verified.duration_s, verified.joints_deg))


def _cell_point(cell: Cell | None, name: str) -> tuple[float, float, float] | None:
    position = cell.positions.get(name) if cell is not None else None
    return tuple(position.pose[:3]) if position is not None and position.pose else None  # type: ignore[return-value]


def _target_pose(args: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The pose a motion ends at: its target_pose, or the last pose of a pose_list."""
    for name in _POSE_ARGS:
        value = args.get(name)
        if isinstance(value, list) and value:
            value = value[-1]
        if isinstance(value, Mapping) and ({"PosX", "PosY", "PosJ"} & value.keys()):
            return value
    return None


def _expression(value: Any) -> str | None:
    """The text of an `{expression: ...}` value (or one in a pose list): what a TDL export could not evaluate."""
    if isinstance(value, list):
        return next((found for item in value if (found := _expression(item))), None)
    if isinstance(value, Mapping) and set(value) == {"expression"}:
        return str(value["expression"])
    return None


def _values(raw: Any) -> tuple[float, ...] | None:
    if not isinstance(raw, list) or len(raw) < 3 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in raw):
        return None
    return tuple(float(v) for v in raw)


def _number(raw: Any) -> float | None:
    """A finite number >= 0, or None (expressions and missing values); a zero velocity then means "the default"."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw) or raw < 0:
        return None
    return float(raw)
