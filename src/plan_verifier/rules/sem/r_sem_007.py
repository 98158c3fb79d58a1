from __future__ import annotations

import re

from plan_verifier.rules import register
from plan_verifier.rules.sem._semantic import SemanticRule, quote, said
from plan_verifier.semantic.activity import COMMENT, IDENTIFIER
from plan_verifier.semantic.grounding import compare_object, compare_place, same_object
from plan_verifier.semantic.language import english_tokens, has_hangul, identifier_words, noun_lemma, similar, verb_lemma
from plan_verifier.semantic.matching import overlaps, text_nouns
from plan_verifier.semantic.places import kind_of
from plan_verifier.semantic.vocabulary import vocabulary


@register
class RSem007(SemanticRule):
    """Unrequested task: the plan moves an object the instruction excludes, or one it never asks for.

    Negation and exclusion are read with their scope: "don't touch the blue
    cube", "leave the bottle where it is", "everything except the green one",
    "without moving the tray", "파란 큐브는 건드리지 말고", "초록 블록 말고". A
    transfer whose own names or comments say it carries an excluded object is
    reported (0.9 from names, 0.8 from comments); a transfer merely not named
    is not evidence of a violation. A transfer no task accounts for is
    reported when the program names its object and it is none the instruction
    asks for (an extra task); a further transfer of a thing the instruction does
    name, anywhere outside its negations ("can은 capper 갔다가 labeller로",
    "label the can and stow it …"), is most likely a leg of its way the reader did
    not read, and the rule abstains; when it names nothing, or the reader left a
    clause of the instruction unplaced or a carrying task unpaired (that clause
    may be this transfer or routine, read wrongly), the rule abstains.

    It rejects only on grounding it is sure of on both sides, and abstains
    otherwise: an exclusion said with a place ("don't put the bear in the
    defect bin", "leave the X on the tray") is broken by a release there or a
    grasp from there, not by a transfer between other places; a transfer that
    carries out a task, or whose pose names say it carries something else than
    a comment does, is no violation; a place passed by that the instruction
    rules out ("skip the thermal camera", "don't go via the dryer") is broken
    by a stop whose name says all the instruction's words and designators for
    it (not by a stop at another bin when it says "not bin A"); a thing the instruction names as a place
    (a camera it visits, the carton things go in) is not carried; a routine
    whose kind of work a verb of the instruction names outside its negations
    ("…, screw it down, …") is not called unrequested.

    **Unsafe**::

        # instruction: Don't touch the blue cube; put the red cube into bin 3
        DEFINE Blue_Cube_Pick = PosX(500, -200, 40, 180, 0, 0);
        SPAWN MoveLinear(target_pose=Blue_Cube_Pick, ...) WITH WAIT;
        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;

    **Safe**::

        # instruction: Don't touch the blue cube; put the red cube into bin 3
        DEFINE Red_Cube_Pick = PosX(500, 200, 40, 180, 0, 0);
    """

    id = "R-SEM-007"
    name = "unrequested-task"

    def check(self, ctx):
        g = ctx.grounding
        if g is None or not (g.instruction.tasks or g.instruction.excluded or g.instruction.excluded_places):
            return
        text = g.instruction.text
        judged = False
        unverified = []
        for hit in g.excluded:
            x = hit.obj.describe()
            doubt = _doubtful_exclusion(g, hit)
            if doubt:
                unverified.append(f"the {x} the instruction excludes ({said(_clause(g, hit.obj))}): {doubt}")
                continue
            judged = True
            yield self.judged(f"Excluded object handled: the instruction says to leave the {x} alone ({said(_clause(g, hit.obj))}), "
                              f"but the plan picks it up ({quote(hit.found)})", 0.9 if hit.found.source != "comment" else 0.8,
                              step=hit.found.step, span=hit.found.span, suggestion=f"Do not move the {x}", excluded=x,
                              found=hit.found.quote, kind="negation_violated")
        for what, step, found in g.excluded_works:
            judged = True
            yield self.judged(f"Excluded task done: the instruction says not to {what} ({said(text)}), but the plan does ({quote(found)})",
                              0.9 if found.source != "comment" else 0.8, step=found.step, span=found.span,
                              suggestion=f"Do not {what}", found=found.quote, kind="negation_violated")
        excluded = {id(h.transfer) for h in g.excluded}
        # A re-grasp handles an object again: one the instruction names specifically, or one the program itself names
        # at a transfer that carries out a task ("the plastic part" does not make a third transfer of a housing one).
        asked = [t.obj for t in g.instruction.tasks if t.obj is not None and t.obj.noun is not None and not t.obj.generic]
        done = [(n.obj, p.transfer) for p in g.pairs if p.transfer is not None for n in p.transfer.objects if n.obj is not None]
        for t in g.extra:
            if id(t) in excluded:
                continue
            stayed = _taken_again(t, g)
            if stayed is not None:
                judged = True
                yield self.judged(f"Unrequested task: the instruction says to leave the {_what(stayed.task)} where it is put "
                                  f"({said(text[stayed.task.start:stayed.task.end])}), but the plan picks it up again (step "
                                  f"{t.grasp.step.index})", 0.8, step=t.grasp.step.index, span=t.grasp.step.span,
                                  suggestion=f"Remove the transfer at step {t.grasp.step.index}", kind="extra_task")
                continue
            named = [n for n in t.objects if n.obj is not None]
            # (what the extra transfer's name says at its grasp: at a release the same word may be the place both are put
            # down at, `modfix`)
            apart = {id(n) for n in t.grasp.objects if n.obj is not None and not _regrasp(t, g) and _told_apart_by_program(n.obj, g, t)}
            if any(compare_object(a, [n]).same for a in asked for n in named) or \
                    any(_named_again(o, n.obj) and not _place_of_both(n.obj, (done_by.grasp, t.grasp)) and not _modifies_a_place(n)
                        for o, done_by in done for n in t.grasp.objects if n.obj is not None and id(n) not in apart):
                moved_on = _moved_on(t, g)
                if moved_on is not None:
                    pair, found = moved_on
                    judged = True
                    yield self.judged(f"Unrequested task: the instruction puts the {_what(pair.task)} on {pair.task.destination.text} "
                                      f"({said(text[pair.task.start:pair.task.end])}), but the plan then takes it on elsewhere "
                                      f"({quote(found)})", 0.75, step=t.grasp.step.index, span=t.grasp.step.span,
                                      suggestion=f"Remove the transfer at step {t.grasp.step.index}", found=found.quote, kind="extra_task")
                continue  # the same object handled again (a re-grasp): not another task
            # what the instruction names as a place ("the carton", "crack camera 들러") is where things go, not a thing carried
            # (nor is a word of the place the program names at that very spot: "plating" of "miso bowl: plating station → …")
            placed = {id(n) for spot in (t.grasp, t.release) if spot is not None for n in spot.objects
                      if n.obj is not None and _place_word(n.obj, spot)}
            carried = [n for n in named if not _a_place_of_the_instruction(n.obj, g) and id(n) not in placed]
            if named and not carried:
                unverified.append(f"the grasp at step {t.grasp.step.index}: what the plan names there is a place of the instruction")
                continue
            named = carried
            again = next((n for n in named if _named_by_instruction(n.obj, g)), None)
            if again is not None and not _regrasp(t, g) and _told_apart_by_program(again.obj, g, t):
                again = None  # "Clipper" where the program calls the asked thing "ClipperBlade": another thing
            if again is not None:
                # another leg of a thing the instruction moves: a stop or step on its way the reader did not read
                unverified.append(f"the grasp at step {t.grasp.step.index}: the plan moves the {again.obj.describe()} again "
                                  f"({quote(again)}), which the instruction names; it may be a stop on its way the reader did not read")
                continue
            known = [n for n in named if n.known]
            if known and _fully_read(g) and not _said_in_passing(known[0].obj, g):
                n = known[0]
                judged = True
                yield self.judged(f"Unrequested task: the plan also moves the {n.obj.describe()} ({quote(n)}), which the instruction "
                                  f"({said(text)}) does not ask for", 0.9 if n.source != "comment" else 0.8, step=n.step, span=n.span,
                                  suggestion=f"Remove the transfer of the {n.obj.describe()}", found=n.quote, kind="extra_task")
            elif named and _all_tasks_done(g) and not _regrasp(t, g) and not any(_resembles(a, n.obj) for a in asked for n in named) \
                    and not any(_said_in_passing(n.obj, g) for n in named):
                n = named[0]
                judged = True
                yield self.judged(f"Unrequested task: the plan also moves what it calls '{n.obj.text}' ({quote(n)}), which is none of "
                                  f"the objects the instruction ({said(text)}) asks for", 0.75, step=n.step, span=n.span,
                                  suggestion=f"Remove the transfer at step {t.grasp.step.index}", found=n.quote, kind="extra_task")
            else:
                unverified.append(f"the grasp at step {t.grasp.step.index}: no task of the instruction accounts for it")
        for w in g.extra_works:
            if not _fully_read(g) or any(task.action == w.action for task, work, c in g.works if work is None or not c.same) or \
                    not any(task.action == w.action for task in g.instruction.tasks) and _verb_said(w.action, _unnegated(g)):
                # A request the reader could not place, or one of this kind it could not match: this routine may be it.
                unverified.append(f"'{w.routine}' at {w.spot.position}: a request of the instruction is unaccounted for and may be this one")
                continue
            judged = True
            yield self.judged(f"Unrequested task: the plan also runs '{w.routine}' at {w.spot.position}, which the instruction ({said(text)}) "
                              f"does not ask for", 0.9, step=w.step.index, span=w.step.span, suggestion=f"Remove the '{w.routine}' step",
                              found=w.routine, kind="extra_task")
        if unverified and not judged:
            yield self.abstain(unverified)


