"""Orientation conventions and pose offsets (numpy): the geometry every layer shares.

Orientation triples (rx, ry, rz) are interpreted with the convention named in
the robot spec: `rpy` (fixed X-Y-Z, i.e. R = Rz·Ry·Rx) or `zyz` (Doosan's A-B-C
Euler angles, R = Rz(A)·Ry(B)·Rz(C)). Forward and inverse kinematics live in
`plan_verifier.kinematics`.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


def _rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _ry(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotation(rx: float, ry: float, rz: float, convention: str = "rpy") -> np.ndarray:
    """Rotation matrix of an orientation triple given in degrees."""
    a, b, c = (math.radians(v) for v in (rx, ry, rz))
    if convention == "zyz":
        return _rz(a) @ _ry(b) @ _rz(c)
    if convention == "rpy":
        return _rz(c) @ _ry(b) @ _rx(a)
    raise ValueError(f"unknown orientation convention {convention!r}")


def offset_in_tool_frame(pose: Sequence[float], offset: Sequence[float], convention: str = "rpy") -> tuple[float, ...]:
    """Position of `pose * Trans(offset)` when the offset is read in the tool frame."""
    r = rotation(pose[3], pose[4], pose[5], convention)
    p = np.array(pose[:3], dtype=float) + r @ np.array(offset[:3], dtype=float)
    return (float(p[0]), float(p[1]), float(p[2]), *pose[3:6])


def offset_in_base_frame(pose: Sequence[float], offset: Sequence[float]) -> tuple[float, ...]:
    """Position of `pose * Trans(offset)` when the offset is read in the base frame."""
    return (pose[0] + offset[0], pose[1] + offset[1], pose[2] + offset[2], *pose[3:6])


def angles(r: np.ndarray, convention: str = "rpy") -> tuple[float, float, float]:
    """The orientation triple (degrees) of a rotation matrix: the inverse of `rotation` (one of the two
    triples of a rotation; at a gimbal lock the last angle is folded into the first)."""
    r = np.asarray(r, dtype=float)
    if convention == "rpy":  # R = Rz(c) Ry(b) Rx(a)
        b = math.atan2(-r[2, 0], math.hypot(r[0, 0], r[1, 0]))
        if math.hypot(r[0, 0], r[1, 0]) > 1e-9:
            a, c = math.atan2(r[2, 1], r[2, 2]), math.atan2(r[1, 0], r[0, 0])
        else:
            a, c = math.atan2(-r[1, 2], r[1, 1]), 0.0
        return tuple(math.degrees(v) for v in (a, b, c))  # type: ignore[return-value]
    if convention == "zyz":  # R = Rz(a) Ry(b) Rz(c)
        b = math.atan2(math.hypot(r[0, 2], r[1, 2]), r[2, 2])
        if math.hypot(r[0, 2], r[1, 2]) > 1e-9:
            a, c = math.atan2(r[1, 2], r[0, 2]), math.atan2(r[2, 1], -r[2, 0])
        else:
            a, c = math.atan2(r[1, 0], r[0, 0]) if r[2, 2] > 0 else math.atan2(-r[1, 0], -r[0, 0]), 0.0
        return tuple(math.degrees(v) for v in (a, b, c))  # type: ignore[return-value]
    raise ValueError(f"unknown orientation convention {convention!r}")
