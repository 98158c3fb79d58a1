"""Robot specifications: the numbers every safety rule compares against.

Specs are YAML files validated by pydantic; a bad file fails with a message
naming the field, never with a half-built spec. Robot-independent limits
(velocity, acceleration, Z, delays) live here too, so a cell can tighten them.
"""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from plan_verifier import yaml_text
from plan_verifier.collision.tool_shape import ToolShape, ToolShapeSpec
from plan_verifier.resources import ConfigError, resolve

DEFAULT_ROBOT = "ur10e"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Range(_Strict):
    """A hard range (CRITICAL outside) and a recommended range (WARNING outside)."""

    min: float
    max: float
    recommended_min: float
    recommended_max: float

    @model_validator(mode="after")
    def _ordered(self) -> "Range":
        if not (self.min <= self.recommended_min <= self.recommended_max <= self.max):
            raise ValueError("need min <= recommended_min <= recommended_max <= max")
        return self


class ZLimits(_Strict):
    min_mm: float = 0.0
    warn_below_mm: float = 10.0


class DelayRange(_Strict):
    min_s: float = 0.3
    max_s: float = 2.0


def _seed_velocity() -> Range:
    return Range(min=10, max=1000, recommended_min=50, recommended_max=500)


def _seed_acceleration() -> Range:
    return Range(min=10, max=500, recommended_min=20, recommended_max=200)


def _joint_percent() -> Range:
    return Range(min=1, max=100, recommended_min=1, recommended_max=100)


class Limits(_Strict):
    """Defaults are seed 000's numbers (R-SAF-002/003/004, R-DOM-002/003)."""

    velocity_mm_s: Range = Field(default_factory=_seed_velocity)
    acceleration_mm_s2: Range = Field(default_factory=_seed_acceleration)
    task_velocity_mm_s: Range = Field(default_factory=_seed_velocity)
    task_acceleration_mm_s2: Range = Field(default_factory=_seed_acceleration)
    joint_velocity_percent: Range = Field(default_factory=_joint_percent)
    joint_acceleration_percent: Range = Field(default_factory=_joint_percent)
    z: ZLimits = Field(default_factory=ZLimits)
    gripper_delay: DelayRange = Field(default_factory=DelayRange)
    safe_height_mm: float = 100.0
    #: How fast the controller turns the tool during a linear or circular move (deg/s): a move that turns
    #: the tool a lot over a short distance takes longer rather than spinning the wrist (execution level).
    tool_rotation_deg_s: float = Field(default=90.0, gt=0)


class Joint(_Strict):
    """A joint's working range; `.inf` bounds a joint that turns without limit (UR3e wrist 3)."""

    name: str
    min_deg: float = Field(allow_inf_nan=True)
    max_deg: float = Field(allow_inf_nan=True)
    max_speed_deg_s: float | None = Field(default=None, gt=0)
    #: The joint's name in the vendor's ROS description (what its driver publishes on /joint_states), so the
    #: node reads the robot's real joints without configuration.
    ros_name: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _ordered(self) -> "Joint":
        if math.isnan(self.min_deg) or math.isnan(self.max_deg):
            raise ValueError("min_deg and max_deg must be numbers")
        if self.min_deg >= self.max_deg:
            raise ValueError("min_deg must be below max_deg")
        return self


class JointOrigin(_Strict):
    """One joint of a URDF-style chain: its frame in the parent frame, and its axis."""

    xyz_mm: tuple[float, float, float]
    rpy_deg: tuple[float, float, float]
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0)

    @model_validator(mode="after")
    def _unit_axis(self) -> "JointOrigin":
        if abs(math.hypot(*self.axis) - 1.0) > 1e-6:
            raise ValueError("axis must be a unit vector")
        return self


_SixDh = Annotated[tuple[tuple[float, float, float, float], ...], Field(min_length=6, max_length=6)]
_SixOrigins = Annotated[tuple[JointOrigin, ...], Field(min_length=6, max_length=6)]