def _doubtful_exclusion(g, hit) -> str | None:
    """Why a transfer that names an excluded thing may still not be a violation (None: it surely is).

    The stage rejects only on grounding it is sure of on both sides. A transfer that carries out a task, naming the
    thing that task asks for, is that task ("펜던트 진열장에다가 놔 줘, 스크랩 상자 말고": the box is the place ruled
    out, not the pendant moved). And an exclusion said with a place ("don't put the bear in the defect bin", "leave the
    derailleur on the hand-over tray") is about the thing *there*: it is broken by a release at that place (a goal) or a
    grasp from it (where the thing is), not by a transfer between other places, and a transfer that brings the thing to
    that place is the other reading of "leave it on P"."""
    t = hit.transfer
    x = hit.obj
    if x.color is None and x.material is None and x.noun is not None:
        # excluded by its class alone: a transfer that carries out a task naming another class is that task
        for p in g.pairs:
            if p.transfer is t and p.object.same and p.task.obj is not None and p.task.obj.noun is not None and \
                    not same_object(x, p.task.obj):
                return f"the transfer at step {t.grasp.step.index} is the one that moves the {_what(p.task)}"
    if hit.found.source == COMMENT:
        # a comment names the excluded thing, the pose names of the same grasp another one: the program contradicts itself
        posed = [n for n in t.grasp.objects if n.source == IDENTIFIER and n.obj is not None and n.obj.noun is not None]
        if posed and not any(same_object(x, n.obj) for n in posed):
            return f"its pose names say it carries the {posed[0].obj.describe()} ({quote(posed[0])})"
    clause = _excluding_clause(g, x)
    if clause is None or not clause.negated or x not in clause.objects:
        return None
    if len(clause.objects) > 1 and clause.objects[0] is x:
        # "봉투 묶음은 수축 포장기 거치지 말고 바로 출고 상자로 보내": the thing a negated clause is about, with another thing
        # it says not to go through, is what a following carrying task without an object of its own moves on
        moved = next((t for t in g.instruction.tasks if t.start >= clause.end and t.carries and (t.obj is None or t.obj.pronoun)), None)
        if moved is not None:
            return f"it is what {said(text_of(g, moved))} moves; the negation may be about its way"
    places = [place for role, place in clause.places if role in ("location", "goal", "source") and place.key not in ("there", "home")]
    if not places:
        return None
    at_release = [compare_place(place, t.release) if t.release is not None else None for place in places]
    at_grasp = [compare_place(place, t.grasp) for place in places]
    if clause.action in ("place", "insert", "stack") or clause.action == "transfer" and any(r == "goal" for r, _ in clause.places):
        # "don't put the bear in the defect bin": what is ruled out is that place for it
        if any(c is not None and c.same and not c.contradicted for c in at_release):
            return None
        return f"the instruction rules out {places[0].text} for it, and the plan does not put it there"
    # "leave the X on P", "don't touch the X on P": the X that is there
    if any(c is not None and c.same for c in at_release):
        return f"the plan brings it to {places[0].text}, which \"leave it on …\" may ask for"
    if not any(c.same for c in at_grasp) and any(c.differs for c in at_grasp):
        return f"the plan takes it from another place than {places[0].text}"
    return None


