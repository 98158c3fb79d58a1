"""Place identity: what a place reference is made of, and how two references relate.

A place, as an operator or a program names it, is

* a **kind** — the class of its head noun in the lexicon (`places`: bin, slot,
  table, tray, conveyor, shelf, station, fixture, oven …; Korean 통, 슬롯,
  테이블, 트레이, 컨베이어 …), or a container ("the carton"), or none;
* **designators** — a number or letter label ("bin 3", "table A", "3번"), a
  side ("the left jig", `jig_L`), a colour ("the red tray");
* **free words** — whatever else the reference says: the "proofer" of "proofer
  shelf", "isolation" of `IsolationBin`, or the head noun itself when the
  lexicon has no kind for it ("laser marker", "OCV tester").

`relate` compares two references on those parts into a neutral `Relation`:

| relation | when | example |
|---|---|---|
| `same` | the same name, or nothing that tells them apart (a word in common, a label where the other has none) | "bin 3" / `Bin3_Drop`; "the oven" / `OvenTray` |
| `other_kind` | two known kinds of different families (the lexicon's `family`: a box and a crate are one), different, and no word in common; a hand-over point is the person's | "slot 2" / `Bin3_Place`; "the table" / "bin 3"; "the pickup tray" / `PilotHandover` |
| `other_designator` | comparable kinds, two labels, sides or colours that differ | "bin 2" / "bin 3"; "table A" / `B_Place` |
| `other_words` | comparable kinds (one kind or family, or related kinds with no word in common), and free words on both sides of which none correspond | "the PET bin" / `ResidualBin`; "OCV tester" / `LaserMarker`; "paint table" / `GlueStation` |
| `uncomparable` | one side has no kind and no designator, or only a vague one ("position", `P3`) | "the spot" / `Bin3`; "pallet A" / `pos4` |

The relation says nothing about whether the plan is wrong: the R-SEM rules
decide that, and how sure they are, from the relation and from where the
program said it (`rules/sem/_evidence.py`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from plan_verifier.semantic.clauses import PlaceRef
from plan_verifier.semantic.language import canon, has_hangul, noun_lemma
from plan_verifier.semantic.matching import is_english
from plan_verifier.semantic.matching import matched, overlaps
from plan_verifier.semantic.vocabulary import vocabulary

SAME, OTHER_KIND, OTHER_DESIGNATOR, OTHER_WORDS, UNCOMPARABLE = "same", "other_kind", "other_designator", "other_words", "uncomparable"
#: Kinds too general to tell a place apart by themselves ("the spot", "position", `P3`).
VAGUE = frozenset({"position"})
#: Kinds that are one place whatever they are called, never a name of another.
_SINGULAR = frozenset({"home", "operator"})
#: Object classes that are places too when something is put into them ("the carton", "the cup").
CONTAINERS = frozenset({"box", "bag", "cup", "glass"})
#: Object classes that are places when a thing is held up to them ("show it to the vision camera").
_SHOWN_TO = frozenset({"camera"})
#: Single letters a program writes for a side (`jig_L`, `modfix_r`).
_SIDE_LETTERS = {"l": "left", "r": "right"}


@dataclass(frozen=True, slots=True)
class Relation:
    kind: str  # same | other_kind | other_designator | other_words | uncomparable
    detail: str = ""  # what differs, in words: "slot against bin", "2 against 3"


def place_key(kind: str | None, label: str | None, side: str | None, noun: str | None) -> str:
    """What two mentions of one place have in common: a letter label (`a`), class + number (`bin3`), a class, a side."""
    if label:
        lab = canon(label)
        if len(lab) == 1 and lab.isalpha():
            return lab
        if lab.isdigit():
            base = "pos" if kind in (None, "position") else kind.split(":")[-1]
            return f"{base}{int(lab)}"
        return lab
    if side:
        return side
    if kind:
        return kind.split(":")[-1]
    return noun or "?"


def kind_of(place: PlaceRef) -> str | None:
    """The place's kind as the lexicon knows it (a container counts as its object's class), None when unknown."""
    kind = place.kind
    if kind is None or kind in ("there", "cell"):
        return None
    if kind.startswith("container:"):
        thing = kind.split(":", 1)[1]
        return thing if thing in CONTAINERS or thing in _SHOWN_TO else None
    return kind if kind in vocabulary().place_classes else None


def words_of(place: PlaceRef) -> tuple[str, ...]:
    """Every content word of the reference (the noun of its kind too), for finding words in common."""
    if place.words:
        return place.words
    return (place.kind.split(":")[-1],) if place.kind and place.kind not in ("there", "cell") else ()


def free_words(place: PlaceRef) -> tuple[str, ...]:
    """The words that say more than the kind: "proofer" of "proofer shelf", "isolation" of `IsolationBin`."""
    v = vocabulary()
    kind = place.kind.split(":")[-1] if place.kind else None
    return tuple(w for w in place.words if not (kind and (v.en_places.get(w) == kind or v.ko_places.get(w) == kind or v.en_objects.get(w) == kind
                                                          or v.ko_objects.get(w) == kind or w == kind)))


@functools.lru_cache(maxsize=16384)
def relate(want: PlaceRef, got: PlaceRef) -> Relation:
    """How the place a program names (`got`) relates to the one the instruction names (`want`)."""
    relation = _relate(want, got)
    if relation.kind == SAME and _label_systems_differ(want, got):
        # "the second shelf" and `ShelfB`: a count and a letter are two ways of naming, and people often mean the
        # second bin by bin B; nothing says they are one place, nothing says they are two
        return Relation(UNCOMPARABLE, f"{got.text} may or may not be {want.text}")
    return relation


def _relate(want: PlaceRef, got: PlaceRef) -> Relation:
    if want.key == "there" or got.key == "there":
        return Relation(UNCOMPARABLE, "a place named before")
    if want.key == got.key and _designators(want, got) is None and not _words_differ(want, got) and not _vague_apart(want, got):
        return Relation(SAME)
    if got.kind == "cell":
        # a JSON cell position read whole: the name itself (its readings as words come separately)
        return Relation(SAME) if want.key == got.key or len(want.key) > 3 and want.key in got.key else Relation(UNCOMPARABLE)
    if want.kind and want.kind.startswith("container:") and got.key == want.kind.split(":", 1)[1] and _designators(want, got) is None:
        return Relation(SAME)
    wk, gk = kind_of(want), kind_of(got)
    letters = _letter(want), _letter(got)
    if None not in letters and letters[0] != letters[1]:
        return Relation(OTHER_DESIGNATOR, f"{letters[1].upper()} against {letters[0].upper()}")  # A and B are two places
    wk, gk = _handed_over(want, wk, got, gk), _handed_over(got, gk, want, wk)
    if wk in _SINGULAR or gk in _SINGULAR:
        if wk == gk or wk == "operator" and hands_over(got) or gk == "operator" and hands_over(want):
            return Relation(SAME)  # "큐레이터 전달 위치" for "큐레이터에게": a hand-over place is where the person takes it
        if wk is not None and gk is not None and (wk not in VAGUE and gk not in VAGUE or "home" in (wk, gk)):
            return Relation(OTHER_KIND, f"{gk} against {wk}")  # home is one place under any name: never "position A"
        return Relation(UNCOMPARABLE)
    shared = overlaps(_naming(_own_words(want, wk)), _naming(words_of(got)))
    designators = _designators(want, got)
    if wk is not None and gk is not None and wk not in VAGUE and gk not in VAGUE:
        if wk != gk and not _related(wk, gk) and (not shared or _only_modifier_shared(want, got, wk, gk)):
            # a slot is not a bin; the bow press is not the bow rack — a word before two heads of other kinds says what the
            # places serve, not that they are one
            return Relation(OTHER_KIND, f"{gk} against {wk}")
        if designators is not None:
            return Relation(OTHER_DESIGNATOR, designators)
        opposed = _opposed(want, got, wk != gk)
        if opposed is not None and not shared:
            return Relation(OTHER_DESIGNATOR, opposed)  # the remake bin is not the dispatch box
        if (wk == gk or _family(wk, gk) or not shared) and _words_differ(want, got, (wk, gk)):
            # the PET bin and the residual bin; between related kinds with no word in common too, the paint table and
            # the glue station: a station may be named by its bench, but not by a bench for another kind of work
            return Relation(OTHER_WORDS, f"{' '.join(free_words(got))} against {' '.join(free_words(want))}")
        if wk != gk and not shared and _named_apart(want, got):
            # the offcut box and `drawer_1`, shelf A and `MapDrawerUpper`: kinds that may name one place, each told by
            # something of its own and nothing in common
            return Relation(OTHER_WORDS, f"{got.text} against {want.text}")
        if wk != gk and not shared:
            return Relation(UNCOMPARABLE, f"{gk} and {wk} may be one place")  # the measuring station and its gauge stand
        if wk == gk and _readable(free_words(want)) and not free_words(got) and (got.label or got.side) and not (want.label or want.side):
            # "the repair cart" against `cart_A`: which cart the words mean, the letter does not say
            return Relation(UNCOMPARABLE, f"{got.text} may or may not be {want.text}")
        return Relation(SAME)
    if wk in VAGUE and gk in VAGUE:
        # "position 1" and `pos2`, the left and the right side: designators are all either has
        if designators is not None:
            return Relation(OTHER_DESIGNATOR, designators)
        if _vague_apart(want, got):
            return Relation(UNCOMPARABLE, f"{got.text} may or may not be {want.text}")
        return Relation(SAME)
    if designators is not None and (wk is not None and wk == gk or shared):
        return Relation(OTHER_DESIGNATOR, designators)
    if want.label and got.label and canon(want.label) == canon(got.label):
        return Relation(SAME)  # "position 2" and "seam 2": two ways to name one place
    if shared:
        return Relation(SAME)
    if (wk is not None and wk not in VAGUE and gk is None or gk is not None and gk not in VAGUE and wk is None) and \
            _described(want) and _described(got):
        # the rehairing vise and a "polishing wheel", "the rolling road" and `PaintBooth`: a place of a known kind and one
        # the vocabulary has no kind for, each named in words of its own (a modifier and a head) of which none correspond
        return Relation(OTHER_WORDS, f"{got.text} against {want.text}")
    # One side vague or unnamed, a kind the other names in words the vocabulary cannot place, or two places the
    # vocabulary has no kind for ("the cutter" and `Guillotine`: a speaker's word and a program's may be synonyms the
    # words alone cannot tell apart): nothing to compare.
    return Relation(UNCOMPARABLE)


#: Kinds of place that are often a part of another place (the buffer magazine's slot 2, the press's jig, the bench's
#: mat): a name that shares a word with a whole of another kind may name its part.
_PART_KINDS = frozenset({"slot", "drawer", "tray", "mat", "fixture", "seam", "position"})


def _only_modifier_shared(want: PlaceRef, got: PlaceRef, wk: str, gk: str) -> bool:
    """Do two places of other kinds share only a word before their heads ("bow press", "bow rack": what they serve)? Not
    when either head stands among the other's words ("the oven" and `OvenTray`), either has a label or side, or either
    kind is often a part of another place (`BufferSlot2` for "the buffer magazine")."""
    a, b = _naming(words_of(want)), _naming(words_of(got))
    if not a or not b or wk in _PART_KINDS or gk in _PART_KINDS or want.label or got.label or want.side or got.side:
        return False
    return not overlaps(a[-1:], b) and not overlaps(b[-1:], a)


def _named_apart(want: PlaceRef, got: PlaceRef) -> bool:
    """Is each place told by something of its own — a label, a side, a colour or readable free words — and none of it the other's
    (one label, side or colour on both; a number against a letter, two systems that never contradict, count as one)?"""
    def own(p: PlaceRef) -> bool:
        return bool(p.label or p.side or p.color) or _spelled_out(free_words(p))
    common = (want.label and got.label and (canon(want.label) == canon(got.label) or _label_systems_differ(want, got))
              or _side(want) and _side(want) == _side(got) or want.color and want.color == got.color)
    return own(want) and own(got) and not common


def _described(place: PlaceRef) -> bool:
    """Named in English words that make a description: a word or more before a head noun ("polishing wheel")."""
    return len(place.words) >= 2 and _spelled_out(place.words)


def _spelled_out(words: tuple[str, ...]) -> bool:
    """English words written out, the dictionary's or longer ones spelled like words ("offcut", "rehairing"), not
    abbreviations (`pn`, `stn`, `frdg`) nor Korean, which may stand for anything."""
    return bool(words) and all(_readable((w,)) or w.isascii() and w.isalpha() and len(w) >= 5 and sum(c in "aeiouy" for c in w) >= 2
                               for w in words)


def hands_over(place: PlaceRef) -> bool:
    """A place named for a hand-over ("큐레이터 전달 위치", "gallery hand-over point", `GalleryHandover`): a release there is
    given to whoever stands at it, whatever else its words say (the lexicon's `handover_places`). Only a point or
    position so named: a tray or a shelf for hand-overs ("전달 트레이") is a support things are set down on."""
    v = vocabulary()
    words = [w.lower() for w in place.words]
    if not words or not any(w in v.handover_places for w in words):
        return False
    head = words[-1]
    return head in v.handover_places or (v.en_places.get(head) or v.ko_places.get(head)) in VAGUE


#: Kinds of place a thing is set down on and left — never where a person takes it from the gripper.
_SET_DOWN = frozenset({"tray", "shelf", "bin", "drawer", "cart", "pallet", "mat", "chute", "slot"})


def _handed_over(place: PlaceRef, kind: str | None, other: PlaceRef, other_kind: str | None) -> str | None:
    """A position named for a hand-over ("the pilot hand-over point", `Shop_Handover`) is where a person takes the
    thing: against a place of a known kind named in other words ("the pickup tray") it counts as that person, so the
    two are other kinds — and against a support things are left on whatever words they share ("the packing hand-over
    point" and `PackingTray`: one is a hand, the other a tray). Two hand-over points, or a vague place, stay what they
    were; so does a place of work named like it (`Shop_Handover` for "the shop counter")."""
    if kind not in VAGUE or not hands_over(place) or other_kind in (None, "operator", *VAGUE) or hands_over(other):
        return kind
    if other_kind in _SET_DOWN:
        return "operator"
    return kind if overlaps(_naming(words_of(place)), _naming(words_of(other))) else "operator"


def _vague_apart(want: PlaceRef, got: PlaceRef) -> bool:
    """Two nouns the vocabulary has no kind for, both read as a position ("광택기", "도장기"), in words of which none
    correspond: nothing says they are one place."""
    return want.kind in VAGUE and got.kind in VAGUE and bool(free_words(want)) and bool(free_words(got)) and \
        not overlaps(_naming(free_words(want)), _naming(free_words(got)))


def _own_words(place: PlaceRef, kind: str | None) -> tuple[str, ...]:
    """The place's words without those that name another kind of place inside its name: "보관함" of "냉동 보관함" (a
    freezer — the lexicon's kind of the whole phrase) is no cabinet, and says nothing in common with `SpecimenCabinet`."""
    words = words_of(place)
    v = vocabulary()
    if kind is None or len(words) < 2 or (v.ko_places.get(" ".join(words)) or v.en_places.get(" ".join(words))) != kind:
        return words  # only a name the lexicon knows whole has its kind from the whole (a program's kind is a guess)
    other = [w for w in words if (c := v.ko_places.get(w) or v.en_places.get(w)) is not None and c != kind and c in v.place_classes]
    kept = tuple(w for w in words if w not in other)
    return kept if kept else words


def _naming(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words that can tell which place is meant: a hand-over word ("전달", "handover") says what a place is for, and
    a hand-over shelf and the jeweller's hand-over position are two places."""
    handover = vocabulary().handover_places
    return tuple(w for w in words if w.lower() not in handover)


def _letter(place: PlaceRef) -> str | None:
    label = canon(place.label) if place.label else None
    if label and len(label) == 1 and label.isalpha() and not (label in _SIDE_LETTERS and place.kind is not None):
        return label
    return None


def _side(place: PlaceRef) -> str | None:
    if place.side:
        return place.side
    label = canon(place.label) if place.label else None
    return _SIDE_LETTERS.get(label) if label and place.kind is not None else None


def _label_system(place: PlaceRef) -> str | None:
    """How a label designates: by count ("2번", "the second", "#2") or by letter ("B", `ShelfB`); None without one."""
    label = canon(place.label) if place.label and not _side_label(place) else None
    if not label:
        return None
    return "number" if label.isdigit() else "letter" if len(label) == 1 and label.isalpha() else "name"


def _label_systems_differ(want: PlaceRef, got: PlaceRef) -> bool:
    """A number on one side and a letter on the other: two designator systems, which cannot contradict each other."""
    return {_label_system(want), _label_system(got)} == {"number", "letter"}


def _designators(want: PlaceRef, got: PlaceRef) -> str | None:
    """What tells the two apart among labels, sides and colours (None: nothing does). A number and a letter are two
    systems of naming, not two different labels (`_label_systems_differ`)."""
    wl = canon(want.label) if want.label and not _side_label(want) else None
    gl = canon(got.label) if got.label and not _side_label(got) else None
    if wl and gl and wl != gl and not _label_systems_differ(want, got):
        return f"{gl} against {wl}"
    ws, gs = _side(want), _side(got)
    if ws and gs and ws != gs:
        return f"{gs} against {ws}"
    if want.color and got.color and want.color != got.color:
        return f"{got.color} against {want.color}"
    return None


def _side_label(place: PlaceRef) -> bool:
    return place.side is None and place.label is not None and canon(place.label) in _SIDE_LETTERS and place.kind is not None


def _related(a: str, b: str) -> bool:
    """Two kinds that may name one place: listed as related, or of one family (a box and a crate, a jig and a slot)."""
    v = vocabulary()
    return frozenset((a, b)) in v.related_objects or frozenset((a, b)) in v.related_places or _family(a, b)


def _family(a: str, b: str) -> bool:
    family = vocabulary().place_families.get(a)
    return family is not None and family == vocabulary().place_families.get(b)


def _opposed(want: PlaceRef, got: PlaceRef, other_kinds: bool) -> str | None:
    """Words of two qualifier groups the lexicon calls opposite (`opposed_qualifiers`: reject and good, reject and
    outfeed) on the two sides — a known designator of each that differs, in either language ("불량" and `Dispatch`);
    between two kinds of a family, the `marking_qualifier` (reject) on one side only ("카톤" and "격리함")."""
    v = vocabulary()
    mine = {g: w for w in words_of(want) if (g := _qualifier_of(w)) is not None}
    theirs = {g: w for w in words_of(got) if (g := _qualifier_of(w)) is not None}
    for a, wa in mine.items():
        for b, wb in theirs.items():
            if frozenset((a, b)) in v.opposed_qualifiers:
                return f"{wb} against {wa}"
    marked = v.marking_qualifier
    if other_kinds and (marked in mine) != (marked in theirs):
        return f"{got.text} against {want.text}"
    return None


def _qualifier_of(word: str) -> str | None:
    """The qualifier group of a word, a Korean compound by the qualifier it starts with ("격리함": 격리)."""
    groups = vocabulary().qualifier_group
    low = word.lower()
    if low in groups:
        return groups[low]
    if not low.isascii():
        return next((groups[low[:k]] for k in range(len(low) - 1, 1, -1) if low[:k] in groups), None)
    return None


def _readable(words: tuple[str, ...]) -> bool:
    """Words that can tell two names apart: English words of three letters or more (an abbreviation such as `sc`, `pn`
    or `cyl`, or Korean with no English reading, may stand for anything)."""
    return bool(words) and all(w.isascii() and w.isalpha() and len(w) >= 3 and (is_english(w) or _known(w)) for w in words)


def _known(word: str) -> bool:
    v = vocabulary()
    return word in v.en_places or word in v.en_objects or word in v.structural


def _words_differ(want: PlaceRef, got: PlaceRef, kinds: tuple[str | None, str | None] = (None, None)) -> bool:
    """Both say more than their kind, in comparable words, and nothing of it corresponds: the PET bin and the residual
    bin. Korean words with no English reading are never evidence of a difference. `kinds`: the two kinds when they
    differ — a word of another kind inside the instruction's name of a place (`_own_words`) is then none of its free words."""
    a, b = free_words(want), free_words(got)
    if kinds[0] != kinds[1]:
        a = tuple(w for w in a if w in _own_words(want, kinds[0]))
    # (an abbreviation beside a readable word says nothing either way; the readable word still differs: the wash
    # station and `UvCureStation`)
    if _korean_words((*a, *b)) and a and b:
        # "정비 작업대" and a comment's "프런트 데스크": two Korean names, one language — words compared as written
        return not overlaps(a, b)
    return any(_readable((w,)) for w in a) and any(_readable((w,)) for w in b) and not overlaps(a, b)


def _korean_words(words: tuple[str, ...]) -> bool:
    """Korean words all, each of two syllables or more (a one-syllable word may be a piece of a compound cut apart)."""
    return bool(words) and all(has_hangul(w) and len(w) >= 2 and not any(c.isascii() for c in w) for w in words)
