"""The kinematic library of one robot spec: FK, IK, Jacobians, singularities, tools and bodies.

Built once per spec (`arm_for`); mm and radians inside, degrees only at the spec and
plan boundary (`pose_matrix`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Sequence, Union

import numpy as np

from plan_verifier.caching import ByIdentity
from plan_verifier.kinematics.chain import Chain, chain_of
from plan_verifier.kinematics.dh_fit import fit_dh
from plan_verifier.kinematics.ik_numeric import ORIENTATION_WEIGHT_MM, NumericResult, seeds, solve_numeric
from plan_verifier.kinematics.ik_spherical import SphericalWrist, solve_spherical, spherical_wrist
from plan_verifier.kinematics.ik_ur import UrParameters, solve_ur, ur_parameters
from plan_verifier.kinematics.rigid import cross, invert, rotation_angle, rotation_vector, wrap
from plan_verifier.orientation import rotation
from plan_verifier.robots.spec import RobotSpec

#: A tool: a tool number of the robot spec, or a flange -> TCP transform (4, 4).
Tool = Union[int, np.ndarray]

#: A closed-form solution is kept only if its forward kinematics lands this close (a guard, not a tolerance
#: the solvers need: they reach about 1e-9 mm).
_CHECK_POSITION_MM = 1e-6
_CHECK_ORIENTATION_RAD = 1e-6

#: Many-seed numerical solves remembered per arm (each a few kB): a plan's targets, many plans over.
NUMERIC_CACHE = 1024


class UnknownToolError(LookupError):
    """A tool number the spec does not define (a finding for the plan, never a silent default)."""

    def __init__(self, tool: int, known: Sequence[int]):
        super().__init__(f"tool {tool} is not defined (defined: {', '.join(map(str, sorted(known))) or 'none'})")
        self.tool = tool
        self.known = tuple(sorted(known))


class NoKinematicsError(ValueError):
    """The spec has no kinematics, so the execution level cannot run (outcome UNKNOWN)."""


@dataclass(frozen=True)
class IkSolution:
    """One inverse-kinematics solution, angles in (-pi, pi]; `within_limits` if some 2*pi variant of
    every joint lies within its limits (`Arm.variants` lists them)."""

    q: np.ndarray
    within_limits: bool


@dataclass(frozen=True)
class IkResult:
    """Every solution for a target, or how far the closest approximation misses it."""

    solutions: tuple[IkSolution, ...]
    method: str
    #: Zero when solved; otherwise the miss of `closest` (orientation weighted 1000 mm/rad while searching).
    position_miss_mm: float = 0.0
    orientation_miss_deg: float = 0.0
    closest: np.ndarray | None = None

    @property
    def reachable(self) -> bool:
        return bool(self.solutions)

    @property
    def feasible(self) -> tuple[IkSolution, ...]:
        return tuple(s for s in self.solutions if s.within_limits)


@dataclass(frozen=True)
class SingularityMeasures:
    """Measures per configuration (arrays of shape (N,)); None where the structure has no such measure.

    `sigma_min`/`manipulability` are of the Jacobian with its linear rows divided by the
    reach (dimensionless). `shoulder_mm`: distance of the wrist point from the plane of
    axis 1 and axis 2 (UR: the wrist cannot come closer than d4 to the base axis).
    `elbow_sin`: sine of the elbow angle (0 = arm stretched or folded). `wrist_sin`: sine
    of the angle between axes 4 and 6 (0 = they line up). `weakest_joints`: per
    configuration the joints whose columns make up the smallest singular direction.
    Measures only: which values count as close to a singularity is R-KIN-004's to say.
    """

    sigma_min: np.ndarray
    manipulability: np.ndarray
    shoulder_mm: np.ndarray | None
    elbow_sin: np.ndarray | None
    wrist_sin: np.ndarray | None
    weakest_joints: tuple[tuple[int, ...], ...]


def _pose_matrix(values: Sequence[float], convention: str) -> np.ndarray:
    t = np.eye(4)
    t[:3, :3] = rotation(values[3], values[4], values[5], convention)
    t[:3, 3] = values[:3]
    return t


class Arm:
    """Kinematics of one robot spec. Use `arm_for(spec)`, which caches it.

    `lower`/`upper` are the joint limits and `max_speed` the joint speed limits (rad,
    rad/s; inf where the spec gives none), `home` the start configuration, `method`
    the IK solver the structure allows.
    """

    def __init__(self, spec: RobotSpec):
        if spec.kinematics is None:
            raise NoKinematicsError(f"robot spec {spec.name} has no kinematics")
        self.spec = spec
        self.chain = chain_of(spec.kinematics)
        self.lower = np.radians([j.min_deg for j in spec.joints])
        self.upper = np.radians([j.max_deg for j in spec.joints])
        self.max_speed = np.array([math.radians(j.max_speed_deg_s) if j.max_speed_deg_s else math.inf for j in spec.joints])
        self.home = np.radians(spec.home_joints_deg)
        #: DH frame 0 in the base frame and the flange in DH frame 6 (identity for a DH spec): the UR closed
        #: form solves in DH frames, so a chain (a URDF) of the UR structure is fitted once (`dh_fit`).
        #: A chain within a rounding of a closed-form structure (a URDF writing 90 deg as 1.571 rad) is solved in
        #: closed form on its idealised twin (`_idealised`), each solution then polished on the real chain.
        self._ideal: Chain | None = None
        structure = _structure(self.chain)
        if structure[2] is None and structure[3] is None:
            ideal = _idealised(self.chain)
            if ideal is not None:
                found = _structure(ideal)
                if found[2] is not None or found[3] is not None:
                    self._ideal, structure = ideal, found
        (self._dh_base, self._dh_tip), _, self._ur, self._wrist = structure[0], structure[1], structure[2], structure[3]
        self._ur: UrParameters | None
        self._wrist: SphericalWrist | None
        self._wrist_point = _meeting_point(self._ideal or self.chain) if self._ur else None
        self.method = "ur_closed_form" if self._ur else "spherical_wrist_closed_form" if self._wrist else "numerical"
        self._tcp = {n: _pose_matrix(t.tcp, spec.orientation_convention) for n, t in spec.tools.items()}
        self._numeric_cached = functools.lru_cache(maxsize=NUMERIC_CACHE)(self._numeric_solve)

    # ------------------------------------------------------------------ poses and tools

    def pose_matrix(self, values: Sequence[float]) -> np.ndarray:
        """4x4 of a PosX [x, y, z, rx, ry, rz] (mm, degrees, the spec's orientation convention)."""
        return _pose_matrix(values, self.spec.orientation_convention)

    def tcp(self, tool: Tool) -> np.ndarray:
        """Flange -> TCP transform of a tool: a tool number of the spec (UnknownToolError if the spec
        does not define it), or the transform itself (a cell's tool, say)."""
        if isinstance(tool, np.ndarray):
            return tool
        try:
            return self._tcp[tool]
        except KeyError:
            raise UnknownToolError(tool, list(self._tcp)) from None

    # ------------------------------------------------------------------ forward kinematics

    def frames(self, q: np.ndarray) -> np.ndarray:
        """Base, link 1-5 and flange frames: q (..., 6) rad -> (..., 7, 4, 4) mm.

        Link i's frame is joint i's frame after its rotation (origin on the axis);
        link 6's frame is the flange.
        """
        return self.chain.link_frames(q)[..., [0, 1, 2, 3, 4, 5, 7], :, :]

    def tcp_pose(self, q: np.ndarray, tool: Tool) -> np.ndarray:
        """TCP transforms (..., 4, 4) of configurations (..., 6)."""
        return self.chain.link_frames(q)[..., 7, :, :] @ self.tcp(tool)

    # ------------------------------------------------------------------ inverse kinematics

    def ik(self, target: np.ndarray, tool: Tool, q_near: np.ndarray | None = None) -> IkResult:
        """Every solution for a TCP target (4, 4); the miss of the closest approximation if none.

        `q_near` (the current configuration) is a seed for the numerical solver; for the
        closed forms it fixes the free joint at a wrist singularity (UR: joint 6, spherical
        wrist: joint 4), so that `nearest` can stay next to it.
        """
        flange = np.asarray(target, dtype=float) @ invert(self.tcp(tool))
        numeric = None
        if self.method != "numerical":
            q, ok = self._closed_form(flange[None], q_near)
            found = q[0][ok[0]]
        else:
            numeric = self._numeric(flange, q_near)
            found = numeric.solutions
        if len(found):
            return IkResult(tuple(IkSolution(s, bool(w)) for s, w in zip(found, self.within_limits(found))), self.method)
        miss = numeric or self._numeric(flange, q_near)
        return IkResult((), self.method, miss.position_miss_mm, math.degrees(miss.orientation_miss_rad), miss.closest)

    def ik_batch(self, targets: np.ndarray, tool: Tool, *, verify: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Closed-form solutions for many TCP targets (N, 4, 4): (N, 8, 6) and a validity mask (N, 8).

        Branch k is the same branch (shoulder x wrist x elbow) for every target, so a path can
        follow one. Numerical arms solve target by target (their solution count varies; rows are
        padded with invalid entries). `verify=False` skips the forward-kinematics check of every
        solution (most of the cost); a caller that then uses one branch checks that one (`reaches`).
        """
        flange = np.asarray(targets, dtype=float) @ invert(self.tcp(tool))
        if self.method != "numerical":
            return self._closed_form(flange, verify=verify)
        rows = [self._numeric(f, None).solutions for f in flange]
        width = max([8, *(len(r) for r in rows)])
        q = np.zeros((len(rows), width, 6))
        ok = np.zeros((len(rows), width), dtype=bool)
        for i, r in enumerate(rows):
            q[i, : len(r)], ok[i, : len(r)] = r, True
        return q, ok

    def _closed_form(self, flange: np.ndarray, q_near: np.ndarray | None = None, *, verify: bool = True) -> tuple[np.ndarray, np.ndarray]:
        if self._ur is not None:
            q, ok = solve_ur(self._ur, invert(self._dh_base) @ flange @ invert(self._dh_tip), None if q_near is None else float(q_near[5]))
        else:
            q, ok = solve_spherical(self._wrist, flange, None if q_near is None else float(q_near[3]))
        if self._ideal is not None:
            q = self._polished(q, flange)
        if not verify:
            return q, ok
        return q, ok & self._lands(q, flange[:, None])

    def _polished(self, q: np.ndarray, flange: np.ndarray, steps: int = 4) -> np.ndarray:
        """Newton steps on the real chain from the idealised chain's solutions (N, K, 6) for targets (N, 4, 4):
        they start within a rounding (tenths of a mm) and land within 1e-9 mm; `_lands` still decides."""
        n, k = q.shape[:2]
        flat = q.reshape(-1, 6).copy()
        goal = np.repeat(flange, k, axis=0)
        for _ in range(steps):
            frames = self.chain.link_frames(flat)
            tip = frames[:, 7]
            error = np.concatenate([goal[:, :3, 3] - tip[:, :3, 3],
                                    rotation_vector(goal[:, :3, :3] @ np.swapaxes(tip[:, :3, :3], -1, -2))], axis=1)
            jac = self.chain.jacobian(frames, tip[:, :3, 3])
            with np.errstate(all="ignore"):
                delta = np.einsum("nij,nj->ni", np.linalg.pinv(jac, rcond=1e-10), error)
            flat += np.where(np.isfinite(delta), delta, 0.0)
        return wrap(flat).reshape(n, k, 6)

    def reaches(self, q: np.ndarray, targets: np.ndarray, tool: Tool) -> np.ndarray:
        """Whether configurations (..., 6) put the TCP on targets (..., 4, 4) (the closed forms' guard)."""
        return self._lands(np.asarray(q, dtype=float), np.asarray(targets, dtype=float) @ invert(self.tcp(tool)))

    def _lands(self, q: np.ndarray, flange: np.ndarray) -> np.ndarray:
        reached = self.chain.link_frames(q)[..., 7, :, :]
        pos = np.linalg.norm(reached[..., :3, 3] - flange[..., :3, 3], axis=-1)
        rot = rotation_angle(np.swapaxes(reached[..., :3, :3], -1, -2) @ flange[..., :3, :3])
        return (pos < _CHECK_POSITION_MM) & (rot < _CHECK_ORIENTATION_RAD)

    def _numeric(self, flange: np.ndarray, q_near: np.ndarray | None) -> NumericResult:
        """The many-seed numerical solve of a flange target (every branch, or the closest miss), cached.

        It is a pure function of the target and the seed, and the expensive path (10-30 ms: an
        unreachable target's miss is measured this way even on closed-form arms); replayed,
        retried and repeated plans ask for the same targets again. The arrays are read-only.
        """
        near = None if q_near is None else np.ascontiguousarray(q_near, dtype=float).tobytes()
        return self._numeric_cached(np.ascontiguousarray(flange, dtype=float).tobytes(), near)

    def clear_cache(self) -> None:
        """Forget the remembered numerical solves (what a benchmark of the first encounter needs)."""
        self._numeric_cached.cache_clear()

    def _numeric_solve(self, flange: bytes, q_near: bytes | None) -> NumericResult:
        """`_numeric`'s solve, from the bytes its cache is keyed by."""
        result = solve_numeric(self.chain, np.frombuffer(flange).reshape(4, 4),
                               self._seeds(None if q_near is None else np.frombuffer(q_near)))
        result.solutions.setflags(write=False)
        result.closest.setflags(write=False)
        return result

    def _seeds(self, q_near: np.ndarray | None) -> np.ndarray:
        extra = [self.home] + ([np.asarray(q_near, dtype=float)] if q_near is not None else [])
        return seeds(self.lower, self.upper, extra)

    def within_limits(self, q: np.ndarray) -> np.ndarray:
        """Whether some 2*pi variant of every joint lies within limits: q (..., 6) -> (...)."""
        with np.errstate(invalid="ignore"):
            k = np.ceil((self.lower - q) / (2 * np.pi))
        k = np.where(np.isfinite(k), k, 0.0)
        return np.all((q + 2 * np.pi * k >= self.lower - 1e-12) & (q + 2 * np.pi * k <= self.upper + 1e-12), axis=-1)

    def variants(self, q: np.ndarray) -> np.ndarray:
        """Every 2*pi variant of a configuration (6,) with all joints within limits: (K, 6)."""
        per_joint = []
        for j in range(6):
            lo = max(self.lower[j], q[j] - 4 * np.pi)
            hi = min(self.upper[j], q[j] + 4 * np.pi)
            ks = np.arange(math.ceil((lo - q[j]) / (2 * np.pi) - 1e-12), math.floor((hi - q[j]) / (2 * np.pi) + 1e-12) + 1)
            per_joint.append(q[j] + 2 * np.pi * ks)
        grids = np.meshgrid(*per_joint, indexing="ij")
        return np.stack([g.ravel() for g in grids], axis=-1)

    def nearest(self, solutions: np.ndarray | Sequence[IkSolution] | IkResult, q_current: np.ndarray) -> np.ndarray | None:
        """The controller's choice: the within-limits 2*pi variant of a solution nearest to `q_current`.

        Metric: Euclidean distance in joint space (radians), every joint weighted alike.
        Per joint the variant nearest to the current angle is taken (the metric is a sum
        over joints, so that is optimal), then the solution with the smallest distance.
        None when no solution has a variant within limits.
        """
        if isinstance(solutions, IkResult):
            solutions = solutions.solutions
        q = np.array([s.q if isinstance(s, IkSolution) else s for s in solutions], dtype=float).reshape(-1, 6)
        if not len(q):
            return None
        best, cost = self._nearest_variants(q, np.asarray(q_current, dtype=float))
        i = int(np.argmin(cost))
        return best[i] if np.isfinite(cost[i]) else None

    def nearest_each(self, solutions: np.ndarray, q_current: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each solution (S, 6) at its within-limits 2*pi variant nearest to `q_current`, and that distance (`nearest`'s
        metric; inf: no variant within limits): every configuration the arm could take for one target, ranked."""
        q = np.asarray(solutions, dtype=float).reshape(-1, 6)
        return self._nearest_variants(q, np.asarray(q_current, dtype=float))

    def _nearest_variants(self, q: np.ndarray, current: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = np.round((current - q) / (2 * np.pi))
        options = q[..., None] + 2 * np.pi * (k[..., None] + np.array([-1.0, 0.0, 1.0]))  # (S, 6, 3)
        inside = (options >= self.lower[:, None] - 1e-12) & (options <= self.upper[:, None] + 1e-12)
        dist = np.where(inside, np.abs(options - current[:, None]), np.inf)
        pick = np.argmin(dist, axis=-1)
        chosen = np.take_along_axis(options, pick[..., None], axis=-1)[..., 0]
        gaps = np.take_along_axis(dist, pick[..., None], axis=-1)[..., 0]
        return chosen, np.sqrt(np.sum(gaps ** 2, axis=-1))

    # ------------------------------------------------------------------ differential kinematics

    def jacobian(self, q: np.ndarray, tool: Tool) -> np.ndarray:
        """Geometric Jacobian at the TCP, base frame: q (6,) or (N, 6) -> (6, 6) or (N, 6, 6).

        Rows: linear (mm/rad), then angular (rad/rad).
        """
        q = np.asarray(q, dtype=float)
        flat = q.reshape(-1, 6)
        frames = self.chain.link_frames(flat)
        tip = (frames[:, 7] @ self.tcp(tool))[:, :3, 3]
        return self.chain.jacobian(frames, tip).reshape(q.shape[:-1] + (6, 6))

    def joint_rates(self, q: np.ndarray, tcp_velocity: np.ndarray, tool: Tool) -> np.ndarray:
        """q_dot = J+ v for a TCP twist v = [mm/s, rad/s] (base frame): (…, 6) rad/s.

        Near a singularity the rates grow without bound, which is what the speed check
        needs to see; exactly at one, the pseudo-inverse returns the least-squares rates.
        """
        jac = self.jacobian(q, tool)
        return np.einsum("...ij,...j->...i", np.linalg.pinv(jac, rcond=1e-12), tcp_velocity)

    def singularity(self, q: np.ndarray, tool: Tool, *, jacobian: bool = True) -> SingularityMeasures:
        """Singularity measures for configurations q (6,) or (N, 6).

        `jacobian=False` skips the singular value decomposition (sigma_min, manipulability and
        weakest joints come back NaN / empty) where the structure's geometric measures say which
        singularity is near: a path's samples are screened that way, at a tenth of the cost.
        """
        flat = np.asarray(q, dtype=float).reshape(-1, 6)
        frames = self.chain.link_frames(flat)
        if jacobian or self.method == "numerical":
            tip = (frames[:, 7] @ self.tcp(tool))[:, :3, 3]
            jac = self.chain.jacobian(frames, tip)
            jac[:, :3] /= self.spec.reach_mm
            _, sigma, vt = np.linalg.svd(jac)
            weakest = tuple(tuple(int(j) + 1 for j in np.flatnonzero(np.abs(v) > 0.3)) for v in vt[:, -1])
            sigma_min, manipulability = sigma[:, -1], np.prod(sigma, axis=1)
        else:
            sigma_min = manipulability = np.full(len(flat), np.nan)
            weakest = ()
        if self.method == "numerical":
            return SingularityMeasures(sigma_min, manipulability, None, None, None, weakest)
        axes = np.einsum("nkij,kj->nki", frames[:, 1:7, :3, :3], self.chain.axes)
        points = frames[:, 1:7, :3, 3]
        if self._ur is not None:  # the wrist point (axes 5 and 6 meet there) and a point on axis 4
            shoulder_point = frames[:, 5, :3, :3] @ self._wrist_point + frames[:, 5, :3, 3]
            elbow_point = frames[:, 4, :3, 3]
        else:
            centre = frames[:, 7, :3, :3] @ self._wrist.centre_in_flange + frames[:, 7, :3, 3]
            shoulder_point = elbow_point = centre
        normal = cross(axes[:, 0], axes[:, 1])
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        shoulder = np.abs(np.einsum("ni,ni->n", normal, shoulder_point - points[:, 0]))
        w2 = axes[:, 1]

        def flat_part(v: np.ndarray) -> np.ndarray:
            return v - np.einsum("ni,ni->n", v, w2)[:, None] * w2

        upper, fore = flat_part(points[:, 2] - points[:, 1]), flat_part(elbow_point - points[:, 2])
        elbow = np.linalg.norm(cross(upper, fore), axis=1) / (np.linalg.norm(upper, axis=1) * np.linalg.norm(fore, axis=1))
        wrist = np.linalg.norm(cross(axes[:, 3], axes[:, 5]), axis=1)
        return SingularityMeasures(sigma_min, manipulability, shoulder, elbow, wrist, weakest)


def _structure(chain: Chain) -> tuple[tuple[np.ndarray, np.ndarray], tuple | None, UrParameters | None, SphericalWrist | None]:
    """((DH base, DH tip), DH rows, UR parameters, spherical wrist) of a chain: the closed form its geometry allows."""
    rows, base, tip = chain.dh, np.eye(4), np.eye(4)
    if rows is None:
        fit = fit_dh(chain)
        if fit is not None and ur_parameters(fit.rows) is not None:
            rows, base, tip = fit.rows, fit.base, fit.tip
    ur = ur_parameters(rows)
    return (base, tip), rows, ur, None if ur else spherical_wrist(chain)


#: Joint-origin angles this close to a multiple of 90 deg are a rounding of it (1.571 rad = 90.0117 deg).
_ROUNDING_DEG = 0.05


def _idealised(chain: Chain) -> Chain | None:
    """The chain with every joint origin's roll, pitch and yaw that lies within `_ROUNDING_DEG` of a multiple of
    90 deg set to it (None when nothing changes, or it is a DH chain)."""
    if chain.dh is not None:
        return None
    origins = chain.origins.copy()
    changed = False
    for i, origin in enumerate(origins):
        rpy = np.degrees(rotation_rpy(origin[:3, :3]))
        snapped = np.round(rpy / 90.0) * 90.0
        near = np.abs(rpy - snapped) < _ROUNDING_DEG
        if np.any(near & (np.abs(rpy - snapped) > 1e-12)):
            origins[i, :3, :3] = rotation(*np.where(near, snapped, rpy), convention="rpy")
            changed = True
    return Chain(origins, chain.axes, chain.flange) if changed else None


def rotation_rpy(r: np.ndarray) -> np.ndarray:
    """Fixed-axis roll, pitch, yaw (rad) of a rotation, R = Rz(yaw)·Ry(pitch)·Rx(roll)."""
    pitch = math.atan2(-r[2, 0], math.hypot(r[0, 0], r[1, 0]))
    if math.hypot(r[0, 0], r[1, 0]) < 1e-12:  # gimbal lock: yaw absorbed in roll
        return np.array([math.atan2(-r[1, 2], r[1, 1]), pitch, 0.0])
    return np.array([math.atan2(r[2, 1], r[2, 2]), pitch, math.atan2(r[1, 0], r[0, 0])])


def _meeting_point(chain) -> np.ndarray:
    """Where axes 5 and 6 meet (the UR wrist point), in link 5's frame: joint 6's origin moved along axis 6."""
    origin, axis6 = chain.origins[5][:3, 3], chain.origins[5][:3, :3] @ chain.axes[5]
    axis5 = chain.axes[4]  # joint 5 turns link 5 about this axis through link 5's origin
    b = axis5 @ axis6
    denom = 1.0 - b * b
    if denom < 1e-12:
        return origin.copy()
    d, e = axis5 @ -origin, axis6 @ -origin
    t = (e - b * d) / denom
    return origin + t * axis6


@functools.lru_cache(maxsize=64)
def _arm(key: ByIdentity) -> Arm:
    return Arm(key.value)


def arm_for(spec: RobotSpec) -> Arm:
    """The (cached) kinematics of a spec; NoKinematicsError when it has none."""
    return _arm(ByIdentity(spec))

