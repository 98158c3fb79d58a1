"""Where the execution level starts when nobody says where the robot's joints are.

The robot's own joints (the node's /joint_states, `--start-joints`, the start an
approved file recorded) are used as they are: the robot is there. Otherwise the
simulation has to assume a configuration, and it must be one the robot can be
standing in. A start position's taught `joints` (when they fit this robot,
`motion.taught`) are the cell author's word for it. A posed position without
them is one pose and several configurations — one per inverse-kinematics
branch, up to eight on a UR — and which one the arm is in decides the branch of
every Cartesian target after it, and whether the way to the first one is clear.

The candidates (`candidates`) are every IK solution of the position's pose (for
the TCP that is there: a tool mount's docked tool, else the tool held) within
the joint limits, each at the 2π variant of its joints nearest to the robot's
`home_joints_deg` (a robot's cables are wound around its home), nearest first,
each checked standing still against the floor, the cell's obstacles and the
robot's own links, with the tool it holds. The assumed start is the nearest to
home that keeps the cell's clearance, else the nearest that touches nothing: a
configuration with the forearm through the shoulder is no start, and a plan must
not be rejected for a collision "at 0 %" of its first motion that only the
assumption made. When no candidate touches nothing (or the position cannot be
reached at all, or its taught joints collide or break a limit, or the spec's home
does), that is a problem of the cell, not of the plan: `Start.problem` says so
(R-KIN-009), the run starts from the nearest candidate anyway (else from the
spec's home), and what that configuration touches standing still is left to the
problem's finding, not reported again at the first instant of the first motion.

The other collision-free candidates are kept (`Start.alternatives`): R-KIN-010 runs
the plan from each and warns when the verdict depends on which one the robot is in.
`position_candidates` gives a position's candidates to anyone else who needs them
(the repair command choosing a start).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from plan_verifier.collision.frames import pose_matrix
from plan_verifier.collision.scene import Scene
from plan_verifier.collision.tool_shape import ToolShape
from plan_verifier.graph.model import NO_TOOL, Cell, Position
from plan_verifier.kinematics.arm import Arm, arm_for
from plan_verifier.kinematics.bodies import body_set
from plan_verifier.motion.facts import Start, StartContact, StartProblem
from plan_verifier.motion.sweep import sweep
from plan_verifier.motion.taught import TaughtJoints
from plan_verifier.robots.spec import RobotSpec

#: What the flange carries: (flange -> TCP, the tool's collision shape) for a cell tool's name (None: nothing).
Mount = Callable[[str | None], tuple[np.ndarray, ToolShape | None]]
#: Two IK solutions closer than this in every joint (radians) are one configuration.
_SAME_RAD = 1e-6


@dataclass(frozen=True, eq=False)
class Candidate:
    """A configuration the robot may stand in at a position (radians), and what it touches there."""

    q: np.ndarray
    contacts: tuple[StartContact, ...]
    #: Also keeps the cell's clearance from the floor and the obstacles.
    clear: bool

    @property
    def free(self) -> bool:
        """Touches nothing: the robot can be standing in it."""
        return not self.contacts

    @property
    def joints_deg(self) -> tuple[float, ...]:
        return _deg(self.q)


@dataclass(frozen=True, eq=False)
class Candidates:
    """A position's candidate start configurations: every IK solution within the limits, nearest to home first."""

    within_limits: tuple[Candidate, ...]
    #: IK solutions of the pose, within the limits or not (0: unreachable).
    solutions: int
    #: The taught joints (one candidate) rather than the pose's IK solutions.
    taught: bool = False

    @property
    def free(self) -> tuple[Candidate, ...]:
        return tuple(c for c in self.within_limits if c.free)

    def choice(self) -> Candidate | None:
        """The assumed start: the nearest keeping the clearance, else the nearest touching nothing (None: none does)."""
        return next((c for c in self.within_limits if c.free and c.clear), None) or next(iter(self.free), None)


