"""Evidence from the program's own words: pose names (`Red_Cube_Pick`, `p_bin3_drop`) and comment or log texts.

Identifiers are split into words (`identifier_words`) and read with the
vocabulary: colours, materials and object nouns name the thing handled, place
nouns and their labels name where (`p_pcb_stn2_place`: station 2, through the
abbreviation `stn`). Texts are read with the instruction readers themselves
(English or Korean), so a comment "Lower the cube into bin 3" says bin 3 as
the instruction would; a route written as notation ("housing: station 2 ->
station 4") gives its source and its goal.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from plan_verifier.semantic.clauses import ROBOT_PARTS, WORK, ObjectRef, PlaceRef
from plan_verifier.semantic.places import CONTAINERS, place_key
from plan_verifier.semantic.language import has_hangul, identifier_words, noun_lemma, verb_lemma
from plan_verifier.semantic.vocabulary import vocabulary


@functools.lru_cache(maxsize=8192)
def identifier_evidence(name: str) -> tuple[tuple[tuple[ObjectRef, bool], ...], tuple[PlaceRef, ...]]:
    """Objects (with whether the noun is known) and places an identifier names.

    `Red_Cube_Pick` -> red cube; `p_bin3_drop` -> bin 3; `A_Grasp_Pose` -> A;
    `cube_place_B` -> cube, B. Words that describe the motion (pick, approach,
    pose, safe ...) are skipped; an unknown word is kept as a possible object
    name (so that a name that matches nothing is noticed, not ignored).
    """
    v = vocabulary()
    from plan_verifier.semantic.language import noun_lemma

    words = identifier_words(name)
    objects: list[tuple[ObjectRef, bool]] = []
    places: list[PlaceRef] = []
    i = 0
    color = material = size = None
    while i < len(words):
        raw = words[i]
        low = raw.lower()
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if len(raw) == 1 and raw.isupper() and raw not in "XYZ" and not nxt.isdigit():
            # `A_Grasp_Pose`, `cube_place_B`: a place label; `P2`, `J3`: a numbered point, no label
            places.append(PlaceRef(raw, raw.lower(), None, raw.lower()))
            i += 1
            continue
        if low in ("joint", "j") and i and words[i - 1].lower() == "home":
            i += 1  # `Home_Joint`: the home pose in joint space, not a weld joint
            continue
        lemma = noun_lemma(low) if low.isalpha() else low
        kind = v.en_places.get(lemma) or v.en_places.get(low)
        if kind is None and lemma not in v.en_objects and lemma not in v.en_generic and lemma not in v.structural:
            lemma = _abbreviated_place(low) or lemma  # `p_pcb_stn2_place`: station 2
            kind = v.en_places.get(lemma)
        if low in v.en_colors and not (low in v.en_objects and v.en_objects.get(noun_lemma(nxt.lower()) if nxt.isalpha() else "") is None):
            color = v.en_colors[low]  # `Red_Cube`; but `Orange_Pick` names the fruit
            i += 1
            continue
        if kind is not None and lemma not in ("pos", "position", "point", "place", "target", "spot", "location", "end") or \
                kind is not None and nxt.isdigit():
            label = nxt if nxt.isdigit() or (len(nxt) == 1 and nxt.isupper()) else None
            then = words[i + 2].lower() if i + 2 < len(words) else ""
            # `p_coupon_cart_right_pick`: a side after the place is its side, unless it goes with the place after it
            side = v.en_sides.get(nxt.lower()) if label is None and not v.en_places.get(noun_lemma(then) if then.isalpha() else then) else None
            after_kind = label or (nxt if side else None)
            places.append(PlaceRef(raw + (f" {after_kind}" if after_kind else ""), place_key(kind, label, side, lemma), kind,
                                   label.lower() if label else None, side))
            i += 2 if after_kind else 1
            continue
        if low in v.en_sides and nxt.lower() in ("side", "") :
            places.append(PlaceRef(raw, low, "position", None, low))
            i += 1
            continue
        after = noun_lemma(nxt.lower()) if nxt.isalpha() else ""
        if low in v.en_sides and v.en_places.get(after):
            # `Pcb_RightJig_Grasp`, `left_tray`: the place with its side, as "the right-hand jig" names it
            kind, side = v.en_places[after], v.en_sides[low]
            places.append(PlaceRef(f"{raw} {nxt}", place_key(kind, None, side, after), kind, None, side))
            i += 2
            continue
        if low == "home":
            places.append(PlaceRef(raw, "home", "home"))
            i += 1
            continue
        if (low in v.en_materials or low in v.en_sizes) and not (lemma in v.en_objects and v.en_objects.get(
                noun_lemma(nxt.lower()) if nxt.isalpha() else "") is None):
            material = v.en_materials.get(low) or material  # `Glass_Cup`, `Metal_Part`; but `glass_pick` names a glass
            size = v.en_sizes.get(low) or size
            i += 1
            continue
        cls = v.en_objects.get(lemma) or v.en_objects.get(low)
        if cls in ROBOT_PARTS:
            i += 1
            continue
        if cls is not None and color and v.en_objects.get(noun_lemma(nxt.lower()) if nxt.isalpha() else ""):
            i += 1  # `RedCapVial`: a noun before another object noun modifies it; the colour is the vial's (a red-cap vial)
            continue
        if lemma in v.en_generic and (material or size or color):
            objects.append((ObjectRef(raw, None, color, material, size, generic=True), True))  # `Metal_Part_Pick`
        elif low.isdigit() or low in v.structural or lemma in v.structural or len(low) < 3:
            i += 1
            continue
        if cls is not None or lemma in v.en_generic:
            if cls is not None:
                number = int(nxt) if nxt.isdigit() else None  # `Table_Box_2_Pick`: the second box (or box number 2)
                objects.append((ObjectRef(raw + (f" {nxt}" if number else ""), cls, color, material, size, number), True))
        elif low.isalpha() and not has_hangul(low):
            objects.append((ObjectRef(raw, lemma, color, material, size), False))
        color = material = size = None
        i += 1
    return tuple(objects), tuple(places)


@functools.lru_cache(maxsize=4096)
def _abbreviated_place(word: str) -> str | None:
    """The one place noun of the vocabulary `word` abbreviates by dropping letters ("stn": station), if only one fits:
    same first letter, the rest in order, at least three letters and not a word of its own; of several, the one that
    ends as the abbreviation does."""
    if not (word.isalpha() and 3 <= len(word) <= 5) or _is_word(word):
        return None
    v = vocabulary()
    names = [p for p in v.en_places if " " not in p and p[0] == word[0] and len(p) > len(word) and _in_order(word, p)]
    if len({v.en_places[p] for p in names}) > 1:
        names = [p for p in names if p[-1] == word[-1]]  # "stn" keeps the last letter of station, not of stand
    return names[0] if len({v.en_places[p] for p in names}) == 1 else None


def _in_order(short: str, long_: str) -> bool:
    it = iter(long_)
    return all(c in it for c in short)


def _is_word(word: str) -> bool:
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(word))


#: The arrow of a route written as notation ("cupcake box: lidding station -> packing line", "A → B").
ARROW = re.compile(r"\s*(?:-+>|=+>|→|⇒|➜|➔)\s*")
#: What ends one route of a list of them: "A → B, C → D".
_LIST_BREAK = re.compile(r"[,;]")


@functools.lru_cache(maxsize=8192)
def text_evidence(text: str) -> tuple[tuple[tuple[ObjectRef, bool], ...], tuple[tuple[str, PlaceRef], ...]]:
    """Objects and places a comment or log message names, with each place's role in the sentence.

    A route written with an arrow is notation, not a sentence: what stands before the first arrow is where the thing
    comes from and what stands after the last one where it goes, so a cycle's heading "housing: station 2 -> station 4"
    names station 2 for the grasp and station 4 for the release, never both for either; a place between two arrows
    ("문진: 서냉로 1단 → 편광 검사기 → 냉가공 연마기") is a stop on the way, neither — unless a comma or semicolon between
    the arrows makes it two routes ("block → left tray, jacks → right tray"), which is read as a sentence."""
    parts = ARROW.split(text)
    if len(parts) >= 2 and all(p.strip() for p in parts) and not any(_LIST_BREAK.search(p) for p in parts[1:-1]):
        head, _, origin = parts[0].rpartition(":")
        o_head, _ = _text_evidence(head) if head.strip() else ((), ())
        # (after "growler:" the thing is named: what stands before the arrow is a place, even one of no known kind)
        o_from, p_from = route_end(origin, goal=bool(head.strip()))
        o_to, p_to = route_end(parts[-1], goal=True)
        stops = tuple(("stop", p) for part in parts[1:-1] for _, p in route_end(part, goal=True)[1])
        return o_head + o_from + o_to, tuple(("source", p) for _, p in p_from) + stops + tuple(("goal", p) for _, p in p_to)
    return _text_evidence(text)


def route_end(text: str, goal: bool = False) -> tuple[tuple[tuple[ObjectRef, bool], ...], tuple[tuple[str, PlaceRef], ...]]:
    """One end of a route: a place, even when Korean leaves its particle off ("테이블 → 2번 통"), and an English end read as
    the noun phrases it is ("welding cell -> foam station": no verb "weld"). `goal`: the end is surely a place (the end
    of the route, or its start when a heading has named the thing: "growler: filler outlet -> …"), whatever its kind."""
    if not has_hangul(text):
        from plan_verifier.semantic.english import noun_phrases

        named_objects, named_places = noun_phrases(text)
        if len(named_places) == 2 and not named_objects and "," in text and not (named_places[0].label or named_places[0].side) \
                and (named_places[1].label or named_places[1].side):
            # "hold shelf, slot 1": the second names a part of the first (slot 1 of the hold shelf), one place
            whole, part = named_places
            named_places = (replace(part, text=f"{whole.text}, {part.text}", words=part.words + whole.words),)
        if named_places and len(named_places) == 1 and not named_objects:
            return (), (("location", named_places[0]),)
        words = re.findall(r"[A-Za-z]+", text)
        # (a word that may be a verb before the last is a modifier there: "→ pass window", "→ wash rack")
        if goal and not named_places and 0 < len(words) <= 3 and not re.search(r"\d", text) and \
                words[-1].lower() not in vocabulary().en_actions and verb_lemma(words[-1].lower()) not in vocabulary().en_actions and \
                not any(w.lower() in vocabulary().structural for w in words) and \
                not (named_objects and noun_lemma(words[-1].lower()) in vocabulary().en_objects):
            # "job tray → edger": after an arrow stands a place, even one the vocabulary has no kind for (no judgement
            # by kind then, only by its words); before it may stand the thing itself ("Reserved book -> hold shelf")
            lemmas = tuple(noun_lemma(w.lower()) for w in words)
            return (), (("location", PlaceRef(text.strip(), place_key(None, None, None, lemmas[-1]), None, words=lemmas)),)
    objects, places = _text_evidence(text)
    if not places and has_hangul(text):
        objects, places = _text_evidence(text.strip() + "에")
    if goal and not places and has_hangul(text):
        # "→ 충전기 출구": nouns only, no verb — a place, even one the vocabulary has no kind for
        from plan_verifier.semantic.language import korean_morphs

        morphs = [m for m in korean_morphs(text) if m.tag not in ("SF", "SP", "SS", "SO", "SW")]
        nouns = tuple(m.form for m in morphs if m.tag in ("NNG", "NNP", "SL", "SN", "NR"))
        if nouns and len(nouns) == len(morphs) <= 3:
            return (), (("location", PlaceRef(text.strip(), place_key(None, None, None, nouns[-1]), None, words=nouns)),)
    return objects, places


def _spot_of_handling(text: str) -> str:
    """"고사리 표본 집는 위치", "호흡기 내려놓는 지점": a Korean comment naming a spot by what is done to a thing there —
    a noun run, a verb made a modifier (-는/-ㄴ), a word of position. The nouns are the thing the verb handles (its
    particle left off, as comments do), the position word is where: the text with 를 after the thing, so that the reader
    takes it as the verb's object (the position word alone is no thing: `_text_evidence` drops it)."""
    from plan_verifier.semantic.language import korean_morphs

    morphs = [m for m in korean_morphs(text) if m.tag not in ("SF", "SP", "SS", "SO")]
    if len(morphs) < 4 or morphs[-2].tag != "ETM" or morphs[-3].tag not in ("VV", "VX") or \
            vocabulary().ko_places.get(morphs[-1].form) != "position":
        return text
    nouns = morphs[:-3]
    if not all(m.tag in ("NNG", "NNP", "SL", "SN", "NR", "XSN") for m in nouns):
        return text
    last = text[nouns[-1].end - 1]
    particle = "을" if "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 else "를"  # after a final consonant: 을
    return f"{text[:nouns[-1].end]}{particle}{text[nouns[-1].end:]}"


