"""The rule_check grader's vocabulary (`data/semantic_lexicon.yaml`), compiled once.

Words are data so that a cell with other objects or a third language can be
supported by editing a file. Each group compiles into one regular expression
whose alternatives are ordered longest first, so "pick up" wins over "pick" and
"유리컵" over "컵" at the same position. English forms are whole words
(letters on neither side; `_` and digits count as boundaries so that
`apple_pick` in a comment still says "apple"); Korean forms are substrings,
because particles attach to them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Mapping

from plan_verifier import yaml_text

_HANGUL = re.compile(r"[\uac00-\ud7a3]")


@dataclass(frozen=True, slots=True)
class Hit:
    """One vocabulary match in a text: the canonical word and where it was found."""

    canonical: str
    start: int
    end: int
    text: str


class WordGroup:
    """Canonical words with their surface forms.

    English forms are looked up word by word in a dict (1- to 3-word phrases,
    longest first), which keeps matching linear in the text; Korean forms are
    one small regex, run only on text that contains Hangul.
    """

    def __init__(self, forms: Mapping[str, list[str]]) -> None:
        self._canonical: dict[str, str] = {}
        self._first_korean: dict[str, str] = {}
        korean: list[str] = []
        for canonical, surfaces in forms.items():
            for surface in surfaces:
                key = _norm(str(surface))
                self._canonical.setdefault(key, canonical)
                if _HANGUL.search(key):
                    korean.append(key)
                    self._first_korean.setdefault(canonical, key)
        self._max_words = max((len(k.split()) for k in self._canonical), default=1)
        self._heads = frozenset(k.split()[0] for k in self._canonical if " " in k)
        self._firsts = frozenset(k.split()[0] for k in self._canonical if not _HANGUL.search(k))
        alternatives = sorted(set(korean), key=len, reverse=True)
        self._korean = re.compile("|".join(r"\s*".join(map(re.escape, a.split())) for a in alternatives)) if alternatives else None

    def __contains__(self, word: str) -> bool:
        return (word.lower() if " " not in word else _norm(word)) in self._canonical

    def canonical(self, word: str) -> str | None:
        return self._canonical.get(word.lower() if " " not in word else _norm(word))

    def korean_form(self, canonical: str) -> str | None:
        """The first Korean form listed for a canonical word (how the generator writes it)."""
        return self._first_korean.get(canonical)

    def finditer(self, text: str) -> list[Hit]:
        """Matches in text order, never overlapping (the longest form wins where two start together).

        Only the words this group can start with are visited, through the
        text's word index, so the cost follows the matches, not the text.
        """
        words, index = _latin_words(text)
        candidates: list[tuple[int, int]] = []  # (word position, length in words)
        for word in self._firsts & index.keys():
            for i in index[word]:
                n = self._phrase_at(text, words, i) if word in self._heads else 0
                if n or word in self._canonical:
                    candidates.append((i, n or 1))
        hits: list[Hit] = []
        end_of_last = -1
        for i, n in sorted(candidates):
            if i <= end_of_last:
                continue
            start, end = words[i][0], words[i + n - 1][1]
            key = " ".join(w[2] for w in words[i:i + n])
            hits.append(Hit(self._canonical[key], start, end, text[start:end]))
            end_of_last = i + n - 1
        if self._korean is not None and _HANGUL.search(text):
            for m in self._korean.finditer(text):
                hits.append(Hit(self._canonical[_norm(m.group(0))], m.start(), m.end(), m.group(0)))
            hits.sort(key=lambda h: h.start)
        return hits

    def _phrase_at(self, text: str, words: tuple[tuple[int, int, str], ...], i: int) -> int:
        """Length of the longest multi-word form starting at word i (0 if none)."""
        for n in range(min(self._max_words, len(words) - i), 1, -1):
            chunk = words[i:i + n]
            if any(text[a[1]:b[0]].strip() for a, b in zip(chunk, chunk[1:])):
                continue
            if " ".join(w[2] for w in chunk) in self._canonical:
                return n
        return 0


_LATIN_WORD = re.compile(r"[A-Za-z]+")


@functools.lru_cache(maxsize=4096)
def _latin_words(text: str) -> tuple[tuple[tuple[int, int, str], ...], dict[str, list[int]]]:
    """(start, end, lower-case word) of each Latin word, and where each word occurs; shared by every group."""
    words = tuple((m.start(), m.end(), m.group(0).lower()) for m in _LATIN_WORD.finditer(text))
    index: dict[str, list[int]] = {}
    for i, (_, _, word) in enumerate(words):
        index.setdefault(word, []).append(i)
    return words, index


def _norm(word: str) -> str:
    return " ".join(word.lower().split())


@dataclass(frozen=True)
class Lexicon:
    objects: WordGroup
    colors: WordGroup
    places: WordGroup
    home: WordGroup
    actions: WordGroup
    gentle: WordGroup
    firm: WordGroup
    sequence: WordGroup
    reorder: WordGroup
    roles: WordGroup
    ko_particles: WordGroup


@functools.lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    text = resources.files("plan_verifier.data").joinpath("semantic_lexicon.yaml").read_text(encoding="utf-8")
    data = yaml_text.load(text)

    def flat(name: str) -> WordGroup:
        return WordGroup({name: data[name]})

    return Lexicon(
        objects=WordGroup(data["objects"]),
        colors=WordGroup(data["colors"]),
        places=WordGroup(data["places"]),
        home=flat("home"),
        actions=WordGroup(data["actions"]),
        gentle=flat("gentle"),
        firm=flat("firm"),
        sequence=flat("sequence"),
        reorder=flat("reorder"),
        roles=WordGroup(data["roles"]),
        ko_particles=WordGroup(data["ko_particles"]),
    )


def has_hangul(text: str) -> bool:
    return _HANGUL.search(text) is not None


_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[\uac00-\ud7a3]+")


@functools.lru_cache(maxsize=4096)
def identifier_words(name: str) -> tuple[str, ...]:
    """`Red_Block_Grasp`, `redBlockGrasp`, `p_red_block` -> ("Red", "Block", "Grasp") ...

    Case is kept: a single capital letter is a place label, a lower-case one
    (the `p` of `p_pick`) is not.
    """
    words: list[str] = []
    for part in re.split(r"[_\W]+", name):
        words.extend(_CAMEL.findall(part))
    return tuple(words)


def canon(label: str) -> str:
    """A place label compared across instruction and plan: `Pos_1`, `pos 1`, `POS1` -> `pos1`."""
    return re.sub(r"[^0-9a-z\uac00-\ud7a3]", "", label.lower())
