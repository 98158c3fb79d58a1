"""Which program transfer carries out which instruction task, and how well each aspect agrees.

A neutral fact for the R-SEM rules to judge: tasks (expanded by count, "both
boxes" is two) are paired with the program's transfers by evidence first —
the object named, then the places — and only then by order, so a reversed
order or a swapped object shows as such instead of being hidden by pairing in
order. Each aspect of a pair is compared into `match`, `mismatch` (with the
program text that contradicts the instruction) or `unknown` (the program says
nothing comparable: a place it never names, a name that matches nothing).
Only a mismatch may become a CRITICAL finding; unknown is where the stage
abstains.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from plan_verifier.semantic.clauses import WORK, ObjectRef, PlaceRef
from plan_verifier.semantic.instruction import Instruction, Task
from plan_verifier.semantic.language import canon, similar
from plan_verifier.semantic.activity import CELL, IDENTIFIER, Activity, Named, Spot, Transfer, Visit, Work
from plan_verifier.semantic.vocabulary import vocabulary

MATCH, MISMATCH, UNKNOWN = "match", "mismatch", "unknown"
#: A grasp or release point matches coordinates given in the instruction within this horizontal distance (mm) ...
NEAR_XY_MM = 30.0
#: ... and this height band above them (approach and grip heights sit above the named point).
NEAR_Z_MM = (-50.0, 300.0)
#: Classes whose words are too general to contradict another place ("the spot", "position").
_VAGUE_PLACES = frozenset({"position", None})


@dataclass(frozen=True)
class Comparison:
    outcome: str  # match | mismatch | unknown
    found: Named | None = None  # the program text that decided
    detail: str = ""  # another colour | another object | another place | swapped | names nothing | matches nothing
    strength: float = 0.0  # how strongly the evidence speaks: 0.9 names and cells, 0.8 comments

    @property
    def mismatch(self) -> bool:
        return self.outcome == MISMATCH

    @property
    def unknown(self) -> bool:
        return self.outcome == UNKNOWN


def _strength(named: Named | None) -> float:
    return 0.9 if named is not None and named.source in (IDENTIFIER, CELL) else 0.8


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
    done = {id(w) for _, w, c in works if w is not None and c.outcome == MATCH}
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
    if task.action == "pick" or task.action in ("transfer", "handover") and task.destination is None:
        return replace(task, action="attach", source=None, destination=None)
    if task.action in ("place", "transfer", "return_home", "insert") or task.action == "handover":
        return replace(task, action="detach", source=None, destination=None)
    return task


def _excluded_works(instruction: Instruction, activity: Activity) -> Iterable[tuple[str, object, Named]]:
    """Routines and releases at places the instruction rules out ("don't weld seam 5", "not bin 3"),
    and tools it says to leave alone ("leave the screwdriver on its stand")."""
    asked = {t.destination.key for t in instruction.tasks if t.destination is not None}
    for action, place in instruction.excluded_places:
        if place.label is None and place.key in asked:
            continue  # "not the bin" while asking for another bin: the class alone cannot tell the two apart
        for w in activity.works:
            if (action is None or w.action == action or action in ("place", "transfer") and w.action == "place") and \
                    compare_place(place, w.spot).outcome == MATCH:
                yield f"{action or 'use'} at {place.text}", w.step, Named(w.routine + (f" at {w.spot.position}" if w.spot.position else ""),
                                                                           CELL, w.step.index, w.step.span)
        if action in (None, "place", "transfer", "insert", "stack"):
            for t in activity.transfers:
                c = compare_place(place, t.release)
                if c.outcome == MATCH and c.found is not None:
                    yield f"put anything in {place.text}", t.release.step, c.found
    for obj in instruction.excluded:
        for w in activity.works:
            if w.action == "attach" and w.tool_object is not None and obj.noun == w.tool_object:
                yield f"use the {obj.describe()}", w.step, Named(w.tool or w.routine, CELL, w.step.index, w.step.span)


# --------------------------------------------------------------------------- alignment


def _slots(tasks: Sequence[Task]) -> list[tuple[int, Task, bool]]:
    """(order, task, many): one slot per object to carry; "all"/"everything" takes every transfer left."""
    out = []
    for n, t in enumerate(tasks):
        if not (t.carries or t.action == "pick"):
            continue
        count = t.obj.count if t.obj is not None and t.obj.count else 1
        if count < 0:
            out.append((n, t, True))
            continue
        out.extend((n, t, False) for _ in range(max(count, 1)))
    return out


def _align(slots: list[tuple[int, Task, bool]], transfers: Sequence[Transfer], known: set[str], contrasted: set[str],
           positions: frozenset[str]):
    compared: dict[tuple[int, int], tuple[Comparison, Comparison, Comparison]] = {}
    # The common case first: the n-th transfer does the n-th task on every aspect. Then it is also what the full
    # comparison below would choose (every pair at the best score, ties go to the same position), at O(n) cost.
    if len(slots) == len(transfers) and not any(many for _, _, many in slots):
        for s, (_, task, _many) in enumerate(slots):
            t = transfers[s]
            c = (compare_object(task.obj, t.objects, known, contrasted), compare_place(task.source, t.grasp, positions),
                 compare_destination(task.destination, t.release, task.obj, positions))
            if any(x.outcome != MATCH for x in c):
                break
            compared[(s, t.index)] = c
        else:
            return _pairs(slots, transfers, {s: s for s in range(len(slots))}, compared), ()
    scored = []
    for s, (_, task, _many) in enumerate(slots):
        for t in transfers:
            c = (compare_object(task.obj, t.objects, known, contrasted), compare_place(task.source, t.grasp, positions),
                 compare_destination(task.destination, t.release, task.obj, positions))
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
                if t.index not in used and not compared[(s, t.index)][0].mismatch:
                    used.add(t.index)
                    chosen.setdefault(s, t.index)
    extra = tuple(t for t in transfers if t.index not in used)
    return _pairs(slots, transfers, chosen, compared), extra


def _pairs(slots, transfers, chosen: dict[int, int], compared) -> tuple[Pair, ...]:
    pairs = []
    distinct_objects = _distinct([slots[s][1].obj for s in range(len(slots))])
    distinct_dest = _distinct_places([slots[s][1].destination for s in range(len(slots))])
    for s, (order, task, _many) in enumerate(slots):
        t = chosen.get(s)
        if t is None:
            empty = Comparison(UNKNOWN, detail="no transfer")
            pairs.append(Pair(task, order, None, empty, empty, empty, False))
            continue
        obj, src, dst = compared[(s, t)]
        by_evidence = (obj.outcome == MATCH and distinct_objects and task.obj is not None and task.obj.noun is not None) or \
            (dst.outcome == MATCH and distinct_dest)
        pairs.append(Pair(task, order, transfers[t], obj, src, dst, by_evidence))
    return tuple(pairs)


def _score(c: Comparison, weight: int) -> int:
    return weight if c.outcome == MATCH else -weight if c.outcome == MISMATCH else 0


def _distinct(objects: list[ObjectRef | None]) -> bool:
    keys = [(o.noun, o.color) for o in objects if o is not None]
    return len(keys) == len(set(keys)) and len(keys) > 1


def _distinct_places(places: list[PlaceRef | None]) -> bool:
    keys = [p.key for p in places if p is not None]
    return len(keys) == len(set(keys)) and len(keys) > 1


# --------------------------------------------------------------------------- objects


def same_object(want: ObjectRef, got: ObjectRef) -> bool:
    if want.generic or want.noun is None:
        return True
    if got.noun is None:
        return False
    return want.noun == got.noun or _alike(want.noun, got.noun, 85)


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
        return Comparison(MATCH)
    evidence = [n for n in named if n.obj is not None]
    if not evidence:
        return Comparison(UNKNOWN, detail="names nothing")
    same = [n for n in evidence if same_object(want, n.obj) or n.obj.generic and not want.generic]
    fit = vocabulary().materials_fit
    if want.material is not None and same and not any(n.obj.material is not None and fit(n.obj.material, want.material) for n in same):
        clashing = [n for n in same if n.obj.material and not fit(n.obj.material, want.material)]
        if clashing:
            best = _best(clashing)
            return Comparison(MISMATCH, best, "another material", _strength(best))
    same = [n for n in same if not n.obj.generic or want.generic]
    if same:
        if want.color is not None and not any(n.obj.color == want.color for n in same):
            clashing = [n for n in same if n.obj.color and n.obj.color != want.color]
            if clashing:
                best = _best(clashing)
                return Comparison(MISMATCH, best, "another colour", _strength(best))
            if want.noun in contrasted:
                return Comparison(UNKNOWN, same[0], "no colour")
        numbered = [n for n in same if n.obj.ordinal and n.obj.ordinal > 0]
        if want.ordinal and want.ordinal > 0 and numbered and not any(n.obj.ordinal == want.ordinal for n in numbered):
            # "the second box" against `Table_Box_1_Pick` / "Picking first box": a number in a name may also count the
            # program's own picks, so a name is weaker evidence here than a colour (0.75), an ordinal word in a comment 0.8
            best = _best(numbered)
            return Comparison(MISMATCH, best, "another one of them", 0.75 if best.source != "comment" else 0.8)
        return Comparison(MATCH, same[0])
    others = [n for n in evidence if n.known or n.obj.noun in known]
    related = vocabulary().related_objects
    unrelated = [n for n in others if frozenset((want.noun, n.obj.noun)) not in related]
    if unrelated and len(unrelated) == len(others) and want.noun in vocabulary().object_classes:
        best = _best(unrelated)
        return Comparison(MISMATCH, best, "another object", _strength(best))
    return Comparison(UNKNOWN, (others or evidence)[0], "matches nothing")


def _best(named: list[Named]) -> Named:
    return sorted(named, key=lambda n: (n.source not in (IDENTIFIER, CELL), n.step if n.step is not None else 0))[0]


def _excluded(excluded: Sequence[ObjectRef], transfers: Sequence[Transfer], asked: Sequence[ObjectRef]) -> Iterable[Excluded]:
    excluded = [x for x in excluded if _told_apart(x, asked)]
    for t in transfers:
        for x in excluded:
            if _everything_else(x):
                # "the others stay on the table": any object the program names that no task asks for
                named = [n for n in t.objects if n.obj is not None and n.known]
                hit = named[0] if named and not any(same_object(a, n.obj) and _colour_fits(a, n.obj) for a in asked for n in named) else None
            else:
                hit = next((n for n in t.objects if n.obj is not None and _is_excluded(x, n.obj)), None)
            if hit is not None:
                yield Excluded(x, t, hit)
                break


def _told_apart(x: ObjectRef, asked: Sequence[ObjectRef]) -> bool:
    """"깨진 컵 말고 멀쩡한 요거트 컵만", "not the damaged blister pack, the good one": an excluded thing of the class the
    instruction also asks to move, told apart only by words the stage does not read (broken, damaged), cannot be told
    from the one asked for in the program's names either, so it is not judged."""
    for a in asked:
        if a.noun is None or x.noun is None or not same_object(x, a):
            continue
        if all(getattr(x, attr) is None or getattr(x, attr) == getattr(a, attr) for attr in ("color", "material", "size", "ordinal")):
            return False
    return True