def _text_evidence(text: str) -> tuple[tuple[tuple[ObjectRef, bool], ...], tuple[tuple[str, PlaceRef], ...]]:
    if has_hangul(text):
        from plan_verifier.semantic.korean import read_clauses

        text = _spot_of_handling(text)
    else:
        from plan_verifier.semantic.english import read_clauses
    v = vocabulary()
    objects: list[tuple[ObjectRef, bool]] = []
    places: list[tuple[str, PlaceRef]] = []
    clauses = read_clauses(text)
    for clause in clauses:
        for o in clause.objects:
            if o.noun in ROBOT_PARTS or o.noun in v.ko_structural:
                continue  # "close the gripper", "그리퍼 닫기", "하강": the robot's own tool or motion, not what it handles
            if o.words and all(v.ko_places.get(w) == "position" for w in o.words):
                continue  # "… 집는 위치": a word of position alone is where, never a thing handled
            if o.noun and not o.pronoun:
                objects.append((o, o.noun in v.object_classes))
            elif o.generic and (o.color or o.material or o.size):
                objects.append((o, True))  # "the metal part", "the green one"
        for role, p in clause.places:
            if clause.action in WORK:
                places.append(("stop", p))  # "hold the pouch at the code reader": a stop on the way, no grasp or release
                continue
            if p.kind and p.kind.startswith("container:") and not p.label and p.kind.split(":", 1)[1] not in CONTAINERS:
                noun = p.kind.split(":", 1)[1]
                if noun in v.object_classes:
                    objects.append((p.obj or ObjectRef(p.text, noun, None), True))  # "approach the red cube": an object, named
                continue
            places.append((role, p))
    if not has_hangul(text) and (not objects or not places):
        # A comment without an action verb ("Above the red cube", "Bin 3 drop point"): its noun phrases
        from plan_verifier.semantic.english import noun_phrases

        named_objects, named_places = noun_phrases(text)
        if not objects:
            objects = [(o, True) for o in named_objects if o.noun not in ROBOT_PARTS]
        if not places and not any(c.places for c in clauses):
            places = [("location", p) for p in named_places]
    return tuple(objects), tuple(places)