def candidates(arm: Arm, scene: Scene, pose: np.ndarray, tcp: np.ndarray, shape: ToolShape | None,
               reference: np.ndarray | None = None) -> Candidates:
    """Every IK solution within the joint limits of TCP pose `pose` (4x4, base frame), checked, nearest first to
    `reference` (default: the robot's home), each at its 2π variant nearest to it."""
    reference = arm.home if reference is None else reference
    result = arm.ik(pose, tcp, q_near=reference)
    variants, distance = arm.nearest_each(np.array([s.q for s in result.feasible]), reference)
    order = [k for k in np.argsort(distance, kind="stable") if np.isfinite(distance[k])]
    variants = variants[order]
    same = np.all(np.abs(variants[:, None] - variants[None]) < _SAME_RAD, axis=-1)  # (K, K): one configuration twice
    found = [q for k, q in enumerate(variants) if not same[k, :k].any()]
    return Candidates(tuple(check(arm, scene, found, shape)), len(result.solutions))


def check(arm: Arm, scene: Scene, configurations, shape: ToolShape | None) -> list[Candidate]:
    """Configurations (radians) checked standing still with `shape` on the flange: what each touches."""
    configurations = [np.asarray(q, dtype=float) for q in configurations]
    if not configurations:
        return []
    bodies = body_set(arm, shape)
    swept = sweep(scene, bodies, [(np.array([1.0]), q[None], _standing) for q in configurations], [("static",)] * len(configurations))
    names = [b.name for b in bodies.bodies]
    targets = scene.targets
    out = []
    for q, result in zip(configurations, swept):
        world, target, own = result.world[:, 0], result.world_target[:, 0], result.own[:, 0]
        near = (target >= 0) & (world < scene.clearance_mm)
        contacts = [StartContact(names[b], targets[target[b]], "floor" if target[b] == 0 else "object", float(-world[b]))
                    for b in np.flatnonzero(near & (world < 0))]
        contacts += [StartContact(names[bodies.pairs[n][0]], names[bodies.pairs[n][1]], "self", float(-own[n]))
                     for n in np.flatnonzero(own < 0)]
        contacts.sort(key=lambda contact: -contact.depth_mm)
        out.append(Candidate(q, tuple(contacts), not near.any() and not contacts))
    return out


def position_candidates(robot: RobotSpec, cell: Cell, position: str, tool: str = NO_TOOL) -> Candidates | None:
    """The configurations the robot may be standing in at `position` holding `tool` (a cell tool's name, or `none`).

    Its taught joints when they fit this robot (one candidate), else every IK solution of its pose
    within the joint limits, nearest to the robot's home first, each with what it touches. None for
    a position the cell does not have, or one with neither joints nor a six-number pose."""
    found = cell.positions.get(position)
    if found is None:
        return None
    arm = arm_for(robot)
    scene = Scene.from_cell(cell, default_floor_z_mm=robot.limits.z.min_mm)
    return position_configurations(arm, scene, cell, found, tool, TaughtJoints(arm, cell), lambda name: cell_mount(cell, name))


def start_for(robot: RobotSpec, cell: Cell | None, position: str | None, tool: str | None = NO_TOOL) -> Start:
    """Where the execution level starts a plan when the robot's joints are not known, holding `tool` at `position`:
    the configuration and where it comes from (`Start.problem` when the robot cannot be there). What an executor
    with no joints of its own should take for its start, to run what was verified."""
    arm = arm_for(robot)
    floor = robot.limits.z.min_mm
    scene = Scene.from_cell(cell, default_floor_z_mm=floor) if cell is not None else Scene(floor_z_mm=floor)
    mount = (lambda name: cell_mount(cell, name)) if cell is not None else (lambda name: (np.eye(4), None))
    return assumed_start(arm, scene, cell, position, tool, TaughtJoints(arm, cell), mount)[1]


