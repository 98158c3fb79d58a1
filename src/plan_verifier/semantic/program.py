"""What a program does, in the instruction's terms: which object is grasped where and released where.

TDL programs are read from the shared gripper timeline: every grasp and the
release after it is a `Transfer`, and each end of it a `Spot` with the place
and object evidence found around it — the name of the pose it happens at
(`Red_Cube_Pick`, `p_bin3_drop`), the names of the other poses of that pick
or place cycle, the `//` comments on those steps and `PrintLog` messages
(read with the same English/Korean readers as the instruction), and its
coordinates. JSON plans are read from their routines (a routine named like
"pick" grasps, "place" releases, weld/inspect/screw routines are work) and
the cell's position names and descriptions. Commanded speeds, visits and
work routines complete the picture.

Evidence is kept with where it came from (`identifier`, `comment`, `cell`),
because a pose name is stronger evidence than a comment, and a program that
names nothing gives nothing to compare — which the rules report as such.
"""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from collections import OrderedDict
from typing import TYPE_CHECKING

from plan_verifier.analysis.timeline import GripperAction, Timeline
from plan_verifier.findings import Span
from plan_verifier.ir import Plan, Ref, Step, Text, Unresolved
from plan_verifier.kinematics.chain import flange_position
from plan_verifier.semantic.activity import CELL, COMMENT, IDENTIFIER, Activity, Named, Spot, Transfer, Visit, Work
from plan_verifier.semantic.clauses import PlaceRef
from plan_verifier.semantic.language import canon, has_hangul, identifier_words
from plan_verifier.semantic.names import ARROW, identifier_evidence, name_places, text_evidence
from plan_verifier.semantic.vocabulary import vocabulary

if TYPE_CHECKING:
    from plan_verifier.graph.model import Cell
    from plan_verifier.robots.spec import RobotSpec

_SOURCE_TOKENS = re.compile(r'"(?:[^"\\\r\n]|\\.)*"|\'(?:[^\'\\\r\n]|\\.)*\'|(//|#)([^\r\n]*)')
_WELD_COMMANDS = frozenset({"SpotWeld", "ArcOn"})
_TOOL_ROUTINES = {"tool_attach": "attach", "tool_release": "detach"}


def read_program(plan: Plan, timeline: Timeline | None, cell: "Cell | None", robot: "RobotSpec") -> Activity:
    """The program's activity, remembered per program text, robot and cell (by identity): a planner's retry of the same
    plan against another instruction, or the same one again, reads the program once."""
    key = (plan.format, plan.source, id(robot), id(cell))
    with _REMEMBERED_LOCK:
        hit = _REMEMBERED.get(key)
        if hit is not None and hit[0] is robot and hit[1] is cell:
            _REMEMBERED.move_to_end(key)
            return hit[2]
    activity = _read_json(plan, cell) if plan.format == "json" else _read_tdl(plan, timeline, robot)
    with _REMEMBERED_LOCK:
        _REMEMBERED[key] = (robot, cell, activity)  # the robot and cell are kept, so their ids cannot be reused meanwhile
        while len(_REMEMBERED) > _REMEMBER:
            _REMEMBERED.popitem(last=False)
    return activity


def forget_programs() -> None:
    """Forget the remembered activities (what a new plan costs is measured this way: `benchmarks/bench_semantic.py`)."""
    with _REMEMBERED_LOCK:
        _REMEMBERED.clear()


#: How many programs' activities a process remembers.
_REMEMBER = 32
_REMEMBERED: "OrderedDict[tuple, tuple[RobotSpec, Cell | None, Activity]]" = OrderedDict()
_REMEMBERED_LOCK = threading.Lock()


# --------------------------------------------------------------------------- TDL


