"""What a plan says about objects, places, order and speed, read from the IR.

The semantic comparison needs the plan in the instruction's terms: which
objects it names (identifiers such as `Blue_Block_Pose`, comments, log
messages, HEADER values, JSON tools and step names), which places it visits
and in what order (letter labels in names and comments, cell positions,
coordinates), where it grasps and releases (the shared gripper timeline),
which routines it runs where, and how fast it moves. Comments are evidence
too: generators describe each step in one ("// Approach source A"), so the
comment directly above a statement, or at its end, is read with it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from plan_verifier.analysis.timeline import GripperAction
from plan_verifier.findings import Span
from plan_verifier.graph.model import TOOL_ATTACH, TOOL_RELEASE
from plan_verifier.ir import Plan, Ref, Step, Text, Unresolved
from plan_verifier.semantic.instruction import text_mentions
from plan_verifier.semantic.lexicon import canon, identifier_words, lexicon

if TYPE_CHECKING:
    from plan_verifier.context import RuleContext

_SOURCE_TOKENS = re.compile(r'"(?:[^"\\\r\n]|\\.)*"|\'(?:[^\'\\\r\n]|\\.)*\'|(//|#)([^\r\n]*)')
_PLACE_NOUNS = frozenset({"pos", "position", "point", "station", "table"})
_WELD_COMMANDS = frozenset({"SpotWeld", "ArcOn"})
_IDENTIFIER, _TEXT = "identifier", "text"


@dataclass(frozen=True, slots=True)
class ObjectMention:
    value: str  # canonical object noun
    color: str | None
    step: int | None
    span: Span | None
    evidence: str  # identifier | text
    text: str


@dataclass(frozen=True, slots=True)
class Visit:
    """A motion step and the places it is known to reach."""

    step: Step
    labels: frozenset[str]
    xyz: tuple[float, float, float] | None
    home: bool
    evidence: str | None  # identifier | text | None (no label)


@dataclass(frozen=True, slots=True)
class RoutineRun:
    step: Step
    name: str
    action: str  # attach | detach | weld | inspect | the routine's own canonical name
    position: str | None
    tool: str | None


@dataclass(frozen=True, slots=True)
class GripEvent:
    action: GripperAction
    visit: Visit | None


@dataclass(frozen=True)
class PlanView:
    objects: tuple[ObjectMention, ...]
    visits: tuple[Visit, ...]
    grasps: tuple[GripEvent, ...]
    releases: tuple[GripEvent, ...]
    routines: tuple[RoutineRun, ...]
    speeds: tuple[tuple[Step, float], ...]  # commanded speeds (mm/s): motion velocities and SetTaskVelocity

    def first_visit(self, label: str) -> int | None:
        return next((v.step.index for v in self.visits if label in v.labels), None)

    def last_visit(self, label: str) -> int | None:
        return next((v.step.index for v in reversed(self.visits) if label in v.labels), None)


def view_plan(ctx: "RuleContext") -> PlanView:
    plan = ctx.plan
    cell_positions = tuple(ctx.cell.positions) if ctx.cell is not None else ()
    comments = _step_comments(plan) if plan.format == "tdl" else {}
    step_texts = {step.index: _texts(step, comments, plan.format) for step in plan.steps}
    header = [(entry.value, entry.span) for entry in plan.header if isinstance(entry.value, str)]
    flat = [t for t, _ in header] + [t for texts in step_texts.values() for t, _ in texts]
    mentions = iter(text_mentions(tuple(flat), cell_positions) if flat else ())
    tools = tool_objects(ctx.cell)

    objects: list[ObjectMention] = []
    visits: list[Visit] = []
    routines: list[RoutineRun] = []
    speeds: list[tuple[Step, float]] = []
    visit_of: dict[int, Visit] = {}
    for d in plan.definitions:
        if d.kind == "define":
            objects.extend(_identifier_objects(d.name, d.step, d.name_span))
    for text, span in header:
        objects.extend(_text_objects(text, next(mentions)[0], None, span))
    for step in plan.steps:
        found = [(text, span, next(mentions)) for text, span in step_texts[step.index]]
        for text, span, (named, _places) in found:
            objects.extend(_text_objects(text, named, step.index, span))
        if step.command == "Assign":
            name = _assigned_name(step)
            if name:
                objects.extend(_identifier_objects(name, step.index, step.arg_span("destination")))
        if step.target_name and plan.format == "tdl":
            objects.extend(_identifier_objects(step.target_name, step.index, step.arg_span("target_pose")))
        if step.tool:
            tool = tools.get(step.tool)
            objects.extend([ObjectMention(tool, None, step.index, step.span, _IDENTIFIER, step.tool)] if tool
                           else _identifier_objects(step.tool, step.index, step.span))

        if step.target is not None or step.action == "move":
            visit = _visit(step, [places for _, _, (_, places) in found], ctx)
            visits.append(visit)
            visit_of[step.index] = visit
        if step.action == "routine" and step.routine:
            routines.append(_routine(step, ctx))
        elif step.command in _WELD_COMMANDS:
            routines.append(RoutineRun(step, step.command, "weld", None, None))
        speed = step.number("velocity") if step.is_motion else step.number("mm_per_sec") if step.command == "SetTaskVelocity" else None
        if speed is not None:
            speeds.append((step, speed))

    grasps: list[GripEvent] = []
    releases: list[GripEvent] = []
    if plan.format == "tdl":
        for action in ctx.timeline.gripper:
            event = GripEvent(action, visit_of.get(action.position.step.index) if action.position else None)
            if action.grasps:
                grasps.append(event)
            elif action.releases:
                releases.append(event)
    return PlanView(tuple(objects), tuple(visits), tuple(grasps), tuple(releases), tuple(routines), tuple(speeds))


def _texts(step: Step, comments: dict, fmt: str) -> list[tuple[str, Span | None]]:
    """The free text that describes a step: its comments, its log message, a JSON step's name."""
    texts = list(comments.get(step.index, ()))
    if step.command in ("PrintLog", "Popup"):
        message = step.args.get("message")
        if isinstance(message, Text):
            texts.append((message.value, message.span or step.span))
    if fmt == "json" and step.name:
        texts.append((step.name, step.span))
    return texts


