"""The default semantic grader: deterministic comparison, no model (seed 004 §0.1).

The instruction is read into an `Intent` and the plan into a `PlanView`; the
checks compare them for the categories of seed 000 §2.4. Every check needs
evidence on both sides before it speaks (an instruction object and a plan
that names objects; a source label and a grasp at a labelled place), so a plan
that says nothing checkable is passed with a low confidence rather than
rejected on a guess. Confidences: 0.9 when the plan's own identifiers or
coordinates contradict the instruction, 0.8 when only its comments do.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable

from plan_verifier.ir import fmt_number
from plan_verifier.semantic.assessment import Assessment, Issue, decide
from plan_verifier.semantic.instruction import Intent, read_instruction
from plan_verifier.semantic.lexicon import canon
from plan_verifier.semantic.plan_view import GripEvent, ObjectMention, PlanView, Visit, routine_action, tool_objects, view_plan

if TYPE_CHECKING:
    from plan_verifier.context import RuleContext

NAME = "rule_check"
#: Highest commanded speed that still reads as "gently"/"slowly" (mm/s); option `gentle_velocity_mm_s`.
GENTLE_VELOCITY_MM_S = 250.0
#: A grasp/release point matches coordinates given in the instruction within this horizontal distance (mm) ...
NEAR_XY_MM = 30.0
#: ... and this height band above them (approach and grip heights sit above the named point).
NEAR_Z_MM = (-50.0, 300.0)
_WORK_VERBS = ("weld", "inspect")
_STRONG, _WEAK = 0.9, 0.8


class RuleCheckGrader:
    name = NAME

    def assess(self, ctx: "RuleContext") -> Assessment:
        cell_positions = tuple(ctx.cell.positions) if ctx.cell is not None else ()
        tool_values = tool_objects(ctx.cell)
        intent = read_instruction(ctx.instruction or "", cell_positions, _work_routine_names(ctx), tuple(sorted(tool_values.items())))
        view = view_plan(ctx)
        tools = tool_values
        cap = float((ctx.options or {}).get("gentle_velocity_mm_s", GENTLE_VELOCITY_MM_S))
        issues: list[Issue] = []
        issues += _objects(intent, view)
        issues += _manner(intent, view, cap)
        issues += _firm_grip(intent, view)
        work = _work_runs(intent, view, _work_actions(ctx))
        names = _place_names(intent, cell_positions)
        issues += _routine_actions(intent, view, work)
        location = _locations(intent, view, work, names)
        issues += location
        if not location:
            issues += _sequence(intent, view, names, work)
        issues += _missing(intent, view, ctx.plan.format, tools, work)
        return decide(NAME, issues, _pass_confidence(intent, view))


def _issue(category: str, message: str, confidence: float, step=None, span=None, suggestion=None, **evidence) -> Issue:
    evidence = {k: v for k, v in evidence.items() if v is not None}
    return Issue(category, message, confidence, NAME, step, span, evidence, suggestion)


def _strength(evidence: str | None) -> float:
    return _STRONG if evidence == "identifier" else _WEAK


# --------------------------------------------------------------------------- objects


def _objects(intent: Intent, view: PlanView) -> list[Issue]:
    """Object mismatch: the plan names another object (or another colour) than the instruction."""
    wanted = intent.objects
    containers = {c.value for c in intent.containers}
    mentioned = [m for m in view.objects if m.value not in containers]
    if not wanted or not mentioned:
        return []
    issues: list[Issue] = []
    wanted_nouns = list(dict.fromkeys(o.value for o in wanted))
    for obj in wanted:
        if obj.color is None:
            continue
        same_noun = [m for m in mentioned if m.value == obj.value]
        clashing = [m for m in same_noun if m.color and m.color != obj.color]
        if clashing and not any(m.color == obj.color for m in same_noun):
            m = _best(clashing)
            issues.append(_issue("object", f"Object mismatch: the instruction asks for the {obj.color} {obj.value}, but the plan "
                                 f"uses the {m.color} {m.value} ('{m.text}')", _strength(m.evidence), m.step, m.span,
                                 f"Use the {obj.color} {obj.value} named in the instruction", expected=f"{obj.color} {obj.value}",
                                 found=f"{m.color} {m.value}", where=m.text))
    others = [m for m in mentioned if m.value not in wanted_nouns]
    for noun in wanted_nouns:
        if others and not any(m.value == noun for m in mentioned):
            m = _best(others)
            issues.append(_issue("object", f"Object mismatch: the instruction asks for the {noun}, but the plan handles the "
                                 f"{m.value} ('{m.text}')", _strength(m.evidence), m.step, m.span,
                                 f"Handle the {noun} named in the instruction", expected=noun, found=m.value, where=m.text))
    return issues


def _best(mentions: list[ObjectMention]) -> ObjectMention:
    """Identifier evidence first, then the earliest mention."""
    return sorted(mentions, key=lambda m: (m.evidence != "identifier", m.step if m.step is not None else -1))[0]


# --------------------------------------------------------------------------- action and parameters


def _manner(intent: Intent, view: PlanView, cap: float) -> list[Issue]:
    """"gently"/"slowly"/"천천히" against the commanded speeds."""
    if not intent.gentle or not view.speeds:
        return []
    fast = [(step, v) for step, v in view.speeds if v > cap]
    if not fast:
        return []
    step, v = max(fast, key=lambda sv: sv[1])
    word = intent.gentle[0].text
    confidence = round(0.6 + 0.3 * min(1.0, v / cap - 1.0), 3)
    param = "mm_per_sec" if step.command == "SetTaskVelocity" else "velocity"
    return [_issue("action", f"Velocity {fmt_number(v)} mm/s contradicts '{word}' in the instruction (at most "
                   f"{fmt_number(cap)} mm/s expected)", confidence, step.index, step.arg_span(param),
                   f"Lower the velocity to {fmt_number(cap)} mm/s or less", manner=word, velocity=v, limit=cap,
                   steps=[s.index for s, _ in fast])]


def _firm_grip(intent: Intent, view: PlanView) -> list[Issue]:
    """"Grip the part tightly" needs time for the gripper to close (seed 000 §2.3, confidence 75)."""
    if not intent.firm:
        return []
    word = intent.firm[0].text
    return [_issue("action", f"Missing delay after the gripper closes: the instruction asks to grip '{word}'", 0.75,
                   g.action.step.index, g.action.step.span, "Add Delay(duration_sec=0.5) after closing the gripper", manner=word)
            for g in view.grasps if g.action.delay_after is None]


def _work_runs(intent: Intent, view: PlanView, work_actions: frozenset[str]) -> dict[str, tuple[list[str], list, str]]:
    """For each work verb (weld, inspect, what a cell routine does, a routine named verbatim): its places and runs."""
    out = {}
    for verb in sorted(intent.verbs):
        if verb in _WORK_VERBS or verb in work_actions or verb.startswith("routine:"):
            places = [p.value for p in intent.places if p.verb == verb and p.value != "home"]
            out[verb] = (list(dict.fromkeys(places)), [r for r in view.routines if _does(r, verb)], _verb_text(verb, intent))
    return out


def _does(run, verb: str) -> bool:
    """A routine run counts for "weld" by kind, for `routine:seamweld` only by name."""
    return canon(run.name) == verb[len("routine:"):] if verb.startswith("routine:") else run.action == verb


def _verb_text(verb: str, intent: Intent) -> str:
    """How a message says the verb: as the instruction wrote a routine name, else the verb."""
    if verb.startswith("routine:"):
        return next((a.text for a in intent.actions if a.value == verb), verb[len("routine:"):])
    return verb


def _work_actions(ctx: "RuleContext") -> frozenset[str]:
    """The verbs the cell's work routines answer to (`pick_part` -> pick)."""
    if ctx.cell is None:
        return frozenset()
    return frozenset(routine_action(r.name, r.kind) for r in ctx.cell.routines.values()) - {"attach", "detach"}


