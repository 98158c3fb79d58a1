"""The kinematic side of a simulated execution: the job's joint trajectory, followed and checked.

A job (`executor.job`) whose steps carry the verifier's `verified` blocks is
a time-parameterised joint trajectory: each motion step runs from where the
arm is through its `via` points to its joint target in its verified
duration, every other step holds the arm still for its own duration.
`Follower` samples it (linear in joint space between points, as the
verifier's timing and a joint-trajectory controller's linear interpolation
do), applies an injected fault (`Fault`: a joint offset from its command,
the way a slipping or badly calibrated axis would be) to get the
configuration the arm *reached*, and checks every reached configuration:

* deviation: commanded vs. reached beyond `tolerance_deg` in any joint;
* collision: the reached configuration's links and tool (the step's tool, a
  spec tool number for TDL steps, the held cell tool for JSON plans) against
  the floor, the cell's obstacles and the robot's own links (`collision.scene`),
  signed distance below `-CONTACT_MM`.

Either ends the job as failed. Steps without `verified` blocks (files from
before they existed) have no joint targets: the arm holds still for their
estimated duration (the RUNNING status says how it was estimated), and only
the deviation is checked.

A job runs only from where it was verified (`check_start`: the arm within
`MAX_START_OFFSET_DEG` of `verification.start_joints_deg`); an executor that
has no joints of its own starts where the verifier starts without them
(`verified_start`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from plan_verifier.collision.scene import Scene
from plan_verifier.executor.job import Job, JobRejected, RobotPose, Segment
from plan_verifier.graph.model import Cell
from plan_verifier.kinematics.arm import NoKinematicsError, arm_for
from plan_verifier.kinematics.bodies import body_set
from plan_verifier.motion.start import start_for
from plan_verifier.robots.spec import RobotSpec
from plan_verifier.rules.execution import body

#: How far (largest joint, degrees) the arm may be from the joints a job was verified from (`check_start`): the
#: verifier records them to 0.001°, a driver's /joint_states at rest agree to far less than this.
MAX_START_OFFSET_DEG = 0.5

#: A penetration deeper than this (mm) is a collision; the capsules already enclose the links.
CONTACT_MM = 0.5
DEVIATION_TOLERANCE_DEG = 1.0


@dataclass(frozen=True)
class Fault:
    """An injected fault: from `after_s` into the job, joint `joint` (1-based; 0 = none) is `offset_deg` off its command."""

    joint: int = 0
    offset_deg: float = 0.0
    after_s: float = 0.0

    def apply(self, q_deg: np.ndarray, t_job_s: float) -> np.ndarray:
        if self.joint <= 0 or t_job_s < self.after_s:
            return q_deg
        reached = q_deg.copy()
        reached[self.joint - 1] += self.offset_deg
        return reached


@dataclass(frozen=True)
class Sample:
    """One instant of the execution: commanded and reached joints (degrees), and what went wrong, if anything."""

    t_s: float  # seconds into the step
    commanded_deg: tuple[float, ...]
    reached_deg: tuple[float, ...]
    failure: str | None = None


class Contacts:
    """The cell's collision scene and the robot's bodies: the contact check of one reached configuration."""

    def __init__(self, robot: RobotSpec, cell: Cell | None) -> None:
        self.robot, self.cell = robot, cell
        self.arm = arm_for(robot)  # NoKinematicsError: no contact check possible
        floor = robot.limits.z.min_mm
        self.scene = Scene.from_cell(cell, default_floor_z_mm=floor) if cell is not None else Scene(floor_z_mm=floor)

    def contact(self, q_deg: np.ndarray, tool: int | str | None) -> str | None:
        """The deepest contact of the arm at `q_deg` with `tool` mounted, worded; None when clear."""
        bodies = body_set(self.arm, self._shape(tool))
        shapes = list(bodies.scene_bodies)
        frames = np.swapaxes(bodies.poses(np.radians(np.asarray(q_deg, dtype=float))[None, :]), 0, 1)
        found = self.scene.distances(shapes, frames, list(bodies.pairs), cutoff_mm=self.scene.clearance_mm)
        world = found.world_mm[:, 0]
        own = found.self_mm[:, 0] if len(found.pairs) else np.zeros(0)
        worst_world = int(np.argmin(world)) if len(world) else None
        worst_own = int(np.argmin(own)) if len(own) else None
        if worst_world is not None and world[worst_world] < -CONTACT_MM and (worst_own is None or world[worst_world] <= own[worst_own]):
            return f"collision: {body(found.bodies[worst_world])} in {found.target(worst_world, 0)} by {-world[worst_world]:.1f} mm"
        if worst_own is not None and own[worst_own] < -CONTACT_MM:
            a, b = found.pairs[worst_own]
            return f"collision: {body(a)} with {body(b)} by {-own[worst_own]:.1f} mm"
        return None

    def _shape(self, tool: int | str | None) -> Any:
        if isinstance(tool, int) and tool in self.robot.tools:
            return self.robot.tools[tool].tool_shape
        if isinstance(tool, str) and self.cell is not None and tool in self.cell.tools:
            return self.cell.tools[tool].shape
        return None


class Follower:
    """Follows a job's joint trajectory from `start_deg`, sample by sample, with a fault and the checks."""

    def __init__(self, job: Job, start_deg: Sequence[float], contacts: Contacts | None, *, fault: Fault = Fault(),
                 tolerance_deg: float = DEVIATION_TOLERANCE_DEG) -> None:
        self.job, self.contacts, self.fault, self.tolerance_deg = job, contacts, fault, tolerance_deg
        self.position = np.asarray(start_deg, dtype=float)  # the commanded configuration at the current step's start
        self._elapsed = 0.0  # job seconds at the current step's start

    def sample(self, segment: Segment, t_s: float) -> Sample:
        """The commanded and reached joints `t_s` seconds into `segment`, checked."""
        commanded = commanded_at(segment, self.position, t_s)
        reached = self.fault.apply(commanded, self._elapsed + t_s)
        failure = None
        deviation = float(np.max(np.abs(reached - commanded))) if len(commanded) else 0.0
        if deviation > self.tolerance_deg:
            joint = int(np.argmax(np.abs(reached - commanded))) + 1
            failure = f"deviation: joint {joint} is {deviation:.2f}° from its command (tolerance {self.tolerance_deg:g}°)"
        elif self.contacts is not None and segment.points:
            failure = self.contacts.contact(reached, segment.tool)
        return Sample(t_s, _tuple(commanded), _tuple(reached), failure)

    def end(self, segment: Segment) -> None:
        """The step is done: the arm is at its target."""
        self.position = commanded_at(segment, self.position, segment.duration_s)
        self._elapsed += segment.duration_s


