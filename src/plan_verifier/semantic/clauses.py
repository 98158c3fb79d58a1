"""What a language reader finds in an instruction: clauses, and the objects and places they name.

`english.py` and `korean.py` read text into `Clause`s; `instruction.py` assembles
them into tasks. The types live here so that the readers and the assembly
depend on them, not on each other.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Actions done at a place with a tool or routine, not by carrying.
WORK = frozenset({"inspect", "weld", "screw"})
#: Actions that carry an object somewhere (a grasp and a release).
CARRYING = frozenset({"transfer", "place", "insert", "stack", "handover"})
#: The robot's own parts, which an instruction or a TDL comment may name but a pick-and-place cycle never handles.
ROBOT_PARTS = frozenset({"gripper", "robot", "arm", "tcp", "tool", "flange"})
#: The key and kind of a place said only as where the thing was ("put it back where it was", "원래 자리로"): the
#: instruction resolves it to the thing's source, when one is said.
ORIGIN = "origin"


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """An object as the instruction describes it."""

    text: str
    noun: str | None  # object class ("cube"), the noun lemma when unknown, None when generic
    color: str | None = None
    material: str | None = None
    size: str | None = None
    ordinal: int | None = None
    count: int | None = None  # "both", "two": 2; "all": -1
    generic: bool = False  # "the part", "everything": any object
    pronoun: bool = False  # "it", "them": the last object named
    #: Free words: what else the description says besides class and attributes ("croissant" of "croissant tray",
    #: "pouch" of "pouch cell"), lower-case lemmas (Korean as written).
    words: tuple[str, ...] = ()

    def describe(self) -> str:
        words = [w for w in (self.size, self.color, self.material) if w]
        return " ".join(words + [self.noun or ("one" if words else self.text)])


@dataclass(frozen=True, slots=True)
class PlaceRef:
    """A place as the instruction (or a program) names it: kind + designators (label, side, colour) + free words.

    `key` is a compact form two identical mentions share (`bin3`, `a`, `table`); `places.relate` compares the parts."""

    text: str
    key: str
    kind: str | None = None  # place class (bin, table, operator, home ...) or container:<object> or None
    label: str | None = None  # "3", "a"
    side: str | None = None
    coords: tuple[float, ...] | None = None
    #: A place that is an object ("on top of the large box", "빨간 큐브 위에"): that object, with its attributes.
    obj: ObjectRef | None = None
    color: str | None = None  # "the red tray"
    #: Free words: what the name says besides kind and designators ("proofer" of "proofer shelf"; the head noun itself
    #: when the lexicon has no kind for it: "laser marker"), lower-case lemmas (Korean as written).
    words: tuple[str, ...] = ()
    #: Words written before the place's own name that may be the carried thing's: Korean leaves an object's particle off
    #: ("미소국 그릇 패스 창구로 전달해" — the miso bowl, to the pass window) and the reader cannot tell where the thing
    #: ends when nothing else is the object. Any leading part of these may be the thing's, not the place's.
    carried: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Clause:
    """One verb and what it governs, as a language reader found it."""

    action: str | None
    verb: str
    start: int
    end: int
    objects: tuple[ObjectRef, ...] = ()
    places: tuple[tuple[str, PlaceRef], ...] = ()  # (role, place): source | goal | location | recipient
    excluded: tuple[ObjectRef, ...] = ()  # "except the green one", "말고"
    negated: bool = False
    manner: tuple[tuple[str, str], ...] = ()  # (slow | fast | firm, word)
    #: An order cue governing this clause: sequence ("then", "먼저"), after (a trailing "... after B": B
    #: happens first), before-lead (a leading "before B, ...": B happens after the next clause).
    order: str | None = None
    fact: bool = False  # "the cube is in bin 3": where an object is, no action
    excluded_places: tuple[PlaceRef, ...] = ()  # "in a bin, but not bin 3"
    #: Objects a sentence without a request names ("Sourdough's done.", "Weigh one carton:"): what a following "it" or a
    #: route without its object ("oven tray to the cooling trolley") is about.
    mentions: tuple[ObjectRef, ...] = ()


#: Kinds of place a thing is set down in or on, not only shown to: a stop of this kind in a route is a transfer.
PUT_DOWN = frozenset({"fixture", "table", "tray", "bin", "shelf", "pallet", "conveyor", "cart", "slot", "drawer", "station", "machine",
                      "press", "oven", "fridge", "bath", "scale", "mold", "dryer", "centrifuge", "incubator", "autoclave", "feeder"})


def stop_on_the_way(place: PlaceRef, start: int, end: int, order: str | None = None) -> Clause:
    """A stop between where the thing is taken and where it goes ("Can → camera → slot", "through the washer", "past the
    scanner"): set down there when it is a place things are set down in (a jig, a station: "피더 → 지그 → 컨베이어"), else
    shown or held there on the way."""
    it = ObjectRef("", None, pronoun=True)
    if place.kind in PUT_DOWN:
        return Clause("transfer", "", start, end, (it,), (("goal", place),), order=order)
    return Clause("inspect", "", start, end, (it,), (("location", place),))
