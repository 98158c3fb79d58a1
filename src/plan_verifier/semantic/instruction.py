"""What an instruction asks for, read without a model (the rule_check grader).

English and Korean instructions are read into an `Intent`: the objects to
handle (with their colour), the places (letter labels such as `A`, numbered or
named cell positions, `home`, coordinates given as `B(100, 105, 150)`) with
the role the sentence gives them (source, destination, work place), the
actions, manner words ("gently", "천천히") and whether the order of mention is
the order of execution. Extraction is deliberately conservative: a word it
does not recognise yields no requirement, so an unusual sentence can make the
semantic stage silent but never makes it reject a correct plan by guessing.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from plan_verifier.semantic.lexicon import Hit, canon, has_hangul, lexicon

#: Letters that are axes more often than places ("A's Z + 100mm"); a place only after a place noun.
_AXES = frozenset("XYZ")
_ARTICLES = frozenset({"the", "a", "an", "this", "that", "its", "their", "my", "our", "your"})
_CONNECTORS = frozenset({"and", "then", "to", "via", "or", "first", "again", "next"})
_ADJECTIVES = frozenset({"big", "small", "large", "little", "empty", "full", "heavy", "light", "new", "old"})
#: Words after which a capital letter names a machine, not a place ("robot A", "로봇 A").
_NOT_A_PLACE_AFTER = frozenset({"robot", "로봇", "arm", "cobot", "gripper", "camera", "tool", "plan", "option"})
_LINKING_KO = ("와", "과", ",", "및", "랑", "하고")
_LOCATED_KO = ("에 있는", "에있는", "에 놓인", "에 놓여 있는")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\d+(?:\.\d+)?|[\uac00-\ud7a3]+|[^\sA-Za-z0-9\uac00-\ud7a3]")
_LETTER = re.compile(r"(?<![A-Za-z0-9_])([A-Z])(?![A-Za-z0-9_])")
_NUMBER = r"-?\d+(?:\.\d+)?"
_COORDS = re.compile(rf"\(\s*({_NUMBER})\s*,\s*({_NUMBER})\s*,\s*({_NUMBER})(?:\s*,\s*{_NUMBER})*\s*\)")
_NUMBERED = re.compile(r"(?<![A-Za-z0-9])(pos(?:ition)?|point|station|table)[\s_]*(\d+)(?![0-9])", re.IGNORECASE)
#: Place nouns that name a place on their own ("the conveyor"); "table" or "position" alone names none.
_NAMED_PLACES = frozenset({"conveyor", "shelf", "tray", "pallet", "bin", "fixture"})


@dataclass(frozen=True, slots=True)
class Mention:
    """Something the instruction names, where, and what the sentence says about it."""

    kind: str  # object | place | action
    value: str  # canonical word, or the canonical place label (`a`, `pos1`, `home`)
    start: int
    end: int
    text: str
    color: str | None = None
    role: str | None = None  # places: source | destination | at | None
    coords: tuple[float, float, float] | None = None
    verb: str | None = None  # the action this object/place belongs to


@dataclass(frozen=True, slots=True)
class Intent:
    text: str
    korean: bool
    objects: tuple[Mention, ...] = ()
    containers: tuple[Mention, ...] = ()  # object nouns used as places ("into the box")
    places: tuple[Mention, ...] = ()
    actions: tuple[Mention, ...] = ()
    gentle: tuple[Hit, ...] = ()
    firm: tuple[Hit, ...] = ()
    ordered: bool = False

    @property
    def verbs(self) -> frozenset[str]:
        return frozenset(a.value for a in self.actions)

    def places_with(self, role: str) -> tuple[Mention, ...]:
        return tuple(p for p in self.places if p.role == role)

    @property
    def place_sequence(self) -> tuple[str, ...]:
        """Place labels in order of first mention."""
        seen: list[str] = []
        for p in self.places:
            if p.value not in seen:
                seen.append(p.value)
        return tuple(seen)

    @property
    def object_sequence(self) -> tuple[str, ...]:
        seen: list[str] = []
        for o in self.objects:
            if o.value not in seen:
                seen.append(o.value)
        return tuple(seen)

    @property
    def size(self) -> int:
        """How many checkable requirements the instruction states."""
        return len(self.object_sequence) + len(self.place_sequence) + len(self.verbs) + bool(self.gentle) + bool(self.firm)


@functools.lru_cache(maxsize=256)
def read_instruction(text: str, cell_positions: tuple[str, ...] = (), cell_routines: tuple[str, ...] = (),
                     cell_tools: tuple[tuple[str, str], ...] = ()) -> Intent:
    """Read an instruction; the cell's position, routine and tool names may appear verbatim.

    A routine named verbatim ("seam weld at Pos_2" for `seam_weld`) is the action
    `routine:<name>` (canonical: `routine:seamweld`), more specific than the verb
    inside it. `cell_tools` pairs a tool's name with the object it is
    (`("Gripper", "gripper")`, `("Welder", "welder")`).
    """
    lex = lexicon()
    korean = has_hangul(text)
    places = _places(text, cell_positions, korean)
    taken = bytearray(len(text) + 1)
    for m in places:
        taken[m.start:m.end] = b"\x01" * (m.end - m.start)
    tools = _named(text, cell_tools, "object", taken)
    named = _named(text, tuple((name, "routine:" + canon(name)) for name in cell_routines), "action", taken)
    objects, containers = _objects(text, korean, places + tools + named)
    objects = tuple(sorted(objects + tools, key=lambda m: m.start))
    for m in objects + containers:
        taken[m.start:m.end] = b"\x01" * (m.end - m.start)
    # Korean forms are substrings: the 용접 inside 용접기 (welder) is not the verb "weld".
    actions = tuple(sorted(list(named) + [Mention("action", h.canonical, h.start, h.end, h.text) for h in lex.actions.finditer(text)
                                    if taken.find(1, h.start, h.end) == -1], key=lambda m: m.start))
    if tools:
        actions = _tool_actions(actions, objects, {t.value for t in tools}, korean)
    verb_of = _VerbFinder(actions, korean)
    located = sorted(places + containers, key=lambda m: m.start)
    places = []
    for m, role in zip(located, _roles(text, located, korean)):
        verb = verb_of(m)
        places.append(Mention(m.kind, m.value, m.start, m.end, m.text, m.color, _resolve(role, verb), m.coords, verb))
    objects = tuple(Mention(o.kind, o.value, o.start, o.end, o.text, o.color, verb=verb_of(o)) for o in objects)
    sequence = list(lex.sequence.finditer(text))
    reorder = [h for h in lex.reorder.finditer(text) if not any(s.start <= h.start < s.end for s in sequence)]
    return Intent(
        text=text,
        korean=korean,
        objects=objects,
        containers=tuple(p for p in places if p.kind == "object"),
        places=tuple(p for p in places if p.kind == "place"),
        actions=actions,
        gentle=tuple(lex.gentle.finditer(text)),
        firm=tuple(lex.firm.finditer(text)),
        ordered=bool(sequence) and not reorder,
    )


# --------------------------------------------------------------------------- places


def _places(text: str, cell_positions: tuple[str, ...], korean: bool) -> tuple[Mention, ...]:
    lex = lexicon()
    found: list[Mention] = []
    taken = bytearray(len(text) + 1)  # characters already claimed by an earlier, more specific match

    def add(m: Mention) -> None:
        if taken.find(1, m.start, max(m.end, m.start + 1)) == -1:
            taken[m.start:m.end] = b"\x01" * (m.end - m.start)
            found.append(m)

    if cell_positions:
        for m in _names_pattern(cell_positions).finditer(text):
            add(Mention("place", canon(m.group(0)), m.start(), m.end(), m.group(0)))
    for m in _NUMBERED.finditer(text):
        noun = m.group(1).lower()
        prefix = "pos" if noun.startswith("pos") else noun
        add(Mention("place", f"{prefix}{int(m.group(2))}", m.start(), m.end(), m.group(0)))
    for m in _LETTER.finditer(text):
        letter = m.group(1)
        if _is_label(text, m.start(), m.end(), letter):
            coords = None
            after = _COORDS.match(text, m.end()) or _COORDS.match(text, _skip_space(text, m.end()))
            end = m.end()
            if after:
                coords = (float(after.group(1)), float(after.group(2)), float(after.group(3)))
                end = after.end()
            add(Mention("place", letter.lower(), m.start(), end, text[m.start():end], coords=coords))
    for h in lex.home.finditer(text):
        add(Mention("place", "home", h.start, h.end, h.text))
    for h in lex.places.finditer(text):
        if h.canonical in _NAMED_PLACES and not _LETTER.match(text, _skip_space(text, h.end)):
            add(Mention("place", h.canonical, h.start, h.end, h.text))
    return tuple(sorted(found, key=lambda m: m.start))


@functools.lru_cache(maxsize=32)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern:
    """One regex for a cell's position or routine names, longest first; `Pos_1` also matches `pos 1` and `Pos1`."""
    alternatives = [r"[\s_]?".join(re.escape(part) for part in re.split(r"[\s_]+", name) if part)
                    for name in sorted(names, key=len, reverse=True)]
    return re.compile(rf"(?<![A-Za-z0-9])(?:{'|'.join(alternatives)})(?![A-Za-z0-9])", re.IGNORECASE)


