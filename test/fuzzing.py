"""The fuzz campaign: real and generated plans, mutated at the token level, run through the whole pipeline.

`test_fuzz.py` states the properties; this module builds the inputs and runs
them, each once per level, recording everything a property may ask about.

Seeds (`bases`): the corpus programs, the examples, the fixture plans, the
evaluation generator's TDL and JSON plans (fixed seed) and a sample of the
semantic development set's programs; the approved-actions YAML the verifier
writes for the approved ones (with its verification block, and without it —
a file the seed system wrote, which is re-verified rather than hash-checked).

Mutations (`mutants`), drawn from fixed seeds so that every run fuzzes the same
inputs: numbers become `nan`, `inf`, `1e308`, `-0`, `1e999`, huge, hex or
underscored numbers; names become names defined nowhere (`foo`, `-foo`) or
calls that read the robot as it runs; lines are deleted, duplicated or
swapped; `MoveLinear` and `MoveJoint` trade places; random bytes are
inserted. Two families are aimed: an *unevaluable* value written into a
value the checks need (a target's coordinate, a speed, a tool, an I/O value,
above all the value that made a rejected plan fail), and mutations of a
rejected plan that touch nothing its rejection depends on.

Each run records the report (or the exception), the warnings raised, what
reached stderr (file descriptor 2 and `sys.stderr`), and the work the
execution level did (configurations sampled), so that slowness is judged by
a work budget, not a clock.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator

from conftest import CORPUS, FIXTURES, ROOT
from plan_verifier import catalogue
from plan_verifier.findings import Category, Severity, Span
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.pipeline import Verifier
from plan_verifier.report import Report

#: Fixed seeds: the same campaign on every machine and every run.
GENERATOR_SEED = 14
MUTATION_SEED = 20260614
#: Mutants per seed plan, by family.
GENERAL_PER_BASE = 3
UNEVALUABLE_PER_BASE = 2
UNTOUCHED_PER_BASE = 4
JSON_PER_BASE = 8
ACTIONS_PER_BASE = 3
#: The execution level's work budget: configurations sampled (after the sweep's refinement) per motion.
#: A motion within the physical bounds (`motion.program.PHYSICAL_MM`/`PHYSICAL_DEG`) stays far below it.
SAMPLES_PER_MOTION = 10_000

INSTRUCTION = "Pick up the part at the first position and place it at the second position, then return home."

#: Values no check can evaluate, for a needed value: not finite, named nowhere, or only known at run time.
UNEVALUABLE = ("nan", "inf", "-inf", "NaN", "Infinity", "-Infinity", "1e999", "-1e999", "(1e308 * 10)", "(1 / 0)",
               "foo", "-foo", "undefined_pose", "GetAnalogInput(1)", "GetDigitalInput(2)")
#: What a number may become in a general mutation (evaluable or not, valid syntax or not).
NUMBERS = ("nan", "inf", "-inf", "1e308", "-1e308", "-0", "0", "1e999", "1e12", "-1e12", "123456789012345678901234567890",
           "0x1F", "1_000", "1e-320", "9" * 400)
NAMES = ("foo", "-foo", "undefined_pose", "GetAnalogInput(1)", "nan", "inf")
JSON_NUMBERS = ("NaN", "Infinity", "-Infinity", "1e999", "-0", "1e308", "-1e308", "1e12", "0", "123456789012345678901234567890",
                "0x1F", "1_000")
YAML_NUMBERS = (".nan", ".inf", "-.inf", "1.0e+999", "-0", "1.0e+308", "1e12", "0x1F", "1_000", "0o17", "nan", "~")
FLOW = ("If(GetDigitalInput(1) == 1);", "Else();", "While(GetDigitalInput(1) == 0);", "EndWhile();", "For(i, 0, 3);", "Next();",
        "GoTo(start);", "IfGoTo(GetDigitalInput(2) == 1, start);", "ThreadRun(watch);", "Label(start);")
RULES_THAT_EXPLAIN = ("R-SYN-", "R-CON-001", "R-CON-008", "R-KIN-000")

_TDL_TOKEN = re.compile(r'"(?:[^"\\\r\n]|\\.)*"|\'(?:[^\'\\\r\n]|\\.)*\'|//[^\r\n]*|#[^\r\n]*'
                        r"|(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>(?!\d)\w+)|\.\.\.|==|!=|<=|>=|\S")
_JSON_TOKEN = re.compile(r'(?P<string>"(?:[^"\\]|\\.)*")|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\S')
_YAML_TOKEN = re.compile(r"(?P<number>(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]))|(?P<word>(?<![\w\"'])[A-Za-z_]\w*(?![\w\"']))")
_KEYWORDS = frozenset({"DEFINE", "GOAL", "SPAWN", "WITH", "WAIT", "NOWAIT", "None", "True", "False", "HEADER", "END_HEADER", "COMMAND"})


# --------------------------------------------------------------------------- seeds


@dataclass(frozen=True)
class Base:
    """A seed plan: its text, format, cell (None: no graph) and instruction."""

    name: str
    text: str
    kind: str  # tdl | json | actions
    cell: str | None = None
    instruction: str = INSTRUCTION


def _tdl_bases() -> list[Base]:
    from plan_verifier.evaluation import dataset, devset

    out = [Base(f"corpus/{p.name}", p.read_text(encoding="utf-8"), "tdl") for p in sorted(CORPUS.glob("*.t*"))]
    out += [Base(f"examples/{p.name}", p.read_text(encoding="utf-8"), "tdl") for p in sorted((ROOT / "examples").glob("*.tdl"))]
    out += [Base(f"plans/{p.name}", p.read_text(encoding="utf-8"), "tdl") for p in sorted((FIXTURES / "plans").glob("*.tdl"))]
    for case in dataset.cases(_dataset()):
        if case.get("plan_format", "tdl") == "tdl" and case["category"] != "syntax":
            out.append(Base(f"generated/{case['id']}", case["tdl_code"], "tdl", instruction=case["natural_language"]))
    dev = [c for c in devset.load([FIXTURES / "semantic_dev"]) if c["plan_format"] == "tdl"]
    out += [Base(f"devset/{c['id']}", c["tdl_code"], "tdl", instruction=c["natural_language"]) for c in dev[::40]]
    return out + _rule_cases()[::4]


def _rule_cases() -> list[Base]:
    """The rule fixtures' TDL plans past the syntax stage, on their cells (graph positions, obstacles) or none."""
    import yaml

    out = []
    for path in sorted((FIXTURES / "rules").glob("R-*.yaml")):
        if path.stem.startswith(("R-SYN", "R-SEM")):
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if set(data) & {"robot", "graph_uri", "options"}:
            continue
        for case in data["cases"]:
            plan = case["plan"]
            if plan.lstrip()[:1] in "[{" or "steps:" in plan or "RobotSequence" in plan or set(case) & {"repeat", "robot", "graph_uri", "llm_answers", "start_joints", "options"}:
                continue
            cell = case.get("cell", data.get("cell"))
            out.append(Base(f"{path.stem}/{case['name']}", plan, "tdl", str(ROOT / cell) if cell and "/" in cell else cell))
    return out


