"""The TDL text editor: the input program with the fewest edits, its names, comments and layout kept.

The repair decides what changes per motion statement (`StatementChange`: another
command name, other speed numbers, joint-space via points before it); this module
writes that into the original text and nothing else. It works from the spans the
parser recorded: a command name or a number is replaced in place, via motions are
new lines before their statement (same indentation, same argument style: named or
positional, `SPAWN … WITH WAIT` or a plain call), and the via points are new
`DEFINE`s after the program's last DEFINE — or `Assign`s right before their use
where the program binds its points with `Assign` and has no DEFINE.

`render` also says where every line of the result comes from (an input line, or
the statement a new line was added for), so findings on the repaired text can be
traced back to the input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from plan_verifier.findings import Span
from plan_verifier.ir import Plan, Step, fmt_number
from plan_verifier.repair.result import Edit

#: A statement's identity in the input: where it starts (line, column).
Key = tuple[int, int]


@dataclass(frozen=True)
class Via:
    """A joint-space via point the repair adds before a motion."""

    name: str
    joints_deg: tuple[float, ...]


@dataclass(frozen=True)
class StatementChange:
    """What the repair changes in one statement of the input (a motion, or a global speed setting)."""

    key: Key
    command: str | None = None  # a new command name (MoveLinear -> MoveJoint)
    numbers: tuple[tuple[str, float], ...] = ()  # (parameter, new value)
    vias: tuple[Via, ...] = ()
    fixes: tuple[str, ...] = ()
    why: tuple[str, ...] = ()

    def merged(self, other: "StatementChange") -> "StatementChange":
        numbers = dict(self.numbers)
        numbers.update(other.numbers)
        return StatementChange(self.key, other.command or self.command, tuple(numbers.items()),
                               other.vias if other.vias else self.vias, _unique(self.fixes + other.fixes),
                               _unique(self.why + other.why))


@dataclass
class Origin:
    """Where a line of the repaired text comes from: input line `line`, or (added=True) a line added for the
    statement `key`."""

    line: int | None
    key: Key | None = None
    added: bool = False


@dataclass
class Rendered:
    text: str
    origins: list[Origin]  # per output line (index 0 = line 1)
    edits: tuple[Edit, ...]


@dataclass
class TdlProgram:
    """The input program and its statements, as the parser saw them."""

    text: str
    plan: Plan
    lines: list[str] = field(init=False)
    statements: dict[Key, Step] = field(init=False)

    def __post_init__(self) -> None:
        self.lines = self.text.split("\n")
        self.statements = {}
        for step in self.plan.steps:
            if step.span is not None:
                self.statements.setdefault((step.span.line, step.span.column), step)

    @property
    def uses_assign_only(self) -> bool:
        kinds = {d.kind for d in self.plan.definitions}
        return "assign" in kinds and "define" not in kinds

    def taken_names(self) -> set[str]:
        names = {d.name for d in self.plan.definitions}
        names.update(re.findall(r"[A-Za-z_]\w*", self.text))
        return names

    def render(self, changes: Sequence[StatementChange]) -> Rendered:
        by_key: dict[Key, StatementChange] = {}
        for change in changes:
            by_key[change.key] = by_key[change.key].merged(change) if change.key in by_key else change
        assign = self.uses_assign_only
        replacements: dict[int, list[tuple[int, int, str]]] = {}  # line -> (start col, end col, text), 1-based, end exclusive
        inserts: dict[int, list[tuple[Key, list[str]]]] = {}
        defines: list[tuple[Key, str]] = []
        for key, change in sorted(by_key.items()):
            step = self.statements[key]
            if change.command is not None:
                line, start, end = self._command_span(step)
                replacements.setdefault(line, []).append((start, end, change.command))
            for param, value in change.numbers:
                span = step.arg_span(param)
                if span is None or param not in step.args or span.line != span.end_line:
                    raise ValueError(f"step {step.index}: no {param} argument to change")
                replacements.setdefault(span.line, []).append((span.column, span.end_column, fmt_number(round(value, 3))))
            if change.vias:
                indent = re.match(r"[ \t]*", self.lines[key[0] - 1]).group(0)
                new_lines = []
                for via in change.vias:
                    point = f"PosJ({', '.join(fmt_number(round(v, 3)) for v in via.joints_deg)})"
                    if assign:
                        new_lines.append(indent + self._statement(step, f"Assign({via.name}, {point})"))
                    else:
                        defines.append((key, f"DEFINE {via.name} = {point};"))
                    new_lines.append(indent + self._statement(step, self._via_call(step, via.name, dict(change.numbers))))
                inserts.setdefault(key[0], []).append((key, new_lines))
        anchor = self._define_anchor() if defines else None
        out: list[str] = []
        origins: list[Origin] = []
        edits: list[Edit] = []
        for number, line in enumerate(self.lines, start=1):
            if anchor is not None and number == anchor[0]:
                block = [text for _, text in defines] + ([""] if anchor[1] else [])
                out.extend(block)
                origins.extend(Origin(None, key, True) for key, _ in defines)
                origins.extend([Origin(None, None, True)] * (len(block) - len(defines)))
                fixes = _unique(tuple(f for key, _ in defines for f in by_key[key].fixes))
                edits.append(Edit(number, None, "\n".join(text for _, text in defines), fixes,
                                  "the via points the repaired motions pass through (joint angles, degrees)"))
            for key, new_lines in inserts.get(number, []):
                out.extend(new_lines)
                origins.extend(Origin(None, key, True) for _ in new_lines)
                change = by_key[key]
                edits.append(Edit(number, None, "\n".join(new_lines), change.fixes, "; ".join(change.why)))
            new = line
            for start, end, text in sorted(replacements.get(number, []), reverse=True):
                new = new[: start - 1] + text + new[end - 1:]
            if new != line:
                keys = [k for k in by_key if k[0] == number]
                change = by_key[keys[0]] if keys else None
                edits.append(Edit(number, line, new, change.fixes if change else (), "; ".join(change.why) if change else ""))
            out.append(new)
            origins.append(Origin(number))
        return Rendered("\n".join(out), origins, tuple(sorted(edits, key=lambda e: (e.line or 0, e.before is not None))))

    # ------------------------------------------------------------------ helpers

    def _command_span(self, step: Step) -> tuple[int, int, int]:
        """(line, start column, end column) of the statement's command name."""
        span = step.span
        line = self.lines[span.line - 1]
        found = re.compile(r"\b" + re.escape(step.command) + r"\s*\(").search(line, span.column - 1)
        if found is None:
            raise ValueError(f"step {step.index}: command {step.command} not found on line {span.line}")
        return span.line, found.start() + 1, found.start() + 1 + len(step.command)

    def _statement(self, step: Step, call: str) -> str:
        return f"SPAWN {call} WITH {step.spawn};" if step.spawn else f"{call};"

    def _via_call(self, step: Step, name: str, numbers: dict[str, float]) -> str:
        """`MoveJoint(name, velocity, acceleration, tool, 0)` in the statement's own style, with its (changed) speeds."""
        named = any(arg.name for arg in step.raw_args)
        values = [("target_pose", name)]
        for param in ("velocity", "acceleration", "tool"):
            value = step.args.get(param)
            span = getattr(value, "span", None)
            if param in numbers:
                values.append((param, fmt_number(round(numbers[param], 3))))
            elif value is not None and span is not None:
                values.append((param, self._slice(span)))
        values.append(("blending_radius", "0"))
        if named:
            return f"MoveJoint({', '.join(f'{k}={v}' for k, v in values)})"
        if len(values) < 5:  # a positional call that leaves parameters out cannot be mirrored: name them
            return f"MoveJoint({', '.join(f'{k}={v}' for k, v in values)})"
        return f"MoveJoint({', '.join(v for _, v in values)})"

    def _slice(self, span: Span) -> str:
        if span.line == span.end_line:
            return self.lines[span.line - 1][span.column - 1: span.end_column - 1]
        parts = [self.lines[span.line - 1][span.column - 1:]]
        parts.extend(self.lines[span.line: span.end_line - 1])
        parts.append(self.lines[span.end_line - 1][: span.end_column - 1])
        return " ".join(p.strip() for p in parts)

    def _define_anchor(self) -> tuple[int, bool]:
        """(line the new DEFINEs go before, whether a blank line follows them): after the last DEFINE, else before
        the first GOAL (and the comment lines right above it)."""
        defines = [d for d in self.plan.definitions if d.kind == "define" and d.span is not None]
        if defines:
            return max(d.span.end_line for d in defines) + 1, False
        goals = [g.span.line for g in self.plan.goals if g.span is not None]
        first = min(goals) if goals else 1
        while first > 1 and self.lines[first - 2].lstrip().startswith(("//", "#")) and not _header_rule(self.lines[first - 2]):
            first -= 1
        return first, True


def _header_rule(line: str) -> bool:
    """A comment line that closes a file header (`# ====`): the DEFINEs go below it, not above."""
    return bool(re.fullmatch(r"\s*(//|#)\s*[=\-*#/]{3,}\s*", line))


def _unique(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