def position_configurations(arm: Arm, scene: Scene, cell: Cell, position: Position, tool: str | None, taught: TaughtJoints,
                            mount: Mount) -> Candidates | None:
    """`position_candidates` with the run's own arm, scene, taught joints and tool mounts."""
    _, shape = mount(_held(tool))
    if taught.usable(position):
        q = np.radians(np.asarray(position.joints, dtype=float))
        within = bool(np.all((q >= arm.lower - 1e-9) & (q <= arm.upper + 1e-9)))
        return Candidates(tuple(check(arm, scene, [q], shape)) if within else (), 1, taught=True)
    if position.pose is None or len(position.pose) != 6:
        return None
    docked = cell.tool_at(position.name) if position.role == "tool_mount" else None
    tcp, _ = mount(docked or _held(tool))  # a tool mount's pose is its docked tool's TCP
    return candidates(arm, scene, pose_matrix(position.pose), tcp, shape)


def cell_mount(cell: Cell, name: str | None) -> tuple[np.ndarray, ToolShape | None]:
    """A cell tool's TCP and shape (the bare flange for none, or a tool the cell does not have)."""
    tool = cell.tools.get(name) if name else None
    if tool is None:
        return np.eye(4), None
    return (pose_matrix(tool.tcp) if tool.tcp is not None else np.eye(4)), tool.shape


def assumed_start(arm: Arm, scene: Scene, cell: Cell | None, position_name: str | None, tool: str | None, taught: TaughtJoints,
                  mount: Mount) -> tuple[np.ndarray, Start]:
    """The start configuration (radians) when the robot's joints are not known, and the fact saying what it is."""
    position = cell.positions.get(position_name) if cell is not None and position_name else None
    found = position_configurations(arm, scene, cell, position, tool, taught, mount) if position is not None else None
    if found is None:  # no position, or one without coordinates: the spec's home
        return _home(arm, scene, tool, mount)
    source = f"position '{position.name}'"
    chosen = found.choice()
    if chosen is not None:
        others = () if found.taught else tuple(c.joints_deg for c in found.free if c is not chosen)
        return chosen.q.copy(), Start(chosen.joints_deg, source, not found.taught, position.name, others)
    if found.within_limits:  # every configuration touches something: start from the nearest anyway
        nearest = found.within_limits[0]
        problem = StartProblem(position.name, "collision", len(found.within_limits), found.taught, nearest.contacts)
        return nearest.q.copy(), Start(nearest.joints_deg, source, not found.taught, position.name, problem=problem)
    kind = "outside_limits" if found.solutions else "unreachable"
    if found.taught:  # taught joints outside the limits: the author's word, but not a configuration the robot can take
        q = np.radians(np.asarray(position.joints, dtype=float))
        return q, Start(_deg(q), source, False, position.name, problem=StartProblem(position.name, kind, 1, True))
    q, start = _home(arm, scene, tool, mount)
    return q, Start(start.joints_deg, start.source, True, position.name,
                    problem=StartProblem(position.name, kind, found.solutions, False, start.problem.contacts if start.problem else ()))


def _home(arm: Arm, scene: Scene, tool: str | None, mount: Mount) -> tuple[np.ndarray, Start]:
    """The spec's `home_joints_deg`, checked like any assumed start."""
    home = arm.home.copy()
    _, shape = mount(_held(tool))
    standing = check(arm, scene, [home], shape)[0]
    problem = None if standing.free else StartProblem("home_joints_deg", "collision", 1, False, standing.contacts)
    return home, Start(_deg(home), "home_joints_deg", True, problem=problem)


def _held(tool: str | None) -> str | None:
    """The cell tool on the flange (None: the empty wrist, `none`)."""
    return tool if tool and tool != NO_TOOL else None


def _standing(s: np.ndarray, near: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A configuration held still: nothing between samples to evaluate."""
    return near, np.ones(len(s), dtype=bool)


def _deg(q: np.ndarray) -> tuple[float, ...]:
    return tuple(round(float(v), 6) for v in np.degrees(q))
