"""Programs written the way LLM planners write them: targets checked against reach and height only, a home pose
somewhere, `MoveLinear` everywhere (issue 15's benchmark and tests).

A seeded generator of pick-and-place TDL programs for a robot spec: each cycle picks
at a random target and places at another (both tool down, the yaw random, the target
and its approach point within `REACH_SHARE` of the spec's reach from the base and at
least `MIN_HEIGHT_MM` above the table — the only checks such a planner makes),
approaching and leaving 100-150 mm above each; the home
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
#: Heights above the table as a share of the reach (a UR3e's work is lower than a UR10e's), at least 60 mm.
HEIGHT_SHARE = (0.0, 0.3)
MIN_HEIGHT_MM = 60.0
#: The approach offset above each target (mm): 150 for arms reaching over 700 mm, else 100.
ABOVE_MM = (100.0, 150.0)


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

    above = ABOVE_MM[1] if robot.reach_mm > 700 else ABOVE_MM[0]

    def point(name: str, lift: float = 0.0) -> tuple[float, float, float, float]:
        """A target whose distance from the base (and its approach point's, `lift` above) is within the reach share."""
        while True:
            radius = rng.uniform(*REACH_SHARE) * robot.reach_mm
            angle = rng.uniform(-math.pi, math.pi)
            z = MIN_HEIGHT_MM + rng.uniform(*HEIGHT_SHARE) * robot.reach_mm
            if math.hypot(radius, z + lift) <= REACH_SHARE[1] * robot.reach_mm:
                return (round(radius * math.cos(angle)), round(radius * math.sin(angle)), round(z), round(rng.uniform(-90, 90)))

    def define(name: str, x: float, y: float, z: float, yaw: float) -> None:
        defines.append(f"DEFINE {name} = PosX({x:g}, {y:g}, {z:g}, {', '.join(f'{v:g}' for v in down(yaw))});")

    if rng.random() < 0.5:
        defines.append(f"DEFINE Home = PosJ({', '.join(f'{v:g}' for v in robot.home_joints_deg)});")
    else:
        x, y, z, yaw = point("Home", lift=0.25 * robot.reach_mm)
        define("Home", x, y, round(z + 0.25 * robot.reach_mm), yaw)
    port, close = robot.gripper.port, robot.gripper.close_value
    move = "    SPAWN MoveLinear({}, {}, {}, 0, 0) WITH WAIT;"
    for k in range(1, cycles + 1):
        for role in ("Pick", "Place"):
            x, y, z, yaw = point(f"{role}_{k}", lift=above)
            define(f"{role}_{k}_Above", x, y, z + above, yaw)
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