def _work_routine_names(ctx: "RuleContext") -> tuple[str, ...]:
    if ctx.cell is None:
        return ()
    return tuple(sorted(r.name for r in ctx.cell.routines.values() if r.kind not in ("tool_attach", "tool_release")
                        and r.name not in ("tool_attach", "tool_release")))


def _routine_actions(intent: Intent, view: PlanView, work: dict) -> list[Issue]:
    """Action mismatch: at the place the instruction names, the plan runs a different routine."""
    issues = []
    for verb, (places, runs, said) in work.items():
        if runs:
            continue
        for place in places:
            other = _unclaimed(view, work, place)
            if other is not None:
                issues.append(_issue("action", f"Action mismatch: the instruction asks to {said} at {other.position}, but the plan "
                                     f"runs '{other.name}' there", 0.85, other.step.index, other.step.span,
                                     f"Run the {said} routine at {other.position}", expected=said, found=other.name))
    return issues


def _unclaimed(view: PlanView, work: dict, place: str):
    """A work routine run at `place` that none of the instruction's work verbs asked for."""
    claimed = {id(r) for _, runs, _ in work.values() for r in runs}
    return next((r for r in view.routines if r.position and canon(r.position) == place and id(r) not in claimed
                 and r.action not in ("attach", "detach")), None)


