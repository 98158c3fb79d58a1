"""JSON/YAML step plans (contract §5, seed 003) validated with pydantic v2.

A plan is a list of steps or `{"name", "description", "steps": [...]}`. Schema
errors become R-SYN-008 diagnostics naming the step and the field, located at
the line of the offending value where the text allows it. Unknown fields are
kept and passed through to the approved YAML.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, Mapping, Sequence

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from plan_verifier.findings import Span
from plan_verifier.ir import CARTESIAN, Diagnostic, Plan, Pose, PoseSite, Step

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


def looks_like_plan(text: str) -> bool:
    """Contract §1 `auto`: a JSON array/object, or a YAML mapping with `steps`."""
    head = text.lstrip("\ufeff \t\r\n")
    if head[:1] in ("[", "{"):
        return True
    if re.search(r"^steps\s*:", text, re.MULTILINE):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return False
        return isinstance(data, dict) and "steps" in data
    return False


def load_plan(text: str, positions: Mapping[str, Sequence[float] | None] | None = None) -> Plan:
    """Read a JSON or YAML plan into the IR; never raises on bad input."""
    positions = positions or {}
    locations = _locations(text)
    data, error = _decode(text)
    if error is not None:
        return Plan(format="json", source=text, diagnostics=(error,), parsed=False)
    if isinstance(data, list):
        data = {"steps": data}
    if not isinstance(data, dict):
        return Plan(format="json", source=text, parsed=False, diagnostics=(
            Diagnostic("R-SYN-008", "Plan does not match the plan schema: expected a list of steps or an object with 'steps'", Span.point(1, 1)),))
    try:
        model = PlanModel.model_validate(data)
    except ValidationError as exc:
        return Plan(format="json", source=text, parsed=False, diagnostics=tuple(_schema_diagnostics(exc, locations)))
    steps: list[Step] = []
    sites: list[PoseSite] = []
    sited: set[str] = set()
    for index, sm in enumerate(model.steps, start=1):
        fields = dict(data["steps"][index - 1])  # as written: key order and unknown fields kept
        span = locations.get((index,))
        params = {k: getattr(sm, k) for k in _NUMERIC_PASSTHROUGH if getattr(sm, k) is not None}
        target_pose = None
        if sm.action == "move":
            coords = positions.get(sm.target)
            if coords is not None and len(coords) >= 3:
                values = tuple(float(c) for c in coords) + (0.0,) * (6 - len(coords))
                target_pose = Pose(CARTESIAN, values[:6], "PosX", sm.target, span, "graph")
                if sm.target not in sited:
                    sited.add(sm.target)
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
    )


def _decode(text: str) -> tuple[Any, Diagnostic | None]:
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped[:1] in ("[", "{"):
        try:
            return json.loads(text.lstrip("\ufeff")), None
        except json.JSONDecodeError as exc:
            return None, Diagnostic("R-SYN-008", f"Plan is not valid JSON: {exc.msg}", Span.point(exc.lineno, exc.colno),
                                    suggestion="Emit strict JSON (double quotes, no trailing commas)")
        except RecursionError:
            return None, Diagnostic("R-SYN-008", "Plan is nested too deeply to be a step list", Span.point(1, 1))
    try:
        return yaml.safe_load(text), None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        span = Span.point(mark.line + 1, mark.column + 1) if mark else Span.point(1, 1)
        return None, Diagnostic("R-SYN-008", f"Plan is not valid YAML: {getattr(exc, 'problem', None) or exc}", span)
    except RecursionError:
        return None, Diagnostic("R-SYN-008", "Plan is nested too deeply to be a step list", Span.point(1, 1))


def _schema_diagnostics(exc: ValidationError, locations: dict[tuple, Span]) -> list[Diagnostic]:
    out = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        if loc[:1] == ("steps",) and len(loc) >= 2 and isinstance(loc[1], int):
            step = loc[1] + 1
            field = ".".join(str(p) for p in loc[2:])
            where = f"Step {step}" + (f": field '{field}'" if field else "")
            span = locations.get((step, loc[2])) if len(loc) > 2 else None
            span = span or locations.get((step,))
        else:
            step = None
            where = "Plan" + (f": field '{'.'.join(str(p) for p in loc)}'" if loc else "")
            span = Span.point(1, 1)
        msg = err["msg"]
        if err["type"] == "missing":
            msg = "required field is missing"
        out.append(Diagnostic("R-SYN-008", f"Plan does not match the plan schema: {where}: {msg}", span, step,
                              {"field": ".".join(str(p) for p in loc), "error": err["type"]}))
    return out


def _locations(text: str) -> dict[tuple, Span]:
    """Line/column of each step and each step field, best effort (JSON is read as YAML)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except Exception:  # noqa: BLE001 - locations are a courtesy; a bad document gets none
        return {}
    out: dict[tuple, Span] = {}
    steps = None
    if isinstance(root, yaml.SequenceNode):
        steps = root
    elif isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if getattr(key, "value", None) == "steps" and isinstance(value, yaml.SequenceNode):
                steps = value
    if steps is None:
        return out
    for i, node in enumerate(steps.value, start=1):
        out[(i,)] = _span(node)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                out[(i, getattr(key, "value", None))] = _span(value)
    return out


def _span(node: yaml.Node) -> Span:
    s, e = node.start_mark, node.end_mark
    return Span(s.line + 1, s.column + 1, e.line + 1, e.column + 1)
