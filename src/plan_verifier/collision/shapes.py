"""Primitive shapes shared by robot bodies, tools and cell obstacles (mm).

Every shape is centred on the origin of its own frame; elongated shapes lie
along their local z axis (the convention of FCL/coal, so a shape maps onto a
collision-library object without a corrective transform). A body is a shape
placed by a 4x4 homogeneous transform in the robot base frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True, slots=True)
class Box:
    """Edge lengths along local x, y, z."""

    sx: float
    sy: float
    sz: float


@dataclass(frozen=True, slots=True)
class Cylinder:
    """A solid cylinder of `length` along local z."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Capsule:
    """A segment of `length` along local z swept by a sphere of `radius` (total extent length + 2·radius)."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Sphere:
    radius: float


Shape = Union[Box, Cylinder, Capsule, Sphere]