def _read_tdl(plan: Plan, timeline: Timeline | None, robot: "RobotSpec") -> Activity:
    comments = _step_comments(plan)
    steps = plan.steps
    names = _assigned_names(plan)
    if _letters_enumerate_poses(steps, names):
        names = {**{s.index: s.target_name for s in steps if s.target_name}, **names}
        names = {k: _without_letters(n) for k, n in names.items()}
    # Only grasps and releases delimit pick and place cycles: the gripper opened at start-up holds nothing.
    actions = tuple(a for a in (timeline.gripper if timeline is not None else ()) if a.grasps or a.releases)
    transfers: list[Transfer] = []
    bounds = _windows(actions, len(steps))
    spots = [_tdl_spot(a, bounds[k], steps, comments, names, side="grasp" if a.grasps else "release") for k, a in enumerate(actions)]
    k = 0
    while k < len(actions):
        action = actions[k]
        if action.grasps:
            release = next((j for j in range(k + 1, len(actions)) if actions[j].releases), None)
            first = bounds[k][0]
            last = bounds[release][1] if release is not None else bounds[k][1]
            speeds = tuple((s, v) for s in steps[first - 1:last] if (v := _linear_speed(s)) is not None)
            put = spots[release] if release is not None else None
            if put is not None:
                put = _with_route_goal(put, steps[bounds[k][0] - 1:bounds[k][1]], comments)
            transfers.append(Transfer(len(transfers), spots[k], put, speeds, action.delay_after is not None))
            k = release + 1 if release is not None else k + 1
            continue
        k += 1
    visits = tuple(_tdl_visit(s, comments, names, robot) for s in steps if s.action == "command" and s.is_motion)
    works = tuple(Work(s, "weld", s.command, Spot(s, None), None, None) for s in steps if s.command in _WELD_COMMANDS)
    speeds = tuple((s, v) for s in steps if (v := _linear_speed(s)) is not None)
    gripper = len(timeline.gripper) if timeline is not None else 0
    return Activity("tdl", tuple(transfers), visits, works, speeds, gripper)


def _linear_speed(step: Step) -> float | None:
    """A commanded Cartesian speed (mm/s); joint moves are deg/s and say nothing about "gently"."""
    if step.command == "SetTaskVelocity":
        return step.number("mm_per_sec")
    if step.is_motion and step.command != "MoveJoint" and not step.command.startswith(("MoveJ", "Movej")):
        return step.number("velocity")
    return None


def _windows(actions: tuple[GripperAction, ...], n_steps: int) -> list[tuple[int, int]]:
    """The steps (1-based, inclusive) that belong to each gripper action: from after the previous action's
    lift/retreat to this action's own lift/retreat."""
    out = []
    start = 1
    for a in actions:
        end = a.move_after.step.index if a.move_after is not None and _rises(a) else a.step.index
        out.append((start, max(end, a.step.index)))
        start = max(end, a.step.index) + 1
    return out


def _rises(action: GripperAction) -> bool:
    """The move after a gripper action is its lift or retreat (straight up from where it acted), not already the way
    to somewhere else, whose comments name the next place or object. Unknown positions count as a lift."""
    here, there = action.position.xyz if action.position is not None else None, action.move_after.xyz
    if here is None or there is None:
        return True
    return abs(here[0] - there[0]) <= _LIFT_XY_MM and abs(here[1] - there[1]) <= _LIFT_XY_MM


#: How far sideways a lift or retreat may drift from the grasp or release point (mm).
_LIFT_XY_MM = 30.0