# --------------------------------------------------------------------------- locations


def _locations(intent: Intent, view: PlanView, work: dict, names: dict[str, str]) -> list[Issue]:
    issues = _work_locations(view, work, names)
    coords = {p.value: p.coords for p in intent.places if p.coords is not None}
    sources = {p.value for p in intent.places_with("source")} - {"home"}
    destinations = {p.value for p in intent.places_with("destination")} - {"home"}
    if view.grasps or view.releases:
        issues += _grip_locations(view, sources, destinations, coords, names)
    elif not work and destinations:
        issues += _move_locations(view, destinations, coords, names)
    return issues


def _work_locations(view: PlanView, work: dict, names: dict[str, str]) -> list[Issue]:
    """Every place the instruction names for a routine gets a run there."""
    issues = []
    for verb, (places, runs, said) in work.items():
        at = {canon(r.position) for r in runs if r.position}
        for place in places:
            if not runs or place in at:
                continue
            stray = next((r for r in runs if r.position and canon(r.position) not in places), None)
            if stray is not None:
                issues.append(_issue("location", f"Location error: the plan runs '{stray.name}' at {stray.position}, but the "
                                     f"instruction says to {said} at {_label(place, names)}", _STRONG, stray.step.index,
                                     stray.step.span, f"Run '{stray.name}' at {_label(place, names)}",
                                     expected=_label(place, names), found=stray.position))
            else:
                run = runs[0]
                issues.append(_issue("location", f"Location error: the instruction says to {said} at {_label(place, names)}, but "
                                     f"the plan runs '{run.name}' only at {', '.join(sorted({r.position for r in runs}))}", _WEAK,
                                     run.step.index, run.step.span, f"Run '{run.name}' at {_label(place, names)}",
                                     expected=_label(place, names), found=sorted({r.position for r in runs})))
    return issues


def _grip_locations(view: PlanView, sources: set[str], destinations: set[str], coords: dict, names: dict[str, str]) -> list[Issue]:
    """Source/destination: grasps happen at a source, releases at a destination."""
    wrong_grasp = _misplaced(view.grasps, sources, destinations, coords)
    wrong_release = _misplaced(view.releases, destinations, sources, coords)
    if wrong_grasp and wrong_release and wrong_grasp[2] and wrong_release[2]:
        g, r = wrong_grasp[0], wrong_release[0]
        return [_issue("location", f"Location error: source and destination are swapped: the plan picks up at "
                       f"{_labels(wrong_grasp[1], names)} and places at {_labels(wrong_release[1], names)}, but the instruction says from "
                       f"{_labels(sources, names)} to {_labels(destinations, names)}", max(wrong_grasp[3], wrong_release[3]),
                       g.action.step.index, g.action.step.span, "Pick up at the source and place at the destination",
                       expected_source=sorted(sources), expected_destination=sorted(destinations),
                       grasp_step=g.action.step.index, release_step=r.action.step.index)]
    issues = []
    for found, verb, want in ((wrong_grasp, "picks up", sources), (wrong_release, "places", destinations)):
        if found:
            event, labels, swapped, confidence = found
            extra = " (the other end of the transfer)" if swapped else ""
            issues.append(_issue("location", f"Location error: the plan {verb} at {_labels(labels, names)}{extra}, but the instruction "
                                 f"says {_labels(want, names)}", confidence, event.action.step.index, event.action.step.span,
                                 f"{verb.capitalize()} at {_labels(want, names)}", expected=sorted(want), found=sorted(labels)))
    return issues


def _misplaced(events: Iterable[GripEvent], wanted: set[str], other: set[str], coords: dict):
    """The first event at a labelled place that is not a wanted one: (event, labels, at_other_end, confidence)."""
    if not wanted:
        return None
    for event in events:
        labels, evidence = _event_labels(event, coords)
        labels.discard("home")
        if not labels or labels & wanted:
            continue
        swapped = bool(labels & other)
        return event, labels, swapped, _strength(evidence) if swapped else _WEAK
    return None


def _event_labels(event: GripEvent, coords: dict) -> tuple[set[str], str | None]:
    visit = event.visit
    if visit is None:
        return set(), None
    near = {label for label, c in coords.items() if _near(visit.xyz, c)}
    if near:
        return near, "identifier"  # coordinates are as strong as a name
    return set(visit.labels), visit.evidence


def _near(xyz, target) -> bool:
    if xyz is None:
        return False
    dz = xyz[2] - target[2]
    return math.hypot(xyz[0] - target[0], xyz[1] - target[1]) <= NEAR_XY_MM and NEAR_Z_MM[0] <= dz <= NEAR_Z_MM[1]


