"""Closed-form inverse kinematics of arms with a spherical wrist (Doosan, most industrial arms).

Structure, read from the chain's geometry at q = 0 (no per-model tables): joints 2
and 3 parallel, joint 1 not parallel to them, and the axes of joints 4, 5 and 6
meeting in one point, the wrist centre. Shoulder offsets (Doosan's 34.5 mm along
joint 2) and elbow offsets are allowed. The solution splits position from
orientation and uses the Paden-Kahan subproblems on the product-of-exponentials
form (axes w_i through points o_i at q = 0):

* The wrist centre c is fixed in the flange frame, so the target gives it directly.
* Rotations about axes parallel to w2 keep the component of c along w2, so
  w2 · Rot(w1, -t1)(c - o1) = w2 · (c0 - o1) fixes t1 (two solutions, none when the
  wrist centre is inside the shoulder-offset cylinder).
* The distance of c from axis 2 depends on t3 only (subproblem 3, two solutions), then
  t2 turns the elbow into place (subproblem 1).
* The wrist rotation R4·R5·R6 is known; subproblem 2 gives t4, t5 (two solutions,
  the wrist flip) from where it must send w6, and subproblem 1 gives t6.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from plan_verifier.kinematics.chain import Chain
from plan_verifier.kinematics.rigid import cross, wrap

_TOL = 1e-9
_GEOMETRY_TOL_MM = 1e-6


@dataclass(frozen=True, eq=False)
class SphericalWrist:
    axes: np.ndarray  # (6, 3) at q = 0, base frame
    points: np.ndarray  # (6, 3)
    centre: np.ndarray  # wrist centre at q = 0
    centre_in_flange: np.ndarray  # (3,) fixed in the flange frame
    flange_rotation: np.ndarray  # (3, 3) at q = 0


def _line_gap(p1: np.ndarray, w1: np.ndarray, p2: np.ndarray, w2: np.ndarray) -> tuple[float, np.ndarray]:
    """Distance between two non-parallel lines and the midpoint of their common perpendicular."""
    n = cross(w1, w2)
    a = np.array([[w1 @ w1, -(w1 @ w2)], [w1 @ w2, -(w2 @ w2)]])
    s, t = np.linalg.solve(a, [(p2 - p1) @ w1, (p2 - p1) @ w2])
    c1, c2 = p1 + s * w1, p2 + t * w2
    return float(abs((p2 - p1) @ n) / np.linalg.norm(n)), (c1 + c2) / 2.0


def spherical_wrist(chain: Chain) -> SphericalWrist | None:
    """The wrist geometry when the chain has the structure above, else None."""
    w, o, flange = chain.zero_geometry()
    parallel = lambda a, b: np.linalg.norm(cross(a, b)) < _TOL  # noqa: E731
    if not parallel(w[1], w[2]) or parallel(w[0], w[1]) or parallel(w[3], w[4]) or parallel(w[4], w[5]):
        return None
    gap, centre = _line_gap(o[3], w[3], o[4], w[4])
    off_axis6 = np.linalg.norm(cross(centre - o[5], w[5]))
    if gap > _GEOMETRY_TOL_MM or off_axis6 > _GEOMETRY_TOL_MM:
        return None
    perp = lambda v: v - w[1] * (w[1] @ v)  # noqa: E731
    if np.linalg.norm(perp(centre - o[2])) < _GEOMETRY_TOL_MM or np.linalg.norm(perp(o[1] - o[2])) < _GEOMETRY_TOL_MM:
        return None
    in_flange = flange[:3, :3].T @ (centre - flange[:3, 3])
    return SphericalWrist(w, o, centre, in_flange, flange[:3, :3].copy())


def _rot(w: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Rotations about one unit axis by an array of angles: (..., 3, 3)."""
    k = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    s, c = np.sin(angles)[..., None, None], np.cos(angles)[..., None, None]
    return np.eye(3) + s * k + (1.0 - c) * (k @ k)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i->...", a, b)


