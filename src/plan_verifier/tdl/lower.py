"""Lowering: the parsed items of a TDL program become the shared IR.

This is where a program's meaning is fixed once for every rule: GOALs are put
in execution order (a GOAL called from another GOAL runs at the call site),
arguments are bound to catalogue signatures, names are resolved against DEFINE
and `Assign` in execution order, and poses are evaluated to numbers. The
parser has already built the argument values; this pass only walks statements.
Problems that only show up here (a DEFINE without a Pos type, an unknown
nested call) become typed problems that the syntax rules word.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, NamedTuple, Sequence

from plan_verifier import catalogue as cat
from plan_verifier.findings import Span
from plan_verifier.ir import (
    CARTESIAN,
    JOINT,
    MALFORMED,
    NO_COORDINATES,
    NON_FINITE,
    RUNTIME,
    UNDEFINED,
    UNSUPPORTED,
    Arg,
    BinOp,
    Binding,
    Call,
    Cause,
    CommandDef,
    Constant,
    Definition,
    Elided,
    Goal,
    HeaderEntry,
    ListValue,
    Number,
    Plan,
    Pose,
    PoseLiteral,
    PoseSite,
    Ref,
    Reference,
    Step,
    Text,
    TupleValue,
    Unresolved,
    Value,
    maker,
)
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.tdl.parser import CommandDecl, DefineDecl, GoalDecl, HeaderDecl, ParseResult, Statement, parse, unquote
from plan_verifier.tdl.scanner import Tokens

POSE_CONSTRUCTORS = {"PosJ": JOINT, "PosX": CARTESIAN, "PosY": CARTESIAN}
#: Names that spell a number that is not finite (`nan`, `inf`): a non-finite number, never a name —
#: unless the program binds them.
_NON_FINITE_NAMES = frozenset({"nan", "inf", "infinity"})
_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_HEADER_LINE = re.compile(r"^\s*([A-Za-z_]\w*)\s*:\s*(.*?)\s*$")


def lower_tdl(
    text: str,
    *,
    positions: Mapping[str, Sequence[float] | None] | None = None,
    convention: str = "rpy",
) -> Plan:
    """Parse and lower a TDL program. `positions` are graph position names (with
    coordinates where the graph has them) that count as defined names."""
    result = parse(text)
    if result.items is None:
        return Plan(format="tdl", source=text, problems=tuple(result.problems), parsed=False)
    return _Lowerer(text, result, positions or {}, convention).run()


@dataclass
class _GoalDecl:
    name: str
    decl: GoalDecl
    statements: tuple[Statement, ...]
    order: int | None = None
    first_step: int | None = None
    last_step: int | None = None
    called_by: str | None = None


@dataclass
class _Env:
    """Names in effect at the current step."""

    bindings: dict[str, Definition] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)


class _Lowerer:
    def __init__(self, text: str, result: ParseResult, positions: Mapping[str, Sequence[float] | None], convention: str):
        self.text = text
        self.items = result.items
        self.tokens: Tokens = result.tokens
        self.problems: list[Problem] = list(result.problems)
        self.positions = positions
        self.convention = convention
        self.steps: list[Step] = []
        self.definitions: list[Definition] = []
        self.references: list[Reference] = []
        self.pose_literals: list[PoseLiteral] = []
        self.pose_sites: list[PoseSite] = []
        self.header: list[HeaderEntry] = []
        self.command_defs: list[CommandDef] = []
        self.env = _Env()
        self._defines: dict[str, DefineDecl] = {}  # DEFINEs not read yet (a DEFINE may name a later one)
        self._reading: set[str] = set()  # DEFINEs being read (a DEFINE that names itself)
        self._read: set[int] = set()  # DEFINEs read (by id)
        self._loop_variables: set[str] = set()
        self._non_finite_seen: set[Span] = set()
        self._sited: set[tuple] = set()
        self._graph_sited: set[str] = set()
        self._literal_seen: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ utilities
    def source_of(self, value: Value) -> str:
        span = getattr(value, "span", None)
        return self.tokens.slice(span) if span is not None else "?"

    def problem(self, kind: K, span: Span | None, step: int | None = None, **values) -> None:
        self.problems.append(Problem(kind, span, step, values))

    # ------------------------------------------------------------------ run
    def run(self) -> Plan:
        goals: list[_GoalDecl] = []
        defines: list[DefineDecl] = []
        for item in self.items:
            kind = type(item)
            if kind is HeaderDecl:
                self.read_header(item.token)
            elif kind is DefineDecl:
                defines.append(item)
            elif kind is GoalDecl:
                goals.append(_GoalDecl(item.name, item, item.statements))
            else:
                self.read_command_def(item)
        for define in reversed(defines):
            self._defines[define.name] = define  # the first DEFINE of a name, for one that names it earlier
        for define in defines:
            if id(define) not in self._read:
                self.read_define(define)
        bindings = self.env.bindings
        for definition in self.definitions:  # DEFINEs are program-wide: their names resolve against every DEFINE
            self.reference(definition.value, None, f"DEFINE {definition.name}", bindings)
        self.execute(goals)
        self.link_later_assigns()
        plan_goals = tuple(
            Goal(g.name, g.decl.span, g.decl.name_span, g.order, g.first_step, g.last_step, g.called_by)
            for g in goals
        )
        name_entry = next((h for h in self.header if h.key.upper() in ("TASK_NAME", "NAME")), None)
        desc_entry = next((h for h in self.header if h.key.upper() == "DESCRIPTION"), None)
        return Plan(
            format="tdl",
            source=self.text,
            steps=tuple(self.steps),
            definitions=tuple(self.definitions),
            references=tuple(self.references),
            goals=plan_goals,
            header=tuple(self.header),
            pose_literals=tuple(self.pose_literals),
            pose_sites=tuple(self.pose_sites),
            command_defs=tuple(self.command_defs),
            problems=tuple(self.problems),
            name=str(name_entry.value) if name_entry else None,
            description=str(desc_entry.value) if desc_entry else None,
        )

    # ------------------------------------------------------------------ top level items
    def read_header(self, token: int) -> None:
        body_start = self.tokens.starts[token] + len("HEADER")
        body = self.text[body_start : self.tokens.end_offset(token)]
        if body.endswith("END_HEADER"):
            body = body[: -len("END_HEADER")]
        offset = body_start
        for raw in body.splitlines(keepends=True):
            line = raw.strip()
            if line and not line.startswith(("//", "#")):
                match = _HEADER_LINE.match(raw)
                lead = len(raw) - len(raw.lstrip())
                span = self.tokens.offsets_span(offset + lead, offset + len(raw.rstrip("\r\n")))
                if match:
                    self.header.append(HeaderEntry(match.group(1), _header_value(match.group(2)), span))
                else:
                    self.problem(K.HEADER_LINE_FORMAT, span, line=line)
            offset += len(raw)

    def read_command_def(self, decl: CommandDecl) -> None:
        self.command_defs.append(CommandDef(decl.name, decl.params, decl.span))

    def read_define(self, decl: DefineDecl) -> None:
        value = decl.value
        span = decl.span
        name = decl.name
        if self._defines.get(name) is decl:
            del self._defines[name]
        self._read.add(id(decl))
        self._reading.add(name)
        pose = None
        context = f"DEFINE {name}"
        if isinstance(value, Call) and value.name in POSE_CONSTRUCTORS:
            self.collect_literals(value, context)
            evaluated = self.pose_of(value, name=name, origin="define")
            pose = evaluated if type(evaluated) is Pose else None
        elif isinstance(value, TupleValue):
            self.problem(K.DEFINE_MISSING_POS_TYPE, value.span, line=span.line, name=name, text=self.tokens.slice(value.span))
            evaluated = Unresolved(name, (Cause(MALFORMED, self.tokens.slice(value.span), value.span),))
        else:
            self.collect_literals(value, context)
            self.problem(K.DEFINE_NOT_A_POSE, getattr(value, "span", None) or span, line=span.line, name=name)
            evaluated = Unresolved(name, (Cause(MALFORMED, self.source_of(value), getattr(value, "span", None)),))
        self._reading.discard(name)
        self.non_finite(evaluated, None, context)
        definition = Definition(name, "define", value, span, decl.name_span, None, pose)
        self.definitions.append(definition)
        self.env.bindings[name] = definition
        self.env.values[name] = pose if pose is not None else Unresolved(name, getattr(evaluated, "causes", ()))
        if pose is not None:
            self.site(pose, pose.span or span, None, context)

    # ------------------------------------------------------------------ execution order
    def execute(self, goals: list[_GoalDecl]) -> None:
        by_name: dict[str, _GoalDecl] = {}
        for g in goals:
            by_name.setdefault(g.name, g)
        called: set[str] = set()
        for g in goals:
            for stmt in g.statements:
                callee = stmt.call.name
                if callee in by_name and callee != g.name:
                    called.add(callee)
                    by_name[callee].called_by = by_name[callee].called_by or g.name
        roots = [g for g in goals if g.name not in called] or list(goals)
        seen_roots: set[int] = set()
        self._order = 0
        for g in roots:
            if id(g) in seen_roots:
                continue
            seen_roots.add(id(g))
            self.run_goal(g, by_name, (g.name,))

    def link_later_assigns(self) -> None:
        """Point each use of a name that is not bound yet at the Assign that binds it later.

        Only known once every GOAL has run; it tells "used before it is
        assigned" (move the Assign up) from "never defined" (a typo) for R-CON-001.
        """
        first_assign: dict[str, Definition] = {}
        for d in self.definitions:
            if d.kind == "assign":
                first_assign.setdefault(d.name, d)
        self.references = [
            replace(r, defined_later=first_assign[r.name]) if r.definition is None and r.name in first_assign else r
            for r in self.references
        ]

    def run_goal(self, goal: _GoalDecl, by_name: dict[str, _GoalDecl], stack: tuple[str, ...]) -> None:
        if goal.order is None:
            goal.order = self._order
            self._order += 1
        for stmt in goal.statements:
            name = stmt.call.name
            callee = by_name.get(name)
            if callee is not None and cat.lookup(name) is None:
                if name in stack:
                    self.problem(K.GOAL_RECURSION, stmt.call.span, goal=name, chain=stack + (name,))
                    continue
                self.run_goal(callee, by_name, stack + (name,))
                continue
            index = self.emit_step(stmt, goal.name)
            if goal.first_step is None:
                goal.first_step = index
            goal.last_step = index

    # ------------------------------------------------------------------ steps
    def emit_step(self, stmt: Statement, goal: str) -> int:
        index = len(self.steps) + 1
        call = stmt.call
        command = call.name
        sig = signature(command)
        binding, args = bind(sig, call.args)
        for arg in call.args:
            value = arg.value
            if type(value) in _NESTING:
                self.nested_calls(value, index, command, arg.name)
        params: dict[str, Any] = {}
        poses: list[tuple[str, Pose]] = []
        types = sig.types if sig is not None else None
        for pname, value in args.items():
            ptype = types[pname]
            kind = type(value)
            if kind is Number and value.value - value.value == 0.0:  # the common case: a finite number, its own value
                params[pname] = value.value
                continue
            needed = ptype in _REFERENCING or (command == "Assign" and pname == "source")
            if needed:
                self.reference(value, index, pname)
            resolved = value.name if ptype == "symbol" and kind is Ref else self.evaluate(value)
            params[pname] = resolved
            if needed:
                self.non_finite(resolved, index, f"{command}.{pname}")
            if ptype == "pose":
                if type(resolved) is Pose:
                    poses.append((pname, resolved))
                    self.site_for_use(resolved, value, index, command, pname)
            elif ptype == "pose_list" and type(resolved) is list:
                for item_value, item in zip(getattr(value, "items", ()), resolved):
                    if type(item) is Pose:
                        poses.append((pname, item))
                        self.site_for_use(item, item_value, index, command, pname)
        target = None
        if poses and sig.kind == "motion":
            target = poses[-1][1]
        step = _step(index, "command", command, stmt.span, goal, stmt.mode, call.args, binding, args, params, tuple(poses),
                     target, target.name if target is not None else None, None, None, None, None, {})
        self.steps.append(step)
        if command == "Assign":
            self.assign(step, args)
        elif command == "For" and type(args.get("variable")) is Ref:
            self._loop_variables.add(args["variable"].name)
        return index

    def assign(self, step: Step, args: Mapping[str, Value]) -> None:
        dest = args.get("destination")
        source = args.get("source")
        if not isinstance(dest, Ref) or source is None:
            return
        resolved = step.params.get("source")
        pose = None
        if isinstance(resolved, Pose):
            pose = Pose(resolved.kind, resolved.values, resolved.constructor, dest.name, resolved.span or getattr(source, "span", None),
                        "assign", resolved.alternatives, resolved.note)
        definition = Definition(dest.name, "assign", source, step.span, dest.span, step.index, pose)
        self.definitions.append(definition)
        self.env.bindings[dest.name] = definition
        self.env.values[dest.name] = pose if pose is not None else resolved
        if pose is not None and not (isinstance(source, Ref)):
            self.site(pose, getattr(source, "span", None) or step.span, step.index, f"Assign {dest.name}")

    def reference(self, value: Value, step: int | None, param: str, bindings: Mapping[str, Definition] | None = None) -> None:
        """Record every name in `value` that must be defined: one whose value the verifier needs."""
        if type(value) is Ref:
            refs: list[Ref] = [value]
        elif type(value) in _NESTING:
            refs = []
            _collect(value, Ref, refs)
        else:
            return
        bindings = self.env.bindings if bindings is None else bindings
        positions = self.positions
        for ref in refs:
            definition = bindings.get(ref.name)
            if definition is None and ref.name.lower() in _NON_FINITE_NAMES:
                continue  # a number that is not finite, not a name (R-SYN-011)
            graph = definition is None and ref.name in positions
            self.references.append(_reference(ref.name, ref.span, step, param, definition, None, graph))

    def non_finite(self, value: Any, step: int | None, context: str) -> None:
        """Record each number in a value the verifier needs that is not finite (nan, inf, 1e999, x/0), once."""
        if type(value) is list:
            for item in value:
                self.non_finite(item, step, context)
            return
        if type(value) is not Unresolved:
            return
        seen = self._non_finite_seen
        for cause in value.causes:
            if cause.kind == NON_FINITE and cause.span not in seen:
                seen.add(cause.span)
                self.problem(K.NON_FINITE_NUMBER, cause.span, step, text=cause.text, context=context)

    def nested_calls(self, value: Value, step: int, command: str, arg_name: str | None) -> None:
        """The calls inside an argument: pose literals (for the arity rules), and calls that cannot be there."""
        calls: list[Call] = []
        _collect(value, Call, calls)
        for call in calls:
            name = call.name
            if name in POSE_CONSTRUCTORS or name == "Trans":
                self.collect_literal(call, f"{command}.{arg_name or 'arg'}")
        for call in calls:
            spec = cat.lookup(call.name)
            if spec is None:
                self.problem(K.UNKNOWN_FUNCTION, call.name_span or call.span, step, command=call.name)
            elif not spec.returns:
                self.problem(K.COMMAND_IN_ARGUMENT, call.name_span or call.span, step, command=call.name)
            elif spec.kind != "pose":
                binding, _ = bind(signature(call.name), call.args)
                for missing in binding.missing:
                    self.problem(K.NESTED_CALL_MISSING_PARAMETER, call.span, step, command=call.name, param=missing)

    def collect_literals(self, value: Value, context: str) -> None:
        if type(value) in _NESTING:
            calls: list[Call] = []
            _collect(value, Call, calls)
            for call in calls:
                if call.name in POSE_CONSTRUCTORS or call.name == "Trans":
                    self.collect_literal(call, context)

    def collect_literal(self, call: Call, context: str) -> None:
        key = (call.span.line, call.span.column) if call.span else (id(call), 0)
        if key not in self._literal_seen:
            self._literal_seen.add(key)
            self.pose_literals.append(PoseLiteral(call.name, call.args, call.span, context))

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, value: Value) -> Any:
        """The value of an expression before the program runs: a number, text, constant, Pose, list, or
        `Unresolved` with the causes that keep it from being known."""
        kind = type(value)
        if kind is Number:
            number = value.value
            if number - number == 0.0:
                return number
            return Unresolved(value.text, (Cause(NON_FINITE, value.text, value.span),))
        if kind is Text or kind is Constant:
            return value.value
        if kind is Ref:
            return self._name(value)
        if kind is Call:
            if value.name in POSE_CONSTRUCTORS:
                return self.pose_of(value)
            if value.name == "Trans":
                numbers = self._numbers(value, 6)
                return Pose("offset", numbers, "Trans", None, value.span) if type(numbers) is tuple else numbers
            text = self.source_of(value)
            spec = cat.lookup(value.name)
            if spec is not None and spec.returns:  # reads the robot or its I/O as the program runs
                return Unresolved(text, (Cause(RUNTIME, text, value.span),))
            return Unresolved(text, (Cause(MALFORMED, text, value.span),))  # an unknown function, a command (R-SYN-*)
        if kind is ListValue:
            return [self.evaluate(v) for v in value.items]
        if kind is BinOp:
            return self._binop(value)
        text = self.source_of(value)
        return Unresolved(text, (Cause(MALFORMED, text, getattr(value, "span", None)),))

    def _name(self, ref: Ref) -> Any:
        name = ref.name
        values = self.env.values
        if name not in values and name in self._defines:
            self.read_define(self._defines[name])  # DEFINE is program-wide: one may name a later one
        if name in values:
            found = values[name]
            if type(found) is Pose and found.name != name:
                return _renamed(found, name)
            if type(found) is Unresolved:
                return Unresolved(name, found.causes)
            return found
        if name in self._reading:
            return Unresolved(name, (Cause(UNSUPPORTED, f"'{name}' is defined in terms of itself", ref.span),))
        if name in self.positions:
            coords = self.positions[name]
            if coords is not None and len(coords) >= 3:
                vals = tuple(float(c) for c in coords) + (0.0,) * (6 - len(coords))
                return Pose(CARTESIAN, vals[:6], "PosX", name, ref.span, "graph")
            return Unresolved(name, (Cause(NO_COORDINATES, name, ref.span),))
        if name in self._loop_variables:
            return Unresolved(name, (Cause(RUNTIME, name, ref.span),))
        if name.lower() in _NON_FINITE_NAMES:
            return Unresolved(name, (Cause(NON_FINITE, name, ref.span),))
        return Unresolved(name, (Cause(UNDEFINED, name, ref.span),))

    def _binop(self, value: BinOp) -> Any:
        left, right = self.evaluate(value.left), self.evaluate(value.right)
        if type(left) is Unresolved or type(right) is Unresolved:
            causes = getattr(left, "causes", ()) + getattr(right, "causes", ())
            return Unresolved(self.source_of(value), causes)
        if _is_num(left) and _is_num(right) and value.op in _ARITHMETIC:
            try:
                result = _ARITHMETIC[value.op](left, right)
            except ZeroDivisionError:
                result = math.nan
            if math.isfinite(result):
                return result
            text = self.source_of(value)
            return Unresolved(text, (Cause(NON_FINITE, text, value.span),))
        if value.op == "*" and isinstance(left, Pose) and left.kind == CARTESIAN and isinstance(right, Pose) and right.kind == "offset":
            from plan_verifier.orientation import offset_in_base_frame, offset_in_tool_frame

            base = offset_in_base_frame(left.values, right.values)
            tool = offset_in_tool_frame(left.values, right.values, self.convention)
            if not all(math.isfinite(v) for v in base + tool):
                text = self.source_of(value)
                return Unresolved(text, (Cause(NON_FINITE, text, value.span),))
            alternatives = () if _close(base, tool) else (tool,)
            note = None if not alternatives else (
                f"'{self.tokens.slice(value.span)}': TDL does not fix the frame of Trans; "
                f"base frame gives z={base[2]:g}, tool frame gives z={tool[2]:g}")
            return Pose(CARTESIAN, base, left.constructor, None, value.span, "inline", alternatives, note)
        text = self.source_of(value)
        return Unresolved(text, (Cause(UNSUPPORTED, text, value.span),))

    def _numbers(self, call: Call, count: int) -> tuple[float, ...] | Unresolved:
        """The first `count` arguments of a pose constructor as finite numbers, or why they are not."""
        args = call.args
        text = self.source_of(call)
        if len(args) < count or any(a.name or type(a.value) is Elided for a in args):
            return Unresolved(text, (Cause(MALFORMED, text, call.span),))  # R-SYN-003/004
        out = []
        causes: tuple[Cause, ...] = ()
        for a in args[:count]:
            value = a.value
            v = value.value if type(value) is Number and value.value - value.value == 0.0 else self.evaluate(value)
            if type(v) is float or _is_num(v):
                out.append(float(v))
            elif type(v) is Unresolved:
                causes += v.causes
            else:  # text, a constant, a pose where a number belongs
                causes += (Cause(MALFORMED, f"'{self.source_of(value)}' is not a number", getattr(value, "span", None)),)
        return Unresolved(text, causes) if causes else tuple(out)

    def pose_of(self, call: Call, *, name: str | None = None, origin: str = "inline") -> Pose | Unresolved:
        """Evaluate a PosJ/PosX/PosY constructor (6 numbers, PosX/PosY 7 with `sol`), or say why it cannot be."""
        kind = POSE_CONSTRUCTORS[call.name]
        allowed = (6,) if kind == JOINT else (6, 7)
        if len(call.args) not in allowed:
            text = self.source_of(call)
            return Unresolved(text, (Cause(MALFORMED, text, call.span),))  # R-SYN-003/004
        numbers = self._numbers(call, 6)
        if type(numbers) is not tuple:
            return numbers
        if len(call.args) == 7:  # the solution space: a name or a number, but not one that is not finite
            sol = self.evaluate(call.args[6].value)
            if type(sol) is Unresolved and any(c.kind == NON_FINITE for c in sol.causes):
                return Unresolved(self.source_of(call), tuple(c for c in sol.causes if c.kind == NON_FINITE))
        return Pose(kind, numbers, call.name, name, call.span, origin)

    # ------------------------------------------------------------------ pose sites
    def site(self, pose: Pose, span: Span | None, step: int | None, context: str) -> None:
        key = (span.line, span.column) if span else (pose.name, context)
        if key in self._sited:
            return
        self._sited.add(key)
        self.pose_sites.append(PoseSite(pose, span, step, context))

    def site_for_use(self, pose: Pose, value: Value, step: int, command: str, param: str) -> None:
        if pose.origin in ("define", "assign") and type(value) is Ref:
            return  # checked at its definition
        if pose.origin == "graph":
            if pose.name in self._graph_sited:
                return
            self._graph_sited.add(pose.name)
            self.pose_sites.append(PoseSite(pose, getattr(value, "span", None), step, f"graph position {pose.name}"))
            return
        self.site(pose, pose.span or getattr(value, "span", None), step, f"{command}.{param}")


# ---------------------------------------------------------------------- binding


class _Signature(NamedTuple):
    """A catalogue command as binding needs it, computed once per command name."""

    spec: cat.CommandSpec
    names: tuple[str, ...]  # parameters in positional order
    types: dict[str, str]
    required: tuple[str, ...]
    kind: str


_SIGNATURES: dict[str, _Signature | None] = {}
_UNKNOWN = Binding(known=False)
_BOUND = Binding(True)


def signature(command: str) -> _Signature | None:
    """The catalogue signature of a command (None: not a catalogue command)."""
    try:
        return _SIGNATURES[command]
    except KeyError:
        pass
    spec = cat.lookup(command)
    found = None
    if spec is not None:
        found = _Signature(spec, tuple(p.name for p in spec.params), {p.name: p.type for p in spec.params},
                           tuple(p.name for p in spec.params if p.required), spec.kind)
        _SIGNATURES[command] = found  # unknown names are not kept: they come from untrusted text
    return found


def bind(sig: _Signature | None, raw_args: Sequence[Arg]) -> tuple[Binding, dict[str, Value]]:
    """Map written arguments onto a catalogue signature (positional by order, named by name)."""
    if sig is None:
        return _UNKNOWN, {}
    args: dict[str, Value] = {}
    unknown: list[Arg] = []
    extra: list[Arg] = []
    duplicates: list[Arg] = []
    elided = None
    order, types = sig.names, sig.types
    count = len(order)
    slot = 0
    for arg in raw_args:
        value = arg.value
        name = arg.name
        if name is None:
            if type(value) is Elided:
                elided = elided or arg.span
                continue
            while slot < count and order[slot] in args:
                slot += 1
            if slot >= count:
                extra.append(arg)
                continue
            args[order[slot]] = value
            slot += 1
        elif name not in types:
            unknown.append(arg)
        elif name in args:
            duplicates.append(arg)
        else:
            args[name] = value
    missing = () if len(args) == count else tuple(p for p in sig.required if p not in args)
    type_errors = []
    for pname, value in args.items():
        expected = types[pname]
        if expected in _UNTYPED or (expected == "number" and type(value) is Number):
            continue
        problem = type_problem(expected, value)
        if problem:
            type_errors.append((pname, next(a for a in raw_args if a.value is value), problem))
    if not (missing or unknown or extra or duplicates or elided or type_errors):
        return _BOUND, args
    return Binding(True, missing, tuple(unknown), tuple(extra), tuple(duplicates), elided, tuple(type_errors)), args


def type_problem(expected: str, value: Value) -> str | None:
    """Why `value` cannot be an argument of type `expected`, or None."""
    kind = type(value)
    if expected == "any" or expected == "condition":
        return None
    if expected == "number":
        if kind is Number or kind is Ref or kind is BinOp:
            return None
        if kind is Call and (spec := cat.lookup(value.name)) is not None and spec.returns and spec.kind != "pose":
            return None
        return "a number"
    if expected == "pose":
        if kind is Ref or kind is BinOp:
            return None
        if kind is Call and value.name in POSE_CONSTRUCTORS:
            return None
        return "a pose (PosJ(...), PosX(...) or a defined position name)"
    if expected == "pose_list":
        if kind is Ref:
            return None
        if kind is ListValue and all(type_problem("pose", v) is None for v in value.items):
            return None
        return "a list of poses"
    if expected == "symbol":
        return None if kind is Ref or kind is Text else "a name"
    return None


# ---------------------------------------------------------------------- helpers


#: Parameter types any value satisfies.
_UNTYPED = frozenset({"any", "condition"})
#: Values that may hold other values (and so calls and names).
_NESTING = frozenset({Call, ListValue, TupleValue, BinOp})
#: Parameter types the verifier evaluates: their names must be defined (R-CON-001 reads the references)
#: and their values known before the program runs (R-CON-008).
_REFERENCING = frozenset({"pose", "pose_list", "number", "value"})


def _collect(value: Value, wanted: type, out: list) -> None:
    """Append every value of type `wanted` inside `value` (itself included), in reading order."""
    kind = type(value)
    if kind is wanted:
        out.append(value)
    if kind is Call:
        for arg in value.args:
            _collect(arg.value, wanted, out)
    elif kind is ListValue or kind is TupleValue:
        for item in value.items:
            _collect(item, wanted, out)
    elif kind is BinOp:
        _collect(value.left, wanted, out)
        _collect(value.right, wanted, out)


_step = maker(Step)
_reference = maker(Reference)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _close(a: Sequence[float], b: Sequence[float]) -> bool:
    return all(abs(x - y) < 1e-6 for x, y in zip(a[:3], b[:3]))


def _renamed(pose: Pose, name: str) -> Pose:
    return Pose(pose.kind, pose.values, pose.constructor, name, pose.span, pose.origin, pose.alternatives, pose.note)


def _header_value(raw: str) -> Any:
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return unquote(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return float(text)
    except ValueError:
        return text