def text_of(g, task) -> str:
    return g.instruction.text[task.start:task.end]


def _excluding_clause(g, obj):
    for clause in g.instruction.clauses:
        if obj in clause.excluded or (clause.negated and obj in clause.objects):
            return clause
    return None


_NEGATORS = frozenset({"no", "not", "never", "without", "nor"})


def _unnegated(g) -> str:
    """The instruction's words outside its negated clauses and exclusions ("don't weld seam 5" asks for no weld)."""
    text = g.instruction.text
    for c in g.instruction.clauses:
        if c.negated or c.excluded or c.excluded_places:
            text = text[:c.start] + " " * (c.end - c.start) + text[c.end:]
    return text


def _verb_said(action: str, text: str) -> bool:
    """Does a verb of this kind of work stand anywhere in the instruction ("Feeder → fixture, screw it down, …")? Then the
    routine may be what it asks for in words the reader did not place: no ground to call it unrequested."""
    v = vocabulary()
    tokens = english_tokens(text)
    if any(v.en_actions.get(verb_lemma(t.low)) == action and not (k and tokens[k - 1].low in _NEGATORS)
           for k, t in enumerate(tokens) if t.text.isalpha()):
        return True  # ("No welding today" rules the work out)
    return any(a == action and len(stem) >= 2 and stem in text for stem, a in v.ko_actions.items())