def _json_bases() -> list[Base]:
    from plan_verifier.evaluation import dataset

    out = [Base(f"examples/{p.name}", p.read_text(encoding="utf-8"), "json", "weld_cell") for p in sorted((ROOT / "examples").glob("*.json"))]
    for case in dataset.cases(_dataset()):
        if case.get("plan_format") == "json" and case["category"] != "syntax":
            out.append(Base(f"generated/{case['id']}", case["json_plan"], "json", case["metadata"]["cell"], case["natural_language"]))
    return out


@lru_cache(maxsize=1)
def _dataset() -> dict:
    from plan_verifier.evaluation import dataset

    return dataset.generate(40, GENERATOR_SEED)


# --------------------------------------------------------------------------- running


@dataclass
class Run:
    """One verification of one input at one level: what came out, and what else happened."""

    report: Report | None
    error: str | None
    warnings: list[str]
    stderr: str
    samples: int  # configurations the execution level sampled, after the sweep's refinement
    motions: int


@lru_cache(maxsize=None)
def verifier(cell: str | None, level: str) -> Verifier:
    return Verifier("ur10e", graph=EmbeddedGraph.from_file(cell) if cell else None, level=level)


@contextlib.contextmanager
def _stderr_captured() -> Iterator[list[str]]:
    """Everything written to stderr meanwhile, at the file descriptor (C libraries) and in Python."""
    out: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp, contextlib.redirect_stderr(io.StringIO()) as python:
        os.dup2(tmp.fileno(), 2)
        try:
            yield out
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode("utf-8", "replace") + python.getvalue())


