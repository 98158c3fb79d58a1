"""The robot's collision bodies: link capsules, the tool's shape, self-collision pairs, motion bounds.

Each body is a shape from `plan_verifier.collision.shapes` placed in a link frame
(0 base, 1-5 joint frames after rotation, 6 the flange). Besides its exact shape,
every body has a bounding capsule (a segment and a radius in its link frame): the
self-collision pairs and the motion bound are computed on those.

Self-collision pairs (like MoveIt's allowed collision matrix, computed from the
geometry instead of a setup assistant): every pair of bodies on different links,
except neighbours in the chain (|link_a - link_b| <= 1: they touch at their joint)
and pairs whose bounding capsules touch at the home configuration or in every one
of `PAIR_SAMPLES` configurations drawn (fixed seed) within the joint limits (parts
that are always in contact by construction, such as a flange tool and the last
wrist housing). Everything else is kept, e.g. tool/wrist against base and shoulder,
forearm against base.

Motion bound: when the arm moves linearly in joint space from q0 to q1, a point of a
body on link l moves at speed |sum_j dq_j a_j x (x - o_j)| <= sum_j |dq_j| dist(x, axis j),
so its path is at most sum_{j<=l} |q1_j - q0_j| R_jb long, with R_jb a bound on the
distance of the body from axis j that holds in every configuration: the part of the
first link offset perpendicular to axis j, plus the lengths of the following link
offsets, plus the farthest point of the bounding capsule.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plan_verifier.collision.bounds import segment_closest
from plan_verifier.collision.scene import Body as SceneBody
from plan_verifier.collision.scene import Scene
from plan_verifier.collision import narrow
from plan_verifier.collision.frames import pose_matrix
from plan_verifier.collision.shapes import Box, Capsule, Cylinder, Mesh, Shape, Sphere
from plan_verifier.collision.tool_shape import ToolShape
from plan_verifier.kinematics.arm import Arm
from plan_verifier.kinematics.rigid import cross


#: Configurations drawn (fixed seed) to find the pairs whose capsules touch in every one of them (see above) ...
PAIR_SAMPLES = 500
#: ... of which the first few (home included) already show most pairs apart: only the others are evaluated in all.
_FIRST_SAMPLES = 32
_Z = np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True, eq=False)
class Body:
    """A shape on a link. `local` (4, 4) places the shape's centre in the link frame;
    `segment` (2, 3) and `radius` are its bounding capsule in the same frame."""

    name: str
    link: int
    shape: Shape
    local: np.ndarray
    segment: np.ndarray
    radius: float
    #: The link it belongs to as an SRDF names it (URDF geometry), else "".
    owner: str = ""


def _placement(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Transform whose z axis runs from `start` to `end`, origin at their midpoint."""
    t = np.eye(4)
    t[:3, 3] = (start + end) / 2.0
    axis = end - start
    length = np.linalg.norm(axis)
    if length < 1e-12:
        return t
    z = axis / length
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = cross(helper, z)
    x /= np.linalg.norm(x)
    t[:3, :3] = np.column_stack([x, cross(z, x), z])
    return t


def capsule_body(name: str, link: int, start: np.ndarray, end: np.ndarray, radius: float) -> Body:
    start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    shape = Capsule(radius=float(radius), length=float(np.linalg.norm(end - start)))
    return Body(name, link, shape, _placement(start, end), np.array([start, end]), float(radius))


def _bounding_segment(shape: Shape) -> tuple[np.ndarray, float]:
    """A capsule around a centred shape: segment (2, 3) in the shape's frame and radius."""
    if isinstance(shape, Sphere):
        return np.zeros((2, 3)), shape.radius
    if isinstance(shape, (Capsule, Cylinder)):
        half = shape.length / 2.0
        return np.array([[0.0, 0.0, -half], [0.0, 0.0, half]]), shape.radius
    half = np.array([shape.sx, shape.sy, shape.sz]) / 2.0
    longest = int(np.argmax(half))
    rest = [i for i in range(3) if i != longest]
    tip = np.zeros(3)
    tip[longest] = half[longest]
    return np.array([-tip, tip]), float(math.hypot(half[rest[0]], half[rest[1]]))