# --------------------------------------------------------------------------- names read against the instruction


@functools.lru_cache(maxsize=4096)
def word_groups(name: str) -> tuple[tuple[str, ...], ...]:
    """An identifier's words in the groups its separators make: `PouchCell_LaserMarker_Release` -> (Pouch, Cell),
    (Laser, Marker), (Release); `p_pouch_cell_ocv_pick` -> (p,) (pouch,) (cell,) ... — camel case groups, `_` does not
    when every part is one lower-case word."""
    parts = [p for p in re.split(r"[_\W]+", name) if p]
    groups = tuple(tuple(_CAMEL.findall(p)) for p in parts)
    if all(len(g) == 1 or len(g) == 2 and g[0].islower() and g[1].isdigit() for g in groups):  # `rack1` is one word too
        return (tuple(w for g in groups for w in g),)  # snake case: one run of words, no grouping to rely on
    return tuple(g for g in groups if g)


_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[\uac00-\ud7a3]+")
#: Words for a position that a label after them makes a name (`Pos_2`, `Point_A`, `wp3`); without one they describe a motion.
_VAGUE_WORDS = frozenset({"pos", "position", "point", "pt", "location", "loc", "spot", "target", "tgt", "waypoint", "wp", "place"})


@functools.lru_cache(maxsize=16384)
def name_places(name: str, carried: tuple[str, ...] = ()) -> tuple[PlaceRef, ...]:
    """The places an identifier names once the words of the thing it handles are set apart.

    `carried` are the words the instruction uses for the object ("pouch", "cell"): the words of the name that match them,
    and the modifiers written with them, are the object (`PouchCell_LaserMarker_Release`, `p_cyl_cell_laser_mark_pick`),
    whatever the vocabulary says "cell" is; the rest, split at motion words and separators, are places, each read as kind
    + designators + words (`LaserMarker`: no kind, "laser marker"; `WardCart5`: cart 5, "ward"; `modfix_r`: "modfix",
    right). Without `carried` (or when nothing matches), the object is what the vocabulary calls one, or the first
    group of a grouped name (`Sourdough_OvenTray_Grasp`)."""
    tokens = _tokens(name, carried)
    taken = _object_span(tokens, carried)
    places: list[PlaceRef] = []
    run: list[tuple[str, int, str]] = []
    for k, token in enumerate(tokens):
        raw, group, role = token
        if k in taken or role in ("structural", "robot"):
            places += _place_phrases(run)
            run = []
            continue
        if run and group != run[-1][1] and role != "label":
            places += _place_phrases(run)
            run = []
        run.append(token)
    places += _place_phrases(run)
    return tuple(places)