def _everything_else(x: ObjectRef) -> bool:
    return x.generic and x.color is None and x.material is None and (x.count == -1 or x.text.lower().split()[-1:] in (["others"], ["rest"], ["나머지는"], ["나머지"]))


def _colour_fits(want: ObjectRef, got: ObjectRef) -> bool:
    return want.color is None or got.color is None or want.color == got.color


def _is_excluded(x: ObjectRef, got: ObjectRef) -> bool:
    """Positive evidence only: "not the blue cube" is hit by a transfer named blue cube, not by one named cube."""
    if x.color is not None and got.color != x.color:
        return False
    if x.material is not None and (got.material is None or not vocabulary().materials_fit(x.material, got.material)):
        return False  # "강철 블랭크는 놔두고": an aluminium blank is not the one to leave
    if x.generic or x.noun is None:
        return x.color is not None
    return same_object(x, got)


# --------------------------------------------------------------------------- places


def compare_place(want: PlaceRef | None, spot: Spot | None, positions: frozenset[str] = frozenset()) -> Comparison:
    """The place a grasp or release happens at against the place the task names.

    `positions`: the cell's position names; an instruction that names one verbatim ("pick part at Feeder_Pick")
    is contradicted by a routine at any other position.
    """
    if want is None:
        return Comparison(MATCH)
    if spot is None:
        return Comparison(UNKNOWN, detail="no such step")
    if spot.position is not None and want.key in positions and canon(spot.position) != want.key:
        found = next((n for n in spot.places if n.place is not None and n.place.kind == "cell"), None)
        return Comparison(MISMATCH, found, "another position", 0.9)
    if want.coords is not None and spot.xyz is not None:
        if _near(spot.xyz, want.coords):
            return Comparison(MATCH)
        return Comparison(MISMATCH, None, "other coordinates", 0.85)
    evidence = [n for n in spot.places if n.place is not None]
    if not evidence:
        return Comparison(UNKNOWN, detail="names nothing")
    for n in evidence:
        if same_place(want, n.place):
            return Comparison(MATCH, n)
    comparable = [n for n in evidence if _comparable(want, n.place)]
    if comparable:
        best = _best(comparable)
        return Comparison(MISMATCH, best, "another place", _strength(best))
    return Comparison(UNKNOWN, evidence[0], "matches nothing")