def _angle_about(w: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Subproblem 1: the rotation about w that takes u's direction to v's (components along w ignored)."""
    up = u - _dot(u, w)[..., None] * w
    vp = v - _dot(v, w)[..., None] * w
    return np.arctan2(_dot(w, cross(up, vp)), _dot(up, vp))


def solve_spherical(g: SphericalWrist, targets: np.ndarray, q4_hint: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All solutions for flange targets (N, 4, 4): joint angles (N, 8, 6) in (-pi, pi] and a mask (N, 8).

    At a wrist singularity (axes 4 and 6 aligned) joint 4 is free; it takes `q4_hint` (else 0).
    """
    n = targets.shape[0]
    w, o = g.axes, g.points
    w1, w2 = w[0], w[1]
    c_t = np.einsum("nij,j->ni", targets[:, :3, :3], g.centre_in_flange) + targets[:, :3, 3]

    # Joint 1: w2 . Rot(w1, -t1)(c - o1) = b.
    v = c_t - o[0]
    k12 = w1 @ w2
    a = v @ w2 - k12 * (v @ w1)
    b = -_dot(cross(w1, v), w2)
    c = k12 * (v @ w1)
    target = w2 @ (g.centre - o[0])
    amp = np.hypot(a, b)
    ratio = (target - c) / np.where(amp > 0, amp, 1e-300)
    ok1 = np.abs(ratio) <= 1.0 + _TOL
    base = np.arctan2(b, a)
    spread = np.arccos(np.clip(ratio, -1.0, 1.0))
    t1 = np.stack([base + spread, base - spread], axis=1)  # (N, 2)
    c_arm = o[0] + np.einsum("nkij,nj->nki", _rot(w1, -t1), v)  # wrist centre in the t1 = 0 arm

    # Joint 3: distance of the wrist centre from axis 2 (subproblem 3).
    perp = lambda x: x - _dot(x, w2)[..., None] * w2  # noqa: E731
    u = perp(g.centre - o[2])
    vv = perp(o[1] - o[2])
    delta2 = _dot(perp(c_arm - o[1]), perp(c_arm - o[1]))
    nu, nv = np.linalg.norm(u), np.linalg.norm(vv)
    cos_arg = (nu * nu + nv * nv - delta2) / (2.0 * nu * nv)
    ok3 = np.abs(cos_arg) <= 1.0 + _TOL
    w3 = w[2]  # parallel to w2, possibly opposite
    theta0 = np.arctan2(w3 @ cross(u, vv), u @ vv)
    spread3 = np.arccos(np.clip(cos_arg, -1.0, 1.0))
    t3 = np.stack([theta0 - spread3, theta0 + spread3], axis=2)  # (N, 2, 2)

    # Joint 2: turn the elbow so the wrist centre lands (subproblem 1).
    moved = np.einsum("nkmij,j->nkmi", _rot(w3, t3), g.centre - o[2]) + o[2] - o[1]
    t2 = _angle_about(w2, moved, (c_arm - o[1])[:, :, None, :])

    # Wrist: R4 R5 R6 = (R1 R2 R3)^T R_target R_flange0^T.
    r123 = _rot(w1, t1)[:, :, None] @ _rot(w2, t2) @ _rot(w3, t3)
    rw = np.swapaxes(r123, -1, -2) @ targets[:, None, None, :3, :3] @ g.flange_rotation.T
    wa, wb, p = w[3], w[4], w[5]
    q_vec = rw @ p
    kab = wa @ wb
    alpha = (_dot(q_vec, wa) - kab * (p @ wb)) / (1.0 - kab * kab)
    beta = ((p @ wb) - kab * _dot(q_vec, wa)) / (1.0 - kab * kab)
    normal = cross(wa, wb)
    gamma2 = (p @ p - alpha ** 2 - beta ** 2 - 2.0 * alpha * beta * kab) / (normal @ normal)
    ok_w = gamma2 >= -1e-9
    gamma = np.sqrt(np.clip(gamma2, 0.0, None))
    z = (alpha[..., None, None] * wa + beta[..., None, None] * wb
         + np.stack([gamma, -gamma], axis=-1)[..., None] * normal)  # (N, 2, 2, 2, 3)
    aligned = np.linalg.norm(z - _dot(z, wa)[..., None] * wa, axis=-1) < 1e-7
    z = np.where(aligned[..., None], np.sign(_dot(z, wa))[..., None] * wa, z)  # exactly on axis 4
    t5 = _angle_about(wb, np.broadcast_to(p, z.shape), z)
    t4 = _angle_about(wa, z, np.broadcast_to(q_vec[..., None, :], z.shape))
    t4 = np.where(aligned, q4_hint or 0.0, t4)
    x6 = cross(p, wb) if np.linalg.norm(cross(p, wb)) > 1e-6 else cross(p, wa)
    r45 = _rot(wa, t4) @ _rot(wb, t5)
    y6 = np.einsum("...ji,...jk,k->...i", r45, rw[..., None, :, :], x6)
    t6 = _angle_about(p, np.broadcast_to(x6, y6.shape), y6)

    shape = (n, 2, 2, 2)
    q = np.stack([np.broadcast_to(t1[:, :, None, None], shape), np.broadcast_to(t2[..., None], shape),
                  np.broadcast_to(t3[..., None], shape), t4, t5, t6], axis=-1)
    ok = np.broadcast_to(ok1[:, None, None, None] & ok3[..., None, None] & ok_w[..., None], shape)
    return wrap(q).reshape(n, 8, 6), ok.reshape(n, 8)