def _tdl_spot(action: GripperAction, window: tuple[int, int], steps: tuple[Step, ...], comments: dict, names: dict[int, str],
              side: str) -> Spot:
    at = action.position
    xyz = at.xyz if at is not None else None
    places: list[Named] = []
    objects: list[Named] = []
    pose = at.step if at is not None else None
    first, last = window
    window_steps = steps[first - 1:last]
    # The pose the gripper acts at names the place most directly; the cycle's other poses and comments next.
    ordered = ([pose] if pose is not None else []) + [s for s in reversed(window_steps) if s is not pose]
    identifiers = []
    for s in ordered:
        name = names.get(s.index) or s.target_name
        if name:
            identifiers.append(Named(name, IDENTIFIER, s.index, s.arg_span("target_pose")))
            objects += [Named(name, IDENTIFIER, s.index, s.arg_span("target_pose"), obj=x, known=known)
                        for x, known in identifier_evidence(name)[0]]
    # A move of the cycle to another spot (a stop on the way, a via point off to the side) names that spot, not where
    # the gripper acts: its name and comments still say what is carried, but no place of this grasp or release.
    here = [n for n in identifiers if not _elsewhere(next(s for s in ordered if s.index == n.step), xyz)]
    places += identifier_places(tuple(here), pose is not None and bool(here) and here[0].step == pose.index)
    for s in window_steps:
        elsewhere = s is not pose and _elsewhere(s, xyz)
        for text, span in comments.get(s.index, ()):
            o, p = text_evidence(text)
            objects += [Named(text, COMMENT, s.index, span, obj=x, known=known) for x, known in o]
            places += [Named(text, COMMENT, s.index, span, place=x) for role, x in p
                       if _fits(role, side) and x.key != "home" and not elsewhere]
        message = s.args.get("message") if s.command in ("PrintLog", "Popup") else None
        if isinstance(message, Text):
            o, p = text_evidence(message.value)
            objects += [Named(message.value, COMMENT, s.index, message.span or s.span, obj=x, known=known) for x, known in o]
            places += [Named(message.value, COMMENT, s.index, message.span or s.span, place=x) for role, x in p
                       if _fits(role, side) and x.key != "home"]
    posed = pose is not None and bool(identifiers) and identifiers[0].step == pose.index
    return Spot(action.step, xyz, _unique(places), _unique(objects), names=tuple(identifiers), posed=posed)


def _with_route_goal(release: Spot, grasp_steps: tuple[Step, ...], comments: dict) -> Spot:
    """The release with the end of the route a comment or log message of its cycle's pick half names ("[1] growler:
    filler outlet → tasting bench", `PrintLog("병: 시음대 → 품질실 전달 위치")`): a heading says where the thing goes
    as plainly as a comment at the release. It is one more piece of evidence there (a Korean heading for an English pose
    name); where it says another place than the release's own names, the program contradicts itself and the rules
    abstain."""
    goals: list[Named] = []
    for s in grasp_steps:
        texts = [(text, span) for text, span in comments.get(s.index, ())]
        message = s.args.get("message") if s.command in ("PrintLog", "Popup") else None
        if isinstance(message, Text):
            texts.append((message.value, message.span or s.span))
        for text, span in texts:
            if not ARROW.search(text):
                continue
            goals += [Named(text, COMMENT, s.index, span, place=x) for role, x in text_evidence(text)[1] if role == "goal" and x.key != "home"]
    if not goals:
        return release
    return replace(release, places=_unique(list(release.places) + goals))


#: How far to the side of the grasp or release point a move of its cycle goes to another spot (mm): an approach or
#: retreat is straight above it; a stop on the way ("hold it in front of the camera") or a via point is elsewhere.
_ELSEWHERE_MM = 100.0


def _elsewhere(step: Step, xyz: tuple[float, ...] | None) -> bool:
    """Is this move of the cycle to a Cartesian target well to the side of where the gripper acts?"""
    if xyz is None or step.target is None or getattr(step.target, "kind", None) != "cartesian":
        return False
    x, y, _ = step.target.xyz()
    return abs(x - xyz[0]) > _ELSEWHERE_MM or abs(y - xyz[1]) > _ELSEWHERE_MM


def identifier_places(identifiers: tuple[Named, ...], posed: bool, carried: tuple[str, ...] = ()) -> list[Named]:
    """The places a cycle's identifiers name: the pose it acts at always, the other poses only until one names a place
    (and never home: the way out of a cycle is no place of it); read against the carried object's words if given."""
    places: list[Named] = []
    for k, n in enumerate(identifiers):
        at_pose = posed and k == 0
        if at_pose or not places:
            places += [Named(n.quote, IDENTIFIER, n.step, n.span, place=x) for x in name_places(n.quote, carried) if at_pose or x.key != "home"]
    return places


def _unique(named: list[Named]) -> tuple[Named, ...]:
    """The first mention of each object or place (a name beats a comment, as they come in that order)."""
    seen: set = set()
    out = []
    for n in named:
        key = (n.place.key, n.place.kind, n.place.label, n.place.side, n.source == COMMENT) if n.place is not None else \
            (n.obj.noun, n.obj.color, n.obj.material, n.obj.size, n.obj.generic, n.known, n.source == COMMENT)
        if key not in seen:
            seen.add(key)
            out.append(n)
    return tuple(out)


