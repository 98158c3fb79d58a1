"""Programs written the way LLM planners write them: targets checked against reach and height only, a home pose
somewhere, `MoveLinear` everywhere (issue 15's benchmark and tests).

A seeded generator of pick-and-place TDL programs for a robot spec: each cycle picks
at a random target and places at another (both tool down, the yaw random, inside
`REACH_SHARE` of the spec's reach and between `HEIGHT_MM` above the floor — the only
checks such a planner makes), approaching and leaving 150 mm above each; the home
is either the spec's home joints (`PosJ`) or a random Cartesian pose above the
workspace, as planners write both. Every motion is a `MoveLinear`; the gripper
is the spec's output. Nothing here knows about kinematics or the cell's obstacles:
that is the point.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from plan_verifier.robots.spec import RobotSpec

REACH_SHARE = (0.35, 0.8)
HEIGHT_MM = (60.0, 350.0)
ABOVE_MM = 150.0


@dataclass(frozen=True)
class Generated:
    name: str
    text: str
    motions: int


def target_only_program(robot: RobotSpec, seed: int, cycles: int = 5) -> Generated:
    """One program: `cycles` pick-and-place cycles (6 motions each) between a move to home and a move back."""
    rng = random.Random(f"{robot.name}:{seed}")
    down = _tool_down(robot)
    defines: list[str] = []
    body: list[str] = []

    def point(name: str) -> tuple[float, float, float, float]:
        radius = rng.uniform(*REACH_SHARE) * robot.reach_mm
        angle = rng.uniform(-math.pi, math.pi)
        z = rng.uniform(*HEIGHT_MM)
        return (round(radius * math.cos(angle)), round(radius * math.sin(angle)), round(z), round(rng.uniform(-90, 90)))

    def define(name: str, x: float, y: float, z: float, yaw: float) -> None:
        defines.append(f"DEFINE {name} = PosX({x:g}, {y:g}, {z:g}, {', '.join(f'{v:g}' for v in down(yaw))});")

    if rng.random() < 0.5:
        defines.append(f"DEFINE Home = PosJ({', '.join(f'{v:g}' for v in robot.home_joints_deg)});")
    else:
        x, y, _, yaw = point("Home")
        define("Home", x, y, round(rng.uniform(350.0, 550.0)), yaw)
    port, close = robot.gripper.port, robot.gripper.close_value
    move = "    SPAWN MoveLinear({}, {}, {}, 0, 0) WITH WAIT;"
    for k in range(1, cycles + 1):
        for role in ("Pick", "Place"):
            x, y, z, yaw = point(f"{role}_{k}")
            define(f"{role}_{k}_Above", x, y, z + ABOVE_MM, yaw)
            define(f"{role}_{k}", x, y, z, yaw)
        body += [
            f"    // cycle {k}",
            move.format(f"Pick_{k}_Above", 200, 100),
            move.format(f"Pick_{k}", 50, 50),
            f"    SPAWN SetDigitalOutput({port}, {close}) WITH WAIT;  // grasp",
            "    SPAWN Delay(0.5) WITH WAIT;",
            move.format(f"Pick_{k}_Above", 50, 50),
            move.format(f"Place_{k}_Above", 200, 100),
            move.format(f"Place_{k}", 50, 50),
            f"    SPAWN SetDigitalOutput({port}, {1 - close}) WITH WAIT;  // release",
            "    SPAWN Delay(0.5) WITH WAIT;",
            move.format(f"Place_{k}_Above", 50, 50),
        ]
    text = "\n".join([
        f"// Generated target-only pick and place ({robot.name}, seed {seed}): every target within reach and above the table.",
        *defines,
        "",
        "GOAL Initialize_Process() {",
        move.format("Home", 100, 100),
        f"    SPAWN SetDigitalOutput({port}, {1 - close}) WITH WAIT;  // open the gripper",
        "    SPAWN Delay(0.5) WITH WAIT;",
        "}",
        "",
        "GOAL Execute_Process() {",
        *body,
        "}",
        "",
        "GOAL Finalize_Process() {",
        move.format("Home", 100, 100),
        "    SPAWN End() WITH WAIT;",
        "}",
        "",
    ])
    return Generated(f"{robot.name}-{seed:03d}", text, 2 + 6 * cycles)


def _tool_down(robot: RobotSpec):
    """The orientation triple of a tool pointing down with a yaw, in the robot's convention."""
    if robot.orientation_convention == "zyz":
        return lambda yaw: (yaw, 180, 0)
    return lambda yaw: (180, 0, yaw)
