"""Instructions written as notation rather than sentences: headings, planner summaries, numbered items, arrow routes.

Operators and LLM planners write "Weld cell: …", "Task: … Steps: 1. … 2. …", "sample tube: rack 1 → barcode
reader, (it's in tray 3)", "Clean the shutter first (tray 2 to the cleaner)". The language readers read
sentences; this module reads the notation around them first: it blanks what only repeats the steps (a summary, a
cell heading) and turns route items into clauses, so that `instruction.assemble` gets the same clauses whichever
way a task was written. `origin_of` and `refinement_of` read the fragments a reader leaves after a route ("from
rack 2", "the left one").
"""

from __future__ import annotations

import re
from dataclasses import replace

from plan_verifier.semantic.clauses import CARRYING, Clause, ObjectRef, PlaceRef, stop_on_the_way
from plan_verifier.semantic.language import has_hangul


_HEADING = re.compile(r"^\s*(?P<head>[^:\n]{1,40}):")


#: "Task: weld then verify. Steps: 1. … 2. …" — a planner's summary, then the steps that spell it out.
_SUMMARY = re.compile(r"^\s*(?:task|goal|objective|summary|목표|작업|과제)\s*:(?P<summary>.*?)^\s*(?:steps|procedure|plan|단계|순서|작업 순서)\s*:"
                      r"(?=\s*(?:1[.)]|①|-|\*))", re.I | re.S | re.M)


def without_summary(text: str) -> str:
    """A planner's summary before the numbered steps that spell it out says each task a second time, in other words
    and often without the order ("weld then verify", then "1. Tack weld … 2. Swap … 3. Inspect …"): the steps are the
    instruction, the summary is blanked (the offsets of the rest stay as written)."""
    m = _SUMMARY.match(text)
    if m is None:
        return text
    return text[:m.start("summary")] + " " * (m.end("summary") - m.start("summary")) + text[m.end("summary"):]


#: English words a heading names the request itself with ("Objective: relocate …", "Goal: cup to the rack"): no thing.
_REQUEST_HEADINGS = frozenset({"task", "goal", "objective", "request", "job", "instruction", "instructions", "mission", "todo", "to do", "to-do"})


def without_cell_heading(text: str) -> str:
    """"Weld cell: tack Pos_1, …", "조립 셀: 피더 부품 → 픽스처, …": a heading that names the whole workplace says where all
    of it happens, no place of any task and no thing — blanked out (the offsets of the rest stay as written). So is an
    English heading that only names the request ("Objective: transfer the hank …", "Goal: cup from tray 1 to the rack")."""
    from plan_verifier.semantic.vocabulary import vocabulary

    m = _HEADING.match(text)
    if m is None:
        return text
    head = m.group("head").strip().lower()
    if not any(head == w or head.endswith(f" {w}") for w in vocabulary().constructions.whole_cell) and \
            (head not in _REQUEST_HEADINGS or _SUMMARY.match(text)):  # (a summary before its steps: `without_summary`)
        return text
    return " " * m.end() + text[m.end():]


#: Headings that name what the request is for ("Objective: ship the tea. Move the tea box …"): its sentence can be the
#: purpose the steps after it serve.
_GOAL_HEADINGS = frozenset({"goal", "objective", "aim", "purpose", "mission", "intent", "end goal", "overall goal"})
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def without_goal_statement(text: str, read_clauses) -> str:
    """"Objective: ship the tea. Move the tea box from the cabinet to the rack, …": the sentence after a goal heading
    says what the steps that follow are for — it names the same thing in fewer words and no place — not a second
    thing to carry. Blanked (the offsets of the rest stay as written) only when that is so: it carries with no place,
    each thing it names shares a word with a thing the rest carries (not a pronoun), and the rest says where to.
    Anything else — a goal sentence with its own route, a thing the steps never carry — stays to be read."""
    m = _HEADING.match(text)
    if m is None or m.group("head").strip().lower() not in _GOAL_HEADINGS:
        return text
    stop = _SENTENCE_END.search(text, m.end())
    if stop is None or not text[stop.end():].strip():
        return text
    said = read_clauses(text[m.end():stop.end()])
    rest = [c for c in read_clauses(text[stop.end():]) if c.action in CARRYING and not c.negated]
    goals = [c for c in said if c.action is not None]
    carried = [o for c in rest if any(role == "goal" for role, _ in c.places) for o in c.objects if not o.pronoun and not o.generic]
    if not goals or not carried or any(c.action not in CARRYING or c.negated or c.places or not c.objects for c in goals):
        return text
    words = {w for o in carried for w in (*o.words, o.noun) if w}
    if any(o.pronoun or o.generic or not (set(o.words) | {o.noun}) & words for c in goals for o in c.objects):
        return text
    return " " * stop.end() + text[stop.end():]


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
        elif int(number.group()) == expected and text.rfind("(", 0, m.start()) <= text.rfind(")", 0, m.start()) and \
                not (expected == 1 and m.group().endswith(".") and re.search(r"[A-Za-z]\s*$", text[:m.start()])):
            # ("→ dye pot 1. Then …": a first number with a full stop right after an English word is that place's label)
            out.append(m)
            expected += 1
    return out


