"""Whether two words, or two lists of words, name the same thing — across inflection, abbreviation and language.

The instruction says "the disinfection bath", the program `DisinfectBath_Release`,
`p_dis_bath_place` or a comment "소독조"; an operator writes "sintering furnace
tray" for `SinterTray`, "module fixture" for `modfix`. Words are compared by

* lemma (lemminflect: "shelves" and "shelf");
* prefix: the shorter word, three letters or more, begins the longer ("alu",
  "cyl", "sinter", "disinfect");
* abbreviation: three to five letters that are no English word, the first
  letter shared and the rest in order ("tbl" table, "stn" station, "frdg" fridge);
* compounds: one word written as the start of two or three words of the other
  side ("modfix" = module fixture, "checkweigher" = check weigher);
* Hangul: the lexicon's `glossary` (찻잔 and teacup, 사진첩 and "photo album"
  as a run of words, 찻 잔 written in two), the vocabulary's translation
  (`places`/`objects` classes), a transliteration of the English word (`loanwords.py`: 크라운 and crown), or one
  Korean word containing the other (소결로 트레이 and 트레이);
* the lexicon's `qualifiers`: words operators use for one another on the shop
  floor (outfeed/output, reject/NG/scrap).

Nothing here decides whether two places or objects differ: it says which words
correspond, for `places.py` and `objects.py` to compare what is left.
"""

from __future__ import annotations

import functools
from typing import Iterable, Sequence

from plan_verifier.semantic.language import english_tokens, has_hangul, korean_morphs, noun_lemma
from plan_verifier.semantic.loanwords import english_sounds, english_skeleton, korean_roman, korean_skeleton, onset_fits
from plan_verifier.semantic.vocabulary import vocabulary


@functools.lru_cache(maxsize=16384)
def same_word(a: str, b: str) -> bool:
    """Do these two words (lower-case) name the same thing?"""
    if a == b:
        return True
    ha, hb = has_hangul(a), has_hangul(b)
    if ha and hb:
        return len(a) >= 2 and len(b) >= 2 and (a in b or b in a)
    if ha or hb:
        korean, english = (a, b) if ha else (b, a)
        return _translates(korean, english)
    if not (a.isalpha() and b.isalpha()):
        return False
    la, lb = _lemma(a), _lemma(b)
    if la == lb:
        return True
    v = vocabulary()
    if frozenset((la, lb)) in v.qualifier_pairs:
        return True
    sa, sb = _verb_stem(la), _verb_stem(lb)
    if sa is not None and sa == sb and not _both_known(la, lb):
        return True  # "sander" and `SandingStation`, "capper" and "capping": the machine and what it does
    short, long_ = sorted((la, lb), key=len)
    if len(short) >= 3 and long_.startswith(short):
        # "alu", "cyl": a cut-off word; "sinter", "polish": a word and its derivation; but "pin" and "pinion" are two words
        # — and so are "rack" and "racket": a noun the vocabulary knows, then letters that make no derivation of it
        if _known_noun(short) and is_english(long_) and long_[len(short):] not in _DERIVATIONS:
            return False
        return not _both_known(short, long_) and (len(short) >= 4 or not is_english(short))
    return _abbreviates(short, long_)