def compare_destination(want: PlaceRef | None, spot: Spot | None, carried: ObjectRef | None,
                        positions: frozenset[str] = frozenset()) -> Comparison:
    """Where a release happens against the task's destination; a destination that is an object ("on top of the large
    box", "빨간 큐브 위에") is compared with the objects the release names other than the one carried."""
    if want is None or want.obj is None or want.obj.noun not in vocabulary().object_classes or spot is None:
        return compare_place(want, spot, positions)
    base = want.obj
    others = [n for n in spot.objects if n.obj is not None and not (carried is not None and _same_thing(carried, n.obj))]
    if any(same_object(base, n.obj) and _attributes_fit(base, n.obj) for n in others):
        return Comparison(MATCH, next(n for n in others if same_object(base, n.obj)))
    clashing = [n for n in others if same_object(base, n.obj) and not _attributes_fit(base, n.obj)]
    if clashing:
        best = _best(clashing)
        return Comparison(MISMATCH, best, "another object to put it on", _strength(best))
    stacking = any(_STACKING.search(n.quote) for n in spot.places + spot.objects)
    placed = [n for n in spot.places if n.place is not None and n.place.kind in vocabulary().place_classes and n.place.kind != "position"]
    if placed and not any(n.known for n in others) and not stacking:
        # "Release small box on the pallet" for "put it on top of the large box": the program puts it on a place and
        # never mentions the object it should go on
        best = _best(placed)
        return Comparison(MISMATCH, best, "a place, not on the object", _strength(best) - 0.1)
    return Comparison(UNKNOWN, (placed or others or [None])[0], "names nothing")