# --------------------------------------------------------------------------- objects


def _identifier_objects(name: str, step: int | None, span: Span | None) -> list[ObjectMention]:
    return [ObjectMention(noun, color, step, span, _IDENTIFIER, name) for noun, color in _identifier_nouns(name)]


@functools.lru_cache(maxsize=4096)
def _identifier_nouns(name: str) -> tuple[tuple[str, str | None], ...]:
    """`Blue_Block_Pose` -> (("block", "blue"),). Colours count only right before their noun."""
    lex = lexicon()
    words = identifier_words(name)
    out = []
    for i, word in enumerate(words):
        noun = lex.objects.canonical(word)
        if noun is None:
            continue
        if noun == "orange" and i + 1 < len(words) and words[i + 1] in lex.objects:
            continue
        out.append((noun, lex.colors.canonical(words[i - 1]) if i > 0 else None))
    return tuple(out)


def _text_objects(text: str, named, step: int | None, span: Span | None) -> list[ObjectMention]:
    return [ObjectMention(o.value, o.color, step, span, _TEXT, text) for o in named]


def _assigned_name(step: Step) -> str | None:
    value = step.args.get("destination")
    if isinstance(value, Ref):
        return value.name
    raw = step.params.get("destination")
    return raw.text if isinstance(raw, Unresolved) else None


# --------------------------------------------------------------------------- places


def _visit(step: Step, text_places: list, ctx: "RuleContext") -> Visit:
    """`text_places`: the place mentions of each of the step's texts."""
    labels: set[str] = set()
    evidence = None
    home = False
    name = step.target_name
    if name:
        if ctx.cell is not None and name in ctx.cell.positions:
            labels.add(canon(name))
            home = ctx.cell.positions[name].role == "home" or canon(name) == "home"
        else:
            found = _identifier_labels(name)
            home = "home" in found
            labels |= found - {"home"}
        if labels:
            evidence = _IDENTIFIER
    if not labels:
        for places in text_places:
            named = {p.value for p in places if p.value != "home"}
            home = home or any(p.value == "home" for p in places)
            if len(named) == 1:  # "from A to B" in one comment says nothing about this step
                labels |= named
                evidence = _TEXT
    if home:
        labels.add("home")
        evidence = evidence or _IDENTIFIER
    xyz = None
    if step.target is not None and step.target.kind == "cartesian":
        xyz = step.target.xyz()
    elif step.target is not None and step.target.kind == "joint":
        xyz = ctx.robot.flange_position(step.target.values)
    return Visit(step, frozenset(labels), xyz, home, evidence)