def _verb_stem(word: str) -> str | None:
    """The verb in an agent noun or a gerund ("sander", "sanding": sand; "capper": cap), None for other words."""
    for suffix in ("ers", "er", "ings", "ing"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[:-len(suffix)]
            return stem[:-1] if len(stem) >= 4 and stem[-1] == stem[-2] else stem
    return None


def _lemma(word: str) -> str:
    return noun_lemma(word) if word.isalpha() else word


#: Endings that derive a word from another ("polish" / polishing, "sinter" / sintered, "cap" / capper).
_DERIVATIONS = frozenset({"s", "es", "er", "ers", "ing", "ings", "ed", "ion", "ions", "ation", "ment", "ments", "r", "d", "per", "ped",
                          "ping", "ter", "ted", "ting"})


def _known_noun(word: str) -> bool:
    v = vocabulary()
    return word in v.en_objects or word in v.en_places


def _both_known(short: str, long_: str) -> bool:
    """"pin" and "pinion", "can" and "canister": two nouns the vocabulary holds apart are never one by prefix."""
    v = vocabulary()
    classes = lambda w: {c for c in (v.en_objects.get(w), v.en_places.get(w)) if c}  # noqa: E731
    a, b = classes(short), classes(long_)
    return bool(a and b and not a & b)


@functools.lru_cache(maxsize=8192)
def _abbreviates(short: str, long_: str) -> bool:
    """`tbl` table, `stn` station, `chkweigh` checkweigher: the letters of a word that is no English word of its own, in
    order, the first one shared (longer abbreviations must keep half the letters)."""
    if len(short) < 3 or short[0] != long_[0] or len(long_) <= len(short) or is_english(short):
        return False
    if len(short) > 5 and len(short) * 2 < len(long_):
        return False
    it = iter(long_)
    return all(c in it for c in short)


@functools.lru_cache(maxsize=8192)
def is_english(word: str) -> bool:
    """Does lemminflect know the word (any part of speech)?"""
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(word))


def translation(korean: str) -> frozenset[str]:
    """The English words the glossary gives a Korean noun ("찻잔": teacup, tea cup, cup); empty when it has none. Only
    the noun itself: a compound is not read by the glossary noun it ends with ("찻주전자 반죽대" has a teapot in a
    place's name, and reading it let the teapot's poses name that place)."""
    return vocabulary().glossary.get(korean, frozenset())


def _glossed(korean: str, english: str) -> bool:
    """Does the glossary translate the Korean noun by the English word (as written, or its lemma: "books")?"""
    forms = translation(korean)
    return bool(forms) and (english in forms or _lemma(english) in forms)


def _translates(korean: str, english: str) -> bool:
    """A Korean word and an English one: a translation in the glossary, the same class in the vocabulary, or a
    transliteration of it."""
    v = vocabulary()
    if _glossed(korean, english.lower()):
        return True
    english = _lemma(english.lower())
    for table_ko, table_en in ((v.ko_places, v.en_places), (v.ko_objects, v.en_objects), (v.ko_materials, v.en_materials),
                               (v.ko_colors, v.en_colors)):
        cls, other = table_ko.get(korean), table_en.get(english)
        if cls is not None and other is not None:
            # the vocabulary knows both: 트레이 is a tray, and no sound alike makes it a drawer
            return cls == other
    if frozenset((korean, english)) in v.qualifier_pairs:
        return True  # "폐기" / scrap, "불량" / reject: words of one qualifier group, written in either language
    if len(korean) > 2 and korean[0] in _KOREAN_PREFIXES and english.startswith(_KOREAN_PREFIXES[korean[0]]):
        # "재라벨" / relabel, "재포장" / repack: the Sino-Korean prefix and the English one, then the word itself
        rest = english[len(_KOREAN_PREFIXES[korean[0]]):].lstrip("-")
        return _translates(korean[1:], rest) if rest else False
    if len(korean) >= 3 and korean[-1] in _KOREAN_SUFFIXES and _translates(korean[:-1], english):
        return True  # "플레이팅대" / plating (station), "라벨기" / label(ler): a loanword and the syllable for its stand
    return transliterates(korean, english)


#: One-syllable Korean nouns written after a loanword for the stand, machine, box or room it names (대, 기, 함, 실).
_KOREAN_SUFFIXES = frozenset("대기함실통")


#: Sino-Korean prefixes written before a loanword or a native noun, with the English prefix of the same meaning.
_KOREAN_PREFIXES = {"재": "re", "비": "non", "미": "un"}


@functools.lru_cache(maxsize=16384)
def transliterates(korean: str, english: str) -> bool:
    """Is the Hangul word the English one written as it sounds (크라운 / crown, 버스바 / busbar)?"""
    from plan_verifier.semantic.language import similar

    skeleton = korean_skeleton(korean)
    if len(skeleton.replace("ng", "n")) < 2 or not english.isalpha() or len(english) < 3:
        return False
    if skeleton != english_skeleton(english) or not onset_fits(korean, english):
        return False
    return similar(korean_roman(korean), english_sounds(english)) >= 50