def run(text: str | bytes, cell: str | None, level: str, instruction: str | None = None) -> Run:
    """Verify once, recording the exception (if any), every warning and all stderr output."""
    report, error = None, None
    with warnings.catch_warnings(record=True) as caught, _stderr_captured() as stderr:
        warnings.simplefilter("always")
        try:
            report = verifier(cell, level).verify(text, instruction=instruction if level == "FULL" else None)
        except Exception as exc:  # noqa: BLE001 - recorded: a property says there must be none
            error = f"{exc.__class__.__name__}: {exc}"
    motion = report.motion if report is not None else None
    motions = list(getattr(motion, "motions", ()) or ())
    samples = sum(len(m.s) for m in motions)
    return Run(report, error, [f"{w.category.__name__}: {w.message}" for w in caught], stderr[0] if stderr else "", samples,
               len(motions) + len(getattr(motion, "not_simulated", ()) or ()))


# --------------------------------------------------------------------------- mutants


@dataclass
class Mutant:
    """A mutated seed plan: what was changed, where, and what the campaign measured for it."""

    base: Base
    text: str | bytes
    mutation: str
    family: str  # general | unevaluable | untouched | json | actions
    lines: frozenset[int] = frozenset()  # lines of the seed the mutation touched
    run_time_order: bool = False  # a branch, loop or jump was inserted right before a motion
    runs: dict[str, Run] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.base.name} [{self.family}: {self.mutation}]"


@dataclass
class Campaign:
    bases: dict[str, dict[str, Run]]  # base name -> level -> run of the unmutated seed
    mutants: list[Mutant]

    def runs(self) -> Iterator[tuple[Mutant, str, Run]]:
        for mutant in self.mutants:
            for level, result in mutant.runs.items():
                yield mutant, level, result


def _tokens(pattern: re.Pattern, text: str, group: str) -> list[re.Match]:
    return [m for m in pattern.finditer(text) if m.group(group)]


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _replace(text: str, match: re.Match, replacement: str) -> str:
    return text[: match.start()] + replacement + text[match.end():]


def _line_op(text: str, rng: random.Random, lines_allowed: list[int] | None = None) -> tuple[str, str, set[int]] | None:
    lines = text.splitlines(keepends=True)
    choices = lines_allowed if lines_allowed is not None else list(range(1, len(lines) + 1))
    if not choices:
        return None
    k = rng.choice(choices)
    roll = rng.randrange(3)
    if roll == 0:
        return "".join(lines[: k - 1] + lines[k:]), f"delete line {k}", {k}
    if roll == 1:
        return "".join(lines[:k] + lines[k - 1:]), f"duplicate line {k}", {k}
    if k < len(lines) and (lines_allowed is None or k + 1 in lines_allowed):
        swapped = lines[: k - 1] + [lines[k], lines[k - 1]] + lines[k + 1:]
        return "".join(swapped), f"swap lines {k} and {k + 1}", {k, k + 1}
    return "".join(lines[: k - 1] + lines[k:]), f"delete line {k}", {k}


def _random_bytes(text: str, rng: random.Random, lines_allowed: list[int] | None = None) -> tuple[bytes, str, set[int]] | None:
    data = text.encode("utf-8")
    if lines_allowed is not None:
        if not lines_allowed:
            return None
        line = rng.choice(lines_allowed)
        starts = [0] + [m.end() for m in re.finditer(rb"\n", data)]
        if line > len(starts):
            return None
        at = starts[line - 1]
    else:
        at = rng.randrange(len(data) + 1)
        line = _line_of(text, len(data[:at].decode("utf-8", "ignore")))
    blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
    return data[:at] + blob + data[at:], f"insert bytes {blob!r} at byte {at}", {line}


