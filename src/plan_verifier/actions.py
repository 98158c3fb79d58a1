"""Approved YAML (contract §6) out of a report, and how the robot layer checks a file before running it.

The format itself (its types, reading, the sha256) is `robot_sequence`; this
module fills it from a verification. Only an approved report becomes an actions file. The file is seed 003's
`RobotSequence` (block style, key order kept, 2-space indentation, unicode)
plus a `verification` block: who approved it, for which request, robot and
graph, when, and the sha256 of the steps. The hash covers the steps in a
canonical JSON form, so an executor can tell with `verify_actions_file`
that the steps are exactly the ones the verifier approved, however the YAML
around them was reformatted. Files are written atomically: a crash leaves
the old file or the new one, never half of one.

JSON plans keep their steps as written (unknown fields included). TDL
programs become one step per executed command, in execution order, with every
pose resolved to numbers.

When the execution level ran, each motion step also carries what it verified
(`verified`: the joint target the simulation chose, the motion's duration and,
for Cartesian paths, the configurations on the way; `motion.verified`), inside
the sha256, and the `verification` block says where the simulation started
(`start_joints_deg`, `start_joints_source`: request, joint_states,
start_position or home) and the plan's cycle-time estimate. An executor runs
those joint targets; re-verifying the file refuses it when they are not what
the verifier computes now (R-KIN-007).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from plan_verifier.ir import Plan, Pose, Step, Unresolved
from plan_verifier.motion.verified import start_source, step_motions
from plan_verifier.report import Report
from plan_verifier.robot_sequence import (DEFAULT_NAME, JOINTS_DECIMALS, SECONDS_DECIMALS, ActionStep, FormatError, RobotSequence,
                                          Verification, VerifiedMotion, yaml_number)


def approved_yaml(report: Report, *, correlation_id: str, robot: str, graph_fingerprint: str | None,
                  timestamp: str | None = None) -> tuple[str, str]:
    """The actions file for an approved report: (yaml_text, sha256 of the steps).

    Raises ValueError for a report that is not approved or carries no plan:
    a rejected plan never gets an actions file.
    """
    if not report.approved:
        raise ValueError(f"plan not approved (verdict {report.verdict}): no actions file")
    if report.plan is None or not report.plan.parsed:
        raise ValueError("the report carries no readable plan")
    plan = report.plan
    sequence = RobotSequence(plan.name or DEFAULT_NAME, plan.description or "", approved_steps(report))
    digest = sequence.steps_sha256()
    verification = Verification(
        verifier_id=report.verifier_id,
        correlation_id=correlation_id,
        robot=robot,
        graph_fingerprint=graph_fingerprint,
        timestamp=timestamp or datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        verdict=report.verdict,
        plan_format=report.plan_format,
        sha256=digest,
        **_simulated(report.motion),
    )
    return replace(sequence, verification=verification).to_yaml(), digest


def approved_steps(report: Report) -> tuple[ActionStep, ...]:
    """The steps of an approved report's actions file (what its sha256 covers): the plan's steps with what the
    execution level verified."""
    return plan_steps(report.plan, step_motions(report.motion))


def plan_steps(plan: Plan, verified: Mapping[int, VerifiedMotion] | None = None) -> tuple[ActionStep, ...]:
    """The steps as the executor receives them, each simulated motion step with its `verified` block.

    A step re-emitted from an approved file gets the block of this verification, never its old one."""
    verified = verified or {}
    return tuple(ActionStep.build(step.fields if plan.format == "json" else _tdl_step(step), verified.get(step.index))
                 for step in plan.steps)


def _simulated(execution: Any) -> dict[str, Any]:
    """The verification block's additions when the execution level ran: its start and the cycle-time estimate."""
    if execution is None or execution.unavailable is not None or execution.start is None:
        return {}
    return {
        "start_joints_deg": tuple(yaml_number(round(v, JOINTS_DECIMALS) + 0.0) for v in execution.start.joints_deg),
        "start_joints_source": start_source(execution.start.source),
        "cycle_time_s": yaml_number(round(sum(m.duration_s for m in execution.motions), SECONDS_DECIMALS) + 0.0),
    }


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` to `path` so that readers see the old file or the new one, never a mix.

    A temporary file in the same directory is written, flushed and fsync'ed,
    then renamed over `path`; the directory is fsync'ed so the rename survives
    a power cut.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # platforms without directory handles: the rename is still atomic
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


@dataclass(frozen=True)
class ActionsCheck:
    """The outcome of `verify_actions_file`; true only when the steps are the approved ones."""

    ok: bool
    reason: str
    expected: str | None = None
    actual: str | None = None

    def __bool__(self) -> bool:
        return self.ok


def verify_actions_file(path: str | os.PathLike[str]) -> ActionsCheck:
    """Check, before running it, that an actions file's steps still hash to the sha256 it was approved with."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return ActionsCheck(False, f"cannot read {path}: {exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    return verify_actions_text(text, source=str(path))


def verify_actions_text(text: str, *, source: str = "the actions YAML") -> ActionsCheck:
    """`verify_actions_file` for YAML received as text (an ~/approved_actions message)."""
    try:
        sequence = RobotSequence.read(text, source=source)
    except FormatError as exc:
        return ActionsCheck(False, str(exc))
    return check_sequence(sequence)


def check_sequence(sequence: RobotSequence) -> ActionsCheck:
    """Whether a file's steps still hash to the sha256 its verification block records."""
    expected = sequence.verification.sha256 if sequence.verification is not None else None
    if expected is None:
        return ActionsCheck(False, "no verification.sha256: the file was not written by the verifier")
    try:
        actual = sequence.steps_sha256()
    except (TypeError, ValueError) as exc:  # values the verifier never writes (dates, ...)
        return ActionsCheck(False, f"the steps hold values the verifier never writes ({exc.__class__.__name__}): not the approved steps",
                            expected)
    if actual != expected:
        return ActionsCheck(False, "the steps were changed after approval (sha256 mismatch)", expected, actual)
    return ActionsCheck(True, "steps match the approved sha256", expected, actual)


# ----------------------------------------------------------------------------- TDL steps


def _tdl_step(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"id": step.index, "command": step.command}
    if step.goal:
        out["goal"] = step.goal
    if step.spawn:
        out["spawn"] = step.spawn
    if step.target_name:
        out["target"] = step.target_name
    out["args"] = {name: _value(value) for name, value in step.params.items()}
    return out


def _value(value: Any) -> Any:
    if isinstance(value, Pose):
        pose: dict[str, Any] = {value.constructor: [yaml_number(v) for v in value.values]}
        if value.name:
            pose["name"] = value.name
        if value.alternatives:
            pose["alternatives"] = [[yaml_number(v) for v in alt] for alt in value.alternatives]
        return pose
    if isinstance(value, Unresolved):
        return {"expression": value.text}
    if isinstance(value, list):
        return [_value(v) for v in value]
    if isinstance(value, float):
        return yaml_number(value)
    return value