_STACKING = re.compile(r"(?i)stack|on\s*top|top\s*of|쌓|위에|위로|적층")


def _same_thing(a: ObjectRef, b: ObjectRef) -> bool:
    return a.noun == b.noun and _attributes_fit(a, b)


def _attributes_fit(want: ObjectRef, got: ObjectRef) -> bool:
    return all(w is None or g is None or w == g for w, g in ((want.color, got.color), (want.size, got.size))) and \
        vocabulary().materials_fit(want.material, got.material)


def same_place(want: PlaceRef, got: PlaceRef) -> bool:
    if want.key == got.key:
        return True
    if want.side and got.side and want.side != got.side:
        return False  # the left side and the right side of one table
    if want.kind and want.kind == got.kind and want.kind not in _VAGUE_PLACES and (not want.label or not got.label):
        return True  # "the bin" and bin 3
    if want.kind and want.kind.startswith("container:") and got.key == want.kind.split(":", 1)[1]:
        return True
    if want.key == "operator" and got.kind == "operator":
        return True
    if got.kind == "cell" and (want.key == got.key or (len(want.key) > 3 and want.key in got.key)):
        return True
    return len(want.key) >= 5 and len(got.key) >= 5 and _alike(want.key, got.key, 88)


def _comparable(want: PlaceRef, got: PlaceRef) -> bool:
    """Would a person read these as two different places? A letter against a letter (A, table B), bin 2 against
    bin 3, the table against bin 3, station B against the tray, home against position A — but not "position 2"
    against "seam 2" (two ways to name one place), nor anything against a word the vocabulary does not know."""
    wl, wk = _signature(want)
    gl, gk = _signature(got)
    if wl and gl:
        return True
    if wk is None or gk is None:
        return False
    if wk == gk:
        # bin 2 and bin 3, the left and the right side of the table, seam 1 and seam 5
        return want.label != got.label or want.side != got.side
    if "home" in (wk, gk):
        return True  # home is one place under any name: never "position A"
    return "position" not in (wk, gk) and not wk.startswith("container:") and not gk.startswith("container:")