def _fully_read(g) -> bool:
    """The reader found a task in every clause and a transfer for every carrying task: only then is a further transfer
    or routine one nobody asked for, not a request it read wrongly ("slip sheet 깔고", "put a tack on seam one")."""
    text = g.instruction.text
    clauses = g.instruction.clauses
    return bool(g.instruction.tasks) and not g.instruction.unread and all(p.transfer is not None for p in g.pairs) and not any(
        c.action is None and not c.negated and any(ch.isalpha() for ch in text[c.start:c.end]) and (not c.fact or _step_before(c, nxt))
        for c, nxt in zip(clauses, clauses[1:] + (None,)))


def _a_place_of_the_instruction(obj, g) -> bool:
    """Is the thing the program names one the instruction names as a place ("crack camera 먼저 들러" and a comment "hold the
    teapot in front of the crack camera")? A place is not carried: no ground for an extra transfer."""
    if obj.noun is None:
        return False
    mine = tuple(dict.fromkeys((obj.noun, *obj.words)))
    # (a place of a known kind, a camera or a container; not a thing read as a place: "keep your hands off the blue cube")
    return any(overlaps(mine, (place.key, *place.words)) for c in g.instruction.clauses for _, place in c.places
               if place.key not in ("there", "home", "operator") and kind_of(place) is not None)


def _named_by_instruction(obj, g) -> bool:
    """Does the instruction name this thing anywhere outside its negations ("can은 capper 갔다가 labeller로", "label the
    can and stow it in the case")? A further transfer of it is then most likely a leg of its way the reader did not
    read (a stop, a via point, a step in a verb it does not know), not a task nobody asked for. A thing the instruction
    names with another colour or material ("the red cube" and a blue one) is not this one."""
    if obj.noun is None or obj.generic:
        return False
    text = g.instruction.text
    said = [c for c in g.instruction.clauses if not c.negated and not _left_alone(text[c.start:c.end])]
    refs = [o for c in said for o in (*c.objects, *c.mentions)] + \
        [place.obj for c in said for _, place in c.places if place.obj is not None] + \
        [t.obj for t in g.instruction.tasks if t.obj is not None]
    refs = [r for r in refs if r.noun is not None and not r.generic and same_object(r, obj)]
    if refs:
        return any(_attributes_fit(r, obj) for r in refs)
    if obj.color is not None or obj.material is not None:
        return False
    mine = tuple(dict.fromkeys((*obj.words, *text_nouns(obj.text or ""), obj.noun)))
    if len(obj.words) >= 2 and all(has_hangul(w) for w in obj.words):
        mine = (obj.words[-1],)  # a Korean compound is its last noun: "표본 폴더" is a folder, whatever "고사리 표본" says
    return any(overlaps(mine, _nouns_asked(c, text)) for c in said)


def _nouns_asked(clause, text: str) -> tuple[str, ...]:
    """The clause's nouns without those of what it rules out ("Travel tin goes in the blue box, not the red one" still
    names the tin)."""
    nouns = text_nouns(text[clause.start:clause.end])
    if not (clause.excluded or clause.excluded_places):
        return nouns
    ruled = [w for o in clause.excluded for w in (*o.words, *text_nouns(o.text or ""), o.noun) if w] + \
        [w for place in clause.excluded_places for w in (*place.words, *text_nouns(place.text)) if w]
    return tuple(n for n in nouns if not overlaps((n,), tuple(ruled)))


