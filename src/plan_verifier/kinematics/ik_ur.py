"""Closed-form inverse kinematics of the UR structure, derived from its DH rows.

The structure (Universal Robots and its clones): a1 = a4 = a5 = a6 = 0, joints 2-4
parallel (alpha2 = alpha3 = 0), alpha1, alpha4, alpha5 = +-90 deg, alpha6 = 0 and
d6 != 0. Any DH table of that shape is solved here, whatever its lengths, signs of
the right angles and theta offsets; d2 and d3 slide along the parallel axes and add
to d4. Up to eight solutions: shoulder (joint 1) x wrist (joint 5) x elbow (joint 3).

Derivation in the frame F1 after joint 1 (M = F1^-1 · T_flange):
* The wrist point p5 = p_flange - d6·z_flange lies d4 off the arm plane along z1:
  s1·(p5x·sin t1 - p5y·cos t1) = d4, two solutions for t1, none when the wrist point
  is closer than |d4| to the base axis (the shoulder singularity's cylinder).
* The z-row of M depends on t5 and t6 only: M[2,3] = d4 - s4·s5·d6·cos t5 and
  M[2,0:2] = s4·sin t5·(cos t6, -sin t6).
* Removing the wrist, M · W(t5, t6)^-1 is a planar 3R arm: the law of cosines gives t3,
  then t2, and t4 closes the sum t2 + t3 + t4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from plan_verifier.kinematics.rigid import invert, wrap

_TOL = 1e-9
_SINGULAR = 1e-7


@dataclass(frozen=True)
class UrParameters:
    d1: float
    a2: float
    a3: float
    d4: float
    d5: float
    d6: float
    alpha1: float
    alpha4: float
    alpha5: float
    offsets: tuple[float, ...]


def ur_parameters(dh: tuple[tuple[float, float, float, float], ...] | None) -> UrParameters | None:
    """The parameters of the closed form when the DH rows have the UR structure, else None."""
    if dh is None:
        return None
    a = [r[0] for r in dh]
    d = [r[1] for r in dh]
    alpha = [math.radians(r[2]) for r in dh]
    right = all(abs(math.cos(alpha[i])) < _TOL for i in (0, 3, 4))
    flat = all(abs(math.sin(alpha[i])) < _TOL and math.cos(alpha[i]) > 0 for i in (1, 2, 5))
    if not (right and flat and all(abs(a[i]) < _TOL for i in (0, 3, 4, 5)) and abs(a[1]) > _TOL
            and abs(a[2]) > _TOL and abs(d[5]) > _TOL):
        return None
    return UrParameters(d[0], a[1], a[2], d[1] + d[2] + d[3], d[4], d[5], round(math.sin(alpha[0])),
                        round(math.sin(alpha[3])), round(math.sin(alpha[4])), tuple(math.radians(r[3]) for r in dh))


def _rz(t: np.ndarray) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    out = np.zeros(t.shape + (4, 4))
    out[..., 0, 0], out[..., 0, 1], out[..., 1, 0], out[..., 1, 1] = c, -s, s, c
    out[..., 2, 2] = out[..., 3, 3] = 1.0
    return out


def _rx_tz(sign: int, d: float) -> np.ndarray:
    """Tz(d)·Rx(sign·90 deg)."""
    return np.array([[1.0, 0, 0, 0], [0, 0, -sign, 0], [0, sign, 0, d], [0, 0, 0, 1.0]])


def solve_ur(p: UrParameters, targets: np.ndarray, q6_hint: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All solutions for flange targets (N, 4, 4): joint angles (N, 8, 6) in (-pi, pi] and a mask (N, 8).

    At a wrist singularity (sin t5 = 0) joint 6 is free; it takes `q6_hint` (else 0).
    """
    n = targets.shape[0]
    p5 = targets[:, :3, 3] - p.d6 * targets[:, :3, 2]
    r = np.hypot(p5[:, 0], p5[:, 1])
    ratio = p.alpha1 * p.d4 / np.where(r > 0, r, np.inf if p.d4 == 0 else 1e-300)
    ok1 = np.abs(ratio) <= 1.0 + _TOL
    shoulder = np.arcsin(np.clip(ratio, -1.0, 1.0))
    phi = np.arctan2(p5[:, 1], p5[:, 0])
    t1 = np.stack([phi + shoulder, phi + np.pi - shoulder], axis=1)  # (N, 2)

    f1 = _rz(t1) @ _rx_tz(p.alpha1, 0.0)
    f1[..., 2, 3] = p.d1
    m = invert(f1) @ targets[:, None]  # (N, 2, 4, 4)

    c5 = (p.d4 - m[..., 2, 3]) / (p.alpha4 * p.alpha5 * p.d6)
    ok5 = np.abs(c5) <= 1.0 + _TOL
    a5 = np.arccos(np.clip(c5, -1.0, 1.0))
    t5 = np.stack([a5, -a5], axis=2)  # (N, 2, 2)
    k = p.alpha4 * np.sin(t5)
    t6 = np.arctan2(-m[..., None, 2, 1] * k, m[..., None, 2, 0] * k)
    singular = np.abs(k) < _SINGULAR  # acos loses half the digits there: snap t5 to 0 or pi
    t5 = np.where(singular, np.round(t5 / np.pi) * np.pi, t5)
    t6 = np.where(singular, (q6_hint or 0.0) + p.offsets[5], t6)

    wrist = _rx_tz(p.alpha4, 0.0) @ _rz(t5) @ _rx_tz(p.alpha5, p.d5) @ _rz(t6)
    wrist[..., :3, 3] += p.d6 * wrist[..., :3, 2]
    planar = m[:, :, None] @ invert(wrist)  # (N, 2, 2, 4, 4)
    t234 = np.arctan2(planar[..., 1, 0], planar[..., 0, 0])
    x, y = planar[..., 0, 3], planar[..., 1, 3]
    c3 = (x * x + y * y - p.a2 ** 2 - p.a3 ** 2) / (2.0 * p.a2 * p.a3)
    ok3 = np.abs(c3) <= 1.0 + _TOL
    a3 = np.arccos(np.clip(c3, -1.0, 1.0))
    t3 = np.stack([a3, -a3], axis=3)  # (N, 2, 2, 2)
    t2 = np.arctan2(y, x)[..., None] - np.arctan2(p.a3 * np.sin(t3), p.a2 + p.a3 * np.cos(t3))
    t4 = t234[..., None] - t2 - t3

    shape = (n, 2, 2, 2)
    q = np.stack([np.broadcast_to(t1[:, :, None, None], shape), t2, t3, t4,
                  np.broadcast_to(t5[..., None], shape), np.broadcast_to(t6[..., None], shape)], axis=-1)
    ok = np.broadcast_to(ok1[:, None, None, None] & ok5[..., None, None] & ok3[..., None], shape)
    return wrap(q - np.array(p.offsets)).reshape(n, 8, 6), ok.reshape(n, 8)
