"""Lowering: a TDL syntax tree becomes the shared IR.

This is where a program's meaning is fixed once for every rule: GOALs are put
in execution order (a GOAL called from another GOAL runs at the call site),
arguments are bound to catalogue signatures, names are resolved against DEFINE
and `Assign` in execution order, and poses are evaluated to numbers. Problems
that only show up here (a DEFINE without a Pos type, an unknown nested call)
become diagnostics tagged with the rule that owns them.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Mapping, Sequence

from plan_verifier import catalogue as cat
from plan_verifier.findings import Span
from plan_verifier.ir import (
    CARTESIAN,
    JOINT,
    Arg,
    BinOp,
    Binding,
    Call,
    CommandDef,
    Constant,
    Definition,
    Diagnostic,
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
)
from plan_verifier.robots.kinematics import offset_in_base_frame, offset_in_tool_frame
from plan_verifier.tdl.parser import Node, ParseResult, SourceMap, Token, parse

POSE_CONSTRUCTORS = {"PosJ": JOINT, "PosX": CARTESIAN, "PosY": CARTESIAN}
_PRECEDENCE = {"*": 3, "/": 3, "+": 2, "-": 2, "==": 1, "!=": 1, "<": 1, ">": 1, "<=": 1, ">=": 1}
_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_HEADER_LINE = re.compile(r"^\s*([A-Za-z_]\w*)\s*:\s*(.*?)\s*$")


def lower_tdl(
    text: str,
    *,
    positions: Mapping[str, Sequence[float] | None] | None = None,
    convention: str = "rpy",
    parsed: ParseResult | None = None,
) -> Plan:
    """Parse and lower a TDL program. `positions` are graph position names (with
    coordinates where the graph has them) that count as defined names."""
    result = parsed or parse(text)
    if result.tree is None:
        return Plan(format="tdl", source=text, diagnostics=tuple(result.diagnostics), parsed=False)
    return _Lowerer(text, result, positions or {}, convention).run()


@dataclass
class _GoalDecl:
    name: str
    node: Node
    statements: list[Node]
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
        self.tree = result.tree
        self.smap: SourceMap = result.source_map or SourceMap(text)
        self.diagnostics: list[Diagnostic] = list(result.diagnostics)
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
        self._sited: set[tuple] = set()
        self._graph_sited: set[str] = set()
        self._literal_seen: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ utilities
    def span(self, item: Node | Token | None) -> Span | None:
        if item is None:
            return None
        return self.smap.span(item.start, item.end)

    def source_of(self, item) -> str:
        span_src = getattr(item, "span", None)
        if isinstance(item, (Node, Token)):
            return self.text[item.start : item.end]
        if span_src is not None:
            return _slice(self.text, self.smap, span_src)
        return "?"

    def diag(self, rule_id: str, message: str, span: Span | None, step: int | None = None, suggestion: str | None = None, **evidence) -> None:
        self.diagnostics.append(Diagnostic(rule_id, message, span, step, evidence, suggestion))

    # ------------------------------------------------------------------ values
    def value(self, item) -> Value:
        if isinstance(item, Token):
            span = self.span(item)
            kind = item.type
            if kind == "NUMBER":
                return Number(float(item.value), item.value, span)
            if kind == "STRING":
                return Text(_unquote(item.value), span)
            if kind == "NONE":
                return Constant(None, span)
            if kind == "TRUE":
                return Constant(True, span)
            if kind == "FALSE":
                return Constant(False, span)
            if kind == "ELLIPSIS":
                return Elided(span)
            return Ref(item.value, span)
        name = item.name
        span = self.span(item)
        if name == "call":
            return self.call(item)
        if name == "list":
            return ListValue(tuple(self.value(c) for c in _operands(item.children)), span)
        if name == "tuple":
            return TupleValue(tuple(self.value(c) for c in _operands(item.children)), span)
        if name == "group":
            return self.value(item.children[1])
        if name == "signed":
            sign, operand = item.children
            inner = self.value(operand)
            if sign.value == "+":
                return inner
            if isinstance(inner, Number):
                return Number(-inner.value, "-" + inner.text, span)
            return BinOp("-", Number(0.0, "0"), inner, span)
        if name == "binop":
            return self._fold(item.children, span)
        raise ValueError(f"unexpected syntax node {name}")

    def _fold(self, children: list, span: Span | None) -> Value:
        operands = [self.value(c) for c in children[0::2]]
        ops = [t.value for t in children[1::2]]

        def climb(pos: int, min_prec: int) -> tuple[Value, int]:
            left = operands[pos]
            while pos < len(ops) and _PRECEDENCE[ops[pos]] >= min_prec:
                op = ops[pos]
                right, nxt = climb(pos + 1, _PRECEDENCE[op] + 1)
                left = BinOp(op, left, right, _join(getattr(left, "span", None), getattr(right, "span", None)))
                pos = nxt
            return left, pos

        result, _ = climb(0, 0)
        return result

    def call(self, node: Node) -> Call:
        name_tok = node.children[0]
        args: list[Arg] = []
        for child in node.children:
            if isinstance(child, Node) and child.name == "arg_list":
                args = [self.arg(a) for a in child.children if isinstance(a, Node)]
        span = self.span(node)
        # The name starts the call and never spans lines: derive its span instead of mapping it.
        name_span = Span(span.line, span.column, span.line, span.column + len(name_tok.value))
        return Call(name_tok.value, tuple(args), span, name_span)

    def arg(self, node: Node) -> Arg:
        if node.name == "named_arg":
            return Arg(node.children[0].value, self.value(node.children[2]), self.span(node))
        if node.name == "elided_args":
            span = self.span(node)
            return Arg(None, Elided(span), span)
        value = self.value(node.children[0])
        return Arg(None, value, value.span)  # a positional argument is exactly its value

    # ------------------------------------------------------------------ run
    def run(self) -> Plan:
        goals: list[_GoalDecl] = []
        defines: list[Node] = []
        for item in self.tree.children:
            if item.name == "header":
                self.read_header(item.children[0])
            elif item.name == "define":
                defines.append(item)
            elif item.name == "goal":
                goals.append(_GoalDecl(item.children[1].value, item, [c for c in item.children if isinstance(c, Node) and c.name in ("spawn", "call_statement")]))
            elif item.name == "command_def":
                self.read_command_def(item)
        for node in defines:
            self.read_define(node)
        self.execute(goals)
        self.link_later_assigns()
        plan_goals = tuple(
            Goal(g.name, self.span(g.node), self.span(g.node.children[1]), g.order, g.first_step, g.last_step, g.called_by)
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
            diagnostics=tuple(self.diagnostics),
            name=str(name_entry.value) if name_entry else None,
            description=str(desc_entry.value) if desc_entry else None,
        )

    # ------------------------------------------------------------------ top level items
    def read_header(self, tok: Token) -> None:
        body_start = tok.start + len("HEADER")
        body = self.text[body_start : tok.end]
        if body.endswith("END_HEADER"):
            body = body[: -len("END_HEADER")]
        offset = body_start
        for raw in body.splitlines(keepends=True):
            line = raw.strip()
            if line and not line.startswith(("//", "#")):
                match = _HEADER_LINE.match(raw)
                lead = len(raw) - len(raw.lstrip())
                span = self.smap.span(offset + lead, offset + len(raw.rstrip("\r\n")))
                if match:
                    self.header.append(HeaderEntry(match.group(1), _header_value(match.group(2)), span))
                else:
                    self.diag("R-SYN-001", f"TDL document structure: HEADER line '{line[:40]}' is not 'KEY: value'", span, suggestion="Write header lines as KEY: value")
            offset += len(raw)

    def read_command_def(self, node: Node) -> None:
        name_tok = node.children[1]
        params = tuple(p.children[0].value for c in node.children if isinstance(c, Node) and c.name == "param_list" for p in c.children if isinstance(p, Node))
        self.command_defs.append(CommandDef(name_tok.value, params, self.span(node)))

    def read_define(self, node: Node) -> None:
        name_tok = node.children[1]
        value = self.value(node.children[3])
        span = self.span(node)
        name = name_tok.value
        pose = None
        if isinstance(value, Call) and value.name in POSE_CONSTRUCTORS:
            self.collect_literals(value, f"DEFINE {name}")
            pose = self.pose_of(value, name=name, origin="define")
        elif isinstance(value, TupleValue):
            self.diag("R-SYN-002", f"Invalid position definition at line {span.line}: missing Pos type (PosJ, PosX or PosY) before '('", value.span,
                      suggestion=f"Write 'DEFINE {name} = PosX{_slice(self.text, self.smap, value.span)};'")
        else:
            self.collect_literals(value, f"DEFINE {name}")
            self.diag("R-SYN-002", f"Invalid position definition at line {span.line}: DEFINE must bind PosJ(...), PosX(...) or PosY(...)",
                      getattr(value, "span", None) or span, suggestion=f"Write 'DEFINE {name} = PosX(x, y, z, rx, ry, rz);'")
        definition = Definition(name, "define", value, span, self.span(name_tok), None, pose)
        self.definitions.append(definition)
        self.env.bindings[name] = definition
        self.env.values[name] = pose if pose is not None else Unresolved(name)
        if pose is not None:
            self.site(pose, pose.span or span, None, f"DEFINE {name}")

    # ------------------------------------------------------------------ execution order
    def execute(self, goals: list[_GoalDecl]) -> None:
        by_name: dict[str, _GoalDecl] = {}
        for g in goals:
            by_name.setdefault(g.name, g)
        called: set[str] = set()
        for g in goals:
            for stmt in g.statements:
                callee = _call_of(stmt).children[0].value
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
            call = _call_of(stmt)
            name = call.children[0].value
            callee = by_name.get(name)
            if callee is not None and cat.lookup(name) is None:
                if name in stack:
                    self.diag("R-SYN-001", f"TDL document structure: GOAL '{name}' calls itself (recursion through {' -> '.join(stack + (name,))})",
                              self.span(call), suggestion="Remove the recursive GOAL call")
                    continue
                self.run_goal(callee, by_name, stack + (name,))
                continue
            index = self.emit_step(stmt, call, goal.name)
            if goal.first_step is None:
                goal.first_step = index
            goal.last_step = index

    # ------------------------------------------------------------------ steps
    def emit_step(self, stmt: Node, call_node: Node, goal: str) -> int:
        index = len(self.steps) + 1
        call = self.call(call_node)
        spawn = None
        if stmt.name == "spawn":
            mode = stmt.children[3]
            spawn = mode.children[0].value if isinstance(mode, Node) else mode.value
        spec = cat.lookup(call.name)
        binding, args = bind(spec, call.args)
        context = call.name
        for arg in call.args:
            self.collect_literals(arg.value, f"{context}.{arg.name or 'arg'}")
            self.check_nested_calls(arg.value, index)
        params: dict[str, Any] = {}
        poses: list[tuple[str, Pose]] = []
        for pname, value in args.items():
            ptype = spec.param(pname).type if spec else "any"
            if ptype in ("pose", "pose_list", "number") or (call.name == "Assign" and pname == "source"):
                self.reference(value, index, pname)
            resolved = value.name if ptype == "symbol" and isinstance(value, Ref) else self.evaluate(value)
            params[pname] = resolved
            if ptype == "pose" and isinstance(resolved, Pose):
                poses.append((pname, resolved))
                self.site_for_use(resolved, value, index, f"{call.name}.{pname}")
            elif ptype == "pose_list" and isinstance(resolved, list):
                for item_value, item in zip(getattr(value, "items", ()), resolved):
                    if isinstance(item, Pose):
                        poses.append((pname, item))
                        self.site_for_use(item, item_value, index, f"{call.name}.{pname}")
        target = None
        target_name = None
        if spec is not None and spec.kind == "motion" and poses:
            target = poses[-1][1]
            target_name = target.name
        step = Step(
            index=index,
            action="command",
            command=call.name,
            span=self.span(stmt),
            goal=goal,
            spawn=spawn,
            raw_args=call.args,
            binding=binding,
            args=args,
            params=params,
            poses=tuple(poses),
            target=target,
            target_name=target_name,
        )
        self.steps.append(step)
        if call.name == "Assign":
            self.assign(step, args)
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

    def reference(self, value: Value, step: int, param: str) -> None:
        for ref in _refs(value):
            definition = self.env.bindings.get(ref.name)
            graph = definition is None and ref.name in self.positions
            self.references.append(Reference(ref.name, ref.span, step, param, definition, None, graph))

    def check_nested_calls(self, value: Value, step: int) -> None:
        for call in _calls(value):
            spec = cat.lookup(call.name)
            if spec is None:
                suggestion = cat.closest(call.name)
                self.diag("R-SYN-007", f"Unknown function '{call.name}' in an argument", call.name_span or call.span, step,
                          suggestion=f"Did you mean '{suggestion}'?" if suggestion else None, command=call.name)
            elif not spec.returns:
                self.diag("R-SYN-007", f"'{call.name}' is a command and cannot be used inside an argument", call.name_span or call.span, step,
                          suggestion=f"Run {call.name}(...) as its own statement", command=call.name)
            elif spec.kind != "pose":
                binding, _ = bind(spec, call.args)
                for missing in binding.missing:
                    self.diag("R-SYN-006", f"Missing required parameter '{missing}' for command '{call.name}'", call.span, step, command=call.name, param=missing)

    def collect_literals(self, value: Value, context: str) -> None:
        for call in _calls(value):
            if call.name in POSE_CONSTRUCTORS or call.name == "Trans":
                key = (call.span.line, call.span.column) if call.span else (id(call), 0)
                if key not in self._literal_seen:
                    self._literal_seen.add(key)
                    self.pose_literals.append(PoseLiteral(call.name, call.args, call.span, context))

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, value: Value) -> Any:
        if isinstance(value, Number):
            return value.value
        if isinstance(value, Text):
            return value.value
        if isinstance(value, Constant):
            return value.value
        if isinstance(value, Ref):
            if value.name in self.env.values:
                found = self.env.values[value.name]
                if isinstance(found, Pose) and found.name != value.name:
                    return _renamed(found, value.name)
                return found
            if value.name in self.positions:
                coords = self.positions[value.name]
                if coords is not None and len(coords) >= 3:
                    vals = tuple(float(c) for c in coords) + (0.0,) * (6 - len(coords))
                    return Pose(CARTESIAN, vals[:6], "PosX", value.name, value.span, "graph")
            return Unresolved(value.name)
        if isinstance(value, Call):
            if value.name in POSE_CONSTRUCTORS:
                pose = self.pose_of(value)
                return pose if pose is not None else Unresolved(self.source_of(value))
            if value.name == "Trans":
                numbers = self._numbers(value.args, 6)
                return Pose("offset", numbers, "Trans", None, value.span) if numbers else Unresolved(self.source_of(value))
            return Unresolved(self.source_of(value))
        if isinstance(value, ListValue):
            return [self.evaluate(v) for v in value.items]
        if isinstance(value, BinOp):
            return self._binop(value)
        return Unresolved(self.source_of(value))

    def _binop(self, value: BinOp) -> Any:
        left, right = self.evaluate(value.left), self.evaluate(value.right)
        if _is_num(left) and _is_num(right) and value.op in _ARITHMETIC:
            try:
                return _ARITHMETIC[value.op](left, right)
            except (ZeroDivisionError, OverflowError):
                return Unresolved(self.source_of(value))
        if value.op == "*" and isinstance(left, Pose) and left.kind == CARTESIAN and isinstance(right, Pose) and right.kind == "offset":
            base = offset_in_base_frame(left.values, right.values)
            tool = offset_in_tool_frame(left.values, right.values, self.convention)
            alternatives = () if _close(base, tool) else (tool,)
            note = None if not alternatives else (
                f"'{_slice(self.text, self.smap, value.span)}': TDL does not fix the frame of Trans; "
                f"base frame gives z={base[2]:g}, tool frame gives z={tool[2]:g}")
            return Pose(CARTESIAN, base, left.constructor, None, value.span, "inline", alternatives, note)
        return Unresolved(self.source_of(value))

    def _numbers(self, args: Sequence[Arg], count: int) -> tuple[float, ...] | None:
        """The first `count` arguments as numbers, if they are all positional numbers."""
        if any(a.name or isinstance(a.value, Elided) for a in args) or len(args) < count:
            return None
        out = []
        for a in args[:count]:
            v = self.evaluate(a.value)
            if not _is_num(v):
                return None
            out.append(float(v))
        return tuple(out)

    def pose_of(self, call: Call, *, name: str | None = None, origin: str = "inline") -> Pose | None:
        """Evaluate a PosJ/PosX/PosY constructor; None when its arguments are not 6 (7) numbers."""
        kind = POSE_CONSTRUCTORS[call.name]
        allowed = (6,) if kind == JOINT else (6, 7)
        if len(call.args) not in allowed:
            return None
        numbers = self._numbers(call.args, 6)
        if numbers is None:
            return None
        return Pose(kind, numbers, call.name, name, call.span, origin)

    # ------------------------------------------------------------------ pose sites
    def site(self, pose: Pose, span: Span | None, step: int | None, context: str) -> None:
        key = (span.line, span.column) if span else (pose.name, context)
        if key in self._sited:
            return
        self._sited.add(key)
        self.pose_sites.append(PoseSite(pose, span, step, context))

    def site_for_use(self, pose: Pose, value: Value, step: int, context: str) -> None:
        if pose.origin in ("define", "assign") and isinstance(value, Ref):
            return  # checked at its definition
        if pose.origin == "graph":
            if pose.name in self._graph_sited:
                return
            self._graph_sited.add(pose.name)
            self.pose_sites.append(PoseSite(pose, getattr(value, "span", None), step, f"graph position {pose.name}"))
            return
        self.site(pose, pose.span or getattr(value, "span", None), step, context)


# ---------------------------------------------------------------------- binding


def bind(spec: cat.CommandSpec | None, raw_args: Sequence[Arg]) -> tuple[Binding, dict[str, Value]]:
    """Map written arguments onto a catalogue signature (positional by order, named by name)."""
    if spec is None:
        return Binding(known=False), {}
    args: dict[str, Value] = {}
    unknown: list[Arg] = []
    extra: list[Arg] = []
    duplicates: list[Arg] = []
    elided = None
    order = [p.name for p in spec.params]
    slot = 0
    for arg in raw_args:
        if isinstance(arg.value, Elided):
            elided = elided or arg.span
            continue
        if arg.name is None:
            while slot < len(order) and order[slot] in args:
                slot += 1
            if slot >= len(order):
                extra.append(arg)
                continue
            args[order[slot]] = arg.value
            slot += 1
        elif spec.param(arg.name) is None:
            unknown.append(arg)
        elif arg.name in args:
            duplicates.append(arg)
        else:
            args[arg.name] = arg.value
    missing = tuple(p.name for p in spec.params if p.required and p.name not in args)
    type_errors = []
    for pname, value in args.items():
        expected = spec.param(pname).type
        problem = type_problem(expected, value)
        if problem:
            type_errors.append((pname, next(a for a in raw_args if a.value is value), problem))
    return Binding(True, missing, tuple(unknown), tuple(extra), tuple(duplicates), elided, tuple(type_errors)), args


def type_problem(expected: str, value: Value) -> str | None:
    """Why `value` cannot be an argument of type `expected`, or None."""
    if expected == "number":
        if isinstance(value, (Number, Ref, BinOp)):
            return None
        if isinstance(value, Call) and (spec := cat.lookup(value.name)) is not None and spec.returns and spec.kind != "pose":
            return None
        return "a number"
    if expected == "pose":
        if isinstance(value, (Ref, BinOp)):
            return None
        if isinstance(value, Call) and value.name in POSE_CONSTRUCTORS:
            return None
        return "a pose (PosJ(...), PosX(...) or a defined position name)"
    if expected == "pose_list":
        if isinstance(value, Ref):
            return None
        if isinstance(value, ListValue) and all(type_problem("pose", v) is None for v in value.items):
            return None
        return "a list of poses"
    if expected == "symbol":
        return None if isinstance(value, (Ref, Text)) else "a name"
    return None


# ---------------------------------------------------------------------- helpers


def _operands(children: list) -> list:
    return [c for c in children if not (isinstance(c, Token) and c.type in ("LPAR", "RPAR", "LSQB", "RSQB", "COMMA"))]


def _call_of(stmt: Node) -> Node:
    return stmt.children[1] if stmt.name == "spawn" else stmt.children[0]


def _refs(value: Value) -> Iterator[Ref]:
    if isinstance(value, Ref):
        yield value
    elif isinstance(value, Call):
        for arg in value.args:
            yield from _refs(arg.value)
    elif isinstance(value, (ListValue, TupleValue)):
        for item in value.items:
            yield from _refs(item)
    elif isinstance(value, BinOp):
        yield from _refs(value.left)
        yield from _refs(value.right)


def _calls(value: Value) -> Iterator[Call]:
    if isinstance(value, Call):
        yield value
        for arg in value.args:
            yield from _calls(arg.value)
    elif isinstance(value, (ListValue, TupleValue)):
        for item in value.items:
            yield from _calls(item)
    elif isinstance(value, BinOp):
        yield from _calls(value.left)
        yield from _calls(value.right)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _close(a: Sequence[float], b: Sequence[float]) -> bool:
    return all(abs(x - y) < 1e-6 for x, y in zip(a[:3], b[:3]))


def _renamed(pose: Pose, name: str) -> Pose:
    return Pose(pose.kind, pose.values, pose.constructor, name, pose.span, pose.origin, pose.alternatives, pose.note)


def _join(a: Span | None, b: Span | None) -> Span | None:
    if a is None:
        return b
    return a.cover(b)


def _slice(text: str, smap: SourceMap, span: Span | None) -> str:
    """The source text under a span."""
    if span is None:
        return "?"
    if span.line == span.end_line:
        return smap.line_text(span.line)[span.column - 1 : span.end_column - 1]
    parts = [smap.line_text(span.line)[span.column - 1 :]]
    parts.extend(smap.line_text(n) for n in range(span.line + 1, span.end_line))
    parts.append(smap.line_text(span.end_line)[: span.end_column - 1])
    return "\n".join(parts)


def _unquote(token: str) -> str:
    try:
        return ast.literal_eval(token)
    except (ValueError, SyntaxError):
        return token[1:-1]


def _header_value(raw: str) -> Any:
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return _unquote(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return float(text)
    except ValueError:
        return text
