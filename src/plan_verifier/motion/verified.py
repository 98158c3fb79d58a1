"""What the execution level verified, per plan step: the joint targets and timing an executor runs.

An approved plan's motion step carries the joint target the verifier chose
for it (the IK solution nearest to where the arm was, contract §7) and the
duration of its motion (`motion.timing`), so that an executor runs exactly
the configurations that were checked instead of solving the inverse
kinematics again (a controller could pick another branch). A Cartesian
motion (linear, circular, a blend's legs) also carries intermediate
configurations at times along its path (`via`), no joint more than
`VIA_STEP_DEG` apart: a joint-trajectory controller interpolates in joint
space between points, so without them it would not follow the verified line.

The values are rounded (`robot_sequence.JOINTS_DECIMALS`, `SECONDS_DECIMALS`):
they go into the approved YAML (a step's `robot_sequence.VerifiedMotion`) and its sha256. `JOINT_TOLERANCE_DEG` is how far a target
may differ, on re-verification, from what the simulation computes now before
the file is refused (a numerical IK solver converges to within far less).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from plan_verifier.motion.facts import Execution, SimulatedMotion
from plan_verifier.motion.program import JOINT_PATH
from plan_verifier.robot_sequence import FROM_JOINT_STATES, JOINTS_DECIMALS, SECONDS_DECIMALS, VerifiedMotion, ViaPoint, yaml_number

#: The largest joint change between two consecutive points of a Cartesian motion's `via` (degrees):
#: a joint-space chord that short stays within about 1 mm of the verified path on a 1 m arm.
VIA_STEP_DEG = 5.0
JOINT_TOLERANCE_DEG = 0.05
#: The approved YAML's `start_joints_source` for each of the simulation's start sources.
START_SOURCES = {"request": "request", "joint_states": FROM_JOINT_STATES, "home_joints_deg": "home"}


def step_motions(execution: Execution | None) -> dict[int, VerifiedMotion]:
    """The verified motion of every simulated step (by 1-based step index); empty when nothing was simulated.

    A step whose motion broke off (a path that could not be followed to its end) gets none: it was not
    verified, and an approved plan has none."""
    if execution is None or execution.unavailable is not None:
        return {}
    by_step: dict[int, list[SimulatedMotion]] = {}
    for motion in execution.motions:
        by_step.setdefault(motion.motion.step, []).append(motion)
    out: dict[int, VerifiedMotion] = {}
    for step, motions in by_step.items():
        if not all(m.complete for m in motions):
            continue
        via: list[tuple[float, tuple[float, ...]]] = []
        elapsed = 0.0
        for k, motion in enumerate(motions):
            if motion.motion.path != JOINT_PATH:
                via.extend((elapsed + t, q) for t, q in _intermediate(motion))
            elapsed += motion.duration_s
            if k < len(motions) - 1:
                via.append((elapsed, motion.end_deg))
        out[step] = VerifiedMotion(_joints(motions[-1].end_deg), _seconds(elapsed), motions[0].motion.path,
                                   tuple(ViaPoint(_seconds(t), _joints(q)) for t, q in via))
    return out


def start_source(source: str) -> str:
    """The approved YAML's name for where the simulation started (`position 'X'` -> start_position)."""
    return START_SOURCES.get(source, "start_position" if source.startswith("position") else source)


def _intermediate(motion: SimulatedMotion) -> list[tuple[float, tuple[float, ...]]]:
    """Configurations at evenly spaced times inside a Cartesian motion, no joint more than VIA_STEP_DEG apart."""
    q, t = motion.q_deg, motion.t_s
    if len(t) < 2 or t[-1] <= 0.0:
        return []
    travel = float(np.max(np.sum(np.abs(np.diff(q, axis=0)), axis=0)))  # the joint that moves furthest, along the path
    pieces = max(1, math.ceil(travel / VIA_STEP_DEG))
    times = np.linspace(0.0, float(t[-1]), pieces + 1)[1:-1]
    joints = np.column_stack([np.interp(times, t, q[:, j]) for j in range(q.shape[1])])
    return list(zip(times.tolist(), map(tuple, joints.tolist())))


def _joints(values: Any) -> tuple[float, ...]:
    rounded = (np.round(np.asarray(values, dtype=float), JOINTS_DECIMALS) + 0.0).tolist()  # + 0.0: no -0.0
    return tuple(yaml_number(v) for v in rounded)


def _seconds(value: float) -> float:
    return yaml_number(round(value, SECONDS_DECIMALS) + 0.0)  # + 0.0: no -0.0
