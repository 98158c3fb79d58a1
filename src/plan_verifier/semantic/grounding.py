"""Which program transfer carries out which instruction task, and how each aspect relates: neutral facts.

Tasks (expanded by count, "both boxes" is two) are paired with the program's
transfers by evidence first — the object named, then the places — and only
then by order, so a reversed order or a swapped object shows as such instead of
being hidden by pairing in order. Each aspect of a pair is a `Comparison`: the
relation between what the instruction says and what the program says there
(`places.relate` for places: same, other kind, other designator, other words,
uncomparable; the same for objects: other class, colour, material, ordinal,
words), the program text it rests on, and whether the program contradicts
itself there. What a relation means — a CRITICAL finding, how confident, or an
abstention — is decided by the R-SEM rules (`rules/sem/_evidence.py`), not here.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from plan_verifier.semantic.activity import CELL, COMMENT, IDENTIFIER, Activity, Named, Spot, Transfer, Visit, Work
from plan_verifier.semantic.clauses import WORK, ObjectRef, PlaceRef
from plan_verifier.semantic.instruction import Instruction, Task
from plan_verifier.semantic.language import canon, has_hangul, identifier_words, similar
from plan_verifier.semantic.matching import overlaps, same_word
from plan_verifier.semantic.names import name_objects, route_end, word_groups
from plan_verifier.semantic.places import (CONTAINERS, OTHER_DESIGNATOR, OTHER_KIND, OTHER_WORDS, SAME, UNCOMPARABLE, VAGUE, free_words, kind_of,
                                          relate, words_of)
from plan_verifier.semantic.program import identifier_places
from plan_verifier.semantic.vocabulary import vocabulary

#: Relations of a comparison besides `places.relate`'s: the program names nothing to compare, another cell position,
#: other coordinates; for objects another class, colour, material or one of several ("the second box").
ABSENT, OTHER_POSITION, OTHER_COORDINATES = "absent", "other_position", "other_coordinates"
OTHER_CLASS, OTHER_COLOUR, OTHER_MATERIAL, OTHER_ORDINAL = "other_class", "other_colour", "other_material", "other_ordinal"
#: A put-down on a place where the instruction says on top of an object ("on the large box"), the object never named.
OTHER_SUPPORT = "other_support"
#: Relations in which the program names something else than the instruction, by kind.
DIFFERENT = frozenset({OTHER_KIND, OTHER_DESIGNATOR, OTHER_WORDS, OTHER_POSITION, OTHER_COORDINATES, OTHER_CLASS, OTHER_COLOUR,
                       OTHER_MATERIAL, OTHER_ORDINAL, OTHER_SUPPORT})
#: A grasp or release point matches coordinates given in the instruction within this horizontal distance (mm) ...
NEAR_XY_MM = 30.0
#: ... and this height band above them (approach and grip heights sit above the named point).
NEAR_Z_MM = (-50.0, 300.0)


@dataclass(frozen=True)
class Comparison:
    """How one aspect of a task (its object, source, destination, place of work) relates to what the program says."""

    relation: str  # same | other_* | uncomparable | absent
    found: Named | None = None  # the program text the relation rests on
    detail: str = ""  # what differs ("slot against bin"), or why nothing compares ("names nothing", "no transfer")
    #: The program names the instructed place or object there too, and something else as well (name and comment disagree).
    contradicted: bool = False

    @property
    def same(self) -> bool:
        return self.relation == SAME

    @property
    def differs(self) -> bool:
        return self.relation in DIFFERENT


def _score(c: Comparison, weight: int) -> int:
    """How a comparison weighs in pairing tasks with transfers: for (the program names it so), against, or neither (the
    task says nothing there, or the program names nothing comparable)."""
    return weight if c.same and c.found is not None else -weight if c.differs and not c.contradicted else 0


@dataclass(frozen=True)
class Pair:
    task: Task
    slot: int  # the task's position in the instruction's order
    transfer: Transfer | None
    object: Comparison
    source: Comparison
    destination: Comparison
    by_evidence: bool  # paired because object or place evidence singles this transfer out, not by order


@dataclass(frozen=True)
class Excluded:
    obj: ObjectRef
    transfer: Transfer
    found: Named


@dataclass(frozen=True)
class Grounding:
    instruction: Instruction
    activity: Activity
    pairs: tuple[Pair, ...]
    extra: tuple[Transfer, ...]  # transfers no task asked for
    excluded: tuple[Excluded, ...]  # transfers of objects the instruction excludes
    visits: tuple[tuple[Task, Visit | None, Comparison], ...]  # move_to tasks and the visit that reaches the place
    works: tuple[tuple[Task, Work | None, Comparison], ...]  # work/attach/detach tasks and the routine that does them
    excluded_works: tuple[tuple[str, object, Named], ...] = ()  # (what was ruled out, the step, the program's words)
    extra_works: tuple[Work, ...] = ()  # weld/inspect/screw routines no task asks for


def ground(instruction: Instruction, activity: Activity) -> Grounding:
    tasks = tuple(_as_tool_task(t, activity.tools) for t in instruction.tasks)
    if tasks != instruction.tasks:
        instruction = replace(instruction, tasks=tasks)
    named = list(instruction.objects) + list(instruction.excluded)
    known = {o.noun for o in named if o.noun}
    colours: dict[str, set] = {}
    for o in named:
        colours.setdefault(o.noun, set()).add(o.color)
    contrasted = {noun for noun, cs in colours.items() if len(cs) > 1}
    slots = _slots(instruction.tasks)
    pairs, extra = _align(slots, activity.transfers, known, contrasted, activity.positions)
    excluded = tuple(_excluded(instruction.excluded, activity.transfers, instruction.objects))
    visits = tuple(_visit(t, activity) for t in instruction.tasks if t.action == "move_to" and t.destination is not None)
    works = tuple(_work(t, activity) for t in instruction.tasks if t.action in WORK or t.action in ("attach", "detach"))
    excluded_works = tuple(_excluded_works(instruction, activity))
    done = {id(w) for _, w, c in works if w is not None and c.same}
    asked = {t.action for t in instruction.tasks if t.action in WORK}
    fetched = {t.obj.noun for t in instruction.tasks if t.action == "attach" and t.obj is not None and t.obj.noun}
    extra_works = tuple(w for w in activity.works if w.action in WORK and id(w) not in done and w.spot.position is not None
                        and (asked or instruction.tasks) and not any(w.action == a and _unplaced(instruction, a) for a in asked)
                        and not (w.action not in asked and _held(w, activity) in fetched))
    return Grounding(instruction, activity, pairs, extra, excluded, visits, works, excluded_works, extra_works)


def _held(work: Work, activity: Activity) -> str | None:
    """The tool (object class) attached when this routine runs: a routine done with a tool the instruction fetches
    ("fetch the screwdriver and drive the screws ...") is what the tool was fetched for."""
    held = None
    for w in activity.works:
        if w.step.index >= work.step.index:
            break
        if w.action == "attach":
            held = w.tool_object
        elif w.action == "detach":
            held = None
    return held


def _unplaced(instruction: Instruction, action: str) -> bool:
    """A work task without a place ("weld the seams") may be done anywhere: no run of it is extra."""
    return any(t.action == action and t.at is None for t in instruction.tasks)


def _as_tool_task(task: Task, tools: frozenset[str]) -> Task:
    """In a cell with tools, fetching a tool is attaching it and putting it back releasing it ("Fetch the welder")."""
    if task.obj is None or task.obj.noun not in tools:
        return task
    if task.action == "pick" or task.action in ("transfer", "handover", "insert") and task.destination is None or \
            task.action in ("place", "transfer", "insert") and _on_the_robot(task.destination):
        # "fit the gripper", "gripper 끼우고": a tool fitted with no place named is fitted on the arm; "put the camera on
        # the flange": the robot's mount is where a tool is fitted
        return replace(task, action="attach", source=None, destination=None)
    if task.action in ("place", "transfer", "return_home", "insert") or task.action == "handover":
        return replace(task, action="detach", source=None, destination=None)
    return task


def _on_the_robot(place: PlaceRef | None) -> bool:
    """Does the place name the robot's own tool mount (its head noun: "the flange", "the robot's wrist")?"""
    if place is None:
        return False
    mounts = vocabulary().constructions.mount_points
    head = place.obj.noun if place.obj is not None else (place.words[-1] if place.words else place.key)
    return head in mounts or place.text.lower().removeprefix("the ") in mounts  # "the tool flange", "플랜지"