def _tokens(name: str, carried: tuple[str, ...] = ()) -> list[tuple[str, int, str]]:
    """(word, group, role): role is structural, robot, label (a number or a single capital letter), side, home or word.

    A motion word that is the instruction's word for the thing carried (`carried`) is that thing: for "the pickup" (a
    guitar's) `Pickup_Shelf_Grasp` names the pickup, not a motion."""
    from plan_verifier.semantic.matching import same_word

    v = vocabulary()
    out = []
    groups = word_groups(name)
    flat = [w for g in groups for w in g]
    n = 0
    for g, words in enumerate(groups):
        for k, raw in enumerate(words):
            low = raw.lower()
            prev = out[-1] if out else None
            nxt = flat[n + 1] if n + 1 < len(flat) else ""
            n += 1
            if low in _VAGUE_WORDS and (nxt.isdigit() or len(nxt) == 1 and nxt.isupper()):
                role = "vague"  # `Pos_2`, `Point_A`: a numbered position, not a motion word
            elif raw in ("P", "J") and nxt.isdigit():
                role = "structural"  # `P3`, `J3`: points numbered in the order written, no name of a place
            elif raw.isdigit():
                role = "label"
            elif len(raw) == 1 and (raw.isupper() and raw not in "XYZ" or low in "lr" and prev is not None and prev[2] == "word"
                                    or low in "abcdefgh" and prev is not None and prev[2] == "word" and _kind_word(prev[0])):
                role = "label"  # `Table_B`, `jig_L`, `modfix_r`, `cart_a`
            elif low in v.en_sides:
                role = "side"
            elif low == "home":
                role = "home"
            elif (low in v.structural or noun_lemma(low) in v.structural or len(low) < 2 or has_hangul(low) and low in v.ko_structural) \
                    and not (len(low) > 3 and any(low == c or noun_lemma(low) == c or has_hangul(c) and same_word(low, c) for c in carried)):
                role = "structural"
            elif v.en_objects.get(noun_lemma(low)) in ROBOT_PARTS:
                role = "robot"
            else:
                role = "word"
            out.append((raw, g, role))
    # `Home_Joint`: the home pose in joint space; `P3`, `J3`: a point or joint configuration and its number
    return [t for k, t in enumerate(out) if not (t[0].lower() in ("joint", "j") and k and out[k - 1][2] == "home")
            and not (t[2] == "label" and k and out[k - 1][0] in ("P", "J") and out[k - 1][2] == "structural")]


