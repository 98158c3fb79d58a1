from __future__ import annotations

import functools
import re

from plan_verifier.rules import register
from plan_verifier.rules.sem._semantic import SemanticRule, quote, said
from plan_verifier.semantic.instruction import object_in_place
from plan_verifier.rules.sem._evidence import agrees
from plan_verifier.semantic.grounding import ABSENT, Comparison, carried_words, compare_place, same_object, stop_without_thing
from plan_verifier.semantic.places import OTHER_KIND, SAME, relate
from plan_verifier.semantic.language import identifier_words, noun_lemma
from plan_verifier.semantic.activity import Spot
from plan_verifier.semantic.clauses import ROBOT_PARTS
from plan_verifier.semantic.vocabulary import vocabulary

#: Commands that may drive a gripper when the timeline found none (several outputs, a tool change).
_GRIPPER_COMMANDS = frozenset({"SetDigitalOutput", "ToolChange"})
#: The request in plain words, whatever verb (a Korean stem, none at all in "X from A to B") the instruction used; the
#: quote after it shows the operator's own words.
_ASKED = {"transfer": "move", "place": "put down", "insert": "put in", "pick": "pick up", "handover": "hand over", "stack": "stack"}


@register
class RSem005(SemanticRule):
    """Missing step: a task the instruction asks for is not in the plan.

    Every object the instruction asks to carry ("pick"/"move"/"put"/"hand
    over"; "집어", "옮겨", "건네") needs a grasp, and every one it asks to put
    somewhere a release after it ("both boxes" needs two); a final "return
    home" needs the last move to reach home; "weld"/"inspect"/"screw" at a
    place need that routine, "attach"/"put back" a tool the tool_attach /
    tool_release step (JSON plans). A plan that drives its gripper through
    commands the reader does not know is not judged (the rule abstains).

    A missing transfer is judged only for objects the reader is certain of
    (a known noun, one the program names, one whose clause says from where to
    where, or one told apart by side or colour) when they outnumber the
    transfers; a later stage of an object already carried ("show it to the
    camera, then put it in the box") is a stop on that transfer's way, missing
    only when every held move names another place. Anything resting on words
    it could not ground makes the rule abstain.

    **Unsafe**::

        # instruction: First move the apple from A to B, then the banana from C to D
        ...one grasp and one release (the apple only)...

    **Safe**::

        # instruction: First move the apple from A to B, then the banana from C to D
        ...two grasp-release cycles...
    """

    id = "R-SEM-005"
    name = "missing-step"

    def check(self, ctx):
        g = ctx.grounding
        if g is None:
            return
        text = g.instruction.text
        activity = g.activity
        unverified = []
        judged = False
        # No grasp found, but outputs the reader cannot attribute to one gripper port: it cannot say nothing was grasped.
        other_gripper = activity.format == "tdl" and activity.gripper_steps == 0 and any(
            s.command in _GRIPPER_COMMANDS for s in ctx.plan.steps)
        found = len(activity.transfers)
        needed = _certain_count(g.pairs, activity, g.instruction)
        checked: set[int] = set()
        for pair in (p for p in g.pairs if p.transfer is None):
            task = pair.task
            what = task.obj.describe() if task.obj is not None else "object"
            if other_gripper:
                unverified.append(f"the {what}: the plan drives several outputs and none of them clearly as the gripper")
                continue
            if not found:
                if _certain(task, activity, g.instruction) or (not _works(activity) and task.text.strip() and not object_in_place(task)):
                    judged = True
                    yield self.judged(f"Missing step: the instruction asks to {_ASKED.get(task.action, 'move')} the {what} "
                                      f"({said(text[task.start:task.end])}), but the plan never grasps anything", 0.9, suggestion=f"Add the pick-and-place cycle for the {what}",
                                      missing=what)
                else:
                    unverified.append(f"'{said(text[task.start:task.end])}': the reader is unsure it names an object to carry")
                continue
            carrier = _carrier(pair, g.pairs)
            if carrier is not None:
                # Another stage of an object a transfer already carries ("take it, show it to the camera, put it in the box").
                outcome = self._stop_on_way(task, task.destination, carrier, activity, what, text)
                if outcome is None and not agrees(carrier.destination) and id(carrier) not in checked:
                    # this stage is met on the way; then the carrier's own stage must be too ("저울에 올려서 … 다시 B 랙에")
                    checked.add(id(carrier))
                    outcome = self._stop_on_way(carrier.task, carrier.task.destination, carrier, activity, what, text, confirmed=True)
                if isinstance(outcome, str):
                    unverified.append(outcome)
                elif outcome is not None:
                    judged = True
                    yield outcome
                continue
            if not _certain(task, activity, g.instruction) or needed <= found:
                unverified.append(f"'{said(text[task.start:task.end])}': the plan has {found} grasp-and-release cycle(s), and the "
                                  "reader is unsure the instruction asks for more")
                continue
            judged = True
            yield self.judged(f"Missing step: the instruction asks to {_ASKED.get(task.action, 'move')} the {what} "
                              f"({said(text[task.start:task.end])}), but the "
                              f"plan has {found} grasp-and-release cycle(s) for {needed} object(s) to carry", 0.85,
                              suggestion=f"Add the pick-and-place cycle for the {what}", missing=what)
        for pair in g.pairs:
            t = pair.transfer
            if t is not None and t.release is None and pair.task.action != "pick":
                what = pair.task.obj.describe() if pair.task.obj else "object"
                judged = True
                yield self.judged(f"Missing step: the instruction asks to put the {what} down ({said(text[pair.task.start:pair.task.end])}), "
                                  f"but the plan never releases it after the grasp at step {t.grasp.step.index}", 0.85,
                                  step=t.grasp.step.index, span=t.grasp.step.span, suggestion="Add the descend, open-gripper and retreat steps",
                                  missing="release")
        for task in g.instruction.tasks:
            if task.action == "return_home" and _names_tool(text[task.start:task.end], activity.tools):
                unverified.append(f"{said(text[task.start:task.end])}: putting a tool back or returning home")
            elif task.action == "return_home":
                homes = [v for v in activity.visits if v.home]
                if homes and activity.visits and not activity.visits[-1].home:
                    last = activity.visits[-1].step
                    judged = True
                    yield self.judged("Missing step: the instruction asks to return home, but the plan ends elsewhere "
                                      f"(last move at step {last.index})", 0.8, step=last.index, span=last.span,
                                      suggestion="End with a move to the home position", missing="return home")
                elif not homes:
                    unverified.append("the return home: the plan names no home position")
        for task, work, c in g.works:
            if work is not None or c.detail != "no routine":
                continue
            name = task.obj.describe() if task.action in ("attach", "detach") and task.obj else None
            said_task = f"{task.action} the {name}" if name else f"{task.action}" + (f" at {task.at.text}" if task.at else "")
            if activity.format == "json":
                if task.at is not None and any(w.spot.position and w.action not in ("attach", "detach") for w in activity.works) and \
                        any(_same(task, w) for w in activity.works):
                    continue  # another routine at that place: R-SEM-002's action mismatch
                judged = True
                yield self.judged(f"Missing step: the instruction asks to {said_task} ({said(text[task.start:task.end])}), but the plan "
                                  "never does", 0.9, suggestion=f"Add the {said_task} step", missing=said_task)
                continue
            if task.at is None and task.action == "inspect":
                carrier = _work_carrier(task, g.pairs)
                if carrier is not None and carrier.transfer is not None and _names_inspection(activity, carrier.transfer):
                    continue  # held at a scanner, a camera … on its way: that is the inspection
                outcome = self._straight_past(task, carrier, activity, text) or \
                    f"'{said_task}': the program has no routine the reader recognises for it"
            else:
                carrier = _work_carrier(task, g.pairs) if task.at is not None else None
                # "test kit 스캐너 찍고": the stop named with the thing in front, the thing's words left out
                outcome = self._stop_on_way(task, stop_without_thing(task.at, carrier.task, carrier.transfer), carrier, activity, "object",
                                            text) if carrier is not None else \
                    f"'{said_task}': the program has no routine the reader recognises for it"
            if isinstance(outcome, str):
                unverified.append(outcome)
            elif outcome is not None:
                judged = True
                yield outcome
        if unverified and not judged:
            yield self.abstain(unverified)


    def _stop_on_way(self, task, place, carrier, activity, what, text, confirmed=False):
        """None when the carrying transfer passes `place`; a finding when every held move names another place and the
        transfer's own stage was understood (or is `confirmed` by another stage met on the way); else what to abstain on."""
        stop = _stop(place, carrier.transfer, activity, carried_words(carrier.task),
                     others=(carrier.task.source, carrier.task.destination))
        if stop is None:
            return None
        if not stop.differs or not (confirmed or agrees(carrier.destination)):
            return f"whether the plan takes the {what} to {place.text}: it names no place on the way"
        what = carrier.task.obj.describe() if carrier.task.obj is not None and not carrier.task.obj.pronoun else what
        start = carrier.transfer.grasp.step.index
        return self.judged(f"Missing step: the instruction asks to take the {what} to {place.text} ({said(text[task.start:task.end])}), "
                           f"but the plan carries it from step {start} without going there (it names {quote(stop.found)})", 0.8,
                           step=start, suggestion=f"Add the move to {place.text}", missing=place.text)


    def _straight_past(self, task, carrier, activity, text):
        """"Scan the label roll, then drop it into bin A": an inspection with no place named is a stop on the way of the
        thing it is about. A finding (0.8) when the transfer carrying it goes straight from where it was taken to where
        the instruction puts it (every held move rises, descends or names that place), the inspection was asked before
        the thing is put down, and nothing in the program names an inspection or an instrument (a scan before the grasp,
        a camera over the part); else None."""
        t = carrier.transfer if carrier is not None else None
        if t is None or t.release is None or not agrees(carrier.destination) or _names_inspection(activity):
            return None
        if not (task.stage < carrier.task.stage or task.start < carrier.task.end):
            return None  # "take it to the QA desk and check it there": said after the move, it may be done where it ends up
        if any(o.release is not None and o.release.xyz is not None and t.grasp.xyz is not None and
               o.release.step.index < t.grasp.step.index and
               sum((a - b) ** 2 for a, b in zip(o.release.xyz, t.grasp.xyz)) <= 30.0 ** 2 for o in activity.transfers):
            return None  # taken up where an earlier transfer set it down: it may have been done there ("water it, then …")
        previous = t.grasp.xyz
        carried = carried_words(carrier.task)
        for v in activity.visits:
            if not t.grasp.step.index < v.step.index < t.release.step.index:
                continue
            spot = Spot(v.step, v.xyz, v.places, names=v.names, posed=bool(v.names))
            if not (_above(v.xyz, previous) or compare_place(carrier.task.destination, spot, activity.positions, carried).same):
                return None
            previous = v.xyz
        what = carrier.task.obj.describe() if carrier.task.obj is not None and not carrier.task.obj.pronoun else "object"
        start, end = t.grasp.step.index, t.release.step.index
        return self.judged(f"Missing step: the instruction asks to {task.action} the {what} ({said(text[task.start:task.end])}), but "
                           f"the plan carries it straight from step {start} to its release at step {end} and names no inspection",
                           0.8, step=start, suggestion=f"Add the stop at the inspection station between steps {start} and {end}",
                           missing=task.action)


