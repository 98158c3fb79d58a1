"""Primitive shapes shared by robot bodies, tools and cell obstacles (mm).

Every shape is centred on the origin of its own frame; elongated shapes lie
along their local z axis (the convention of FCL/coal, so a shape maps onto a
collision-library object without a corrective transform). A body is a shape
placed by a 4x4 homogeneous transform in the robot base frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np


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


@dataclass(frozen=True, eq=False)
class Mesh:
    """A triangle mesh (a URDF link's collision mesh, mm), in a frame where the capsule of `radius` and
    `length` along z, centred on the origin, encloses it (the broad phase's core, as for the other shapes).

    `hull` holds the vertices of its convex hull (the floor's lowest point, the outline drawn, and the
    convex stage of the narrow phase). Compared and hashed by identity: one mesh file, one object.
    """

    name: str
    vertices: np.ndarray  # (V, 3)
    triangles: np.ndarray  # (T, 3) vertex indices
    hull: np.ndarray  # (H, 3)
    radius: float
    length: float


Shape = Union[Box, Cylinder, Capsule, Sphere, Mesh]