def _object_span(tokens: list[tuple[str, int, str]], carried: tuple[str, ...]) -> set[int]:
    """Which tokens name the handled object: those matching the instruction's words for it, with the modifiers before
    them (up to a place noun or a motion word), or with the rest of their group."""
    from plan_verifier.semantic.matching import same_word

    v = vocabulary()
    words = [k for k, t in enumerate(tokens) if t[2] == "word"]
    hits = [k for k in words if carried and any(same_word(tokens[k][0].lower(), c) for c in carried)]
    grouped = len({t[1] for t in tokens}) > 1
    if hits:
        if grouped:
            hit_groups = _object_groups(tokens, hits)
            return {k for k, t in enumerate(tokens) if t[1] in hit_groups and t[2] in ("word", "label", "side")}
        span = set(hits)
        first = min(hits)
        k = first - 1
        while k >= 0 and tokens[k][2] in ("word", "side") and not _is_place_word(tokens[k][0]):
            span.add(k)  # `p_cyl_cell_...`, `p_left_lens_...`: a modifier before the object noun (a side too: the left lens)
            k -= 1
        return span | {k for k in range(first, max(hits) + 1) if tokens[k][2] == "word"}
    if carried:
        # the name does not mention the thing carried (`Scrap_Crate_Place`): only nouns the vocabulary knows as things are,
        # save a container that heads a compound of the place (`p_track_pack_scrap_box_place`: a scrap box)
        return {k for k in words if v.en_objects.get(noun_lemma(tokens[k][0].lower())) and not _is_place_word(tokens[k][0])
                and not _container_head(tokens, k)}
    if grouped:
        # `Sourdough_OvenTray_Grasp`, `Crown_SinterTray_Grasp`: the first group names the object unless it is a place
        first = next((t[1] for t in tokens if t[2] == "word"), None)
        group = [k for k, t in enumerate(tokens) if t[1] == first]
        if first is not None and not any(_is_place_word(tokens[k][0]) for k in group) and not any(tokens[k][2] == "label" for k in group):
            return set(group)
        return set()
    # snake case: the object words the vocabulary knows, and unknown words before the first place noun
    span = {k for k in words if v.en_objects.get(noun_lemma(tokens[k][0].lower())) and not _is_place_word(tokens[k][0])
            and not _container_head(tokens, k)}
    lead = [k for k in words if k < min((j for j in words if _is_place_word(tokens[j][0])), default=-1)]
    return span | set(lead)


