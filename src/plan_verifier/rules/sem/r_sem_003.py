from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules.sem._evidence import agrees, confidence, corroborated
from plan_verifier.rules.sem._semantic import SemanticRule, quote, said
from plan_verifier.semantic.activity import Spot
from plan_verifier.semantic.grounding import carried_words, compare_place
from plan_verifier.semantic.matching import overlaps, text_nouns
from plan_verifier.semantic.names import text_evidence, word_groups
from plan_verifier.semantic.places import SAME, VAGUE, kind_of, relate, words_of


@register
class RSem003(SemanticRule):
    """Location error: the plan picks up, puts down, moves or works at another place than the instruction says.

    The instruction's places — "bin 3", "table A", "slot 2", "the tray", "the OCV
    tester", "Pos_1", "3번 통", "2번 슬롯", coordinates "B(100, 105, 150)" — get their
    role from the sentence ("from"/"to"/"into"/"over to", "leave it at", "X goes
    into Y", "A -> B", 에서/로/에/에다). Each grasp must happen at the task's source
    and each release at its destination; where a grasp or release happens is read
    from the pose names of that cycle (read against the instruction's words for the
    object, so `PouchCell_LaserMarker_Release` names the laser marker), its comments,
    the cell position, or the coordinates. A place is compared as kind +
    designators + free words (`semantic/places.py`): two known kinds that differ
    (slot 2 and `Bin3_Place`), or one kind with another label, side or colour
    (bin 2 and bin 3, the left and the right jig), is a finding (0.9 from a name,
    0.8 from a comment); the same kind, or a related one, in other free words
    ("the PET bin", `ResidualBin`; "paint table", `GlueStation`) only when the
    same transfer names its object or other end the instruction's way (0.75). Kinds of one family (a box and a crate, a jig and a
    slot: the lexicon's `family`) are no other kind; within a family a reject
    container is still another one. Source and destination swapped is one finding,
    also when only the program's own places show it (it picks up at what the
    instruction's words call the destination and puts down at the source: 0.8).
    Closed-world evidence: a place the program names in words none of which the
    instruction's place has, while it names the instruction's place in its words at
    another spot of a task's transfer, is another place (0.75; not while a transfer
    is left over, which may be a leg the reader did not read). Before a put-down
    elsewhere (or a pick-up elsewhere) is judged, independent evidence from the
    coordinates is asked: an object picked up again where it was set down and
    carried on to the instruction's place (a swap through a spare tray, a buffer)
    was put there after all — no finding; an object held on the way at the
    instruction's place (a move away from grasp and release whose name names the
    object, `DecoderChip_DccTester_Hold`) may be a stop the reader took for the
    destination — the rule abstains. A move
    must reach the named place, a routine must run at the named position. The rule
    abstains (WARNING, insufficient_evidence) where the program names no place,
    only a vague or abbreviated one (`P3`, `pos4`, `sc`), a word no kind explains
    against a known kind, Korean the vocabulary cannot read, or contradicts itself
    (a name says one place, a comment another); and where the instruction's place
    stands in a clause the reader reports it could not read (R-SEM-000).

    **Unsafe**::

        # instruction: Move the red cube from bin 3 to the table
        SPAWN MoveLinear(target_pose=Cube_Bin3_Place, ...) WITH WAIT;   // releases in bin 3
        SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;

    **Safe**::

        # instruction: Move the red cube from bin 3 to the table
        SPAWN MoveLinear(target_pose=Cube_Table_Place, ...) WITH WAIT;
        SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;
    """

    id = "R-SEM-003"
    name = "location-error"

    def check(self, ctx):
        g = ctx.grounding
        if g is None:
            return
        text = g.instruction.text
        unverified = []
        judged = False
        for pair in g.pairs:
            task, t = pair.task, pair.transfer
            if t is None:
                continue
            src, dst = pair.source, pair.destination
            handover = task.action == "handover"
            sure_src, sure_dst = confidence(src, corroborated(pair, "source")), confidence(dst, corroborated(pair, "destination"))
            doubted = not handover and (sure_src is not None or sure_dst is not None or _crossed(task, src, dst))
            other = _done_by_another(task, t, g) if doubted else None
            if other is not None:
                unverified.append(f"from {task.source.text} to {task.destination.text} for the {_what(task)}: the plan carries "
                                  f"another thing the instruction names that way (step {other.grasp.step.index}), so the "
                                  "instruction's words may join two requests")
                continue
            if sure_src is not None and sure_dst is not None and not handover and _crossed(task, src, dst):
                judged = True
                yield self.judged(f"Location error: source and destination are swapped: the plan picks up at "
                                  f"{src.found.place.text} ({quote(src.found)}) and puts down at {dst.found.place.text} ({quote(dst.found)}), "
                                  f"but the instruction says from {task.source.text} to {task.destination.text} "
                                  f"({said(text[task.start:task.end])})", max(sure_src, sure_dst),
                                  step=t.grasp.step.index, span=t.grasp.step.span, suggestion="Pick up at the source and put down at the destination",
                                  expected_source=task.source.text, expected_destination=task.destination.text,
                                  grasp_step=t.grasp.step.index, release_step=t.release.step.index if t.release else None)
                continue
            if sure_src is None and sure_dst is None and not handover and not agrees(src) and not agrees(dst) and _crossed(task, src, dst):
                # the program's own pick place is the instruction's destination and its put-down place the source: the
                # instruction's words name both of the program's places, the other way round
                judged = True
                yield self.judged(f"Location error: source and destination are swapped: the plan picks up at "
                                  f"{src.found.place.text} ({quote(src.found)}) and puts down at {dst.found.place.text} ({quote(dst.found)}), "
                                  f"but the instruction says from {task.source.text} to {task.destination.text} "
                                  f"({said(text[task.start:task.end])})", 0.8,
                                  step=t.grasp.step.index, span=t.grasp.step.span, suggestion="Pick up at the source and put down at the destination",
                                  expected_source=task.source.text, expected_destination=task.destination.text,
                                  grasp_step=t.grasp.step.index, release_step=t.release.step.index if t.release else None)
                continue
            for c, sure, want, verb, spot in ((src, sure_src, task.source, "picks up", t.grasp),
                                              (dst, sure_dst, None if handover else task.destination, "puts down", t.release)):
                if want is None or spot is None:
                    continue
                if sure is None and not agrees(c):
                    sure = _named_elsewhere(want, c, spot, g)
                if sure is not None and _carried_on(want, task, t, verb == "puts down", g):
                    continue  # a stopover: the same object reaches (or came from) the place the instruction says
                stop = _held_at(want, task, t, g) if sure is not None and verb == "puts down" else None
                if stop is not None:
                    unverified.append(f"{want.text} as the place where the plan {verb} the {_what(task)} (step {spot.step.index}): "
                                      f"it holds the {_what(task)} at {want.text} on the way (step {stop}), so the instruction "
                                      "may name a stop, not where it goes")
                elif sure is not None and _doubted(want, task, g.instruction):
                    unverified.append(f"{want.text} as the place where the plan {verb} the {_what(task)} (step {spot.step.index}): "
                                      f"the instruction's words around it could not be read")
                elif sure is not None:
                    found = c.found.place.text if c.found is not None and c.found.place is not None else "other coordinates"
                    judged = True
                    yield self.judged(f"Location error: the plan {verb} the {_what(task)} at {found} ({quote(c.found)}), but the "
                                      f"instruction says {want.text} ({said(text[task.start:task.end])})", sure,
                                      step=c.found.step if c.found else spot.step.index, span=c.found.span if c.found else spot.step.span,
                                      suggestion=f"{verb.capitalize()} at {want.text}", expected=want.text, found=found, kind=c.relation)
                elif not agrees(c):
                    unverified.append(f"{want.text} as the place where the plan {verb} the {_what(task)} (step {spot.step.index}): "
                                      + _why(c))
        for task, visit, c in g.visits:
            sure = confidence(c)
            if sure is not None:
                judged = True
                yield self.judged(f"Location error: the instruction says to go to {task.destination.text}, but the plan moves to "
                                  f"{c.found.place.text if c.found and c.found.place else 'other coordinates'} ({quote(c.found)})",
                                  sure - 0.05, step=c.found.step if c.found else None, span=c.found.span if c.found else None,
                                  suggestion=f"Move to {task.destination.text}", expected=task.destination.text)
            elif visit is None:
                unverified.append(f"a move to {task.destination.text}: the plan names none of its targets that way")
        for task, work, c in g.works:
            if work is None or task.at is None:
                continue
            sure = confidence(c)
            if sure is not None:
                judged = True
                yield self.judged(f"Location error: the plan runs '{work.routine}' at {work.spot.position or quote(c.found)}, but the "
                                  f"instruction says to {task.action} at {task.at.text} ({said(text[task.start:task.end])})", sure,
                                  step=work.step.index, span=work.step.span, suggestion=f"Run '{work.routine}' at {task.at.text}",
                                  expected=task.at.text, found=work.spot.position)
            elif not agrees(c):
                unverified.append(f"{task.at.text} as the place to {task.action}")
        if unverified and not judged:
            yield self.abstain(unverified)


