"""The approved-actions format (contract §6), one typed model: seed 003's `RobotSequence` plus our blocks.

Everything that writes or reads an approved-actions file goes through these
types: the verifier writing an approval (`actions`), the reader that lowers a
file back into the IR for re-verification (`plans.actions_plan`), the
execution level saying what it verified per step (`motion.verified`), the
simulated executor (`executor.job`) and the bag replay (`replay.traffic`).

A file is a `RobotSequence` (name, description, steps) and, when the verifier
approved it, a `Verification` (who, for which request, robot and graph, when,
the sha256 of the steps, and where the execution level started). A step is
kept as written (`ActionStep.fields`: seed 003's move/routine steps with any
unknown fields, or our export of a TDL command), so its sha256 is the one of
the bytes the verifier approved, plus the typed view of its `verified` block
(`VerifiedMotion`: the joint target the execution level chose, the motion's
duration, the configurations on the way).

Reading is lenient where writing is exact: a value that is not what the
verifier writes reads as None (a `verified` block that cannot be read says why
in `ActionStep.unreadable`), and each reader decides what that means —
the re-verification reports it, the executor refuses to run it.

Numbers are written as the file's readers expect them: integral values as
ints (500, not 500.0), so a YAML round trip hashes the same; joints and
seconds rounded to `JOINTS_DECIMALS`/`SECONDS_DECIMALS` by the writer.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import yaml

from plan_verifier import yaml_text

ROOT = "RobotSequence"
#: A step's key for what the execution level verified for it.
VERIFIED_KEY = "verified"
DEFAULT_NAME = "Robot Sequence"
JOINTS_DECIMALS = 3
SECONDS_DECIMALS = 3
#: `start_joints_source` when the execution level started from the robot's own joints (/joint_states).
FROM_JOINT_STATES = "joint_states"


class FormatError(ValueError):
    """Not an approved-actions file as this model reads it; the message says why."""


def yaml_number(value: Any) -> Any:
    """Integral finite floats as ints (500, not 500.0): what a reader of the file expects, and it hashes the same
    after a YAML round trip. Other values unchanged."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def steps_sha256(steps: Sequence[Mapping[str, Any]]) -> str:
    """sha256 of the steps' canonical JSON (sorted keys, no spaces, UTF-8), as the `verification` block records it.

    Raises TypeError/ValueError for values the verifier never writes (dates, ...)."""
    canonical = json.dumps(steps, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ViaPoint:
    """A configuration on the way of a Cartesian motion, `t_s` seconds from the step's start."""

    t_s: float
    joints_deg: tuple[float, ...]


@dataclass(frozen=True)
class VerifiedMotion:
    """A step's `verified` block: where its motion ends, how long it takes, the points on the way."""

    joints_deg: tuple[float, ...]
    duration_s: float
    path: str | None = None  # joint | linear | circular (the first motion's, when a step has several); None: not written
    via: tuple[ViaPoint, ...] = ()

    def to_yaml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"joints_deg": list(self.joints_deg), "duration_s": self.duration_s}
        if self.path is not None:
            out["path"] = self.path
        if self.via:
            out["via"] = [{"t_s": point.t_s, "joints_deg": list(point.joints_deg)} for point in self.via]
        return out

    @classmethod
    def from_yaml(cls, block: Any) -> VerifiedMotion:
        """The block as the verifier writes it; FormatError naming what is not."""
        if not isinstance(block, Mapping):
            raise FormatError("not a mapping with joints_deg (numbers) and duration_s")
        joints = _joints(block.get("joints_deg"))
        duration = _number(block.get("duration_s"))
        if joints is None or duration is None:
            raise FormatError("not a mapping with joints_deg (numbers) and duration_s")
        if duration < 0:
            raise FormatError(f"duration_s is negative ({duration:g})")
        path = block.get("path")
        if path is not None and not isinstance(path, str):
            raise FormatError("path is not a string")
        via = block.get("via", [])
        if not isinstance(via, list):
            raise FormatError("via is not a list")
        points = []
        for k, point in enumerate(via):
            t = _number(point.get("t_s")) if isinstance(point, Mapping) else None
            q = _joints(point.get("joints_deg")) if isinstance(point, Mapping) else None
            if t is None or q is None:
                raise FormatError(f"via point {k + 1} is not a mapping with t_s and joints_deg (numbers)")
            points.append(ViaPoint(t, q))
        return cls(joints, duration, path, tuple(points))


@dataclass(frozen=True)
class ActionStep:
    """One step as written — a seed 003 step (`action: move|routine`, unknown fields kept) or an exported TDL command
    (`command`, `args` with poses resolved to numbers, `goal`, `spawn`, `target`) — and the typed view of its
    `verified` block. `fields` is what the sha256 covers (the `verified` block included); never mutate it."""

    fields: dict[str, Any]
    verified: VerifiedMotion | None = None
    #: Why a `verified` block the step carries cannot be read (then `verified` is None).
    unreadable: str | None = None

    @classmethod
    def build(cls, fields: Mapping[str, Any], verified: VerifiedMotion | None = None) -> ActionStep:
        """A step to write: its fields (any old `verified` block dropped) and this verification's block, last."""
        out = {key: value for key, value in fields.items() if key != VERIFIED_KEY}
        if verified is not None:
            out[VERIFIED_KEY] = verified.to_yaml()
        return cls(out, verified)

    @classmethod
    def from_yaml(cls, raw: Mapping[str, Any]) -> ActionStep:
        fields = dict(raw)
        if VERIFIED_KEY not in fields:
            return cls(fields)
        try:
            return cls(fields, VerifiedMotion.from_yaml(fields[VERIFIED_KEY]))
        except FormatError as exc:
            return cls(fields, None, str(exc))

    @property
    def has_verified(self) -> bool:
        return VERIFIED_KEY in self.fields

    @property
    def is_command(self) -> bool:
        """An exported TDL command (not a seed 003 step)."""
        return is_command_step(self.fields)

    @property
    def command(self) -> str | None:
        """The TDL command a step names (None for a seed 003 step)."""
        return str(self.fields["command"]) if "command" in self.fields else None

    @property
    def args(self) -> Mapping[str, Any]:
        """A command step's arguments ({} when it has none, or they are not a mapping)."""
        args = self.fields.get("args")
        return args if isinstance(args, Mapping) else {}

    def to_yaml(self) -> dict[str, Any]:
        return self.fields


