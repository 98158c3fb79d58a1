"""Vectorised geometry of the distance engine: everything that runs on all bodies and instants at once.

Every body is bounded by a *core*: a segment swept by a sphere that contains
it (a capsule is its own core, a cylinder's core has the cylinder's axis and
radius, a box's runs along its longest edge with the half-diagonal of the
other two edges as radius). Three computations run on cores:

* the floor: a convex body's lowest point, in closed form for each shape, so
  the floor distance is exact;
* segment to segment: exact closest points (the clamped minimiser of the
  squared distance), hence exact capsule-capsule and capsule-sphere distances
  and a lower bound for every other pair of cores;
* segment to box: the distance from the box to the segment's axis-aligned
  bounding box *in the box's frame*, a lower bound of the segment's distance
  to the box that costs two rotations for all bodies, instants and
  obstacles (cylinders and spheres are bounded by their boxes).

Lower bounds hold only where they are positive (a core that touches an
obstacle says nothing about how deep it is), which is why the query never
keeps a bound below its cut-off and the cut-off is never negative.

Layout: arrays are structure-of-arrays, coordinates first - a (3, B, N)
array holds x, y and z of B bodies at N instants as three contiguous blocks -
because numpy runs element-wise arithmetic on contiguous blocks several times
faster than reductions over a short trailing axis of 3.

Element-wise only: every sum of products here is written out term by term
(`dot`, `_dot_last`), never as `einsum` or a matrix product. Those pick their
kernels (FMA or not, BLAS blocking) by the arrays' shapes, so an instant's
value would change in its last bits with the number of instants computed
together — and the sweep batches the motions of a plan, caches each motion's
result, and must give a motion the same distances whatever it was swept with
(test_sweep.py). Element-wise IEEE arithmetic is exact per element, whatever
the layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from plan_verifier.collision.shapes import Box, Capsule, Cylinder, Mesh, Shape, Sphere

#: Squared lengths below this (mm²) are points; a segment pair whose a·e - b² is below this
#: fraction of a·e (an angle below ~1e-4 rad) takes the exact edge search instead of the interior solve.
_POINT_MM2 = 1e-12
_PARALLEL = 1e-8


def rows(frames: np.ndarray) -> np.ndarray:
    """(3, 4, B, N): the top three rows of (B, N, 4, 4) frames, each entry a contiguous (B, N) block."""
    return np.ascontiguousarray(frames[:, :, :3, :].transpose(2, 3, 0, 1))


@dataclass(frozen=True, eq=False)
class ShapeTable:
    """Per-body constants of the bounds, read once from the bodies' shapes.

    Core: the frame axis the core runs along, its half length, its radius,
    whether the capsule is the body. Floor: half-edges along the body's axes,
    a radius straight down (capsule, sphere) and one across an end disc
    (cylinder).
    """

    axis: np.ndarray         # (B,) int
    half_length: np.ndarray  # (B,)
    radius: np.ndarray       # (B,)
    exact: np.ndarray        # (B,) bool
    edge: np.ndarray         # (3, B)
    ball: np.ndarray         # (B,)
    disc: np.ndarray         # (B,)

    @classmethod
    def of(cls, shapes: Sequence[Shape]) -> "ShapeTable":
        n = len(shapes)
        axis, half_length, radius, exact = np.full(n, 2), np.zeros(n), np.zeros(n), np.zeros(n, dtype=bool)
        edge, ball, disc = np.zeros((3, n)), np.zeros(n), np.zeros(n)
        for b, shape in enumerate(shapes):
            if isinstance(shape, (Capsule, Mesh)):  # a mesh by its enclosing capsule: a bound, refined by the scene
                half_length[b] = edge[2, b] = shape.length / 2.0
                radius[b] = ball[b] = shape.radius
                exact[b] = isinstance(shape, Capsule)
            elif isinstance(shape, Cylinder):
                half_length[b] = edge[2, b] = shape.length / 2.0
                radius[b] = disc[b] = shape.radius
            elif isinstance(shape, Sphere):
                radius[b] = ball[b] = shape.radius
                exact[b] = True
            elif isinstance(shape, Box):
                halves = (shape.sx / 2.0, shape.sy / 2.0, shape.sz / 2.0)
                edge[:, b] = halves
                axis[b] = int(np.argmax(halves))
                half_length[b] = halves[axis[b]]
                radius[b] = float(np.hypot(*(h for i, h in enumerate(halves) if i != axis[b])))
            else:
                raise TypeError(f"not a collision shape: {shape!r}")
        return cls(axis, half_length, radius, exact, edge, ball, disc)


@dataclass(frozen=True, eq=False)
class Cores:
    """The bodies' cores: segments centre ± half, with the table's radii."""

    centre: np.ndarray  # (3, B, N)
    half: np.ndarray    # (3, B, N)

    @property
    def start(self) -> np.ndarray:
        return self.centre - self.half

    @property
    def end(self) -> np.ndarray:
        return self.centre + self.half


def cores(table: ShapeTable, t: np.ndarray) -> Cores:
    """Cores of the bodies placed by `t` (the (3, 4, B, N) rows of their frames)."""
    columns = t[:, table.axis, np.arange(len(table.axis))]  # (3, B, N): each body's core axis
    columns *= table.half_length[None, :, None]
    return Cores(np.ascontiguousarray(t[:, 3]), columns)


def floor_distance(table: ShapeTable, t: np.ndarray, floor_z: float) -> tuple[np.ndarray, np.ndarray]:
    """(signed distance (B, N), lowest point (3, B, N)) of each body above the plane z = floor_z.

    A convex body's lowest point in closed form: the centre, minus each box
    half-edge along the downward sign of its axis, minus a capsule's or
    sphere's radius straight down, minus a cylinder's radius along the
    steepest direction of its end disc. Exact; negative is the penetration
    depth (lifting the body by that much clears the floor).
    """
    point = t[:, 3].copy()
    for k in range(3):
        if table.edge[k].any():
            down = np.sign(t[2, k])  # (B, N): move against the axis where it points up
            down *= table.edge[k][:, None]
            point -= t[:, k] * down
    point[2] -= table.ball[:, None]
    if table.disc.any():
        # The steepest direction in the end disc: up minus its component along the axis c,
        # (-c_z c_x, -c_z c_y, c_x² + c_y²) - written without 1 - c_z², which cancels near vertical.
        cx, cy, cz = t[0, 2], t[1, 2], t[2, 2]
        tilt = cx * cx + cy * cy
        across = np.stack([-cz * cx, -cz * cy, tilt])
        norm = np.sqrt(dot(across, across))
        scale = np.divide(table.disc[:, None], norm, out=np.zeros_like(norm), where=norm > 0.0)
        across *= scale
        point -= across
    return point[2] - floor_z, point


def segment_closest(p0: np.ndarray, p1: np.ndarray, q0: np.ndarray, q1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Closest points (3, …) of segments p0-p1 and q0-q1, given as (3, …) arrays.

    Minimises |p(s) - q(t)|² over the square [0,1]². Where the segments cross
    at an angle: the interior minimiser with s clamped, t re-solved and, if it
    leaves [0,1], clamped with s re-solved (a convex quadratic, so this lands
    on the minimum). Where they are (nearly) parallel, or one is a point, that
    is ill-conditioned, so the minimum is also taken over the square's four
    edges - one parameter at 0 or 1, the other the clamped projection - which
    is exact for parallel segments and points, and the smaller of that and the
    interior solution is kept (nearly parallel segments that cross inside both
    are closest at the crossing, on no edge). The points lie on the segments,
    so rounding can only make the distance larger than the true minimum, by
    far less than a micrometre at robot scale.
    """
    # In place where possible: temporaries of these sizes cost more than the arithmetic.
    d1 = p1 - p0
    d2 = q1 - q0
    r = p0 - q0
    a, e, b = dot(d1, d1), dot(d2, d2), dot(d1, d2)
    c, f = dot(d1, r), dot(d2, r)
    ae = a * e
    denom = ae - b * b
    crossing = denom > _PARALLEL * ae  # false for parallel pairs and for points (a·e = 0)
    with np.errstate(divide="ignore", invalid="ignore"):  # the values where it divides by 0 are replaced below
        s = b * f
        s -= c * e
        s /= denom
        _unit(s)
        t = b * s
        t += f
        t /= e
        below, above = t < 0.0, t > 1.0
        s[below] = np.clip(-c[below] / a[below], 0.0, 1.0)
        s[above] = np.clip((b[above] - c[above]) / a[above], 0.0, 1.0)
        _unit(t)
    special = ~crossing
    if special.any():
        a_, e_, b_, c_, f_, rr = a[special], e[special], b[special], c[special], f[special], dot(r, r)[special]
        s_edge, t_edge = _edge_minimum(a_, e_, b_, c_, f_, rr)
        s_in, t_in = s[special], t[special]
        inside = np.isfinite(s_in) & np.isfinite(t_in)
        s_in, t_in = np.where(inside, s_in, s_edge), np.where(inside, t_in, t_edge)
        edge_wins = _squared(s_edge, t_edge, a_, e_, b_, c_, f_, rr) <= _squared(s_in, t_in, a_, e_, b_, c_, f_, rr)
        s[special], t[special] = np.where(edge_wins, s_edge, s_in), np.where(edge_wins, t_edge, t_in)
    d1 *= s
    d1 += p0
    d2 *= t
    d2 += q0
    return d1, d2