def _what(task) -> str:
    return task.obj.describe() if task.obj is not None else "object"


def _why(c) -> str:
    if c.contradicted:
        return f"it names {quote(c.found)} there, and another place as well"
    return f"it names {quote(c.found)}" if c.found is not None else "it names no place there"


def _doubted(want, task, instruction) -> bool:
    """The place was read from a clause the reader also reports it could not read, and that clause names another place
    of a known kind after it which the task does not account for ("편광 검사기에 한 번 보고 2단 서냉로에 다시 넣어 둬": a
    stop read as where the thing goes, the real destination left over): the reading of that place is in doubt, so a
    difference from the program is no contradiction. (A clause whose only place is this one leaves no other reading.)"""
    if not want.text:
        return False
    used = {p.text for p in (task.source, task.destination) if p is not None}
    for part in instruction.unread:
        at = part.find(want.text)
        if at < 0:
            continue
        later = text_evidence(part[at + len(want.text):])[1]
        if any(kind_of(p) not in (None, "operator", *VAGUE) and not any(p.text in u or u in p.text for u in used) for _, p in later):
            return True
    return False


def _named_elsewhere(want, c, spot, g) -> float | None:
    """Closed-world evidence: the program names the place here in words none of which the instruction's place has, and
    names the instruction's place — in its words — at another spot of its own (another pick or put-down of a transfer
    that carries out a task, at least 30 mm away). The instruction's words then name a place the program knows, and
    this is not it (0.75). Not while a transfer is left over: it may be a leg the reader did not read."""
    if c.found is None or c.found.place is None or c.contradicted or spot is None or spot.xyz is None:
        return None
    if overlaps(words_of(want), words_of(c.found.place)):
        return None
    if g.extra:
        return None  # a transfer no task accounts for may be a leg of the way the reader did not read: no closed world
    for t in (p.transfer for p in g.pairs if p.transfer is not None):
        for other in (t.grasp, t.release):
            if other is None or other.xyz is None or other is spot or _near(other.xyz, spot.xyz):
                continue
            if any(n.place is not None and relate(want, n.place).kind == SAME and overlaps(words_of(want), words_of(n.place))
                   for n in other.places):
                return 0.75
    return None