def _move_locations(view: PlanView, destinations: set[str], coords: dict, names: dict[str, str]) -> list[Issue]:
    """A plan that only moves: it must reach a place the instruction names."""
    labelled: list[tuple[Visit, set[str], str | None]] = []
    for visit in view.visits:
        near = {label for label, c in coords.items() if _near(visit.xyz, c)}
        labels = (near or set(visit.labels)) - {"home"}
        if labels:
            labelled.append((visit, labels, "identifier" if near else visit.evidence))
    if not labelled or any(labels & destinations for _, labels, _ in labelled):
        return []
    visit, labels, evidence = labelled[0]
    return [_issue("location", f"Location error: the plan moves to {_labels(labels, names)}, but the instruction says "
                   f"{_labels(destinations, names)}", _strength(evidence) - 0.05, visit.step.index, visit.step.span,
                   f"Move to {_labels(destinations, names)}", expected=sorted(destinations), found=sorted(labels))]


# --------------------------------------------------------------------------- sequence


def _sequence(intent: Intent, view: PlanView, names: dict[str, str], work: dict) -> list[Issue]:
    """"A then B": the plan must reach A before B (and handle objects in the order named)."""
    if not intent.ordered:
        return []
    sequence = list(intent.place_sequence)
    if sequence and sequence[-1] == "home" and not (view.visits and view.visits[-1].home):
        sequence.pop()  # "... then return home" without the final move home is a missing step, not an order error
    when = {}
    for i, label in enumerate(sequence):
        at = view.last_visit(label) if label == "home" and i == len(sequence) - 1 else view.first_visit(label)
        if at is not None:
            when[label] = at
    visited = [label for label in sequence if label in when]
    for a, b in zip(visited, visited[1:]):
        if when[a] > when[b]:
            step = view.visits[[v.step.index for v in view.visits].index(when[b])].step
            return [_issue("sequence", f"Sequence error: the instruction says {_label(a, names)} then {_label(b, names)}, but the plan "
                           f"reaches {_label(b, names)} (step {when[b]}) before {_label(a, names)} (step {when[a]})", _STRONG, step.index,
                           step.span, f"Go to {_label(a, names)} before {_label(b, names)}", expected=[_label(a, names), _label(b, names)],
                           found=[_label(b, names), _label(a, names)])]
    verbs = [v for v in dict.fromkeys(a.value for a in intent.actions) if v in work and work[v][1]]
    first_run = {v: min(r.step.index for r in work[v][1]) for v in verbs}
    for a, b in zip(verbs, verbs[1:]):
        if first_run[a] > first_run[b]:
            run = next(r for r in work[b][1] if r.step.index == first_run[b])
            said_a, said_b = work[a][2], work[b][2]
            return [_issue("sequence", f"Sequence error: the instruction says '{said_a}' then '{said_b}', but the plan "
                           f"runs '{run.name}' first (step {run.step.index})", _STRONG, run.step.index, run.step.span,
                           f"Run the {said_a} step first", expected=[said_a, said_b], found=[said_b, said_a])]
    objects = intent.object_sequence
    if len(objects) >= 2:
        first = {}
        for m in view.objects:
            if m.step is not None and m.value in objects and m.value not in first:
                first[m.value] = m
        named = [o for o in objects if o in first]
        for a, b in zip(named, named[1:]):
            if first[a].step > first[b].step:
                m = first[b]
                return [_issue("sequence", f"Sequence error: the instruction handles the {a} before the {b}, but the plan "
                               f"starts with the {b} (step {m.step})", _WEAK + 0.05, m.step, m.span,
                               f"Handle the {a} first", expected=[a, b], found=[b, a])]
    return []


# --------------------------------------------------------------------------- missing steps


def _missing(intent: Intent, view: PlanView, fmt: str, tools: dict[str, str], work: dict) -> list[Issue]:
    issues: list[Issue] = []
    verbs = intent.verbs
    if fmt == "tdl":
        issues += _missing_grip(intent, view)
    else:
        issues += _missing_tool_steps(intent, view, tools)
    for verb, (places, runs, said) in work.items():
        if not runs and not any(_unclaimed(view, work, place) for place in places):
            issues.append(_issue("missing", f"Missing step: the instruction asks to {said}, but the plan never does",
                                 _STRONG if fmt == "json" else _WEAK, suggestion=f"Add the {said} step", missing=said))
    if "home" in {p.value for p in intent.places if p.role == "destination"} and ("return" in verbs or "move" in verbs):
        homes = [v for v in view.visits if v.home]
        last = view.visits[-1] if view.visits else None
        if homes and last is not None and not last.home:
            issues.append(_issue("missing", "Missing step: the instruction asks to return home, but the plan ends elsewhere",
                                 _WEAK, last.step.index, last.step.span, "End with a move to the home position", missing="return home"))
    return issues