def _container_head(tokens: list[tuple[str, int, str]], k: int) -> bool:
    """Is token k a container noun ("box", "bag") that ends a compound of words with a place noun in it
    (`track_pack_scrap_box`) before a motion word or the end? Then it heads a place's name, where things go, not a thing
    (`p_gift_box_place` stays the gift box)."""
    last = k + 1 == len(tokens) or tokens[k + 1][2] != "word"
    if not last or vocabulary().en_objects.get(noun_lemma(tokens[k][0].lower())) not in CONTAINERS or \
            k and _two_word_kind(tokens[k - 1][0], tokens[k][0]):
        return False  # `ColdBox`: a place of two words (a fridge), whatever its last word is
    j = k - 1
    while j >= 0 and tokens[j][2] == "word":
        if _is_place_word(tokens[j][0]):
            return True
        j -= 1
    return False


def _object_groups(tokens: list[tuple[str, int, str]], hits: list[int]) -> set[int]:
    """The groups of a name that name the handled object: of those with a word of it, the ones the most of whose words
    are its words. A cufflink box goes into the lost-and-found box (`CufflinkBox_LostFoundBox_Release`): both groups end
    in "box", but only the first is named by the instruction's words whole; the other is a place of the same kind."""
    share: dict[int, float] = {}
    for g in {tokens[k][1] for k in hits}:
        words = [k for k, t in enumerate(tokens) if t[1] == g and t[2] == "word"]
        share[g] = sum(k in hits for k in words) / len(words)
    best = max(share.values())
    return {g for g, x in share.items() if x == best}


