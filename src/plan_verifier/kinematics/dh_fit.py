"""Denavit-Hartenberg rows of any six-joint chain, read from the geometry of its joint axes.

A URDF (or a spec's `chain`) places each joint where its author found convenient;
the UR closed form (`ik_ur`) needs the chain as standard DH rows. The DH frames are
fixed by the axes themselves: frame i-1 has its z on axis i, its origin where the
common normal of axes i and i+1 meets axis i+1 (for parallel axes: the foot of the
previous origin, so d is 0 and the offsets add up in the next d), x along that
normal. Frame 0 and frame 6 are free up to a fixed transform: `base` (the chain's
base frame -> DH frame 0) and `tip` (DH frame 6 -> the chain's flange). The joint
angles are the chain's own: each DH z axis points along its joint's axis and the
theta offsets make the zeros agree.

The fit is accepted only when the DH model reproduces the chain's flange on random
configurations to within `_CHECK_MM` / `_CHECK_RAD`; otherwise there is none, and
the arm gets the closed form its geometry allows, or the numerical solver.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from plan_verifier.kinematics.chain import Chain
from plan_verifier.kinematics.rigid import cross, invert, rotation_angle

_TOL = 1e-9
_CHECK_MM = 1e-6
_CHECK_RAD = 1e-9


@dataclass(frozen=True)
class DhFit:
    """`rows` [a_mm, d_mm, alpha_deg, theta_offset_deg]; flange(q) = base @ DH(q) @ tip."""

    rows: tuple[tuple[float, float, float, float], ...]
    base: np.ndarray
    tip: np.ndarray


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _feet(p: np.ndarray, u: np.ndarray, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Closest points of lines p + s·u and q + t·v (unit directions), None when they are parallel."""
    w = p - q
    b = u @ v
    denom = 1.0 - b * b
    if denom < _TOL:
        return None
    d, e = u @ w, v @ w
    s = (b * e - d) / denom
    t = (e - b * d) / denom
    return p + s * u, q + t * v


def fit_dh(chain: Chain) -> DhFit | None:
    """The chain's DH rows with their base and tip transforms, or None when the DH model does not reproduce it."""
    w, o, flange = chain.zero_geometry()
    z = [_unit(w[i]) for i in range(6)] + [_unit(w[5])]  # z_i of DH frame i: axis i+1; frame 6 keeps axis 6
    origin = [np.zeros(3)] * 7
    x = [np.zeros(3)] * 7
    origin[0] = o[0] + z[0] * ((0.0 - o[0]) @ z[0])  # the foot of the base origin on axis 1
    for i in range(1, 6):
        feet = _feet(origin[i - 1], z[i - 1], o[i], z[i])
        if feet is None:  # parallel axes: the previous origin's foot on the next axis
            foot = o[i] + z[i] * ((origin[i - 1] - o[i]) @ z[i])
            normal = foot - origin[i - 1]
            origin[i] = foot
            x[i] = _unit(normal) if np.linalg.norm(normal) > 1e-9 else x[i - 1]
        else:
            on_prev, on_next = feet
            normal = on_next - on_prev
            origin[i] = on_next
            x[i] = _unit(normal) if np.linalg.norm(normal) > 1e-9 else _unit(cross(z[i - 1], z[i]))
        if i == 1:
            x[0] = x[1] if abs(x[1] @ z[0]) < 1e-9 else _unit(cross(cross(z[0], x[1]), z[0]))
    origin[6] = origin[5] + z[5] * ((flange[:3, 3] - origin[5]) @ z[5])
    along = flange[:3, 0] - z[6] * (flange[:3, 0] @ z[6])
    x[6] = _unit(along) if np.linalg.norm(along) > 1e-6 else x[5]
    rows = []
    for i in range(1, 7):
        step = origin[i] - origin[i - 1]
        d, a = float(step @ z[i - 1]), float(step @ x[i])
        alpha = math.atan2(cross(z[i - 1], z[i]) @ x[i], z[i - 1] @ z[i])
        offset = math.atan2(cross(x[i - 1], x[i]) @ z[i - 1], x[i - 1] @ x[i])
        rows.append((a, d, math.degrees(alpha), math.degrees(offset)))

    def frame(i: int) -> np.ndarray:
        t = np.eye(4)
        t[:3, :3] = np.column_stack([x[i], cross(z[i], x[i]), z[i]])
        t[:3, 3] = origin[i]
        return t

    fit = DhFit(tuple(rows), frame(0), invert(frame(6)) @ flange)
    return fit if _reproduces(chain, fit) else None


def _reproduces(chain: Chain, fit: DhFit) -> bool:
    dh = Chain.from_dh_rows(fit.rows)
    q = np.random.default_rng(0).uniform(-math.pi, math.pi, (64, 6))
    q[0] = 0.0
    want = chain.link_frames(q)[:, 7]
    got = fit.base @ dh.link_frames(q)[:, 7] @ fit.tip
    position = np.linalg.norm(want[:, :3, 3] - got[:, :3, 3], axis=-1)
    turn = rotation_angle(np.swapaxes(want[:, :3, :3], -1, -2) @ got[:, :3, :3])
    return bool(np.all(position < _CHECK_MM) and np.all(turn < _CHECK_RAD * 1e3))