def _excluded_works(instruction: Instruction, activity: Activity) -> Iterable[tuple[str, object, Named]]:
    """Routines and releases at places the instruction rules out ("don't weld seam 5", "not bin 3"),
    and tools it says to leave alone ("leave the screwdriver on its stand")."""
    # (a ruled-out place is said against the places asked for, to put a thing in or take it from: "프런트 데스크 말고 정비
    # 작업대에 있는 거")
    asked = [p for t in instruction.tasks for p in (t.destination, t.source) if p is not None]
    for action, place in instruction.excluded_places:
        visit = action == "move_to"
        if visit:
            action = None  # "don't stop at the bow rack", "don't go to the scale": no stop there, nothing put there
        if place.label is None and any(d.key == place.key and not _places_told_apart(place, d) for d in asked):
            # "not the bin" while asking for another bin: the class alone cannot tell the two apart ("the cooling rack"
            # and "the fridge shelf", told apart by their words, can)
            continue
        # a place of the class of a place asked for, told apart by its words: only a name with those words is it
        # (a visit ruled out by its class alone — "don't go near the drum" — is not said of a labelled bin asked for)
        named = _names_excluded if place.label is not None or not (visit or any(d.key == place.key for d in asked)) else _names_in_words
        worked = False
        for w in activity.works:
            if (action is None or w.action == action or action in ("place", "transfer") and w.action == "place") and \
                    named(place, compare_place(place, w.spot)):
                worked = True
                yield f"{action or 'use'} at {place.text}", w.step, Named(w.routine + (f" at {w.spot.position}" if w.spot.position else ""),
                                                                           CELL, w.step.index, w.step.span)
        released = False
        if action in (None, "place", "transfer", "insert", "stack"):
            for t in activity.transfers:
                c = compare_place(place, t.release, carried=_carried_by(t))
                if named(place, c) and c.found is not None and not c.contradicted:
                    released = True
                    yield f"put anything in {place.text}", t.release.step, c.found
        if (action is None or action == "inspect" and not worked) and not released:
            # "3D 스캐너는 거치지 마", "위 선반은 건드리지 마": no stop there either (the first one said); "캠버 게이지에 대지 말고",
            # "don't show it to the camera": holding the thing there is the inspection ruled out
            for visit in activity.visits:
                if activity.format == "json" and _waypoint(visit):
                    continue  # `Safe_Fixture`: the cell's path between two places runs past it, no stop there
                c = compare_place(place, Spot(visit.step, visit.xyz, visit.places))
                if named(place, c) and c.found is not None and not c.contradicted:
                    yield f"stop at {place.text}", visit.step, c.found
                    break
    for obj in instruction.excluded:
        for w in activity.works:
            if w.action == "attach" and w.tool_object is not None and obj.noun == w.tool_object:
                yield f"use the {obj.describe()}", w.step, Named(w.tool or w.routine, CELL, w.step.index, w.step.span)


def _places_told_apart(a: PlaceRef, b: PlaceRef) -> bool:
    """Do two places of one class name two places by their words ("the cooling rack", "the fridge shelf")?"""
    return relate(a, b).kind == OTHER_WORDS and bool(free_words(a)) and bool(free_words(b))


def _names_in_words(place: PlaceRef, c: Comparison) -> bool:
    """Is the program's place the excluded one by the excluded place's own words ("the cooling rack" and `CoolingRack`),
    not merely by its class (a bare `Shelf` may be the fridge shelf asked for)?"""
    found = c.found.place if c.found is not None else None
    return _names_excluded(place, c) and found is not None and overlaps(free_words(place), words_of(found))