def _general_tdl(base: Base, rng: random.Random) -> Mutant | None:
    text = base.text
    op = rng.randrange(7)
    if op == 6:  # a branch, loop or jump decided at run time
        lines = text.splitlines(keepends=True)
        inside = [k for k, line in enumerate(lines, start=1) if "SPAWN" in line or line.strip().endswith(");")]
        if inside:
            k = rng.choice(inside)
            flow = rng.choice(FLOW)
            before_motion = "Move" in lines[k - 1] and not flow.startswith("Label")
            return Mutant(base, "".join(lines[: k - 1] + [f"    {flow}\n"] + lines[k - 1:]), f"insert {flow!r} before line {k}", "general",
                          frozenset({k}), run_time_order=before_motion)
    if op == 0:
        numbers = _tokens(_TDL_TOKEN, text, "number")
        if numbers:
            m = rng.choice(numbers)
            new = rng.choice(NUMBERS)
            return Mutant(base, _replace(text, m, new), f"number {m.group()!r} at line {_line_of(text, m.start())} -> {new}", "general",
                          frozenset({_line_of(text, m.start())}))
    if op == 1:
        names = [m for m in _tokens(_TDL_TOKEN, text, "name") if m.group() not in _KEYWORDS]
        if names:
            m = rng.choice(names)
            new = rng.choice(NAMES)
            return Mutant(base, _replace(text, m, new), f"name {m.group()!r} at line {_line_of(text, m.start())} -> {new}", "general",
                          frozenset({_line_of(text, m.start())}))
    if op == 2:
        done = _line_op(text, rng)
        if done:
            return Mutant(base, done[0], done[1], "general", frozenset(done[2]))
    if op == 3:
        moves = [m for m in re.finditer(r"\b(MoveLinear|MoveJoint)\b", text)]
        if moves:
            m = rng.choice(moves)
            new = "MoveJoint" if m.group() == "MoveLinear" else "MoveLinear"
            return Mutant(base, _replace(text, m, new), f"{m.group()} at line {_line_of(text, m.start())} -> {new}", "general",
                          frozenset({_line_of(text, m.start())}))
    if op == 4:
        done = _random_bytes(text, rng)
        if done:
            return Mutant(base, done[0], done[1], "general", frozenset(done[2]))
    if op == 5:  # several edits at once
        first = _general_tdl(base, rng)
        if first is not None and isinstance(first.text, str):
            second = _general_tdl(Base(base.name, first.text, base.kind, base.cell, base.instruction), rng)
            if second is not None:
                return Mutant(base, second.text, f"{first.mutation}; then {second.mutation}", "general", first.lines | second.lines)
    return None


def needed_spans(report: Report) -> list[Span]:
    """Where the plan writes values the checks need: the pose, number and value arguments of its commands and
    its DEFINEs' poses (a DEFINE is evaluated wherever it is used)."""
    plan = report.plan
    spans: list[Span] = []
    if plan is None or not plan.parsed:
        return spans
    for step in plan.steps:
        spec = catalogue.lookup(step.command)
        if spec is None:
            continue
        for param in spec.params:
            value = step.args.get(param.name)
            if value is not None and param.type in ("pose", "pose_list", "number", "value") and getattr(value, "span", None):
                spans.append(value.span)
    spans += [d.value.span for d in plan.definitions if d.kind == "define" and getattr(d.value, "span", None)]
    return spans


def _inside(line: int, column: int, end_column: int, span: Span) -> bool:
    return (line, column) >= (span.line, span.column) and (line, end_column) <= (span.end_line, span.end_column)


def _position(text: str, match: re.Match) -> tuple[int, int, int]:
    line = _line_of(text, match.start())
    start = text.rfind("\n", 0, match.start()) + 1
    column = match.start() - start + 1
    return line, column, column + len(match.group())


def _unevaluable_tdl(base: Base, baseline: Report, rng: random.Random) -> Mutant | None:
    """A token of a needed value (for a rejected seed preferably one inside a finding that rejected it) made unevaluable."""
    text = base.text
    spans = needed_spans(baseline)
    causes = [f.span for f in baseline.findings if f.severity is Severity.CRITICAL and f.span is not None]
    candidates = []
    for m in _TDL_TOKEN.finditer(text):
        if not (m.group("number") or (m.group("name") and m.group() not in _KEYWORDS)):
            continue
        line, column, end = _position(text, m)
        if any(_inside(line, column, end, s) for s in spans):
            in_cause = any(_inside(line, column, end, s) for s in causes)
            candidates.append((m, line, in_cause))
    if not candidates:
        return None
    aimed = [c for c in candidates if c[2]]
    m, line, in_cause = rng.choice(aimed if aimed and rng.random() < 0.7 else candidates)
    new = rng.choice(UNEVALUABLE)
    where = "the rejection's cause" if in_cause else "a needed value"
    return Mutant(base, _replace(text, m, new), f"{where}: {m.group()!r} at line {line} -> {new}", "unevaluable", frozenset({line}))


