"""The nearest reachable alternative to a target no motion change can reach: what the planner could ask for.

A repair never moves a target. When the target itself is the problem — no
inverse-kinematics solution in its orientation, every solution puts a link or the
tool into the floor or an obstacle — the repair says so, and says what is closest
that would work: the smallest turn of the tool about the TCP (same position) that
has a solution within the joint limits clear of the floor, the obstacles and the
robot itself, and the smallest shift of the position (up, or towards the base)
that has one in the written orientation. Both are searched on a fixed grid
(`TURN_STEP_DEG` over `AXES` turn axes; `SHIFT_STEP_MM`), with the checks' own
kinematics and the collision model's capsule bound (`MotionModel.quick_clearance`,
never more optimistic than the checks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from plan_verifier.ir import fmt_number
from plan_verifier.orientation import angles
from plan_verifier.repair.model import MotionModel, Mount

TURN_STEP_DEG = 10.0
MAX_TURN_DEG = 180.0
AXES = 32
SHIFT_STEP_MM = 20.0
MAX_SHIFT_MM = 400.0


@dataclass(frozen=True)
class Alternative:
    """A pose that has a clear solution, and how far it is from the written one."""

    pose: tuple[float, ...]  # x, y, z, rx, ry, rz in the plan's convention
    turn_deg: float
    shift_mm: float
    how: str

    def text(self, constructor: str = "PosX") -> str:
        values = ", ".join(fmt_number(round(v, 1)) for v in self.pose)
        return f"{constructor}({values}): {self.how}"


def nearest_alternatives(model: MotionModel, pose: np.ndarray, mount: Mount, convention: str | None) -> list[Alternative]:
    """The closest turned orientation and the closest shifted position with a clear solution (either may be missing)."""
    found = []
    turned = _closest_turn(model, pose, mount)
    if turned is not None:
        angle, rotation = turned
        target = pose.copy()
        target[:3, :3] = rotation
        found.append(Alternative(_values(target, model, convention), angle, 0.0,
                                 f"the tool turned {fmt_number(round(angle))}° about the TCP, the closest orientation with a "
                                 "collision-free solution within the joint limits"))
    shifted = _closest_shift(model, pose, mount)
    if shifted is not None:
        distance, where, target = shifted
        found.append(Alternative(_values(target, model, convention), 0.0, distance,
                                 f"{fmt_number(round(distance))} mm {where} in the same orientation, the closest such position with "
                                 "a collision-free solution within the joint limits"))
    return found


def describe(alternatives: list[Alternative], constructor: str = "PosX") -> str | None:
    if not alternatives:
        return None
    return "; or ".join(a.text(constructor) for a in alternatives)


def clear_solutions(model: MotionModel, pose: np.ndarray, mount: Mount) -> np.ndarray:
    """The target's IK solutions within the joint limits that the checks find clear (K, 6)."""
    solutions = model.solutions(pose, mount)
    if not len(solutions):
        return solutions
    variants = np.array([model.variant_near(q, q) for q in solutions])
    return variants[model.clearance(mount, variants) >= 0.0]


def _closest_turn(model: MotionModel, pose: np.ndarray, mount: Mount) -> tuple[float, np.ndarray] | None:
    axes = _fibonacci_axes(AXES)
    for step in range(1, int(MAX_TURN_DEG / TURN_STEP_DEG) + 1):
        angle = step * TURN_STEP_DEG
        rotations = pose[:3, :3] @ _rotations(axes, math.radians(angle))  # turned about the tool's own axes
        targets = np.repeat(pose[None], len(axes), axis=0)
        targets[:, :3, :3] = rotations
        best = _best_clear(model, targets, mount)
        if best is not None:
            return angle, rotations[best]
    return None


def _closest_shift(model: MotionModel, pose: np.ndarray, mount: Mount) -> tuple[float, str, np.ndarray] | None:
    position = pose[:3, 3]
    horizontal = np.array([position[0], position[1], 0.0])
    inward = -horizontal / np.linalg.norm(horizontal) if np.linalg.norm(horizontal) > 1.0 else None
    directions = [("higher", np.array([0.0, 0.0, 1.0]))] + ([("closer to the base", inward)] if inward is not None else [])
    for step in range(1, int(MAX_SHIFT_MM / SHIFT_STEP_MM) + 1):
        distance = step * SHIFT_STEP_MM
        for where, direction in directions:
            target = pose.copy()
            target[:3, 3] = position + distance * direction
            if _best_clear(model, target[None], mount) is not None:
                return distance, where, target
    return None


def _best_clear(model: MotionModel, targets: np.ndarray, mount: Mount) -> int | None:
    """The index of the target whose clear solution has the most clearance, None when none has one."""
    solutions, ok = model.arm.ik_batch(targets, mount.tcp)
    ok &= model.arm.within_limits(solutions)
    if not ok.any():
        return None
    rows, branches = np.nonzero(ok)
    clearance = model.quick_clearance(mount, solutions[rows, branches])  # a lower bound of the checks': what it finds clear is
    if not (clearance >= 0.0).any():
        return None
    return int(rows[int(np.argmax(clearance))])


def _values(target: np.ndarray, model: MotionModel, convention: str | None) -> tuple[float, ...]:
    orientation = angles(target[:3, :3], "rpy" if convention == "rpy" else model.robot.orientation_convention)
    return (*(float(v) for v in target[:3, 3]), *orientation)


def _fibonacci_axes(n: int) -> np.ndarray:
    k = np.arange(n) + 0.5
    z = 1.0 - 2.0 * k / n
    r = np.sqrt(1.0 - z * z)
    phi = math.pi * (1.0 + math.sqrt(5.0)) * k
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def _rotations(axes: np.ndarray, angle: float) -> np.ndarray:
    k = np.zeros((len(axes), 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -axes[:, 2], axes[:, 1], -axes[:, 0]
    k[:, 1, 0], k[:, 2, 0], k[:, 2, 1] = axes[:, 2], -axes[:, 1], axes[:, 0]
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)