def _names_excluded(place: PlaceRef, c: Comparison) -> bool:
    """Is the place the program names that very place the instruction rules out? Nothing telling two places apart is
    not enough here: "폐기 통 말고 부품 통 A에", "not the scrap bin, bin A" rule out one bin and ask for another of the
    kind. The exclusion's label, side or colour must be the program's too (or its key, `Pos_1`); without one, its own
    words must not differ from the program's where both can be compared — a program place told apart by a designator
    of its own ("부품 통 A") and by words the exclusion does not share is another place."""
    if not c.same:
        return False
    found = c.found.place if c.found is not None else None
    if found is None or found.kind == "cell":
        return True  # at the coordinates named; a cell position is the same only by its very name
    if place.label or place.side or place.color:
        return found.key == place.key or bool((found.label or not place.label) and (found.side or not place.side)
                                              and (found.color or not place.color))
    mine, theirs = free_words(place), free_words(found)
    if mine and overlaps(mine, words_of(found)):
        return True
    if kind_of(found) in (None, *VAGUE):
        return False  # "봉투 묶음 파지 위치": a position, which says nothing of being the wrapper not to be passed
    return not mine or not (theirs and _comparable(mine, theirs)) and not (found.label or found.side or found.color)


def _comparable(mine: tuple[str, ...], theirs: tuple[str, ...]) -> bool:
    """Can two lists of words be told apart? Hangul against Hangul, and Latin against Latin, always; Hangul against
    Latin only when every Hangul word has a reading the vocabulary knows ("폐기": scrap; "밀랍" has none here)."""
    hangul = [w for w in mine + theirs if has_hangul(w)]
    if not hangul or len(hangul) == len(mine + theirs):
        return True
    v = vocabulary()
    return all(w in v.ko_places or w in v.ko_objects or w in v.ko_qualifiers or w in v.ko_materials or w in v.ko_colors for w in hangul)


def _carried_by(transfer: Transfer) -> tuple[str, ...]:
    """The words a transfer's own names use for what it carries (`SprayCan_...`): set apart when its release is read."""
    return tuple(w for n in transfer.grasp.objects if n.obj is not None and n.source == IDENTIFIER for w in n.obj.text.lower().split())


# --------------------------------------------------------------------------- alignment


def _slots(tasks: Sequence[Task]) -> list[tuple[int, Task, bool]]:
    """(order, task, many): one slot per object to carry; "all"/"everything" takes every transfer left."""
    out = []
    for n, t in enumerate(tasks):
        if not (t.carries or t.action == "pick"):
            continue
        count = t.obj.count if t.obj is not None and t.obj.count else 1
        if count > 1 and _shares_count(t, tasks):
            count = 1
        if count < 0:
            out.append((n, t, True))
            continue
        out.extend((n, t, False) for _ in range(max(count, 1)))
    return out


def _shares_count(task: Task, tasks: Sequence[Task]) -> bool:
    """"김치 통 두 개 …: 체결대 거 먼저, 그다음 저울 거": the counted thing is split among tasks that each take one of them
    from a place of its own — as many tasks as the count says, each one thing."""
    same = [t for t in tasks if t.obj == task.obj and t.source is not None]
    return task.source is not None and len(same) == task.obj.count and len({t.source.text for t in same}) == len(same)


def carried_words(task: Task) -> tuple[str, ...]:
    """The instruction's words for the object a task handles: what the program's names for it are set apart by."""
    obj = task.obj
    if obj is None or obj.pronoun:
        return ()
    words = obj.words or ((obj.noun,) if obj.noun else ())
    v = vocabulary()
    english = {e for w in words for table in (v.ko_objects, v.ko_places) if (cls := table.get(w)) for e in _english_of(cls)}
    if obj.noun in v.object_classes and not all(w.isascii() for w in words):
        english |= set(_english_of(obj.noun))  # "유리병" (a bottle): `GlassJar`, `Vial_Pick`
    english |= {e for w in words if has_hangul(w) for e in v.measure_words.get(w, ()) if e.isascii()}  # "심지 묶음": `WickBundle`
    return tuple(dict.fromkeys(tuple(words) + tuple(sorted(english))))


@functools.lru_cache(maxsize=256)
def _english_of(cls: str) -> tuple[str, ...]:
    """The English words of a vocabulary class (a Korean object's English names, to find them in identifiers)."""
    v = vocabulary()
    return tuple(w for table in (v.en_objects, v.en_places) for w, c in table.items() if c == cls and " " not in w)


def _compare(task: Task, t: Transfer, known: set[str], contrasted: set[str], positions: frozenset[str]) -> tuple[Comparison, Comparison, Comparison]:
    carried = carried_words(task)
    thing = ((carried,) if carried else ()) + _thing_words(t)
    source = place_without_thing(task.source, thing)
    if task.action == "handover" and source is not None and t.release is not None and \
            compare_place(source, t.release, positions, carried).same:
        source = None  # "카운터에서 손님한테 건네줘", "at the counter": where the hand-over happens, not where it is picked up
    return (compare_object(task.obj, spot_objects(t.grasp, carried) + (spot_objects(t.release, carried) if t.release else ()), known,
                           contrasted),
            compare_place(source, t.grasp, positions, carried),
            compare_destination(place_without_thing(task.destination, thing), t.release, task.obj, positions, carried, _stacks(task)))


def stop_without_thing(place: PlaceRef | None, task: Task, t: Transfer) -> PlaceRef | None:
    """A stop on the way named with the thing in front ("test kit 스캐너 찍고": the kit, at the scanner), the thing's
    words left out as they are from a destination. The pose names' words for the thing count too (`TestKit_…_Grasp`):
    leaving them out only makes the stop vaguer, so the stage abstains rather than calls it missed."""
    carried, named = carried_words(task), _carried_by(t)
    return place_without_thing(place, ((carried,) if carried else ()) + ((named,) if named else ()) + _thing_words(t))


def _thing_words(t: Transfer) -> tuple[tuple[str, ...], ...]:
    """The program's words for what a transfer picks up (a comment's "서랍 앞판", a name's `Can`): in the instruction's
    place phrase they name the thing, not the place. Only a comment's object or one the vocabulary knows, never a
    container (the case it goes into): a pose name's unknown words are as likely a place (`Bottle_Capper_Grasp`)."""
    return tuple(dict.fromkeys(tuple(n.obj.words) or tuple(re.findall(r"\w+", (n.obj.text or "").lower())) for n in t.grasp.objects
                               if n.obj is not None and n.obj.noun is not None and (n.source == COMMENT or n.known) and
                               n.obj.noun not in CONTAINERS))


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]*|[\uac00-\ud7a3]+|\d+")
_ARTICLES = frozenset({"the", "a", "an"})