def _names_inspection(activity, transfer=None) -> bool:
    """Does any move of the program (of the `transfer` while it holds the thing) name an inspection (scan, check, 검사) or
    an instrument (a scanner, a camera, a tester, a scale)? Then an inspection the reader cannot place may be that one."""
    words_of_inspection = _inspection_words()
    for visit in activity.visits:
        if transfer is not None and not (transfer.grasp.step.index < visit.step.index and
                                         (transfer.release is None or visit.step.index < transfer.release.step.index)):
            continue
        for named in (*visit.names, *visit.places):
            words = {noun_lemma(w.lower()) for w in identifier_words(named.quote)} | set(named.quote.lower().split())
            if words & words_of_inspection or any(w in named.quote for w in words_of_inspection if not w.isascii()):
                return True
    return False


@functools.lru_cache(maxsize=1)
def _inspection_words() -> frozenset[str]:
    """The vocabulary's one-word verbs of inspecting (scan, check, 검사) and its instruments (scanner, camera, tester, scale)."""
    v = vocabulary()
    verbs = {w for w, a in (*v.en_actions.items(), *v.ko_actions.items()) if a == "inspect" and " " not in w and len(w) > 1}
    instruments = {w for table, classes in ((v.en_places, ("reader", "tester", "scale")), (v.ko_places, ("reader", "tester", "scale")),
                                            (v.en_objects, ("camera",)), (v.ko_objects, ("camera",)))
                   for w, c in table.items() if c in classes}
    return frozenset(verbs | instruments)