def notation_routes(text: str, read_clauses) -> tuple[Clause, ...] | None:
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
        lead = _sentence_before_route(item)
        if lead:
            # "The gear set needs a scan first. Cart → scanner → designer.": the sentence before, then the route on its own
            clauses.extend(replace(c, start=c.start + offset, end=c.end + offset) for c in read_clauses(item[:lead]))
            rest = item[lead:]
            clauses.extend(replace(c, start=c.start + offset + lead, end=c.end + offset + lead)
                           for c in notation_routes(rest, read_clauses) or read_clauses(rest))
            continue
        item = _comma_heading(_thing_first(_without_courtesy(item)))
        note = _NOTE.search(item)
        if note is not None and _ARROWS.search(item[:note.start()]) and not _SOURCE_AFTER.search(item) and not _WHERE_AFTER.search(item):
            item = item[:note.start()]  # "자물쇠: 바이스 → 카운터 접시 (손님이 알아서 가져감)": a note on the route, not its end
        joined = _joined_routes(item)
        if joined is not None:
            # "bottle, top shelf → pouring station, 그리고 jar candle rack 2 → seconds crate": two routes, each read whole
            for k, (at, part) in enumerate(joined):
                clauses.extend(replace(c, start=c.start + offset + at, end=c.end + offset + at,
                                       order="sequence" if (k or clauses) and i == 0 else c.order)
                               for i, c in enumerate(notation_routes(part, read_clauses) or read_clauses(part)))
            continue
        pieces = item.split(",")
        if len(pieces) > 1 and all(len(_ARROWS.findall(p)) == 1 for p in pieces):
            # "wooden block → left tray, jacks → right tray": one route a part
            at = 0
            for piece in pieces:
                shift = offset + at + (len(piece) - len(piece.lstrip()))
                clauses.extend(replace(c, start=c.start + shift, end=c.end + shift, order="sequence" if clauses else c.order)
                               for c in notation_routes(piece.strip(), read_clauses) or ())
                at += len(piece) + 1
            continue
        manner = _route_manner(item)
        if manner is not None:
            # "몰드 2번 냉각 랙 → 붓기 스테이션, 천천히": the route read without how it is carried, which its carrying takes
            head, how = manner
            inner = notation_routes(head, read_clauses) or ()
            if any(c.action in CARRYING or c.action == "pick" for c in inner):
                clauses.extend(replace(c, start=c.start + offset, end=c.end + offset,
                                       manner=c.manner + how if c.action in CARRYING or c.action == "pick" else c.manner,
                                       order="sequence" if k == 0 and clauses else c.order) for k, c in enumerate(inner))
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
            clauses.extend(notation_routes(head, read_clauses) or ())
            rest = item[tail:]
            clauses.extend(replace(c, start=c.start + offset + tail, end=c.end + offset + tail)
                           for c in notation_routes(rest, read_clauses) or read_clauses(rest))
            continue
        chain = _sourced(item, offset) or _sourced_front(item, offset) or _sourced_front_korean(item, offset) or _chain(item, offset)
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
                # "… → designer's tray, quickly": a manner word after the last stop says how it is carried
                _, comma, tail = _ARROWS.split(item)[-1].rpartition(",")
                clauses.append(Clause("transfer", "", offset, offset + len(item), things[:1], places, order="sequence" if clauses else None,
                                      manner=_manner_tail(tail) if comma else ()))
                continue
        clauses.extend(replace(c, start=c.start + offset, end=c.end + offset) for c in read_clauses(item))
    return tuple(clauses) or None


#: Kinds of place a thing is held at, not set down in (a scanner, a tester): a route that ends there is a visit.
_HELD_AT = frozenset({"reader", "tester"})
_ARROWS = re.compile(r"\s*(?:-+>|=+>|→|⇒|➜|➔|⟶)\s*")


#: ", and …" / ", 그리고 …" joining two parts of one item.
_AND = re.compile(r",\s*(?:and|그리고)\s+(?=\S)", re.I)


