"""Whether a cell position's taught `joints` belong to the robot being verified.

A cell's `joints` are configurations taught on one arm (`plan-verify graph lint
--teach` writes them for the robot it ran with). The same cell verified with
another robot must not send that robot to the other arm's joint angles: on a
Doosan M1013 the UR10e's home angles put the forearm through the table, and
every plan on the cell would be rejected for it. So a position's joints count
as taught for this robot only when they put its flange, or the TCP of a tool
that can be on it (the cell's tools, the spec's tool numbers), on the
position's pose; otherwise the pose is the target and the controller's IK
choice decides the configuration, as for a position without joints. A
position without a six-number pose keeps its joints: there is nothing to
check them against, and the cell author said where the arm goes.
"""

from __future__ import annotations

import math

import numpy as np

from plan_verifier.collision.frames import pose_matrix
from plan_verifier.graph.model import Cell, Position
from plan_verifier.kinematics.arm import Arm
from plan_verifier.kinematics.rigid import rotation_angle

#: How far taught joints may put a TCP from the position's pose and still be that pose (rounding of
#: taught angles to 0.001° moves a UR10e TCP by hundredths of a millimetre).
POSITION_TOLERANCE_MM = 1.0
ORIENTATION_TOLERANCE_DEG = 0.5


class TaughtJoints:
    """Per run: which positions' joints this robot can use (decided once per position)."""

    def __init__(self, arm: Arm, cell: Cell | None) -> None:
        self._arm = arm
        tcps = [np.eye(4)]
        if cell is not None:
            tcps += [pose_matrix(tool.tcp) for tool in cell.tools.values() if tool.tcp is not None]
        tcps += [arm.tcp(number) for number in arm.spec.tools]
        self._tcps = np.stack(tcps)
        self._fits: dict[str, bool] = {}

    def usable(self, position: Position) -> bool:
        """Whether the position's joints (if any) are this robot's configuration for it."""
        if position.joints is None:
            return False
        if position.pose is None or len(position.pose) != 6:
            return True
        if position.name not in self._fits:
            self._fits[position.name] = self._reaches(position.joints, position.pose)
        return self._fits[position.name]

    def _reaches(self, joints_deg, pose) -> bool:
        reached = self._arm.tcp_pose(np.radians(np.asarray(joints_deg, dtype=float)), np.eye(4)) @ self._tcps
        target = pose_matrix(pose)
        off_mm = np.linalg.norm(reached[:, :3, 3] - target[:3, 3], axis=-1)
        turned = rotation_angle(np.swapaxes(reached[:, :3, :3], -1, -2) @ target[:3, :3])
        return bool(np.any((off_mm <= POSITION_TOLERANCE_MM) & (turned <= math.radians(ORIENTATION_TOLERANCE_DEG))))
