"""The repair's narrow view of the execution level's model: kinematics, the tool on the flange, the cell's
collision scene, and the exact swept check of one joint move.

Everything here is the model the checks use (`kinematics.arm`, `kinematics.bodies`,
`collision.scene`, `motion.sweep`) asked the repair's questions: which configurations
reach a pose, whether a configuration is clear, whether a joint move is. Nothing
here decides a verdict: every repaired plan goes through the whole pipeline.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from plan_verifier.collision.frames import pose_matrix as cell_pose_matrix
from plan_verifier.collision.scene import Body as SceneBody
from plan_verifier.collision.scene import Scene
from plan_verifier.collision.shapes import Box, Cylinder
from plan_verifier.collision.tool_shape import ToolShape
from plan_verifier.graph.model import Cell
from plan_verifier.kinematics.arm import Arm, arm_for
from plan_verifier.kinematics.bodies import BodySet, body_set
from plan_verifier.motion.paths import joint_samples
from plan_verifier.motion.sweep import sweep
from plan_verifier.robots.spec import RobotSpec


@dataclass(frozen=True)
class Mount:
    """The tool on the flange: its TCP (flange -> TCP) and its shape (None: the bare flange)."""

    tcp: np.ndarray
    shape: ToolShape | None


class MotionModel:
    """One robot in one cell, as the execution level models it."""

    def __init__(self, robot: RobotSpec, cell: Cell | None):
        self.robot = robot
        self.arm: Arm = arm_for(robot)
        self.cell = cell
        floor = robot.limits.z.min_mm
        self.scene = Scene.from_cell(cell, default_floor_z_mm=floor) if cell is not None else Scene(floor_z_mm=floor)
        self._bodies = functools.lru_cache(maxsize=16)(self._body_set)

    # ------------------------------------------------------------------ tools

    def mount(self, tool_number: int | None = None, cell_tool: str | None = None) -> Mount:
        """A TDL tool number of the robot spec, or a cell tool by name; the bare flange when neither is defined
        (the pipeline reports an undefined tool, R-KIN-006)."""
        if cell_tool is not None and self.cell is not None and cell_tool in self.cell.tools:
            tool = self.cell.tools[cell_tool]
            return Mount(cell_pose_matrix(tool.tcp) if tool.tcp is not None else np.eye(4), tool.shape)
        if tool_number is not None and tool_number in self.robot.tools:
            return Mount(self.arm.tcp(tool_number), self.robot.tools[tool_number].tool_shape)
        return Mount(np.eye(4), None)

    def bodies(self, mount: Mount) -> BodySet:
        return self._bodies(mount.shape)

    def _body_set(self, shape: ToolShape | None) -> BodySet:
        return body_set(self.arm, shape)

    # ------------------------------------------------------------------ poses and configurations

    def pose(self, values, convention: str | None = None) -> np.ndarray:
        """A pose as a plan writes it (the robot's convention; "rpy": a cell pose) as a 4x4 transform."""
        return cell_pose_matrix(values) if convention == "rpy" else self.arm.pose_matrix(values)

    def solutions(self, pose: np.ndarray, mount: Mount) -> np.ndarray:
        """Every IK solution of a TCP pose with some 2 pi variant within the joint limits (K, 6), rad."""
        result = self.arm.ik(pose, mount.tcp, q_near=self.arm.home)
        return np.array([s.q for s in result.feasible]).reshape(-1, 6)

    def nearest(self, solutions: np.ndarray, q: np.ndarray) -> np.ndarray | None:
        """The controller's choice among `solutions` from configuration `q` (contract §7)."""
        return self.arm.nearest(solutions, q) if len(solutions) else None

    def variant_near(self, q: np.ndarray, near: np.ndarray) -> np.ndarray | None:
        """The 2 pi variant of configuration `q` within limits nearest to `near`."""
        return self.arm.nearest(q[None], near)

    # ------------------------------------------------------------------ collisions

    def clearance(self, mount: Mount, q: np.ndarray) -> np.ndarray:
        """(N,) for configurations (N, 6): the least distance (mm) to the floor and the obstacles, less the cell's
        clearance, and to the robot's own bodies (contact only, as the checks): negative = the checks object."""
        q = np.atleast_2d(np.asarray(q, dtype=float))
        bodies = self.bodies(mount)
        shapes = [SceneBody(b.name, b.shape, check_floor=b.link != 0) for b in bodies.bodies]
        found = self.scene.distances(shapes, np.swapaxes(bodies.poses(q), 0, 1), list(bodies.pairs),
                                     cutoff_mm=self.scene.clearance_mm + 1.0)
        world = found.world_mm.min(axis=0) - self.scene.clearance_mm if found.world_mm.size else np.full(len(q), np.inf)
        own = found.self_mm.min(axis=0) if found.self_mm.size else np.full(len(q), np.inf)
        return np.minimum(world, own)

    def quick_clearance(self, mount: Mount, q: np.ndarray) -> np.ndarray:
        """(N,): a lower bound on `clearance` from the bodies' bounding capsules alone (the link capsules are the
        checks' own link model; a tool's capsule encloses its shape), with no exact narrow phase: cheap enough
        for a planner to ask configuration by configuration, and never more optimistic than the checks."""
        q = np.atleast_2d(np.asarray(q, dtype=float))
        bodies = self.bodies(mount)
        ends = bodies.segments(q)  # (N, B, 2, 3)
        radii = bodies.radii
        floored = np.array([b.link != 0 for b in bodies.bodies])
        floor = ends[..., 2].min(axis=-1) - radii - self.scene.floor_z_mm
        world = np.where(floored, floor, np.inf).min(axis=-1)
        if self.scene.obstacles:
            t = np.linspace(0.0, 1.0, _POINTS)
            points = ends[..., 0, None, :] + t[:, None] * (ends[..., 1, None, :] - ends[..., 0, None, :])  # (N, B, K, 3)
            gap = np.linalg.norm(ends[..., 1, :] - ends[..., 0, :], axis=-1) / (2 * (_POINTS - 1))  # farthest capsule axis point from a sample
            for obstacle in self.scene.obstacles:
                d = _point_distance(obstacle, points).min(axis=-1) - radii - gap
                world = np.minimum(world, d.min(axis=-1))
        own = bodies.self_distances(q).min(axis=-1) if len(bodies.pairs) else np.full(len(q), np.inf)
        return np.minimum(world - self.scene.clearance_mm, own)

    def quick_move_clear(self, mount: Mount, q0: np.ndarray, q1: np.ndarray, step_mm: float = 10.0) -> bool:
        """A joint move proven clear by `quick_clearance` at samples no body travels more than `step_mm` between
        (conservative advancement: half the step of clearance at every sample covers the stretch between)."""
        bodies = self.bodies(mount)
        travel = float(bodies.motion_bound(q0, q1).max())
        n = max(1, int(np.ceil(travel / step_mm)))
        s = np.linspace(0.0, 1.0, n + 1)[:, None]
        return bool(np.all(self.quick_clearance(mount, q0 + s * (q1 - q0)) >= step_mm / 2.0))

    def joint_move_clear(self, mount: Mount, q0: np.ndarray, q1: np.ndarray) -> bool:
        """Whether a joint move q0 -> q1 keeps the clearance to the floor and obstacles and touches nothing of
        the robot itself at every instant: the checks' conservative-advancement sweep (`motion.sweep`)."""
        return self.joint_moves_clear(mount, [(q0, q1)])[0]

    def joint_moves_clear(self, mount: Mount, moves: list[tuple[np.ndarray, np.ndarray]]) -> list[bool]:
        bodies = self.bodies(mount)
        paths = []
        for q0, q1 in moves:
            samples = joint_samples(np.asarray(q0, float), np.asarray(q1, float))
            paths.append((samples.s, samples.q, _JointPath(np.asarray(q0, float), np.asarray(q1, float))))
        out = []
        for result in sweep(self.scene, bodies, paths):
            world = result.world
            ok = result.proven and (not world.size or float(world.min()) >= self.scene.clearance_mm)
            out.append(bool(ok and (not result.own.size or float(result.own.min()) >= 0.0)))
        return out


_POINTS = 5  # samples along each capsule axis for the obstacles' lower bound


def _point_distance(obstacle, points: np.ndarray) -> np.ndarray:
    """Distance (mm, 0 inside) of points (..., 3) from an obstacle (box, cylinder or sphere)."""
    local = (points - obstacle.transform[:3, 3]) @ obstacle.transform[:3, :3]
    shape = obstacle.shape
    if isinstance(shape, Box):
        outside = np.maximum(np.abs(local) - np.array([shape.sx, shape.sy, shape.sz]) / 2.0, 0.0)
        return np.linalg.norm(outside, axis=-1)
    if isinstance(shape, Cylinder):
        radial = np.maximum(np.linalg.norm(local[..., :2], axis=-1) - shape.radius, 0.0)
        axial = np.maximum(np.abs(local[..., 2]) - shape.length / 2.0, 0.0)
        return np.hypot(radial, axial)
    return np.maximum(np.linalg.norm(local, axis=-1) - shape.radius, 0.0)


class _JointPath:
    def __init__(self, q0: np.ndarray, q1: np.ndarray):
        self.q0, self.q1 = q0, q1

    def __call__(self, s: np.ndarray, near: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.q0 + s[:, None] * (self.q1 - self.q0), np.ones(len(s), dtype=bool)
