"""A tool's collision body on the flange, and the file syntax that describes it.

The syntax is shared by the cell file's tools and the robot spec's `tools`
entries (contract §7), so an integrator describes a torch the same way in
both places:

    shape: {type: cylinder, radius_mm: 40, length_mm: 150}
    shape: {type: capsule, radius_mm: 20, length_mm: 200}
    shape: {type: box, size_mm: [120, 80, 140]}
    shape: {type: sphere, radius_mm: 60}
    shape: {type: cylinder, radius_mm: 30, length_mm: 200, pose: [0, 50, 0, 0, 0, 0]}

The shape stands on its mount frame: centred on the mount frame's z axis,
extending from z = 0 along +z (a cylinder's length, a capsule's length plus
its two caps, a box's z size, a sphere's diameter), so a tool that sticks
straight out of the flange needs no pose. `pose` (mm, deg, fixed-axis roll-pitch-yaw) moves the mount frame in
the flange frame, for a tool mounted off-axis or at an angle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PositiveFloat

from plan_verifier.collision.frames import Pose6, pose_matrix
from plan_verifier.collision.shapes import Box, Capsule, Cylinder, Sphere


@dataclass(frozen=True, slots=True)
class ToolShape:
    """A tool's shape and the frame it stands on (None: the flange frame itself)."""

    shape: Box | Cylinder | Capsule | Sphere
    pose: Pose6 | None = None

    @property
    def extent_mm(self) -> float:
        """How far the shape reaches along its mount frame's z axis."""
        s = self.shape
        if isinstance(s, Box):
            return s.sz
        if isinstance(s, Cylinder):
            return s.length
        if isinstance(s, Capsule):
            return s.length + 2.0 * s.radius
        return 2.0 * s.radius

    def in_flange(self) -> np.ndarray:
        """The shape's centre frame in the flange frame (4x4): flange transform @ this = the body's transform."""
        mount = pose_matrix(self.pose) if self.pose is not None else np.eye(4)
        centre = np.eye(4)
        centre[2, 3] = self.extent_mm / 2.0
        return mount @ centre

    def to_spec(self) -> dict[str, Any]:
        """The file syntax (the inverse of `ToolShapeSpec`)."""
        s = self.shape
        if isinstance(s, Box):
            out: dict[str, Any] = {"type": "box", "size_mm": [s.sx, s.sy, s.sz]}
        elif isinstance(s, Cylinder):
            out = {"type": "cylinder", "radius_mm": s.radius, "length_mm": s.length}
        elif isinstance(s, Capsule):
            out = {"type": "capsule", "radius_mm": s.radius, "length_mm": s.length}
        else:
            out = {"type": "sphere", "radius_mm": s.radius}
        if self.pose is not None:
            out["pose"] = list(self.pose)
        return out


#: File fields: a pose or joint vector of six numbers, three positive sizes (errors name the field and the count).
SixNumbers = Annotated[list[float], Field(min_length=6, max_length=6)]
ThreeSizes = Annotated[list[PositiveFloat], Field(min_length=3, max_length=3)]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    pose: SixNumbers | None = None

    @property
    def mount(self) -> Pose6 | None:
        return tuple(float(v) for v in self.pose) if self.pose is not None else None  # type: ignore[return-value]


class BoxSpec(_Spec):
    type: Literal["box"]
    size_mm: ThreeSizes

    def tool_shape(self) -> ToolShape:
        return ToolShape(Box(*(float(v) for v in self.size_mm)), self.mount)


class CylinderSpec(_Spec):
    type: Literal["cylinder"]
    radius_mm: PositiveFloat
    length_mm: PositiveFloat

    def tool_shape(self) -> ToolShape:
        return ToolShape(Cylinder(float(self.radius_mm), float(self.length_mm)), self.mount)


class CapsuleSpec(_Spec):
    type: Literal["capsule"]
    radius_mm: PositiveFloat
    length_mm: PositiveFloat

    def tool_shape(self) -> ToolShape:
        return ToolShape(Capsule(float(self.radius_mm), float(self.length_mm)), self.mount)


class SphereSpec(_Spec):
    type: Literal["sphere"]
    radius_mm: PositiveFloat

    def tool_shape(self) -> ToolShape:
        return ToolShape(Sphere(float(self.radius_mm)), self.mount)


#: The pydantic field type for a `shape:` entry (validation errors name the shape type and field).
ToolShapeSpec = Annotated[Union[BoxSpec, CylinderSpec, CapsuleSpec, SphereSpec], Field(discriminator="type")]
