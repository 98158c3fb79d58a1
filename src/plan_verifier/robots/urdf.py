"""Robot specs from a URDF (and an SRDF), as ROS describes the robot (contract section 7.1).

Pinocchio (`pin`) reads the URDF and SRDF and loads the collision meshes (through coal
and assimp, STL and DAE); this module only turns what it read into a `RobotSpec`: the
chain from `base_link` to `tip_link` (default: the ROS-Industrial frames `base` and
`tool0` when the URDF has them, else its root link and `flange` or the last link),
joint limits and velocities, the collision geometry of every link in the link frames,
and the SRDF's `disable_collisions` pairs. Everything else the spec needs gets a
stated default (docs/robots.md); a spec YAML naming the URDF (`urdf:`) keeps its own
keys (tools, home, payload, limits the URDF lacks) over them.

Mesh `filename`s `package://NAME/...` resolve through the ament index
(`AMENT_PREFIX_PATH`: PREFIX/share/NAME/...), as ROS resolves them; relative ones
against the URDF's folder; a missing mesh is a configuration error that names it.

Pinocchio is imported only here, and this module only when a URDF robot is asked for:
its ~0.3 s import is not paid by anyone else. Six-axis arms only: a seventh axis is
refused (how a controller resolves the redundancy — its elbow angle — is not part of a
plan, so no single configuration could be simulated honestly).
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import numpy as np

from plan_verifier.resources import ConfigError

#: Joint types of a six-axis arm's chain (pinocchio's names): revolute about a frame axis or any axis,
#: bounded or continuous.
_REVOLUTE = {"JointModelRX": (1.0, 0.0, 0.0), "JointModelRY": (0.0, 1.0, 0.0), "JointModelRZ": (0.0, 0.0, 1.0),
             "JointModelRUBX": (1.0, 0.0, 0.0), "JointModelRUBY": (0.0, 1.0, 0.0), "JointModelRUBZ": (0.0, 0.0, 1.0),
             "JointModelRevoluteUnaligned": None, "JointModelRevoluteUnboundedUnaligned": None}
#: Keys of a spec YAML that select the description rather than describe the robot.
_DESCRIPTION_KEYS = ("urdf", "srdf", "base_link", "tip_link")


def urdf_file(path: Path) -> dict:
    """The spec mapping of a URDF file alone (`--robot path/to/robot.urdf`)."""
    return description(_read(path, "URDF"), None, base_dir=path.parent, urdf=str(path))


def from_text(urdf: str, srdf: str | None = None, *, spec: dict | None = None, base_dir: str | None = None) -> dict:
    """The spec mapping of URDF and SRDF text (`/robot_description`, `/robot_description_semantic`), with a spec
    YAML's keys (`spec`: tools, home, payload, base_link/tip_link) over it."""
    raw = dict(spec or {})
    selected = {k: raw.pop(k) for k in ("base_link", "tip_link") if k in raw}
    derived = description(urdf, srdf, base_dir=Path(base_dir) if base_dir else None, urdf="robot_description",
                          srdf_name="robot_description_semantic" if srdf else None, **selected)
    return _merged(derived, raw, "robot_description")


def spec_with_urdf(raw: dict, folder: Path, *, where: str) -> dict:
    """A spec YAML's mapping with `urdf:` (and `srdf:`) replaced by what they describe; its other keys win."""
    raw = dict(raw)
    urdf_path = _file(str(raw["urdf"]), folder, where)
    srdf_path = _file(str(raw["srdf"]), folder, where) if raw.get("srdf") else None
    derived = description(_read(urdf_path, "URDF"), _read(srdf_path, "SRDF") if srdf_path else None, base_dir=urdf_path.parent,
                          urdf=str(raw["urdf"]), srdf_name=str(raw["srdf"]) if srdf_path else None,
                          base_link=raw.get("base_link"), tip_link=raw.get("tip_link"))
    for key in _DESCRIPTION_KEYS:
        raw.pop(key, None)
    return _merged(derived, raw, where)