@functools.lru_cache(maxsize=8192)
def _signature(p: PlaceRef) -> tuple[str | None, str | None]:
    """(the letter that names it, its known kind): "table B" -> ("b", "table"), "bin 3" -> (None, "bin")."""
    letter = p.label if p.label and len(p.label) == 1 and p.label.isalpha() else None
    known = p.kind in vocabulary().place_classes or (p.kind is not None and p.kind.startswith("container:") and bool(p.label))
    return letter, p.kind if known else None


def _near(xyz: tuple[float, ...], target: tuple[float, ...]) -> bool:
    dz = xyz[2] - target[2]
    return math.hypot(xyz[0] - target[0], xyz[1] - target[1]) <= NEAR_XY_MM and NEAR_Z_MM[0] <= dz <= NEAR_Z_MM[1]


# --------------------------------------------------------------------------- visits and work


def _visit(task: Task, activity: Activity) -> tuple[Task, Visit | None, Comparison]:
    outcome = Comparison(UNKNOWN, detail="names nothing")
    silent = False
    for visit in activity.visits:
        c = compare_place(task.destination, Spot(visit.step, visit.xyz, visit.places))
        if c.outcome == MATCH:
            return task, visit, c
        silent = silent or c.unknown
        if c.mismatch and not outcome.mismatch:
            outcome = Comparison(MISMATCH, c.found, c.detail, c.strength)
    if silent:
        # a move the program does not name may be the one to that place: no contradiction
        return task, None, Comparison(UNKNOWN, detail="names nothing")
    return task, None, outcome


def _work(task: Task, activity: Activity) -> tuple[Task, Work | None, Comparison]:
    """The routine that does a work task ("tack weld at Pos_1") or attaches/releases the named tool."""
    candidates = [w for w in activity.works if w.action == task.action]
    if task.action in ("attach", "detach") and task.obj is not None and task.obj.noun:
        same_tool = [w for w in candidates if w.tool_object == task.obj.noun]
        if candidates and not same_tool:
            w = candidates[0]
            return task, w, Comparison(MISMATCH, Named(w.tool or w.routine, CELL, w.step.index, w.step.span), "another tool", 0.9)
        candidates = same_tool
    if not candidates:
        return task, None, Comparison(UNKNOWN, detail="no routine")
    if task.at is None:
        return task, candidates[0], Comparison(MATCH)
    result = Comparison(UNKNOWN, detail="names nothing")
    for w in candidates:
        c = compare_place(task.at, w.spot, activity.positions)
        if c.outcome == MATCH:
            return task, w, c
        if c.mismatch:
            result = c
    return task, candidates[0], result
