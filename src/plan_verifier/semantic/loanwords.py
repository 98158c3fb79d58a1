"""Hangul loanwords read as the English words they were borrowed from ("바이알" is a vial, "바스켓" a basket).

Korean writes most workshop and lab nouns as transliterations of English, and
transliteration follows sound, not spelling, so neither a word list nor plain
fuzzy matching of a romanisation finds them. What survives borrowing is the
consonant skeleton: English consonants map onto the Korean ones that write
them (v and b are both ㅂ, f and p ㅍ, r and l ㄹ; a final r and the vowels
Korean inserts between consonants are not written), so "vial" and 바이알 are
both `bl`, "blister" and 블리스터 `blst`, "flange" and 플랜지 `plnj`. A Korean
noun the vocabulary does not know is compared by skeleton with the English
nouns it does know, and the romanisations break ties; a skeleton shorter than
two consonants, or two equally good candidates, give no reading, so native
Korean words the vocabulary lacks stay unknown (the stage abstains on them).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from plan_verifier.semantic.language import similar

if TYPE_CHECKING:
    from plan_verifier.semantic.vocabulary import Vocabulary

_BASE, _LAST = 0xAC00, 0xD7A3
#: Initial consonants (19), as the skeleton writes them: tense and aspirated consonants fall together with the plain ones.
_INITIAL = ("k", "k", "n", "t", "t", "l", "m", "b", "b", "s", "s", "", "j", "j", "j", "k", "t", "p", "h")
#: (ㅊ romanised as j, the sound `english_sounds` writes for "ch": 벤치 / bench)
_INITIAL_ROMAN = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "j", "k", "t", "p", "h")
_VOWEL_ROMAN = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi", "yu", "eu", "ui", "i")
#: Final consonants (28, the first none); in loanwords a final ㅅ writes t ("켓" ket), ㅇ writes ng and ㅂ a p ("컵" cup,
#: "픽업" pickup: a final b is written 브).
_FINAL = ("", "k", "k", "k", "n", "n", "n", "t", "l", "l", "l", "l", "l", "l", "l", "l", "m", "p", "p", "t", "t", "ng", "t", "t",
          "k", "t", "p", "t")
_ENGLISH = ((r"tion$", "syon"), (r"gh", ""), (r"ge$", "j"), (r"a(?=[^aeiou]l?e$)", "ei"), (r"(?<=[^aeiou])e$", ""), (r"a[yi]", "ei"), (r"ee|ea", "i"), (r"oo", "u"), (r"ph", "p"), (r"ck", "k"), (r"sh", "s"), (r"ch", "j"), (r"th", "s"), (r"ng$", "N"), (r"c(?=[eiy])", "s"), (r"dg", "j"),
            (r"ge$", "j"), (r"c", "k"), (r"q", "k"), (r"x", "ks"), (r"v", "b"), (r"f", "p"), (r"z", "j"), (r"d", "t"),
            (r"g", "k"), (r"r(?![aeiouy])", ""), (r"r", "l"), (r"[wh]", ""), (r"N", "ng"))


def korean_skeleton(word: str) -> str:
    """The consonants a Hangul word writes, as an English-comparable skeleton ("바스켓" -> "bskt")."""
    out = []
    for ch in word:
        code = ord(ch)
        if not _BASE <= code <= _LAST:
            return ""
        code -= _BASE
        initial, final = code // 588, code % 28
        out.append(_INITIAL[initial] + _FINAL[final])
    return _collapse("".join(out))


def korean_roman(word: str) -> str:
    """A romanisation to compare with `english_sounds`: ㄹ as l, ㅎ silent, the vowel ㅡ (inserted between borrowed
    consonants) left out."""
    out = []
    for ch in word:
        code = ord(ch) - _BASE
        vowel = _VOWEL_ROMAN[(code % 588) // 28]
        out.append(_INITIAL_ROMAN[code // 588].replace("r", "l").replace("h", "") + ("" if vowel == "eu" else vowel) + _FINAL[code % 28])
    return _collapse("".join(out))


def english_skeleton(word: str) -> str:
    """The consonants an English word would be written with in Hangul ("basket" -> "bskt", "decapper" -> "tkp")."""
    return _collapse(re.sub(r"[aeiouy]", "", english_sounds(word)))


def english_sounds(word: str) -> str:
    """An English word respelt with the letters the skeleton uses, vowels kept ("vial" -> "bial")."""
    s = word.lower()
    if not s.isalpha():
        return ""
    for pattern, repl in _ENGLISH:
        s = re.sub(pattern, repl, s)
    return s


def _collapse(s: str) -> str:
    return re.sub(r"(.)\1+", r"\1", s)


def borrowed(word: str, v: "Vocabulary") -> tuple[str | None, str | None]:
    """A Hangul noun the vocabulary lacks, read as the English noun it transliterates: its object class and its place
    class ("바이알": bottle, None; "바스켓": None, bin); (None, None) when no English noun fits it alone. A native noun
    of the lexicon's `glossary` is read by its translations instead ("봉지": bag)."""
    if word in v.ko_qualifiers or word in v.ko_colors or word in v.ko_materials or word in v.ko_sides:
        return None, None  # a word the vocabulary reads already ("파손": damaged, not "person")
    glossed = {v.en_objects.get(e) for e in v.glossary.get(word, ())} - {None}
    if glossed:
        # a native noun the glossary translates by object nouns of one class ("봉지": bag, pouch): that class; of
        # several classes, none (a place it names is read by its own words, not by a translation)
        return (glossed.pop() if len(glossed) == 1 else None), None
    english = _match(word, v.english_nouns)
    if english is None:
        return None, None
    return v.en_objects.get(english), v.en_places.get(english)


@functools.lru_cache(maxsize=4096)
def _match(word: str, english: tuple[str, ...]) -> str | None:
    """The English word (of `english`) this Hangul noun transliterates, if exactly one fits."""
    skeleton = korean_skeleton(word)
    if len(word) < 2 or len(skeleton.replace("ng", "n")) < 2:
        return None
    candidates = tuple(e for e in _index(english).get(skeleton, ()) if onset_fits(word, e))
    if not candidates:
        return None
    roman = korean_roman(word)
    scored = sorted(((similar(roman, english_sounds(e)), e) for e in candidates), reverse=True)
    if scored[0][0] < 70 or len(scored) > 1 and scored[1][0] > scored[0][0] - 10:
        return None
    return scored[0][1]


#: An English word that opens with two consonants ("drawer", "tray", "station", "flask" as respelt: tl-, st-, pl-).
_CLUSTER = re.compile(r"^(?:[bpktjgms]l|s[ptkmnbl])")
_EU = 18  # the vowel ㅡ among the 21 medial vowels


def onset_fits(word: str, english: str) -> bool:
    """Korean allows no two consonants at the start of a syllable, so a word borrowed with an opening cluster writes
    the first consonant with ㅡ ("tray" 트레이, "station" 스테이션, "flask" 플라스크): a Hangul word whose first syllable
    has another vowel ("타래") is no transliteration of it, whatever its skeleton."""
    if not _CLUSTER.match(english_sounds(english)):
        return True
    code = ord(word[0]) - _BASE
    return (code % 588) // 28 == _EU


@functools.lru_cache(maxsize=8)
def _index(english: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for e in english:
        if " " not in e and len(e) > 2:
            index.setdefault(english_skeleton(e), []).append(e)
    return {k: tuple(v) for k, v in index.items()}