@functools.lru_cache(maxsize=4096)
def place_without_thing(place: PlaceRef | None, things: tuple[tuple[str, ...], ...]) -> PlaceRef | None:
    """The place phrase without the words that name the thing carried at that step ("drawer front 왼쪽 지그": the drawer
    front goes into the left jig — "front" is no side of the jig; "명함 묶음 출고 상자": the dispatch box), read again.

    `things`: each name of the thing, as its words. A phrase that starts with a word of the thing loses, in a phrase
    that switches script, the whole run of the first script (a thing named in one language, its place in the other);
    otherwise the leading words that name the thing whole ("볼트 출고 상자" for the 볼트, but not "the PET bin" for the
    PET bottle: a word the two share is no name of the thing). What is left is read as a place on its own; when nothing
    is left, or it reads as no place, the phrase stands as it was."""
    if place is None or not things or place.coords is not None or not place.text:
        return place
    words = [m for m in _WORD.finditer(place.text) if m.group().lower() not in _ARTICLES]
    if len(words) < 2:
        return place
    first = words[0].group().lower()
    named = [thing for thing in things if overlaps((first,), thing)]
    if not named:
        return place
    script = words[0].group().isascii()
    switch = next((k for k, m in enumerate(words) if m.group().isascii() != script), None)
    if switch is not None:
        cut = switch
    else:
        cut = next((k for k in range(1, len(words)) for thing in named
                    if all(overlaps((w,), tuple(m.group().lower() for m in words[:k])) for w in thing) and
                    all(overlaps((m.group().lower(),), thing) for m in words[:k])), len(words))
    if cut >= len(words):
        return place
    rest = place.text[words[cut].start():]
    read = [p for _, p in route_end(rest, goal=True)[1]]
    # (what is left must read as a place of a known kind: "the capper pls" is no "pls")
    return read[0] if len(read) == 1 and kind_of(read[0]) is not None and kind_of(read[0]) != "position" else place


def _stacks(task: Task) -> bool:
    """Does the task put its object on top of another ("stack", "on top of the large box", "위에")?"""
    return task.action == "stack" or task.destination is not None and bool(_STACKING.search(task.destination.text))


def _align(slots: list[tuple[int, Task, bool]], transfers: Sequence[Transfer], known: set[str], contrasted: set[str],
           positions: frozenset[str]):
    compared: dict[tuple[int, int], tuple[Comparison, Comparison, Comparison]] = {}
    # The common case first: the n-th transfer does the n-th task on every aspect. Then it is also what the full
    # comparison below would choose (every pair at the best score, ties go to the same position), at O(n) cost.
    if len(slots) == len(transfers) and not any(many for _, _, many in slots):
        for s, (_, task, _many) in enumerate(slots):
            t = transfers[s]
            c = _compare(task, t, known, contrasted, positions)
            if not all(x.same for x in c):
                break
            compared[(s, t.index)] = c
        else:
            return _pairs(slots, transfers, {s: s for s in range(len(slots))}, compared), ()
    scored = []
    for s, (_, task, _many) in enumerate(slots):
        for t in transfers:
            c = _compare(task, t, known, contrasted, positions)
            compared[(s, t.index)] = c
            score = _score(c[0], 3) + _score(c[1], 1) + _score(c[2], 1)
            scored.append((-score, abs(s - t.index), t.index, s))
    scored.sort()
    chosen: dict[int, int] = {}
    used: set[int] = set()
    for _, _, t, s in scored:
        if s in chosen or t in used or slots[s][2]:
            continue
        chosen[s] = t
        used.add(t)
    for s, (_, task, many) in enumerate(slots):
        if many:
            for t in transfers:
                if t.index not in used and not compared[(s, t.index)][0].differs:
                    used.add(t.index)
                    chosen.setdefault(s, t.index)
    extra = tuple(t for t in transfers if t.index not in used)
    return _pairs(slots, transfers, chosen, compared), extra


def _pairs(slots, transfers, chosen: dict[int, int], compared) -> tuple[Pair, ...]:
    pairs = []
    distinct_objects = _distinct([slots[s][1].obj for s in range(len(slots))])
    distinct_dest = _distinct_places([slots[s][1].destination for s in range(len(slots))])
    # ("the oyster tray on shelf 1 …, then the one on shelf 3 …": two things told apart only by where they are taken from)
    distinct_src = _distinct_places([slots[s][1].source for s in range(len(slots))])
    for s, (order, task, _many) in enumerate(slots):
        t = chosen.get(s)
        if t is None:
            empty = Comparison(ABSENT, detail="no transfer")
            pairs.append(Pair(task, order, None, empty, empty, empty, False))
            continue
        obj, src, dst = compared[(s, t)]
        by_evidence = (obj.same and distinct_objects and task.obj is not None and task.obj.noun is not None) or \
            (dst.same and distinct_dest) or (src.same and distinct_src)
        pairs.append(Pair(task, order, transfers[t], obj, src, dst, by_evidence))
    return tuple(pairs)


def _distinct(objects: list[ObjectRef | None]) -> bool:
    keys = [(o.noun, o.color) for o in objects if o is not None]
    return len(keys) == len(set(keys)) and len(keys) > 1


def _distinct_places(places: list[PlaceRef | None]) -> bool:
    keys = [p.key for p in places if p is not None]
    return len(keys) == len(set(keys)) and len(keys) > 1


# --------------------------------------------------------------------------- what the program says at a spot


def spot_places(spot: Spot, carried: tuple[str, ...] = ()) -> tuple[Named, ...]:
    """The places named at a spot; its identifiers read again with the carried object's words set apart."""
    if not carried:
        return spot.places
    if not spot.names:
        return tuple(_without_carried(n, carried) for n in spot.places if not _names_carried(n, carried))
    again = identifier_places(spot.names, spot.posed, carried)
    rest = [_without_carried(n, carried) for n in spot.places if n.source != IDENTIFIER and not _names_carried(n, carried)]
    return tuple(again) + tuple(rest)