def cause_region_end(report: Report) -> int | None:
    """The last line any CRITICAL finding of a rejected plan depends on (its line, and every line of the
    steps up to its step: where the robot is and what it holds come from them); None when the plan's
    rejection depends on the whole text (a syntax error, the semantic stage) or its execution order is
    not its text order (a GOAL that calls another)."""
    plan = report.plan
    critical = [f for f in report.findings if f.severity is Severity.CRITICAL]
    if plan is None or not plan.parsed or not critical or any(g.called_by for g in plan.goals):
        return None
    if any(f.category in (Category.SYNTAX, Category.SEMANTIC) for f in critical):
        return None
    end = 0
    for f in critical:
        if f.span is not None:
            end = max(end, f.span.end_line)
        if f.step is not None:
            end = max(end, *(s.span.end_line for s in plan.steps[: f.step] if s.span is not None))
    return end or None


def _untouched_tdl(base: Base, baseline: Report, rng: random.Random) -> Mutant | None:
    """A rejected seed mutated only after everything its rejection depends on."""
    end = cause_region_end(baseline)
    if end is None:
        return None
    text = base.text
    total = text.count("\n") + 1
    after = list(range(end + 1, total + 1))
    if not after:
        return None
    op = rng.randrange(4)
    if op == 0:
        done = _line_op(text, rng, after)
        return Mutant(base, done[0], done[1], "untouched", frozenset(done[2])) if done else None
    if op == 1:
        done = _random_bytes(text, rng, after)
        return Mutant(base, done[0], done[1], "untouched", frozenset(done[2])) if done else None
    tokens = [m for m in _TDL_TOKEN.finditer(text) if (m.group("number") or m.group("name")) and _line_of(text, m.start()) > end
              and m.group() not in _KEYWORDS]
    if not tokens:
        return None
    m = rng.choice(tokens)
    new = rng.choice(NUMBERS if m.group("number") else NAMES)
    line = _line_of(text, m.start())
    return Mutant(base, _replace(text, m, new), f"after line {end}: {m.group()!r} at line {line} -> {new}", "untouched", frozenset({line}))


def _json_mutant(base: Base, rng: random.Random) -> Mutant | None:
    text = base.text
    op = rng.randrange(5)
    if op == 0:
        numbers = _tokens(_JSON_TOKEN, text, "number")
        if numbers:
            m = rng.choice(numbers)
            new = rng.choice(JSON_NUMBERS)
            return Mutant(base, _replace(text, m, new), f"number {m.group()} -> {new}", "json", frozenset({_line_of(text, m.start())}))
    if op == 1:
        strings = _tokens(_JSON_TOKEN, text, "string")
        if strings:
            m = rng.choice(strings)
            new = rng.choice(('"foo"', '"Pos_99"', '""', "NaN", "1e999", '"nan"'))
            return Mutant(base, _replace(text, m, new), f"string {m.group()} -> {new}", "json", frozenset({_line_of(text, m.start())}))
    if op == 2:
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        steps = data if isinstance(data, list) else data.get("steps") if isinstance(data, dict) else None
        if isinstance(steps, list) and steps:
            k = rng.randrange(len(steps))
            how = rng.randrange(3)
            if how == 0:
                del steps[k]
            elif how == 1:
                steps.insert(k, json.loads(json.dumps(steps[k])))
            elif k + 1 < len(steps):
                steps[k], steps[k + 1] = steps[k + 1], steps[k]
            step = steps[min(k, len(steps) - 1)] if steps else None
            if how == 2 and isinstance(step, dict) and rng.random() < 0.5:
                step["velocity"] = rng.choice([float("nan"), float("inf"), 1e308, -0.0, 1e12])
            return Mutant(base, json.dumps(data, indent=2, allow_nan=True), f"step {k + 1}: {('delete', 'duplicate', 'swap/velocity')[how]}",
                          "json")
    if op == 3:
        done = _line_op(text, rng)
        if done:
            return Mutant(base, done[0], done[1], "json", frozenset(done[2]))
    done = _random_bytes(text, rng)
    return Mutant(base, done[0], done[1], "json", frozenset(done[2])) if done else None