def _joined_routes(item: str) -> list[tuple[int, str]] | None:
    """"bottle, top shelf → pouring station, 그리고 jar candle rack 2 → seconds crate": two routes joined by ", and" /
    ", 그리고", each with its own arrow (a heading or thing before the first, which a plain comma split would cut from its
    route): the parts with where each starts in the item (the conjunction left out); None for any other item."""
    for m in _AND.finditer(item):
        head, tail = item[:m.start()], item[m.end():]
        if _ARROWS.search(head) and _ARROWS.search(tail):
            rest = _joined_routes(tail) or [(0, tail)]
            return [(0, head)] + [(m.end() + at, part) for at, part in rest]
    return None


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
    if thing is None and comma and not manner and 0 < len(tail.split()) <= 4 and not has_hangul(tail) and \
            (end_stop := _stop(last.strip())) is not None and end_stop.kind == "operator":
        # "Grinder → barista, the filter basket": after a person there is no part of a place to name — the words are the
        # thing, even one named like a place
        thing = next(iter(_headline_thing(f"{_OWNER.sub('', tail.strip(' .'))}:")), None)
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
    if thing is None and source is not None and len(parts) >= 3 and not comma and not has_hangul(item) and source.kind is not None and \
            not source.kind.startswith("container:"):
        thing = ObjectRef("", None, pronoun=True)  # "… the gear set … Cart → scanner → designer": the thing named before
    if thing is None or any(p is None for p in stops):
        return None
    end = offset + len(item)
    it = ObjectRef("", None, pronoun=True)
    out = [Clause("pick", "", offset, end, (thing,), (("source", source),) if source is not None else (), manner=manner)]
    for place in stops[:-1]:
        out.append(stop_on_the_way(place, offset, end, "sequence" if len(out) > 1 else None))
    return out + [Clause("transfer", "", offset, end, (it,), (("goal", stops[-1]),), order="sequence" if len(out) > 1 else None)]


#: Words in brackets at the end of a route ("… → counter dish (the customer collects it)").
_NOTE = re.compile(r"\s*\(([^()]*)\)\s*[.!]?\s*$")
#: A route's source said after it: "tie → right basket (from rack 1)", "pickup → left tray, from shelf B",
#: "넥타이 → 오른쪽 바구니 (1번 랙에서)", "라벨 롤 → 왼쪽 트레이, 주황 상자에서 꺼내서" (a verb of taking after it at most).
_SOURCE_AFTER = re.compile(r"(?:,\s*|\s*\(\s*)(?:from\s+(?P<en>[^(),]+?)|(?P<ko>[^(),]+?)에서(?:\s+(?P<taken>[가-힣]+))?)\s*\)?\s*[.!]?$", re.I)
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
    inner = notation_routes(head, read_clauses) or ()
    if not any(c.action in CARRYING for c in inner):
        return None
    return [replace(c, places=c.places + (("source", source),)) if c.action in CARRYING and not any(r == "source" for r, _ in c.places)
            else c for c in inner]


def _sourced(item: str, offset: int) -> list[Clause] | None:
    """A route of two stops with where the thing comes from said after it: what stands before the arrow cannot be the
    source then, it is the thing ("belt → left basket (from rack 2)": the belt, no conveyor). None for any other item."""
    m = _SOURCE_AFTER.search(item)
    if m is None or m.group("taken") and not _takes(m.group("taken")):
        return None
    parts = [p.strip(" .") for p in _ARROWS.split(item[:m.start()])]
    if len(parts) != 2 or not all(parts) or ":" in parts[0]:
        return None
    thing = _named_thing(parts[0]) or next(iter(_headline_thing(f"{parts[0]}:")), None)
    source, goal = _stop((m.group("en") or m.group("ko") + "에서").strip()), _stop(parts[1])
    if thing is None or source is None or goal is None or source.kind is None:
        return None
    return [Clause("transfer", "", offset, offset + len(item), (thing,), (("source", source), ("goal", goal)))]


#: The front of a route that names the thing and where it comes from: "pin kit from drawer 2 → …".
_FRONT_SOURCE = re.compile(r"^(?P<thing>[^,:]+?)\s+(?:from|out of|off of|off)\s+(?P<source>[^,:]+)$", re.I)


def _sourced_front(item: str, offset: int) -> list[Clause] | None:
    """A route of two stops whose front is "thing from place" ("pin kit from drawer 2 → 오른쪽 트레이"): the thing, its source
    (without the preposition, which is no word of the place) and the goal. None for any other item."""
    parts = [p.strip(" .") for p in _ARROWS.split(item)]
    m = _FRONT_SOURCE.match(parts[0]) if len(parts) == 2 and all(parts) else None
    if m is None:
        return None
    thing = _named_thing(m.group("thing")) or next(iter(_headline_thing(f"{m.group('thing')}:")), None)
    source, goal = _stop(m.group("source")), _stop(parts[1])
    if thing is None or source is None or goal is None or source.kind is None:
        return None
    return [Clause("transfer", "", offset, offset + len(item), (thing,), (("source", source), ("goal", goal)))]