def is_command_step(raw: Any) -> bool:
    """Whether a decoded step is an exported TDL command rather than a seed 003 step."""
    return isinstance(raw, Mapping) and "command" in raw and "action" not in raw


@dataclass(frozen=True)
class Verification:
    """Who approved the steps, for which request, robot and graph, when, and the sha256 they hash to; when the
    execution level ran, the joints it started from (and where they came from: request, joint_states,
    start_position or home) and the plan's cycle-time estimate. Read from a file, a value of the wrong type is None."""

    sha256: str | None
    verifier_id: str | None = None
    correlation_id: str | None = None
    robot: str | None = None
    graph_fingerprint: str | None = None
    timestamp: str | None = None
    verdict: str | None = None
    plan_format: str | None = None
    start_joints_deg: tuple[float, ...] | None = None
    start_joints_source: str | None = None
    cycle_time_s: float | None = None

    def to_yaml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verifier_id": self.verifier_id, "correlation_id": self.correlation_id, "robot": self.robot,
                               "graph_fingerprint": self.graph_fingerprint, "timestamp": self.timestamp, "verdict": self.verdict,
                               "plan_format": self.plan_format, "sha256": self.sha256}
        if self.start_joints_deg is not None:
            out["start_joints_deg"] = list(self.start_joints_deg)
            out["start_joints_source"] = self.start_joints_source
            out["cycle_time_s"] = self.cycle_time_s
        return out

    @classmethod
    def from_yaml(cls, block: Any) -> Verification | None:
        """The block as read (None when there is none: the seed system's files, or steps written back unapproved)."""
        if not isinstance(block, Mapping):
            return None
        text = {name: block.get(name) if isinstance(block.get(name), str) else None for name in _TEXT_FIELDS}
        return cls(**text, start_joints_deg=_joints(block.get("start_joints_deg")), cycle_time_s=_number(block.get("cycle_time_s")))


_TEXT_FIELDS = ("sha256", "verifier_id", "correlation_id", "robot", "graph_fingerprint", "timestamp", "verdict", "plan_format",
                "start_joints_source")


@dataclass(frozen=True)
class RobotSequence:
    """An approved-actions file: its steps and, when the verifier approved them, its verification."""

    name: str | None
    description: str | None
    steps: tuple[ActionStep, ...]
    verification: Verification | None = None

    def steps_yaml(self) -> list[dict[str, Any]]:
        return [step.to_yaml() for step in self.steps]

    def steps_sha256(self) -> str:
        """The sha256 of the steps as they are (see `steps_sha256`)."""
        return steps_sha256(self.steps_yaml())

    def to_yaml(self) -> str:
        """The file's text: block style, key order kept, 2-space indentation, unicode (`yaml_text.dump`)."""
        body: dict[str, Any] = {"name": self.name, "description": self.description, "steps": self.steps_yaml()}
        if self.verification is not None:
            body["verification"] = self.verification.to_yaml()
        return yaml_text.dump({ROOT: body})

    @classmethod
    def from_data(cls, data: Any) -> RobotSequence:
        """A decoded document; FormatError when it is not a RobotSequence whose steps are a list of mappings."""
        sequence = data.get(ROOT) if isinstance(data, Mapping) else None
        if not isinstance(sequence, Mapping) or not isinstance(sequence.get("steps"), list):
            raise FormatError("not an actions file: no RobotSequence with steps")
        steps = []
        for index, raw in enumerate(sequence["steps"], start=1):
            if not isinstance(raw, Mapping):
                raise FormatError(f"not an actions file: step {index} is not a mapping")
            steps.append(ActionStep.from_yaml(raw))
        name, description = sequence.get("name"), sequence.get("description")
        return cls(name if isinstance(name, str) else None, description if isinstance(description, str) else None, tuple(steps),
                   Verification.from_yaml(sequence.get("verification")))

    @classmethod
    def read(cls, text: str, *, source: str = "the actions YAML") -> RobotSequence:
        """`from_data` of YAML text; FormatError (naming `source`) when it is not YAML either."""
        try:
            data = yaml_text.load(text)
        except yaml.YAMLError as exc:
            raise FormatError(f"cannot read {source}: {exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
        return cls.from_data(data)


def _number(value: Any) -> float | None:
    """A finite number (not a bool) as a float, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _joints(values: Any) -> tuple[float, ...] | None:
    """A non-empty list of finite numbers as floats, else None."""
    if not isinstance(values, list) or not values:
        return None
    joints = tuple(_number(v) for v in values)
    return None if None in joints else joints  # type: ignore[return-value]