def _edge_minimum(a, e, b, c, f, rr) -> tuple[np.ndarray, np.ndarray]:
    """(s, t) minimising |r + s·d1 - t·d2|² on the edges of [0,1]² (for parallel segments and points)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        along_q = lambda s: np.where(e > _POINT_MM2, np.clip((b * s + f) / e, 0.0, 1.0), 0.0)  # noqa: E731
        along_p = lambda t: np.where(a > _POINT_MM2, np.clip((b * t - c) / a, 0.0, 1.0), 0.0)  # noqa: E731
        zeros, ones = np.zeros_like(a), np.ones_like(a)
        candidates = [(zeros, along_q(zeros)), (ones, along_q(ones)), (along_p(zeros), zeros), (along_p(ones), ones)]
    squared = np.stack([_squared(s, t, a, e, b, c, f, rr) for s, t in candidates])
    best = np.argmin(squared, axis=0)
    s = np.choose(best, [s for s, _ in candidates])
    t = np.choose(best, [t for _, t in candidates])
    return s, t


def _squared(s, t, a, e, b, c, f, rr):
    """|r + s·d1 - t·d2|² from the dot products."""
    return rr + a * s * s + e * t * t + 2 * c * s - 2 * f * t - 2 * b * s * t


@dataclass(frozen=True, eq=False)
class BoxSet:
    """O boxes as the segment-box bound needs them, computed once per scene."""

    axes: np.ndarray     # (3O, 3): row 3o+j is box o's axis j
    offsets: np.ndarray  # (3O, 1): the box centres along those axes
    halves: np.ndarray   # (3O, 1): the half extents

    @classmethod
    def of(cls, rotations: np.ndarray, centres: np.ndarray, halves: np.ndarray) -> "BoxSet":
        n = rotations.shape[0]
        axes = np.ascontiguousarray(rotations.transpose(0, 2, 1).reshape(3 * n, 3))
        offsets = _dot_last(np.swapaxes(rotations, 1, 2), centres[:, None, :]).reshape(-1, 1)
        return cls(axes, offsets, np.asarray(halves, dtype=float).reshape(-1, 1))


def segment_box_gap(centre: np.ndarray, half: np.ndarray, boxes: BoxSet) -> np.ndarray:
    """(O, M) lower bounds of the distance from M segments (centre ± half, (3, M)) to O boxes; 0 where they may touch.

    Each segment's midpoint and half-vector are expressed in every box's frame
    with one rotation each; the distance from the box to the segment's
    axis-aligned bounding box in that frame bounds the segment's distance from
    below (the segment lies inside that bounding box). Exact for a point and
    for a segment parallel to a box axis.
    """
    # In place throughout: fresh temporaries of this size cost more than the arithmetic.
    term = np.empty((boxes.axes.shape[0], centre.shape[1]))
    gap = _rotate(boxes.axes, centre, term)
    gap -= boxes.offsets
    np.abs(gap, out=gap)
    spread = _rotate(boxes.axes, half, term)
    np.abs(spread, out=spread)
    gap -= spread
    gap -= boxes.halves
    np.maximum(gap, 0.0, out=gap)
    gap *= gap
    per_box = gap.reshape(-1, 3, gap.shape[1])  # each box's three axes summed
    out = np.add(per_box[:, 0], per_box[:, 1])
    out += per_box[:, 2]
    return np.sqrt(out, out=out)


def _rotate(axes: np.ndarray, points: np.ndarray, term: np.ndarray) -> np.ndarray:
    """(R, M): `axes` (R, 3) applied to `points` (3, M), term by term; `term` is scratch space, overwritten."""
    out = np.multiply(axes[:, 0:1], points[0])
    for k in (1, 2):
        np.multiply(axes[:, k:k + 1], points[k], out=term)
        out += term
    return out


def projection_bound(shape_a: Shape, frames_a: np.ndarray, shape_b: Shape, frames_b: np.ndarray) -> np.ndarray:
    """(K,) lower bounds of the signed distance of two shapes at K placements ((K,4,4) frames), from projections.

    For convex bodies the signed distance is the largest gap between their
    projections onto a direction, over all directions (negative: the smallest
    overlap, the penetration depth). Any set of directions therefore gives a
    lower bound; these are the two frames' axes, their cross products and the
    line between the centres. It checks every penetration the exact library
    reports (and replaces it where the library fails), so all 16 directions of
    all K placements are projected at once.
    """
    k = frames_a.shape[0]
    axes_a, axes_b = frames_a[:, :3, :3], frames_b[:, :3, :3]
    rows_a, rows_b = np.swapaxes(axes_a, 1, 2), np.swapaxes(axes_b, 1, 2)  # (K, 3, 3): row i is axis i
    between = frames_b[:, :3, 3] - frames_a[:, :3, 3]
    crossed = np.cross(rows_a[:, :, None, :], rows_b[:, None, :, :]).reshape(k, 9, 3)
    directions = np.concatenate([rows_a, rows_b, crossed, between[:, None, :]], axis=1)  # (K, 16, 3)
    length = np.sqrt(_dot_last(directions, directions))
    usable = length > 1e-9
    unit = directions / np.where(usable, length, 1.0)[..., None]
    gap = np.abs(_dot_last(between[:, None, :], unit)) - _reach(shape_a, axes_a, unit) - _reach(shape_b, axes_b, unit)
    return np.max(np.where(usable, gap, -np.inf), axis=1, initial=-np.inf)


def _reach(shape: Shape, axes: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """How far a shape reaches from its centre along unit directions (K, D, 3) (its support function): (K, D)."""
    along = np.abs(_dot_last(np.swapaxes(axes, 1, 2)[:, None, :, :], unit[:, :, None, :]))  # (K, D, 3): |n·axis j|
    if isinstance(shape, Box):
        return (along[..., 0] * shape.sx + along[..., 1] * shape.sy + along[..., 2] * shape.sz) / 2.0
    if isinstance(shape, Sphere):
        return np.full(unit.shape[:2], float(shape.radius))
    if isinstance(shape, (Capsule, Mesh)):  # a mesh reaches no farther than its enclosing capsule
        return along[..., 2] * shape.length / 2.0 + shape.radius
    if isinstance(shape, Cylinder):
        return along[..., 2] * shape.length / 2.0 + shape.radius * np.sqrt(np.maximum(1.0 - along[..., 2] ** 2, 0.0))
    raise TypeError(f"not a collision shape: {shape!r}")


def dot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Dot products of (3, …) vectors, term by term (see the module's note on element-wise sums)."""
    out = np.multiply(x[0], y[0])
    term = np.multiply(x[1], y[1])
    out += term
    np.multiply(x[2], y[2], out=term)
    out += term
    return out


def _dot_last(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Dot products over a trailing axis of 3 (broadcast), term by term."""
    return x[..., 0] * y[..., 0] + x[..., 1] * y[..., 1] + x[..., 2] * y[..., 2]


def _unit(x: np.ndarray) -> np.ndarray:
    """Clamps x to [0, 1] in place."""
    return np.clip(x, 0.0, 1.0, out=x)
