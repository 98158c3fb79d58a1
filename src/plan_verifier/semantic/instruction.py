"""An operator's instruction read as an ordered list of tasks.

`read_instruction` turns "Don't touch the blue cube; put the red cube into bin 3"
into what a comparison can use: tasks (action, object with its attributes,
source, destination, manner) in execution order, the objects the instruction
excludes, whether it fixes the order, and which sentences were only context.
English is read by `english.py`, Korean by `korean.py`; both produce clauses,
which are assembled into tasks here (pick + put-down clauses become one
transfer, pronouns take the last object, "before"/"after" reorder).

The reading is conservative: a sentence it cannot read gives no task, so an
unusual instruction makes the semantic stage say less (and say that it could
not judge), never reject a correct plan on a guess.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

from plan_verifier.semantic.clauses import WORK, Clause, ObjectRef, PlaceRef
from plan_verifier.semantic.corrections import corrected
from plan_verifier.semantic.language import has_hangul

#: Actions that carry an object somewhere (a grasp and a release).
CARRYING = frozenset({"transfer", "place", "insert", "stack", "handover"})
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
    body, unsure = corrected(_without_summary(_without_cell_heading(text)), language, read_clauses)
    clauses = _routes(body, read_clauses) or read_clauses(body)
    reading = assemble(text, language, clauses)
    return replace(reading, unread=reading.unread + unsure) if unsure else reading


_HEADING = re.compile(r"^\s*(?P<head>[^:\n]{1,40}):")


#: "Task: weld then verify. Steps: 1. … 2. …" — a planner's summary, then the steps that spell it out.
_SUMMARY = re.compile(r"^\s*(?:task|goal|objective|summary|목표|작업|과제)\s*:(?P<summary>.*?)^\s*(?:steps|procedure|plan|단계|순서|작업 순서)\s*:"
                      r"(?=\s*(?:1[.)]|①|-|\*))", re.I | re.S | re.M)


def _without_summary(text: str) -> str:
    """A planner's summary before the numbered steps that spell it out says each task a second time, in other words
    and often without the order ("weld then verify", then "1. Tack weld … 2. Swap … 3. Inspect …"): the steps are the
    instruction, the summary is blanked (the offsets of the rest stay as written)."""
    m = _SUMMARY.match(text)
    if m is None:
        return text
    return text[:m.start("summary")] + " " * (m.end("summary") - m.start("summary")) + text[m.end("summary"):]


def _without_cell_heading(text: str) -> str:
    """"Weld cell: tack Pos_1, …", "조립 셀: 피더 부품 → 픽스처, …": a heading that names the whole workplace says where all
    of it happens, no place of any task and no thing — blanked out (the offsets of the rest stay as written)."""
    from plan_verifier.semantic.vocabulary import vocabulary

    m = _HEADING.match(text)
    if m is None:
        return text
    head = m.group("head").strip().lower()
    if not any(head == w or head.endswith(f" {w}") for w in vocabulary().constructions.whole_cell):
        return text
    return " " * m.end() + text[m.end():]


#: Item markers of a list written as notation ("① … ②", "1) … 2)", one item a line or between semicolons).
_ITEM = re.compile(r"[①②③④⑤⑥⑦⑧⑨⑩]|(?<![\w(])\d+[).](?=\s)|[;\n]")


def _markers(text: str) -> list[re.Match]:
    """The item markers of a list: numbers only in their sequence from 1 ("1) … 2) …"), so that a place's label before a
    full stop ("→ shelf 2. Then …") or a number closing a bracket ("(from rack 1)  2) belt → …") is no item."""
    out, expected = [], 1
    for m in _ITEM.finditer(text):
        number = re.match(r"\d+", m.group())
        if number is None:
            out.append(m)
        elif int(number.group()) == expected and text.rfind("(", 0, m.start()) <= text.rfind(")", 0, m.start()):
            out.append(m)
            expected += 1
    return out


def _routes(text: str, read_clauses) -> tuple[Clause, ...] | None:
    """An instruction written as notation, with arrows (`constructions.arrows`): "① 소결로 트레이의 크라운 → 착색 작업대 ② …",
    "seat frame: welding cell -> foam station". Each item with an arrow is a transfer from what stands before it to what
    stands after it (`names.text_evidence`, which reads a program's route comments the same way); items without one are
    read as sentences. None when the text has no arrow."""
    from plan_verifier.semantic.names import text_evidence
    from plan_verifier.semantic.vocabulary import vocabulary

    if not any(arrow in text for arrow in vocabulary().constructions.arrows):
        return None
    markers = _markers(text)
    spans = zip([0] + [m.end() for m in markers], [m.start() for m in markers] + [len(text)])
    clauses: list[Clause] = []
    for start, end in spans:
        item = text[start:end].strip()
        if not item:
            continue
        offset = text.index(item, start)
        pieces = item.split(",")
        if len(pieces) > 1 and all(len(_ARROWS.findall(p)) == 1 for p in pieces):
            # "wooden block → left tray, jacks → right tray": one route a part
            at = 0
            for piece in pieces:
                shift = offset + at + (len(piece) - len(piece.lstrip()))
                clauses.extend(replace(c, start=c.start + shift, end=c.end + shift, order="sequence" if clauses else c.order)
                               for c in _routes(piece.strip(), read_clauses) or ())
                at += len(piece) + 1
            continue
        located = _located_route(item, read_clauses)
        if located is not None:
            clauses.extend(replace(c, start=c.start + offset, end=c.end + offset, order="sequence" if k == 0 and clauses else c.order)
                           for k, c in enumerate(located))
            continue
        tail = _sequel(item)
        if tail is not None:
            # "Part: feeder → fixture, then screw it down": the route ends where a sentence goes on with an order word
            head = item[:tail].rstrip(" ,.")
            clauses.extend(_routes(head, read_clauses) or ())
            rest = item[tail:]
            clauses.extend(replace(c, start=c.start + offset + tail, end=c.end + offset + tail)
                           for c in _routes(rest, read_clauses) or read_clauses(rest))
            continue
        chain = _sourced(item, offset) or _chain(item, offset)
        if chain is not None:
            clauses.extend(replace(c, order="sequence") if k == 0 and clauses else c for k, c in enumerate(chain))
            continue
        if any(arrow in item for arrow in vocabulary().constructions.arrows):
            objects, places = text_evidence(item)
            heading = _headline_thing(item)
            # "silk tie: rack 1 → spotting board": the heading names the thing, whatever the stops' words also name
            front = _ARROWS.split(item)[0].strip(" .")
            # "Bowl → bin C": before the arrow, no place and no heading — the thing itself, a noun the vocabulary may lack
            fronted = () if heading or any(role == "source" for role, _ in places) or ":" in front else \
                tuple(x for x in (_named_thing(front),) if x is not None)
            things = tuple(o for o, _ in objects if heading and o.text in heading[0].text) or heading or \
                tuple(o for o, _ in objects) or fronted or (ObjectRef("", None, pronoun=True),)
            if heading and not any(role == "goal" for role, _ in places) and (end_stop := _stop(_ARROWS.split(item)[-1].strip(" ."))):
                places += (("goal", end_stop),)  # "silk tie: rack 1 → spotting board": after the arrow stands a place
            goals = [p for role, p in places if role == "goal"]
            if len(goals) == 1 and goals[0].kind in _HELD_AT and things[:1] and not things[0].pronoun:
                # "분주 튜브 1번 랙 → 라벨 스캐너": a scanner or a tester is where the thing is held, not set down — taken
                # from the source and shown there; where it then goes the next item says
                order = "sequence" if clauses else None
                clauses += [Clause("pick", "", offset, offset + len(item), things[:1],
                                   tuple((r, p) for r, p in places if r == "source"), order=order),
                            Clause("inspect", "", offset, offset + len(item), (ObjectRef("", None, pronoun=True),),
                                   (("location", goals[0]),))]
                continue
            if any(role in ("source", "goal") for role, _ in places):
                clauses.append(Clause("transfer", "", offset, offset + len(item), things[:1], places, order="sequence" if clauses else None))
                continue
        clauses.extend(replace(c, start=c.start + offset, end=c.end + offset) for c in read_clauses(item))
    return tuple(clauses) or None


#: Kinds of place a thing is set down in or on, not only shown to: a stop of this kind in a route is a transfer.
_PUT_DOWN = frozenset({"fixture", "table", "tray", "bin", "shelf", "pallet", "conveyor", "cart", "slot", "drawer", "station", "machine",
                       "press", "oven", "fridge", "bath", "scale", "mold", "dryer", "centrifuge", "incubator", "autoclave", "feeder"})
#: Kinds of place a thing is held at, not set down in (a scanner, a tester): a route that ends there is a visit.
_HELD_AT = frozenset({"reader", "tester"})
_ARROWS = re.compile(r"\s*(?:-+>|=+>|→|⇒|➜|➔|⟶)\s*")


def _chain(item: str, offset: int) -> list[Clause] | None:
    """A route of more than two stops, or one with its thing after it: "Can → fill-level camera → right slot of the case",
    "Flyers → folder → dispatch" (the first stop names no place: it is the thing), "꽃 냉장고 → 분무 → 쇼윈도, 튤립"
    (a place first: where it comes from; after a comma, the thing), "충전기 출구 → 캡핑기, 병 하나". The stops between the
    ends are visits on the way (a stop, as "show it to the camera" is); the last is where it goes. None for any other
    item (a plain "A → B", or parts this cannot read as places)."""
    parts = [p.strip(" .") for p in _ARROWS.split(item)]
    if len(parts) < 2 or not all(parts):
        return None
    last, comma, tail = parts[-1].partition(",")
    manner = _manner_tail(tail) if comma else ()
    thing = _named_thing(tail.strip(" .")) if comma and not manner and tail.strip(" .") and len(tail.split()) <= 3 else None
    heading = ()
    if ":" in parts[0]:
        # "paperweight: annealer shelf 2 → polariscope → right tray": the heading names the thing, the stops follow it
        heading = _headline_thing(parts[0])
        if not heading or thing is not None or len(parts) < 3:
            return None
        thing, parts[0] = heading[0], parts[0].partition(":")[2].strip()
    if comma and thing is None and not manner or len(parts) == 2 and thing is None:
        return None
    parts[-1] = last.strip()
    source = _stop(parts[0])
    if heading and source is None:
        return None
    if not heading and (source is None or not has_hangul(parts[0]) and (source.kind is None or source.kind.startswith("container:"))):
        if len(parts) < 3 or thing is not None:
            return None
        thing, source = _named_thing(parts[0]), None  # "Can → camera → slot": the can, taken wherever it is
    stops = [_stop(p) for p in parts[1:]]
    if thing is None or any(p is None for p in stops):
        return None
    end = offset + len(item)
    it = ObjectRef("", None, pronoun=True)
    out = [Clause("pick", "", offset, end, (thing,), (("source", source),) if source is not None else (), manner=manner)]
    for place in stops[:-1]:
        if place.kind in _PUT_DOWN:  # "피더 → 지그 → 컨베이어": set down in the jig, then taken on
            out.append(Clause("transfer", "", offset, end, (it,), (("goal", place),), order="sequence" if len(out) > 1 else None))
        else:  # "Can → fill-level camera → …": shown on the way
            out.append(Clause("inspect", "", offset, end, (it,), (("location", place),)))
    return out + [Clause("transfer", "", offset, end, (it,), (("goal", stops[-1]),), order="sequence" if len(out) > 1 else None)]


#: A route's source said after it: "tie → right basket (from rack 1)", "pickup → left tray, from shelf B",
#: "넥타이 → 오른쪽 바구니 (1번 랙에서)".
_SOURCE_AFTER = re.compile(r"(?:,\s*|\s*\(\s*)(?:from\s+(?P<en>[^(),]+?)|(?P<ko>[^(),]+?)에서)\s*\)?\s*[.!]?$", re.I)
#: Where the thing is, said as a fact after a route: "case → operator 전달, 왼쪽 mat에 있음", "…, 1번 랙에 놓여 있어요",
#: "…, it's on the left mat", "… (currently in bin 2)" — where it is is where it is taken from, never where it goes.
_WHERE_WORDS = r"(?:it['’]s|it\s+is|they['’]re|they\s+are|currently|now|still|sitting|lying|standing|kept|stored|located)"
_WHERE_AFTER = re.compile(r"(?:,\s*|\s*\(\s*)(?:" + _WHERE_WORDS + r"(?:\s+" + _WHERE_WORDS + r")*\s+(?:on|in|at)\s+(?P<en>[^(),]+?)"
                          r"|(?P<ko>[^(),]+?)에\s*(?:놓여\s*|담겨\s*)?있(?:음|어|다|고|는데|어요|습니다|네요|지)?)\s*\)?\s*[.!]?$", re.I)


def _located_route(item: str, read_clauses) -> list[Clause] | None:
    """A route with where its thing is said after it (`_WHERE_AFTER`): the route read as it would be without it, and that
    place the source of its carrying clauses that name none. None for any other item."""
    m = _WHERE_AFTER.search(item)
    head = item[:m.start()].strip() if m is not None else ""
    if m is None or not _ARROWS.search(head) or "," in _ARROWS.split(head)[-1]:
        return None  # "A → B, 그리고 … 올려줘 (왼쪽 tray에 있어)": the place belongs to the sentence after the route
    source = _stop(m.group("en") or m.group("ko") + "에서")
    if source is None or source.kind is None:
        return None
    inner = _routes(head, read_clauses) or ()
    if not any(c.action in CARRYING for c in inner):
        return None
    return [replace(c, places=c.places + (("source", source),)) if c.action in CARRYING and not any(r == "source" for r, _ in c.places)
            else c for c in inner]


def _sourced(item: str, offset: int) -> list[Clause] | None:
    """A route of two stops with where the thing comes from said after it: what stands before the arrow cannot be the
    source then, it is the thing ("belt → left basket (from rack 2)": the belt, no conveyor). None for any other item."""
    m = _SOURCE_AFTER.search(item)
    if m is None:
        return None
    parts = [p.strip(" .") for p in _ARROWS.split(item[:m.start()])]
    if len(parts) != 2 or not all(parts) or ":" in parts[0]:
        return None
    thing = _named_thing(parts[0]) or next(iter(_headline_thing(f"{parts[0]}:")), None)
    source, goal = _stop((m.group("en") or m.group("ko") + "에서").strip()), _stop(parts[1])
    if thing is None or source is None or goal is None or source.kind is None:
        return None
    return [Clause("transfer", "", offset, offset + len(item), (thing,), (("source", source), ("goal", goal)))]


def _manner_tail(tail: str) -> tuple[tuple[str, str], ...]:
    """"→ right tray, gently", "→ 1번 랙, 천천히": manner words after the last stop say how the thing is carried, ()
    when the words after the comma are anything else."""
    from plan_verifier.semantic.vocabulary import vocabulary

    v = vocabulary()
    words = tail.strip(" .!").lower()
    kind = v.en_manner.get(words) or v.ko_manner.get(words)
    return ((kind, tail.strip(" .!")),) if kind else ()


def _stop(part: str) -> PlaceRef | None:
    """One stop of a route: the place it names (with the whole it is part of: "right slot of the case"), or a place by
    its words when the vocabulary has no kind for it ("folder", "분무")."""
    from plan_verifier.semantic.english import place_phrase
    from plan_verifier.semantic.names import route_end

    if not has_hangul(part):
        return place_phrase(part)
    _, places = route_end(part, goal=True)
    if len(places) == 1:
        return places[0][1]
    words = tuple(re.findall(r"[\uac00-\ud7a3]+|[A-Za-z]+", part))
    return PlaceRef(part, words[-1], None, words=words) if words and len(words) <= 3 else None


def _named_thing(text: str) -> ObjectRef | None:
    """The thing a route names at one of its ends ("Can", "병 하나", "튤립"), None when the words name a place."""
    from plan_verifier.semantic.names import route_end

    objects, places = route_end(text)
    if places and not objects:
        return _headline_thing(f"{text}:")[0] if has_hangul(text) and _headline_thing(f"{text}:") else None
    return objects[0][0] if objects else (_headline_thing(f"{text}:") or (None,))[0]


# a finite verb after a place: the place is the subject of a sentence of its own, no fragment naming a part
_ASIDE_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|isn['’]t|aren['’]t|wasn['’]t|hasn['’]t|will|won['’]t|can['’]t)\b", re.I)
_CLITIC = re.compile(r"['’]s\s+([A-Za-z]+)")


def _aside(fragment: str) -> bool:
    """"lane 2's jammed", "lane 1 is for bars today": a place as the subject of a verb ('s before a word that names no
    place or thing is "is", not a possessive as in "bay 2's cart")."""
    from plan_verifier.semantic.language import noun_lemma
    from plan_verifier.semantic.vocabulary import vocabulary

    v = vocabulary()
    clitic = _CLITIC.search(fragment)
    return bool(_ASIDE_VERB.search(fragment)) or clitic is not None and \
        not any(noun_lemma(clitic.group(1).lower()) in known for known in (v.en_places, v.en_objects))


_FROM = re.compile(r"^\s*(?:from|out of|off(?: of)?)\s+(?P<place>[^,;]+?)\s*[.!]?\s*$", re.I)


def _origin(fragment: str) -> PlaceRef | None:
    """A sentence that is only where from ("from tray 2.", "Off the top shelf."): the source of the task before."""
    from plan_verifier.semantic.english import place_phrase

    m = _FROM.match(fragment)
    place = place_phrase(m.group("place")) if m else None
    return place if place is not None and place.kind is not None else None


def _refinement(fragment: str) -> PlaceRef | None:
    """A sentence that is only a place with a side or a label ("Right-hand pocket.", "오른쪽 칸."), else None."""
    from plan_verifier.semantic.names import route_end

    objects, places = route_end(fragment.strip().rstrip(".!"))
    if objects or len(places) != 1:
        return None
    place = places[0][1]
    if _aside(fragment):
        return None  # "— lane 2's jammed.", "— lane 1 is for bars today.": an aside, not a part of the destination
    return place if (place.label or place.side) and place.kind not in (None, "position") else None


def _headline_thing(item: str) -> tuple[ObjectRef, ...]:
    """"Caliper: incoming pallet → LH press fixture": what stands before the colon of a route is the thing carried, any
    noun the vocabulary may not know; () when there is no such heading or it is no plain noun phrase."""
    from plan_verifier.semantic.language import noun_lemma
    from plan_verifier.semantic.vocabulary import vocabulary

    head, colon, _ = item.partition(":")
    words = re.findall(r"[A-Za-z]+|[\uac00-\ud7a3]+", head)
    v = vocabulary()
    if not colon or not words or len(words) > 4 or words[0].lower() in v.en_actions:
        return ()  # "Move: …", "Tack weld: …" head a task; "string pack: …", "cable pack: …" name the thing
    last = words[-1]
    noun = noun_lemma(last.lower()) if last.isascii() else last
    noun = v.en_objects.get(noun) or v.ko_objects.get(noun) or noun
    return (ObjectRef(head.strip(), noun, words=tuple(w.lower() for w in words if w.lower() not in v.en_sides and w not in v.ko_sides)),)


def _sequel(item: str) -> int | None:
    """Where a route written with arrows is followed by a sentence of its own that an order word opens (", then screw it
    down", ". 그 다음 …"): the offset of that sentence, None when the item is all route."""
    from plan_verifier.semantic.vocabulary import vocabulary

    v = vocabulary()
    arrows = [item.find(a) for a in v.constructions.arrows if a in item]
    if not arrows:
        return None
    words = sorted(v.en_sequence | v.ko_sequence, key=len, reverse=True)
    pattern = r"[,.]\s*(?:and\s+|그리고\s+)?(?=(?:" + "|".join(re.escape(w) for w in words) + r")(?:\s|,|$))"
    for m in re.finditer(pattern, item, flags=re.IGNORECASE):
        if m.start() > min(arrows):
            return m.end()
    first = min(arrows)
    joined = re.search(r",\s*(?:and|그리고)\s+(?=\S)", item[first:], flags=re.IGNORECASE)
    if joined is not None and not any(a in item[first + joined.end():] for a in v.constructions.arrows):
        return first + joined.start() + 1  # "heel cap 1번 선반 → finishing wheel, 그리고 그게 끝나면 …": a sentence joined to the route
    stop = re.search(r"[.!?]\s+(?=\D)", item[first:])
    if stop is not None:
        return first + stop.end()  # "label roll: tray → sealer. 그리고 …": the sentence of the route has ended
    last = max(item.rfind(a) for a in v.constructions.arrows if a in item)
    for m in re.finditer(r",\s*", item[last:]):
        # "피더 부품 → 픽스처, 나사 체결, …": after the route, a request of its own (an action, no thing of the route)
        segment = item[last + m.end():].split(",")[0].strip(" .")
        if segment and _requests(segment):
            return last + m.end()
    return None


def _requests(segment: str) -> bool:
    """Does this piece of a sentence ask for an action of its own ("나사 체결", "screw it down")? A place alone ("slot 3":
    which part of the place before) does not."""
    from plan_verifier.semantic.names import route_end

    if route_end(segment)[1]:
        return False
    if has_hangul(segment):
        from plan_verifier.semantic.korean import read_clauses
    else:
        from plan_verifier.semantic.english import read_clauses
    return any(c.action is not None and not c.fact for c in read_clauses(segment))


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
        excluded_places.extend((clause.action, p) for p in clause.excluded_places)
        if clause.order is not None:
            ordered = True
        if clause.fact and not clause.objects and not clause.places and pending and pending[-1][0].carries and \
                pending[-1][0].source is None and (origin := _origin(text[clause.start:clause.end])) is not None:
            pending[-1] = (replace(pending[-1][0], source=origin), pending[-1][1])  # "… to drawer A. from tray 2": where from
            context.append(text[clause.start:clause.end])
            continue
        if clause.fact and not clause.objects and not clause.places and pending and pending[-1][0].destination is not None:
            part = _refinement(text[clause.start:clause.end])
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
            task = _task(clause, obj)
            if task is None:
                if obj is None and not clause.places and clause.action in ("move_to", "transfer") or _holds(clause):
                    global_manner.extend(clause.manner)  # "천천히 이동해서 ...", "hold it tightly": how, not where
                else:
                    unread.append(text[clause.start:clause.end])
                continue
            if task.obj is not None and not task.obj.pronoun:
                last_object = task.obj
            pending.append((task, clause.order))
    if len(pending) > 1 and pending[0][0].manner and _leads(text, pending[0][0], clauses):
        # "Carefully grab the bolt ..., then move the cube ...": a manner word before the first verb governs it all
        global_manner.extend(pending[0][0].manner)
        pending[0] = (replace(pending[0][0], manner=()), pending[0][1])
    unread.extend(_unplaced(text, clauses, pending, refined))
    tasks = _merge_pick_and_put(_shared_source(pending))
    tasks = _resolve_there(tasks, facts)
    tasks = _apply_order(tasks)
    tasks = [_with_fact(t, facts) for t in tasks]
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
    """"The red cube is in bin 3. Move it to the tray": bin 3 is the source."""
    if task.obj is None or task.source is not None or not task.carries:
        return task
    place = facts.get(_fact_key(task.obj)) or facts.get(f":{task.obj.noun}")
    return replace(task, source=place) if place is not None else task


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
            attached = next((t.obj for t, _ in reversed(out) if t.action == "attach" and t.obj is not None), None)
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


def _unique(objects: list[ObjectRef]) -> list[ObjectRef]:
    seen, out = set(), []
    for o in objects:
        key = (o.noun, o.color, o.text.lower())
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out