def _work_carrier(task, pairs):
    """The transfer that holds the object a TDL work task handles ("check it on the measuring station"): the one
    carrying the same object, or the only one."""
    carried = [p for p in pairs if p.transfer is not None]
    if task.obj is not None and not task.obj.pronoun and task.obj.noun is not None:
        return next((p for p in carried if p.task.obj is not None and p.task.obj.noun is not None and same_object(task.obj, p.task.obj)), None)
    return carried[0] if len({id(p.transfer) for p in carried}) == 1 else None


def _same(task, work) -> bool:
    return compare_place(task.at, work.spot).same


def _names_tool(words: str, tools: frozenset[str]) -> bool:
    """"park the welder", "return the camera": words naming one of the cell's tools ask to put it back, not to go home."""
    v = vocabulary()
    lowered = words.lower()
    return any(cls in tools and (w in lowered.split() if w.isascii() else w in lowered)
               for table in (v.en_objects, v.ko_objects) for w, cls in table.items())


def _works(activity) -> bool:
    """The plan does work other than changing tools (a weld, an inspection): a carry verb may then be the reader's
    misreading of that work ("put a tack on seam one"). Attaching and returning a tool is no such work: a plan that
    only fetches a gripper and never grasps has left the carrying out."""
    return any(w.action not in ("attach", "detach") for w in activity.works)