def _carried_on(want, task, t, forward: bool, g) -> bool:
    """Independent evidence that the place is right after all: the object put down here is picked up again at this
    spot and carried on, and a later put-down of that chain is at the instruction's place (a swap that parks one
    thing on a third place, a buffer on the way); or, for a source, the object picked up here was brought here from
    the instruction's place. The chain follows the coordinates (picked up where it was set down), not the names,
    so it holds however the program names its places."""
    chain, spot = [], (t.release if forward else t.grasp)
    transfers = g.activity.transfers
    ordered = [x for x in transfers if (x.index > t.index if forward else x.index < t.index)]
    if not forward:
        ordered.reverse()
    for x in ordered:
        joint, far = (x.grasp, x.release) if forward else (x.release, x.grasp)
        if spot is None or spot.xyz is None or joint is None or joint.xyz is None or not _near(joint.xyz, spot.xyz) or \
                _others(x, t):
            continue
        chain.append(far)
        spot = far
    carried = carried_words(task)
    return any(end is not None and compare_place(want, end, g.activity.positions, carried).same for end in chain)


def _others(a, b) -> bool:
    """Both transfers name what they carry, and no object in common: another thing set down or picked up there."""
    nouns = [{n.obj.noun for n in x.grasp.objects if n.obj is not None and n.obj.noun} for x in (a, b)]
    return all(nouns) and not nouns[0] & nouns[1]