def _is_place_word(raw: str) -> bool:
    v = vocabulary()
    low = raw.lower()
    return bool(v.en_places.get(noun_lemma(low)) or v.en_places.get(low) or _abbreviated_place(low))


def _place_phrases(run: list[tuple[str, int, str]]) -> list[PlaceRef]:
    """Words of a name that name places: a place noun (or two: `ColdBox`) is a kind, a number or capital after it its
    label; a label closes a place, so `Station2NestB` is station 2 and nest B, `RackBSlot2` rack B and slot 2, while a
    second number with no noun before it only counts (`bin1_2`: bin 1)."""
    v = vocabulary()
    out: list[PlaceRef] = []
    part: list[tuple[str, int, str]] = []
    closed = False
    for k, token in enumerate(run):
        raw, _, role = token
        if role == "label":
            if closed:
                continue  # `p_bin1_2_drop`: the second drop in bin 1
            part.append(token)
            closed = _labelled(part)
            continue
        if closed or role == "word" and part and _kind_word(part[-1][0]) and _kind_word(raw) and not _two_word_kind(part[-1][0], raw) \
                and not any(t[2] == "label" for t in part) and not _a_persons(part[-1][0], raw):
            if part:
                out.append(_place_phrase(part))
            part, closed = [], False
        part.append(token)
    if part:
        out.append(_place_phrase(part))
    return [p for p in out if p is not None]


def _labelled(part: list[tuple[str, int, str]]) -> bool:
    """Has this part of a name got its label (a side letter does not close it: `jig_L`)?"""
    labels = [t for t in part if t[2] == "label"]
    return bool(labels) and not (len(labels[-1][0]) == 1 and labels[-1][0].lower() in "lr" and not labels[-1][0].isupper())


def _kind_word(raw: str) -> bool:
    v = vocabulary()
    low = raw.lower()
    return bool(v.en_places.get(noun_lemma(low)) or v.en_places.get(low)) and v.en_places.get(noun_lemma(low)) != "position"


def _a_persons(a: str, b: str) -> bool:
    """A person's word before a place that is no person's (`EngineerTray`, `customer_counter`): the place is theirs, one
    place — not the person and a tray."""
    places = vocabulary().en_places
    return places.get(noun_lemma(a.lower())) == "operator" and places.get(noun_lemma(b.lower())) not in ("operator", None)


def _two_word_kind(a: str, b: str) -> bool:
    return f"{noun_lemma(a.lower())} {noun_lemma(b.lower())}" in vocabulary().en_places


