"""An operator's instruction read as an ordered list of tasks.

`read_instruction` turns "Don't touch the blue cube; put the red cube into bin 3"
into what a comparison can use: tasks (action, object with its attributes,
source, destination, manner) in execution order, the objects the instruction
excludes, whether it fixes the order, and which sentences were only context.
English is read by `english.py`, Korean by `korean.py`, notation (headings,
planner summaries, arrow routes) by `notation.py` and self-corrections by
`corrections.py`; all produce clauses, which are assembled into tasks here
(pick + put-down clauses become one transfer, pronouns take the last object,
"before"/"after" reorder).

The reading is conservative: a sentence it cannot read gives no task, so an
unusual instruction makes the semantic stage say less (and say that it could
not judge), never reject a correct plan on a guess.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

from plan_verifier.semantic.clauses import CARRYING, ORIGIN, WORK, Clause, ObjectRef, PlaceRef
from plan_verifier.semantic.corrections import corrected
from plan_verifier.semantic.language import has_hangul
from plan_verifier.semantic.manner import manner_said
from plan_verifier.semantic.notation import notation_routes, origin_of, refinement_of, without_cell_heading, without_goal_statement, without_summary
from plan_verifier.semantic.places import hands_over, place_key

#: Verbs that move the robot itself when they have no object ("move to A"); other carrying verbs without an
#: object carry what the speaker left unsaid ("B로 옮겨줘").
_INTRANSITIVE_MOVES = frozenset({"move", "moves", "moved", "moving", "이동", "이동시키", "움직이"})
@dataclass(frozen=True, slots=True)
class Task:
    action: str  # pick | transfer | place | insert | stack | handover | move_to | return_home | inspect | weld | screw | attach | detach
    text: str  # the words of the instruction this task was read from
    obj: ObjectRef | None = None
    source: PlaceRef | None = None
    destination: PlaceRef | None = None
    at: PlaceRef | None = None  # where a work action (weld, inspect) happens
    manner: tuple[tuple[str, str], ...] = ()
    start: int = 0
    end: int = 0
    #: Which step of the instruction's order this task belongs to: tasks joined by a plain "and" share one, an order
    #: word ("then", "first ...", "after that", "먼저", "그 다음") starts the next. Only tasks of different stages are ordered.
    stage: int = 0
    #: The instruction says the thing stays where this task puts it ("put it on the checkweigher and leave it there").
    stays: bool = False

    @property
    def carries(self) -> bool:
        return self.action in CARRYING or (self.action == "pick" and self.destination is not None)


_ARTICLES = frozenset({"the", "a", "an"})


def object_in_place(task: Task) -> bool:
    """The task's object is read from the words of one of its places ("왼쪽 모듈" of "왼쪽 모듈 지그"): a reading that
    rests on it is no evidence for a missing or another object. (A bare object written before a place, "상자
    컨베이어에 올려", is common Korean and stays an object.)"""
    if task.obj is None:
        return False
    said = set(task.obj.text.lower().split()) - _ARTICLES
    places = [p for p in (task.source, task.destination, task.at) if p is not None]
    return bool(said) and any((words := set(p.text.lower().split()) - _ARTICLES) and (said <= words or words <= said)
                              for p in places)


@dataclass(frozen=True)
class Instruction:
    text: str
    language: str  # en | ko | mixed
    tasks: tuple[Task, ...] = ()
    excluded: tuple[ObjectRef, ...] = ()
    #: Places the instruction rules out, with the action they are ruled out for (None: any):
    #: "not bin 3" (place), "don't weld seam 5" (weld).
    excluded_places: tuple[tuple[str | None, PlaceRef], ...] = ()
    manner: tuple[tuple[str, str], ...] = ()  # instruction-wide manner words
    ordered: bool = False  # the instruction fixes the order of its tasks
    context: tuple[str, ...] = ()  # sentences that ask for nothing
    unread: tuple[str, ...] = ()  # clauses with an action word the reader could not place
    clauses: tuple[Clause, ...] = field(default=(), repr=False)

    @property
    def objects(self) -> tuple[ObjectRef, ...]:
        return tuple(t.obj for t in self.tasks if t.obj is not None)


@functools.lru_cache(maxsize=512)
def read_instruction(text: str) -> Instruction:
    """Read an instruction (cached: the same text is read once per process)."""
    language = "en"
    if has_hangul(text):
        language = "ko" if sum(c.isascii() and c.isalpha() for c in text) < 0.6 * sum(not c.isascii() for c in text) else "mixed"
    if language == "en":
        from plan_verifier.semantic.english import read_clauses
    else:
        from plan_verifier.semantic.korean import read_clauses
    body, unsure = corrected(without_summary(without_cell_heading(without_goal_statement(text, read_clauses))), language, read_clauses)
    clauses = notation_routes(body, read_clauses) or read_clauses(body)
    reading = assemble(text, language, clauses)
    asked = [c for c in reading.context if _a_request(c)]
    if asked and reading.tasks:
        reading = replace(reading, unread=reading.unread + tuple(asked))  # "Then the tongs from the shelf into pot 1 as well."
    if not reading.manner and sum(t.carries for t in reading.tasks) == 1 and not any(t.manner for t in reading.tasks):
        reading = replace(reading, manner=manner_said(body, language))  # "A → B, quickly please": how the one thing goes
    return replace(reading, unread=reading.unread + unsure) if unsure else reading


def assemble(text: str, language: str, clauses: tuple[Clause, ...]) -> Instruction:
    """Clauses in the order written -> tasks in the order to execute."""
    excluded: list[ObjectRef] = []
    excluded_places: list[tuple[str | None, PlaceRef]] = []
    facts: dict[str, PlaceRef] = {}
    context: list[str] = []
    unread: list[str] = []
    pending: list[tuple[Task, str | None]] = []
    global_manner: list[tuple[str, str]] = []
    fragile: dict[str, tuple[tuple[str, str], ...]] = {}  # object noun -> the words that say to handle it gently
    ordered = False
    last_object: ObjectRef | None = None
    ruled_out: ObjectRef | None = None  # the thing of a clause that rules out only a place ("X를 A로 옮기지 말고 B로 옮겨")
    refined: list[PlaceRef] = []  # destinations a later place fragment made more precise (still read)
    located: ObjectRef | None = None  # the thing the clause just before said where it is ("케이스는 왼쪽 매트에 있는데 …")
    for clause in clauses:
        excluded.extend(clause.excluded)
        excluded_places.extend((clause.action, _sided(p, clause, pending)) for p in clause.excluded_places)
        if clause.order is not None:
            ordered = True
        if clause.fact and not clause.objects and not clause.places and pending and pending[-1][0].carries and \
                pending[-1][0].source is None and (origin := origin_of(text[clause.start:clause.end])) is not None:
            pending[-1] = (replace(pending[-1][0], source=origin), pending[-1][1])  # "… to drawer A. from tray 2": where from
            context.append(text[clause.start:clause.end])
            continue
        if clause.fact and not clause.objects and not clause.places and pending and pending[-1][0].destination is not None:
            part = refinement_of(text[clause.start:clause.end])
            if part is not None:
                # "… into the gift box? Right-hand pocket.": a place fragment after a transfer says which part of its
                # destination
                task, order = pending[-1]
                whole = task.destination
                refined.append(whole)
                pending[-1] = (replace(task, destination=replace(part, text=f"{whole.text}, {part.text}", words=part.words + whole.words)), order)
                continue
        if clause.fact:
            for obj in clause.objects:
                if _names_a_person(obj):
                    continue  # "Customer's at the counter for her poster roll": where someone waits, no thing a later "it" means
                loc = next((p for role, p in clause.places if role in ("location", "source")), None)
                if loc is not None and _all_of_them(obj) and sum(t.carries and t.source is None for t, _ in pending) >= 2:
                    # "… 2번 로커로. 둘 다 위쪽 선반에 있어요.", "Both are on the top shelf.": where each is taken from
                    pending = [(replace(t, source=loc), o) if t.carries and t.source is None else (t, o) for t, o in pending]
                    continue
                if obj.pronoun and last_object is not None:
                    obj = last_object  # "It's in the crate.", "지금 A 토트에 있어요": where the thing named before is
                elif obj.pronoun and loc is not None and pending and pending[-1][0].carries and pending[-1][0].source is None:
                    # "프레스에 올려놔. 1번 랙에 있는 거.": the thing of the task before, unnamed, is there
                    pending[-1] = (replace(pending[-1][0], source=loc), pending[-1][1])
                if loc is not None and obj.noun:
                    facts[_fact_key(obj)] = loc
                    last_object = located = obj
                if clause.manner and obj.noun:
                    fragile[obj.noun] = clause.manner  # "The glass is fragile.": its task is done gently
                    last_object = obj
            last_object = next((o for o in reversed(clause.mentions) if o.noun), last_object)  # "Sourdough's done."
            if clause.manner and not any(o.noun for o in clause.objects):
                global_manner.extend(clause.manner)
            context.append(text[clause.start:clause.end])
            continue
        topic, located = located, None
        if clause.negated and (_leaves_taken(clause, pending, last_object) or _leaves_elsewhere(clause, clauses)):
            clause = replace(clause, action="place", negated=False)  # "take the cube and leave it at the tray": put it there
        if clause.negated and _stays(text[clause.start:clause.end], clause, pending):
            pending[-1] = (replace(pending[-1][0], stays=True), pending[-1][1])  # "…, and leave it there": it goes no further
            continue
        if clause.negated and not _place_only(clause, clauses):
            excluded.extend(o for o in clause.objects if not o.pronoun)
        elif clause.negated:
            ruled_out = next((o for o in clause.objects if not o.pronoun and o.noun), None)  # what the next clause carries
            last_object = ruled_out or last_object
        if clause.negated:
            if clause.action is not None:
                excluded_places.extend((clause.action, p) for role, p in clause.places if role in ("goal", "location"))
            continue
        if clause.action is None:
            global_manner.extend(clause.manner)  # "Handle the glass with care": how, even where what is unclear
            last_object = next((o for o in reversed(clause.objects + clause.mentions) if not o.pronoun and o.noun), last_object)
            if clause.manner and not clause.places and all(o.pronoun for o in clause.objects):
                pass  # "and do it slowly": how the thing named before is handled, nothing more
            elif clause.objects or clause.places:
                unread.append(text[clause.start:clause.end])
            elif not clause.manner:
                context.append(text[clause.start:clause.end])
            continue
        objects = _share_nouns(list(clause.objects)) or [None]
        goals = [p for role, p in clause.places if role == "goal"]
        spots = [p for role, p in clause.places if role == "location"]
        if clause.action in WORK and len(spots) > 1:
            for place in spots:  # "tack weld seams 1 and 5": one routine per place
                pending.append((Task(clause.action, clause.verb, at=place, manner=clause.manner, start=clause.start, end=clause.end), clause.order))
            continue
        targets = goals if len(goals) > 1 else [p for role, p in clause.places if role in ("goal", "location")]
        if clause.action in ("move_to", "transfer") and not clause.objects and len(targets) > 1:
            # "Go to A, then B", "visit table A and then table B": one move per place, in the order named.
            for place in targets:
                pending.append((Task("move_to", clause.verb, destination=place, manner=clause.manner, start=clause.start,
                                     end=clause.end), clause.order))
            continue
        for obj in objects:
            if obj is not None and obj.pronoun and last_object is not None or obj is None and ruled_out is not None and \
                    clause.action in CARRYING:
                obj = last_object
            elif obj is None and topic is not None and clause.action in CARRYING:
                obj = topic  # "케이스는 왼쪽 매트에 있는데 작업자에게 전달해": the thing just located is what the request carries
            task = _task(*_emptied(clause, obj))
            if task is None:
                if obj is None and not clause.places and clause.action in ("move_to", "transfer") or _holds(clause):
                    global_manner.extend(clause.manner)  # "천천히 이동해서 ...", "hold it tightly": how, not where
                else:
                    unread.append(text[clause.start:clause.end])
                continue
            if task.obj is not None and not task.obj.pronoun:
                last_object = task.obj
            origin = next((p for role, p in clause.places if role == "source"), None)
            if task.action in WORK and origin is not None and task.at is not origin and task.obj is not None and task.obj.noun:
                facts.setdefault(_fact_key(task.obj), origin)  # "A에 있는 패드, 게이지에 대 보고 …": where the thing is
            pending.append((task, clause.order))
    if len(pending) > 1 and pending[0][0].manner and _leads(text, pending[0][0], clauses):
        # "Carefully grab the bolt ..., then move the cube ...": a manner word before the first verb governs it all
        global_manner.extend(pending[0][0].manner)
        pending[0] = (replace(pending[0][0], manner=()), pending[0][1])
    unread.extend(_unplaced(text, clauses, pending, refined))
    tasks = _merge_pick_and_put(_shared_source(pending))
    tasks = _resolve_there(tasks, facts)
    tasks = _apply_order(tasks)
    tasks = [_back_to_origin(_with_fact(t, facts)) for t in tasks]
    tasks = [replace(t, manner=t.manner + fragile[t.obj.noun]) if t.obj is not None and t.obj.noun in fragile else t for t in tasks]
    if len(tasks) == 1 and tasks[0].manner:
        global_manner.extend(tasks[0].manner)
        tasks = [replace(tasks[0], manner=())]
    return Instruction(text, language, tuple(tasks), tuple(_unique(excluded)), tuple(excluded_places), tuple(global_manner), ordered,
                       tuple(context), tuple(unread), tuple(clauses))


def _shared_source(pending: list[tuple[Task, str | None]]) -> list[tuple[Task, str | None]]:
    """"…, then the box to bin B. Both from the right basket.", "… 카포를 2번 부품통으로. 둘 다 1번 부품통에서 꺼내.": a request
    about both (all) of the things named before with only where they come from is their shared source, no thing of its own."""
    from plan_verifier.semantic.vocabulary import vocabulary

    v = vocabulary()
    every = v.en_all | v.ko_all | {w for w, n in v.numbers.items() if n >= 2}
    out: list[tuple[Task, str | None]] = []
    for task, order in pending:
        words = task.obj.text.lower().split() if task.obj is not None else []
        if words and words[0] in every and task.obj.noun is None and task.source is not None and task.destination is None and \
                task.action in ("pick", "transfer", "place") and sum(t.carries and t.source is None for t, _ in out) >= 2:
            out = [(replace(t, source=task.source), o) if t.carries and t.source is None else (t, o) for t, o in out]
            continue
        out.append((task, order))
    return out


def _all_of_them(obj: ObjectRef) -> bool:
    """"둘 다", "both", "all of them": the things named before, together, no thing of its own."""
    from plan_verifier.semantic.vocabulary import vocabulary

    v = vocabulary()
    words = obj.text.lower().split()
    every = v.en_all | v.ko_all | {w for w, n in v.numbers.items() if n >= 2}
    return bool(words) and words[0] in every and obj.noun is None and not obj.pronoun


def _holds(clause: Clause) -> bool:
    """"Hold" shows a thing somewhere only with the place ("hold it at the RFID reader"); without one it is a grip."""
    from plan_verifier.semantic.language import verb_lemma

    return clause.verb.isascii() and verb_lemma(clause.verb.lower()) == "hold" and not clause.places


def _stays(words: str, clause: Clause, pending: list[tuple[Task, str | None]]) -> bool:
    """"…, and leave it there", "keep it there": the thing just put somewhere stays there."""
    from plan_verifier.semantic.language import verb_lemma
    from plan_verifier.semantic.vocabulary import vocabulary

    return bool(pending) and pending[-1][0].destination is not None and clause.verb.isascii() and \
        verb_lemma(clause.verb.lower()) in vocabulary().constructions.leave_at and all(o.pronoun for o in clause.objects) and \
        re.search(r"\bthere\b", words.lower()) is not None


def _place_only(clause: Clause, clauses: tuple[Clause, ...]) -> bool:
    """"약병을 격리함으로 옮기지 말고 반품 트레이로 옮겨", "don't put the cup in bin 2, put it in bin 3": what is ruled out is the
    place, when another clause carries the same thing (or "it") elsewhere."""
    if not any(role in ("goal", "location") for role, _ in clause.places):
        return False
    return any(c is not clause and not c.negated and c.action in CARRYING and any(role in ("goal", "location") for role, _ in c.places)
               and (not c.objects or all(o.pronoun or any(_same(o, x) for x in clause.objects) for o in c.objects)) for c in clauses)


def _leaves_taken(clause: Clause, pending: list[tuple[Task, str | None]], last: ObjectRef | None) -> bool:
    """"Take the cube and leave it at the tray", "pick it up, then keep it on the scale": a verb of leaving with a place,
    about the thing just taken (a pronoun, or its noun), is where that thing is put down — not an object left alone."""
    from plan_verifier.semantic.language import verb_lemma
    from plan_verifier.semantic.vocabulary import vocabulary

    if verb_lemma(clause.verb.lower()) not in vocabulary().constructions.leave_at or not pending:
        return False
    if not any(role in ("goal", "location") and p.key != "there" for role, p in clause.places):
        return False
    taken, _ = pending[-1]
    if not (taken.action == "pick" or taken.carries and taken.destination is None):
        return False
    return all(o.pronoun or _same(o, taken.obj) for o in clause.objects)


def _leaves_elsewhere(clause: Clause, clauses: tuple[Clause, ...]) -> bool:
    """"Leave the gasket on the conveyor. It's in the washer basket right now.": a verb of leaving with a place, about a
    thing that the instruction says is somewhere else, can only mean to put it there — it cannot stay where it is not."""
    from plan_verifier.semantic.language import verb_lemma
    from plan_verifier.semantic.vocabulary import vocabulary

    if not clause.verb.isascii() or verb_lemma(clause.verb.lower()) not in vocabulary().constructions.leave_at:
        return False
    here = next((p for role, p in clause.places if role in ("goal", "location") and p.key != "there"), None)
    things = [o for o in clause.objects if not o.pronoun and o.noun]
    if here is None or len(things) != 1:
        return False
    position = clauses.index(clause)
    for k, other in enumerate(clauses):
        if k == position or not other.fact:
            continue
        where = next((p for role, p in other.places if role in ("location", "source")), None)
        about = [o for o in other.objects if o.pronoun and k == position + 1 or _same(o, things[0])]
        if where is not None and about and where.key != here.key and where.key != "there":
            return True
    return False


#: A sentence that moves something: a route ("A → B", "from A into B", "A에서 B로") — said where a request stands.
_ROUTE = re.compile(r"→|->|⇒|\bfrom\b.+\b(?:to|into|onto|over to)\b|\b(?:out of|off)\b.+\b(?:to|into|onto)\b|에서\s*\S.*\S(?:으로|로)(?:\s|$|[,.!])",
                    re.I)
#: Order words that open a request ("Then …", "그 다음 …"), not a remark.
_OPENS_A_STEP = re.compile(r"^\s*(?:then|after that|afterwards|next|finally|lastly|그\s?다음|그런 다음|이어서|마지막으로)\b", re.I)


def _a_request(sentence: str) -> bool:
    """Is a sentence the reader took for context a request it could not read — one that opens with an order word or
    names a route? Then its step was never compared: a silent pass would hide that ("Cotton cone: bin → pot 1. Then the
    tongs from the shelf into pot 1 as well.")."""
    return bool(_OPENS_A_STEP.match(sentence) or _ROUTE.search(sentence))


def _unplaced(text: str, clauses: tuple[Clause, ...], pending: list[tuple[Task, str | None]], refined: list[PlaceRef] = ()) -> list[str]:
    """Requests to carry something whose place the reader found but could not give a role: a silent pass would hide
    that the destination was never compared, so they are reported as unread."""
    used = {id(p) for task, _ in pending for p in (task.source, task.destination, task.at) if p is not None} | {id(p) for p in refined}
    out = []
    for clause in clauses:
        if clause.fact or clause.negated or clause.action not in CARRYING | {"pick"}:
            continue
        if any(role in ("goal", "location") and id(p) not in used and p.key != "there" and not (clause.action == "handover" and _a_person(p, clause.verb))
               for role, p in clause.places):
            out.append(text[clause.start:clause.end])
    return out


def _share_nouns(objects: list[ObjectRef]) -> list[ObjectRef]:
    """"the red, blue and green cubes", "the first and the third box", "빨강, 파랑, 초록 큐브": the colours (ordinals) share
    the last noun, one object each."""
    if len(objects) < 2 or objects[-1].noun is None:
        return objects
    noun = objects[-1].noun
    out = []
    for o in objects:
        if o.generic and (o.color or o.ordinal) and o.noun is None and not o.pronoun:
            o = replace(o, noun=noun, generic=False)
        out.append(replace(o, count=None) if o.count == -1 and o.color else o)
    return out


def _resolve_there(pending: list[tuple[Task, str | None]], facts: dict[str, PlaceRef]) -> list[tuple[Task, str | None]]:
    """"in there", "거기에": the place named last before (a context sentence's or an earlier task's)."""
    last = list(facts.values())[-1] if facts else None
    out = []
    for task, order in pending:
        for attr in ("source", "destination", "at"):
            place = getattr(task, attr)
            if place is not None and place.key == "there" and last is not None:
                task = replace(task, **{attr: replace(last, text=f"{place.text} ({last.text})")})
        for place in (task.source, task.destination, task.at):
            if place is not None and place.key != "there":
                last = place
        out.append((task, order))
    return out


def _leads(text: str, task: Task, clauses: tuple[Clause, ...]) -> bool:
    """The task's manner words stand at the head of the instruction, before anything its first clause names."""
    first = next((c for c in clauses if c.action is not None), None)
    if first is None or first.start != task.start:
        return False
    named = [text.find(o.text, first.start) for o in first.objects] + [text.find(p.text, first.start) for _, p in first.places]
    named = [at for at in named if at >= 0]
    if not named:
        return False
    return all(0 <= text.find(word, first.start) < min(named) for _, word in task.manner)


def _names_a_person(obj: ObjectRef) -> bool:
    """An object noun the lexicon knows as a person (the operator kinds: customer, courier, 손님 …)."""
    from plan_verifier.semantic.vocabulary import vocabulary

    v = vocabulary()
    return obj.noun is not None and "operator" in (v.en_places.get(obj.noun), v.ko_places.get(obj.noun))


def _fact_key(obj: ObjectRef) -> str:
    return f"{obj.color or ''}:{obj.noun}"


def _with_fact(task: Task, facts: dict[str, PlaceRef]) -> Task:
    """"The red cube is in bin 3. Move it to the tray": bin 3 is the source. A hand-over's place with 에서/at may be where
    the person takes it ("키트를 대여 데스크에서 손님한테 건네주세요. 키트는 부품 서랍 A에 있어요"): where the thing is said to
    be is its source."""
    if task.obj is None or task.source is not None and task.action != "handover" or not task.carries:
        return task
    place = facts.get(_fact_key(task.obj)) or facts.get(f":{task.obj.noun}")
    return replace(task, source=place) if place is not None else task


def _sided(place: PlaceRef, clause: Clause, pending: list[tuple[Task, str | None]]) -> PlaceRef:
    """"아래쪽 서랍에 넣어. 위쪽 말고.", "위쪽 말고 아래쪽 서랍에": a side ruled out alone is that side of the place asked for
    with another side (the clause's own, else the task's just before); with none such, the side alone."""
    if place.kind is not None or place.side is None or place.words:
        return place
    asked = [p for role, p in clause.places if role in ("goal", "location")] or \
        ([pending[-1][0].destination] if pending and pending[-1][0].destination is not None else [])
    whole = next((p for p in asked if p.side is not None and p.side != place.side and p.kind is not None), None)
    if whole is None:
        return place
    return replace(whole, text=f"{place.text} ({whole.text})", side=place.side,
                   key=place_key(whole.kind, whole.label, place.side, whole.words[-1] if whole.words else None))


def _back_to_origin(task: Task) -> Task:
    """"Scan it and put it back where it was. It's on shelf A", "원래 자리로 돌려놔. 지금 A 선반에 있어": the thing goes back
    to its source. With no source said the destination is unknown (None: nothing to compare); a move of the robot
    itself "back to where it was" keeps the place as a vague position."""
    if task.destination is None or task.destination.key != ORIGIN:
        return task
    said = task.destination.text
    if not task.carries:
        return replace(task, destination=PlaceRef(said, "position", "position"))
    back = replace(task.source, text=f"{said} ({task.source.text})") if task.source is not None else None
    return replace(task, destination=back)


def _emptied(clause: Clause, obj: ObjectRef | None) -> tuple[Clause, ObjectRef | None]:
    """"Unload the fixture onto the conveyor", "clear the vise": a verb of emptying whose object is a place takes
    whatever is there — the place becomes the clause's source, the thing any thing."""
    place = _empties_place(clause, obj)
    if place is None:
        return clause, obj
    return replace(clause, places=clause.places + (("source", place),)), ObjectRef(obj.text, None, generic=True)


def _empties_place(clause: Clause, obj: ObjectRef | None) -> PlaceRef | None:
    from plan_verifier.semantic.english import place_phrase
    from plan_verifier.semantic.vocabulary import vocabulary

    v = vocabulary()
    if obj is None or obj.pronoun or obj.noun is None or obj.noun in v.object_classes or has_hangul(clause.verb) or \
            clause.verb.lower() not in v.constructions.empties or any(role == "source" for role, _ in clause.places):
        return None
    place = place_phrase(obj.text)
    return place if place is not None and place.kind is not None and not place.kind.startswith("container:") else None


def _task(clause: Clause, obj: ObjectRef | None) -> Task | None:
    action = clause.action
    roles: dict[str, PlaceRef] = {}
    for role, place in clause.places:
        roles.setdefault(role, place)
    source, goal, location, recipient = roles.get("source"), roles.get("goal"), roles.get("location"), roles.get("recipient")
    if recipient is not None and recipient.kind == "operator":
        goal = goal or recipient
    common = dict(text=clause.verb, manner=clause.manner, start=clause.start, end=clause.end)
    if (action == "move_to" or action == "transfer" and clause.verb.lower() in _INTRANSITIVE_MOVES) and obj is None:
        target = goal or location
        if target is not None and target.key == "home":
            return Task("return_home", destination=PlaceRef("home", "home", "home"), **common)  # "go home", "홈으로 이동"
        return Task("move_to", obj=None, destination=target, **common) if target is not None else None
    if action == "move_to" and obj is not None:
        action = "transfer"
    if action == "return_home":
        if obj is not None and (goal or location):
            return Task("transfer", obj=obj, source=source, destination=goal or location, **common)
        if obj is not None and not obj.pronoun and obj.noun in _TOOLS():
            return Task("detach", obj=obj, **common)  # "park the welder", "return the camera": the tool goes back on its stand
        return Task("return_home", destination=PlaceRef("home", "home", "home"), **common)
    if action in WORK:
        if _holds(clause):
            return None  # "hold it tightly": no stop anywhere
        return Task(action, obj=obj, at=location or goal or source, **common)
    if action in ("attach", "detach"):
        return Task(action, obj=obj, at=location or source or goal, **common)
    if action == "pick":
        if goal is not None:
            return Task("transfer", obj=obj, source=source or location, destination=goal, **common)
        return Task("pick", obj=obj, source=source or location, **common)
    if action == "handover":
        operator = next((p for p in (goal, location) if p is not None and p.kind == "operator"), None)
        if operator is None and recipient is None and goal is not None and not _a_person(goal, clause.verb):
            # "포스터 롤 카운터로 전달해줘", "pass it to the pass window": given over at a place, i.e. put there
            return Task("transfer", obj=obj, source=source or location, destination=goal, **common)
        operator = operator or PlaceRef("operator", "operator", "operator")
        origin = source or (location if location is not operator else None)
        return Task("handover", obj=obj, source=origin, destination=operator, **common)
    if action == "place" and goal is None and location is None and source is None and obj is not None and not obj.pronoun and \
            obj.noun in _TOOLS():
        return Task("detach", obj=obj, **common)  # "use the screwdriver and put it back afterwards": the tool goes back on its stand
    if action in ("transfer", "place", "insert", "stack"):
        destination = goal
        if destination is None and location is not None and (source is not None or action != "transfer"):
            destination = location
        elif destination is None and location is not None:
            destination = location
        origin = source
        places = [p for _, p in clause.places]
        if origin is None and goal is not None and location is not None and location is not destination:
            if places.index(location) < places.index(goal):
                origin = location  # "move the cube on the table to bin 3": the table is where it is
            elif goal.obj is not None:
                # "put it onto the housing on the right-hand jig": the thing underneath is at that place, so the put-down is
                destination = location
        return Task(action, obj=obj, source=origin, destination=destination, **common)
    return None


def _a_person(place: PlaceRef, verb: str) -> bool:
    """Who an English verb of giving gives to when the lexicon knows no place by that name ("hand it to the runner", "to
    the groom"): a noun that names no kind of place is a person, one the operator kinds do not list. (Korean marks a
    person with 한테/에게, so a goal in 로 is a place: "패스 창구로 전달해".)"""
    if has_hangul(verb) or has_hangul(place.text):
        return False
    return place.kind is None or place.kind.startswith("container:") and place.obj is not None and place.obj.noun not in _OBJECT_NOUNS()


def _TOOLS() -> frozenset[str]:
    from plan_verifier.semantic.vocabulary import vocabulary

    return vocabulary().constructions.tools


def _OBJECT_NOUNS() -> frozenset[str]:
    from plan_verifier.semantic.vocabulary import vocabulary

    return frozenset(vocabulary().en_objects.values())


def _merge_pick_and_put(pending: list[tuple[Task, str | None]]) -> list[tuple[Task, str | None]]:
    """"Pick up the apple at A and put it down at B" is one transfer; so is "사과를 들어서 B에 내려놔"."""
    out: list[tuple[Task, str | None]] = []
    for task, order in pending:
        stops: list[tuple[Task, str | None]] = []
        while out and task.action in CARRYING and out[-1][0].action in WORK and len(out) > 1 and _same(out[-1][0].obj, task.obj) and \
                out[-2][0].action in ("pick", "transfer", "place") and out[-2][0].destination is None:
            stops.insert(0, out.pop())  # "pick it up, show it to the camera, then put it in the box": the stop stays a stop
        if stops:
            held = out[-1][0].obj
            stops = [(replace(t, obj=held) if t.obj is None or t.obj.pronoun else t, o) for t, o in stops]
        if out:
            prev, prev_order = out[-1]
            # "pick it up ... put it down", "가져와서 ... 넣어", "컨베이어에서 상자 내려서 팔레트에 놔": one transfer
            fetch_then_put = prev.action in ("pick", "transfer", "place") and prev.destination is None
            if (fetch_then_put and task.action in CARRYING | {"transfer"} and (task.source is None or prev.source is None)
                    and (task.obj is None or _same(task.obj, prev.obj))):
                merged = replace(task, obj=prev.obj if task.obj is None or task.obj.pronoun else task.obj, source=prev.source or task.source,
                                 manner=prev.manner + task.manner, start=prev.start, text=f"{prev.text} … {task.text}")
                out[-1] = (merged, prev_order)
                out.extend(stops)
                continue
            if prev.action in ("transfer", "place") and prev.destination is not None and hands_over(prev.destination) and \
                    task.action == "handover" and task.source is None and order is None and _same(task.obj, prev.obj):
                # "줄 세트 오른쪽 트레이에서 프런트 전달 위치로, 손님한테 직접 드려": the route to a hand-over point and the
                # hand-over there are one hand-over, from the route's source
                merged = replace(task, obj=prev.obj if task.obj is None or task.obj.pronoun else task.obj, source=prev.source,
                                 manner=prev.manner + task.manner, start=prev.start, text=f"{prev.text} … {task.text}")
                out[-1] = (merged, prev_order)
                out.extend(stops)
                continue
        out.extend(stops)
        if out and task.action == "pick" and task.source is not None and task.destination is None:
            prev, prev_order = out[-1]
            if prev.carries and prev.source is None and _same(task.obj, prev.obj):
                out[-1] = (replace(prev, source=task.source), prev_order)  # "The housing goes into the fixture - take it from the pallet"
                continue
        # "B로 옮겨줘" after a fetch carries what was fetched; after a finished transfer and an order word ("…에 넣은 후에 …에
        # 버려") the object is one the reader did not find, not the one before
        finished = out and out[-1][0].destination is not None and order is not None
        if task.obj is None and task.action in CARRYING and out and out[-1][0].obj is not None and not finished and \
                (out[-1][0].carries or out[-1][0].action in WORK):
            task = replace(task, obj=out[-1][0].obj)
        if task.obj is None and task.action == "detach":
            # "장착하고 ... 반납해", "... then put it back": the tool attached last
            attached = next((t.obj for t, _ in reversed(out) if t.obj is not None and (t.action == "attach" or t.action == "pick" and
                                                                                      t.obj.noun in _TOOLS())), None)  # ("grab the screwdriver")
            task = replace(task, obj=attached)
        out.append((task, order))
    return out


def _same(a: ObjectRef | None, b: ObjectRef | None) -> bool:
    if a is None or b is None:
        return True
    return a.pronoun or b.pronoun or a == b or (_same_noun(a.noun, b.noun) and (a.color is None or b.color is None or a.color == b.color))


def _same_noun(a: str | None, b: str | None) -> bool:
    """One noun, or a compound of the other ("the sealed plate" … "microplate from the sealer to the window")."""
    if a is None or b is None:
        return a == b
    short, long_ = sorted((a, b), key=len)
    return a == b or len(short) >= 4 and long_.endswith(short) and long_.isalpha()


def _apply_order(pending: list[tuple[Task, str | None]]) -> list[Task]:
    """"A after B" / "after B, A": B first; "before B, A": A first. Otherwise the order written.

    Then each task gets its stage: an order cue before a task ("then", "after that") starts a new stage with it,
    "first" starts one after it; tasks without a cue stay in the stage of the task before ("A and B")."""
    tasks = [t for t, _ in pending]
    orders = [o for _, o in pending]
    for k in range(len(tasks) - 1, 0, -1):
        earlier = next((j for j in range(k) if _repeats(tasks[j], tasks[k])), None)
        if earlier is not None and orders[k] == "first":
            # "tack-weld Pos_1 and Pos_5, Pos_1 first": the task said again with "first" is the earlier one, done first
            again = tasks.pop(earlier)
            orders.pop(earlier)
            del tasks[k - 1], orders[k - 1]
            tasks.insert(0, again)
            orders.insert(0, "first")
    i = 0
    while i < len(tasks):
        if orders[i] == "after" and i > 0:
            # "... A after B": the clause after "after" happens first.
            tasks[i - 1], tasks[i] = tasks[i], tasks[i - 1]
            orders[i - 1], orders[i] = orders[i - 1], "sequence"
        elif orders[i] == "before-lead" and i + 1 < len(tasks):
            tasks[i], tasks[i + 1] = tasks[i + 1], tasks[i]
            orders[i], orders[i + 1] = orders[i + 1], "sequence"
        i += 1
    staged = []
    stage = 0
    for k, (task, cue) in enumerate(zip(tasks, orders)):
        if k and cue in ("sequence", "after", "before-lead"):
            stage += 1
        staged.append(replace(task, stage=stage))
        if cue == "first":
            stage += 1
    return staged


def _repeats(a: Task, b: Task) -> bool:
    """Does task b say task a again (same action, object and places)?"""
    def key(p: PlaceRef | None) -> str | None:
        return p.key if p is not None else None
    return a.action == b.action and key(a.at) == key(b.at) and key(a.destination) == key(b.destination) and \
        key(a.source) == key(b.source) and (a.obj.text.lower() if a.obj else None) == (b.obj.text.lower() if b.obj else None)


def _unique(objects: list[ObjectRef]) -> list[ObjectRef]:
    seen, out = set(), []
    for o in objects:
        key = (o.noun, o.color, o.text.lower())
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out