def overlaps(left: Sequence[str], right: Sequence[str]) -> bool:
    """Does any word of one side correspond to a word (or a run of words, as a compound) of the other?"""
    left, right = _joined(left), _joined(right)
    return any(same_word(a, b) for a in left for b in right) or _compound(left, right) or _compound(right, left) or \
        _translated_run(left, right) or _translated_run(right, left)


def matched(words: Sequence[str], other: Sequence[str]) -> tuple[str, ...]:
    """The words of `words` that correspond to some word of `other` (as a compound too)."""
    other = _joined(other)
    out = [w for w in words if any(same_word(w, o) for o in other) or _spells(w, other) or _translated_run((w,), other)]
    return tuple(out)


def _joined(words: Sequence[str]) -> Sequence[str]:
    """The words, and two Hangul words in a row that the glossary knows written as one ("찻 잔": 찻잔)."""
    if len(words) < 2 or not any(has_hangul(w) for w in words):
        return words
    glossary = vocabulary().glossary
    extra = [a + b for a, b in zip(words, words[1:]) if has_hangul(a) and has_hangul(b) and a + b in glossary]
    return (*words, *extra) if extra else words


def _translated_run(korean: Sequence[str], english: Sequence[str]) -> bool:
    """Is a Korean word's two- or three-word translation a run of the other side's words ("도마" and `CuttingBoard`:
    cutting board)?"""
    if len(english) < 2:
        return False
    glossed = [forms for w in korean if has_hangul(w) and (forms := translation(w))]
    if not glossed:
        return False
    words = [_lemma(w.lower()) for w in english]
    runs = {" ".join(words[k:k + n]) for n in (2, 3) for k in range(len(words) - n + 1)} | \
        {" ".join(w.lower() for w in english[k:k + n]) for n in (2, 3) for k in range(len(english) - n + 1)}
    return any(forms & runs for forms in glossed)


def _compound(left: Sequence[str], right: Sequence[str]) -> bool:
    return any(_spells(a, right) for a in left)


@functools.lru_cache(maxsize=8192)
def _spells_cached(word: str, run: tuple[str, ...]) -> bool:
    return _segments(word, run, 0)


def _spells(word: str, other: Iterable[str]) -> bool:
    """`word` is the beginnings of two or three consecutive words of `other` written together ("modfix", "checkweigher")."""
    other = tuple(o for o in other if o.isalpha() and not has_hangul(o))
    if len(word) < 4 or not word.isalpha() or has_hangul(word):
        return False
    return any(_spells_cached(word, other[k:k + n]) for n in (2, 3) for k in range(len(other) - n + 1))


def _segments(word: str, run: tuple[str, ...], depth: int) -> bool:
    if not run:
        return not word
    if not word:
        return False
    head, rest = run[0], run[1:]
    for cut in range(min(len(word), len(head)), 1, -1):
        if head.startswith(word[:cut]) and (not rest and cut == len(word) or rest and _segments(word[cut:], rest, depth + 1)):
            return True
    return False


#: English words that never name a thing, besides the vocabulary's prepositions, pronouns and generic nouns.
_FUNCTION_WORDS = frozenset({"the", "a", "an", "and", "or", "but", "then", "this", "that", "these", "those", "is", "are", "be",
                             "please", "pls", "just", "also", "not", "no", "don't", "do"})


@functools.lru_cache(maxsize=1024)
def text_nouns(text: str) -> tuple[str, ...]:
    """The words of a text that may name a thing: its English words and the Korean analyser's nouns and foreign words
    ("can은" gives can), to find a name of the program's among the instruction's words whatever the reader made of them."""
    v = vocabulary()
    function = v.en_pronouns | v.en_generic | frozenset(v.en_prepositions) | _FUNCTION_WORDS
    words = [t.low for t in english_tokens(text) if t.kind == "word" and len(t.low) > 1 and t.low not in function]
    if has_hangul(text):
        words += [m.form.lower() for m in korean_morphs(text) if m.tag in ("NNG", "NNP") or m.tag == "SL" and len(m.form) > 1]
    return tuple(dict.fromkeys(words))