def _without_carried(named: Named, carried: tuple[str, ...]) -> Named:
    """A comment's place with the words of the carried thing written before it set apart ("예약 도서 2번 분류함 위로 이송":
    the reserved book, then bin 2 — "예약" is no word of the bin's name)."""
    place = named.place
    if place is None:
        return named
    v = vocabulary()
    if place.kind and place.kind != "position" and any(v.en_places.get(w) == place.kind or v.ko_places.get(w) == place.kind
                                                       for w in carried) and \
            not any(v.en_places.get(w) == place.kind or v.ko_places.get(w) == place.kind for w in place.words):
        # "안장 클램프 정비사 전달 위치" for the seat clamp: the kind came from the carried thing's word (a clamp is also a
        # kind of fixture), none of the place's own words has it — the place has no kind
        place = replace(place, kind=None, key=canon(place.words[-1]) if place.words else place.key)
        named = replace(named, place=place)
    if len(place.words) < 2:
        return named
    head = place.words[-1]
    kept = tuple(w for w in place.words[:-1] if not overlaps((w,), carried)) + (head,)
    return named if kept == place.words else replace(named, place=replace(place, words=kept))


def spot_objects(spot: Spot, carried: tuple[str, ...] = ()) -> tuple[Named, ...]:
    """The objects named at a spot; its identifiers read again against the instruction's words for the object."""
    if not carried or not spot.names:
        return spot.objects
    again = [Named(n.quote, IDENTIFIER, n.step, n.span, obj=o, known=k) for n in spot.names for o, k in name_objects(n.quote, carried)]
    return tuple(again) + tuple(n for n in spot.objects if n.source != IDENTIFIER)


def _names_carried(named: Named, carried: tuple[str, ...]) -> bool:
    """A place a comment names that is the carried object itself ("lower impression tray" for the impression tray, "lower
    swollen cell" for the swollen cell): its head word is the object's, and so is every other word of it. A container of
    the object's kind named in other words is a place ("분실물 상자" for the 커프스 상자: the box goes into the
    lost-and-found box)."""
    place = named.place
    return place is not None and bool(place.words) and overlaps(place.words[-1:], carried) and \
        all(overlaps((w,), carried) for w in place.words[:-1])


# --------------------------------------------------------------------------- objects


@functools.lru_cache(maxsize=8192)
def thing_of(obj: ObjectRef, bare: bool = True) -> ObjectRef:
    """The thing a description names when its head is a measure noun (lexicon `measure_nouns`): "the cable bundle"
    handles cables, "와셔 세트" washers, `DowelPack` dowels — the word before the measure is the head, so that it is
    compared with what the other side names (`Cables_…`, "the washers"). `bare`: a measure alone ("the set",
    `Kit_Pick`) names no particular thing (generic); False keeps it as it is (an instruction's "the set" is still a
    noun to compare, abstaining when nothing corresponds)."""
    v = vocabulary()
    words = obj.words or ((obj.noun,) if obj.noun else ())
    if not words or words[-1] not in v.measures or obj.noun in v.object_classes:
        return obj
    noun = v.measured(words)
    if noun is None:
        return replace(obj, noun=None, generic=True, words=()) if bare else obj
    return replace(obj, noun=noun, words=words[:-1])


def same_object(want: ObjectRef, got: ObjectRef) -> bool:
    if want.generic or want.noun is None:
        return True
    if got.noun is None:
        return False
    return want.noun == got.noun or _alike(want.noun, got.noun, 85) or same_word(want.noun, got.noun) or \
        got.noun in vocabulary().measure_words.get(want.noun, ()) or \
        bool(want.words) and not want.noun.isascii() and same_word(want.words[-1], got.noun) or \
        bool(want.words) and overlaps(want.words[-1:], got.words) and not korean_head_modifies(want, got) or \
        bool(want.words) and _compound_ends_with(got.noun, want.words[-1])
    # (셀 and `PouchCell`; the pillowcases and `PillowcaseBundle`; "the finished board" and `Keyboard`)


def _compound_ends_with(compound: str, head: str) -> bool:
    """"the finished board" and `Keyboard_…`, "the box" and `Lunchbox`: a word written as one whose last part is the
    instruction's head noun — the head said alone names the compound (not the other way round: "keyboard" is no
    "board" a program may name instead)."""
    return compound.isascii() and head.isascii() and head.isalpha() and len(head) >= 3 and \
        len(compound) >= len(head) + 3 and compound.endswith(head) and compound.isalpha()


def korean_head_modifies(want: ObjectRef, got: ObjectRef) -> bool:
    """Is the thing the instruction names only a modifier of another Korean noun on the other side — "고사리 표본" (a fern
    specimen) against "표본 폴더" (a specimen folder), "약병" against "약병 뚜껑"? A Korean compound's last noun is its
    head: the other names a folder, a lid, a thing of its own, not the specimen. (A measure or packing noun at the end —
    "표본 세트" — still names the specimens.)"""
    words = got.words
    if len(words) < 2 or not want.words or not all(has_hangul(w) for w in (*words, *want.words)):
        return False
    head = words[-1]
    if head in vocabulary().measures or overlaps(want.words[-1:], (head,)):
        return False
    return overlaps(want.words[-1:], words[:-1])


@functools.lru_cache(maxsize=8192)
def _alike(a: str, b: str, threshold: int) -> bool:
    """Two spellings of one word ("conveyer"/"conveyor"); words the vocabulary tells apart never are."""
    classes = vocabulary().object_classes
    if len(a) <= 3 or len(b) <= 3 or (a in classes and b in classes):
        return False
    return similar(a, b) >= threshold


def compare_object(want: ObjectRef | None, named: Iterable[Named], known: set[str] = frozenset(),
                   contrasted: set[str] = frozenset()) -> Comparison:
    """The object a transfer handles against the one the task names.

    `contrasted`: nouns the instruction names in more than one colour ("the red cube, not the blue one"),
    for which a program that names the noun without a colour has not said which one it handles.
    """
    if want is None or (want.generic and want.color is None and want.material is None):
        return Comparison(SAME)
    named = [n for n in named if n.obj is not None]
    if not named:
        return Comparison(ABSENT, detail="names nothing")
    thing = thing_of(want, bare=False)
    classes = vocabulary().object_classes
    things = [n if (o := thing_of(n.obj)) is n.obj else replace(n, obj=o, known=n.known or o.noun in classes) for n in named]
    c = _compare_objects(thing, things, known, contrasted)
    if c.same or thing is want and all(a is b for a, b in zip(things, named)):
        return c
    # The measures correspond ("hinge pin set", "경첩핀 세트"; "방청제 팩", `RustPack`) and the things before them stand
    # in two scripts — a translation nobody can check, not another thing (as `_named_in_part` has it) — or share a word
    # ("silicone grease pack", `SiliconePack`: a name shortened, not another thing).
    plain = _compare_objects(want, named, known, contrasted)
    if plain.same and plain.found is not None:
        other = thing_of(plain.found.obj)
        if _other_script(thing, other) or other.words and overlaps(thing.words, other.words):
            return plain
    return c


