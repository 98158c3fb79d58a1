"""Where a pose puts the flange, reading by reading, in the robot base frame.

Reach (R-SAF-001), Z (R-SAF-004) and the base keep-out (R-SAF-010) look at
every reading of a pose (an ambiguous `p * Trans(...)` has two) and need base
coordinates for joint poses too, which only forward kinematics can give. The
motion timeline asks the same question for the primary reading. Answering it
in one place keeps those checks in agreement about where the robot goes.
"""

from __future__ import annotations

from dataclasses import dataclass

from plan_verifier.ir import CARTESIAN, JOINT, Pose, fmt_number
from plan_verifier.kinematics.chain import flange_position
from plan_verifier.robots.spec import RobotSpec


@dataclass(frozen=True, slots=True)
class Point:
    xyz: tuple[float, float, float]
    alternative: bool = False  # an alternative reading of an ambiguous pose expression
    by_kinematics: bool = False  # the flange of a joint pose, by forward kinematics


def pose_points(pose: Pose, robot: RobotSpec) -> tuple[Point, ...]:
    """Every reading of `pose` as a base-frame point; empty when none can be computed
    (a joint pose on a robot spec without kinematics, an offset)."""
    if pose.kind == CARTESIAN:
        return tuple(Point((r[0], r[1], r[2]), alternative=i > 0) for i, r in enumerate(pose.readings))
    if pose.kind == JOINT:
        flange = flange_position(robot, pose.values)
        return (Point(flange, by_kinematics=True),) if flange is not None else ()
    return ()


def flange_xyz(pose: Pose, robot: RobotSpec) -> tuple[float, float, float] | None:
    """The primary reading's point, or None."""
    points = pose_points(pose, robot)
    return points[0].xyz if points else None


def format_xyz(xyz: tuple[float, float, float]) -> str:
    """`(2000,1000,500)` as seed 000 writes coordinates; computed values to 0.1 mm."""
    return "(" + ",".join(fmt_number(_tidy(v)) for v in xyz) + ")"


def describe(point: Point, pose: Pose) -> str:
    """What a message adds when the point is not simply the written coordinates."""
    if point.by_kinematics:
        return " (flange position by forward kinematics)"
    if point.alternative and pose.note:
        return f" (alternative reading: {pose.note})"
    return ""


def _tidy(v: float) -> float:
    r = round(v, 1)
    return 0.0 if r == 0 else r