def _missing_grip(intent: Intent, view: PlanView) -> list[Issue]:
    verbs = intent.verbs
    carried = {o.value for o in intent.objects if o.verb in ("pick", "transfer", "move")}
    needs_grasp = "pick" in verbs or bool(carried)
    placed = sum(1 for a in intent.actions if a.value == "place") + len({o.value for o in intent.objects if o.verb in ("transfer", "move")})
    if needs_grasp and not view.grasps:
        what = " or ".join(sorted(carried)) or "the object"
        return [_issue("missing", f"Missing step: the instruction asks to pick up the {what}, but the plan never closes the gripper",
                       _STRONG, suggestion="Add the approach, descend, close-gripper and lift steps", missing="grasp")]
    issues = []
    if len(carried) > len(view.grasps) >= 1:
        issues.append(_issue("missing", f"Missing step: the instruction names {len(carried)} objects to pick up, but the plan "
                             f"grasps {len(view.grasps)} time(s)", _WEAK, missing="grasp", expected=len(carried), found=len(view.grasps)))
    if placed and view.grasps and len(view.releases) < placed:
        confidence = 0.85 if not view.releases else _WEAK
        issues.append(_issue("missing", "Missing step: the instruction asks to put the object down, but the plan "
                             + ("never releases it" if not view.releases else f"releases only {len(view.releases)} of {placed}"),
                             confidence, suggestion="Add the descend, open-gripper and retreat steps", missing="release"))
    return issues


def _missing_tool_steps(intent: Intent, view: PlanView, tools: dict[str, str]) -> list[Issue]:
    """JSON plans: picking up a tool is tool_attach, putting it back is tool_release (of that tool).

    `tools` maps the cell's tool names to the objects they are (`Welder` -> welder).
    """
    issues = []
    for obj in intent.objects:
        if obj.value not in tools.values():
            continue
        want = {"pick": "attach", "attach": "attach", "place": "detach", "detach": "detach"}.get(obj.verb or "")
        if want and not any(r.action == want and tools.get(r.tool or "", obj.value) == obj.value for r in view.routines):
            routine = "tool_attach" if want == "attach" else "tool_release"
            issues.append(_issue("missing", f"Missing step: the instruction asks to {want} the {obj.value}, but the plan never "
                                 f"runs {routine}", _STRONG, suggestion=f"Add a {routine} step for the {obj.value}", missing=routine))
    return list({i.message: i for i in issues}.values())


# --------------------------------------------------------------------------- confidence


def _pass_confidence(intent: Intent, view: PlanView) -> float:
    """How much of the instruction the plan visibly covers: 0.5 with no evidence, up to 0.95."""
    if intent.size == 0:
        return 0.5
    named = {m.value for m in view.objects}
    visited = set().union(*(v.labels for v in view.visits)) if view.visits else set()
    covered = sum(1 for o in intent.object_sequence if o in named) + sum(1 for p in intent.place_sequence if p in visited)
    covered += sum(1 for v in intent.verbs if _verb_covered(v, view)) + bool(intent.gentle) + bool(intent.firm)
    return round(0.5 + 0.45 * covered / intent.size, 3)


def _verb_covered(verb: str, view: PlanView) -> bool:
    if verb.startswith("routine:"):
        return any(_does(r, verb) for r in view.routines)
    if verb == "pick":
        return bool(view.grasps) or any(r.action == "attach" for r in view.routines)
    if verb == "place":
        return bool(view.releases) or any(r.action == "detach" for r in view.routines)
    if verb in ("move", "return", "transfer"):
        return bool(view.visits)
    return any(r.action == verb for r in view.routines)


def _place_names(intent: Intent, cell_positions: tuple[str, ...]) -> dict[str, str]:
    """How messages name a place label: as the cell or the instruction writes it (`pos1` -> `Pos_1`)."""
    names = {p.value: p.text.split("(")[0].strip() for p in intent.places if len(p.value) > 1}
    names.update({canon(name): name for name in cell_positions})
    return names


def _label(value: str, names: dict[str, str]) -> str:
    return value.upper() if len(value) == 1 else names.get(value, value)


def _labels(values: Iterable[str], names: dict[str, str]) -> str:
    return "/".join(_label(v, names) for v in sorted(values))

