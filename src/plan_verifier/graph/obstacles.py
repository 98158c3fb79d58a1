"""The cell's collision objects: fixtures, stands, conveyors, fences, columns (contract §7).

A cell file lists them as

    collision_objects:
      - {name: Fixture_1, shape: box, size: [200, 300, 250], pose: [600, 0, 125, 0, 0, 0]}
      - {name: Column,    shape: cylinder, radius: 80, height: 1200, pose: [-700, 0, 600, 0, 0, 0]}
      - {name: Dome,      shape: sphere, radius: 150, pose: [0, 900, 0, 0, 0, 0]}

`pose` is the shape's centre in the robot base frame (mm; deg, fixed-axis
roll-pitch-yaw R = Rz·Ry·Rx); a cylinder's axis is its local z. Workpieces
the robot grasps are not obstacles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat

from plan_verifier.collision.frames import Pose6
from plan_verifier.collision.scene import FLOOR
from plan_verifier.collision.shapes import Box, Cylinder, Sphere
from plan_verifier.collision.tool_shape import SixNumbers, ThreeSizes

__all__ = ["FLOOR", "CollisionObject", "ObstacleSpec"]


@dataclass(frozen=True, slots=True)
class CollisionObject:
    name: str
    shape: Box | Cylinder | Sphere
    pose: Pose6

    def to_file_dict(self) -> dict[str, Any]:
        s = self.shape
        if isinstance(s, Box):
            sizes: dict[str, Any] = {"shape": "box", "size": [s.sx, s.sy, s.sz]}
        elif isinstance(s, Cylinder):
            sizes = {"shape": "cylinder", "radius": s.radius, "height": s.length}
        else:
            sizes = {"shape": "sphere", "radius": s.radius}
        return {"name": self.name, **sizes, "pose": list(self.pose)}


class _Obstacle(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, defer_build=True)  # as graph.model's

    name: str = Field(min_length=1)
    pose: SixNumbers


class _BoxObstacle(_Obstacle):
    shape: Literal["box"]
    size: ThreeSizes

    def value(self) -> CollisionObject:
        return CollisionObject(self.name, Box(*(float(v) for v in self.size)), _floats(self.pose))


class _CylinderObstacle(_Obstacle):
    shape: Literal["cylinder"]
    radius: PositiveFloat
    height: PositiveFloat

    def value(self) -> CollisionObject:
        return CollisionObject(self.name, Cylinder(float(self.radius), float(self.height)), _floats(self.pose))


class _SphereObstacle(_Obstacle):
    shape: Literal["sphere"]
    radius: PositiveFloat

    def value(self) -> CollisionObject:
        return CollisionObject(self.name, Sphere(float(self.radius)), _floats(self.pose))


#: The pydantic field type of one `collision_objects` entry.
ObstacleSpec = Annotated[Union[_BoxObstacle, _CylinderObstacle, _SphereObstacle], Field(discriminator="shape")]


def _floats(pose: list[float]) -> Pose6:
    return tuple(float(v) for v in pose)  # type: ignore[return-value]