@functools.lru_cache(maxsize=4096)
def _identifier_labels(name: str) -> frozenset[str]:
    """Place labels in an identifier: `A_Grasp_Pose` -> a, `pick_pos_2` -> pos2, `Home_Pose` -> home."""
    words = identifier_words(name)
    labels: set[str] = set()
    for i, word in enumerate(words):
        if len(word) == 1 and word.isupper() and word not in "XYZ":
            labels.add(word.lower())
        elif word.isdigit() and i > 0 and words[i - 1].lower() in _PLACE_NOUNS:
            noun = words[i - 1].lower()
            labels.add(("pos" if noun.startswith("pos") else noun) + str(int(word)))
        elif word.lower() == "home":
            labels.add("home")
    return frozenset(labels)


def _routine(step: Step, ctx: "RuleContext") -> RoutineRun:
    name = step.routine or ""
    kind = ctx.cell.routines[name].kind if ctx.cell is not None and name in ctx.cell.routines else None
    return RoutineRun(step, name, routine_action(name, kind), step.position, step.tool)


def routine_action(name: str, kind: str | None) -> str:
    """What a routine does in the instruction's words: attach, detach, a lexicon verb in its name, or its name."""
    if kind == TOOL_ATTACH or name == TOOL_ATTACH:
        return "attach"
    if kind == TOOL_RELEASE or name == TOOL_RELEASE:
        return "detach"
    actions = lexicon().actions
    return next((a for a in (actions.canonical(w) for w in identifier_words(name)) if a), None) or canon(name)


def tool_objects(cell) -> dict[str, str]:
    """The cell's tools as objects: `Welder` -> welder (the lexicon's word), `Gripper` -> gripper (its own name)."""
    if cell is None:
        return {}
    objects = lexicon().objects
    out = {}
    for tool in cell.tools.values():
        words = identifier_words(tool.name) + (identifier_words(tool.type) if tool.type else ())
        out[tool.name] = next((n for n in (objects.canonical(w) for w in words) if n), None) or canon(tool.name)
    return out


# --------------------------------------------------------------------------- comments


def _step_comments(plan: Plan) -> dict[int, tuple[tuple[str, Span], ...]]:
    """Each step's comments: the comment lines directly above it and the one at its end."""
    by_line: dict[int, tuple[str, Span, bool]] = {}
    for number, line in enumerate(plan.source.split("\n"), start=1):
        if "//" not in line and "#" not in line:
            continue
        column = _comment_start(line)
        if column < 0:
            continue
        marker = 2 if line.startswith("//", column) else 1
        text = line[column + marker:].strip()
        by_line[number] = (text, Span(number, column + 1, number, len(line.rstrip("\r"))), not line[:column].strip())
    if not by_line:
        return {}
    out: dict[int, tuple[tuple[str, Span], ...]] = {}
    for step in plan.steps:
        if step.span is None:
            continue
        found = []
        line = step.span.line - 1
        while line in by_line and by_line[line][2]:
            found.append(by_line[line][:2])
            line -= 1
        found.reverse()
        for line in range(step.span.line, step.span.end_line + 1):
            if line in by_line and not by_line[line][2]:
                found.append(by_line[line][:2])
        if found:
            out[step.index] = tuple((t, s) for t, s in found if t)
    return out


def _comment_start(line: str) -> int:
    """Where a `//` or `#` comment starts on this line, outside string literals (-1: none)."""
    if '"' not in line and "'" not in line:
        hits = [i for i in (line.find("//"), line.find("#")) if i >= 0]
        return min(hits) if hits else -1
    for m in _SOURCE_TOKENS.finditer(line):
        if m.group(1) is not None:
            return m.start()
    return -1