def commanded_at(segment: Segment, start_deg: np.ndarray, t_s: float) -> np.ndarray:
    """Joints `t_s` seconds into a step that starts at `start_deg`: linear between its points; held when it has none."""
    if not segment.points:
        return np.asarray(start_deg, dtype=float).copy()
    times = np.array([0.0, *(t for t, _ in segment.points)])
    joints = np.vstack([start_deg, *(np.asarray(q, dtype=float) for _, q in segment.points)])
    t = min(max(t_s, 0.0), float(times[-1]))
    return np.array([np.interp(t, times, joints[:, j]) for j in range(joints.shape[1])])


def sample_times(duration_s: float, period_s: float) -> list[float]:
    """Instants of a step to publish and check: every `period_s`, and its end."""
    if duration_s <= 0.0:
        return [0.0]
    count = max(1, math.ceil(duration_s / period_s - 1e-9))
    return [min(duration_s, k * period_s) for k in range(1, count + 1)]


def job_points(job: Job, start_deg: Sequence[float]) -> list[tuple[float, tuple[float, ...]]]:
    """The whole job as (seconds from its start, joints) points: what a joint-trajectory controller is sent."""
    out = [(0.0, _tuple(np.asarray(start_deg, dtype=float)))]
    elapsed, position = 0.0, np.asarray(start_deg, dtype=float)
    for segment in job.segments:
        if segment.points:
            out.extend((elapsed + t, tuple(float(v) for v in q)) for t, q in segment.points)
            position = np.asarray(segment.points[-1][1], dtype=float)
        elif segment.duration_s > 0:
            out.append((elapsed + segment.duration_s, _tuple(position)))
        elapsed += segment.duration_s
    return out


def start_offset(job: Job, joints_deg: Sequence[float]) -> float | None:
    """How far (largest joint, degrees) the arm is from where the job's verification started; None when not recorded."""
    if job.verified_start_deg is None or len(job.verified_start_deg) != len(joints_deg):
        return None
    return float(np.max(np.abs(np.asarray(job.verified_start_deg) - np.asarray(joints_deg, dtype=float))))


def verified_start(robot: RobotSpec | None, cell: Cell | None, state: RobotPose) -> tuple[float, ...] | None:
    """The joints (degrees) the verifier starts from at `state` when it is not given the robot's: the start position's
    taught joints, else its IK solution nearest to `home_joints_deg` that touches nothing (`motion.start`), else the
    spec's `home_joints_deg`. An executor that knows no joints of its own starts there, and so runs what was verified
    without them. None without a robot; the home joints for one without kinematics."""
    if robot is None:
        return None
    try:
        return tuple(float(v) for v in start_for(robot, cell, state.position, state.tool).joints_deg)
    except NoKinematicsError:
        return tuple(float(v) for v in robot.home_joints_deg)


def check_start(job: Job, joints_deg: Sequence[float] | None, max_offset_deg: float = MAX_START_OFFSET_DEG) -> None:
    """JobRejected when the arm is further than `max_offset_deg` (any joint) from the joints the job was verified from.

    The approval holds only from there: its first motion, and every IK branch after it, were
    checked from that configuration (the robot's joints, or one the verifier assumed at the start
    position: `verification.start_joints_source`). 0 (or a job or arm without joints) checks nothing."""
    offset = start_offset(job, joints_deg) if joints_deg is not None and max_offset_deg > 0 else None
    if offset is not None and offset > max_offset_deg:
        raise JobRejected(f"the arm is {offset:.2f}° from the joints the plan was verified from (max_start_offset_deg "
                          f"{max_offset_deg:g}): verify it again from the robot's joints")


def contacts_for(robot: RobotSpec | None, cell: Cell | None) -> Contacts | None:
    """The contact check for `robot`, or None when it has no kinematic model (deviation is still checked)."""
    if robot is None:
        return None
    try:
        return Contacts(robot, cell)
    except NoKinematicsError:
        return None


def _tuple(values: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in values)
