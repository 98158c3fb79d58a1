"""The one intermediate representation that TDL programs and JSON/YAML plans lower into.

Every rule is written once against these types. A plan is an ordered tuple of
steps in execution order; each step keeps its source span, its GOAL, its bound
parameters (literal syntax trees and resolved Python values) and its resolved
motion targets. Everything here is immutable so that a plan can be checked from
several threads at once.
"""

from __future__ import annotations

import dataclasses
import math
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Union

from plan_verifier.findings import Span
from plan_verifier.problems import Problem

# --------------------------------------------------------------------------- values
# Syntax-level values as written in a TDL argument list.


@dataclass(frozen=True, slots=True)
class Number:
    value: float
    text: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Text:
    value: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Constant:
    """`None`, `True` or `False`."""

    value: bool | None
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Ref:
    """An identifier: a position/variable name or a symbolic constant."""

    name: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Call:
    """A nested call such as an inline `PosX(...)` or `Trans(...)`."""

    name: str
    args: tuple["Arg", ...]
    span: Span | None = None
    name_span: Span | None = None


@dataclass(frozen=True, slots=True)
class ListValue:
    items: tuple["Value", ...]
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class TupleValue:
    """`(a, b, c)`: only valid as an error (a pose without its constructor)."""

    items: tuple["Value", ...]
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class BinOp:
    op: str
    left: "Value"
    right: "Value"
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Elided:
    """`...` in an argument list (placeholder text an LLM copied from an example)."""

    span: Span | None = None


Value = Union[Number, Text, Constant, Ref, Call, ListValue, TupleValue, BinOp, Elided]


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument as written: `name=value` or positional."""

    name: str | None
    value: Value
    span: Span | None = None


# --------------------------------------------------------------------------- poses

JOINT = "joint"
CARTESIAN = "cartesian"


@dataclass(frozen=True, slots=True)
class Pose:
    """A resolved motion target.

    `values` are mm/deg. For joint poses they are the six joint angles; for
    Cartesian poses (x, y, z, rx, ry, rz). `alternatives` holds other readings
    of an ambiguous expression (`p * Trans(...)`, whose frame TDL leaves open):
    safety rules check every reading.
    """

    kind: str
    values: tuple[float, ...]
    constructor: str
    name: str | None = None
    span: Span | None = None
    origin: str = "inline"  # inline | define | assign | graph
    alternatives: tuple[tuple[float, ...], ...] = ()
    note: str | None = None

    @property
    def readings(self) -> tuple[tuple[float, ...], ...]:
        return (self.values,) + self.alternatives

    @property
    def label(self) -> str:
        """How a message names this pose: its symbol, or the literal."""
        if self.name:
            return self.name
        return f"{self.constructor}({', '.join(_fmt(v) for v in self.values)})"

    def xyz(self, reading: tuple[float, ...] | None = None) -> tuple[float, float, float]:
        v = reading if reading is not None else self.values
        return (v[0], v[1], v[2])


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else f"{v:g}"


def fmt_number(v: float) -> str:
    """Numbers in messages the way a user wrote them: 1300, not 1300.0."""
    return _fmt(v)


# --------------------------------------------------------------------------- binding


@dataclass(frozen=True, slots=True)
class Binding:
    """How a call's written arguments mapped onto the catalogue signature."""

    known: bool
    missing: tuple[str, ...] = ()
    unknown_names: tuple[Arg, ...] = ()
    extra_positional: tuple[Arg, ...] = ()
    duplicates: tuple[Arg, ...] = ()
    elided: Span | None = None
    type_errors: tuple[tuple[str, Arg, str], ...] = ()  # (param, arg, expected type)