class FixedFrame(_Strict):
    """A fixed transform: `xyz_mm` and fixed-axis roll/pitch/yaw `rpy_deg` in the parent frame."""

    xyz_mm: tuple[float, float, float]
    rpy_deg: tuple[float, float, float] = (0.0, 0.0, 0.0)


class Kinematics(_Strict):
    """Forward kinematics in one of two forms; exactly one is given.

    `dh`: standard Denavit-Hartenberg rows [a_mm, d_mm, alpha_deg,
    theta_offset_deg], one per joint. `chain`: URDF-style joint origins, one
    per joint; the flange is the last joint frame, or `flange` in it (a URDF's
    `tool0`).
    """

    dh: _SixDh | None = None
    chain: _SixOrigins | None = None
    flange: FixedFrame | None = None
    source: str

    @model_validator(mode="after")
    def _one_form(self) -> "Kinematics":
        if (self.dh is None) == (self.chain is None):
            raise ValueError("give exactly one of dh or chain")
        if self.flange is not None and self.chain is None:
            raise ValueError("flange belongs to the chain form (a DH table ends at the flange)")
        return self


_Vec3 = tuple[float, float, float]
_Pose6 = tuple[float, float, float, float, float, float]


class LinkCapsule(_Strict):
    """One capsule of a link's collision model: a segment in the link's frame, swept by a sphere.

    Link frames (see docs/robots.md): 0 is the base, 1-5 the frame of joint i after its
    rotation, 6 the flange; a capsule moves with its link.
    """

    link: int = Field(ge=0, le=6)
    from_mm: _Vec3
    to_mm: _Vec3
    radius_mm: float = Field(gt=0)


class LinkGeometry(_Strict):
    """One collision element of a link, as a URDF gives it: a box, cylinder, sphere or mesh.

    `pose` places the element's centre (a mesh: its own origin) in the link frame `link`
    (mm, degrees, fixed-axis roll-pitch-yaw); `owner` is the URDF link it belongs to (a fixed
    child such as `ee_link` is folded into its moving parent), the name the SRDF uses.
    """

    link: int = Field(ge=0, le=6)
    owner: str = Field(min_length=1)
    type: Literal["box", "cylinder", "sphere", "mesh"]
    pose: _Pose6 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    size_mm: tuple[Annotated[float, Field(gt=0)], Annotated[float, Field(gt=0)], Annotated[float, Field(gt=0)]] | None = None
    radius_mm: float | None = Field(default=None, gt=0)
    length_mm: float | None = Field(default=None, gt=0)
    mesh: str | None = None  # an absolute path (STL, DAE, ...)
    scale: _Vec3 = (1.0, 1.0, 1.0)

    @model_validator(mode="after")
    def _complete(self) -> "LinkGeometry":
        needed = {"box": ("size_mm",), "cylinder": ("radius_mm", "length_mm"), "sphere": ("radius_mm",), "mesh": ("mesh",)}[self.type]
        missing = [name for name in needed if getattr(self, name) is None]
        if missing:
            raise ValueError(f"a {self.type} needs {', '.join(missing)}")
        return self


class CollisionModel(_Strict):
    """The robot's own collision geometry: capsules along the kinematic chain, or a URDF's geometry.

    `link_radii_mm` (six radii, links 1-6) puts one capsule per link between consecutive
    joint origins; `links` lists explicit capsules (several per link allowed) and must
    cover links 1-6. Neither given: `link_radii_mm` scaled from the reach (see docs).
    Capsules enclose the links: the body model is conservative. `geometry` is the URDF's
    own collision geometry (meshes and primitives, exact); `disabled_pairs` are the SRDF's
    `disable_collisions` link pairs, never checked against each other.
    """

    link_radii_mm: Annotated[tuple[Annotated[float, Field(gt=0)], ...], Field(min_length=6, max_length=6)] | None = None
    links: Annotated[tuple[LinkCapsule, ...], Field(min_length=1)] | None = None
    geometry: tuple[LinkGeometry, ...] | None = None
    disabled_pairs: tuple[tuple[str, str], ...] | None = None

    @property
    def conservative(self) -> bool:
        """Whether the bodies are enclosing capsules (a contact of theirs may not be one of the real links)."""
        return self.geometry is None

    @model_validator(mode="after")
    def _one_form(self) -> "CollisionModel":
        if sum(x is not None for x in (self.link_radii_mm, self.links, self.geometry)) > 1:
            raise ValueError("give one of link_radii_mm, links or geometry")
        if self.links is not None:
            missing = sorted({1, 2, 3, 4, 5, 6} - {c.link for c in self.links})
            if missing:
                raise ValueError(f"links has no capsule for link(s) {missing}")
        return self


