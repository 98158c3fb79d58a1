"""The distance engine: how far each robot body is from the floor, the cell's obstacles and the other bodies.

A `Scene` holds the floor plane and the obstacles with their world
transforms. `Scene.distances` takes the robot's bodies at N instants and
answers, per instant, each body's minimum signed distance to the world (and
what it is closest to) and each self-collision pair's signed distance, with
witness points. Negative distances are penetration depths.

How it stays fast and safe (docs/collision.md):

1. The floor is exact and vectorised (a convex body's lowest point in closed form).
2. A vectorised broad phase bounds every (body, obstacle, instant) and
   every (pair, instant) from below (bounds.py); capsule and sphere pairs are
   exact already.
3. Only what the broad phase cannot place at or beyond `cutoff_mm` goes to
   the exact narrow phase (narrow.py, coal), one library call each, and every
   penetration it reports is checked against a projection bound.

Every number returned is exact or a lower bound of the true signed distance,
never above it: each computed distance is lowered by `EXACT_MARGIN_MM` plus
`EXACT_MARGIN_PPM` of its size (the solver's tolerance and rounding) before it
is compared with anything, and a value is flagged exact only when it is. Below
the cut-off values are exact, except overlaps whose depth the library could not
give (then the projection bound, flagged); the cut-off is never below the
scene's clearance, so a clearance warning is never raised on a bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from plan_verifier.collision import bounds, narrow
from plan_verifier.collision.frames import pose_matrix
from plan_verifier.collision.shapes import Box, Cylinder, Mesh, Shape, Sphere


class CellGeometry(Protocol):
    """What a scene needs of a cell (`graph.model.Cell` has it): the collision layer does not know the graph."""

    floor_z_mm: float | None
    clearance_mm: float | None
    collision_objects: Mapping[str, Any]  # name -> object with `name`, `shape` and `pose` (x, y, z, rx, ry, rz)

#: Closer than this is a warning when the cell does not say (contract §7's example value).
DEFAULT_CLEARANCE_MM = 10.0
#: Subtracted from every computed distance so that exact values stay at or below the truth.
EXACT_MARGIN_MM = 1e-3
EXACT_MARGIN_PPM = 1.0
#: The name of the floor among the targets of a world distance.
FLOOR = "floor"
#: Instants are processed in blocks of about this many body-instants (at least _MIN_BLOCK instants).
_BLOCK_ELEMENTS = 4096
_MIN_BLOCK = 64


@dataclass(frozen=True, slots=True)
class Body:
    """A robot link or tool: a shape placed, instant by instant, by the frames passed with it.

    `check_floor` is False for a body that stands on the floor by design (the
    robot's base link); it is still checked against obstacles and other bodies.
    """

    name: str
    shape: Shape
    check_floor: bool = True


@dataclass(frozen=True, slots=True, eq=False)
class Obstacle:
    name: str
    shape: Box | Cylinder | Sphere
    #: The shape's centre frame in the robot base frame (4x4, read-only).
    transform: np.ndarray

    def __post_init__(self) -> None:
        frame = np.array(self.transform, dtype=float)
        frame.setflags(write=False)
        object.__setattr__(self, "transform", frame)


@dataclass(frozen=True, eq=False)
class Distances:
    """Signed distances (mm) at N instants. Arrays are read-only; witness points are NaN where not exact.

    World: for body b at instant n, `world_mm[b, n]` is its minimum signed
    distance to the floor and the obstacles, `targets[world_target[b, n]]`
    what it is closest to (-1: nothing to check), `world_points[b, n]` the
    witness on the body and on the target.

    Self: the same per pair of `pairs`, with points on the first and on the second body.
    """

    bodies: tuple[str, ...]
    targets: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    cutoff_mm: float  # the lowest cut-off applied: every value below it is exact
    clearance_mm: float
    world_mm: np.ndarray
    world_target: np.ndarray
    world_exact: np.ndarray
    world_points: np.ndarray
    self_mm: np.ndarray
    self_exact: np.ndarray
    self_points: np.ndarray

    def __post_init__(self) -> None:
        for name in ("world_mm", "world_target", "world_exact", "world_points", "self_mm", "self_exact", "self_points"):
            getattr(self, name).setflags(write=False)

    def target(self, body: int, instant: int) -> str | None:
        """What body `body` is closest to at `instant` (an obstacle name or `floor`)."""
        index = int(self.world_target[body, instant])
        return self.targets[index] if index >= 0 else None

    @property
    def world_within_clearance(self) -> np.ndarray:
        """(B, N): closer to the world than the clearance (penetrations included)."""
        return self.world_mm < self.clearance_mm

    @property
    def self_within_clearance(self) -> np.ndarray:
        """(P, N): pairs closer than the clearance (penetrations included)."""
        return self.self_mm < self.clearance_mm


@dataclass(frozen=True, eq=False)
class Scene:
    floor_z_mm: float
    clearance_mm: float = DEFAULT_CLEARANCE_MM
    obstacles: tuple[Obstacle, ...] = ()
    _boxes: bounds.BoxSet = field(init=False, repr=False)
    #: The scene as a value (floor, clearance, obstacles with their shapes and placements): equal keys, equal distances.
    key: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.floor_z_mm) and math.isfinite(self.clearance_mm) and self.clearance_mm >= 0):
            raise ValueError("the floor height must be a finite number and the clearance a finite number >= 0")
        names = [o.name for o in self.obstacles]
        if len(set(names)) != len(names) or FLOOR in names:
            raise ValueError(f"obstacle names must be unique and not '{FLOOR}'")
        object.__setattr__(self, "obstacles", tuple(self.obstacles))
        # The broad phase's view of every obstacle: a box (cylinders and spheres by their bounding boxes).
        rotations = np.array([o.transform[:3, :3] for o in self.obstacles]).reshape(-1, 3, 3)
        centres = np.array([o.transform[:3, 3] for o in self.obstacles]).reshape(-1, 3)
        halves = np.array([_half_extents(o.shape) for o in self.obstacles]).reshape(-1, 3)
        object.__setattr__(self, "_boxes", bounds.BoxSet.of(rotations, centres, halves))
        object.__setattr__(self, "key", (float(self.floor_z_mm), float(self.clearance_mm),
                                         tuple((o.name, o.shape, o.transform.tobytes()) for o in self.obstacles)))

    @classmethod
    def from_cell(cls, cell: CellGeometry, *, default_floor_z_mm: float, default_clearance_mm: float = DEFAULT_CLEARANCE_MM) -> "Scene":
        """The cell's floor, clearance and collision objects; the defaults apply where the cell gives none
        (pass the robot spec's lowest Z, `limits.z.min_mm`, as the floor)."""
        return cls(
            floor_z_mm=cell.floor_z_mm if cell.floor_z_mm is not None else float(default_floor_z_mm),
            clearance_mm=cell.clearance_mm if cell.clearance_mm is not None else float(default_clearance_mm),
            obstacles=tuple(Obstacle(o.name, o.shape, pose_matrix(o.pose)) for _, o in sorted(cell.collision_objects.items())),
        )

    @property
    def targets(self) -> tuple[str, ...]:
        return (FLOOR, *(o.name for o in self.obstacles))

    def distances(self, bodies: Sequence[Body], frames: np.ndarray | Sequence[np.ndarray],
                  self_pairs: Sequence[tuple[int | str, int | str]] = (), cutoff_mm: float | np.ndarray = math.inf,
                  self_cutoff_mm: np.ndarray | None = None) -> Distances:
        """Signed distances of `bodies` placed by `frames` ((B, N, 4, 4), or B arrays of (N, 4, 4)).

        `self_pairs` names the body pairs to check against each other (by index
        or name). Distances at or above `cutoff_mm` (raised to the clearance
        if lower) may be returned as lower bounds; below it they are exact.
        The cut-off is one number, or one per body and instant (B, N) — the
        sweep's, which needs exact values only where a sample's own segments
        could not be proven clear by a bound — with `self_cutoff_mm` (P, N)
        then the pairs' (default: the cut-off, when it is one number).
        """
        frames = _frames(frames, len(bodies))
        pairs = _pairs(bodies, self_pairs)
        n_bodies, n = frames.shape[:2]
        cutoff = np.maximum(np.broadcast_to(np.asarray(cutoff_mm, dtype=float), (n_bodies, n)), self.clearance_mm)
        own_cutoff = cutoff_mm if self_cutoff_mm is None else self_cutoff_mm
        own_cutoff = np.maximum(np.broadcast_to(np.asarray(own_cutoff, dtype=float), (len(pairs), n)), self.clearance_mm)
        table = bounds.ShapeTable.of([b.shape for b in bodies])
        checks_floor = np.array([b.check_floor for b in bodies], dtype=bool)
        world = (np.empty((n_bodies, n)), np.empty((n_bodies, n), dtype=int), np.empty((n_bodies, n), dtype=bool),
                 np.empty((n_bodies, n, 2, 3)))
        own = (np.empty((len(pairs), n)), np.empty((len(pairs), n), dtype=bool), np.empty((len(pairs), n, 2, 3)))
        # Instants in blocks: numpy's temporaries then stay small enough to be recycled by the
        # allocator instead of being mapped and page-faulted afresh (which doubled the cost).
        block = max(_MIN_BLOCK, _BLOCK_ELEMENTS // max(n_bodies, len(pairs), 1))
        for first in range(0, n, block):
            part = slice(first, first + block)
            placed = frames[:, part]
            t = bounds.rows(placed)
            cores = bounds.cores(table, t)
            for out, value in zip(world, self._world(bodies, checks_floor, placed, t, table, cores, cutoff[:, part])):
                out[:, part] = value
            for out, value in zip(own, _self(bodies, placed, table, cores, pairs, own_cutoff[:, part])):
                out[:, part] = value
        lowest = float(cutoff.min()) if cutoff.size else max(float(np.min(cutoff_mm, initial=math.inf)), self.clearance_mm)
        return Distances(
            bodies=tuple(b.name for b in bodies), targets=self.targets,
            pairs=tuple((bodies[i].name, bodies[j].name) for i, j in pairs),
            cutoff_mm=lowest, clearance_mm=self.clearance_mm,
            world_mm=world[0], world_target=world[1], world_exact=world[2], world_points=world[3],
            self_mm=own[0], self_exact=own[1], self_points=own[2],
        )

    def _world(self, bodies: Sequence[Body], checks_floor: np.ndarray, frames: np.ndarray, t: np.ndarray,
               table: bounds.ShapeTable, cores: bounds.Cores, cutoff: np.ndarray):
        n_bodies, n = frames.shape[:2]
        n_obstacles = len(self.obstacles)
        values = np.empty((1 + n_obstacles, n_bodies, n))
        exact = np.zeros(values.shape, dtype=bool)
        floor_d, lowest = bounds.floor_distance(table, t, self.floor_z_mm)
        exact[0] = (checks_floor & ~np.array([isinstance(b.shape, Mesh) for b in bodies], dtype=bool))[:, None]
        for b, body in enumerate(bodies):  # a mesh's floor distance: its enclosing capsule's, then its lowest hull vertex
            if isinstance(body.shape, Mesh) and checks_floor[b]:
                near = np.flatnonzero(floor_d[b] < cutoff[b])
                if near.size:
                    placed = frames[b, near]
                    hull = body.shape.hull
                    # Term by term, not a matrix product: an instant's value must not depend on how many are computed
                    # together (`collision.bounds`).
                    heights = placed[:, 2, 0:1] * hull[:, 0] + placed[:, 2, 1:2] * hull[:, 1] + placed[:, 2, 2:3] * hull[:, 2]
                    heights += placed[:, 2, 3:4]  # (K, H)
                    low = np.argmin(heights, axis=1)
                    floor_d[b, near] = heights[np.arange(len(near)), low] - self.floor_z_mm
                    vertex = hull[low]  # (K, 3)
                    lowest[:, b, near] = (placed[:, :3, 0] * vertex[:, 0:1] + placed[:, :3, 1] * vertex[:, 1:2]
                                          + placed[:, :3, 2] * vertex[:, 2:3] + placed[:, :3, 3]).T
                    exact[0, b, near] = True
        values[0] = np.where(checks_floor[:, None], _lowered(floor_d), np.inf)
        narrowed: list[tuple[int, int, np.ndarray, np.ndarray]] = []  # (body, target, instants, points (K, 2, 3))
        if n_obstacles:
            gaps = bounds.segment_box_gap(cores.centre.reshape(3, -1), cores.half.reshape(3, -1), self._boxes)
            values[1:] = gaps.reshape(n_obstacles, n_bodies, n)
            values[1:] -= table.radius[None, :, None]
            values[1:] = _lowered(values[1:])
            near = values[1:] < cutoff
            for o, b in zip(*np.nonzero(near.any(axis=2))):
                instants = np.flatnonzero(near[o, b])
                obstacle = self.obstacles[o]
                d, ok, pts = _narrow(bodies[b].shape, frames[b, instants], obstacle.shape,
                                     np.broadcast_to(obstacle.transform, (len(instants), 4, 4)), cutoff[b, instants])
                values[1 + o, b, instants] = d
                exact[1 + o, b, instants] = ok
                narrowed.append((b, 1 + o, instants, pts))
        target = np.argmin(values, axis=0)
        best = np.take_along_axis(values, target[None], axis=0)[0]
        best_exact = np.take_along_axis(exact, target[None], axis=0)[0]
        target[np.isinf(best)] = -1
        points = np.full((n_bodies, n, 2, 3), np.nan)
        on_floor = target == 0
        points[on_floor, 0] = lowest.transpose(1, 2, 0)[on_floor]
        points[on_floor, 1] = points[on_floor, 0]
        points[on_floor, 1, 2] = self.floor_z_mm
        for b, k, instants, pts in narrowed:
            chosen = target[b, instants] == k
            points[b, instants[chosen]] = pts[chosen]
        return best, target, best_exact, points


# --------------------------------------------------------------------------- self-collision


def _self(bodies: Sequence[Body], frames: np.ndarray, table: bounds.ShapeTable, cores: bounds.Cores,
          pairs: list[tuple[int, int]], cutoff: np.ndarray):
    n = frames.shape[1]
    if not pairs:
        return np.zeros((0, n)), np.zeros((0, n), bool), np.zeros((0, n, 2, 3))
    first = np.array([i for i, _ in pairs])
    second = np.array([j for _, j in pairs])
    start, end = cores.start, cores.end
    on_a, on_b = bounds.segment_closest(start[:, first], end[:, first], start[:, second], end[:, second])
    between = on_b - on_a
    length = np.sqrt(bounds.dot(between, between))
    radius_a = table.radius[first][:, None]
    radius_b = table.radius[second][:, None]
    values = _lowered(length - radius_a - radius_b)
    unit = np.divide(between, length, out=np.zeros_like(between), where=length > 0.0)
    on_a += unit * radius_a
    on_b -= unit * radius_b
    points = np.stack([on_a, on_b]).transpose(2, 3, 0, 1)  # (P, N, 2, 3)
    pair_exact = table.exact[first] & table.exact[second]
    exact = np.repeat(pair_exact[:, None], n, axis=1)
    for p in np.flatnonzero(~pair_exact):
        i, j = pairs[p]
        points[p] = np.nan
        instants = np.flatnonzero(values[p] < cutoff[p])
        if instants.size:
            values[p, instants], exact[p, instants], points[p, instants] = _narrow(
                bodies[i].shape, frames[i, instants], bodies[j].shape, frames[j, instants], cutoff[p, instants])
    return values, exact, points


# --------------------------------------------------------------------------- helpers


def _narrow(shape_a: Shape, frames_a: np.ndarray, shape_b: Shape, frames_b: np.ndarray, cutoff: np.ndarray):
    """(distance, exact, points (K,2,3)) from the library, checked against the projection bound.

    Where the library failed, or put a penetration deeper than the projections
    allow (EPA is approximate for curved shapes in degenerate overlaps), the
    projection bound is the answer: a lower bound, flagged not exact, no points.
    Meshes take `narrow.mesh_distances` (hull, triangles, exact distance).
    """
    if isinstance(shape_a, Mesh) or isinstance(shape_b, Mesh):
        d, ok, points = narrow.mesh_distances(shape_a, frames_a, shape_b, frames_b, np.asarray(cutoff, dtype=float))
        return _lowered(d), ok, points
    d, on_a, on_b = narrow.signed_distances(shape_a, frames_a, shape_b, frames_b)
    points = np.stack([on_a, on_b], axis=1)
    check = ~(d >= 0.0)  # penetrations and failures (NaN)
    ok = np.ones(d.shape, dtype=bool)
    if check.any():
        projected = bounds.projection_bound(shape_a, frames_a[check], shape_b, frames_b[check])
        replace = ~(d[check] >= projected - 1e-6 * (1.0 + np.abs(projected)))  # NaN, or deeper than possible beyond rounding
        ok[np.flatnonzero(check)[replace]] = False
        d[~ok] = projected[replace]
        points[~ok] = np.nan
    return _lowered(d), ok, points


def _lowered(values: np.ndarray) -> np.ndarray:
    """Computed distances minus the safety margin, before anything is compared with the cut-off."""
    return values - (EXACT_MARGIN_MM + EXACT_MARGIN_PPM * 1e-6 * np.abs(values))


def _half_extents(shape: Shape) -> tuple[float, float, float]:
    if isinstance(shape, Box):
        return (shape.sx / 2.0, shape.sy / 2.0, shape.sz / 2.0)
    if isinstance(shape, Cylinder):
        return (shape.radius, shape.radius, shape.length / 2.0)
    if isinstance(shape, Sphere):
        return (shape.radius,) * 3
    raise TypeError(f"an obstacle is a box, cylinder or sphere, not {shape!r}")


def _frames(frames: np.ndarray | Sequence[np.ndarray], count: int) -> np.ndarray:
    out = np.asarray(frames if isinstance(frames, np.ndarray) else np.stack([np.asarray(f) for f in frames]) if count else np.zeros((0, 0, 4, 4)),
                     dtype=float)
    if out.ndim != 4 or out.shape[0] != count or out.shape[2:] != (4, 4):
        raise ValueError(f"frames must have shape (bodies={count}, instants, 4, 4), not {out.shape}")
    if not np.isfinite(out).all():
        raise ValueError("frames must be finite")
    return out


def _pairs(bodies: Sequence[Body], pairs: Sequence[tuple[int | str, int | str]]) -> list[tuple[int, int]]:
    index = {b.name: i for i, b in enumerate(bodies)}
    if len(index) != len(bodies):
        raise ValueError("body names must be unique")
    out = []
    for pair in pairs:
        try:
            i, j = (index[p] if isinstance(p, str) else int(p) for p in pair)
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"a self-collision pair names two bodies by index or name: {pair!r}") from None
        if not (0 <= i < len(bodies) and 0 <= j < len(bodies)) or i == j:
            raise ValueError(f"a self-collision pair names two different bodies: {pair!r}")
        out.append((i, j))
    return out