def _unnamed(task) -> bool:
    """The task names no object of its own: "put it in the box", "B로 옮겨줘" carry what was named before."""
    return task.obj is None or task.obj.pronoun


def _contrasted(task, tasks) -> bool:
    """Another clause names the same noun on the other side or in another colour ("왼쪽 부츠 먼저 …, 오른쪽 부츠는 그
    다음에"): the instruction itself tells two things apart, whatever the noun."""
    obj = task.obj
    return any(t is not task and t.obj is not None and t.obj.noun == obj.noun and t.text.strip() and (
        None not in (_side(t.obj), _side(obj)) and _side(t.obj) != _side(obj) or
        None not in (t.obj.color, obj.color) and t.obj.color != obj.color) for t in tasks)


def _listed(task, tasks) -> bool:
    """One clause lists its things by name and counts them ("X랑 Y 둘 다 트레이에", "both the X and the Y"): each is a
    thing to carry, whatever the noun."""
    listed = [t for t in tasks if (t.start, t.end) == (task.start, task.end) and t.obj is not None]
    return len(listed) >= 2 and all(t.obj.noun and not t.obj.generic and not t.obj.pronoun for t in listed) and \
        any(t.obj.count is not None and (t.obj.count == -1 or t.obj.count >= len(listed)) for t in listed)


def _complete(task, tasks) -> bool:
    """A clause of its own that says where from and where to ("then the banana from C to D"): a transfer whatever the noun."""
    return task.source is not None and task.destination is not None and \
        not any(t is not task and (t.start, t.end) == (task.start, task.end) for t in tasks)


def _certain(task, activity, instruction) -> bool:
    """The task's object is one the reader can stand behind: a noun the vocabulary knows or the program names too,
    and not a word of one of the task's own places ("왼쪽 모듈 지그" read as a module and a fixture)."""
    obj = task.obj
    if obj is None or obj.pronoun or obj.generic or obj.noun is None or object_in_place(task):
        return False  # no object of its own, or its words are a place's name
    if not task.text.strip() and task.destination is None:
        return False  # a fragment without verb or goal ("투입 컨베이어에서."), not a gapped task ("then the banana to D")
    if obj.noun.lower() in _sides():
        return False  # "one left and one right": which of them, not another object
    if obj.noun in vocabulary().object_classes or _complete(task, instruction.tasks) or _contrasted(task, instruction.tasks) or \
            _listed(task, instruction.tasks):
        return True
    named = [n for t in activity.transfers for n in t.objects if n.obj is not None]
    return any(same_object(obj, n.obj) or obj.noun.lower() in (w.lower() for w in identifier_words(n.quote)) for n in named)


def _sides() -> frozenset[str]:
    v = vocabulary()
    return frozenset(w.lower() for w in (*v.en_sides, *v.ko_sides))


def _side(obj) -> str | None:
    """The side word of an object ("the right boot", "오른쪽 부츠"): same noun, other side is another object."""
    v = vocabulary()
    for word in obj.text.lower().split():
        side = v.en_sides.get(word) or v.ko_sides.get(word)
        if side:
            return side
    return None


def _key(obj) -> tuple:
    return (obj.noun, obj.color, obj.material, obj.size, obj.ordinal, _side(obj))


def _certain_count(pairs, activity, instruction) -> int:
    """How many objects the instruction certainly asks to carry: distinct certain objects, each as many times as an
    explicit count says ("both", "두 개"); a thing named in several clauses is one object."""
    counts: dict[tuple, int] = {}
    for pair in pairs:
        task = pair.task
        if _certain(task, activity, instruction):
            # (the count of a list, "both the X and the Y", counts the things listed: each once)
            counts[_key(task.obj)] = max(counts.get(_key(task.obj), 1), 1 if _listed(task, instruction.tasks) else _count(task.obj))
    return sum(counts.values())