def _place_phrase(run: list[tuple[str, int, str]]) -> PlaceRef | None:
    """Words of a name that name one place: the last place noun is its kind, a number or capital its label."""
    v = vocabulary()
    words: list[str] = []
    kind = label = side = color = None
    home = False
    for k, (raw, _, role) in enumerate(run):
        low = raw.lower()
        if role == "label":
            if low in ("l", "r") and not raw.isupper() or raw in ("L", "R") and words and label is None and side is None and \
                    run[-1][0] == raw:
                side = "left" if low == "l" else "right"
            else:
                label = low
            continue
        if role == "side":
            side = v.en_sides[low]
            continue
        if role == "home":
            home = True
            continue
        if role == "vague":
            kind = kind or "position"
            continue
        if low in v.en_colors:
            color = v.en_colors[low]
            continue
        lemma = noun_lemma(low) if low.isalpha() else low
        place = v.en_places.get(f"{words[-1]} {lemma}") if words else None
        place = place or v.en_places.get(lemma) or v.en_places.get(low)
        if place is None and lemma not in v.en_objects:
            abbreviated = _abbreviated_place(low)
            place = v.en_places.get(abbreviated) if abbreviated else None
        if place is not None:
            kind = place
        words.append(lemma)
    if home and not words:
        return PlaceRef("home", "home", "home")
    if not words and label is None and side is None:
        return None
    head = v.en_objects.get(words[-1]) if words else None
    if kind is None and head or head in CONTAINERS and len(words) > 1 and v.en_places.get(words[-1]) is None and \
            v.en_places.get(f"{words[-2]} {words[-1]}") is None:
        kind = f"container:{head}"  # `scrap_box`, `track_pack_scrap_box`: the last noun heads the compound
    text = " ".join(raw for raw, _, _ in run)
    return PlaceRef(text, place_key(kind, label, side, words[-1] if words else None), kind, label, side, color=color,
                    words=tuple(words))


@functools.lru_cache(maxsize=16384)
def name_objects(name: str, carried: tuple[str, ...] = ()) -> tuple[tuple[ObjectRef, bool], ...]:
    """The objects an identifier names, with whether the vocabulary knows the noun: the vocabulary's reading
    (`identifier_evidence`: colours, materials, ordinals), and when words of the name match the instruction's words for
    the object (`carried`), that span read as one object with all its words (`MuffinTray` for "the croissant tray": a
    tray, "muffin"; `CylCell` for "the pouch cell": a cell, "cyl")."""
    read = identifier_evidence(name)[0]
    tokens = _tokens(name, carried)
    span = [k for k in sorted(_object_span(tokens, carried)) if tokens[k][2] == "word"] if carried else []
    if carried and not span:
        # nothing the instruction or the vocabulary calls the thing: the name's own words for one, read as the name writes
        # them when they stand together (`p_ebony_wedge_drawer_1_pick`: an ebony wedge, not "ebony" and "wedge" apart)
        own = sorted(k for k in _object_span(tokens, ()) if tokens[k][2] == "word")
        span = own if own and own[-1] - own[0] + 1 == len(own) else []
    if not span:
        return read
    v = vocabulary()
    raw = [tokens[k][0] for k in span]
    lemmas = tuple(noun_lemma(w.lower()) if w.isalpha() else w.lower() for w in raw
                   if w.lower() not in v.en_colors and w.lower() not in v.en_materials and w.lower() not in v.en_sizes)
    if not lemmas:
        return read
    noun = v.en_objects.get(" ".join(lemmas[-2:])) or v.en_objects.get(lemmas[-1]) or lemmas[-1]
    inside = {w.lower() for w in raw}
    placed = {w.lower() for p in name_places(name, carried) for w in p.text.split()}
    same = next((o for o, _ in read if o.noun == noun), None)
    rest = tuple((o, k) for o, k in read if o is not same and not set(o.text.lower().split()) <= inside | placed)
    if same is not None:
        return ((replace(same, words=lemmas), noun in v.object_classes),) + rest
    attributes = [o for o, _ in read if set(o.text.lower().split()) <= inside]
    color = next((o.color for o in attributes if o.color), None)
    material = next((o.material for o in attributes if o.material), None)
    return ((ObjectRef(" ".join(raw), noun, color, material, words=lemmas), noun in v.object_classes),) + rest
