"""Poses as homogeneous transforms.

Cell geometry (obstacle poses, tool TCPs, tool-shape mounts) is written as
[x, y, z, rx, ry, rz] in mm and degrees, orientation as fixed-axis
roll-pitch-yaw, R = Rz(rz)·Ry(ry)·Rx(rx), whatever convention the robot uses
for its own targets: a cell is drawn once and may be served by different arms.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from plan_verifier.orientation import rotation

#: [x, y, z, rx, ry, rz]: mm and degrees.
Pose6 = tuple[float, float, float, float, float, float]


def pose_matrix(pose: Sequence[float]) -> np.ndarray:
    """The 4x4 transform of a pose [x, y, z, rx, ry, rz] (mm, deg, R = Rz·Ry·Rx)."""
    out = np.eye(4)
    out[:3, :3] = rotation(pose[3], pose[4], pose[5], "rpy")
    out[:3, 3] = pose[:3]
    return out
