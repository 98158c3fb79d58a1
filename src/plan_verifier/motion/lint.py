"""A cell checked before any plan uses it: every posed position reachable, every allowed move clear.

`plan-verify graph lint CELL` runs the execution level's kinematics and
collision sweep over the cell itself, so a cell author learns before a
planner does that a position cannot be reached, that the arm would stand in
a fixture there, or that a move the graph allows drives it through a tool
stand. Everything is checked with every tool that may be on the flange (none,
and each of the cell's tools: the graph does not say which one a plan will
hold): each posed position, and each allowed move (:ONLY_ALLOWED_MOVE_TO) as a
joint move between the two positions' configurations.

A position with `joints` taught for this robot (`motion.taught`) is that
configuration whatever the tool; another arm's joints are not used. A position
with only a pose is where the TCP of the tool on the flange goes (a tool
stand's docking pose is always its own tool's TCP: contract §7, and
`motion.program`), reached by the inverse-kinematics solution nearest to a
reference configuration — the robot's `home_joints_deg` turned about the base
toward the position (the arm over it, in the home's posture). `teach` gives
`joints` for the positions where that is one configuration whatever the tool
(home, approach points, tool stands, work positions of a single tool), for a
cell author who wants taught points rather than leaving the arm's
configuration to the path a plan takes there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from plan_verifier.collision.frames import pose_matrix
from plan_verifier.collision.scene import Scene
from plan_verifier.collision.tool_shape import ToolShape
from plan_verifier.graph.model import Cell, Position
from plan_verifier.kinematics.arm import Arm, arm_for
from plan_verifier.kinematics.bodies import body_set
from plan_verifier.motion.paths import joint_at, joint_samples
from plan_verifier.motion.start import Candidates, candidates
from plan_verifier.motion.sweep import sweep
from plan_verifier.motion.taught import TaughtJoints
from plan_verifier.robots.spec import RobotSpec

#: The label of the empty flange among the tools a position is checked with.
FLANGE = "the flange"


@dataclass(frozen=True, slots=True)
class LintProblem:
    """One thing wrong with the cell: `where` is a position or a move `A -> B`, `tool` what was on the flange."""

    where: str
    tool: str
    message: str


@dataclass(frozen=True)
class LintResult:
    cell: str
    robot: str
    problems: tuple[LintProblem, ...]
    #: Each position's configuration (degrees) as the checks used it; None when it has none (no pose, unreachable).
    configurations: dict[str, tuple[float, ...] | None]
    positions_checked: int
    moves_checked: int
    #: (position, tool) where no configuration within the joint limits is free of contact: the robot cannot stand there.
    no_free_configuration: tuple[tuple[str, str], ...] = ()


def lint_cell(cell: Cell, robot: RobotSpec) -> LintResult:
    arm = arm_for(robot)
    scene = Scene.from_cell(cell, default_floor_z_mm=robot.limits.z.min_mm)
    tools = [None, *cell.tools.values()]
    problems: list[LintProblem] = []
    configs: dict[str, tuple[float, ...] | None] = {}
    moves = sorted((a, b) for a, b in cell.edges if a < b or (b, a) not in cell.edges)
    taught = TaughtJoints(arm, cell)
    stranded: list[tuple[str, str]] = []
    for tool in tools:
        label = f"tool '{tool.name}'" if tool is not None else FLANGE
        at: dict[str, np.ndarray | None] = {}
        for name in sorted(cell.positions):
            q, problem = _configuration(arm, cell, cell.positions[name], tool, taught)
            at[name] = q
            if problem and not any(p.where == name and p.message == problem for p in problems):
                problems.append(LintProblem(name, label, problem))
            if tool is None or name not in configs or configs[name] is None:
                configs[name] = tuple(round(float(v), 3) for v in np.degrees(q)) if q is not None else None
            if q is not None and not problem and not taught.usable(cell.positions[name]):
                nowhere = _nowhere_to_stand(_candidates(arm, scene, cell, cell.positions[name], tool))
                if nowhere:
                    problems.append(LintProblem(name, label, nowhere))
                    stranded.append((name, label))
        paths, where = [], []
        for name, q in at.items():
            if q is not None and (name, label) not in stranded:  # its contacts are in the problem already
                paths.append((np.array([1.0]), q[None], _fixed))
                where.append(name)
        for a, b in moves:
            if at[a] is None or at[b] is None:
                continue
            qa, qb = at[a], arm.nearest([at[b]], at[a]) if not taught.usable(cell.positions[b]) else at[b]
            samples = joint_samples(qa, qb)
            paths.append((samples.s, samples.q, lambda s, near, qa=qa, qb=qb: (joint_at(qa, qb, s), np.ones(len(s), bool))))
            where.append(f"{a} -> {b}")
        bodies = body_set(arm, tool.shape if tool is not None else None)
        for place, result in zip(where, sweep(scene, bodies, paths)):
            problems.extend(_contacts(place, label, result, bodies, scene))
    return LintResult(cell.name, robot.name, tuple(problems), configs, len(cell.positions), len(moves), tuple(stranded))


def teach(cell: Cell, robot: RobotSpec) -> dict[str, tuple[float, ...]]:
    """`joints` for the posed positions that have none, where one configuration serves every tool: the one nearest to
    the reference configuration that the robot can stand in (keeping the clearance if any does), never one in contact."""
    arm = arm_for(robot)
    scene = Scene.from_cell(cell, default_floor_z_mm=robot.limits.z.min_mm)
    out = {}
    for name, position in sorted(cell.positions.items()):
        if position.joints is not None or position.pose is None or len(position.pose) != 6:
            continue
        if position.role == "work" and len(_work_tools(cell, position)) != 1:
            continue  # visited with several tools, each with its own TCP at the pose: no single configuration
        tool = _work_tools(cell, position)[0] if position.role == "work" else None
        chosen = _candidates(arm, scene, cell, position, tool).choice()
        if chosen is not None:
            out[name] = tuple(round(float(v), 3) for v in np.degrees(chosen.q))
    return out


def _configuration(arm: Arm, cell: Cell, position: Position, tool, taught: TaughtJoints) -> tuple[np.ndarray | None, str | None]:
    """The position's configuration (rad) with `tool` on the flange, or None with why there is none."""
    if taught.usable(position):
        q = np.radians(position.joints)
        if not np.all((q >= arm.lower - 1e-9) & (q <= arm.upper + 1e-9)):
            return q, f"joints {list(position.joints)} are outside the {arm.spec.model}'s joint limits"
        return q, None
    if position.pose is None:
        return None, None  # a position without coordinates: taught on the robot, nothing to check here
    if len(position.pose) != 6:
        return None, "the pose has no orientation (3 numbers): give 6 (x, y, z, rx, ry, rz) or joints"
    if position.role == "tool_mount" and cell.tool_at(position.name):
        tool = cell.tools[cell.tool_at(position.name)]
    tcp = pose_matrix(tool.tcp) if tool is not None and tool.tcp is not None else np.eye(4)
    result = arm.ik(pose_matrix(position.pose), tcp)
    label = f"tool '{tool.name}'" if tool is not None else FLANGE
    if not result.reachable:
        return None, f"no inverse-kinematics solution for its pose with {label} (misses by {result.position_miss_mm:.1f} mm)"
    q = arm.nearest(result.feasible, _reference(arm, position.pose))
    if q is None:
        return None, f"every inverse-kinematics solution for its pose puts a joint of the {arm.spec.model} outside its limits"
    return q, None


