"""The motion and gripper timeline of a plan, computed once and shared by rules.

Gripper logic (R-SAF-005), pick & place sequencing (R-SAF-006, R-DOM-001),
delays after gripper actions (R-DOM-003) and payload bookkeeping all ask the
same questions: where is the tool centre point before and after each gripper
command, and is the robot holding something? Answering them once keeps those
rules consistent with each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from plan_verifier import catalogue
from plan_verifier.analysis.points import flange_xyz
from plan_verifier.ir import Plan, Step
from plan_verifier.robots.spec import RobotSpec

#: Height changes below this are noise, not a descent or lift (mm).
Z_EPSILON_MM = 1.0
#: A descent may drift sideways by this much plus its height change (mm).
DESCENT_DRIFT_MM = 50.0


@dataclass(frozen=True, slots=True)
class Move:
    step: Step
    xyz: tuple[float, float, float] | None  # None when the target cannot be evaluated

    @property
    def z(self) -> float | None:
        return self.xyz[2] if self.xyz else None


@dataclass(frozen=True, slots=True)
class GripperAction:
    step: Step
    port: int
    closes: bool
    state_before: str | None  # "open" | "closed" | None (unknown)
    holding_before: bool
    moves_before: tuple[Move, ...]  # the two most recent moves before this action (oldest first)
    move_after: Move | None  # the first move after this action
    delay_after: Step | None  # a Delay between this action and the next move/gripper action

    @property
    def grasps(self) -> bool:
        return self.closes and not self.holding_before

    @property
    def releases(self) -> bool:
        return not self.closes and self.holding_before

    @property
    def redundant(self) -> bool:
        return self.state_before == ("closed" if self.closes else "open")

    @property
    def position(self) -> Move | None:
        return self.moves_before[-1] if self.moves_before else None


@dataclass(frozen=True, slots=True)
class Timeline:
    moves: tuple[Move, ...]
    gripper: tuple[GripperAction, ...]
    port: int | None  # the gripper port the program drives (None: no gripper commands)
    spec_port: int
    inferred_port: bool  # the program drives another port than the spec's gripper port

    @property
    def holding_at_end(self) -> GripperAction | None:
        """The grasp still closed when the program ends, if any."""
        holding = None
        for action in self.gripper:
            if action.grasps:
                holding = action
            elif action.releases:
                holding = None
        return holding


def is_descent(before: Move | None, after: Move | None) -> bool:
    """`after` is clearly lower than `before` and reached mostly vertically."""
    if before is None or after is None or before.xyz is None or after.xyz is None:
        return False
    dz = after.xyz[2] - before.xyz[2]
    drift = math.hypot(after.xyz[0] - before.xyz[0], after.xyz[1] - before.xyz[1])
    return dz < -Z_EPSILON_MM and drift <= abs(dz) + DESCENT_DRIFT_MM


def is_lift(before: Move | None, after: Move | None) -> bool:
    if before is None or after is None or before.xyz is None or after.xyz is None:
        return False
    return after.xyz[2] - before.xyz[2] > Z_EPSILON_MM


def descent_before(action: GripperAction) -> bool | None:
    """Did the robot come down onto the spot where `action` happens?

    False when the program has fewer than two moves before it (no descent is
    written down), None when a position involved cannot be evaluated.
    """
    if len(action.moves_before) < 2:
        return False
    before, at = action.moves_before
    if before.xyz is None or at.xyz is None:
        return None
    return is_descent(before, at)


def lift_after(action: GripperAction) -> bool | None:
    """Does the first move after `action` go up? False when no move follows; None when unknown."""
    if action.move_after is None:
        return False
    at = action.position
    if at is None or at.xyz is None or action.move_after.xyz is None:
        return None
    return is_lift(at, action.move_after)


def move_position(step: Step, robot: RobotSpec) -> tuple[float, float, float] | None:
    return flange_xyz(step.target, robot) if step.target is not None else None


def is_move(step: Step) -> bool:
    """A TDL command that moves the robot, whether or not its target can be evaluated.

    A move to a position only known at run time still moves the robot: leaving it
    out would make the moves around a gripper action look like the wrong ones.
    """
    if step.action != "command":
        return False
    spec = catalogue.lookup(step.command)
    return spec is not None and spec.motion is not None


def gripper_port(plan: Plan, robot: RobotSpec) -> tuple[int | None, bool]:
    """The port the program uses as its gripper, and whether it differs from the spec's."""
    written = []
    for step in plan.steps:
        if step.command == "SetDigitalOutput":
            port = step.number("port")
            if port is not None and port.is_integer():
                written.append(int(port))
    if not written:
        return None, False
    if robot.gripper.port in written:
        return robot.gripper.port, False
    others = sorted(set(written))
    if len(others) == 1:
        return others[0], True
    return None, False


def build_timeline(plan: Plan, robot: RobotSpec) -> Timeline:
    port, inferred = gripper_port(plan, robot)
    close_value = robot.gripper.close_value
    moves: list[Move] = []
    raw_actions: list[tuple[Step, bool, int]] = []  # (step, closes, index into moves)
    for step in plan.steps:
        if is_move(step):
            moves.append(Move(step, move_position(step, robot)))
        elif step.command == "SetDigitalOutput" and port is not None and step.number("port") == port:
            value = step.params.get("value")
            level = int(bool(value)) if isinstance(value, (bool, int, float)) else None
            if level is not None:
                raw_actions.append((step, level == close_value, len(moves)))
    actions: list[GripperAction] = []
    state: str | None = None
    holding = False
    for n, (step, closes, moves_seen) in enumerate(raw_actions):
        next_action_step = raw_actions[n + 1][0].index if n + 1 < len(raw_actions) else None
        move_after = moves[moves_seen] if moves_seen < len(moves) else None
        if move_after is not None and next_action_step is not None and move_after.step.index > next_action_step:
            move_after = None
        stop = min(i for i in (move_after.step.index if move_after else None, next_action_step, len(plan.steps) + 1) if i is not None)
        steps = plan.steps
        delay = next((steps[i] for i in range(step.index, stop - 1) if steps[i].command == "Delay"), None)
        actions.append(
            GripperAction(
                step=step,
                port=port,
                closes=closes,
                state_before=state,
                holding_before=holding,
                moves_before=tuple(moves[max(0, moves_seen - 2) : moves_seen]),
                move_after=move_after,
                delay_after=delay,
            )
        )
        if closes:
            holding = True
        elif holding:
            holding = False
        state = "closed" if closes else "open"
    return Timeline(tuple(moves), tuple(actions), port, robot.gripper.port, inferred)