def _count(obj) -> int:
    """How many of the object a count says; a count read onto a phrase whose first nouns are generic ("Two things: rung
    to the left jig, leg to …" read as "two things rung") counts the things listed after it, not this one."""
    v = vocabulary()
    if obj.count and obj.count > 1 and any(noun_lemma(w) in v.en_generic or w in v.ko_generic for w in obj.words[:-1]):
        return 1
    return obj.count or 1


def _carrier(pair, pairs):
    """The paired transfer of the object this unpaired task handles again, if it handles one ("show it", the same
    noun in a later clause); None when it names another object or comes from a count ("both boxes")."""
    task = pair.task
    if task.obj is not None and task.obj.count and task.obj.count > 1:
        return None
    carried = [p for p in pairs if p.transfer is not None]
    if _unnamed(task):
        before = [p for p in carried if p.slot <= pair.slot]
        return (before or carried)[-1] if carried else None
    if task.obj.generic:
        return None
    return next((p for p in carried if p.task.obj is not None and not p.task.obj.pronoun and p.task.obj.noun is not None
                 and same_object(task.obj, p.task.obj) and same_object(p.task.obj, task.obj) and _same_side(task.obj, p.task.obj)), None)


def _same_side(a, b) -> bool:
    sides = (_side(a), _side(b))
    return None in sides or sides[0] == sides[1]


def _stop(place, transfer, activity, carried, others=()) -> Comparison | None:
    """Whether the carrying transfer passes the place this stage names: None when it does (or names none); a
    difference when the moves while holding the object name other places only; absent when they name none.

    A move named in words that do not compare with the stop ("the tension gauge" against `PickupShelf_Above`) is
    another place still when it is one of the `others` — the places the instruction itself names for the same
    carrying, where it is taken from or put down: the speaker told the two apart."""
    if place is None or place.key in ROBOT_PARTS or place.key in activity.tools:
        return None  # "gripper로 … 빼서": the tool it is done with, not a stop
    if compare_place(place, transfer.grasp, activity.positions, carried).same:
        return None  # taken up again from the stop: it was set down there ("check it on the gauge, then ...")
    last = transfer.release.step.index if transfer.release is not None else None
    window = [v for v in activity.visits if v.step.index >= transfer.grasp.step.index and (last is None or v.step.index <= last)]
    spots = [Spot(v.step, v.xyz, v.places, names=v.names, posed=bool(v.names)) for v in window] + \
        ([transfer.release] if transfer.release is not None else [])
    named = None
    previous = transfer.grasp.xyz
    for spot in spots:
        c = compare_place(place, spot, activity.positions, carried)
        if c.same:
            return None
        if not c.differs:
            c = _named_as_other(place, spot, others, activity, carried) or c
        if not c.differs and not _above(spot.xyz, previous):
            # a move it does not name, or names in words that compare with nothing, may be the one to that place
            return Comparison(ABSENT, detail="names nothing")
        named = named or (c.found if c.differs else None)
        previous = spot.xyz
    if named is None:
        return Comparison(ABSENT, detail="names nothing")
    return Comparison(OTHER_KIND, named, "another place")


def _named_as_other(place, spot, others, activity, carried) -> Comparison | None:
    """The spot is another place the instruction names for this carrying (its source or destination), which the stop is
    not: a difference, found in the spot's name; None otherwise."""
    for other in others:
        if other is None or relate(place, other).kind == SAME:
            continue
        c = compare_place(other, spot, activity.positions, carried)
        if c.same and c.found is not None and not c.contradicted and _shares_a_word(other, c.found.quote):
            return Comparison(OTHER_KIND, c.found, f"{other.text}, not {place.text}")
    return None


def _shares_a_word(place, quote: str) -> bool:
    """The program's name says one of the place's own words ("pickup shelf" / `p_racket_pickup_shelf_above`), not only a
    word of its kind (`XrayCabinet` is a cabinet, a kind of shelf, but no "grey rack")."""
    named = {noun_lemma(w.lower()) for w in identifier_words(quote)} | {w.lower() for w in re.findall(r"[A-Za-z]+|[\uac00-\ud7a3]+", quote)}
    return any(noun_lemma(w) in named or w in named for w in place.words if w not in _ARTICLES)


_ARTICLES = frozenset({"the", "a", "an"})


def _above(xyz, previous) -> bool:
    """A straight lift or descent from the last point (same x and y): a height over a station, not a stop of its own."""
    return xyz is not None and previous is not None and abs(xyz[0] - previous[0]) <= 1.0 and abs(xyz[1] - previous[1]) <= 1.0