def _held_at(want, task, t, g) -> int | None:
    """The step of a move between this transfer's grasp and its release, away from both, that reaches the
    instruction's place, and whose name says it holds the object there (`DecoderChip_DccTester_Hold`): the object is
    held there on the way ("to the DCC tester and back to drawer 1"), so the instruction's place may be a stop the
    reader took for the destination. (Moves near the grasp or the release — the lift, the approach — are no stop,
    and a waypoint that does not name the object is only the way, as a JSON plan's path along the cell's edges.)"""
    if t.release is None or t.grasp.xyz is None or t.release.xyz is None:
        return None
    carried = carried_words(task)
    thing = {w.lower() for w in carried} | {w.lower() for n in t.grasp.objects if n.obj is not None for w in n.obj.words}
    for visit in g.activity.visits:
        if t.grasp.step.index < visit.step.index < t.release.step.index and visit.xyz is not None and \
                not _near(visit.xyz, t.grasp.xyz) and not _near(visit.xyz, t.release.xyz) and \
                any(w.lower() in thing for n in visit.names for group in word_groups(n.quote) for w in group) and \
                compare_place(want, Spot(visit.step, visit.xyz, visit.places), g.activity.positions, carried).same:
            return visit.step.index
    return None


def _near(a, b) -> bool:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 <= 30.0 ** 2


def _done_by_another(task, t, g):
    """A transfer no task was paired with that carries a thing the instruction names from the task's source to its
    destination (None: there is none). Then the reader joined two requests into this task ("A에서 B로, frog는 B에서 A로":
    two things change places, the first one's name unread) and paired it with the wrong transfer."""
    if task.source is None or task.destination is None:
        return None
    positions, carried = g.activity.positions, carried_words(task)
    routed = [other for other in g.extra if other is not t and other.release is not None
              and compare_place(task.source, other.grasp, positions, carried).same
              and compare_place(task.destination, other.release, positions, carried).same]
    said_words = text_nouns(g.instruction.text) if routed else ()
    return next((other for other in routed if overlaps(
        tuple(w for n in other.grasp.objects if n.obj is not None for w in (n.obj.words or (n.obj.noun,)) if w), said_words)), None)


def _crossed(task, src, dst) -> bool:
    """The grasp is at the task's destination and the release at its source, and not at its source and destination as
    well: places that fit both ways round ("1번 베이 카트" → "2번 베이 카트" against a program's Bay1Cart and Bay2Cart read as
    two carts without a number) are not told apart by anything both sides have, which shows no swap."""
    if task.source is None or task.destination is None or src.found is None or dst.found is None:
        return False
    if src.found.place is None or dst.found.place is None:
        return False
    return relate(task.destination, src.found.place).kind == SAME and relate(task.source, dst.found.place).kind == SAME and \
        not (relate(task.source, src.found.place).kind == SAME or relate(task.destination, dst.found.place).kind == SAME)