#: Why a value could not be evaluated (`Cause.kind`). Each kind has one rule that reports it:
#: a name bound nowhere (R-CON-001); a value that exists only when the program runs — a function
#: that reads the robot or its I/O, a variable assigned from one, a loop variable (R-CON-008); a
#: number that is not finite — `nan`, `inf`, a literal beyond float range, a division by zero
#: (R-SYN-011); an expression the verifier does not evaluate (R-CON-008); what a syntax rule already
#: reports — wrong arity, a non-number, an unknown function (R-SYN-*); a cell position without
#: coordinates (taught in the cell: the graph rules vouch for the move, the execution level says it
#: could not simulate it).
UNDEFINED = "undefined"
RUNTIME = "runtime"
NON_FINITE = "non_finite"
UNSUPPORTED = "unsupported"
MALFORMED = "malformed"
NO_COORDINATES = "no_coordinates"
CAUSES = (UNDEFINED, RUNTIME, NON_FINITE, UNSUPPORTED, MALFORMED, NO_COORDINATES)


@dataclass(frozen=True, slots=True)
class Cause:
    """One reason a value could not be evaluated: its kind, the sub-expression responsible, where that is."""

    kind: str
    text: str
    span: Span | None = None


class Unresolved:
    """A value static analysis cannot evaluate: the expression as written, and why (`causes`).

    A value built from others that could not be evaluated carries their causes: a
    pose whose x is `foo`, a name DEFINE'd as that pose, a target that names it.
    """

    __slots__ = ("text", "causes")

    def __init__(self, text: str, causes: tuple[Cause, ...] = ()) -> None:
        self.text = text
        self.causes = causes

    def __repr__(self) -> str:
        return f"Unresolved({self.text!r}, {[c.kind for c in self.causes]})"


def unresolved_in(value: Any) -> Unresolved | None:
    """The first value of `value` (itself, or an item of a list) that could not be evaluated, else None."""
    if type(value) is Unresolved:
        return value
    if type(value) is list:
        for item in value:
            if type(item) is Unresolved:
                return item
    return None


# --------------------------------------------------------------------------- plan parts


@dataclass(frozen=True, slots=True)
class Step:
    """One executed command (TDL) or plan step (JSON), in execution order."""

    index: int
    action: str  # "command" (TDL) | "move" | "routine" (JSON)
    command: str  # TDL command name; "move"/"routine" for JSON steps
    span: Span | None = None
    goal: str | None = None
    spawn: str | None = None  # WAIT | NOWAIT | None (plain call)
    raw_args: tuple[Arg, ...] = ()
    binding: Binding | None = None
    args: Mapping[str, Value] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    poses: tuple[tuple[str, Pose], ...] = ()
    target: Pose | None = None
    target_name: str | None = None
    # JSON plan steps
    name: str | None = None
    routine: str | None = None
    position: str | None = None
    tool: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # The dicts given are taken over (every caller builds fresh ones) and made read-only.
        proxy = types.MappingProxyType
        if type(self.args) is not proxy:
            object.__setattr__(self, "args", proxy(self.args if type(self.args) is dict else dict(self.args)))
        if type(self.params) is not proxy:
            object.__setattr__(self, "params", proxy(self.params if type(self.params) is dict else dict(self.params)))
        if type(self.fields) is not proxy:
            object.__setattr__(self, "fields", proxy(self.fields if type(self.fields) is dict else dict(self.fields)))

    def number(self, param: str) -> float | None:
        """The parameter as a finite number, or None when absent or not numeric."""
        value = self.params.get(param)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return float(value) if math.isfinite(value) else None

    def arg_span(self, param: str) -> Span | None:
        value = self.args.get(param)
        span = getattr(value, "span", None)
        return span or self.span

    @property
    def is_motion(self) -> bool:
        return self.target is not None or bool(self.poses) or self.action == "move"


@dataclass(frozen=True, slots=True)
class Definition:
    """A name bound by `DEFINE` (program-wide) or `Assign` (from its step on)."""

    name: str
    kind: str  # define | assign
    value: Value
    span: Span | None
    name_span: Span | None
    step: int | None = None  # Assign: the step index that performs it
    pose: Pose | None = None


@dataclass(frozen=True, slots=True)
class Reference:
    """A use of a name where a defined position or variable is required."""

    name: str
    span: Span | None
    step: int | None
    param: str
    definition: Definition | None  # the binding in effect, None if undefined at that point
    defined_later: Definition | None = None  # an Assign that comes after the use
    graph_position: bool = False


