"""A plan's input, read once: bytes or text in, one immutable `PlanText` out.

Plans come from language models and over the network: they may be huge,
binary, or not UTF-8. None of that may crash or stall the verifier, and none
of it may be silently "fixed": each becomes a problem with a position that a
syntax rule reports.

`read_plan_text` decodes the input, applies the limits, detects the format
and, for JSON and YAML, decodes the document — each exactly once. The command
line, the pipeline, `repair`, replay and the serving path all start from it,
so a plan is never decoded or detected twice.

Limits: a plan may be at most 1 MiB (`MAX_PLAN_BYTES`) and at most 100,000
commands/steps (`MAX_COMMANDS`); larger inputs are rejected before any
parsing.

Formats (the report's `plan_format`): `tdl`, `json` (a JSON/YAML step plan,
contract §5) and `actions` (an approved-actions file, contract §6: a
`RobotSequence` root, ours or seed 003's). `auto` picks JSON/YAML documents by
content (a JSON array/object, or a YAML mapping with `steps` or
`RobotSequence`), TDL otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from plan_verifier.findings import Span
from plan_verifier.problems import Problem, ProblemKind as K

if TYPE_CHECKING:
    from plan_verifier.plans.document import Document

MAX_PLAN_BYTES = 1 << 20
MAX_COMMANDS = 100_000
FORMATS = ("auto", "tdl", "json")
_YAML_PLAN = re.compile(r"^(?:steps|RobotSequence)\s*:", re.MULTILINE)


@dataclass(frozen=True, eq=False)
class PlanText:
    """A plan input decoded once: its text (None when there is none: see `problems`), what it is, and its document."""

    text: str | None
    format: str  # tdl | json | actions
    document: "Document | None" = None  # JSON/YAML (json, actions): decoded once, with positions
    problems: tuple[Problem, ...] = ()
    requested: str = "auto"

    @property
    def steps_format(self) -> str:
        """How the steps are written: "tdl" (TDL commands, also an actions file exported from a TDL program)
        or "json" (seed 003 move/routine steps, which need a cell graph)."""
        if self.format != "actions" or self.document is None:
            return self.format
        from plan_verifier.plans.actions_plan import steps_format

        return steps_format(self.document.data) if self.document.problem is None else "json"


def read_plan_text(data: "bytes | str | PlanText", requested: str = "auto") -> PlanText:
    """`data` as a `PlanText` (a `PlanText` is returned as it is). Never raises for bad input."""
    if requested not in FORMATS:
        requested = "auto"  # as the verifier always took them: anything but tdl or json is detected
    if isinstance(data, PlanText):
        if requested not in ("auto", data.requested):
            raise ValueError(f"the plan was read as {data.requested!r}, not {requested!r}")
        return data
    text, problems = decode(data)
    if text is None:
        return PlanText(None, "tdl", problems=tuple(problems), requested=requested)
    head = text.lstrip("\ufeff \t\r\n")[:1]
    document = None
    if requested == "json" or (requested == "auto" and head in ("[", "{")):
        family = "json"
    elif requested == "auto" and _YAML_PLAN.search(text):
        from plan_verifier.plans.document import decode_document

        document = decode_document(text)
        data_ = document.data
        plan_like = document.problem is None and isinstance(data_, dict) and ("steps" in data_ or "RobotSequence" in data_)
        family = "json" if plan_like else "tdl"
        if not plan_like:
            document = None
    else:
        family = "tdl"
    limit = too_many_commands(text, family)
    if limit is not None:
        return PlanText(None, family, problems=(limit,), requested=requested)
    if family == "tdl":
        return PlanText(text, "tdl", requested=requested)
    if document is None:
        from plan_verifier.plans.document import decode_document

        document = decode_document(text)
    from plan_verifier.plans.actions_plan import is_actions

    data_ = document.data
    kind = "actions" if document.problem is None and is_actions(data_) and not (isinstance(data_, dict) and "steps" in data_) else "json"
    return PlanText(text, kind, document, requested=requested)


def decode(data: bytes | str) -> tuple[str | None, list[Problem]]:
    """Text of a plan, or None with the problems that explain why there is none."""
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > MAX_PLAN_BYTES:
        return None, [Problem(K.PLAN_TOO_LARGE, Span.point(1, 1), values={"bytes": size, "limit": MAX_PLAN_BYTES})]
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            return None, [Problem(K.NOT_UTF8, Span.point(line, column), values={"byte": data[exc.start], "offset": exc.start})]
    else:
        text = data[1:] if data.startswith("\ufeff") else data
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return None, [Problem(K.UNPAIRED_SURROGATE, _point(text, exc.start), values={"offset": exc.start})]
    nul = text.find("\x00")
    if nul >= 0:
        return None, [Problem(K.NUL_CHARACTER, _point(text, nul), values={"offset": nul})]
    return text, []


def too_many_commands(text: str, family: str) -> Problem | None:
    """A cheap upper bound on the command count, checked before parsing."""
    count = text.count(";") if family == "tdl" else text.count("action")
    if count > MAX_COMMANDS:
        return Problem(K.TOO_MANY_COMMANDS, Span.point(1, 1), values={"commands": count, "limit": MAX_COMMANDS})
    return None


def _point(text: str, offset: int) -> Span:
    line = text.count("\n", 0, offset) + 1
    return Span.point(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)