def _merged(derived: dict, raw: dict, where: str) -> dict:
    for key in ("kinematics", "collision_model"):
        if key in raw:
            raise ConfigError(f"invalid robot spec {where}: {key}: the URDF gives it (remove the key, or the urdf)")
    out = dict(derived)
    out.update(raw)
    out["sources"] = [*derived["sources"], *raw.get("sources", [])]
    return out


# ---------------------------------------------------------------------------------------------- reading


def _read(path: Path, kind: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{kind} {path} cannot be read: {exc.__class__.__name__}: {exc}") from None


def _file(name: str, folder: Path, where: str) -> Path:
    found = _resource(name, folder)
    if found is None or not found.is_file():
        raise ConfigError(f"invalid robot spec {where}: {name} not found{_hint(name)}")
    return found


def _resource(name: str, folder: Path | None) -> Path | None:
    """A `package://NAME/rest` (ament index), `file://` or plain path (relative to `folder`)."""
    if name.startswith("package://"):
        package, _, rest = name[len("package://"):].partition("/")
        for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
            if prefix and (Path(prefix) / "share" / package).is_dir():
                return Path(prefix) / "share" / package / rest
        return None
    if name.startswith("file://"):
        name = name[len("file://"):]
    path = Path(name)
    return path if path.is_absolute() or folder is None else folder / path


def _hint(name: str) -> str:
    if name.startswith("package://"):
        package = name[len("package://"):].partition("/")[0]
        return f" (package '{package}' is in no prefix of AMENT_PREFIX_PATH: source its workspace, or install it)"
    return ""


def _absolute_meshes(urdf: str, base_dir: Path | None) -> str:
    """The URDF with every collision mesh's filename an absolute path that exists (ConfigError naming the missing one)."""
    try:
        root = ElementTree.fromstring(urdf)
    except ElementTree.ParseError as exc:
        raise ConfigError(f"the URDF is not well-formed XML: {exc}") from None
    if root.tag != "robot":
        raise ConfigError(f"the URDF's root element is <{root.tag}>, not <robot>")
    for link in root.iter("link"):
        for collision in link.iter("collision"):
            for mesh in collision.iter("mesh"):
                name = mesh.get("filename", "")
                found = _resource(name, base_dir)
                if found is None or not found.is_file():
                    raise ConfigError(f"collision mesh {name!r} of link '{link.get('name')}' not found{_hint(name)}")
                mesh.set("filename", str(found.resolve()))
    return ElementTree.tostring(root, encoding="unicode")


# ---------------------------------------------------------------------------------------------- the model


def description(urdf_text: str, srdf: str | None, *, base_dir: Path | None, urdf: str = "", srdf_name: str | None = None,
                base_link: str | None = None, tip_link: str | None = None) -> dict:
    """The spec mapping a URDF (and SRDF) describe: joints, chain kinematics, collision geometry, disabled pairs."""
    import pinocchio as pin

    text = _absolute_meshes(urdf_text, base_dir)
    try:
        model = pin.buildModelFromXML(text)
        geometry = pin.buildGeomFromUrdfString(model, text, pin.GeometryType.COLLISION, package_dirs=[])
    except (RuntimeError, ValueError) as exc:
        raise ConfigError(f"the URDF cannot be read: {str(exc).strip().splitlines()[0]}") from None
    names = [f.name for f in model.frames]
    base = base_link or ("base" if "base" in names else model.frames[1].name)
    tip = tip_link or next((n for n in ("tool0", "flange") if n in names), None) or _last_link(model)
    for role, name in (("base_link", base), ("tip_link", tip)):
        if name not in names:
            raise ConfigError(f"the URDF has no link '{name}' ({role})")
    base_frame, tip_frame = model.frames[model.getFrameId(base)], model.frames[model.getFrameId(tip)]
    if base_frame.parentJoint != 0:
        raise ConfigError(f"base_link '{base}' moves (joint '{model.names[base_frame.parentJoint]}'): it must be fixed to the world")
    chain = _chain(model, tip_frame.parentJoint, base, tip)
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    from_base = data.oMf[model.getFrameId(base)].inverse()
    origins = [from_base * model.jointPlacements[chain[0]]] + [model.jointPlacements[j] for j in chain[1:]]
    joints = []
    for j in chain:
        bounded = model.nqs[j] == 1
        lower = math.degrees(model.lowerPositionLimit[model.idx_qs[j]]) if bounded else -math.inf
        upper = math.degrees(model.upperPositionLimit[model.idx_qs[j]]) if bounded else math.inf
        speed = float(model.velocityLimit[model.idx_vs[j]])
        joints.append({"name": model.names[j], "ros_name": model.names[j], "min_deg": lower, "max_deg": upper,
                       "max_speed_deg_s": math.degrees(speed) if 0.0 < speed < 1e6 else None})
    kinematics = {"chain": [{**_frame(o), "axis": _axis(model.joints[j])} for o, j in zip(origins, chain)],
                  "flange": _frame(tip_frame.placement), "source": f"URDF {urdf or 'robot_description'} ({base} -> {tip})"}
    shapes = _geometry(pin, model, data, geometry, chain, from_base)
    disabled = _disabled_pairs(pin, model, geometry, srdf) if srdf else None
    name = ElementTree.fromstring(urdf_text).get("name") or "robot"
    reach = sum(float(np.linalg.norm(o.translation)) for o in origins) + float(np.linalg.norm(tip_frame.placement.translation))
    sources = [f"URDF {urdf or 'robot_description'}: kinematics, joint limits and speeds, collision geometry"]
    if srdf:
        sources.append(f"SRDF {srdf_name or 'robot_description_semantic'}: disable_collisions pairs")
    sources.append("reach_mm: the chain's length (an upper bound); no base keep-out zone and no rated payload "
                   "(a URDF has neither: give them in a spec YAML)")
    return {"name": name, "vendor": "URDF", "model": name, "reach_mm": math.ceil(reach * 1000.0),
            "base_keepout_radius_mm": 0.0, "base_keepout_height_mm": 0.0, "joints": joints, "kinematics": kinematics,
            "collision_model": {"geometry": shapes, "disabled_pairs": disabled}, "sources": sources,
            "urdf": urdf or "robot_description", "srdf": srdf_name, "base_link": base, "tip_link": tip}


def _last_link(model: Any) -> str:
    """The arm's end when the URDF names no `tool0` or `flange`: the last link after the longest run of revolute
    joints from the root (gripper fingers, which slide, end no arm)."""
    ends = [j for j in range(1, model.njoints) if _revolute_depth(model, j) is not None]
    if not ends:
        return model.frames[1].name
    last = max(ends, key=lambda j: (_revolute_depth(model, j), j))
    bodies = [f.name for f in model.frames if f.parentJoint == last and str(f.type) == "BODY"]
    return bodies[-1] if bodies else model.names[last]


def _revolute_depth(model: Any, j: int) -> int | None:
    """How many joints lead from the root to joint j, None when one of them is not revolute."""
    depth = 0
    while j:
        if model.joints[j].shortname() not in _REVOLUTE:
            return None
        j, depth = model.parents[j], depth + 1
    return depth


def _chain(model: Any, last: int, base: str, tip: str) -> list[int]:
    chain = []
    j = last
    while j:
        chain.append(j)
        j = model.parents[j]
    chain.reverse()
    kinds = [model.joints[j].shortname() for j in chain]
    other = [model.names[j] for j, kind in zip(chain, kinds) if kind not in _REVOLUTE]
    if other:
        raise ConfigError(f"the chain {base} -> {tip} has joints that are not revolute ({', '.join(other)}): "
                          "the verifier models six-axis arms of revolute joints")
    if len(chain) == 7:
        raise ConfigError(f"the chain {base} -> {tip} has 7 joints: a seven-axis arm reaches a pose in infinitely many "
                          "configurations and its controller chooses among them (elbow angle, null-space motion) in a way "
                          "a plan does not say, so its motions cannot be simulated honestly; the verifier models six-axis arms")
    if len(chain) != 6:
        raise ConfigError(f"the chain {base} -> {tip} has {len(chain)} joints: the verifier models six-axis arms "
                          "(choose base_link and tip_link around six revolute joints)")
    return chain


def _frame(placement: Any) -> dict:
    import pinocchio as pin

    return {"xyz_mm": tuple(float(v) * 1000.0 for v in placement.translation),
            "rpy_deg": tuple(math.degrees(float(v)) for v in pin.rpy.matrixToRpy(placement.rotation))}


def _pose(placement: Any) -> tuple[float, ...]:
    frame = _frame(placement)
    return (*frame["xyz_mm"], *frame["rpy_deg"])


def _axis(joint: Any) -> tuple[float, float, float]:
    axis = _REVOLUTE[joint.shortname()]
    if axis is None:
        axis = tuple(float(v) for v in joint.extract().axis)
    return axis


def _geometry(pin: Any, model: Any, data: Any, geometry: Any, chain: list[int], from_base: Any) -> list[dict]:
    """Every collision element in the link frames 0-6 (elements on other branches, e.g. gripper fingers,
    ride on the chain link they hang from, as at the zero configuration)."""
    import coal

    link_of = {j: k + 1 for k, j in enumerate(chain)}
    out = []
    for obj in geometry.geometryObjects:
        j = obj.parentJoint
        placement = obj.placement
        while j and j not in link_of:  # off the chain: fold the branch at q = 0 into its chain ancestor
            placement = model.jointPlacements[j] * placement
            j = model.parents[j]
        link = link_of.get(j, 0)
        if link == 0:
            placement = from_base * placement
        owner = model.frames[obj.parentFrame].name
        shape = obj.geometry
        item: dict[str, Any] = {"link": link, "owner": owner, "pose": _pose(placement)}
        if isinstance(shape, coal.Box):
            item.update(type="box", size_mm=tuple(float(v) * 2000.0 for v in shape.halfSide))
        elif isinstance(shape, coal.Cylinder):
            item.update(type="cylinder", radius_mm=shape.radius * 1000.0, length_mm=shape.halfLength * 2000.0)
        elif isinstance(shape, coal.Sphere):
            item.update(type="sphere", radius_mm=shape.radius * 1000.0)
        elif obj.meshPath:
            item.update(type="mesh", mesh=obj.meshPath, scale=tuple(float(v) for v in obj.meshScale))
        else:
            raise ConfigError(f"collision geometry of link '{owner}': {type(shape).__name__} is not supported "
                              "(box, cylinder, sphere and meshes are)")
        out.append(item)
    return out


def _disabled_pairs(pin: Any, model: Any, geometry: Any, srdf: str) -> list[tuple[str, str]]:
    """The SRDF's disable_collisions pairs (link names), as pinocchio reads them."""
    owners = [model.frames[o.parentFrame].name for o in geometry.geometryObjects]
    geometry.addAllCollisionPairs()
    every = {tuple(sorted((owners[p.first], owners[p.second]))) for p in geometry.collisionPairs}
    try:
        pin.removeCollisionPairsFromXML(model, geometry, srdf, False)
    except (RuntimeError, ValueError) as exc:
        raise ConfigError(f"the SRDF cannot be read: {str(exc).strip().splitlines()[0]}") from None
    kept = {tuple(sorted((owners[p.first], owners[p.second]))) for p in geometry.collisionPairs}
    return sorted(every - kept)
