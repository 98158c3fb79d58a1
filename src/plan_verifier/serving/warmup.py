"""Warm-up: what each verification worker verifies at configure, so the first request costs what the others do.

A fresh process pays for everything once, at its first verification: the
imports behind each stage, the grammar tables, the pydantic models of JSON
plans, the robot's kinematics and IK branch tables, the cell's collision
scene, the Korean morphology model (some 1.5 s and 300 MB). Measured on this
repository: 190-240 ms for the first request, about 10 ms for the next. The
warm-up plans are built from the configured robot and cell (nothing is read
from files that an install may lack), approved and rejected ones, so that
the paths a request takes have all run once: TDL and JSON reading, every
rule family, IK for joint and Cartesian targets, the Cartesian path and the
collision sweep against the cell, the approved YAML, the repair hints of a
rejected JSON plan, the repair of the rejected plans (when `repair_rejected`)
and, when the semantic stage runs by default (level FULL), the English and
Korean instruction readers. Their verdicts do not
matter and are not kept.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from plan_verifier.graph.model import Cell
from plan_verifier.robots.spec import RobotSpec

#: A semantic-stage instruction in each language the reader knows.
INSTRUCTIONS = ("Pick the part up and place it on the fixture.", "부품을 집어서 고정구에 놓아라.")


@dataclass(frozen=True)
class WarmUpPlan:
    label: str  # what it warms, for the log
    plan: str
    instruction: str | None = None
    level: str | None = None


def warm_up_plans(robot: RobotSpec, cell: Cell | None, level: str) -> list[WarmUpPlan]:
    """The plans a worker verifies before it takes requests (see the module documentation)."""
    plans = [WarmUpPlan("tdl", _motion_program(robot)), WarmUpPlan("tdl-unsafe", _unsafe_program()),
             WarmUpPlan("tdl-unreadable", _unreadable_program())]
    if cell is not None and cell.positions:
        plans.append(WarmUpPlan("json", _json_plan(cell)))
    if level == "FULL":
        plans += [WarmUpPlan("semantic", _motion_program(robot), INSTRUCTIONS[0], "FULL"),
                  WarmUpPlan("korean", _motion_program(robot), INSTRUCTIONS[1], "FULL")]
    return plans


def _motion_program(robot: RobotSpec) -> str:
    """Joint moves and a linear move to a Cartesian target near home (FK of a nearby configuration)."""
    home = list(robot.home_joints_deg)
    near = [home[0] + 20.0, home[1] + 10.0, home[2] - 15.0, *home[3:]]
    tool = min(robot.tools) if robot.tools else 0
    target = _posx(robot, near, tool)
    joints = lambda q: "PosJ(" + ", ".join(f"{v:.3f}" for v in q) + ")"  # noqa: E731
    cartesian = "" if target is None else f"DEFINE Target = PosX({', '.join(f'{v:.3f}' for v in target)});\n"
    linear = "" if target is None else (
        f"    SPAWN MoveLinear(target_pose=Target, velocity=50, acceleration=50, tool={tool}, blending_radius=0) WITH WAIT;\n")
    return (f"DEFINE Home_Pose = {joints(home)};\nDEFINE Near_Pose = {joints(near)};\n{cartesian}"
            "GOAL Initialize_Process() {\n"
            f"    SPAWN MoveJoint(target_pose=Home_Pose, velocity=50, acceleration=50, tool={tool}, blending_radius=0) WITH WAIT;\n"
            "    SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;\n"
            "}\nGOAL Execute_Process() {\n"
            f"    SPAWN MoveJoint(target_pose=Near_Pose, velocity=50, acceleration=50, tool={tool}, blending_radius=0) WITH WAIT;\n"
            f"{linear}"
            "    SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;\n"
            "    SPAWN Delay(duration_sec=0.5) WITH WAIT;\n"
            "    SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;\n"
            "}\nGOAL Finalize_Process() {\n"
            f"    SPAWN MoveJoint(target_pose=Home_Pose, velocity=50, acceleration=50, tool={tool}, blending_radius=0) WITH WAIT;\n"
            "    SPAWN End() WITH WAIT;\n}\n")


def _unsafe_program() -> str:
    """A program the safety rules reject (too fast, a grasp without opening first)."""
    return ("GOAL Execute_Process() {\n    SPAWN MoveLinear(target_pose=PosX(400, 0, 300, 180, 0, 0), velocity=5000, acceleration=100, "
            "tool=0, blending_radius=0) WITH WAIT;\n    SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;\n}\n")


def _unreadable_program() -> str:
    """A program the syntax rules reject."""
    return "GOAL Execute_Process() {\n    SPAWN Delay(duration_sec=) WITH WAIT;\n    SPAWN MoveJoint(\n}\n"


def _json_plan(cell: Cell) -> str:
    """Moves along the cell's edges from its start, a tool pick-up, and one move without an edge (a rejection with repair hints)."""
    start = cell.initial_position if cell.initial_position in cell.positions else sorted(cell.positions)[0]
    steps: list[dict[str, Any]] = []
    here = start
    for _ in range(3):
        nxt = next(iter(cell.neighbours(here)), None)
        if nxt is None:
            break
        steps.append({"action": "move", "target": nxt})
        here = nxt
    tool = next(iter(sorted(cell.tools.values(), key=lambda t: t.name)), None)
    if tool is not None:
        steps.append({"action": "routine", "target": "tool_attach", "position": tool.position, "tool": tool.name})
    unreachable = [p for p in sorted(cell.positions) if p != here and p not in cell.neighbours(here)]
    if unreachable:
        steps.append({"action": "move", "target": unreachable[0]})
    numbered = [{"id": i, "name": f"warm-up step {i}", **step} for i, step in enumerate(steps, 1)]
    return json.dumps({"name": "warm-up", "steps": numbered})


def _posx(robot: RobotSpec, joints_deg: Sequence[float], tool: int) -> tuple[float, ...] | None:
    """The TCP pose of a configuration as PosX values in the robot's orientation convention; None without kinematics."""
    from plan_verifier.kinematics.arm import NoKinematicsError, arm_for

    try:
        arm = arm_for(robot)
        pose = arm.tcp_pose(np.radians(np.asarray(joints_deg, dtype=float)), tool)
    except (NoKinematicsError, LookupError):
        return None
    r = pose[:3, :3]
    if robot.orientation_convention == "zyz":
        a, b, c = math.atan2(r[1, 2], r[0, 2]), math.acos(max(-1.0, min(1.0, r[2, 2]))), math.atan2(r[2, 1], -r[2, 0])
    else:  # rpy: R = Rz(c) Ry(b) Rx(a)
        a, b, c = math.atan2(r[2, 1], r[2, 2]), math.asin(max(-1.0, min(1.0, -r[2, 0]))), math.atan2(r[1, 0], r[0, 0])
    return (*(float(v) for v in pose[:3, 3]), *(math.degrees(v) for v in (a, b, c)))
