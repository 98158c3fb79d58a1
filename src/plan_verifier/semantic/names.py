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

from plan_verifier.semantic.clauses import ObjectRef, PlaceRef
from plan_verifier.semantic.english_phrases import place_key
from plan_verifier.semantic.language import has_hangul, identifier_words
from plan_verifier.semantic.vocabulary import vocabulary

#: The robot's own parts, which a TDL comment may name but a pick-and-place cycle never handles.
ROBOT_PARTS = frozenset({"gripper", "robot", "arm", "tcp", "tool", "flange"})


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
            places.append(PlaceRef(raw + (f" {label}" if label else ""), place_key(kind, label, None, lemma), kind, label.lower() if label else None))
            i += 2 if label else 1
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
    same first letter, the rest in order, at least three letters and not a word of its own."""
    if not (word.isalpha() and 3 <= len(word) <= 5) or _is_word(word):
        return None
    v = vocabulary()
    fits = {v.en_places[p] for p in v.en_places if " " not in p and p[0] == word[0] and len(p) > len(word) and _in_order(word, p)}
    names = [p for p in v.en_places if " " not in p and p[0] == word[0] and len(p) > len(word) and _in_order(word, p)]
    return names[0] if len(fits) == 1 and names else None


def _in_order(short: str, long_: str) -> bool:
    it = iter(long_)
    return all(c in it for c in short)


def _is_word(word: str) -> bool:
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(word))


#: The arrow of a route written as notation ("cupcake box: lidding station -> packing line", "A → B").
_ARROW = re.compile(r"\s*(?:-+>|=+>|→|⇒|➜|➔)\s*")


@functools.lru_cache(maxsize=8192)
def text_evidence(text: str) -> tuple[tuple[tuple[ObjectRef, bool], ...], tuple[tuple[str, PlaceRef], ...]]:
    """Objects and places a comment or log message names, with each place's role in the sentence.

    A route written with an arrow is notation, not a sentence: what stands before the arrow is where the thing comes
    from and what stands after it where it goes, so a cycle's heading "housing: station 2 -> station 4" names station 2
    for the grasp and station 4 for the release, never both for either."""
    parts = _ARROW.split(text)
    if len(parts) == 2 and all(p.strip() for p in parts):
        head, _, origin = parts[0].rpartition(":")
        o_head, _ = _text_evidence(head) if head.strip() else ((), ())
        o_from, p_from = _route_end(origin)
        o_to, p_to = _route_end(parts[1])
        return o_head + o_from + o_to, tuple(("source", p) for _, p in p_from) + tuple(("goal", p) for _, p in p_to)
    return _text_evidence(text)


def _route_end(text: str) -> tuple[tuple[tuple[ObjectRef, bool], ...], tuple[tuple[str, PlaceRef], ...]]:
    """One end of a route: a place, even when Korean leaves its particle off ("테이블 → 2번 통")."""
    objects, places = _text_evidence(text)
    if not places and has_hangul(text):
        objects, places = _text_evidence(text.strip() + "에")
    return objects, places


def _text_evidence(text: str) -> tuple[tuple[tuple[ObjectRef, bool], ...], tuple[tuple[str, PlaceRef], ...]]:
    if has_hangul(text):
        from plan_verifier.semantic.korean import read_clauses
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
            if o.noun and not o.pronoun:
                objects.append((o, o.noun in v.object_classes))
            elif o.generic and (o.color or o.material or o.size):
                objects.append((o, True))  # "the metal part", "the green one"
        for role, p in clause.places:
            if p.kind and p.kind.startswith("container:") and not p.label:
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