def _actions_mutant(base: Base, rng: random.Random) -> Mutant | None:
    text = base.text
    op = rng.randrange(4)
    if op == 0:
        numbers = _tokens(_YAML_TOKEN, text, "number")
        if numbers:
            m = rng.choice(numbers)
            new = rng.choice(YAML_NUMBERS)
            return Mutant(base, _replace(text, m, new), f"number {m.group()} at line {_line_of(text, m.start())} -> {new}", "actions")
    if op == 1:
        words = _tokens(_YAML_TOKEN, text, "word")
        if words:
            m = rng.choice(words)
            new = rng.choice(("foo", "{expression: foo}", "{expression: \"GetAnalogInput(1)\"}", ".nan", "[1, 2]"))
            return Mutant(base, _replace(text, m, new), f"word {m.group()} at line {_line_of(text, m.start())} -> {new}", "actions")
    if op == 2:
        done = _line_op(text, rng)
        if done:
            return Mutant(base, done[0], done[1], "actions", frozenset(done[2]))
    done = _random_bytes(text, rng)
    return Mutant(base, done[0], done[1], "actions", frozenset(done[2])) if done else None


def _without_verification(text: str) -> str:
    """An approved file as the seed system writes them: no verification block (it is re-verified, not hash-checked)."""
    at = text.find("\n  verification:")
    return text[: at + 1] if at >= 0 else text


# --------------------------------------------------------------------------- the campaign


@lru_cache(maxsize=1)
def campaign() -> Campaign:
    """Every seed and mutant, run once per level (the properties only read the results)."""
    from plan_verifier.actions import approved_yaml

    rng = random.Random(MUTATION_SEED)
    baselines: dict[str, dict[str, Run]] = {}
    mutants: list[Mutant] = []
    actions_bases: list[Base] = []
    for base in _tdl_bases():
        standard = run(base.text, base.cell, "STANDARD")
        baselines[base.name] = {"STANDARD": standard}
        report = standard.report
        if report is None:
            continue
        mutants += [m for m in (_general_tdl(base, rng) for _ in range(GENERAL_PER_BASE)) if m is not None]
        syntax = any(f.category is Category.SYNTAX and f.severity is Severity.CRITICAL for f in report.findings)
        if not syntax:
            mutants += [m for m in (_unevaluable_tdl(base, report, rng) for _ in range(UNEVALUABLE_PER_BASE)) if m is not None]
        if not report.approved:
            mutants += [m for m in (_untouched_tdl(base, report, rng) for _ in range(UNTOUCHED_PER_BASE)) if m is not None]
        elif len(actions_bases) < 12:
            text, _ = approved_yaml(report, correlation_id="fuzz", robot="ur10e", graph_fingerprint=None, timestamp="2026-01-01T00:00:00Z")
            actions_bases.append(Base(f"actions/{base.name}", text, "actions"))
    for base in _json_bases():
        standard = run(base.text, base.cell, "STANDARD")
        baselines[base.name] = {"STANDARD": standard}
        mutants += [m for m in (_json_mutant(base, rng) for _ in range(JSON_PER_BASE)) if m is not None]
        report = standard.report
        if report is not None and report.approved and len(actions_bases) < 18:
            text, _ = approved_yaml(report, correlation_id="fuzz", robot="ur10e", graph_fingerprint=report.cell.fingerprint,
                                    timestamp="2026-01-01T00:00:00Z")
            actions_bases.append(Base(f"actions/{base.name}", text, "actions", base.cell))
    for base in actions_bases:
        for variant in (base, Base(base.name + " (no verification block)", _without_verification(base.text), "actions", base.cell)):
            mutants += [m for m in (_actions_mutant(variant, rng) for _ in range(ACTIONS_PER_BASE)) if m is not None]
    for k, mutant in enumerate(mutants):
        base = mutant.base
        levels = ["STANDARD"]
        if base.kind == "tdl":
            levels.append("BASIC")
        if k % 3 == 0 and mutant.family != "actions":
            levels.append("FULL")
        for level in levels:
            mutant.runs[level] = run(mutant.text, base.cell, level, base.instruction)
    return Campaign(baselines, mutants)


def explained(report: Report) -> bool:
    """A finding says why a value could not be evaluated (a syntax rule, an undefined name, a run-time value, a
    motion not simulated)."""
    return any(f.severity is Severity.CRITICAL and f.rule_id.startswith(RULES_THAT_EXPLAIN) for f in report.findings)


def listing(failures: list[str], limit: int = 12) -> str:
    shown = "\n  ".join(failures[:limit])
    return f"{len(failures)} input(s):\n  {shown}" + ("\n  ..." if len(failures) > limit else "")
