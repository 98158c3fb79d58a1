"""JSON/YAML step plans (contract §5, seed 003) validated with pydantic v2.

A plan is a list of steps or `{"name", "description", "steps": [...]}`. Schema
errors become R-SYN-008 diagnostics naming the step and the field, located at
the line of the offending value where the text allows it. Unknown fields are
kept and passed through to the approved YAML.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any, Literal, Mapping, Sequence

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from plan_verifier import yaml_text
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
            data = yaml_text.load(text)
        except yaml.YAMLError:
            return False
        return isinstance(data, dict) and "steps" in data
    return False


def load_plan(text: str, positions: Mapping[str, Sequence[float] | None] | None = None) -> Plan:
    """Read a JSON or YAML plan into the IR; never raises on bad input."""
    positions = positions or {}
    locations = _locations(text, fields=False)
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
        return Plan(format="json", source=text, parsed=False, diagnostics=tuple(_schema_diagnostics(exc, _locations(text))))
    steps: list[Step] = []
    sites: list[PoseSite] = []
    poses: dict[str, Pose] = {}  # one Pose per graph position, located at its first use
    for index, sm in enumerate(model.steps, start=1):
        fields = dict(data["steps"][index - 1])  # as written: key order and unknown fields kept
        span = locations.get((index,))
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
        return yaml_text.load(text), None
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


def _locations(text: str, *, fields: bool = True) -> dict[tuple, Span]:
    """Line/column of each step and (with `fields`) each step field, best effort."""
    if text.lstrip("\ufeff \t\r\n")[:1] in ("[", "{"):
        return _json_locations(text, fields)
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


_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_VALUE = json.JSONDecoder()
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")  # what YAML counts as a line break, so spans match the YAML path


def _json_locations(text: str, fields: bool = True) -> dict[tuple, Span]:
    """The YAML path's spans for a JSON document, found by stepping over values with the C JSON
    decoder (composing 100 steps as YAML takes ~40 ms); the field spans, needed only to locate
    schema errors, on request."""
    text = text[1:] if text.startswith("\ufeff") else text  # YAML does not count a byte order mark as a column
    breaks = [m.end() for m in _LINE_BREAK.finditer(text)]

    def point(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(breaks, offset)
        return line + 1, offset - (breaks[line - 1] if line else 0) + 1

    def span(begin: int, end: int) -> Span:
        return Span(*point(begin), *point(end))

    def items(i: int, close: str):
        """(key or None, start, end) of each member of the object or element of the array whose bracket is at i."""
        i = _JSON_SPACE.match(text, i + 1).end()
        while text[i] != close:
            name = None
            if close == "}":
                name, i = _JSON_VALUE.raw_decode(text, i)
                i = _JSON_SPACE.match(text, _JSON_SPACE.match(text, i).end() + 1).end()  # past the ':'
            _, end = _JSON_VALUE.raw_decode(text, i)
            yield name, i, end
            i = _JSON_SPACE.match(text, end).end()
            if text[i] == ",":
                i = _JSON_SPACE.match(text, i + 1).end()

    out: dict[tuple, Span] = {}
    try:
        root = _JSON_SPACE.match(text).end()
        steps = root if text[root] == "[" else None
        if text[root] == "{":
            for name, begin, _ in items(root, "}"):
                steps = begin if name == "steps" else steps  # the last one, as json.loads and YAML take it
        if steps is None or text[steps] != "[":
            return out
        for index, (_, begin, end) in enumerate(items(steps, "]"), start=1):
            out[(index,)] = span(begin, end)
            if fields and text[begin] == "{":
                for name, vbegin, vend in items(begin, "}"):
                    out[(index, name)] = span(vbegin, vend)
    except (IndexError, ValueError, StopIteration):
        return {}
    return out


def _span(node: yaml.Node) -> Span:
    s, e = node.start_mark, node.end_mark
    return Span(s.line + 1, s.column + 1, e.line + 1, e.column + 1)
