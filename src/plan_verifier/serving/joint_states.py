"""The robot's real joints from `sensor_msgs/JointState` (/joint_states), as the execution level's start.

Every ROS arm driver (and Gazebo's joint_state_broadcaster) publishes its
joints on /joint_states: names, positions in radians, often in an order of
its own (the UR driver sorts them) and sometimes with other joints mixed in
(a gripper). The start of a verification decides which IK branch every
Cartesian target is reached on, so a reading is taken only when it is
unambiguous: by name when every joint the verifier expects is in the message
(the node's `joint_state_names`, else each spec joint's `ros_name` — the
vendor description's name — else its spec name), else by position only when
the message names no joint at all and has exactly as many as the robot. Names
that match nothing are refused, not read by position: the UR driver, for one,
publishes its joints sorted by name (elbow first), and a start read in the
wrong order would put every Cartesian target on another IK branch. Degrees
out; a reading older than the node's `joint_states_max_age_s` is not used: a
stale start is worse than the start position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

BY_NAME, BY_POSITION = "names", "positional"


@dataclass(frozen=True)
class JointReading:
    """The robot's joints (degrees, in the spec's order), when they were measured (ns, the node's clock), how mapped."""

    joints_deg: tuple[float, ...]
    stamp_ns: int
    mapping: str  # names | positional


class JointStateError(ValueError):
    """A JointState message that cannot be read as this robot's joints; the message says why."""


def read_joint_state(names: Sequence[str], positions_rad: Sequence[float], expected: Sequence[str], stamp_ns: int) -> JointReading:
    """The joints of `expected` (names in the spec's order) from one message; JointStateError when ambiguous or not finite."""
    positions = [float(p) for p in positions_rad]
    names = [str(n) for n in names]
    if names and len(names) != len(positions):
        raise JointStateError(f"{len(names)} names but {len(positions)} positions")
    index = {name: k for k, name in enumerate(names)}
    if names and all(name in index for name in expected):
        values, mapping = [positions[index[name]] for name in expected], BY_NAME
    elif not names and len(positions) == len(expected):
        values, mapping = positions, BY_POSITION
    else:
        missing = [name for name in expected if name not in index]
        raise JointStateError(f"{len(positions)} joint(s) {names or '(no names)'}: expected {len(expected)} named {list(expected)}"
                              f"{f' (missing {missing})' if names else ''}; set joint_state_names to the driver's names in the spec's order")
    if not all(math.isfinite(v) for v in values):
        raise JointStateError("a joint position is not a finite number")
    return JointReading(tuple(math.degrees(v) for v in values), int(stamp_ns), mapping)


def fresh(reading: JointReading | None, now_ns: int, max_age_s: float) -> JointReading | None:
    """The reading when it is at most `max_age_s` old at `now_ns` (a stamp from the future counts as fresh), else None."""
    if reading is None or now_ns - reading.stamp_ns > max_age_s * 1e9:
        return None
    return reading