def _is_label(text: str, start: int, end: int, letter: str) -> bool:
    """A capital letter on its own is a place label unless it reads as an article or pronoun."""
    lex = lexicon()
    before = _words_before(text, start, 1)
    prev = before[-1].lower() if before else ""
    if prev in _NOT_A_PLACE_AFTER:
        return False
    if prev in lex.places:
        return True
    if letter in _AXES:
        return False
    if prev in lex.roles or prev in _CONNECTORS:
        return True
    rest = text[end:]
    stripped = rest.lstrip()
    if not stripped:
        return True
    first = stripped[0]
    if first in "(,.;:!?)'’\"" or has_hangul(first):
        return True
    nxt = _WORD.match(stripped)
    word = nxt.group(0).lower() if nxt else ""
    if word in _CONNECTORS or word in lex.roles or word in lex.places:
        return True
    # "A box is ...", "I want ...": an article or pronoun, not a place.
    return False


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _words_before(text: str, index: int, count: int) -> list[str]:
    """The last `count` words before `index` (a short window is enough for four words)."""
    return _WORD.findall(text, max(0, index - 48), index)[-count:]


# --------------------------------------------------------------------------- objects


def _objects(text: str, korean: bool, places: tuple[Mention, ...], find_containers: bool = True) -> tuple[tuple[Mention, ...], tuple[Mention, ...]]:
    """Object nouns with their colour; nouns used as places ("into the box") become containers
    (unless `find_containers` is False: plan text only needs what it names)."""
    lex = lexicon()
    colors = lex.colors.finditer(text)
    color_ends = [c.end for c in colors]
    taken = bytearray(len(text) + 1)
    for p in places:
        taken[p.start:p.end] = b"\x01" * (p.end - p.start)
    objects: list[Mention] = []
    containers: list[Mention] = []
    for h in lex.objects.finditer(text):
        if taken[h.start]:
            continue
        if h.canonical == "orange" and _followed_by_object(text, h.end):
            continue  # "the orange box": a colour
        color = _color_before(text, h.start, colors, color_ends) if colors else None
        mention = Mention("object", h.canonical, h.start, h.end, h.text, color=color)
        if find_containers and _is_container(text, h, korean):
            containers.append(mention)
        else:
            objects.append(mention)
    return tuple(objects), tuple(containers)


