"""How long a verified motion takes: the cycle-time estimate that goes into the approved actions.

A controller runs each motion with a trapezoidal speed profile: accelerate at
`a` to the commanded speed `v`, cruise, decelerate. Over a distance `d` that
takes d/v + v/a when the cruise is reached (d >= v²/a), else 2·sqrt(d/a).
Linear and circular moves: `velocity` in mm/s and `acceleration` in mm/s² of
the TCP, the tool turning at most at the robot's `limits.tool_rotation_deg_s`
(a short move with a large turn takes longer, as controllers pace the
orientation); the same profile along the path (`path_times`) is what the
joints must follow, so the joint-speed check judges the speed a motion
actually reaches; the estimate for the approved actions is never faster than the joints allow (each stretch between two
samples takes at least its largest joint travel over that joint's
`max_speed_deg_s`). Joint moves: `velocity`/`acceleration` are joint speeds in
deg/s and deg/s² (TDL's MoveJoint, as Doosan's movej), capped by each joint's
limit, all joints arriving together. What a step does not say takes the
defaults below.
"""

from __future__ import annotations

import math

import numpy as np

#: Defaults for a motion that does not say.
CARTESIAN_SPEED_MM_S = 250.0
CARTESIAN_ACCELERATION_MM_S2 = 500.0
JOINT_SPEED_DEG_S = 60.0
JOINT_ACCELERATION_DEG_S2 = 120.0


def trapezoid(distance: float, speed: float, acceleration: float) -> float:
    """Seconds to cover `distance` from rest to rest."""
    if distance <= 0.0:
        return 0.0
    if distance >= speed * speed / acceleration:
        return distance / speed + speed / acceleration
    return 2.0 * math.sqrt(distance / acceleration)


def joint_move_s(q0: np.ndarray, q1: np.ndarray, max_speed: np.ndarray, velocity: float | None, acceleration: float | None) -> float:
    """A joint-interpolated move (radians in, joint limits in rad/s)."""
    speed = np.minimum(math.radians(velocity or JOINT_SPEED_DEG_S), max_speed)
    accel = math.radians(acceleration or JOINT_ACCELERATION_DEG_S2)
    travel = np.abs(q1 - q0)
    return float(max((trapezoid(float(d), float(v), accel) for d, v in zip(travel, speed)), default=0.0))


def cruise_s(length_mm: float, turn_rad: float, velocity: float | None, rotation_deg_s: float) -> float:
    """Seconds a Cartesian path takes at cruise speed: the TCP at `velocity`, the tool turning at most at `rotation_deg_s`."""
    return max(length_mm / (velocity or CARTESIAN_SPEED_MM_S), turn_rad / math.radians(rotation_deg_s))


def path_times(s: np.ndarray, length_mm: float, turn_rad: float, velocity: float | None, acceleration: float | None,
               rotation_deg_s: float) -> np.ndarray:
    """Time (s) at each path fraction `s` (N,) of a rest-to-rest trapezoidal profile along the path.

    The path runs at `1 / cruise_s` of its length per second once it has accelerated, which takes
    `velocity / acceleration` seconds; a short move never reaches its commanded speed (peak
    sqrt(acceleration · length)), so its joints turn slower than the commanded speed suggests.
    """
    cruise = cruise_s(length_mm, turn_rad, velocity, rotation_deg_s)
    s = np.clip(np.asarray(s, float), 0.0, 1.0)
    if cruise <= 0.0:
        return np.zeros(len(s))
    top = 1.0 / cruise  # path fractions per second at cruise
    accel = top * (acceleration or CARTESIAN_ACCELERATION_MM_S2) / (velocity or CARTESIAN_SPEED_MM_S)
    peak = min(top, math.sqrt(accel))
    ramp = peak * peak / (2.0 * accel)  # path fraction spent accelerating (and as much decelerating)
    total = 2.0 * peak / accel + (1.0 - 2.0 * ramp) / peak
    rising = np.sqrt(2.0 * np.minimum(s, ramp) / accel)
    cruising = np.clip(s - ramp, 0.0, 1.0 - 2.0 * ramp) / peak
    falling = peak / accel - np.sqrt(2.0 * np.minimum(1.0 - s, ramp) / accel)
    return np.minimum(rising + cruising + np.where(s > 1.0 - ramp, falling, 0.0), total)


def cartesian_times(s: np.ndarray, q: np.ndarray, length_mm: float, turn_rad: float, max_speed: np.ndarray,
                    velocity: float | None, acceleration: float | None, rotation_deg_s: float) -> np.ndarray:
    """Time (s) at each sample of a Cartesian path (N,): the trapezoidal profile along the path, each stretch
    slowed to what its joints allow."""
    if len(s) < 2:
        return np.zeros(len(s))
    along = np.diff(path_times(s, length_mm, turn_rad, velocity, acceleration, rotation_deg_s))
    joints = np.max(np.abs(np.diff(q, axis=0)) / max_speed, axis=1)
    return np.concatenate([[0.0], np.cumsum(np.maximum(along, joints))])
