"""One kinematic chain for both spec forms, evaluated for many configurations at once.

A spec gives either standard DH rows or URDF joint origins. Both become the same
chain: joint i sits at a fixed transform `origins[i]` in the frame of link i-1 and
turns about the unit `axes[i]` of that frame; the flange is a fixed transform
`flange` in the frame of link 6. A DH row (a, d, alpha, offset) contributes its
Rz(offset) to its own joint's origin and its Tz(d)·Tx(a)·Rx(alpha) to the next
joint's origin (the last one to the flange), so link frame i is the frame of joint
i *after its rotation*, with its origin on the joint axis.

Everything is in mm and radians; configurations are arrays of shape (6,) or
(N, 6) and the frames come back as (..., k, 4, 4): the motion model evaluates
hundreds of samples per motion, so there is no Python loop per sample.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from plan_verifier.kinematics.rigid import cross
from plan_verifier.orientation import rotation
from plan_verifier.robots.spec import Kinematics, RobotSpec


def _translate(x: float, y: float, z: float) -> np.ndarray:
    t = np.eye(4)
    t[:3, 3] = (x, y, z)
    return t


def _turn(axis: np.ndarray, angle: float) -> np.ndarray:
    t = np.eye(4)
    t[:3, :3] = axis_rotations(axis, np.array([angle]))[0]
    return t


def axis_rotations(axis: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Rotations by `angles` (shape (N,)) about one unit `axis`: (N, 3, 3), Rodrigues' formula."""
    c, s = np.cos(angles), np.sin(angles)
    x, y, z = axis
    v = 1.0 - c
    r = np.empty(angles.shape + (3, 3))
    r[..., 0, 0] = c + x * x * v
    r[..., 0, 1] = x * y * v - z * s
    r[..., 0, 2] = x * z * v + y * s
    r[..., 1, 0] = y * x * v + z * s
    r[..., 1, 1] = c + y * y * v
    r[..., 1, 2] = y * z * v - x * s
    r[..., 2, 0] = z * x * v - y * s
    r[..., 2, 1] = z * y * v + x * s
    r[..., 2, 2] = c + z * z * v
    return r


@dataclass(frozen=True, eq=False)
class Chain:
    """Six revolute joints: `origins` (6, 4, 4), `axes` (6, 3) and the `flange` (4, 4)."""

    origins: np.ndarray
    axes: np.ndarray
    flange: np.ndarray
    #: The DH rows when the spec gave DH (the UR closed form reads them), else None.
    dh: tuple[tuple[float, float, float, float], ...] | None = None

    @classmethod
    def from_spec(cls, kinematics: Kinematics) -> "Chain":
        if kinematics.dh is not None:
            return cls.from_dh_rows(kinematics.dh)
        origins, axes = [], []
        for joint in kinematics.chain:
            origin = _translate(*joint.xyz_mm)
            origin[:3, :3] = rotation(*joint.rpy_deg, convention="rpy")
            origins.append(origin)
            axes.append(np.array(joint.axis, dtype=float) / math.hypot(*joint.axis))
        flange = np.eye(4)
        if kinematics.flange is not None:
            flange = _translate(*kinematics.flange.xyz_mm)
            flange[:3, :3] = rotation(*kinematics.flange.rpy_deg, convention="rpy")
        return cls(np.array(origins), np.array(axes), flange)

    @classmethod
    def from_dh_rows(cls, rows: tuple[tuple[float, float, float, float], ...]) -> "Chain":
        z = np.array([0.0, 0.0, 1.0])
        origins, after = [], np.eye(4)
        for a, d, alpha, offset in rows:
            origins.append(after @ _turn(z, math.radians(offset)))
            after = _translate(0.0, 0.0, d) @ _translate(a, 0.0, 0.0) @ _turn(np.array([1.0, 0.0, 0.0]), math.radians(alpha))
        return cls(np.array(origins), np.tile(z, (6, 1)), after, tuple(tuple(map(float, r)) for r in rows))

    def __post_init__(self) -> None:
        # Rot(a, q) = I + sin(q) K + (1 - cos(q)) K^2 with K = [a]x, so origin @ Rot(a, q) is
        # origin + sin(q) (origin @ K) + (1 - cos(q)) (origin @ K^2): one product per joint.
        skew = np.zeros((6, 4, 4))
        skew[:, 0, 1], skew[:, 0, 2], skew[:, 1, 2] = -self.axes[:, 2], self.axes[:, 1], -self.axes[:, 0]
        skew[:, 1, 0], skew[:, 2, 0], skew[:, 2, 1] = self.axes[:, 2], -self.axes[:, 1], self.axes[:, 0]
        object.__setattr__(self, "_sin_part", self.origins @ skew)
        object.__setattr__(self, "_cos_part", self.origins @ skew @ skew)

    def link_frames(self, q: np.ndarray) -> np.ndarray:
        """Base, link 1..6 and flange frames: q (..., 6) -> (..., 8, 4, 4)."""
        q = np.asarray(q, dtype=float)
        flat = q.reshape(-1, 6)
        sin, one_minus_cos = np.sin(flat)[..., None, None], 1.0 - np.cos(flat)[..., None, None]
        joints = self.origins + sin * self._sin_part + one_minus_cos * self._cos_part  # (N, 6, 4, 4)
        out = np.empty((flat.shape[0], 8, 4, 4))
        out[:, 0] = np.eye(4)
        out[:, 1] = joints[:, 0]
        for i in range(1, 6):
            np.matmul(out[:, i], joints[:, i], out=out[:, i + 1])
        np.matmul(out[:, 6], self.flange, out=out[:, 7])
        return out.reshape(q.shape[:-1] + (8, 4, 4))

    def zero_geometry(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Joint axes (6, 3), points on them (6, 3) and the flange (4, 4), all at q = 0 in the base frame."""
        frames = self.link_frames(np.zeros(6))
        axes = np.einsum("kij,kj->ki", frames[1:7, :3, :3], self.axes)
        return axes, frames[1:7, :3, 3].copy(), frames[7]

    def jacobian(self, frames: np.ndarray, tip: np.ndarray) -> np.ndarray:
        """Geometric Jacobians (N, 6, 6) at points `tip` (N, 3) from link frames (N, 8, 4, 4).

        Rows: linear velocity (mm/rad) then angular velocity (rad/rad), base frame.
        """
        axes = np.einsum("nkij,kj->nki", frames[:, 1:7, :3, :3], self.axes)
        linear = cross(axes, tip[:, None, :] - frames[:, 1:7, :3, 3])
        return np.concatenate([linear, axes], axis=2).transpose(0, 2, 1)


@functools.lru_cache(maxsize=64)
def chain_of(kinematics: Kinematics) -> Chain:
    """The chain of a spec's kinematics, built once."""
    return Chain.from_spec(kinematics)


def flange_position(spec: RobotSpec, joints_deg: Sequence[float]) -> tuple[float, float, float] | None:
    """Flange position (mm) of a joint target, or None when the spec has no kinematics (or an
    angle is not a finite number, which no robot can be commanded to). The safety rules' one
    use of kinematics: cheap to import, cached per target."""
    joints = tuple(float(j) for j in joints_deg)
    if spec.kinematics is None or len(joints) != 6 or not all(math.isfinite(j) for j in joints):
        return None
    return _flange_position(spec.kinematics, joints)


@functools.lru_cache(maxsize=4096)
def _flange_position(kinematics: Kinematics, joints_deg: tuple[float, ...]) -> tuple[float, float, float]:
    x, y, z = chain_of(kinematics).link_frames(np.radians(joints_deg))[7, :3, 3]
    return (float(x), float(y), float(z))
