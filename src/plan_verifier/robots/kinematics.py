"""Forward kinematics and orientation helpers (numpy).

PosJ targets carry joint angles, not coordinates: where their flange goes
(for the floor and base keep-out checks and the motion timeline) comes from
forward kinematics. Two forms are supported because vendors publish two:
standard Denavit-Hartenberg rows (a, d, alpha per joint, as Universal Robots
publish them) and a chain of joint origins (xyz, rpy and rotation axis per
joint, as in a URDF, which is all Doosan publishes). Orientation triples
(rx, ry, rz) are interpreted with the convention named in the robot spec:
`rpy` (fixed X-Y-Z, i.e. R = Rz·Ry·Rx) or `zyz` (Doosan's A-B-C Euler angles,
R = Rz(A)·Ry(B)·Rz(C)).
"""

from __future__ import annotations

import functools
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


def dh_forward(dh: Sequence[Sequence[float]], joints_deg: Sequence[float]) -> np.ndarray:
    """Flange position (mm) for standard DH rows (a_mm, d_mm, alpha_deg, theta_offset_deg)."""
    t = np.eye(4)
    for (a, d, alpha, offset), q in zip(dh, joints_deg):
        theta = math.radians(q + offset)
        al = math.radians(alpha)
        ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(al), math.sin(al)
        t = t @ np.array(
            [
                [ct, -st * ca, st * sa, a * ct],
                [st, ct * ca, -ct * sa, a * st],
                [0.0, sa, ca, d],
                [0.0, 0.0, 0.0, 1.0],
            ]
        )
    return t[:3, 3].copy()


def _axis_turn(axis: Sequence[float], angle: float) -> np.ndarray:
    """Homogeneous rotation by `angle` (rad) about a unit `axis` (Rodrigues' formula)."""
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    v = 1.0 - c
    return np.array(
        [
            [c + x * x * v, x * y * v - z * s, x * z * v + y * s, 0.0],
            [y * x * v + z * s, c + y * y * v, y * z * v - x * s, 0.0],
            [z * x * v - y * s, z * y * v + x * s, c + z * z * v, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


def chain_forward(chain: Sequence[tuple[Sequence[float], Sequence[float], Sequence[float]]], joints_deg: Sequence[float]) -> np.ndarray:
    """Flange position (mm) for URDF-style joint origins.

    Each row is (xyz_mm, rpy_deg, unit axis): the joint frame sits at `xyz`
    rotated by fixed-axis roll-pitch-yaw in its parent's frame, and the joint
    turns about `axis` in that frame. The last joint's frame is the flange.
    """
    t = np.eye(4)
    for (xyz, rpy, axis), q in zip(chain, joints_deg):
        t = t @ _origin(tuple(xyz), tuple(rpy)) @ _axis_turn(axis, math.radians(q))
    return t[:3, 3].copy()


@functools.lru_cache(maxsize=256)
def _origin(xyz: tuple[float, ...], rpy: tuple[float, ...]) -> np.ndarray:
    """The fixed part of a chain joint (the same for every target): computed once."""
    origin = np.eye(4)
    origin[:3, :3] = rotation(rpy[0], rpy[1], rpy[2], "rpy")
    origin[:3, 3] = xyz
    origin.flags.writeable = False
    return origin