class Tool(_Strict):
    """A tool number of the controller: where its TCP is on the flange, and its shape.

    `tcp` is [x, y, z, rx, ry, rz] in the flange frame (mm, degrees, the spec's
    orientation convention); no `shape` means the tool adds no collision body.
    `shape` has the same syntax as a cell tool's (`collision.tool_shape`), so a
    tool is described the same way in a robot spec and in a cell.
    """

    tcp: _Pose6 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    shape: ToolShapeSpec | None = None

    @property
    def tool_shape(self) -> ToolShape | None:
        return self.shape.tool_shape() if self.shape is not None else None


def _flange_tool() -> dict[int, Tool]:
    return {0: Tool()}


class Gripper(_Strict):
    """The gripper is a digital output; `close_value` is the level that closes it."""

    port: int = 1
    close_value: Literal[0, 1] = 1


class RobotSpec(_Strict):
    name: str
    vendor: str
    model: str
    reach_mm: float = Field(gt=0)
    #: None: unknown (a robot read from a URDF alone, which has no payload rating).
    rated_payload_kg: float | None = Field(default=None, gt=0)
    #: Horizontal radius around the base axis that a target may not enter below
    #: `base_keepout_height_mm` (the base itself, and the wrist singularity above it).
    base_keepout_radius_mm: float = Field(ge=0)
    base_keepout_height_mm: float = Field(ge=0)
    orientation_convention: Literal["rpy", "zyz"] = "rpy"
    joints: list[Joint] = Field(min_length=6, max_length=6)
    kinematics: Kinematics | None = None
    limits: Limits = Field(default_factory=Limits)
    gripper: Gripper = Field(default_factory=Gripper)
    #: The robot's own collision geometry (execution level); the default is derived from the kinematics.
    collision_model: CollisionModel = Field(default_factory=CollisionModel)
    #: Tool numbers (TDL `tool=`, SetTool); the default defines tool 0 as the bare flange.
    tools: dict[Annotated[int, Field(ge=0)], Tool] = Field(default_factory=_flange_tool)
    #: Where the robot starts when nothing says otherwise; the default is the zero configuration.
    home_joints_deg: _Pose6 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    sources: list[str] = Field(default_factory=list)
    #: The URDF/SRDF the kinematics, joints and collision model were read from (contract section 7.1), and
    #: the frames used: targets are given in `base_link`, the flange is `tip_link`.
    urdf: str | None = None
    srdf: str | None = None
    base_link: str | None = None
    tip_link: str | None = None

    @field_validator("home_joints_deg")
    @classmethod
    def _home_within_limits(cls, home: tuple[float, ...], info: ValidationInfo) -> tuple[float, ...]:
        for i, (angle, joint) in enumerate(zip(home, info.data.get("joints") or ())):
            if not joint.min_deg <= angle <= joint.max_deg:
                raise ValueError(f"joint {i + 1} at {angle} is outside [{joint.min_deg}, {joint.max_deg}]")
        return home


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}"


#: The `robot` that means "as `robot_state_publisher` publishes it" (the node reads `robot_description` and
#: `robot_description_semantic`); also a spec YAML's `urdf:` value with that meaning.
ROBOT_DESCRIPTION = "robot_description"