def _candidates(arm: Arm, scene: Scene, cell: Cell, position: Position, tool) -> Candidates:
    """The configurations the robot may stand in at a posed position with `tool` on the flange, nearest to the reference
    first (`motion.start`: the same check as a plan's assumed start)."""
    shape = tool.shape if tool is not None else None
    if position.role == "tool_mount" and cell.tool_at(position.name):
        tool = cell.tools[cell.tool_at(position.name)]
    tcp = pose_matrix(tool.tcp) if tool is not None and tool.tcp is not None else np.eye(4)
    return candidates(arm, scene, pose_matrix(position.pose), tcp, shape, _reference(arm, position.pose))


def _nowhere_to_stand(found: Candidates) -> str | None:
    """The problem of a position where every configuration within the limits touches something (None: one does not)."""
    if not found.within_limits or found.free:
        return None
    nearest = found.within_limits[0]
    touching = ", ".join(f"{c.body} {'and' if c.kind == 'self' else 'into'} {c.other} {c.depth_mm:.1f} mm deep" for c in nearest.contacts[:3])
    return (f"no configuration the robot can stand in: each of its {len(found.within_limits)} inverse-kinematics solutions within "
            f"the joint limits touches something (the nearest, {[round(v, 1) for v in nearest.joints_deg]}: {touching}); "
            f"no plan can start here, and one that moves here arrives in collision")


def _reference(arm: Arm, pose) -> np.ndarray:
    """The home configuration turned about the base toward `pose`."""
    home = arm.home.copy()
    x, y = arm.tcp_pose(home, np.eye(4))[:2, 3]
    home[0] += math.atan2(pose[1], pose[0]) - math.atan2(y, x)
    return home


def _work_tools(cell: Cell, position: Position) -> list:
    """The cell tools the routines supported at a work position need."""
    names = sorted({r.required_tool for r in cell.routines.values() if r.required_tool and position.name in r.supported_at})
    return [cell.tools[n] for n in names if n in cell.tools]


def _contacts(place: str, tool: str, result, bodies, scene: Scene) -> list[LintProblem]:
    out = []
    for b, body in enumerate(bodies.bodies):
        k = int(np.argmin(result.world[b]))
        d = float(result.world[b, k])
        if d < scene.clearance_mm and result.world_target[b, k] >= 0:
            other = scene.targets[int(result.world_target[b, k])]
            what = f"runs {-d:.1f} mm into {other}" if d < 0 else f"passes {d:.1f} mm from {other} (clearance {scene.clearance_mm:g} mm)"
            out.append(LintProblem(place, tool, f"{body.name} {what}"))
    for n, (a, c) in enumerate(bodies.pairs):
        d = float(np.min(result.own[n]))
        if d < 0:
            out.append(LintProblem(place, tool, f"{bodies.bodies[a].name} and {bodies.bodies[c].name} collide ({-d:.1f} mm deep)"))
    return out


def _fixed(s: np.ndarray, near: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return near, np.ones(len(s), dtype=bool)