def _fits(role: str, side: str) -> bool:
    """A comment "from A to B" in a pick cycle names the pick place A; in a place cycle B; "hold it at the reader" a stop
    of a move, never where the gripper acts."""
    if role == "stop":
        return side == "visit"
    if role == "source":
        return side == "grasp"
    if role == "goal":
        return side == "release" or side == "visit"
    return True


def _tdl_visit(step: Step, comments: dict, names: dict[int, str], robot: "RobotSpec") -> Visit:
    places: list[Named] = []
    name = names.get(step.index) or step.target_name
    home = False
    identifiers = (Named(name, IDENTIFIER, step.index, step.arg_span("target_pose")),) if name else ()
    places += identifier_places(identifiers, True)
    for text, span in comments.get(step.index, ()):
        _, p = text_evidence(text)
        # (a heading's stop "A → reader → B" is on the way somewhere after this move, not where it goes)
        places += [Named(text, COMMENT, step.index, span, place=x) for role, x in p if role != "source" and not (role == "stop" and ARROW.search(text))]
    home = any(n.place is not None and n.place.key == "home" for n in places)
    places = list(_unique(places))
    xyz = None
    if step.target is not None and step.target.kind == "cartesian":
        xyz = step.target.xyz()
    elif step.target is not None and step.target.kind == "joint":
        xyz = flange_position(robot, step.target.values)
    return Visit(step, xyz, tuple(places), home, identifiers)


def _letters_enumerate_poses(steps: tuple[Step, ...], names: dict[int, str]) -> bool:
    """`Pos_A` … `Pos_D` for an approach, a grasp, an approach and a release: letters that count poses, not places.

    A letter that names a place is shared by the poses at that place (`A_Approach`, `A_Grasp` above each other);
    when two poses at one spot (same x, y within 5 mm) carry different letters, the letters only number the poses
    and say nothing about the instruction's "position A"."""
    at: dict[tuple[int, int], set[str]] = {}
    for s in steps:
        name = names.get(s.index) or s.target_name
        if not name or s.target is None or s.target.kind != "cartesian":
            continue
        letters = {p.label for p in identifier_evidence(name)[1] if p.label and len(p.label) == 1 and p.kind is None}
        if letters:
            x, y, _ = s.target.xyz()
            at.setdefault((round(x / 5), round(y / 5)), set()).update(letters)
    return any(len(letters) > 1 for letters in at.values())


def _without_letters(name: str) -> str:
    words = identifier_words(name)
    return "_".join(w for k, w in enumerate(words) if not (len(w) == 1 and w.isupper() and not (k + 1 < len(words) and words[k + 1].isdigit())))


def _assigned_names(plan: Plan) -> dict[int, str]:
    """Moves to an `Assign`ed variable whose target the reader did not name (positional dialect)."""
    out = {}
    for s in plan.steps:
        if s.is_motion and not s.target_name:
            value = s.args.get("target_pose")
            if isinstance(value, Ref):
                out[s.index] = value.name
            elif isinstance(s.params.get("target_pose"), Unresolved):
                out[s.index] = s.params["target_pose"].text
    return out


# --------------------------------------------------------------------------- JSON