def load_robot(name_or_path: str = DEFAULT_ROBOT, *, urdf_text: str | None = None, srdf_text: str | None = None) -> RobotSpec:
    """Load a shipped robot by name, a spec file by path, or a URDF (`.urdf`, or XML whose root is
    `<robot>`: contract section 7.1); ConfigError names the bad field.

    `robot_description` (or a spec YAML whose `urdf:` is `robot_description`) is built from `urdf_text` and
    `srdf_text`: what the node received on those topics."""
    if name_or_path == ROBOT_DESCRIPTION or needs_description(name_or_path):
        if not urdf_text:
            raise ConfigError(f"robot {name_or_path!r} is read from {ROBOT_DESCRIPTION}, but no URDF was received")
        raw: dict = {}
        if name_or_path != ROBOT_DESCRIPTION:
            raw = _raw(str(resolve("robots", name_or_path).resolve()))
            raw.pop("urdf")
            raw.pop("srdf", None)
        return robot_from_description(urdf_text, srdf_text, spec=raw)
    path = resolve("robots", name_or_path, (".yaml", ".yml", ".urdf", ".xml"))
    if _is_urdf(path):
        return _load_urdf(str(path.resolve()), path.stat().st_mtime_ns)
    return _load(str(path.resolve()), path.stat().st_mtime_ns)


def needs_description(name_or_path: str) -> bool:
    """Whether this `robot` is read from the `robot_description` topics (the node subscribes to them first)."""
    if name_or_path == ROBOT_DESCRIPTION:
        return True
    try:
        path = resolve("robots", name_or_path)
    except ConfigError:
        return False
    if path.suffix.lower() not in (".yaml", ".yml"):
        return False
    try:
        raw = _raw(str(path.resolve()))
    except ConfigError:
        return False
    return raw.get("urdf") == ROBOT_DESCRIPTION


def robot_from_description(urdf: str, srdf: str | None = None, *, spec: dict | None = None, base_dir: str | None = None) -> RobotSpec:
    """A robot spec from URDF and SRDF text: what `robot_state_publisher` publishes on `/robot_description` and
    MoveIt reads from `/robot_description_semantic` (the node's source); `spec` adds or overrides keys of a spec
    YAML (tools, home_joints_deg, rated_payload_kg, base_link, tip_link). ConfigError says what is wrong."""
    from plan_verifier.robots.urdf import from_text

    return _validated(from_text(urdf, srdf, spec=spec, base_dir=base_dir), "robot_description")


@functools.lru_cache(maxsize=16)
def _load_urdf(path: str, _mtime: int) -> RobotSpec:
    from plan_verifier.robots.urdf import urdf_file

    return _validated(urdf_file(Path(path)), f"URDF {path}")


def _validated(raw: dict, where: str) -> RobotSpec:
    try:
        return RobotSpec.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"invalid robot spec {where}: {_describe(exc)}") from None


def _is_urdf(path: Path) -> bool:
    if path.suffix.lower() == ".urdf":
        return True
    if path.suffix.lower() in (".yaml", ".yml"):
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return False
    return re.search(r"<robot[\s>]", re.sub(r"<\?.*?\?>|<!--.*?-->", "", head, flags=re.S)) is not None


def _raw(path: str) -> dict:
    try:
        raw = yaml_text.load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"invalid robot spec {path}: {exc.__class__.__name__}: {str(exc).splitlines()[0]}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"invalid robot spec {path}: expected a mapping at the top level")
    return raw


@functools.lru_cache(maxsize=64)
def _load(path: str, _mtime: int) -> RobotSpec:
    raw = _raw(path)
    if "urdf" in raw:
        from plan_verifier.robots.urdf import spec_with_urdf

        raw = spec_with_urdf(raw, Path(path).parent, where=f"robot spec {path}")
    try:
        return RobotSpec.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"invalid robot spec {path}: {_describe(exc)}") from None


def horizontal_distance(x: float, y: float) -> float:
    return math.hypot(x, y)