def _other_script(a: ObjectRef, b: ObjectRef) -> bool:
    """Are two descriptions' words all in one script each, and the two scripts different?"""
    sa = {w.isascii() for w in a.words or ((a.noun,) if a.noun else ()) if w.isalpha()}
    sb = {w.isascii() for w in b.words or ((b.noun,) if b.noun else ()) if w.isalpha()}
    return len(sa) == 1 and len(sb) == 1 and sa != sb


def _compare_objects(want: ObjectRef, evidence: list[Named], known: set[str], contrasted: set[str]) -> Comparison:
    same = [n for n in evidence if same_object(want, n.obj) or n.obj.generic and not want.generic]
    fit = vocabulary().materials_fit
    if want.material is not None and same and not any(n.obj.material is not None and fit(n.obj.material, want.material) for n in same):
        clashing = [n for n in same if n.obj.material and not fit(n.obj.material, want.material)]
        if clashing:
            return Comparison(OTHER_MATERIAL, _best(clashing), "another material")
    same = [n for n in same if not n.obj.generic or want.generic]
    if same:
        if want.color is not None and not any(n.obj.color == want.color for n in same):
            clashing = [n for n in same if n.obj.color and n.obj.color != want.color]
            if clashing:
                return Comparison(OTHER_COLOUR, _best(clashing), "another colour")
            if want.noun in contrasted:
                return Comparison(UNCOMPARABLE, same[0], "no colour")
        numbered = [n for n in same if n.obj.ordinal and n.obj.ordinal > 0]
        if want.ordinal and want.ordinal > 0 and numbered and not any(n.obj.ordinal == want.ordinal for n in numbered):
            # "the second box" against `Table_Box_2_Pick` / "Picking first box": a number in a name may also count the
            # program's own picks
            return Comparison(OTHER_ORDINAL, _best(numbered), "another one of them")
        kinds = [n for n in same if _modifiers_differ(want, n.obj)]
        if kinds and len(kinds) == len(same):
            best = _best(kinds)
            return Comparison(OTHER_WORDS, best, f"{' '.join(best.obj.words)} against {' '.join(want.words)}")
        return Comparison(SAME, same[0])
    others = [n for n in evidence if n.known or n.obj.noun in known]
    related = vocabulary().related_objects
    unrelated = [n for n in others if frozenset((want.noun, n.obj.noun)) not in related]
    if unrelated and len(unrelated) == len(others) and want.noun in vocabulary().object_classes:
        return Comparison(OTHER_CLASS, _best(unrelated), "another object")
    nouns = [n for n in evidence if _open_nouns_differ(want, n.obj)]
    # a comment in another script than the instruction's words ("장부" against "deed folder") says nothing either way
    comparable = [n for n in evidence if not _other_script(want, n.obj)]
    if nouns and len(nouns) == len(comparable):
        best = _best(nouns)
        return Comparison(OTHER_WORDS, best, f"{best.obj.noun} against {want.noun}")
    partial = [n for n in evidence if _named_in_part(want, n)]
    if partial and not unrelated:
        return Comparison(SAME, _best(partial))
    return Comparison(UNCOMPARABLE, (others or evidence)[0], "matches nothing")


def _named_in_part(want: ObjectRef, named: Named) -> bool:
    """Does the program name the instruction's compound object by its words, as far as they can be compared? The name
    has the head noun ("the scissors set", `ScissorsSet_…`, where "set" is no object of its own), or a modifier while
    the head stands in another script than the program's words ("poster roll" and a comment's "포스터 롤"): the rest is
    a translation nobody can check, not another thing. Two English heads that differ ("chair rung", `ChairLeg`) are no
    such name."""
    got = named.obj
    if want.noun is None or len(want.words) < 2 or got.noun is None:
        return False
    if named.source == IDENTIFIER:
        groups = [g for g in word_groups(named.quote) if any(got.noun and same_word(w.lower(), got.noun) or w.lower() in got.text.lower().split()
                                                               for w in g)]
        words = tuple(w.lower() for g in groups for w in g)
    else:
        words = tuple(dict.fromkeys(w for w in (*got.words, got.noun) if w))  # ("the grey one": no noun of its own)
    if not words or not overlaps(want.words, words):
        return False
    head = want.words[-1]
    if named.source != IDENTIFIER and korean_head_modifies(want, got):
        return False  # "고사리 표본" and a comment's "표본 폴더": the specimen names which folder
    return overlaps((head,), words) or not any(w.isascii() == head.isascii() for w in words if w.isalpha())


def _modifiers_differ(want: ObjectRef, got: ObjectRef) -> bool:
    """One noun, told apart by a noun before it on both sides that do not correspond: a croissant tray and a muffin tray,
    a pouch cell and a cylindrical one. Adjectives of state (swollen, burnt, finished) are no name of a kind."""
    a = [w for w in want.words[:-1] if _noun_modifier(w)]
    b = [w for w in got.words[:-1] if _noun_modifier(w)]
    return bool(a) and bool(b) and not overlaps(want.words, b) and not overlaps(a, got.words)


def _open_nouns_differ(want: ObjectRef, got: ObjectRef) -> bool:
    """Two object nouns (English, no vocabulary class needed) of which no word corresponds: the sourdough and a baguette."""
    if want.noun is None or got.noun is None or not want.words or not got.noun.isalpha():
        return False
    words = got.words or (got.noun,)  # `p_bushing_in_pallet_pick`: a name's noun, no words of its own
    if any(not w.isascii() for w in (*want.words, *words)) or not _head_noun(got.noun) or not _head_noun(want.words[-1]):
        # (a comment's "끈 묶음" is a string by the vocabulary's class, in words nobody can compare with "lace pack")
        return False
    return not overlaps(want.words, words) and not overlaps(want.words, (got.noun,))


@functools.lru_cache(maxsize=4096)
def _noun_modifier(word: str) -> bool:
    """A word that names a kind of thing (a noun: "croissant", "pouch"), not a state ("swollen", "finished", "burnt")."""
    from lemminflect import getAllLemmas

    if not word.isascii() or not word.isalpha() or len(word) < 3:
        return False
    lemmas = getAllLemmas(word)
    return "NOUN" in lemmas and "ADJ" not in lemmas and "VERB" not in lemmas or not lemmas and len(word) >= 4


