"""JSON/YAML step plans (contract §5, seed 003) validated with pydantic v2.

A plan is a list of steps or `{"name", "description", "steps": [...]}`. Schema
errors become problems naming the step and the field, located at the line of
the offending value where the text allows it. Unknown fields are kept and
passed through to the approved YAML. The document has been decoded once
(`plans.document`); this module only validates and lowers it.
"""

from __future__ import annotations

from typing import Any, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from plan_verifier.findings import Span
from plan_verifier.ir import CARTESIAN, Plan, Pose, PoseSite, Step
from plan_verifier.plans.document import Document, Path, non_finite_numbers
from plan_verifier.problems import Problem, ProblemKind as K

_NUMERIC_PASSTHROUGH = ("velocity", "acceleration")


class StepModel(BaseModel):
    model_config = ConfigDict(extra="allow", str_strip_whitespace=True)

    id: int | str | None = None
    name: str | None = None
    action: Literal["move", "routine"]
    target: str = Field(min_length=1)
    position: str | None = None
    tool: str | None = None
    stabilize: float | None = Field(default=None, ge=0)
    velocity: float | None = None
    acceleration: float | None = None

    @field_validator("position", "tool", "name")
    @classmethod
    def _not_blank(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("must not be empty")
        return v


class PlanModel(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str | None = None
    description: str | None = None
    steps: list[StepModel] = Field(min_length=1)


def load_plan(document: Document, positions: Mapping[str, Sequence[float] | None] | None = None) -> Plan:
    """A decoded JSON or YAML step plan in the IR; never raises on bad input."""
    if document.problem is not None:
        return Plan(format="json", source=document.text, problems=(document.problem,), parsed=False)
    data = document.data
    non_finite = finite_problems(document, data, ())
    if non_finite:
        return Plan(format="json", source=document.text, problems=tuple(non_finite), parsed=False)
    if isinstance(data, list):
        return load_steps(document, {"steps": data}, (), positions)
    return load_steps(document, data, ("steps",), positions)


def finite_problems(document: Document, data: Any, at: Path) -> list[Problem]:
    """A schema problem for every number of `data` (found at `at` in the document) that is not finite.

    Locations follow `schema_problems`: ("steps", index, field...) inside the step list, else the path."""
    out = []
    steps_at = at if isinstance(data, list) else at + ("steps",)
    for path in non_finite_numbers(data):
        inside = path if isinstance(data, list) else path[1:] if path[:1] == ("steps",) else None
        step = inside[0] + 1 if inside and isinstance(inside[0], int) else None
        loc = ("steps", *inside) if inside is not None else path
        span = document.span(steps_at + inside if inside is not None else at + path) or Span.point(1, 1)
        out.append(Problem(K.SCHEMA_MISMATCH, span, step, {"loc": loc, "error": "finite_number",
                                                           "reason": "not a finite number (NaN, Infinity, or beyond the range of a double)"}))
    return out


def load_steps(document: Document, container: Any, steps_path: Path, positions: Mapping[str, Sequence[float] | None] | None,
               *, source_format: str | None = None) -> Plan:
    """The move/routine steps of `container` (a mapping with `steps`, found at `steps_path` in the document)."""
    text = document.text
    positions = positions or {}
    if not isinstance(container, dict):
        return Plan(format="json", source=text, parsed=False, source_format=source_format, problems=(
            Problem(K.NOT_A_STEP_LIST, Span.point(1, 1)),))
    try:
        model = PlanModel.model_validate(container)
    except ValidationError as exc:
        return Plan(format="json", source=text, parsed=False, source_format=source_format,
                    problems=tuple(schema_problems(exc, document, steps_path)))
    steps: list[Step] = []
    sites: list[PoseSite] = []
    poses: dict[str, Pose] = {}  # one Pose per graph position, located at its first use
    for index, sm in enumerate(model.steps, start=1):
        fields = dict(container["steps"][index - 1])  # as written: key order and unknown fields kept
        span = document.span(steps_path + (index - 1,))
        params = {k: v for k in _NUMERIC_PASSTHROUGH if (v := getattr(sm, k)) is not None}
        target_pose = None
        if sm.action == "move":
            target_pose = poses.get(sm.target)
            coords = positions.get(sm.target) if target_pose is None else None
            if coords is not None and len(coords) >= 3:
                values = tuple(float(c) for c in coords) + (0.0,) * (6 - len(coords))
                target_pose = poses[sm.target] = Pose(CARTESIAN, values[:6], "PosX", sm.target, span, "graph")
                sites.append(PoseSite(target_pose, span, index, f"graph position {sm.target}"))
        steps.append(
            Step(
                index=index,
                action=sm.action,
                command=sm.action,
                span=span,
                params=params,
                target=target_pose,
                target_name=sm.target if sm.action == "move" else None,
                name=sm.name,
                routine=sm.target if sm.action == "routine" else None,
                position=sm.position,
                tool=sm.tool,
                fields=fields,
            )
        )
    return Plan(
        format="json",
        source=text,
        steps=tuple(steps),
        pose_sites=tuple(sites),
        name=model.name,
        description=model.description,
        source_format=source_format,
    )


def schema_problems(exc: ValidationError, document: Document, steps_path: Path) -> list[Problem]:
    """One problem per pydantic error, at the offending field (else its step, else the start)."""
    out = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        if loc[:1] == ("steps",) and len(loc) >= 2 and isinstance(loc[1], int):
            step = loc[1] + 1
            span = document.span(steps_path + loc[1:3]) if len(loc) > 2 else None
            span = span or document.span(steps_path + (loc[1],))
        else:
            step = None
            span = Span.point(1, 1)
        out.append(Problem(K.SCHEMA_MISMATCH, span, step, {"loc": loc, "error": err["type"], "reason": err["msg"]}))
    return out