#: The front of a Korean route that names where the thing lies, then the thing: "정비 작업대 위 호흡기 → …", "2번 선반 안
#: 상자 → …", "카트에 있는 화분 → …".
_FRONT_SOURCE_KO = re.compile(r"^(?P<source>[^,:]+?)(?:\s+(?:위|안|속|위의|안의|속의)|에\s+(?:있는|놓인|놓여\s+있는))\s+(?P<thing>[^,:\s]+(?:\s[^,:\s]+)?)$")


def _sourced_front_korean(item: str, offset: int) -> list[Clause] | None:
    """A route of two stops whose front is a place, a word of where on it (위, 안) and the thing ("정비 작업대 위 호흡기 →
    대여 상자"): the thing on that place, taken from there — the place word no part of the thing, the thing no part of
    the place. None for any other item."""
    parts = [p.strip(" .") for p in _ARROWS.split(item)]
    m = _FRONT_SOURCE_KO.match(parts[0]) if len(parts) == 2 and all(parts) and has_hangul(parts[0]) else None
    if m is None:
        return None
    thing, source, goal = _named_thing(m.group("thing")), _stop(m.group("source")), _stop(parts[1])
    if thing is None or source is None or goal is None or source.kind is None:
        return None
    return [Clause("transfer", "", offset, offset + len(item), (thing,), (("source", source), ("goal", goal)))]


def _takes(word: str) -> bool:
    """Is this Korean word a verb of taking ("꺼내서", "빼서", "집어")?"""
    from plan_verifier.semantic.language import korean_morphs
    from plan_verifier.semantic.vocabulary import vocabulary

    morphs = korean_morphs(word)
    return bool(morphs) and morphs[0].tag == "VV" and vocabulary().ko_actions.get(morphs[0].form) == "pick"


