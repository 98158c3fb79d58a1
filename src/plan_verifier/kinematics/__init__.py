"""Kinematics of the execution level: forward and inverse kinematics, Jacobians,
singularity measures, tools and the robot's collision bodies (numpy, no ROS).

`arm_for(spec)` gives the cached `Arm` of a robot spec; see docs/robots.md. The names
below load on first use, so the rules' forward kinematics (`chain`) stays cheap to import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from plan_verifier.kinematics.arm import (
        Arm,
        IkResult,
        IkSolution,
        NoKinematicsError,
        SingularityMeasures,
        UnknownToolError,
        arm_for,
    )

__all__ = ["Arm", "IkResult", "IkSolution", "NoKinematicsError", "SingularityMeasures", "UnknownToolError", "arm_for"]


def __getattr__(name: str):
    if name in __all__:
        return getattr(importlib.import_module("plan_verifier.kinematics.arm"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