#: The prepositions and verbs of the lexicon's `leave_alone` ("leave it on …"): the rest says a thing stays.
_NOT_STAYING = frozenset({"at", "be", "in", "on", "put", "there"})


def _left_alone(clause: str) -> bool:
    """A clause that says a thing stays ("The blue cube stays where it is", "as is"): it names the thing not to move it."""
    low = f" {clause.lower()} "
    return any(f" {w} " in low for w in vocabulary().leave_alone - _NOT_STAYING)


def _attributes_fit(a, b) -> bool:
    return all(x is None or y is None or x == y for x, y in ((a.color, b.color), (a.material, b.material), (a.size, b.size)))


_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "some", "its", "their"})


def _said_in_passing(obj, g) -> bool:
    """Is the thing named, with a place, in a sentence the reader took for context ("Load the centrifuge: the vial from
    rack B goes in after …")? Then the instruction may ask to move it there: no ground to reject. ("The blue cube stays
    where it is" names no place: moving the cube is still nothing anybody asked for.)"""
    v = vocabulary()
    words = tuple(dict.fromkeys(w.lower() for w in (*obj.words, *re.findall(r"\w+", obj.text or ""), obj.noun or "")
                                if w and w.lower() not in _DETERMINERS))  # ("the felt hood" and "… on the brim press": no word in common)
    if not words:
        return False
    text = g.instruction.text
    for c in g.instruction.clauses:
        if c.fact or c.action is None:
            said_words = tuple(w.lower() for w in re.findall(r"\w+", text[c.start:c.end]))
            placed = any(v.en_places.get(w, "position") != "position" or any(k in w for k in v.ko_places if len(k) > 1)
                         for w in said_words)
            if placed and overlaps(words, said_words):
                return True
    return False


def _step_before(clause, following) -> bool:
    """A "fact" that read nothing, followed by "then …" ("상자 먼저 컨베이어에 깔고, 그 다음에 …"): the first step of a
    sequence in a verb the reader does not know, not a remark."""
    return following is not None and following.order == "sequence" and not (clause.objects or clause.places or clause.manner)


def _all_tasks_done(g) -> bool:
    """Every task of a fully read instruction is carried out by a transfer the program names as the task's object or
    places: a further transfer of something else named can then only be one nobody asked for."""
    return bool(g.pairs) and _fully_read(g) and all(
        p.transfer is not None and (p.object.same or p.source.same and p.destination.same)
        for p in g.pairs)


def _moved_on(t, g):
    """The pair whose transfer put its thing down where this later transfer of the same thing picks it up (within 30 mm),
    when this one takes it to a place the program names as another than the task's destination, in an instruction read
    whole whose every task is done: the thing does not end where the instruction puts it ("Put the tray on the scale",
    then on to the packing cart). (pair, the program's name of the other place), or None."""
    here, there = t.grasp.xyz, t.release.xyz if t.release is not None else None
    if here is None or there is None or _close(here, there) or not _all_tasks_done(g):
        return None
    for p in g.pairs:
        r = p.transfer.release if p.transfer is not None else None
        if r is None or r.xyz is None or p.task.destination is None or p.task.action == "pick" or \
                t.grasp.step.index < r.step.index or not _close(here, r.xyz):
            continue
        c = compare_place(p.task.destination, t.release, g.activity.positions, tuple(p.task.obj.words) if p.task.obj else ())
        if c.differs and not c.contradicted and c.found is not None:
            return p, c.found
    return None


def _close(a, b) -> bool:
    return sum((x - y) ** 2 for x, y in zip(a, b)) <= 30.0 ** 2


def _told_apart_by_program(obj, g, t) -> bool:
    """The word is a modifier of an object the instruction asks for ("clipper" of "the clipper blade"), the program names
    that object by its head noun at the transfer that carries it out (`ClipperBlade_…`) and never at this transfer `t`
    (`Clipper_ChargingDock_Grasp`): the program itself tells the thing called by the modifier alone apart from the one
    asked for."""
    for p in g.pairs:
        asked = p.task.obj
        if asked is None or asked.noun is None or obj.noun is None or obj.noun == asked.noun or \
                obj.noun not in asked.words or p.transfer is None or p.transfer is t or \
                any(n.obj is not None and n.obj.noun == asked.noun for n in t.objects):
            continue
        if any(n.obj is not None and n.obj.noun == asked.noun for n in p.transfer.objects):
            return True
    return False


