"""Seed 000 §3.2's error injector: every injection, on TDL programs and JSON plans.

Syntax injections edit the text (remove a statement's `;`, remove a bracket,
misspell a keyword or command, drop a required argument). Semantic, safety
and consistency injections edit the task or the plan before it is written
out, so the result is a coherent program that does the wrong thing (picks up
at B instead of A, moves at 1500 mm/s, refers to a pose it never defines)
rather than a text with a random scar. Each injection returns what it did
(the `error_description` of the case) and raises `NotApplicable` when the
plan has nothing it could break that way.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import replace

from plan_verifier.evaluation.cell_plans import CellTask, home_of, renumber, with_job
from plan_verifier.evaluation.programs import Item, Op, Program, Spot, Transfer
from plan_verifier.graph.model import TOOL_ATTACH, Cell

SYNTAX = ("remove_semicolon", "remove_bracket", "wrong_keyword", "missing_parameter")
SEMANTIC = ("swap_objects", "swap_locations", "reverse_sequence", "change_velocity", "missing_step")
SAFETY = ("exceed_reach", "negative_z", "excessive_velocity", "excessive_acceleration")
CONSISTENCY_TDL = ("undefined_reference", "use_before_assign")
CONSISTENCY_JSON = ("unknown_position", "illegal_move", "unsupported_routine", "tool_not_held")

_OBJECT_NOUNS = ("box", "cube", "block", "apple", "banana", "orange", "glass", "cup", "bottle", "gear", "bolt", "battery")
_COLORS = ("red", "blue", "green", "yellow", "black", "white")
_CALL = re.compile(r"\b(MoveLinear|MoveJoint|SetDigitalOutput|Delay)\(")
_CODE_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|#[^\n]*|[(){}]')
_REQUIRED = {"MoveLinear": 5, "MoveJoint": 5, "SetDigitalOutput": 2, "Delay": 1}


class NotApplicable(Exception):
    """This injection cannot break this plan (try another plan)."""


class ErrorInjector:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    # ------------------------------------------------------------------ syntax (text)
    def remove_semicolon(self, text: str, fmt: str) -> tuple[str, str, int]:
        if fmt != "tdl":
            raise NotApplicable("JSON has no semicolons")
        lines = text.split("\n")
        candidates = [i for i, line in enumerate(lines) if _code(line).rstrip().endswith(";")]
        i = _pick(self.rng, candidates)
        code = _code(lines[i]).rstrip()
        lines[i] = code[:-1] + lines[i][len(code):]
        return "\n".join(lines), "Missing semicolon", i + 1

    def remove_bracket(self, text: str, fmt: str) -> tuple[str, str, int]:
        if fmt == "tdl":
            spots = [m.start() for m in _CODE_TOKENS.finditer(text) if m.group(0) in "(){}"]
        else:
            spots = [m.start() for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text) if m.group(0) in "[]{}"]
        at = _pick(self.rng, spots)
        return text[:at] + text[at + 1:], f"Missing '{text[at]}'", text.count("\n", 0, at) + 1

    def wrong_keyword(self, text: str, fmt: str) -> tuple[str, str, int]:
        if fmt == "json":
            spots = [m for m in re.finditer(r'"action": "(move|routine)"', text)]
            m = _pick(self.rng, spots)
            wrong = _misspell(m.group(1), self.rng)
            return text[:m.start(1)] + wrong + text[m.end(1):], f"Unknown action '{wrong}'", text.count("\n", 0, m.start()) + 1
        spots = [m for m in re.finditer(r"\b(SPAWN|WITH|WAIT|GOAL|DEFINE|MoveLinear|MoveJoint|SetDigitalOutput|Delay|End|Assign)\b", text)
                 if not _in_comment(text, m.start())]
        m = _pick(self.rng, spots)
        wrong = _misspell(m.group(1), self.rng)
        return text[:m.start()] + wrong + text[m.end():], f"Misspelled keyword '{m.group(1)}' as '{wrong}'", text.count("\n", 0, m.start()) + 1

    def missing_parameter(self, text: str, fmt: str) -> tuple[str, str, int]:
        if fmt == "json":
            spots = [m for m in re.finditer(r',?\n\s*"(action|target)": "[^"]*"', text)]
            m = _pick(self.rng, spots)
            return text[:m.start()] + text[m.end():], f"Step without its '{m.group(1)}' field", text.count("\n", 0, m.start()) + 2
        calls = [m for m in _CALL.finditer(text) if not _in_comment(text, m.start())]
        m = _pick(self.rng, calls)
        close = _closing(text, m.end() - 1)
        args = _split_args(text[m.end():close])
        required = _REQUIRED[m.group(1)]
        if all("=" in a for a in args):
            victim = _pick(self.rng, [a for a in args])
            kept = [a for a in args if a is not victim]
            what = victim.split("=")[0].strip()
        else:
            kept = args[:required - 1]
            what = f"{len(args) - len(kept)} trailing arguments"
        new = ", ".join(a.strip() for a in kept)
        return text[:m.end()] + new + text[close:], f"{m.group(1)} without {what}", text.count("\n", 0, m.start()) + 1

    # ------------------------------------------------------------------ semantic (task)
    def swap_objects(self, task):
        if isinstance(task, CellTask):
            raise NotApplicable("use swap_tool for cell tasks")
        if not task.transfers:
            raise NotApplicable("no object to swap")
        n = self.rng.randrange(len(task.transfers))
        item = task.transfers[n].item
        used = {t.item.noun for t in task.transfers}
        if item.color is not None and self.rng.random() < 0.6:
            new = Item(item.noun, _pick(self.rng, [c for c in _COLORS if c != item.color]))
        else:
            new = Item(_pick(self.rng, [o for o in _OBJECT_NOUNS if o not in used]), item.color)
        transfers = list(task.transfers)
        transfers[n] = replace(transfers[n], item=new)
        return replace(task, transfers=tuple(transfers)), f"Object mismatch: {item.english} vs {new.english}"

    def swap_tool(self, task: CellTask, cell: Cell):
        """swap_objects for cell tasks: fetch another tool than the instruction names."""
        tool = task.attach_only or task.jobs[0].tool
        others = sorted(t for t in cell.tools if t != tool)
        if not others:
            raise NotApplicable("the cell has one tool")
        new = _pick(self.rng, others)
        if task.attach_only:
            return replace(task, attach_only=new), f"Object mismatch: {tool} vs {new}"
        jobs = tuple(replace(j, tool=new) if j.tool == tool else j for j in task.jobs)
        return replace(task, jobs=jobs), f"Object mismatch: {tool} vs {new}"

    def swap_locations(self, task, cell: Cell | None = None, spare: Spot | None = None):
        if isinstance(task, CellTask):
            for n, job in enumerate(task.jobs):
                others = sorted(p for p in cell.routines[job.routine].supported_at if p != job.position)
                if others:
                    new = _pick(self.rng, others)
                    return with_job(task, n, position=new), f"Location error: {job.routine} at {new} instead of {job.position}"
            raise NotApplicable("no routine with another supported position")
        if task.transfers:
            n = self.rng.randrange(len(task.transfers))
            t = task.transfers[n]
            transfers = list(task.transfers)
            transfers[n] = Transfer(t.item, t.destination, t.source)
            return replace(task, transfers=tuple(transfers)), f"Source and destination swapped: {t.destination.label} to {t.source.label}"
        if task.kind == "move_to" and spare is not None:
            return replace(task, visits=(spare,)), f"Location error: moves to {spare.label} instead of {task.visits[0].label}"
        raise NotApplicable("nothing to swap")

    def reverse_sequence(self, task):
        if isinstance(task, CellTask):
            if len(task.jobs) < 2:
                raise NotApplicable("one job")
            return replace(task, jobs=task.jobs[::-1]), "Sequence reversed: " + " then ".join(j.position for j in task.jobs[::-1])
        if task.kind == "tour":
            return replace(task, visits=task.visits[::-1]), "Sequence reversed: " + " then ".join(s.label for s in task.visits[::-1])
        if len(task.transfers) >= 2:
            return replace(task, transfers=task.transfers[::-1]), "Sequence reversed: the " + " first, then the ".join(t.item.english for t in task.transfers[::-1])
        raise NotApplicable("no sequence")

    def change_velocity(self, program_or_steps, gentle: bool):
        """'gently'/'slowly' in the instruction, fast moves in the plan (still inside the safety limits)."""
        if not gentle:
            raise NotApplicable("the instruction asks for no particular speed")
        fast = float(_pick(self.rng, (600, 700, 800, 900, 950)))
        if isinstance(program_or_steps, Program):
            moves = [i for i, op in enumerate(program_or_steps.execute) if op.kind == "move"]
            chosen = set(self.rng.sample(moves, min(len(moves), self.rng.randint(1, 3))))
            execute = tuple(replace(op, velocity=fast) if i in chosen else op for i, op in enumerate(program_or_steps.execute))
            return replace(program_or_steps, execute=execute), f"Velocity {fast:g} mm/s against a gentle instruction"
        steps = [dict(s) for s in program_or_steps]
        moves = [i for i, s in enumerate(steps) if s["action"] == "move"]
        for i in self.rng.sample(moves, min(len(moves), self.rng.randint(1, 3))):
            steps[i]["velocity"] = fast
        return steps, f"Velocity {fast:g} mm/s against a gentle instruction"

    def missing_step(self, task):
        """What to leave out: ('release', n) | ('home', None) | ('routine', n) | ('tool_release', None)."""
        if isinstance(task, CellTask):
            if task.jobs and self.rng.random() < 0.6:
                n = self.rng.randrange(len(task.jobs))
                return ("routine", n), f"Missing step: {task.jobs[n].routine} at {task.jobs[n].position} never runs"
            if task.release and task.jobs:
                return ("tool_release", None), "Missing step: the tool is never put back"
            raise NotApplicable("nothing to leave out")
        if task.transfers:
            n = len(task.transfers) - 1
            return ("release", n), f"Missing step: the {task.transfers[n].item.english} is never placed"
        if task.return_home:
            return ("home", None), "Missing step: no return home"
        raise NotApplicable("nothing to leave out")

    # ------------------------------------------------------------------ safety (plan)
    def exceed_reach(self, program: Program, reach_mm: float):
        key, ops = self._pose_ops(program, None)
        x, y, z = ops[0].xyz
        target = reach_mm + _pick(self.rng, (150, 300, 500, 800))
        k = math.sqrt(max(target ** 2 - z ** 2, 1.0)) / math.hypot(x, y)
        xyz = (round(x * k), round(y * k), z)
        return _move_pose(program, key, xyz), f"Position ({xyz[0]:g}, {xyz[1]:g}, {z:g}) beyond the {reach_mm:g} mm reach"

    def negative_z(self, program: Program):
        key, ops = self._pose_ops(program, "at")
        x, y, _ = ops[0].xyz
        z = -float(_pick(self.rng, (5, 10, 20, 40, 60)))
        return _move_pose(program, key, (x, y, z)), f"Z-coordinate {z:g} mm below ground"

    def excessive_velocity(self, program_or_steps):
        fast = float(_pick(self.rng, (1100, 1200, 1500, 2000, 2500)))
        return self._set_motion(program_or_steps, "velocity", fast), f"Velocity {fast:g} mm/s above the 1000 mm/s limit"

    def excessive_acceleration(self, program_or_steps):
        value = float(_pick(self.rng, (600, 800, 1000, 1500, 2000)))
        return self._set_motion(program_or_steps, "acceleration", value), f"Acceleration {value:g} mm/s² above the 500 mm/s² limit"

    def _set_motion(self, program_or_steps, field: str, value: float):
        if isinstance(program_or_steps, Program):
            moves = [i for i, op in enumerate(program_or_steps.execute) if op.kind == "move"]
            n = _pick(self.rng, moves)
            execute = tuple(replace(op, **{field: value}) if i == n else op for i, op in enumerate(program_or_steps.execute))
            return replace(program_or_steps, execute=execute)
        steps = [dict(s) for s in program_or_steps]
        n = _pick(self.rng, [i for i, s in enumerate(steps) if s["action"] == "move"])
        steps[n][field] = value
        return steps

    def _pose_ops(self, program: Program, level: str | None) -> tuple[object, list[Op]]:
        keys = list(dict.fromkeys(op.pose for op in program.execute if op.kind == "move" and (level is None or op.pose.level == level)))
        if not keys:
            keys = list(dict.fromkeys(op.pose for op in program.execute if op.kind == "move"))
        key = _pick(self.rng, keys)
        return key, [op for op in program.execute if op.pose == key]

    # ------------------------------------------------------------------ consistency
    def undefined_reference(self, text: str, dialect: str) -> tuple[str, str, int]:
        if dialect == "named_inline":
            spots = [m for m in re.finditer(r"target_pose=(PosX\([^)]*\))", text)]
            m = _pick(self.rng, spots)
            name = _pick(self.rng, ("Target_Pose", "Place_Pose", "Grasp_Pose", "Safe_Pose"))
            return text[:m.start(1)] + name + text[m.end(1):], f"Reference to undefined position '{name}'", text.count("\n", 0, m.start()) + 1
        pattern = r"target_pose=([A-Za-z_]\w*)" if dialect == "define_named" else r"Move(?:Linear|Joint)\(([A-Za-z_]\w*),"
        spots = [m for m in re.finditer(pattern, text) if m.group(1) != "Home_Pose"]
        m = _pick(self.rng, spots)
        name = _typo(m.group(1), self.rng)
        return text[:m.start(1)] + name + text[m.end(1):], f"Reference to undefined position '{name}'", text.count("\n", 0, m.start()) + 1

    def use_before_assign(self, text: str, dialect: str) -> tuple[str, str, int]:
        if dialect != "positional_assign":
            raise NotApplicable("only Assign'ed variables can be used before their assignment")
        lines = text.split("\n")
        assigns = [(i, m.group(1)) for i, line in enumerate(lines) if (m := re.match(r"\s*(?:SPAWN\s+)?Assign\((\w+),", line))]
        i, name = _pick(self.rng, assigns)
        use = next(j for j in range(i + 1, len(lines)) if re.search(rf"\b{name}\b", lines[j]) and "Assign(" not in lines[j])
        moved = lines.pop(i)
        lines.insert(use, moved)
        return "\n".join(lines), f"'{name}' used before its Assign", use


def cell_consistency(injection: str, task: CellTask, steps: list[dict], cell: Cell, rng: random.Random):
    """The JSON plan/graph inconsistencies; returns (task, steps, description). Steps are rebuilt by the caller when task changes."""
    if injection == "unknown_position":
        moves = [i for i, s in enumerate(steps) if s["action"] == "move"]
        n = _pick(rng, moves)
        name = next(f"Pos_{k}" for k in (9, 99, 42, 7, 12) if f"Pos_{k}" not in cell.positions)
        steps = [dict(s) for s in steps]
        steps[n]["target"], steps[n]["name"] = name, f"Move to {name}"
        return task, steps, f"Position '{name}' does not exist in the graph"
    if injection == "illegal_move":
        def before(i: int) -> str | None:
            return home_of(cell) if i == 0 else steps[i - 1]["target"] if steps[i - 1]["action"] == "move" else None
        candidates = [i for i in range(len(steps) - 1) if steps[i]["action"] == "move" and steps[i + 1]["action"] == "move"
                      and before(i) is not None and not cell.allows(before(i), steps[i + 1]["target"])]
        n = _pick(rng, candidates)
        return task, renumber(steps[:n] + steps[n + 1:]), f"No edge from '{before(n)}' to '{steps[n + 1]['target']}' (skipped {steps[n]['target']})"
    if injection == "unsupported_routine":
        for n, job in enumerate(task.jobs):
            elsewhere = sorted(p.name for p in cell.positions.values() if p.role == "work" and p.name not in cell.routines[job.routine].supported_at)
            if elsewhere:
                new = _pick(rng, elsewhere)
                return with_job(task, n, position=new), None, f"{job.routine} is not supported at {new}"
        raise NotApplicable("every work position supports the routine")
    if injection == "tool_not_held":
        attach = [i for i, s in enumerate(steps) if s["action"] == "routine" and s["target"] == TOOL_ATTACH]
        if not attach or not task.jobs:
            raise NotApplicable("no tool is attached")
        n = attach[0]
        return task, renumber(steps[:n] + steps[n + 1:]), f"{task.jobs[0].routine} runs without {steps[n]['tool']} attached"
    raise ValueError(injection)


# --------------------------------------------------------------------------- helpers


def _pick(rng: random.Random, options):
    """rng.choice, but an empty choice means this plan cannot take this injection."""
    options = list(options)
    if not options:
        raise NotApplicable("nothing to inject into")
    return rng.choice(options)


def _move_pose(program: Program, key, xyz) -> Program:
    execute = tuple(replace(op, xyz=xyz) if op.pose == key else op for op in program.execute)
    return replace(program, execute=execute)


def _code(line: str) -> str:
    """The line without its comment (no comment markers occur inside generated strings)."""
    for marker in ("//", "#"):
        if marker in line:
            line = line[: line.index(marker)]
    return line


def _in_comment(text: str, at: int) -> bool:
    start = text.rfind("\n", 0, at) + 1
    return len(_code(text[start:at])) < at - start


def _closing(text: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise NotApplicable("unbalanced call")


def _split_args(inner: str) -> list[str]:
    args, depth, current = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            args.append(current)
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    if current.strip():
        args.append(current)
    return args


def _misspell(word: str, rng: random.Random) -> str:
    """Swap two inner letters, or drop one: never the word itself, never another keyword."""
    for _ in range(20):
        i = rng.randrange(1, max(2, len(word) - 1))
        if rng.random() < 0.5 and i + 1 < len(word):
            wrong = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        else:
            wrong = word[:i] + word[i + 1:]
        if wrong != word and wrong.lower() not in {"spawn", "with", "wait", "nowait", "goal", "define", "move", "routine", "end"}:
            return wrong
    return word + "x"


def _typo(name: str, rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.4 and name.endswith("_Pose"):
        return name[:-5] + "_Pos"
    if choice < 0.7:
        return name + "_2"
    i = rng.randrange(1, len(name))
    return name[:i] + name[i + 1:] if name[:i] + name[i + 1:] != name else name + "x"
