"""Language tools the readers share: English lemmas, Korean morphemes, identifiers, fuzzy names.

* English: lemminflect gives part-of-speech-aware lemmas ("shelves" -> shelf as
  a noun, "left" -> leave as a verb), so vocabulary entries are base forms and
  any inflection an operator writes reaches them.
* Korean: Kiwi (kiwipiepy with the kiwipiepy-model package: the model ships on
  PyPI, nothing is downloaded at run time) splits eojeol into morphemes with
  their tags, so particles (에서, 로) and endings (-고, -어서, -지 마) are read
  instead of guessed from substrings. Loading the model costs about a second
  and 300 MB, so it is loaded lazily, once per process, under a lock: only an
  instruction or comment with Hangul in it pays for it (`warm_korean` lets a
  server pay at start-up instead).
* Names: rapidfuzz scores near-identical spellings ("conveyer"/"conveyor").

Nothing heavy is imported at module import time: `plan-verify check` without
an instruction never loads these libraries.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass
from typing import Any, Callable

_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_NUMBER = r"-?\d+(?:\.\d+)?"
#: A model or part number that opens with digits ("6V6", "12AX7"): one word, not a count before a word (an ordinal
#: "2nd" and a multiplier "4x" stay numbers).
_CODE_PATTERN = r"\d+(?!(?:st|nd|rd|th|x)\b)[A-Za-z][A-Za-z0-9_]*"
#: English text as tokens: coordinates "(400, 0, 50)", words (with `_`, digits, `'` inside; a hyphenated compound
#: such as "left-hand" or "out-of-tolerance" is one word; a part number), numbers, punctuation.
_EN_TOKEN = re.compile(rf"\(\s*{_NUMBER}(?:\s*,\s*{_NUMBER}){{2,}}\s*\)|[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z][A-Za-z0-9_]*)*(?:['’][A-Za-z]+)?|{_CODE_PATTERN}|#?\d+(?:\.\d+)?(?:st|nd|rd|th)?|(?<=\d)['’]s\b|[^\sA-Za-z0-9]")
_COORDS = re.compile(_NUMBER)
_CODE = re.compile(_CODE_PATTERN)
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[\uac00-\ud7a3]+")

_kiwi: Any = None
_kiwi_lock = threading.Lock()


def has_hangul(text: str) -> bool:
    return _HANGUL.search(text) is not None


@dataclass(frozen=True, slots=True)
class Token:
    """An English token with its lemmas (`verb`, `noun`: the word itself when it has none)."""

    text: str
    low: str
    start: int
    end: int
    kind: str  # word | number | coords | punct
    verb: str
    noun: str

    @property
    def parts(self) -> tuple[str, ...]:
        """The words of a hyphenated compound ("red-cap": red, cap), each of which may carry a colour or a side."""
        return tuple(self.low.split("-")) if "-" in self.low else (self.low,)

    @property
    def coords(self) -> tuple[float, ...] | None:
        if self.kind != "coords":
            return None
        return tuple(float(v) for v in _COORDS.findall(self.text))


@functools.lru_cache(maxsize=8192)
def verb_lemma(word: str) -> str:
    from lemminflect import getLemma

    lemmas = getLemma(word, upos="VERB")
    return lemmas[0].lower() if lemmas else word


@functools.lru_cache(maxsize=8192)
def noun_lemma(word: str) -> str:
    from lemminflect import getLemma

    lemmas = getLemma(word, upos="NOUN")
    return lemmas[0].lower() if lemmas else word


@functools.lru_cache(maxsize=4096)
def english_tokens(text: str) -> tuple[Token, ...]:
    out = []
    for m in _EN_TOKEN.finditer(text):
        raw = m.group(0)
        low = raw.lower().replace("’", "'")
        if raw.startswith("(") and len(raw) > 1:
            kind = "coords"
        elif low == "'s":
            # "bay 2's cart": the clitic after a number, as after a word ("the operator's tray")
            out.append(Token(raw, low, m.start(), m.end(), "word", "be", "'s"))
            continue
        elif raw[0].isalpha() or _CODE.fullmatch(raw):
            kind = "word"  # (a part number written from its digits: "the 6V6 tube", "12AX7" — a name, no count)
        elif raw[0].isdigit() or raw[0] == "#":
            kind = "number"
            low = low.lstrip("#")
        else:
            kind = "punct"
        if kind == "word" and "-" in low:
            # A compound modifies or names, or is a verb as a whole ("tack-weld": tack weld), never by its last word
            # alone ("left-hand jig" is no "hand ... over").
            head, _, last = low.rpartition("-")
            verb = head.replace("-", " ") + " " + (verb_lemma(last) if last.isalpha() else last)
            noun = low.rpartition("-")[0] + "-" + (noun_lemma(low.rpartition("-")[2]) if low[-1].isalpha() else low.rpartition("-")[2])
        elif kind == "word" and low.endswith("'s") and low[:-2].isalpha() and low not in _CLITIC_WORDS:
            # "Sourdough's done", "the operator's tray": the noun, then the clitic ('s: is, or the possessive)
            cut = m.end() - 2
            base = low[:-2]
            out.append(Token(raw[:-2], base, m.start(), cut, kind, verb_lemma(base), noun_lemma(base)))
            out.append(Token(raw[-2:], "'s", cut, m.end(), kind, "be", "'s"))
            continue
        elif kind == "word" and "_" not in low and not any(c.isdigit() for c in low):
            verb, noun = verb_lemma(low), noun_lemma(low)
        else:
            verb = noun = low
        out.append(Token(raw, low, m.start(), m.end(), kind, verb, noun))
    return tuple(out)


#: Words with 's that are words of their own in the readers' lists ("it's", "let's"), never split.
_CLITIC_WORDS = frozenset({"it's", "that's", "there's", "here's", "let's", "what's", "who's", "he's", "she's", "where's", "how's",
                           "which's", "one's"})


@dataclass(frozen=True, slots=True)
class Morph:
    """A Korean morpheme as Kiwi analyses it: the lemma form, its Sejong tag, where it is."""

    form: str
    tag: str
    start: int
    end: int


def _load_kiwi() -> Any:
    global _kiwi
    if _kiwi is None:
        with _kiwi_lock:
            if _kiwi is None:
                from kiwipiepy import Kiwi

                from plan_verifier.semantic.vocabulary import vocabulary

                kiwi = Kiwi(model_type="cong", load_typo_dict=False, load_multi_dict=False)
                for noun in sorted(vocabulary().ko_nouns):
                    kiwi.add_user_word(noun, "NNG", 0.0)  # domain words ("지그", "가접") analysed whole
                kiwi.tokenize("준비")  # the first analysis builds Kiwi's lazy tables; do it under the lock
                _kiwi = kiwi
    return _kiwi


def warm_korean() -> None:
    """Load the Korean model now (a server's configure step) instead of at the first Korean text."""
    _load_kiwi()


_analysis_lock = threading.Lock()


_NUMBER_SIGN = re.compile(r"#(?=\d)")


@functools.lru_cache(maxsize=2048)
def korean_morphs(text: str) -> tuple[Morph, ...]:
    kiwi = _load_kiwi()
    # "tray #3에서": a number sign before a label is no hashtag (Kiwi would take "#3에서" whole); blanked, offsets kept
    spaced = _NUMBER_SIGN.sub(" ", text) if "#" in text else text
    with _analysis_lock:  # one analysis at a time: the Kiwi object is shared by every thread
        tokens = kiwi.tokenize(spaced)
    return _unglue(_latin_runs(tuple(Morph(t.form, t.tag.split("-")[0], t.start, t.start + t.len) for t in tokens), text), text)


#: Punctuation Kiwi leaves glued to the end of a Latin word or a number, with the tag it has on its own.
_TRAILING = {".": "SF", "!": "SF", "?": "SF", ",": "SP", ";": "SP", ":": "SP"}


def _latin_runs(morphs: tuple[Morph, ...], text: str) -> tuple[Morph, ...]:
    """Kiwi cuts Latin words it does not know at odd places and keeps the punctuation after them ("foil sealer. 그리고"
    gives "sea" + "ler."; "box." and "2." keep their full stop): a run of Latin pieces with no space between them is one
    word again, and a full stop or comma at its end is the sentence or clause mark it is."""
    out: list[Morph] = []
    for m in morphs:
        if m.tag == "SL" and out and out[-1].tag == "SL" and out[-1].end == m.start and not out[-1].form[-1:] in _TRAILING:
            m = Morph(text[out[-1].start:m.end], "SL", out[-1].start, m.end)
            out.pop()
        out.append(m)
    split: list[Morph] = []
    for m in out:
        surface = text[m.start:m.end]
        if m.tag in ("SL", "SN") and len(surface) > 1 and surface[-1] in _TRAILING and surface == m.form and \
                surface[:-1].isalnum():
            split += [Morph(surface[:-1], m.tag, m.start, m.end - 1), Morph(surface[-1], _TRAILING[surface[-1]], m.end - 1, m.end)]
        else:
            split.append(m)
    return tuple(split)


#: Particles Kiwi may leave attached to a loanword it does not know, with the tag they have on their own.
_GLUED = (("에서", "JKB"), ("으로", "JKB"), ("에", "JKB"), ("로", "JKB"), ("만", "JX"), ("는", "JX"), ("은", "JX"), ("도", "JX"),
          ("를", "JKO"), ("을", "JKO"))


def _unglue(morphs: tuple[Morph, ...], text: str = "") -> tuple[Morph, ...]:
    """Kiwi analyses an unknown loanword by its context, so one text may have "바이스/NNP 에/JKB" in one place and
    "바이스에/NNG" in another: a noun that is another noun of the same text plus a particle is split the same way, and
    a syllable taken apart into endings ("A 랙 말고": 이/VCP 래/EC ᆨ/Z_CODA) that is a noun elsewhere is that noun."""
    nouns = {m.form for m in morphs if m.tag in ("NNG", "NNP")}
    rejoined: list[Morph] = []
    for m in morphs:
        surface = text[m.start:m.end] if text else m.form
        if m.tag not in ("NNG", "NNP") and surface != m.form and surface in nouns:
            while rejoined and rejoined[-1].start >= m.start and rejoined[-1].tag not in ("NNG", "NNP", "SL", "SN"):
                rejoined.pop()  # the zero-width pieces Kiwi put before it
            if not (rejoined and (rejoined[-1].start, rejoined[-1].end) == (m.start, m.end)):
                rejoined.append(Morph(surface, "NNP", m.start, m.end))
            continue
        rejoined.append(m)
    rejoined = _seeing(_once(_place_before_daero(_loanword_split(_hyphenated(_nominalized(_box_noun(_one(_malgo(rejoined, text), text), text), text))))))
    out: list[Morph] = []
    for m in rejoined:
        glued = next(((p, tag) for p, tag in _GLUED if m.tag in ("NNG", "NNP") and m.form.endswith(p) and m.form[:-len(p)] in nouns
                      and len(m.form) > len(p) + 1), None)
        if glued is None or len(m.form) != m.end - m.start:
            out.append(m)
            continue
        cut = m.end - len(glued[0])
        out += [Morph(m.form[:-len(glued[0])], m.tag, m.start, cut), Morph(glued[0], glued[1], cut, m.end)]
    return tuple(out)


#: Nouns after a nominalized verb that make it a clause of time, not a name ("넣기 전에", "헹군 뒤").
_TIME_AFTER = frozenset({"전", "후", "뒤", "다음", "이후", "이전", "때", "위", "중"})


def _rewrite(morphs: list[Morph], at: Callable[[int], tuple[int, list[Morph]] | None]) -> list[Morph]:
    """The morphs with each misread run Kiwi gave replaced: `at(k)` says how many morphs from `k` on to replace, and by
    what, or None to keep morph `k` as it is."""
    out: list[Morph] = []
    k = 0
    while k < len(morphs):
        found = at(k)
        if found is None:
            out.append(morphs[k])
            k += 1
        else:
            out += found[1]
            k += found[0]
    return out


def _ends_word(morphs: list[Morph], k: int, text: str) -> bool:
    return morphs[k].end == len(text) or not text[morphs[k].end].isalnum()


def _malgo(morphs: list[Morph], text: str) -> list[Morph]:
    """"불량품 통 말고 …": "말고" written as a word of its own is the verb 말다 and its connective ("not X, but …"), which Kiwi
    may read as a noun and a prefix (말/NNB + 고/XPN)."""
    def at(k: int) -> tuple[int, list[Morph]] | None:
        m = morphs[k]
        if m.form == "말" and m.tag not in ("VV", "VX") and k + 1 < len(morphs) and morphs[k + 1].form == "고" and \
                morphs[k + 1].tag != "EC" and m.end == morphs[k + 1].start and m.start > 0 and text[m.start - 1].isspace() and \
                _ends_word(morphs, k + 1, text):
            return 2, [Morph("말", "VV", m.start, m.end), Morph("고", "EC", morphs[k + 1].start, morphs[k + 1].end)]
        return None
    return _rewrite(morphs, at)


def _one(morphs: list[Morph], text: str) -> list[Morph]:
    """"샴푸병 하나 세척조 선반에서": "하나" written as a word of its own is the count one, which Kiwi may cut into a noun 하 and
    a conjunction 나 ("X or Y") after a noun."""
    def at(k: int) -> tuple[int, list[Morph]] | None:
        m = morphs[k]
        if m.form == "하" and m.tag == "NNG" and k + 1 < len(morphs) and morphs[k + 1].form == "나" and morphs[k + 1].tag == "JC" and \
                m.end == morphs[k + 1].start and (m.start == 0 or text[m.start - 1].isspace()) and _ends_word(morphs, k + 1, text):
            return 2, [Morph("하나", "NR", m.start, morphs[k + 1].end)]
        return None
    return _rewrite(morphs, at)


def _box_noun(morphs: list[Morph], text: str) -> list[Morph]:
    """"폐기함에", "보관함으로": a noun and 함 (a box) written as one word, which Kiwi may read as the noun made a verb
    and nominalized (폐기 + 하 + ㅁ, "the disposing") — before a particle or 말고/빼고/아니고 it is the box, as "반납함",
    "수거함" are."""
    def at(k: int) -> tuple[int, list[Morph]] | None:
        m = morphs[k]
        if m.tag == "NNG" and k + 3 < len(morphs) and morphs[k + 1].form == "하" and morphs[k + 1].tag == "XSV" and \
                morphs[k + 2].tag == "ETN" and morphs[k + 2].form in ("ᆷ", "ㅁ") and (morphs[k + 3].tag.startswith("J") or morphs[k + 3].form in ("말", "빼", "아니")) and \
                m.end == morphs[k + 1].start and text[m.start:morphs[k + 3].start].rstrip().endswith("함"):
            end = m.start + len(text[m.start:morphs[k + 3].start].rstrip())
            return 3, [Morph(text[m.start:end], "NNG", m.start, end)]
        return None
    return _rewrite(morphs, at)


def _nominalized(morphs: list[Morph], text: str) -> list[Morph]:
    """"붓기 스테이션", "헹굼 싱크", "굽기 오븐": a verb made a noun (-기, -ㅁ) written before a noun names what that place
    is for — one noun with it, not a clause that ends there (which would leave the thing before it without its verb)."""
    out: list[Morph] = []
    for k, m in enumerate(morphs):
        if m.tag == "ETN" and out and out[-1].tag == "VV" and out[-1].start < m.start <= out[-1].end and k + 1 < len(morphs) and \
                morphs[k + 1].tag in ("NNG", "NNP") and morphs[k + 1].form not in _TIME_AFTER and \
                (len(out) < 2 or out[-2].end < out[-1].start):
            verb = out.pop()
            end = max(verb.end, m.end)  # (an ending of one consonant lies inside the verb's last syllable: 헹구 + ㅁ)
            surface = text[verb.start:end] if text else verb.form + m.form
            out.append(Morph(surface, "NNG", verb.start, end))
            continue
        out.append(m)
    return out


def _loanword_split(morphs: list[Morph]) -> list[Morph]:
    """"폴딩 테이블": Kiwi may cut an unknown loanword into a noun and a one-syllable adverb written against it (폴 + 딩);
    written as one word, followed by a space, it is one noun."""
    out: list[Morph] = []
    for m in morphs:
        if m.tag == "MAG" and len(m.form) == 1 and out and out[-1].tag in ("NNG", "NNP") and out[-1].end == m.start:
            noun = out.pop()
            out.append(Morph(noun.form + m.form, "NNG", noun.start, m.end))
            continue
        out.append(m)
    return out


#: Marks that join two Latin pieces written against them into one word: a hyphen ("hand-over") and an apostrophe ("lion's").
_WORD_JOINERS = frozenset({"-", "'", "’"})


def _hyphenated(morphs: list[Morph]) -> list[Morph]:
    """"hand-over point로", "pick-up shelf에": Kiwi cuts a hyphenated English word at its hyphen; written without spaces
    it is one word (else "hand" would stand as a noun of its own, a thing before the place). A possessive is cut the same
    way ("lion's mane block": lion + ' + s): it is one word too, else the owner and the rest would be two things."""
    out: list[Morph] = []
    for m in morphs:
        if m.tag == "SL" and len(out) >= 2 and out[-1].form in _WORD_JOINERS and out[-2].tag == "SL" and \
                out[-2].end == out[-1].start and out[-1].end == m.start:
            mark = out.pop()
            first = out.pop()
            out.append(Morph(f"{first.form}{mark.form}{m.form}", "SL", first.start, m.end))
            continue
        out.append(m)
    return out


def _once(morphs: list[Morph]) -> list[Morph]:
    """"한 번 보고", "한번 대 보고": how many times, an adverb — no thing counted ("병 한 개") and no place ("1번 랙")."""
    out: list[Morph] = []
    for k, m in enumerate(morphs):
        after = morphs[k + 1] if k + 1 < len(morphs) else None
        if m.form == "번" and m.tag == "NNB" and out and out[-1].tag == "MM" and out[-1].form in ("한", "두", "세") and \
                not (after is not None and (after.tag.startswith("J") or after.tag in ("VCP", "XSN"))):
            count = out.pop()
            out.append(Morph(f"{count.form} 번" if count.end < m.start else f"{count.form}번", "MAG", count.start, m.end))
            continue
        out.append(m)
    return out


def _seeing(morphs: list[Morph]) -> list[Morph]:
    """"검사기에 한 번 보고", "튜너에 한번 대보고": Kiwi reads 보고 after 한 번 (or 대보고) as the noun "report"; a report
    takes a particle or 하다, so one followed by neither is the verb 보다 ("look at it there") and its ending 고."""
    out: list[Morph] = []
    for k, m in enumerate(morphs):
        after = morphs[k + 1] if k + 1 < len(morphs) else None
        if m.form == "보고" and m.tag == "NNG" and m.end - m.start == 2 and out and (out[-1].tag == "MAG" and out[-1].form.endswith("번") or out[-1].form == "대"
                and out[-1].tag == "XPN") and not (after is not None and (after.tag.startswith("J") or after.tag in ("XSV", "VCP"))):
            if out[-1].tag == "XPN":  # "대보고": 대다 (hold it to) tried once, 보다 as its auxiliary
                front = out.pop()
                out += [Morph("대", "VV", front.start, front.end), Morph("어", "EC", front.end, front.end)]
                out += [Morph("보", "VX", m.start, m.start + 1), Morph("고", "EC", m.start + 1, m.end)]
                continue
            out += [Morph("보", "VV", m.start, m.start + 1), Morph("고", "EC", m.start + 1, m.end)]
            continue
        out.append(m)
    return out


#: Nouns that take 대로 as "as" ("계획대로", "지시대로": as planned, as instructed), never a stand.
_AS_NOUNS = frozenset({"계획", "지시", "말씀", "순서", "요청", "설명", "평소", "예정", "원래", "생각", "규칙", "절차", "기준", "말", "도면",
                       "매뉴얼", "표시", "라벨", "목록", "리스트", "사양", "주문", "방금", "그"})


def _place_before_daero(morphs: list[Morph]) -> list[Morph]:
    """"세척대로 옮겨": Kiwi reads an unknown X대 before 로 as X + 대로 ("as"); before a verb of carrying it is the place X대 and
    the particle 로."""
    from plan_verifier.semantic.vocabulary import vocabulary

    carrying = {"place", "transfer", "insert", "stack"}
    out: list[Morph] = []
    for k, m in enumerate(morphs):
        nxt = next((x for x in morphs[k + 1:] if x.tag.startswith("V")), None)
        goal_after = any(x.form in ("로", "으로") and x.tag == "JKB" for x in morphs[k + 1:]) if nxt is not None else True
        if m.form == "대로" and m.tag in ("JX", "NNB") and out and out[-1].tag == "NNG" and out[-1].end == m.start and \
                out[-1].form not in _AS_NOUNS and not goal_after and nxt is not None and vocabulary().ko_actions.get(nxt.form) in carrying:
            noun = out.pop()
            out += [Morph(noun.form + "대", "NNG", noun.start, m.start + 1), Morph("로", "JKB", m.start + 1, m.end)]
            continue
        out.append(m)
    return out


@functools.lru_cache(maxsize=8192)
def identifier_words(name: str) -> tuple[str, ...]:
    """`Red_Cube_Pick`, `redCubePick`, `p_bin3_drop` -> ("Red", "Cube", "Pick") ..., ("p", "bin", "3", "drop").

    Case is kept: a single capital letter is a place label ("A_Grasp_Pose"), a
    lower-case one (the `p` of `p_pick`) is not.
    """
    words: list[str] = []
    for part in re.split(r"[_\W]+", name):
        words.extend(_CAMEL.findall(part))
    return tuple(words)


def similar(a: str, b: str) -> float:
    """0..100: how alike two names are (case and separators ignored)."""
    from rapidfuzz import fuzz

    return fuzz.ratio(_squash(a), _squash(b))


def _squash(name: str) -> str:
    return re.sub(r"[^0-9a-z\uac00-\ud7a3]", "", name.lower())


def canon(label: str) -> str:
    """A name compared across instruction and plan: `Pos_1`, `pos 1`, `POS1` -> `pos1`."""
    return _squash(label)
