"""Where the joints go during one motion, as a controller would move them.

A joint move interpolates linearly in joint space. A linear move keeps the TCP
on the straight line (orientation by slerp) and a circular move on the arc
through its via point; their joint path is inverse kinematics along the way,
on the IK branch the motion starts on (the controller's choice: the solution
nearest to where the arm is). A Cartesian path fails where that branch has no
solution any more: the line leaves the workspace, or it crosses a singular
boundary and only another branch (a configuration flip) could continue.

`CartesianPath.at(s, near)` evaluates the path at any fraction `s` for the
collision sweep's refinement; the first evaluation (`track`) samples the path
finely enough for the joint-speed check (`STEP_MM`, `STEP_RAD`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from plan_verifier.kinematics.arm import Arm
from plan_verifier.kinematics.ik_numeric import seeds, solve_numeric
from plan_verifier.kinematics.rigid import invert, rotation_vector

#: Cartesian sampling for tracking the IK branch and the joint speeds along a line or arc.
STEP_MM = 20.0
STEP_RAD = math.radians(5.0)
#: Where a path leaves its IK branch is located to within this much of its length.
BREAK_RESOLUTION_MM = 1.0
#: Joint moves are first sampled this finely (the collision sweep refines where it must).
JOINT_STEP_RAD = math.radians(10.0)
#: At most this many first samples on a Cartesian path (100 m at STEP_MM). A longer line or arc leaves the
#: workspace of any arm (an arc inside a ball of radius R is at most 2 pi R long), so it breaks off; these
#: samples find where, to within BREAK_RESOLUTION_MM after bisection, without sampling a path kilometres long.
MAX_PATH_SAMPLES = 5000


@dataclass(frozen=True, eq=False)
class Samples:
    """A sampled joint path: fractions `s` (N,), configurations `q` (N, 6) rad."""

    s: np.ndarray
    q: np.ndarray


@dataclass(frozen=True, eq=False)
class Break:
    """Where a Cartesian path cannot continue on its IK branch.

    `flip`: another branch has a solution there (the controller would have to
    change configuration); otherwise the path leaves the robot's workspace.
    """

    s: float
    tcp_mm: tuple[float, float, float]
    flip: bool
    #: The last configuration on the branch, at the break (None when the path breaks at its start).
    last: np.ndarray | None = None


def joint_samples(q0: np.ndarray, q1: np.ndarray) -> Samples:
    steps = max(1, math.ceil(float(np.max(np.abs(q1 - q0))) / JOINT_STEP_RAD))
    s = np.linspace(0.0, 1.0, steps + 1)
    return Samples(s, q0 + s[:, None] * (q1 - q0))


def joint_at(q0: np.ndarray, q1: np.ndarray, s: np.ndarray) -> np.ndarray:
    return q0 + s[:, None] * (q1 - q0)


class CartesianPath:
    """A TCP path (line, or arc through a via point) with orientation slerp from start to end."""

    def __init__(self, arm: Arm, tcp: np.ndarray, start: np.ndarray, end: np.ndarray, via: np.ndarray | None = None):
        self.arm = arm
        self.tcp = tcp
        self._flange_of_tcp = invert(tcp)
        self.start, self.end = start, end
        self._rot0 = start[:3, :3]
        self._turn = rotation_vector(start[:3, :3].T @ end[:3, :3])
        p0, p1 = start[:3, 3], end[:3, 3]
        self._arc = _arc(p0, via[:3, 3], p1) if via is not None else None
        self.length_mm = self._arc.length if self._arc is not None else float(np.linalg.norm(p1 - p0))
        self.turn_rad = float(np.linalg.norm(self._turn))
        #: The path as a value (with the arm, it decides every pose and configuration `at` returns).
        self.key = (tcp.tobytes(), start.tobytes(), end.tobytes(), None if via is None else via.tobytes())

    def poses(self, s: np.ndarray) -> np.ndarray:
        """TCP transforms (M, 4, 4) at fractions `s`."""
        out = np.zeros((len(s), 4, 4))
        out[:, 3, 3] = 1.0
        out[:, :3, :3] = self._rot0 @ _exp(s[:, None] * self._turn)
        if self._arc is not None:
            out[:, :3, 3] = self._arc.points(s)
        else:
            out[:, :3, 3] = self.start[:3, 3] + s[:, None] * (self.end[:3, 3] - self.start[:3, 3])
        return out

    def sample_count(self) -> int:
        return max(1, min(MAX_PATH_SAMPLES, math.ceil(max(self.length_mm / STEP_MM, self.turn_rad / STEP_RAD))))

    def fractions(self) -> np.ndarray:
        """The fractions at which the path is first sampled (for the IK branch and the joint speeds)."""
        return np.linspace(0.0, 1.0, self.sample_count() + 1)

    def track(self, q0: np.ndarray, s: np.ndarray, poses: np.ndarray, solutions: np.ndarray, ok: np.ndarray,
              *, verify: bool = True) -> tuple[Samples, Break | None]:
        """Follow the branch `q0` is on from s = 0, given every branch's (unverified) solutions at the
        samples (`solve_paths`); stop at the first sample it cannot reach. `verify=False` leaves the
        forward-kinematics check of the followed branch to the caller (`Arm.reaches`, batched)."""
        if self.arm.method == "numerical":
            return self._track_numerically(s, q0)
        branch = _nearest_index(solutions[0], ok[0], q0)
        if branch is None:
            return Samples(s[:1], q0[None]), Break(0.0, self._tcp(0.0), flip=bool(ok[0].any()))
        reached = ok[:, branch].copy()
        if verify:
            reached[reached] = self.arm.reaches(solutions[reached, branch], poses[reached], self.tcp)
        end = len(s) if reached.all() else int(np.argmin(reached))
        q = _unwrap_from(q0, solutions[:end, branch])
        if end == len(s):
            return Samples(s, q), None
        if end == 0:
            return Samples(s[:1], q0[None]), Break(0.0, self._tcp(0.0), flip=bool(ok[0].any()))
        lo, q_lo, hi = float(s[end - 1]), q[-1], float(s[end])
        while (hi - lo) * max(self.length_mm, 1.0) > BREAK_RESOLUTION_MM:  # where exactly the branch ends
            mid = (lo + hi) / 2
            found, valid = self.arm.ik_batch(self.poses(np.array([mid])), self.tcp)
            if valid[0, branch]:
                lo, q_lo = mid, q_lo + _wrap(found[0, branch] - q_lo)
            else:
                hi = mid
        q = np.vstack([q, q_lo[None]]) if lo > s[end - 1] else q
        s_kept = np.append(s[:end], lo) if lo > s[end - 1] else s[:end]
        _, valid = self.arm.ik_batch(self.poses(np.array([hi])), self.tcp)
        return Samples(s_kept, q), Break(hi, self._tcp(hi), flip=bool(valid[0].any()), last=q_lo)

    def broken_at(self, s: float, flip: bool, last: np.ndarray) -> Break:
        """The break at fraction `s` (a sample whose closed-form solution failed the caller's check)."""
        return Break(s, self._tcp(s), flip, last)

    def at(self, s: np.ndarray, near: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Configurations (M, 6) at fractions `s` nearest to `near` (M, 6), and whether each exists."""
        if self.arm.method == "numerical":
            rows = [solve_numeric(self.arm.chain, f, n[None]).solutions for f, n in zip(self._flanges(s), near)]
            q = np.array([_closest(r, n) if len(r) else n for r, n in zip(rows, near)])
            return q, np.array([len(r) > 0 for r in rows])
        solutions, ok = self.arm.ik_batch(self.poses(s), self.tcp)
        aligned = near[:, None, :] + _wrap(solutions - near[:, None, :])
        gap = np.where(ok, np.linalg.norm(aligned - near[:, None, :], axis=-1), np.inf)
        pick = np.argmin(gap, axis=1)
        return aligned[np.arange(len(s)), pick], np.isfinite(gap[np.arange(len(s)), pick])

    def _flanges(self, s: np.ndarray) -> np.ndarray:
        return self.poses(s) @ self._flange_of_tcp

    def _tcp(self, s: float) -> tuple[float, float, float]:
        x, y, z = self.poses(np.array([s]))[0, :3, 3]
        return (float(x), float(y), float(z))

    def _track_numerically(self, s: np.ndarray, q0: np.ndarray) -> tuple[Samples, Break | None]:
        out = [q0]
        for k, flange in enumerate(self._flanges(s[1:]), start=1):
            found = solve_numeric(self.arm.chain, flange, out[-1][None]).solutions
            if not len(found):
                others = solve_numeric(self.arm.chain, flange, seeds(self.arm.lower, self.arm.upper, [out[-1]])).solutions
                return Samples(s[:k], np.array(out)), Break(float(s[k]), self._tcp(float(s[k])), flip=bool(len(others)))
            out.append(_closest(found, out[-1]))
        return Samples(s, np.array(out)), None


@dataclass(frozen=True, eq=False)
class _Arc:
    """The circle through three points: centre, radius, start direction, its normal and the swept angle."""

    centre: np.ndarray
    radius: float
    u: np.ndarray
    v: np.ndarray
    angle: float

    @property
    def length(self) -> float:
        return self.radius * self.angle

    def points(self, s: np.ndarray) -> np.ndarray:
        a = s[:, None] * self.angle
        return self.centre + self.radius * (np.cos(a) * self.u + np.sin(a) * self.v)


def solve_paths(arm: Arm, tcp: np.ndarray, paths: list[CartesianPath]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(s, poses, solutions, ok) for each path's first samples, all branches solved in one call (one call
    costs a few hundred microseconds whatever its size: a run of linear moves shares it)."""
    fractions = [p.fractions() for p in paths]
    poses = [p.poses(f) for p, f in zip(paths, fractions)]
    if arm.method == "numerical" or not paths:
        return [(f, x, np.zeros((len(f), 0, 6)), np.zeros((len(f), 0), bool)) for f, x in zip(fractions, poses)]
    solutions, ok = arm.ik_batch(np.concatenate(poses), tcp, verify=False)
    out, first = [], 0
    for f, x in zip(fractions, poses):
        out.append((f, x, solutions[first:first + len(f)], ok[first:first + len(f)]))
        first += len(f)
    return out


def _arc(p0: np.ndarray, via: np.ndarray, p1: np.ndarray) -> _Arc | None:
    """The arc from p0 through `via` to p1; None when the three points are (nearly) collinear
    (the controller then moves on the line)."""
    a, b = via - p0, p1 - p0
    normal = np.cross(a, b)
    area = float(np.linalg.norm(normal))
    if area < 1e-6 * max(float(np.dot(a, a)), float(np.dot(b, b)), 1e-12):
        return None
    centre = p0 + (np.dot(a, a) * np.cross(b, normal) + np.dot(b, b) * np.cross(normal, a)) / (2.0 * area * area)
    radius = float(np.linalg.norm(p0 - centre))
    n = normal / area
    u = (p0 - centre) / radius
    v = np.cross(n, u)

    def angle_of(p: np.ndarray) -> float:
        d = (p - centre) / radius
        return float(np.mod(np.arctan2(np.dot(d, v), np.dot(d, u)), 2 * np.pi))

    # (via - p0) x (p1 - p0) orients the plane so that p0, via, p1 follow each other counter-clockwise.
    return _Arc(centre, radius, u, v, angle_of(p1))


def _exp(vectors: np.ndarray) -> np.ndarray:
    """Rotation matrices (M, 3, 3) of rotation vectors (M, 3) (Rodrigues)."""
    angle = np.linalg.norm(vectors, axis=1)
    safe = np.where(angle > 1e-12, angle, 1.0)
    k = vectors / safe[:, None]
    kx = np.zeros((len(vectors), 3, 3))
    kx[:, 0, 1], kx[:, 0, 2], kx[:, 1, 2] = -k[:, 2], k[:, 1], -k[:, 0]
    kx[:, 1, 0], kx[:, 2, 0], kx[:, 2, 1] = k[:, 2], -k[:, 1], k[:, 0]
    sin, cos = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    return np.eye(3) + sin * kx + (1.0 - cos) * (kx @ kx)


def _wrap(angles: np.ndarray) -> np.ndarray:
    return (angles + np.pi) % (2.0 * np.pi) - np.pi


def _nearest_index(solutions: np.ndarray, ok: np.ndarray, q: np.ndarray) -> int | None:
    """The branch (row of `solutions` (8, 6)) whose solution is the configuration `q` (modulo 2 pi)."""
    gap = np.where(ok, np.linalg.norm(_wrap(solutions - q), axis=1), np.inf)
    best = int(np.argmin(gap))
    return best if np.isfinite(gap[best]) else None


def _unwrap_from(q0: np.ndarray, branch: np.ndarray) -> np.ndarray:
    """A branch's angles (N, 6) made continuous, starting at the 2 pi variant of q0."""
    steps = _wrap(np.diff(np.vstack([q0, branch]), axis=0))
    return q0 + np.cumsum(steps, axis=0)


def _closest(solutions: np.ndarray, q: np.ndarray) -> np.ndarray:
    aligned = q + _wrap(solutions - q)
    return aligned[int(np.argmin(np.linalg.norm(aligned - q, axis=1)))]