def _followed_by_object(text: str, end: int) -> bool:
    nxt = _WORD.match(text, _skip_space(text, end))
    return bool(nxt) and nxt.group(0) in lexicon().objects


def _color_before(text: str, start: int, colors: list[Hit], ends: list[int]) -> str | None:
    """A colour word directly before the noun (one adjective or `색` may sit between)."""
    i = bisect.bisect_right(ends, start)
    for c in reversed(colors[:i]):
        gap = text[c.end:start]
        words = _WORD.findall(gap)
        if len(words) <= 1 and all(w.lower() not in _ARTICLES for w in words) and len(gap) <= 12:
            return c.canonical
        break
    return None


def _is_container(text: str, hit: Hit, korean: bool) -> bool:
    """"into the box", "상자에": the noun says where, not what."""
    lex = lexicon()
    if korean and has_hangul(hit.text):
        return text[hit.end:hit.end + 3].startswith(("에서", "에", "안에", "위에", "으로", "로"))
    for word in reversed(_words_before(text, hit.start, 4)):
        w = word.lower()
        if w in _ARTICLES or w in lex.colors or w in _ADJECTIVES:
            continue
        return w in lex.roles
    return False


# --------------------------------------------------------------------------- roles


def _roles(text: str, places: list[Mention], korean: bool) -> list[str | None]:
    """The role the sentence gives each place: from (source), destination, at, or None."""
    lex = lexicon()
    roles: list[str | None] = []
    for p in places:
        role = None
        if korean:
            tail = text[p.end:p.end + 12]
            tail = re.sub(r"^\s*(?:위치|지점|테이블|작업대|\([^)]*\))?\s*", "", tail)
            hit = next(iter(lex.ko_particles.finditer(tail[:3])), None)
            if tail.startswith(_LOCATED_KO):
                role = None  # "A에 있는 사과": where the object is, the verb decides the role
            elif hit is not None and hit.start == 0:
                role = "from" if hit.canonical == "source" else "destination"
            elif tail.startswith(_LINKING_KO):
                role = "link"
            elif not has_hangul(tail[:1]):
                role = _english_role(text, p)
        else:
            role = _english_role(text, p)
        roles.append(role)
    # "weld at Pos_1 and Pos_5" / "Pos_1과 Pos_5에서": linked places share a role.
    for i, role in enumerate(roles):
        if role == "link":
            roles[i] = next((r for r in roles[i + 1:] if r != "link"), None)
    for i, role in enumerate(roles):
        if role == "inherit":
            roles[i] = next((r for r in reversed(roles[:i]) if r not in ("inherit", "link")), None)
    return roles