def tool_body(tool: ToolShape) -> Body:
    """The tool's shape placed in the flange frame (`ToolShape.in_flange`)."""
    local = tool.in_flange()
    segment, radius = _bounding_segment(tool.shape)
    placed = segment @ local[:3, :3].T + local[:3, 3]
    return Body("tool", 6, tool.shape, local, placed, radius, "tool")


def segment_distance(p1: np.ndarray, q1: np.ndarray, p2: np.ndarray, q2: np.ndarray) -> np.ndarray:
    """Distance between segments p1-q1 and p2-q2, broadcast over leading axes (..., 3) -> (...).

    The collision engine's closest-point solver (`bounds.segment_closest`), so the pair
    selection here and the sweep measure alike; it is exact where a segment is a point
    (a sphere body), which a plain clamped solution gets wrong when the point comes second.
    """
    p1, q1, p2, q2 = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (p1, q1, p2, q2)))
    shape = p1.shape[:-1]
    flat = [np.moveaxis(x, -1, 0).reshape(3, -1).copy() for x in (p1, q1, p2, q2)]
    on_1, on_2 = segment_closest(*flat)
    return np.linalg.norm(on_1 - on_2, axis=0).reshape(shape)


class BodySet:
    """The bodies of one arm with one tool, their self-collision pairs and motion radii."""

    def __init__(self, arm: Arm, bodies: tuple[Body, ...]):
        self.arm = arm
        self.bodies = bodies
        self._links = np.array([b.link for b in bodies])
        self._local = np.array([b.local for b in bodies])
        self._segments = np.array([b.segment for b in bodies])
        self.radii = np.array([b.radius for b in bodies])
        self.motion_radii = self._motion_radii()
        self.on_mount = self._on_mount()
        #: The bodies as the distance engine takes them: a body on the mount is not checked against the floor.
        self.scene_bodies = tuple(SceneBody(b.name, b.shape, check_floor=not m) for b, m in zip(bodies, self.on_mount))
        self.pairs = self._pairs()
        self._pair_radii = self._relative_radii()

    # -------------------------------------------------------------- placement

    def poses(self, q: np.ndarray) -> np.ndarray:
        """World transforms of every body's shape: q (6,) or (N, 6) -> (..., B, 4, 4)."""
        frames = self.arm.frames(q)
        return frames[..., self._links, :, :] @ self._local

    def segments(self, q: np.ndarray) -> np.ndarray:
        """World endpoints of the bounding capsules: (..., B, 2, 3); radii in `radii`."""
        frames = self.arm.frames(q)[..., self._links, :, :]
        return np.einsum("...bij,bkj->...bki", frames[..., :3, :3], self._segments) + frames[..., None, :3, 3]

    def self_distances(self, q: np.ndarray) -> np.ndarray:
        """Surface distance of every self-collision pair (negative = penetration): (..., P)."""
        seg = self.segments(q)
        a, b = np.array([p[0] for p in self.pairs], dtype=int), np.array([p[1] for p in self.pairs], dtype=int)
        gap = segment_distance(seg[..., a, 0, :], seg[..., a, 1, :], seg[..., b, 0, :], seg[..., b, 1, :])
        return gap - self.radii[a] - self.radii[b]

    def motion_bound(self, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
        """Upper bound (mm) on how far any point of each body travels from q0 to q1 (linear in joint space): (..., B)."""
        return np.abs(np.asarray(q1, dtype=float) - np.asarray(q0, dtype=float)) @ self.motion_radii

    def pair_bound(self, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
        """Upper bound (mm) on how much the distance of each self-collision pair can change from q0 to q1: (..., P).

        Two bodies move relative to each other only through the joints between their links
        (the joints before both carry both rigidly, which no distance between them sees), so
        the outer body's points move at most sum over those joints of |dq_j| R[j, outer] in
        the inner body's frame.
        """
        return np.abs(np.asarray(q1, dtype=float) - np.asarray(q0, dtype=float)) @ self._pair_radii

    # -------------------------------------------------------------- derived data

    def _motion_radii(self) -> np.ndarray:
        """R[j, b]: a configuration-independent bound on the distance of body b from axis j."""
        chain = self.arm.chain
        offsets = [np.linalg.norm(chain.origins[k][:3, 3]) for k in range(6)]  # joint k+1 from link k
        radii = np.zeros((6, len(self.bodies)))
        for b, body in enumerate(self.bodies):
            link = body.link
            ends = body.segment
            if link == 6:
                ends = ends @ chain.flange[:3, :3].T + chain.flange[:3, 3]  # flange frame -> link 6 frame
            reach_in_link = max(np.linalg.norm(ends, axis=1)) + body.radius
            for j in range(1, link + 1):  # joint j moves links j..6
                axis = chain.axes[j - 1]
                if j == link:
                    radial = ends - np.outer(ends @ axis, axis)
                    radii[j - 1, b] = max(np.linalg.norm(radial, axis=1)) + body.radius
                    continue
                first = chain.origins[j][:3, 3]  # joint j+1 origin in link j's frame
                radii[j - 1, b] = (np.linalg.norm(first - axis * (first @ axis)) + sum(offsets[j + 1:link])
                                   + reach_in_link)
        return radii

    def _on_mount(self) -> np.ndarray:
        """(B,): bodies whose height never changes: the base, and the links that only vertical joint axes move.

        They stand on the plane the robot is mounted on by construction (a UR's shoulder turns
        about the vertical axis just above its base), so their floor contact is never a plan's:
        the contract's "a link fixed to the world is never in collision with its mounting plane",
        extended to every link whose height no joint can change.
        """
        axes, _, _ = self.arm.chain.zero_geometry()
        vertical = np.abs(np.abs(axes[:, 2]) - 1.0) < 1e-9  # joint j's world axis at q = 0, kept by turns about z
        fixed_height = np.concatenate([[True], np.logical_and.accumulate(vertical)])  # by link 0..6
        return np.array([bool(fixed_height[b.link]) for b in self.bodies])

    def _relative_radii(self) -> np.ndarray:
        """R[j, p]: the outer body's radius about joint j for the joints between pair p's links, else 0."""
        radii = np.zeros((6, len(self.pairs)))
        for p, (a, b) in enumerate(self.pairs):
            inner, outer = sorted((a, b), key=lambda i: self.bodies[i].link)
            for j in range(self.bodies[inner].link + 1, self.bodies[outer].link + 1):  # joint j moves links j..6
                radii[j - 1, p] = self.motion_radii[j - 1, outer]
        return radii

    def _pairs(self) -> tuple[tuple[int, int], ...]:
        disabled = self.arm.spec.collision_model.disabled_pairs
        never = {frozenset(p) for p in disabled or ()}
        candidates = [(a, b) for a in range(len(self.bodies)) for b in range(a + 1, len(self.bodies))
                      if abs(self.bodies[a].link - self.bodies[b].link) > 1
                      and frozenset((self.bodies[a].owner, self.bodies[b].owner)) not in never]
        if not candidates:
            return ()
        if disabled is not None:  # an SRDF says which links may touch: only the tool's pairs are left to the geometry
            decided = [p for p in candidates if self.bodies[p[0]].owner and self.bodies[p[1]].owner]
            rest = [p for p in candidates if p not in decided]
            return tuple(sorted(decided + list(self._touch_free(rest))))
        return self._touch_free(candidates)

    def _touch_free(self, candidates: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
        """The pairs whose bounding capsules are apart at home and in some configuration drawn within the limits."""
        if not candidates:
            return ()
        arm = self.arm
        rng = np.random.default_rng(0)
        lo, hi = np.maximum(arm.lower, -np.pi), np.minimum(arm.upper, np.pi)
        samples = np.vstack([arm.home, lo + rng.random((PAIR_SAMPLES, 6)) * (hi - lo)])
        # Most pairs are apart in one of the first few configurations drawn; only the others need all of them.
        first = self._gaps(samples[:_FIRST_SAMPLES], candidates)
        always = np.all(first[1:] <= 0.0, axis=0)
        if always.any():
            stuck = [p for p, s in zip(candidates, always) if s]
            always[always] = np.all(self._gaps(samples[_FIRST_SAMPLES:], stuck) <= 0.0, axis=0)
        if self.arm.spec.collision_model.geometry is None:
            keep = (first[0] > 0.0) & ~always
            return tuple(p for p, k in zip(candidates, keep) if k)
        # A URDF's links: touching at home by their own geometry (not their fat bounding capsules), and decided per
        # pair of links, as an SRDF would say it (a link pair touching at home by any element is left out whole).
        home = Scene(floor_z_mm=-1e9).distances(self.scene_bodies, np.swapaxes(self.poses(arm.home[None]), 0, 1), candidates,
                                                cutoff_mm=0.0).self_mm[:, 0]
        touching = {frozenset((self.bodies[i].owner, self.bodies[j].owner)) for (i, j), d in zip(candidates, home) if d < 0.0}
        return tuple(p for p, stuck in zip(candidates, always)
                     if not stuck and frozenset((self.bodies[p[0]].owner, self.bodies[p[1]].owner)) not in touching)

    def _gaps(self, q: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
        """(N, P): the surface distance of each pair's bounding capsules at configurations q (N, 6)."""
        seg = self.segments(q)
        a = np.array([p[0] for p in pairs])
        b = np.array([p[1] for p in pairs])
        return segment_distance(seg[:, a, 0], seg[:, a, 1], seg[:, b, 0], seg[:, b, 1]) - self.radii[a] - self.radii[b]


def link_bodies(arm: Arm) -> tuple[Body, ...]:
    """The link bodies of the spec's collision model: a URDF's geometry, explicit capsules, or capsules along the chain."""
    model = arm.spec.collision_model
    if model.geometry is not None:
        counts = {}
        for g in model.geometry:
            counts[g.owner] = counts.get(g.owner, 0) + 1
        seen: dict[str, int] = {}
        out = []
        for g in model.geometry:
            seen[g.owner] = seen.get(g.owner, 0) + 1
            name = g.owner if counts[g.owner] == 1 else f"{g.owner}.{seen[g.owner]}"
            out.append(_geometry_body(name, g))
        return tuple(out)
    if model.links is not None:
        counts: dict[int, int] = {}
        out = []
        for c in model.links:
            counts[c.link] = counts.get(c.link, 0) + 1
            name = "base" if c.link == 0 else f"link{c.link}"
            if sum(1 for other in model.links if other.link == c.link) > 1:
                name += f".{counts[c.link]}"
            out.append(capsule_body(name, c.link, np.array(c.from_mm), np.array(c.to_mm), c.radius_mm))
        return tuple(out)
    radii = model.link_radii_mm or tuple(f * arm.spec.reach_mm for f in DEFAULT_RADIUS_FRACTIONS)
    return tuple(_default_capsule(arm, link, radius) for link, radius in enumerate(radii, start=1))


def _geometry_body(name: str, g) -> Body:
    """A URDF collision element as a body: primitives as they are, a mesh centred on its enclosing capsule."""
    pose = pose_matrix(g.pose)
    if g.type == "mesh":
        mesh, centring = load_mesh(g.mesh, tuple(g.scale))
        local = pose @ centring
        half = np.array([[0.0, 0.0, -mesh.length / 2.0], [0.0, 0.0, mesh.length / 2.0]])
        return Body(name, g.link, mesh, local, half @ local[:3, :3].T + local[:3, 3], mesh.radius, g.owner)
    shape: Shape
    if g.type == "box":
        shape = Box(*g.size_mm)
    elif g.type == "cylinder":
        shape = Cylinder(g.radius_mm, g.length_mm)
    else:
        shape = Sphere(g.radius_mm)
    segment, radius = _bounding_segment(shape)
    return Body(name, g.link, shape, pose, segment @ pose[:3, :3].T + pose[:3, 3], radius, g.owner)


@functools.lru_cache(maxsize=128)
def load_mesh(path: str, scale: tuple[float, float, float]) -> tuple[Mesh, np.ndarray]:
    """A mesh file (metres, as URDFs give them; `scale` from the URDF) in mm, and where its frame sits in the
    file's frame: the frame of its enclosing capsule (axis along the hull's principal direction)."""
    coal = narrow.load()
    model = coal.MeshLoader().load(path, np.asarray(scale, dtype=float) * 1000.0)
    vertices = np.array(model.vertices(), dtype=float)
    triangles = np.array([[t[0], t[1], t[2]] for t in (model.tri_indices(i) for i in range(model.num_tris))], dtype=np.int64)
    model.buildConvexHull(False, "Qt")
    hull = np.array(model.convex.points(), dtype=float)
    centre = hull.mean(axis=0)
    _, _, axes = np.linalg.svd(hull - centre, full_matrices=False)  # the principal direction; no (H, H) factor
    axis = axes[0]
    along = (hull - centre) @ axis
    across = np.linalg.norm((hull - centre) - np.outer(along, axis), axis=1)
    shrink = min(float(across.max()) * 0.5, float(along.max() - along.min()) / 2.0)
    start, end = centre + axis * (along.min() + shrink), centre + axis * (along.max() - shrink)
    radius = _farthest(hull, start, end)
    centring = _placement(start, end)
    to_centre = np.linalg.inv(centring)
    mesh = Mesh(Path(path).name, vertices @ to_centre[:3, :3].T + to_centre[:3, 3], triangles,
                hull @ to_centre[:3, :3].T + to_centre[:3, 3], radius * (1.0 + 1e-9) + 1e-6, float(np.linalg.norm(end - start)))
    return mesh, centring


def _farthest(points: np.ndarray, start: np.ndarray, end: np.ndarray) -> float:
    """The largest distance of points (K, 3) from the segment start-end."""
    axis = end - start
    length2 = float(axis @ axis)
    t = np.clip((points - start) @ axis / length2, 0.0, 1.0) if length2 > 0 else np.zeros(len(points))
    return float(np.linalg.norm(points - (start + t[:, None] * axis), axis=1).max())


#: Default link radii as fractions of the reach (a UR10e's 1300 mm gives 78, 65, 58, 45, 45, 39 mm).
DEFAULT_RADIUS_FRACTIONS = (0.06, 0.05, 0.045, 0.035, 0.035, 0.03)


def _default_capsule(arm: Arm, link: int, radius: float) -> Body:
    """Link `link` from its joint's origin to the next joint's origin (link 6: to the flange).

    A capsule that starts at the base origin is raised by its radius, so the default
    model never reaches below the mounting plane.
    """
    chain = arm.chain
    if link < 6:
        end = chain.origins[link][:3, 3]
        start = np.zeros(3)
        frame_link = link
    else:
        start = -chain.flange[:3, :3].T @ chain.flange[:3, 3]  # link 6 origin, in the flange frame
        end = np.zeros(3)
        frame_link = 6
    at_base = np.allclose(arm.frames(np.zeros(6))[link][:3, 3], 0.0) and link < 6
    if at_base:
        start = start + _Z * radius if end @ _Z >= 0 else start - _Z * radius
    return capsule_body(f"link{link}", frame_link, start, end, radius)


@functools.lru_cache(maxsize=64)
def body_set(arm: Arm, tool: ToolShape | None) -> BodySet:
    """Bodies of `arm` with `tool` on the flange (None: the bare flange); cached per arm and tool.

    A robot spec's tool number gives its shape as `spec.tools[n].tool_shape`, a cell's tool as
    `cell.tools[name].shape`: both describe a tool the same way."""
    return BodySet(arm, link_bodies(arm) + ((tool_body(tool),) if tool is not None else ()))
