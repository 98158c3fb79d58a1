"""Approved-actions files read back into the IR, so an executor or a replay can re-verify them.

An actions file (contract §6, typed in `robot_sequence`) is seed 003's `RobotSequence` document. Two
kinds of steps occur:

* seed 003 steps (`action: move|routine`), written by the seed system or by
  us for a JSON plan: they lower exactly as a JSON plan (contract §5);
* our export of a TDL program, one step per executed command (`command`,
  `args` with poses resolved to numbers, `goal`, `spawn`, `target`): they
  lower into the same command steps a TDL program gives (params, poses,
  targets, bindings), so every rule that does not need the TDL text checks
  them again. GOALs are recovered from the steps' `goal` fields; pose
  literals are kept for the arity rules.

A `verification` block whose `sha256` does not match the steps (hashed as
`robot_sequence.steps_sha256` hashes them) means the steps were changed after
approval: the ACTIONS_STEPS_CHANGED problem.

The `verified` block of a motion step (the joint target and duration the
verifier's execution level chose, `motion.verified`) is read into
`Plan.approved_motions`, and the verification's `start_joints_deg` into
`Plan.approved_start_deg`; R-KIN-007 compares them with what the
simulation computes now.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from plan_verifier.findings import Span
from plan_verifier.ir import (
    CARTESIAN,
    JOINT,
    MALFORMED,
    UNSUPPORTED,
    ApprovedMotion,
    Arg,
    Call,
    Cause,
    Constant,
    Goal,
    ListValue,
    Number,
    Plan,
    Pose,
    PoseLiteral,
    PoseSite,
    Ref,
    Step,
    Text,
    Unresolved,
    Value,
)
from plan_verifier.plans.document import Document, Path
from plan_verifier.plans.json_plan import finite_problems, load_steps, schema_problems
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.robot_sequence import ROOT, VERIFIED_KEY, ActionStep, Verification, is_command_step, steps_sha256

FORMAT = "actions"
_POSE_KINDS = {"PosJ": JOINT, "PosX": CARTESIAN, "PosY": CARTESIAN, "Trans": "offset"}


class CommandStepModel(BaseModel):
    """One exported TDL command."""

    model_config = ConfigDict(extra="allow")

    id: int | str | None = None
    command: str = Field(min_length=1)
    goal: str | None = None
    spawn: Literal["WAIT", "NOWAIT"] | None = None
    target: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)


class CommandSequenceModel(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str | None = None
    description: str | None = None
    steps: list[CommandStepModel] = Field(min_length=1)


def is_actions(data: Any) -> bool:
    """Whether a decoded document is an actions file (a `RobotSequence` root)."""
    return isinstance(data, dict) and ROOT in data


def steps_format(data: Any) -> str:
    """"tdl" when every step of the actions document is an exported TDL command, else "json" (seed 003 steps)."""
    sequence = data.get(ROOT) if isinstance(data, dict) else None
    steps = sequence.get("steps") if isinstance(sequence, dict) else None
    if isinstance(steps, list) and steps and all(is_command_step(s) for s in steps):
        return "tdl"
    return "json"


def load_actions(document: Document, positions: Mapping[str, Sequence[float] | None] | None = None) -> Plan:
    """An actions file in the IR (see the module docstring); never raises on bad input."""
    text = document.text
    if document.problem is not None:
        return Plan(format="json", source=text, problems=(document.problem,), parsed=False, source_format=FORMAT)
    sequence = document.data[ROOT]
    root_span = document.span((ROOT,)) or Span.point(1, 1)
    if not isinstance(sequence, dict):
        return Plan(format="json", source=text, problems=(Problem(K.NOT_A_STEP_LIST, root_span),), parsed=False, source_format=FORMAT)
    non_finite = finite_problems(document, sequence, (ROOT,))
    if non_finite:
        return Plan(format=steps_format(document.data), source=text, problems=tuple(non_finite), parsed=False, source_format=FORMAT)
    changed = _steps_changed(document, sequence)
    steps_path = (ROOT, "steps")
    if steps_format(document.data) == "json":
        plan = load_steps(document, sequence, steps_path, positions, source_format=FORMAT)
    else:
        plan = _CommandReader(document, sequence, steps_path).run()
    if changed is not None:
        plan = _with_problem(plan, changed)
    if plan.parsed:
        plan = replace(plan, approved_motions=_approved_motions(document, sequence), approved_start_deg=_start_joints(sequence))
    return plan


def _steps_changed(document: Document, sequence: dict) -> Problem | None:
    """The verification block's sha256 against the steps as they are now (None: unchanged, or no block)."""
    verification = Verification.from_yaml(sequence.get("verification"))
    if verification is None:
        return None  # the seed system's files carry no verification; re-verifying them is the check
    try:
        actual = steps_sha256(sequence.get("steps"))
    except (TypeError, ValueError):  # values the verifier never writes (dates, ...)
        actual = None
    if verification.sha256 is not None and verification.sha256 == actual:
        return None
    span = document.span((ROOT, "verification", "sha256")) or document.span((ROOT, "verification")) or Span.point(1, 1)
    return Problem(K.ACTIONS_STEPS_CHANGED, span, values={"expected": verification.sha256, "actual": actual})


