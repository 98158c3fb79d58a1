"""The task a plan carries out, which a repair must keep: its events, in order, each at its TCP pose.

An event is whatever the robot does besides moving: gripper and I/O commands,
tool changes and tool settings, application commands (welding, compliance),
routines of a JSON plan. Its pose is where the TCP is when it happens: the
commanded target of the last motion before it (a Cartesian target as written,
a joint target through forward kinematics with the motion's tool). Two plans
do the same task when their event lists agree in order, command and arguments,
and every pose agrees to within `POSITION_MM` and `ORIENTATION_DEG` — what the
repair checks for every candidate, and the tests for every repaired plan.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from plan_verifier import catalogue
from plan_verifier.graph.model import Cell
from plan_verifier.ir import Plan
from plan_verifier.kinematics.rigid import rotation_angle
from plan_verifier.motion.program import Motion, motion_program
from plan_verifier.repair.model import MotionModel

POSITION_MM = 0.05
ORIENTATION_DEG = 0.05
#: Catalogue kinds that are part of the task (flow commands, delays and logs are not events) ...
EVENT_KINDS = frozenset({"io", "config", "application"})
#: ... except the global speed settings: speeds are what a repair may clamp.
SPEED_SETTINGS = frozenset({"SetTaskVelocity", "SetTaskAcceleration", "SetJointVelocity", "SetJointAcceleration"})


@dataclass(frozen=True, eq=False)
class TaskEvent:
    step: int
    what: str  # the command and its arguments as written (whitespace normalised), or a JSON routine step
    pose: np.ndarray | None  # (4, 4) TCP pose, mm; None before the plan's first motion


def task_events(plan: Plan, model: MotionModel, cell: Cell | None, trace=None) -> list[TaskEvent]:
    """The plan's events in execution order, each with the TCP pose it happens at."""
    motions: dict[int, Motion] = {}
    for item in motion_program(plan, cell, trace).items:
        if isinstance(item, Motion):
            motions[item.step] = item
    events: list[TaskEvent] = []
    pose: np.ndarray | None = None
    for step in plan.steps:
        if step.index in motions:
            pose = _target_pose(motions[step.index], model)
            continue
        what = _event(step, plan.source)
        if what is not None:
            events.append(TaskEvent(step.index, what, pose))
    return events


def task_difference(before: list[TaskEvent], after: list[TaskEvent]) -> str | None:
    """None when `after` does the same task as `before`; else what differs first."""
    if len(before) != len(after):
        return f"{len(before)} events became {len(after)}"
    for a, b in zip(before, after):
        if a.what != b.what:
            return f"event {a.what!r} (step {a.step}) became {b.what!r}"
        if (a.pose is None) != (b.pose is None):
            return f"event {a.what!r} (step {a.step}) lost or gained its pose"
        if a.pose is None:
            continue
        moved = float(np.linalg.norm(a.pose[:3, 3] - b.pose[:3, 3]))
        turned = math.degrees(float(rotation_angle(a.pose[:3, :3].T @ b.pose[:3, :3])))
        if moved > POSITION_MM or turned > ORIENTATION_DEG:
            return f"event {a.what!r} (step {a.step}) moved by {moved:.3f} mm and {turned:.3f} deg"
    return None


def _target_pose(motion: Motion, model: MotionModel) -> np.ndarray | None:
    target = motion.target
    if target.pose is not None:
        return model.pose(target.pose, target.convention)
    if target.joints_deg is None:
        return None
    ref = motion.tool
    mount = model.mount(tool_number=ref.number, cell_tool=ref.name)
    return model.arm.tcp_pose(np.radians(np.asarray(target.joints_deg, dtype=float)), mount.tcp)


def _event(step, source: str) -> str | None:
    if step.action == "routine":
        return f"routine {step.routine} at {step.position} tool {step.tool}"
    if step.action != "command":
        return None
    spec = catalogue.lookup(step.command)
    if spec is None or spec.kind not in EVENT_KINDS or step.command in SPEED_SETTINGS:
        return None
    return re.sub(r"\s+", " ", _source(source, step.span)).strip()


def _source(source: str, span) -> str:
    if span is None:
        return ""
    lines = source.split("\n")
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1: span.end_column - 1]
    parts = [lines[span.line - 1][span.column - 1:], *lines[span.line: span.end_line - 1], lines[span.end_line - 1][: span.end_column - 1]]
    return " ".join(parts)