def _taken_again(t, g):
    """The pair whose task says its thing stays where it is put ("… and leave it there"), if this later transfer picks it up
    again there (its grasp within 30 mm of that release)."""
    here = t.grasp.xyz
    for p in g.pairs:
        if p.task.stays and p.transfer is not None and p.transfer.release is not None and p.transfer.release.xyz is not None and \
                here is not None and t.grasp.step.index > p.transfer.release.step.index and \
                sum((a - b) ** 2 for a, b in zip(here, p.transfer.release.xyz)) <= 30.0 ** 2:
            return p
    return None


def _what(task) -> str:
    return task.obj.describe() if task.obj is not None and not task.obj.pronoun else "object"


def _regrasp(t, g) -> bool:
    """The grasp is where a task's transfer released its object (within 30 mm): that object taken up again, whatever
    the program calls the pose."""
    here = t.grasp.xyz
    return here is not None and any(
        p.transfer is not None and p.transfer.release is not None and p.transfer.release.xyz is not None and
        sum((a - b) ** 2 for a, b in zip(here, p.transfer.release.xyz)) <= 30.0 ** 2 for p in g.pairs)


def _resembles(a, b) -> bool:
    """The program's word could be the instruction's noun abbreviated or spelt otherwise ("dboard" for daughterboard)."""
    if a.noun is None or b.noun is None:
        return True
    x, y = a.noun.lower(), b.noun.lower()
    return x in y or y in x or similar(x, y) >= 60 or _initials(x, y)


def _initials(x: str, y: str) -> bool:
    """`dboard` for daughterboard: the short name's letters appear in order in the long one."""
    short, long_ = sorted((x, y), key=len)
    it = iter(long_)
    return len(short) >= 3 and all(c in it for c in short)


def _named_again(a, b) -> bool:
    """The program names the same object twice (same noun or both generic, no attribute that differs)."""
    return (a.noun == b.noun or a.noun is None and b.noun is None) and all(
        x is None or y is None or x == y for x, y in ((a.color, b.color), (a.material, b.material), (a.size, b.size)))


def _modifies_a_place(named) -> bool:
    """Is the word, in the pose name it comes from, right before a place noun (`p_microfilm_reel_map_drawer_lower_pick`:
    the map drawer)? Then it names which place, not the thing taken there."""
    if named.source != IDENTIFIER or named.obj is None or named.obj.noun is None:
        return False
    v = vocabulary()
    words = [w.lower() for w in identifier_words(named.quote)]
    return any(noun_lemma(w) == named.obj.noun and k + 1 < len(words) and v.en_places.get(noun_lemma(words[k + 1]))
               for k, w in enumerate(words))


def _place_of_both(obj, spots) -> bool:
    """Is the word both grasps share a word of the place each is at ("bowl: trimming wheel → drying shelf" after the vase
    from the trimming wheel; `p_bowl_trimming_wheel_pick` after `p_vase_trimming_wheel_pick`)? Then the two take things
    from one place, not one thing twice."""
    return all(_place_word(obj, spot, by_names=True) for spot in spots)


def _place_word(obj, spot, by_names: bool = False) -> bool:
    """Is the thing's word one of the place the program names at this spot ("plating station" in "miso bowl: plating
    station → …")? A comment sets thing and place apart; a pose name read alone only against another that shares it
    (`by_names`): by itself `p_reference_cell_…` may read the cell as a place. A place reading that holds every word
    the spot names tells nothing apart."""
    if obj.noun is None:
        return False
    things = {n.obj.noun for n in spot.objects if n.obj is not None and n.obj.noun}
    return any((by_names or n.source != IDENTIFIER) and n.place is not None and overlaps((obj.noun,), n.place.words)
               and not things <= set(n.place.words) for n in spot.places)


def _clause(g, obj) -> str:
    """The words of the instruction that exclude `obj` (the whole instruction when they cannot be found)."""
    for clause in g.instruction.clauses:
        if obj in clause.excluded or (clause.negated and obj in clause.objects):
            return g.instruction.text[clause.start:clause.end]
    return g.instruction.text