@functools.lru_cache(maxsize=4096)
def _head_noun(word: str) -> bool:
    """A word that can head the name of a thing: a noun that is no adjective ("kit", "brake", "case" are verbs too, and
    things; "loose", "warm" are states)."""
    from lemminflect import getAllLemmas

    if not word.isascii() or not word.isalpha() or len(word) < 3:
        return False
    lemmas = getAllLemmas(word)
    return "NOUN" in lemmas and "ADJ" not in lemmas or not lemmas and len(word) >= 4


def _best(named: list[Named]) -> Named:
    return sorted(named, key=lambda n: (n.source not in (IDENTIFIER, CELL), n.step if n.step is not None else 0))[0]


#: Words of a cell position that make it a waypoint by a place (`Safe_Fixture`, `Conveyor_Approach`), not the place.
_WAYPOINT_WORDS = frozenset({"safe", "safety", "approach", "app", "appr", "above", "hover", "clear", "clearance", "via", "waypoint", "wp"})


def _waypoint(visit: Visit) -> bool:
    return any(w.lower() in _WAYPOINT_WORDS for n in visit.places + visit.names for w in identifier_words(n.quote))


def _excluded(excluded: Sequence[ObjectRef], transfers: Sequence[Transfer], asked: Sequence[ObjectRef]) -> Iterable[Excluded]:
    excluded = [x for x in excluded if _told_apart(x, asked) and not _a_place_word(x)]
    for t in transfers:
        for x in excluded:
            if _everything_else(x):
                # "the others stay on the table": any object the program names that no task asks for
                named = [n for n in t.objects if n.obj is not None and n.known]
                hit = named[0] if named and not any(same_object(a, n.obj) and _colour_fits(a, n.obj) for a in asked for n in named) else None
            else:
                hit = next((n for n in t.objects if n.obj is not None and _is_excluded(x, n.obj, _said_with(n, t))), None)
            if hit is not None:
                yield Excluded(x, t, hit)
                break


def _a_place_word(x: ObjectRef) -> bool:
    """Is an excluded "thing" a numbered or lettered place ("leave printer 2 alone": a place noun no object class has,
    with its designator)? Then no transfer handles it; a thing whose name only resembles it ("bracket print") is no hit.
    Without a designator the noun may name things ("leave the molds alone")."""
    v = vocabulary()
    return x.noun is not None and x.noun not in v.object_classes and bool(v.en_places.get(x.noun) or v.ko_places.get(x.noun)) \
        and re.search(r"(?<![\w])(\d+|[A-Z])(?![\w])|\d+번", x.text) is not None


def _told_apart(x: ObjectRef, asked: Sequence[ObjectRef]) -> bool:
    """"깨진 컵 말고 멀쩡한 요거트 컵만", "not the damaged blister pack, the good one": an excluded thing of the class the
    instruction also asks to move, told apart only by words the stage does not read (broken, damaged), cannot be told
    from the one asked for in the program's names either, so it is not judged."""
    for a in asked:
        if a.noun is None or x.noun is None or not same_object(x, a):
            continue
        if _modifiers(x) and not overlaps(_modifiers(x), a.words):
            continue  # "시든 모종만 …, 토마토 모종은 그대로 둬": the tomato one, by a word of its own
        if all(getattr(x, attr) is None or getattr(x, attr) == getattr(a, attr) for attr in ("color", "material", "size", "ordinal")):
            return False
    return True


def _modifiers(x: ObjectRef) -> tuple[str, ...]:
    """The words before the thing's own noun ("tomato" of "the tomato seedling")."""
    return tuple(w for w in x.words[:-1] if not same_word(w, x.words[-1]))


def _everything_else(x: ObjectRef) -> bool:
    return x.generic and x.color is None and x.material is None and (x.count == -1 or x.text.lower().split()[-1:] in (["others"], ["rest"], ["나머지는"], ["나머지"]))


def _colour_fits(want: ObjectRef, got: ObjectRef) -> bool:
    return want.color is None or got.color is None or want.color == got.color


def _said_with(named: Named, t: Transfer) -> tuple[str, ...]:
    """Every word the same name or comment gives the things at this transfer (`TomatoSeedling`: tomato, seedling)."""
    return tuple(w for n in t.objects if n.quote == named.quote and n.obj is not None for w in (n.obj.noun, *n.obj.words) if w)


def _is_excluded(x: ObjectRef, got: ObjectRef, said: tuple[str, ...] = ()) -> bool:
    """Positive evidence only: "not the blue cube" is hit by a transfer named blue cube, not by one named cube; "leave the
    tomato seedling" by one whose name says tomato too (`said`: the words its name gives), not by `WiltedSeedling`."""
    if x.color is not None and got.color != x.color:
        return False
    if x.material is not None and (got.material is None or not vocabulary().materials_fit(x.material, got.material)):
        return False  # "강철 블랭크는 놔두고": an aluminium blank is not the one to leave
    if x.generic or x.noun is None:
        return x.color is not None
    if _modifiers(x) and not overlaps(_modifiers(x), (*got.words, *said)):
        return False
    return same_object(x, got)


# --------------------------------------------------------------------------- places


