"""Small batched helpers for rigid transforms and rotations (numpy, mm and radians)."""

from __future__ import annotations

import numpy as np


def invert(t: np.ndarray) -> np.ndarray:
    """Inverse of rigid transforms (..., 4, 4) without a general matrix inverse."""
    out = np.zeros_like(t)
    r_t = np.swapaxes(t[..., :3, :3], -1, -2)
    out[..., :3, :3] = r_t
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", r_t, t[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out


def rotation_angle(r: np.ndarray) -> np.ndarray:
    """Angle (rad) of rotations (..., 3, 3), robust near 0 and pi."""
    trace = np.clip((np.trace(r, axis1=-2, axis2=-1) - 1.0) / 2.0, -1.0, 1.0)
    skew = np.stack([r[..., 2, 1] - r[..., 1, 2], r[..., 0, 2] - r[..., 2, 0], r[..., 1, 0] - r[..., 0, 1]], axis=-1)
    return np.arctan2(np.linalg.norm(skew, axis=-1) / 2.0, trace)


def rotation_vector(r: np.ndarray) -> np.ndarray:
    """Axis times angle of rotations (..., 3, 3); exact near pi too (the damped solver steps on it)."""
    angle = rotation_angle(r)
    skew = np.stack([r[..., 2, 1] - r[..., 1, 2], r[..., 0, 2] - r[..., 2, 0], r[..., 1, 0] - r[..., 0, 1]], axis=-1)
    sin = np.sin(angle)
    small = sin < 1e-6
    scale = np.where(small, 0.5, angle / (2.0 * np.where(small, 1.0, sin)))
    vec = skew * scale[..., None]
    near_pi = small & (angle > 1.0)
    if np.any(near_pi):
        # sin ~ 0 at pi: the axis is the dominant column of (R + I) / 2.
        sym = (r[near_pi] + np.eye(3)) / 2.0
        col = np.argmax(np.diagonal(sym, axis1=-2, axis2=-1), axis=-1)
        axis = sym[np.arange(len(col)), :, col]
        axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
        vec[near_pi] = axis * angle[near_pi][..., None]
    return vec


def wrap(angles: np.ndarray) -> np.ndarray:
    """Angles wrapped to (-pi, pi]."""
    return np.pi - np.mod(np.pi - angles, 2.0 * np.pi)


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product over the last axis with broadcasting (np.cross costs ~20 us of axis shuffling)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