def _read_json(plan: Plan, cell: "Cell | None") -> Activity:
    transfers: list[Transfer] = []
    works: list[Work] = []
    visits: list[Visit] = []
    tools = tool_objects(cell)
    held: list[Spot] = []  # grasps not yet released, latest last
    for s in plan.steps:
        if s.action == "move":
            spot = _cell_spot(s, s.target_name or s.position, cell)
            home = any(n.place is not None and n.place.key == "home" for n in spot.places)
            visits.append(Visit(s, spot.xyz, spot.places, home))
        if s.action != "routine" or not s.routine:
            continue
        kind = cell.routines[s.routine].kind if cell is not None and s.routine in cell.routines else None
        action = routine_action(s.routine, kind)
        spot = _cell_spot(s, s.position, cell)
        tool_object = tools.get(s.tool or "") if s.tool else None
        if action == "pick":
            held.append(spot)
        elif action == "place":
            # A place routine with nothing picked before it places what the robot already holds.
            grasp = held.pop() if held else Spot(s, None)
            transfers.append(Transfer(len(transfers), grasp, spot, (), True))
        works.append(Work(s, action, s.routine, spot, s.tool, tool_object))
    for grasp in held:
        transfers.append(Transfer(len(transfers), grasp, None, (), True))
    transfers = [Transfer(n, t.grasp, t.release, t.speeds, t.delay_after_grasp)
                 for n, t in enumerate(sorted(transfers, key=lambda t: t.grasp.step.index))]
    speeds = tuple((s, v) for s in plan.steps if (v := _json_speed(s)) is not None)
    positions = frozenset(canon(p) for p in cell.positions) if cell is not None else frozenset()
    return Activity("json", tuple(transfers), tuple(visits), tuple(works), speeds, 0, frozenset(tools.values()), positions)


def _json_speed(step: Step) -> float | None:
    value = step.number("velocity")
    if value is None:
        raw = step.fields.get("velocity")
        value = float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None
    return value


def _cell_spot(step: Step, position: str | None, cell: "Cell | None") -> Spot:
    if not position:
        return Spot(step, None)
    places = [Named(position, CELL, step.index, step.span, place=PlaceRef(position, canon(position), "cell"))]
    objects: list[Named] = []
    xyz = None
    pos = cell.positions.get(position) if cell is not None else None
    if pos is not None:
        if pos.role == "home":
            places.append(Named(position, CELL, step.index, step.span, place=PlaceRef(position, "home", "home")))
        if pos.pose is not None:
            xyz = tuple(pos.pose[:3])
    o, p = identifier_evidence(position)
    places += [Named(position, CELL, step.index, step.span, place=x) for x in p]
    if pos is not None and pos.description:
        from plan_verifier.semantic.english import noun_phrases

        o2, p2 = text_evidence(pos.description)
        if not o2 and not p2 and not has_hangul(pos.description):
            named_objects, named_places = noun_phrases(pos.description)  # "Seam 2 with its inspection point"
            o2 = tuple((o, True) for o in named_objects)
            p2 = tuple(("location", x) for x in named_places)
        places += [Named(pos.description, CELL, step.index, step.span, place=x) for _, x in p2]
        objects += [Named(pos.description, CELL, step.index, step.span, obj=x, known=k) for x, k in o2]
    return Spot(step, xyz, _unique(places), _unique(objects), position)


def routine_action(name: str, kind: str | None) -> str:
    """What a routine does in the instruction's words: attach, detach, or the action a verb in its name says."""
    if kind in _TOOL_ROUTINES:
        return _TOOL_ROUTINES[kind]
    if name in _TOOL_ROUTINES:
        return _TOOL_ROUTINES[name]
    from plan_verifier.semantic.language import verb_lemma

    actions = vocabulary().en_actions
    words = [w.lower() for w in identifier_words(name)]
    for a, b in zip(words, words[1:]):
        if f"{a} {b}" in actions:
            return actions[f"{a} {b}"]
    for w in words:
        lemma = verb_lemma(w)
        if lemma in actions:
            return actions[lemma]
    from plan_verifier.semantic.english import compound_verb

    return next((a for a in (compound_verb(w, vocabulary()) for w in words) if a), None) or canon(name)


def tool_objects(cell: "Cell | None") -> dict[str, str]:
    """The cell's tools as object classes: `Welder` -> welder, `Camera` (inspection_camera) -> camera."""
    if cell is None:
        return {}
    v = vocabulary()
    out = {}
    for tool in cell.tools.values():
        words = [w.lower() for w in identifier_words(tool.name) + (identifier_words(tool.type) if tool.type else ())]
        out[tool.name] = next((v.en_objects[w] for w in words if w in v.en_objects), None) or canon(tool.name)
    return out


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
        by_line[number] = (text, Span(number, column + 1, number, len(line.rstrip("\r")) + 1), not line[:column].strip())
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
        texts = tuple((t, s) for t, s in found if t and not set(t) <= set("=-*/# "))
        if texts:
            out[step.index] = texts
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