def _with_problem(plan: Plan, problem: Problem) -> Plan:
    return replace(plan, problems=(problem, *plan.problems))


def _approved_motions(document: Document, sequence: dict) -> tuple[ApprovedMotion, ...]:
    """Every step's `verified` block; one that cannot be read (`robot_sequence.VerifiedMotion`) says why in `problem`."""
    out: list[ApprovedMotion] = []
    for index, raw in enumerate(sequence.get("steps") or (), start=1):
        if not isinstance(raw, dict) or VERIFIED_KEY not in raw:
            continue
        step = ActionStep.from_yaml(raw)
        span = document.span((ROOT, "steps", index - 1, VERIFIED_KEY)) or document.span((ROOT, "steps", index - 1))
        if step.verified is None:
            out.append(ApprovedMotion(index, span, None, None, step.unreadable))
            continue
        out.append(ApprovedMotion(index, span, step.verified.joints_deg, step.verified.duration_s))
    return tuple(out)


def _start_joints(sequence: dict) -> tuple[float, ...] | None:
    verification = Verification.from_yaml(sequence.get("verification"))
    return verification.start_joints_deg if verification is not None else None


class _CommandReader:
    """Exported TDL commands back into command steps."""

    def __init__(self, document: Document, sequence: dict, steps_path: Path) -> None:
        self.document = document
        self.sequence = sequence
        self.steps_path = steps_path
        self.problems: list[Problem] = []
        self.literals: list[PoseLiteral] = []
        self.sites: list[PoseSite] = []
        self.sited: set[str] = set()  # named poses get one site, at their first use

    def run(self) -> Plan:
        from plan_verifier.tdl.lower import bind, signature

        document = self.document
        try:
            model = CommandSequenceModel.model_validate(self.sequence)
        except ValidationError as exc:
            return Plan(format="tdl", source=document.text, parsed=False, source_format=FORMAT,
                        problems=tuple(schema_problems(exc, document, self.steps_path)))
        steps: list[Step] = []
        for index, sm in enumerate(model.steps, start=1):
            path = self.steps_path + (index - 1,)
            span = document.span(path)
            sig = signature(sm.command)
            types = sig.types if sig is not None else {}
            raw_args: list[Arg] = []
            resolved: dict[str, Any] = {}
            for name, raw in sm.args.items():
                where = document.span(path + ("args", name)) or span
                value, result = self.value(raw, types.get(name, "any"), where, f"{sm.command}.{name}", index, path + ("args", name))
                raw_args.append(Arg(name, value, where))
                resolved[name] = result
            binding, args = bind(sig, raw_args)
            params = {name: resolved[name] for name in args}
            poses: list[tuple[str, Pose]] = []
            for name, result in params.items():
                ptype = types.get(name)
                items = result if ptype == "pose_list" and isinstance(result, list) else [result] if ptype == "pose" else []
                poses.extend((name, item) for item in items if isinstance(item, Pose))
            target = poses[-1][1] if poses and sig is not None and sig.kind == "motion" else None
            step = Step(index=index, action="command", command=sm.command, span=span, goal=sm.goal, spawn=sm.spawn,
                        raw_args=tuple(raw_args), binding=binding, args=args, params=params, poses=tuple(poses), target=target,
                        target_name=target.name if target is not None else None)
            steps.append(step)
            self.site_poses(step)
        return Plan(
            format="tdl",
            source=document.text,
            steps=tuple(steps),
            goals=self.goals(steps),
            pose_literals=tuple(self.literals),
            pose_sites=tuple(self.sites),
            problems=tuple(self.problems),
            name=model.name,
            description=model.description,
            source_format=FORMAT,
        )

    def value(self, raw: Any, ptype: str, span: Span, context: str, index: int, path: Path) -> tuple[Value, Any]:
        """(the argument as a syntax value, its resolved parameter value), the inverse of `actions._value`."""
        if raw is None or isinstance(raw, bool):
            return Constant(raw, span), raw
        if isinstance(raw, (int, float)):
            return Number(float(raw), str(raw), span), float(raw)
        if isinstance(raw, str):
            return (Ref(raw, span) if ptype == "symbol" else Text(raw, span)), raw
        if isinstance(raw, list):
            items = [self.value(item, "pose" if ptype == "pose_list" else "any", self.document.span(path + (k,)) or span, context, index,
                                path + (k,)) for k, item in enumerate(raw)]
            return ListValue(tuple(v for v, _ in items), span), [r for _, r in items]
        if isinstance(raw, dict):
            if set(raw) == {"expression"} and isinstance(raw["expression"], str):  # what a TDL export could not evaluate
                expression = raw["expression"]
                return Ref(expression, span), Unresolved(expression, (Cause(UNSUPPORTED, expression, span),))
            constructors = [key for key in raw if key in _POSE_KINDS]
            if len(constructors) == 1 and set(raw) <= {constructors[0], "name", "alternatives"}:
                return self.pose(raw, constructors[0], span, context)
        self.problems.append(Problem(K.SCHEMA_MISMATCH, span, index, {
            "loc": ("steps", index - 1) + path[len(self.steps_path) + 1:], "error": "value_type",
            "reason": "not a value of an approved actions file (a number, string, list, pose or expression)"}))
        return Text(str(raw), span), Unresolved(str(raw), (Cause(MALFORMED, str(raw), span),))

    def pose(self, raw: dict, constructor: str, span: Span, context: str) -> tuple[Value, Any]:
        values = raw[constructor] if isinstance(raw[constructor], list) else [raw[constructor]]
        args = tuple(Arg(None, Number(float(v), str(v), span) if _is_number(v) else Text(str(v), span), span) for v in values)
        self.literals.append(PoseLiteral(constructor, args, span, context))
        name = raw.get("name") if isinstance(raw.get("name"), str) else None
        syntax: Value = Ref(name, span) if name else Call(constructor, args, span, span)
        kind = _POSE_KINDS[constructor]
        arity = (6,) if constructor in ("PosJ", "Trans") else (6, 7)
        if len(values) not in arity or not all(_is_number(v) for v in values[:6]):
            text = f"{constructor}({', '.join(str(v) for v in values)})"
            return syntax, Unresolved(text, (Cause(MALFORMED, text, span),))
        alternatives = tuple(tuple(float(x) for x in alt) for alt in raw.get("alternatives") or ()
                             if isinstance(alt, list) and len(alt) == 6 and all(_is_number(x) for x in alt))
        return syntax, Pose(kind, tuple(float(v) for v in values[:6]), constructor, name, span, "inline" if not name else "actions",
                            alternatives)

    def site_poses(self, step: Step) -> None:
        """Each written target is checked once: a named pose at its first use, an unnamed one where it is written.
        An `Assign` names its pose from that step on, as in the TDL program."""
        if step.command == "Assign":
            destination, source = step.params.get("destination"), step.params.get("source")
            if isinstance(destination, str) and isinstance(source, Pose) and destination not in self.sited:
                self.sited.add(destination)
                pose = Pose(source.kind, source.values, source.constructor, destination, source.span, "assign", source.alternatives)
                self.sites.append(PoseSite(pose, step.arg_span("source"), step.index, f"Assign {destination}"))
            return
        for name, pose in step.poses:
            if pose.kind == "offset":
                continue
            if pose.name:
                if pose.name in self.sited:
                    continue
                self.sited.add(pose.name)
            self.sites.append(PoseSite(pose, pose.span, step.index, f"{step.command}.{name}"))

    def goals(self, steps: list[Step]) -> tuple[Goal, ...]:
        """The GOALs in the order their first command runs (a GOAL that only called others has no steps left)."""
        found: dict[str, list] = {}
        for step in steps:
            if step.goal is None:
                continue
            if step.goal not in found:
                name_span = self.document.span(self.steps_path + (step.index - 1, "goal"))
                found[step.goal] = [step.span, name_span, len(found), step.index, step.index]
            found[step.goal][4] = step.index
        return tuple(Goal(name, span, name_span, order, first, last) for name, (span, name_span, order, first, last) in found.items())


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