@dataclass(frozen=True, slots=True)
class Goal:
    name: str
    span: Span | None
    name_span: Span | None
    order: int | None  # position in execution order among top-level/expanded goals
    first_step: int | None
    last_step: int | None
    called_by: str | None = None


@dataclass(frozen=True, slots=True)
class PoseLiteral:
    """A pose constructor exactly as written (for the arity rules R-SYN-003/004)."""

    constructor: str
    args: tuple[Arg, ...]
    span: Span | None
    context: str  # "DEFINE Home", "MoveLinear.target_pose", ...


@dataclass(frozen=True, slots=True)
class PoseSite:
    """A place where the plan writes down a motion target (checked once, not per use).

    DEFINE'd and Assign'ed poses are sites at their definition, inline targets at
    the literal, graph positions at their first use.
    """

    pose: Pose
    span: Span | None
    step: int | None
    context: str


@dataclass(frozen=True, slots=True)
class HeaderEntry:
    key: str
    value: Any
    span: Span | None


@dataclass(frozen=True, slots=True)
class CommandDef:
    name: str
    params: tuple[str, ...]
    span: Span | None


@dataclass(frozen=True, slots=True)
class ApprovedMotion:
    """What an approved-actions file says the verifier verified for one motion step (its `verified` block).

    `joints_deg`/`duration_s` are None, and `problem` says why, when the block cannot be read."""

    step: int
    span: Span | None
    joints_deg: tuple[float, ...] | None
    duration_s: float | None = None
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """A parsed plan, whatever its source format."""

    format: str  # tdl | json: how the steps are written (TDL commands or seed 003 move/routine steps)
    source: str
    steps: tuple[Step, ...] = ()
    definitions: tuple[Definition, ...] = ()
    references: tuple[Reference, ...] = ()
    goals: tuple[Goal, ...] = ()
    header: tuple[HeaderEntry, ...] = ()
    pose_literals: tuple[PoseLiteral, ...] = ()
    pose_sites: tuple[PoseSite, ...] = ()
    command_defs: tuple[CommandDef, ...] = ()
    #: What the readers found wrong with the text, for the syntax rules that own each kind.
    problems: tuple[Problem, ...] = ()
    name: str | None = None
    description: str | None = None
    #: False when the text could not be read into steps at all (fatal syntax errors).
    parsed: bool = True
    #: What the plan was read from when that differs from `format`: "actions" for an approved-actions
    #: file, whose steps are TDL commands (format "tdl") or seed 003 steps (format "json").
    source_format: str | None = None
    #: An approved-actions file's `verified` blocks, and the joints (deg) its verification started from.
    approved_motions: tuple[ApprovedMotion, ...] = ()
    approved_start_deg: tuple[float, ...] | None = None

    def header_value(self, key: str) -> HeaderEntry | None:
        for entry in self.header:
            if entry.key.upper() == key.upper():
                return entry
        return None

    def step(self, index: int) -> Step:
        return self.steps[index - 1]


# --------------------------------------------------------------------------- construction for readers


def maker(cls: type) -> Callable[..., Any]:
    """A function that makes `cls(*all_fields)` (every field, in order, no defaults) for a reader's hot path.

    A frozen dataclass's `__init__` sets each field through
    `object.__setattr__`, which costs more than the rest of building a value;
    the TDL reader makes a few thousand values per 100 commands. The function
    returned stores the fields straight into the slots and then runs
    `__post_init__`, so the object is exactly the one `cls(...)` makes
    (`test_ir.py` compares them for every class the readers build).
    """
    names = [f.name for f in dataclasses.fields(cls)]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    for name in names:
        namespace[f"set_{name}"] = getattr(cls, name).__set__
    body = "".join(f"    set_{name}(obj, {name})\n" for name in names)
    post = "    obj.__post_init__()\n" if hasattr(cls, "__post_init__") else ""
    exec(f"def make({', '.join(names)}):\n    obj = new(cls)\n{body}{post}    return obj\n", namespace)  # noqa: S102 - fixed code
    make = namespace["make"]
    make.__doc__ = f"{cls.__name__}(...) without the frozen-dataclass __init__."
    return make