def _english_role(text: str, place: Mention) -> str | None:
    lex = lexicon()
    for word in reversed(_words_before(text, place.start, 4)):
        w = word.lower()
        if w in _ARTICLES or w in lex.places or w in lex.colors:
            continue
        if w in lex.roles:
            return {"source": "from", "destination": "destination", "at": "at"}[lex.roles.canonical(w)]
        if w in ("and", ",", "or"):
            return "inherit"
        return None
    return None


def _named(text: str, names: tuple[tuple[str, str], ...], kind: str, taken: bytearray) -> tuple[Mention, ...]:
    """Cell names used verbatim ("Gripper", "seam weld"), as `kind` mentions with their paired value."""
    if not names:
        return ()
    value = {canon(name): v for name, v in names}
    out = []
    for m in _names_pattern(tuple(name for name, _ in names)).finditer(text):
        if taken.find(1, m.start(), m.end()) == -1:
            out.append(Mention(kind, value[canon(m.group(0))], m.start(), m.end(), m.group(0)))
            taken[m.start():m.end()] = b"\x01" * (m.end() - m.start())
    return tuple(out)


def _tool_actions(actions: tuple[Mention, ...], objects: tuple[Mention, ...], tools: set[str], korean: bool) -> tuple[Mention, ...]:
    """Picking up a tool is attaching it, putting it (back) down is releasing it ("put the gripper back")."""
    out = []
    for i, a in enumerate(actions):
        if a.value in ("pick", "place"):
            if korean:
                low = actions[i - 1].end if i else 0
                governed = [o for o in objects if low <= o.start < a.start][-1:]
            else:
                high = actions[i + 1].start if i + 1 < len(actions) else 1 << 30
                governed = [o for o in objects if a.end <= o.start < high][:1]
            if governed and governed[0].value in tools:
                a = Mention(a.kind, "attach" if a.value == "pick" else "detach", a.start, a.end, a.text)
        out.append(a)
    return tuple(out)


class _VerbFinder:
    """The action a noun belongs to: the last verb before it (English), the first after it (Korean)."""

    def __init__(self, actions: tuple[Mention, ...], korean: bool) -> None:
        self.actions = actions
        self.korean = korean
        self.starts = [a.start for a in actions]
        self.ends = [a.end for a in actions]

    def __call__(self, m: Mention) -> str | None:
        after = bisect.bisect_left(self.starts, m.end)
        before = bisect.bisect_right(self.ends, m.start)
        if self.korean and after < len(self.actions):
            return self.actions[after].value
        if before:
            return self.actions[before - 1].value
        return self.actions[after].value if after < len(self.actions) else None


def _resolve(role: str | None, verb: str | None) -> str | None:
    """Turn `at`/`from` into what the verb makes of them: pick at A = source, place at B = destination."""
    if role in ("at", None):
        return {"pick": "source", "place": "destination", "transfer": "destination", "move": "destination",
                "return": "destination"}.get(verb or "", "at")
    if role == "from":
        return "at" if verb in ("weld", "inspect", "attach", "detach") else "source"
    return role


#: Between texts read in one pass: two non-words, so no colour, role or label reaches across.
_SEPARATOR = "\n|\n|\n"


@functools.lru_cache(maxsize=64)
def text_mentions(texts: tuple[str, ...], cell_positions: tuple[str, ...] = ()) -> tuple[tuple[tuple[Mention, ...], tuple[Mention, ...]], ...]:
    """Objects and place labels named in each of several free texts (plan comments, log messages, headers).

    The texts are read in one pass over their concatenation: per-text overhead,
    not the words, is what a hundred short comments would otherwise cost.
    Mention offsets are into the joined text (callers use what was named, not where).
    """
    joined = _SEPARATOR.join(texts)
    korean = has_hangul(joined)
    places = _places(joined, cell_positions, korean)
    objects, _none = _objects(joined, korean, places, find_containers=False)
    starts = [0]
    for text in texts[:-1]:
        starts.append(starts[-1] + len(text) + len(_SEPARATOR))
    out: list[tuple[list[Mention], list[Mention]]] = [([], []) for _ in texts]
    for kind, mentions in ((0, objects), (1, places)):
        for m in mentions:
            out[bisect.bisect_right(starts, m.start) - 1][kind].append(m)
    return tuple((tuple(o), tuple(p)) for o, p in out)