def compare_place(want: PlaceRef | None, spot: Spot | None, positions: frozenset[str] = frozenset(),
                  carried: tuple[str, ...] = ()) -> Comparison:
    """The place a grasp or release happens at against the place the task names.

    `positions`: the cell's position names; an instruction that names one verbatim ("pick part at Feeder_Pick")
    is contradicted by a routine at any other position. `carried`: the instruction's words for the object handled,
    which the spot's identifiers name too and which are no place (`CroissantTray_OvenTray_Release`).
    """
    if want is None:
        return Comparison(SAME)
    if spot is None:
        return Comparison(ABSENT, detail="no such step")
    if spot.position is not None and want.key in positions and canon(spot.position) != want.key:
        found = next((n for n in spot.places if n.place is not None and n.place.kind == "cell"), None)
        return Comparison(OTHER_POSITION, found, "another position")
    if want.coords is not None and spot.xyz is not None:
        if _near(spot.xyz, want.coords):
            return Comparison(SAME)
        return Comparison(OTHER_COORDINATES, None, "other coordinates")
    evidence = [n for n in spot_places(spot, carried) if n.place is not None]
    if not evidence:
        return Comparison(ABSENT, detail="names nothing")
    relations = [(n, relate(want, n.place)) for n in evidence]
    same = [n for n, r in relations if r.kind == SAME]
    strong = [(n, r) for n, r in relations if r.kind in (OTHER_KIND, OTHER_DESIGNATOR)]
    if same:
        # a name that says one place and a comment that says another: the program contradicts itself there
        # (a source that names the place as well as another — `p_board_saw_infeed_place` for the saw — is no contradiction)
        agreeing = {m.source for m in same}
        contradicted = any(n.source not in agreeing for n, _ in strong)
        if (want.label or want.side) and not any(n.place.label or n.place.side for n in same) and strong:
            # "slot 2 of the rack" against `FgRackSlot1_Release`: the rack matches only by its word, the slot is another
            # one — the designator the instruction gives is what the program contradicts
            clash = [(n, r) for n, r in strong if r.kind == OTHER_DESIGNATOR and kind_of(want) and kind_of(n.place) == kind_of(want)]
            if clash:
                best = _best([n for n, _ in clash])
                return Comparison(OTHER_DESIGNATOR, best, next(r for n, r in clash if n is best).detail)
            contradicted = True
        return Comparison(SAME, same[0], contradicted=contradicted)
    if strong:
        best = _best([n for n, _ in strong])
        relation = next(r for n, r in strong if n is best)
        return Comparison(relation.kind, best, relation.detail)
    weak = [(n, r) for n, r in relations if r.kind == OTHER_WORDS]
    if weak:
        best = _best([n for n, _ in weak])
        return Comparison(OTHER_WORDS, best, next(r for n, r in weak if n is best).detail)
    return Comparison(UNCOMPARABLE, evidence[0], "matches nothing")


def compare_destination(want: PlaceRef | None, spot: Spot | None, carried: ObjectRef | None,
                        positions: frozenset[str] = frozenset(), words: tuple[str, ...] = (), stacked: bool = False) -> Comparison:
    """Where a release happens against the task's destination; a destination that is an object ("on top of the large
    box", "빨간 큐브 위에") is compared with the objects the release names other than the one carried. A container ("the
    carton", "유리 상자") is such an object only when the task stacks (`stacked`); otherwise it is a place."""
    if want is None or want.obj is None or want.obj.noun not in vocabulary().object_classes or spot is None:
        return compare_place(want, spot, positions, words)
    as_place = compare_place(want, spot, positions, words)
    if as_place.same or want.obj.noun in CONTAINERS and not stacked:
        return as_place  # "in the display case", "유리 상자에": a container, compared as a place
    base = want.obj
    others = [n for n in spot.objects if n.obj is not None and not (carried is not None and _same_thing(carried, n.obj))]
    if any(same_object(base, n.obj) and _attributes_fit(base, n.obj) for n in others):
        return Comparison(SAME, next(n for n in others if same_object(base, n.obj)))
    clashing = [n for n in others if same_object(base, n.obj) and not _attributes_fit(base, n.obj)]
    if clashing:
        return Comparison(OTHER_CLASS, _best(clashing), "another object to put it on")
    places = spot_places(spot, words)
    stacking = any(_STACKING.search(n.quote) for n in places + spot.objects)
    placed = [n for n in places if n.place is not None and n.place.kind in vocabulary().place_classes and n.place.kind != "position"]
    if placed and not any(n.known for n in others) and not stacking:
        # "Release small box on the pallet" for "put it on top of the large box": the program puts it on a place and
        # never mentions the object it should go on
        return Comparison(OTHER_SUPPORT, _best(placed), "a place, not on the object")
    return Comparison(ABSENT, (placed or others or [None])[0], "names nothing")


_STACKING = re.compile(r"(?i)stack|on\s*top|top\s*of|쌓|위에|위로|적층")


def _same_thing(a: ObjectRef, b: ObjectRef) -> bool:
    return a.noun == b.noun and _attributes_fit(a, b)


def _attributes_fit(want: ObjectRef, got: ObjectRef) -> bool:
    return all(w is None or g is None or w == g for w, g in ((want.color, got.color), (want.size, got.size))) and \
        vocabulary().materials_fit(want.material, got.material)


def _near(xyz: tuple[float, ...], target: tuple[float, ...]) -> bool:
    dz = xyz[2] - target[2]
    return math.hypot(xyz[0] - target[0], xyz[1] - target[1]) <= NEAR_XY_MM and NEAR_Z_MM[0] <= dz <= NEAR_Z_MM[1]


# --------------------------------------------------------------------------- visits and work


def _visit(task: Task, activity: Activity) -> tuple[Task, Visit | None, Comparison]:
    outcome = Comparison(ABSENT, detail="names nothing")
    silent = False
    for visit in activity.visits:
        c = compare_place(task.destination, Spot(visit.step, visit.xyz, visit.places))
        if c.same:
            return task, visit, c
        silent = silent or not c.differs
        if c.differs and not outcome.differs:
            outcome = c
    if silent:
        # a move the program does not name may be the one to that place: no contradiction
        return task, None, Comparison(ABSENT, detail="names nothing")
    return task, None, outcome


def _work(task: Task, activity: Activity) -> tuple[Task, Work | None, Comparison]:
    """The routine that does a work task ("tack weld at Pos_1") or attaches/releases the named tool."""
    candidates = [w for w in activity.works if w.action == task.action]
    if task.action in ("attach", "detach") and task.obj is not None and task.obj.noun:
        same_tool = [w for w in candidates if w.tool_object == task.obj.noun]
        if candidates and not same_tool:
            w = candidates[0]
            return task, w, Comparison(OTHER_CLASS, Named(w.tool or w.routine, CELL, w.step.index, w.step.span), "another tool")
        candidates = same_tool
    if not candidates:
        return task, None, Comparison(ABSENT, detail="no routine")
    if task.at is None:
        return task, candidates[0], Comparison(SAME)
    result = Comparison(ABSENT, detail="names nothing")
    for w in candidates:
        c = compare_place(task.at, w.spot, activity.positions)
        if c.same:
            return task, w, c
        if c.differs:
            result = c
    return task, candidates[0], result