def _route_manner(item: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """A route with how to carry the thing after its last stop's comma ("A → B, 천천히", "A → B, gently"): the route
    without it and the manner; None for any other item."""
    arrows = list(_ARROWS.finditer(item))
    if not arrows:
        return None
    comma = item.rfind(",")
    if comma < arrows[-1].end():
        return None
    how = _manner_tail(item[comma + 1:])
    return (item[:comma], how) if how else None


def _manner_tail(tail: str) -> tuple[tuple[str, str], ...]:
    """"→ right tray, gently", "→ 1번 랙, 천천히": manner words after the last stop say how the thing is carried, ()
    when the words after the comma are anything else."""
    from plan_verifier.semantic.vocabulary import vocabulary

    v = vocabulary()
    said = _COURTESY_TAIL.sub("", tail).strip(" .!,")  # "…, quickly please": the courtesy adds nothing
    words = said.lower()
    kind = v.en_manner.get(words) or v.ko_manner.get(words)
    return ((kind, said),) if kind else ()


def _sentence_before_route(item: str) -> int:
    """Where an English route written with arrows starts after a sentence of its own ("The gear set needs a scan before
    the designer gets it. Cart → scanner → designer"): the offset of the route's sentence, 0 when the item starts with it."""
    arrow = _ARROWS.search(item)
    if arrow is None or has_hangul(item[:arrow.start()]):
        return 0
    ends = list(re.finditer(r"(?<=[A-Za-z0-9)])[.!?]\s+(?=[A-Z])", item[:arrow.start()]))
    return ends[-1].end() if ends else 0


#: Courtesy at the end of a route or after its manner word ("…, please", "… quickly please", "…, thanks!").
_COURTESY_TAIL = re.compile(r"(?:,\s*|\s+|^)(?:please|pls|plz|thanks|thank you|cheers|ta)\s*[.!]*\s*$", re.I)


def _without_courtesy(item: str) -> str:
    """"Cart → scanner → designer, please.": the courtesy at the end of a route is no stop of it (blanked, so offsets
    stay as written)."""
    m = _COURTESY_TAIL.search(item)
    if m is None or not _ARROWS.search(item[:m.start()]):
        return item
    return item[:m.start()] + " " * (len(item) - m.start())


#: Determiners and an owner before a thing's name ("The customer's sample card"): who it is for, not what it is.
_OWNER = re.compile(r"^\s*(?:(?:the|a|an|this|that|my|our|your|their|his|her)\s+)?(?:[A-Za-z]+['’]s\s+)?", re.I)


def _comma_heading(item: str) -> str:
    """"bracket print, printer 2 → designer's tray", "The customer's sample card, green bin → shop counter": a thing and
    a comma before a route that starts with a place is the heading "thing: route" (the same length, so what is quoted
    stays in place); the item unchanged otherwise."""
    arrow = _ARROWS.search(item)
    comma = item.find(",")
    if arrow is None or comma < 0 or comma > arrow.start() or ":" in item[:arrow.start()]:
        return item
    lead = _OWNER.match(item[:comma])
    thing = item[lead.end():comma] if lead else item[:comma]
    start = _stop(item[comma + 1:arrow.start()].strip())
    named = _stop(thing.strip()) if thing.strip() else None
    if start is None or start.kind is None or start.kind.startswith("container:") or not thing.strip() or len(thing.split()) > 4 or \
            named is not None and named.kind is not None and not named.kind.startswith("container:"):
        return item  # (a thing is no place of a known kind: "bin 2, shelf 1 → …" are two places)
    return " " * (len(item) - len(thing) - len(item[comma:])) + thing + ":" + item[comma + 1:]


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


def origin_of(fragment: str) -> PlaceRef | None:
    """A sentence that is only where from ("from tray 2.", "Off the top shelf."): the source of the task before."""
    from plan_verifier.semantic.english import place_phrase

    m = _FROM.match(fragment)
    place = place_phrase(m.group("place")) if m else None
    return place if place is not None and place.kind is not None else None


#: Words a place fragment may have besides the place ("In the right-hand pocket.").
_PLACE_FRAGMENT_WORDS = frozenset({"the", "a", "an", "in", "on", "at", "into", "onto", "to", "its", "their", "one"})


def refinement_of(fragment: str) -> PlaceRef | None:
    """A sentence that is only a place with a side or a label ("Right-hand pocket.", "오른쪽 칸."), else None."""
    from plan_verifier.semantic.names import route_end

    objects, places = route_end(fragment.strip().rstrip(".!"))
    if objects or len(places) != 1:
        return None
    place = places[0][1]
    if _aside(fragment):
        return None  # "— lane 2's jammed.", "— lane 1 is for bars today.": an aside, not a part of the destination
    said = set(place.text.lower().split())
    if any(w not in said and w not in _PLACE_FRAGMENT_WORDS for w in re.findall(r"[\w'-]+", fragment.lower())):
        return None  # "Someone left it on printer 1.": a sentence about the place, not the place alone
    return place if (place.label or place.side) and place.kind not in (None, "position") else None


def _thing_first(item: str) -> str:
    """"바이알 랙 A→1번 샘플 트레이: 스포이트 병", "렌탈 카트→레진 경화기 : 레진 키트 옮김", "rack A → tray 1: dropper": a route
    with its thing after a colon at its end, a verb noun after the thing at most, is the heading route "thing: route"
    (the same length, so what is quoted stays in place); the item unchanged otherwise."""
    from plan_verifier.semantic.language import has_hangul, korean_morphs
    from plan_verifier.semantic.vocabulary import vocabulary

    route, colon, thing = item.rpartition(":")
    if not colon or not _ARROWS.search(route) or _ARROWS.search(thing) or ":" in route or not thing.strip():
        return item
    words = thing.split()
    last = words[-1]
    morphs = korean_morphs(last) if has_hangul(last) else ()
    if len(words) > 1 and (any(m.tag in ("VV", "XSV") for m in morphs) or last.lower() in vocabulary().en_actions
                           or vocabulary().ko_actions.get(last)):
        words = words[:-1]  # "레진 키트 옮김", "dropper move": the verb says only that it is carried
    if len(words) > 4 or any(w.lower() in vocabulary().en_actions or vocabulary().ko_actions.get(w) for w in words):
        return item
    head = " ".join(words)
    return f"{head}: {route.strip()}".ljust(len(item))


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
        if segment and (_requests(segment) or _rules_out(segment)):
            return last + m.end()
    return None


def _rules_out(segment: str) -> bool:
    """Does this piece of a sentence only rule out a place ("왼쪽 말고", "3번 선반 아니고", "not shelf 3"): which of the
    places the route could mean it does not go to, no thing of the route and no stop?"""
    if has_hangul(segment):
        from plan_verifier.semantic.korean import read_clauses
    else:
        from plan_verifier.semantic.english import read_clauses
    clauses = read_clauses(segment)
    return bool(clauses) and any(c.excluded_places for c in clauses) and \
        not any(c.action is not None or c.objects or c.places for c in clauses)


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
