"""The meanings the readers use (`data/semantic_lexicon.yaml`), compiled once into lookups.

Only meanings live in the file: inflection is the language tools' job
(`language.py`), so an entry is a base form ("drop", "옮기") and every
inflected form reaches it through lemmatisation or morphological analysis.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any, Mapping

from plan_verifier import yaml_text


@dataclass(frozen=True)
class Vocabulary:
    en_actions: Mapping[str, str]  # verb lemma or "verb particle" -> action
    ko_actions: Mapping[str, str]  # Korean stem -> action
    en_prepositions: Mapping[str, str]  # one- to three-word preposition -> source | goal | location | recipient
    ko_particles: Mapping[str, str]
    en_places: Mapping[str, str]  # noun (or two-word noun) -> place class
    ko_places: Mapping[str, str]
    en_sides: Mapping[str, str]
    ko_sides: Mapping[str, str]
    en_objects: Mapping[str, str]  # noun -> object class (synonyms share one)
    ko_objects: Mapping[str, str]
    en_generic: frozenset[str]
    ko_generic: frozenset[str]
    measures: frozenset[str]  # nouns of a quantity or packing ("bundle", "세트"): the words before them name the thing
    measure_words: Mapping[str, tuple[str, ...]]  # a measure noun -> every word of that measure, both languages (묶음: bundle …)
    en_pronouns: frozenset[str]
    ko_pronouns: frozenset[str]
    en_colors: Mapping[str, str]
    ko_colors: Mapping[str, str]
    en_materials: Mapping[str, str]
    ko_materials: Mapping[str, str]
    material_kinds: Mapping[str, frozenset[str]]  # a material and the ones that are kinds of it (metal: steel, ...)
    en_sizes: Mapping[str, str]
    ko_sizes: Mapping[str, str]
    ordinals: Mapping[str, int]
    numbers: Mapping[str, int]
    en_all: frozenset[str]
    ko_all: frozenset[str]
    en_manner: Mapping[str, str]  # word or phrase -> slow | fast | firm
    ko_manner: Mapping[str, str]
    en_manner_adverbs: Mapping[str, str]  # manner said anywhere ("…, quickly please"): adverb or phrase -> slow | fast
    ko_manner_adverbs: Mapping[str, str]
    en_fragile: frozenset[str]  # properties that ask for gentle handling ("fragile")
    ko_fragile: frozenset[str]
    en_sequence: frozenset[str]
    ko_sequence: frozenset[str]
    en_first: frozenset[str]  # order words that put their clause before all that follows ("first", "to start")
    ko_first: frozenset[str]
    en_before: frozenset[str]
    en_after: frozenset[str]
    leave_alone: frozenset[str]
    structural: frozenset[str]
    ko_structural: frozenset[str]  # Korean motion words of comments ("접근", "하강"): no object, no place
    ko_nouns: frozenset[str]  # Korean nouns of two or more syllables to register with the analyser
    ko_noun_verbs: frozenset[str]  # Korean action nouns (이동, 용접): with 하다 a verb, alone at a clause's end too
    object_classes: frozenset[str]  # the canonical object names ("cube" for cube, block, brick)
    related_objects: frozenset[frozenset[str]]  # pairs of classes one thing may be called by ("cup", "glass")
    related_places: frozenset[frozenset[str]]  # pairs of place kinds one place may be called by ("station", "tester")
    qualifier_pairs: frozenset[frozenset[str]]  # free words that stand for one another ("outfeed", "output")
    ko_qualifiers: frozenset[str]  # Korean words of those groups (투입, 불량): they describe a place or a thing, never name one
    constructions: "Constructions"
    #: the lexicon's `glossary`: a Korean noun (spaces removed) -> its English translations, each as written ("photo
    #: album") and joined ("photoalbum"); compared by `matching.translation`
    glossary: Mapping[str, frozenset[str]]

    def materials_fit(self, a: str | None, b: str | None) -> bool:
        """Could one thing be described by both materials? (the same, one unsaid, or one a kind of the other)"""
        return a is None or b is None or a == b or b in self.material_kinds.get(a, ()) or a in self.material_kinds.get(b, ())

    def measured(self, words: tuple[str, ...]) -> str | None:
        """The thing a description with a measure noun for its head names ("dowel bundle": shaft; "와셔 세트": washer;
        "경첩 세트": 경첩): the word before the measure, as its object class when it has one. None when the head is no
        measure, or nothing stands before it."""
        if len(words) < 2 or words[-1] not in self.measures or words[-2] in self.measures:
            return None
        head = words[-2]
        return self.en_objects.get(" ".join(words[-3:-1])) or self.en_objects.get(head) or self.ko_objects.get(head) or head

    @functools.cached_property
    def english_nouns(self) -> tuple[str, ...]:
        """Every English object and place noun, sorted: what a Korean loanword may be read as (`loanwords.py`)."""
        return tuple(sorted(frozenset(self.en_objects) | frozenset(self.en_places)))
    place_classes: frozenset[str]
    #: place kinds (and container objects) -> their family: kinds of one family may name one place (`places.relate`)
    place_families: Mapping[str, str]
    handover_places: frozenset[str]  # words a program names a hand-over pose with (handover, 전달)
    qualifier_group: Mapping[str, str]  # a qualifier word -> the first word of its group ("ng" -> "reject")
    opposed_qualifiers: frozenset[frozenset[str]]  # pairs of qualifier groups that say opposite things (reject, good)
    marking_qualifier: str  # the qualifier group that sets a place apart from the others of its family (reject)


def _by_language(section: Mapping[str, Any], language: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for canonical, forms in section.items():
        for form in forms.get(language, ()):
            out.setdefault(" ".join(str(form).lower().split()), canonical)
    return out


@dataclass(frozen=True)
class Constructions:
    """The lexicon's `constructions`: the word lists the readers' constructions are made of (see the lexicon's comments)."""

    leave_at: frozenset[str]  # verbs whose place is the destination after a pick ("leave it at the tray")
    fills: frozenset[str]  # verbs whose object may be the place filled ("load the centrifuge")
    goes_to: frozenset[str]  # verbs of a statement of where a thing goes ("the bolts go in bin 2")
    duty: tuple[str, ...]  # "has to", "needs to": between the subject and such a verb
    straight: frozenset[str]  # "straight", "directly": after such a verb, before its place
    arrows: tuple[str, ...]  # "->", "→": a route written as notation
    back_arrows: frozenset[str]  # "←": the place before it is where the thing after it goes
    landmarks: frozenset[str]  # "by", "next to": a place that locates the place before it
    back_where: tuple[str, ...]  # "where it was": the place a thing is returned to, not named
    ko_back_where: tuple[str, ...]  # "원래 자리", "제자리": the same in Korean
    where_it_is: frozenset[str]  # "that is", "sitting": a relative clause of where the object is (its source)
    ko_where_it_is: frozenset[str]
    list_markers: tuple[str, ...]
    place_verbs: frozenset[str]  # "bin it", "compost the roses": a verb that names where the thing goes
    via: frozenset[str]  # "past", "skip": passing a place on the way (negated, the place is ruled out)
    ko_via: frozenset[str]  # 거치, 들르: the same in Korean (verb stems)
    passes: frozenset[str]  # "pass", "run": with the thing and a place under/over/past it, that place is on the way
    passes_along: frozenset[str]  # "under", "over", "past": the prepositions of such a way
    ko_keep_empty: frozenset[str]  # 비우 (+ 두/놓): a place kept empty, where nothing may be put
    whole_cell: frozenset[str]  # "cell", "셀": the whole workplace, named in a heading ("Weld cell: …")
    tool_change: frozenset[str]  # "swap", "change": with two tools, a tool change
    empties: frozenset[str]  # "unload", "clear": the verb's place is where the thing comes from
    tools: frozenset[str]  # object classes that are the robot's tools (welder, camera …)
    mount_points: frozenset[str]  # "flange", "플랜지": the robot's tool mount (a tool put there is mounted)
    corrections: tuple[str, ...]  # "actually", "I mean", "아니": a speaker takes back what was just said (longest first)
    weak_corrections: frozenset[str]  # "no", "wait": corrections only before punctuation or another correction word
    fillers: frozenset[str]  # "er", "um": hesitations, corrections only when a phrase after them replaces one before
    ko_corrections: tuple[str, ...]
    ko_swap: frozenset[str]  # 서로, 맞바꾸, 교환: two things exchange places (no reading yet: unread)


def _constructions(data: Mapping[str, Any]) -> Constructions:
    en = lambda key: frozenset(str(w).lower() for w in data[key].get("en", ()))  # noqa: E731
    return Constructions(
        leave_at=en("leave_at"), fills=en("fills"), goes_to=en("goes_to"),
        duty=tuple(sorted((str(w).lower() for w in data["duty"]["en"]), key=lambda w: -len(w.split()))),
        straight=en("straight"), arrows=tuple(str(a) for a in data["arrows"]), back_arrows=frozenset(str(a) for a in data["back_arrows"]),
        landmarks=en("landmarks"),
        back_where=_longest_first(data["back_where"]["en"]), ko_back_where=_longest_first(data["back_where"].get("ko", ())),
        where_it_is=en("where_it_is"), ko_where_it_is=frozenset(str(w) for w in data["where_it_is"].get("ko", ())),
        list_markers=tuple(str(m) for m in data["list_markers"]), place_verbs=en("place_verbs"),
        via=en("via"), ko_via=frozenset(str(w) for w in data["via"].get("ko", ())),
        passes=en("passes"), passes_along=frozenset(str(w).lower() for w in data["passes"]["along"]),
        ko_keep_empty=frozenset(str(w) for w in data["keep_empty"]["ko"]),
        whole_cell=en("whole_cell") | frozenset(str(w) for w in data["whole_cell"].get("ko", ())),
        tool_change=en("tool_change"), empties=en("empties"), tools=frozenset(str(w) for w in data["tool_change"]["tools"]),
        mount_points=en("mount_points") | frozenset(str(w) for w in data["mount_points"].get("ko", ())),
        corrections=_longest_first(data["corrections"]["en"]), weak_corrections=frozenset(str(w) for w in data["corrections"]["weak"]),
        fillers=frozenset(str(w) for w in data["corrections"]["fillers"]),
        ko_corrections=_longest_first(data["corrections"]["ko"]), ko_swap=frozenset(str(w) for w in data["swap_places"]["ko"]))


def _longest_first(words: list) -> tuple[str, ...]:
    return tuple(sorted((str(w).lower() for w in words), key=lambda w: -len(w)))


def _glossary(section: Mapping[str, list]) -> dict[str, frozenset[str]]:
    """Korean noun -> English translations, every two-word one also written as one word ("tea cup", "teacup")."""
    out: dict[str, frozenset[str]] = {}
    for korean, english in section.items():
        forms = {" ".join(str(e).lower().split()) for e in english}
        out["".join(str(korean).split())] = frozenset(forms | {f.replace(" ", "").replace("-", "") for f in forms})
    return out


def _pairs(groups: list[list[str]]) -> frozenset[frozenset[str]]:
    return frozenset(frozenset((a, b)) for group in groups for a in group for b in group if a != b)


def _inverse(section: Mapping[str, list]) -> dict[str, str]:
    return {" ".join(str(form).lower().split()): role for role, forms in section.items() for form in forms}


@functools.lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    text = resources.files("plan_verifier.data").joinpath("semantic_lexicon.yaml").read_text(encoding="utf-8")
    data = yaml_text.load(text)
    words = lambda key, lang: frozenset(str(w).lower() for w in data[key][lang])  # noqa: E731
    return Vocabulary(
        en_actions=_by_language(data["actions"], "en"),
        ko_actions=_by_language(data["actions"], "ko"),
        en_prepositions=_inverse(data["prepositions"]),
        ko_particles=_inverse(data["particles"]),
        en_places=_by_language(data["places"], "en"),
        ko_places=_by_language(data["places"], "ko"),
        en_sides=_by_language(data["sides"], "en"),
        ko_sides=_by_language(data["sides"], "ko"),
        en_objects=_by_language(data["objects"], "en"),
        ko_objects=_by_language(data["objects"], "ko"),
        en_generic=words("generic_objects", "en"),
        ko_generic=words("generic_objects", "ko"),
        measures=words("measure_nouns", "en") | words("measure_nouns", "ko"),
        measure_words={str(w).lower(): tuple(str(x).lower() for x in group) for group in data["measure_nouns"].get("same", ())
                       for w in group},
        en_pronouns=words("pronouns", "en"),
        ko_pronouns=words("pronouns", "ko"),
        en_colors=_by_language(data["colors"], "en"),
        ko_colors=_by_language(data["colors"], "ko"),
        en_materials=_by_language(data["materials"], "en"),
        ko_materials=_by_language(data["materials"], "ko"),
        material_kinds={str(k): frozenset(str(x) for x in v) for k, v in data["material_kinds"].items()},
        en_sizes=_by_language(data["sizes"], "en"),
        ko_sizes=_by_language(data["sizes"], "ko"),
        ordinals={str(k).lower(): int(v) for k, v in data["ordinals"].items()},
        numbers={str(k).lower(): int(v) for k, v in data["numbers"].items()},
        en_all=words("all_words", "en"),
        ko_all=words("all_words", "ko"),
        en_manner=_by_language(data["manner"], "en"),
        ko_manner=_by_language(data["manner"], "ko"),
        en_manner_adverbs=_by_language(data["manner_adverbs"], "en"),
        ko_manner_adverbs=_by_language(data["manner_adverbs"], "ko"),
        en_fragile=words("fragile", "en"),
        ko_fragile=words("fragile", "ko"),
        en_sequence=words("sequence", "en"),
        ko_sequence=words("sequence", "ko"),
        en_first=words("first", "en"),
        ko_first=words("first", "ko"),
        en_before=words("before", "en"),
        en_after=words("after", "en"),
        leave_alone=frozenset(str(w).lower() for w in data["leave_alone"]),
        structural=words("structural", "en"),
        ko_structural=words("structural", "ko"),
        ko_nouns=frozenset(w for section in ("places", "objects", "sides") for forms in data[section].values()
                           for w in forms.get("ko", ()) if len(str(w)) > 1 and " " not in str(w))
                 | frozenset(str(w) for w in data["ko_noun_verbs"]),
        ko_noun_verbs=frozenset(str(w) for w in data["ko_noun_verbs"]),
        object_classes=frozenset(data["objects"]),
        related_objects=_pairs(data["related_objects"]),
        related_places=_pairs(data["related_places"]),
        qualifier_pairs=_pairs([[str(w).lower() for w in group] for group in data["qualifiers"]]),
        ko_qualifiers=frozenset(str(w) for group in data["qualifiers"] for w in group if not str(w).isascii()),
        constructions=_constructions(data["constructions"]),
        glossary=_glossary(data.get("glossary") or {}),
        place_classes=frozenset(data["places"]),
        handover_places=words("handover_places", "en") | words("handover_places", "ko"),
        qualifier_group={str(w).lower(): str(group[0]).lower() for group in data["qualifiers"] for w in group},
        opposed_qualifiers=frozenset(frozenset(str(w).lower() for w in pair) for pair in data["opposed_qualifiers"]),
        marking_qualifier=str(data["marking_qualifier"]).lower(),
        place_families={str(k): str(v["family"]) for section in ("places", "objects") for k, v in data[section].items()
                        if isinstance(v, dict) and v.get("family")},
    )
