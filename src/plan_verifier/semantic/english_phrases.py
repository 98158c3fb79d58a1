"""English phrase chunking: tokens into noun phrases and prepositional phrases, and what they name.

The part of the English reader (`english.py`) that knows no verbs: where a noun
phrase starts and ends ("the red cube", "bin 3", "the left side of the table"),
which preposition gives a place its role (`prepositions` in the lexicon: from,
into, onto, at ...), and what a noun phrase names — an object with its
attributes or a place as kind + designator + free words (`PlaceRef`). The clause
reader decides which phrase is the object and which the destination; the
constructions (`english_constructions.py`) read the sentences that have no verb.

The closed word classes of English grammar (determiners, quantifiers,
conjunctions ...) are listed here; the open vocabulary (which noun is a place,
which verb an action) is data (`data/semantic_lexicon.yaml`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from plan_verifier.semantic.clauses import ObjectRef, PlaceRef
from plan_verifier.semantic.language import Token, canon, noun_lemma
from plan_verifier.semantic.places import place_key
from plan_verifier.semantic.vocabulary import Vocabulary

PARTICLES = frozenset({"up", "down", "off", "over", "away", "back", "out", "in"})
DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "my", "your", "our", "its", "their", "some", "any",
                          "another", "other", "remaining", "number", "no", "#", "same", "only", "just", "'s"})
QUANTIFIERS = frozenset({"all", "both", "each", "one", "two", "three", "four", "some", "any", "none", "either", "every"})
#: Words that open a subordinate clause: its content is a condition, a reason or an order, not another instruction.
SUBORDINATORS = {"once": "first", "after": "first", "when": "first", "until": "first", "before": "later", "as": None, "because": None,
                  "since": None, "if": None, "unless": None, "though": None, "although": None, "whenever": None}
CONJUNCTIONS = frozenset({"and", "or", "then", "but", "nor", "so", "while", "plus", "also"})
#: Words after which a verb starts a clause.
HEAD_BEFORE = frozenset({"and", "then", "or", "to", "you", "please", "can", "could", "would", "will", "should", "must", "shall",
                          "n't", "not", "never", "do", "does", "also", "once", "after", "before", "without", "while", "when", "first",
                          "finally", "next", "lastly", "now", "i", "we", "let's", "us", "need", "want", "'ll", "but", "so", "just",
                          "simply", "instead", "go", "come", "start", "begin", "by", "afterwards", "later", "don't", "dont", "kindly",
                          "robot", "again", "immediately", "secondly", "thirdly", "firstly", "subsequently", "try", "carefully",
                          "gently", "slowly", "quickly"})
NEGATORS = frozenset({"n't", "not", "never", "don't", "dont", "doesn't", "without", "avoid", "stop", "no"})
#: Words that open a relative clause of where a thing is ("the bearing that's sitting in the basket").
_RELATIVE_WORDS = frozenset({"that", "that's", "which", "which's", "who", "is", "are", "currently", "still", "now"})
EXCEPT = ("except for", "except", "excluding", "but not", "other than", "apart from", "besides", "not")
#: Phrases that order every task of their sentence as written; never part of a noun phrase ("seams 2 and 4 one after another").
IN_ORDER = ("in that order", "in this order", "in order", "one after the other", "one after another", "in sequence", "in turn")
#: Phrases that say a stop is made while the thing travels, naming no place ("check it at the scanner on the way").
ON_THE_WAY = ("on the way there", "on the way", "on its way", "on their way", "along the way", "en route", "in passing")
#: Modal verbs: after one, a verb is a head only when the robot (or "you") is the subject.
#: Subjects that start a sentence of their own inside a clause ("..., we're in a hurry", "..., I'll grab it later").
SUBJECTS = frozenset({"i", "we", "you", "they", "he", "she", "i'm", "we're", "you're", "they're", "it's", "there's", "that's", "we've",
                      "i've", "he's", "she's", "i'll", "we'll", "they'll", "he'll", "she'll", "it'll", "you'll", "im"})
MODALS = frozenset({"will", "would", "can", "could", "should", "must", "shall", "may", "might", "'ll"})
#: Words of courtesy that ask for nothing ("thanks", "cheers").
COURTESY = frozenset({"thanks", "thank", "thx", "cheers", "pls", "plz", "kindly", "ok", "okay"})
NOT_IN_NP = frozenset({"where", "alone", "here", "please", "again", "too", "now", "today", "tonight", "tomorrow", "overnight", "later", "as", "is", "are", "it's", "with", "instead",
                        "also", "already", "yet", "still", "first", "then", "next", "finally", "afterwards",
                        "using", "without", "if", "when", "once", "after", "before", "until", "so", "because", "at", "via", "through", "past"})


#: Nouns of a stretch of time: "all morning", "every day" after a place say how long, not which place.
_TIME_NOUNS = frozenset({"morning", "afternoon", "evening", "night", "day", "week", "shift", "weekend", "year", "month"})


@dataclass
class _NounPhrase:
    tokens: list[Token]
    head: Token | None
    modifiers: list[Token]
    labels: list[Token]
    coords: tuple[float, ...] | None
    count: int | None
    ordinal: int | None

    @property
    def text(self) -> str:
        return " ".join(t.text for t in self.tokens)


class Phrases:
    """Noun and prepositional phrases of one sentence's tokens."""

    def __init__(self, tokens: list[Token], text: str, vocab: Vocabulary) -> None:
        self.t = tokens
        self.text = text
        self.v = vocab

    # ------------------------------------------------------------------ hooks
    def _action(self, i: int) -> str | None:
        """The action of a verb at token i: a noun phrase ends before a clause head (the clause reader knows verbs)."""
        return None

    def _is_head(self, i: int) -> bool:
        return False

    # ------------------------------------------------------------------ phrases
    def _phrase(self, i: int, end: int, phrases) -> int:
        for phrase in phrases:
            words = phrase.split()
            if i + len(words) <= end and all(self.t[i + k].low == w for k, w in enumerate(words)):
                return len(words)
        return 0

    def _preposition(self, i: int, end: int) -> tuple[str, int] | None:
        for n in (3, 2, 1):
            if i + n <= end:
                key = " ".join(t.low for t in self.t[i:i + n])
                if key in self.v.en_prepositions:
                    return self.v.en_prepositions[key], n
        return None

    def _manner_at(self, i: int, end: int) -> tuple[str, int] | None:
        for n in (3, 2, 1):
            if i + n <= end:
                key = " ".join(t.low for t in self.t[i:i + n])
                if key in self.v.en_manner:
                    return self.v.en_manner[key], n
        return None

    def _manner_words(self, tokens: list[Token]) -> list[tuple[str, str]]:
        return [(self.v.en_manner[t.low], t.text) for t in tokens if t.low in self.v.en_manner]

    def _noun_phrase(self, i: int, end: int) -> tuple[_NounPhrase | None, int]:
        start = i
        tokens: list[Token] = []
        while i < end:
            tok = self.t[i]
            if tok.kind == "punct" and tok.low not in ("#", "-"):
                break
            low = tok.low
            if tokens and tok.text.isupper() and len(tok.text) > 1 and low in CONJUNCTIONS and tokens[-1].low in DETERMINERS:
                tokens.append(tok)  # "the OR runner": an abbreviation written in capitals (operating room), not "or"
                i += 1
                continue
            if low == "back" and all(x.low in DETERMINERS for x in tokens) and self._compound_back(i, end):
                tokens.append(tok)  # "back glass from the right mat", "the back cover": a part named by its side, no particle
                i += 1
                continue
            if tokens and (low in CONJUNCTIONS or low in PARTICLES or self._preposition(i, end) is not None
                           or self._phrase(i, end, EXCEPT) or self._phrase(i, end, IN_ORDER) or low in ("the", "an", "this", "these", "those") and not all(x.low in QUANTIFIERS or x.low in DETERMINERS for x in tokens)):
                break  # "bin 2 except the green one": the exclusion is not part of the place; "skip the scanner this time"
            if not tokens and (low in CONJUNCTIONS or low in NOT_IN_NP or low in NEGATORS or low in PARTICLES or low in SUBORDINATORS
                               or low in MODALS and not self._noun_can(i, end) or low in COURTESY):  # "..., thanks": courtesy, no object
                return None, start
            if tokens and (low in MODALS and not self._noun_can(i, end) or low == "right" and i + 1 < end and self.t[i + 1].low == "now"
                           or low in ("all", "every") and i + 1 < end and self.t[i + 1].low in _TIME_NOUNS or low == "only"):
                break  # "the operator will ...", "on the pallet right now", "on the peg all morning", "Pos_1 only": the phrase has ended
            if low == "of":
                if tokens and all(x.low in QUANTIFIERS for x in tokens):
                    tokens.append(tok)  # "both of the boxes"
                    i += 1
                    continue
                break
            if tokens and low in SUBORDINATORS or tokens and low in ("that", "which", "that's", "who") and \
                    not all(x.low in DETERMINERS or x.low in QUANTIFIERS for x in tokens):
                break  # "the block that is red": a relative clause after the noun
            if low in NOT_IN_NP or low in self.v.en_manner or low in self.v.leave_alone and tokens:
                break
            if tokens and self._action(i) is not None and self._is_head(i):
                break
            if tokens and participle(tok) and low not in self.v.en_objects and i + 1 < end and self._preposition(i + 1, end) \
                    and (low in self.v.constructions.where_it_is or not is_noun(low)):
                break  # "the gear sitting on table A", "the box located in bin 2": a reduced relative clause; "the brass
                # fitting from the feeder", "the bearing in bin 1": an -ing noun is the thing itself
            tokens.append(tok)
            i += 1
            if low in self.v.en_pronouns and len(tokens) == 1 and low not in ("that", "this", "these", "those"):
                break
            if len(tokens) >= 8:
                break
        if not tokens or all(t.low in DETERMINERS and t.text != "A" for t in tokens):
            return None, start
        np = self._analyse(tokens)
        return np, self._relative_attributes(np, i, end)

    def _infinitive(self, i: int, end: int) -> bool:
        """"to free up the table", "to make room": a verb of purpose after "to" (no article, no known place or label)."""
        if i >= end or self.t[i].kind != "word" or self.t[i].low in DETERMINERS or self.t[i].low in QUANTIFIERS or is_label(self.t[i]):
            return False
        tok = self.t[i]
        if not (tok.noun not in self.v.en_places and tok.noun not in self.v.en_objects and tok.low not in self.v.en_pronouns and
                tok.low not in self.v.en_places and is_verb(tok.low)):
            return False
        np, j = self._noun_phrase(i, end)
        # "to tool shelf A", "to sample rack 2": a word that may be a verb, modifying a place with its label, is no purpose;
        # nor is one before a place noun without an article that ends the phrase ("to repair bin.", "to wash station, then"):
        # a purpose takes its object with an article or names a thing ("to label bottles")
        ends = j >= end or self.t[j].kind == "punct" or self.t[j].low in CONJUNCTIONS or self._preposition(j, end) is not None
        return not (np is not None and np.head is not None and np.head is not tok and self._names_place(np) and (np.labels or ends))

    def _compound_back(self, i: int, end: int) -> bool:
        """Is "back" at i the first word of a noun ("back glass", "back panel")? Only when a noun the vocabulary knows as
        a thing or a material follows it at once and the sentence goes on with a preposition or ends: "put back the cup",
        "bring it back tomorrow" keep the particle."""
        nxt = self.t[i + 1] if i + 1 < end else None
        if nxt is None or nxt.kind != "word" or not (nxt.noun in self.v.en_objects or nxt.low in self.v.en_materials):
            return False
        after = i + 2
        return after >= end or self.t[after].kind == "punct" or self._preposition(after, end) is not None or \
            self.t[after].verb in self.v.constructions.goes_to

    def _noun_can(self, i: int, end: int) -> bool:
        """"the can from the belt", "grip aluminium can": "can" with no verb after it is the thing, not the modal."""
        if self.t[i].low != "can":
            return False
        nxt = self.t[i + 1] if i + 1 < end else None
        return nxt is None or nxt.kind == "punct" or nxt.low in CONJUNCTIONS or self._preposition(i + 1, end) is not None

    def _relative_attributes(self, np: _NounPhrase, i: int, end: int) -> int:
        """"the block that is red", "the box which is larger": a colour, size or material said after the noun."""
        k = i + 1 if i < end and self.t[i].low in ("that's", "which's") else i + 2 \
            if i + 1 < end and self.t[i].low in ("that", "which") and self.t[i + 1].low in ("is", "are", "'s") else None
        if k is None:
            return i
        attributes = []
        while k < end and (self.t[k].low in self.v.en_colors or self.t[k].low in self.v.en_sizes or self.t[k].low in self.v.en_materials):
            attributes.append(self.t[k])
            k += 1
        if not attributes or np.head is None:
            return i
        np.modifiers.extend(attributes)
        np.tokens.extend(self.t[i:k])
        return k

    def _glued(self, tok: Token) -> list[Token]:
        """"bay1", "shelfB", "lane2": a place word with its number or letter glued on is that word and its label (as
        "bay 1", "shelf B"); any other token as it is."""
        parts = glued_label(tok.text, self.v)
        if parts is None:
            return [tok]
        word, label = parts
        cut = tok.start + len(word)
        return [Token(word, word.lower(), tok.start, cut, "word", word.lower(), noun_lemma(word.lower())),
                Token(label, label.lower(), cut, tok.end, "number" if label.isdigit() else "word", label.lower(), label.lower())]

    def _analyse(self, tokens: list[Token]) -> _NounPhrase:
        labels: list[Token] = []
        coords = None
        count = ordinal = None
        words: list[Token] = []
        tokens = [part for tok in tokens for part in self._glued(tok)]
        for tok in tokens:
            if tok.kind == "coords":
                coords = tok.coords
                continue
            low = tok.low
            if low in self.v.ordinals:
                ordinal = self.v.ordinals[low]
                continue
            if low in self.v.numbers and not labels and not words:
                count = self.v.numbers[low]
                continue
            if low in self.v.numbers and words and not labels and low not in ("both", "pair", "couple", "one"):
                labels.append(Token(str(self.v.numbers[low]), str(self.v.numbers[low]), tok.start, tok.end, "number", low, low))
                continue  # "bin three"
            if low in self.v.en_all and not words:
                count = -1
                continue
            if low in QUANTIFIERS and words:
                continue  # "the nut both", "the boxes all"
            if tok.text in ("A", "I") and (words or len(tokens) == 1):
                labels.append(tok)  # "table A", "from A": a label; "A red cube": an article
                continue
            if low in DETERMINERS or low == "of":
                continue
            if tok.kind == "number":
                if words:
                    labels.append(tok)
                else:
                    count = int(float(low)) if low.replace(".", "").isdigit() else count
                continue
            if is_label(tok):
                labels.append(tok)
                continue
            words.append(tok)
        head = words[-1] if words else None
        # "the red one", "the blue": the colour is a modifier of an unnamed object.
        return _NounPhrase(tokens, head, words[:-1], labels, coords, count, ordinal)

    def _is_person(self, np: _NounPhrase) -> bool:
        return np.head is not None and self.v.en_places.get(np.head.noun) == "operator"

    def _bare_recipient(self, np: _NounPhrase) -> bool:
        """A noun phrase that may be the first of two after a verb of giving ("give the grower the pot"): English puts
        the recipient first; a known object or place noun there is rather a compound the chunker split."""
        return np.head is not None and not np.labels and np.head.noun not in self.v.en_objects and \
            np.head.noun not in self.v.en_places and np.head.noun not in self.v.en_generic and np.head.low not in self.v.en_pronouns

    def _names_place(self, np: _NounPhrase) -> bool:
        return bool(np.labels or np.coords) or (np.head is not None and self.v.en_places.get(np.head.noun) not in (None,))

    # ------------------------------------------------------------------ meanings
    def _object(self, np: _NounPhrase) -> ObjectRef:
        v = self.v
        head = np.head
        color = material = size = None
        for tok in np.modifiers + ([head] if head is not None else []):
            for word in tok.parts:  # "red-cap vial": the colour is the vial's
                color = color or v.en_colors.get(word)
                material = material or (v.en_materials.get(word) if tok is not head else None)
                size = size or v.en_sizes.get(word)
        if head is None:
            return ObjectRef(np.text, None, color, material, size, np.ordinal, np.count, generic=True)
        low = head.low
        if low in v.en_pronouns and not np.modifiers:
            return ObjectRef(np.text, None, pronoun=True, count=np.count)
        noun = head.noun
        if low in v.en_colors and noun in v.en_objects and not any(m.low in v.en_colors for m in np.modifiers):
            color = None  # "the fragile orange": the fruit, not a colour
        elif low in v.en_colors or low in v.en_generic or noun in v.en_generic or low in ("rest", "others", "other", "ones"):
            return ObjectRef(np.text, None, color, material, size, np.ordinal, np.count if np.count else (-1 if low in ("rest", "others") else None),
                             generic=True)
        compound = " ".join(t.noun for t in np.modifiers[-1:] + [head])
        cls = v.en_objects.get(compound) or v.en_objects.get(noun) or noun
        ordinal = np.ordinal or (int(np.labels[-1].low) if np.labels and np.labels[-1].low.isdigit() else None)  # "box 2"
        if v.en_materials.get(low) == "glass" and cls == "glass" and np.modifiers:
            cls = v.en_objects.get(np.modifiers[-1].noun) or np.modifiers[-1].noun
        return ObjectRef(np.text, cls, color, material, size, ordinal, np.count, words=self._content_words(np))

    def _content_words(self, np: _NounPhrase) -> tuple[str, ...]:
        """The words of a noun phrase that name (lemmas): not its determiners, numbers, colours, sides or sizes, which are
        attributes or designators of their own ("the red left-hand jig 2": jig)."""
        v = self.v
        out = []
        for tok in np.modifiers + ([np.head] if np.head is not None else []):
            if tok.low in v.handover_places and "-" in tok.low:
                out.append(tok.low.replace("-", ""))  # "the hand-over point": a hand-over place (not "hand" of "left-hand")
                continue
            for part in tok.parts:
                if not part.isalpha() or part in DETERMINERS or part in QUANTIFIERS or part in v.en_colors or part in v.en_sides \
                        or part in v.en_sizes or part in v.ordinals or part in v.numbers or part in ("hand", "handed", "side"):
                    continue
                out.append(noun_lemma(part))
        return tuple(out)

    def _place(self, np: _NounPhrase) -> PlaceRef:
        v = self.v
        head = np.head
        if head is not None and head.low in ("there", "it", "that") and not np.labels:
            return PlaceRef(np.text, "there", "there")  # "in there": the place named before
        label = np.labels[-1].text if np.labels else str(np.ordinal) if np.ordinal and np.ordinal > 0 and np.head is not None else None
        kind = None  # "the third bin" is bin 3
        named = _NAMED_LABEL.fullmatch(label) if label and head is None else None
        if named and v.en_places.get(named.group(1).lower()):
            # "Pos_1", "Bin3", "station_2": a class and a number written as one name
            kind = v.en_places[named.group(1).lower()]
            return PlaceRef(np.text, place_key(kind, named.group(2), None, None), kind, str(int(named.group(2))), None, np.coords,
                            words=(noun_lemma(named.group(1).lower()),))
        side = color = None
        for tok in np.modifiers + ([head] if head else []):
            side = side or v.en_sides.get(tok.low) or next((v.en_sides[w] for w in tok.parts if w in v.en_sides), None)
            color = color or next((v.en_colors[w] for w in tok.parts if w in v.en_colors and tok is not head), None)
        if head is not None:
            two = " ".join(t.noun for t in np.modifiers[-1:] + [head])
            kind = v.en_places.get(two) or v.en_places.get(head.noun) or v.en_places.get(head.low)
            if kind is None:
                obj = v.en_objects.get(head.noun)
                kind = f"container:{obj or head.noun}" if not side else "position"
        thing = self._object(np) if kind and kind.startswith("container:") else None
        return PlaceRef(np.text, place_key(kind, label, side, head.noun if head else None), kind, canon(label) if label else None, side,
                        np.coords, thing, color, self._content_words(np))

    def _place_one(self, np: _NounPhrase, before: PlaceRef | None) -> PlaceRef | None:
        """"… to the upper shelf, not the lower one", "… in the green bin, not the yellow one": "one" right after a place
        stands for that place's noun, with its own side or colour — the same kind of place, told apart by them. None when
        the words are no such "one" or say nothing that tells it apart ("the other one"), or when the place before has no
        side or colour to contrast with."""
        if before is None or before.kind is None or len(np.tokens) < 2 or np.tokens[-1].low != "one":
            return None
        words = [w for t in np.tokens[:-1] if t.low not in DETERMINERS for w in t.parts]
        side = next((self.v.en_sides[w] for w in words if w in self.v.en_sides), None)
        color = next((self.v.en_colors[w] for w in words if w in self.v.en_colors), None)
        if not (side is not None and before.side is not None or color is not None and before.color is not None):
            return None  # the contrast is on the designator the place has ("in bin 2 except the green one" is about things)
        noun = before.words[-1] if before.words else None
        return PlaceRef(np.text, place_key(before.kind, None, side, noun), before.kind, None, side, None, None, color, before.words)

    def _subject(self, i: int, end: int) -> list[ObjectRef | PlaceRef]:
        """"the red block at position A (and the nut)": the objects, and where they are (a prepositional phrase)."""
        out: list[ObjectRef | PlaceRef] = []
        while i < end:
            if participle(self.t[i]) or self.t[i].low in _RELATIVE_WORDS:
                i += 1  # "the box located in bin 2", "the bearing that's sitting in the basket": where it is follows
                continue
            prep = self._preposition(i, end)
            np, j = self._noun_phrase(i + (prep[1] if prep else 0), end)
            if np is None:
                i += 1
                continue
            out.append(self._place(np) if prep is not None and prep[0] in ("location", "source") else self._object(np))
            i = j
        return out

    def _coordinated(self, i: int, end: int) -> list[_NounPhrase]:
        """"the bolt and the nut": each noun phrase of a coordination."""
        out = []
        while i < end:
            np, j = self._noun_phrase(i, end)
            if np is None:
                i += 1
                continue
            out.append(np)
            i = j
        return out

    def _is_lead(self, tok: Token) -> bool:
        low = tok.low
        return (tok.kind == "punct" and low == ",") or low in HEAD_BEFORE or low in NEGATORS or low in self.v.en_sequence \
            or low in self.v.en_after or low in self.v.en_before or low in self.v.en_manner or low in ("done", "you've", "you")

    def _is_filler(self, tok: Token) -> bool:
        return tok.kind == "punct" or self._is_lead(tok) or tok.low in ("please", "robot", "ok", "okay", "now")

    def _follows_and(self, i: int) -> bool:
        return i > 0 and self.t[i - 1].low in ("and", ",", "or", "then")

    def _phrase_anywhere(self, phrases) -> bool:
        return any(self._phrase(i, len(self.t), phrases) for i in range(len(self.t)))


_NAMED_LABEL = re.compile(r"([A-Za-z]+)[_ ]?(\d+)")
_GLUED_LABEL = re.compile(r"([a-z]+|[A-Z][a-z]+)(\d+|[A-Z])")


def glued_label(word: str, v: Vocabulary) -> tuple[str, str] | None:
    """"bay1" -> ("bay", "1"), "shelfB" -> ("shelf", "B"): a place word the vocabulary knows with its number or capital
    letter written on; None for any other word."""
    m = _GLUED_LABEL.fullmatch(word)
    if m is None or v.en_places.get(noun_lemma(m.group(1).lower())) is None:
        return None
    return m.group(1), m.group(2)


def is_label(tok: Token) -> bool:
    """`A`, `B2`, `Pos_1`, `P3`: a name, not a word."""
    raw = tok.text
    if len(raw) == 1 and raw.isupper() and raw not in ("I",):
        return True
    return "_" in raw or (any(c.isdigit() for c in raw) and any(c.isalpha() for c in raw) and not raw.lower().endswith(("st", "nd", "rd", "th")))


def is_past(tok: Token) -> bool:
    """A past-tense or past-participle form ("moved", "took", "put" is not: it is also the base form)."""
    if tok.kind != "word" or tok.low == tok.verb or is_verb(tok.low):
        return False  # "lay" is the past of "lie" and a verb of its own
    return tok.low in verb_forms(tok.verb, "VBD") | verb_forms(tok.verb, "VBN") and \
        tok.low not in verb_forms(tok.verb, "VB") | verb_forms(tok.verb, "VBZ") | verb_forms(tok.verb, "VBP")


@functools.lru_cache(maxsize=4096)
def verb_forms(lemma: str, tag: str) -> frozenset[str]:
    from lemminflect import getInflection

    return frozenset(w.lower() for w in getInflection(lemma, tag=tag))


@functools.lru_cache(maxsize=4096)
def is_adjective(word: str) -> bool:
    """Can this word be an adjective (lemminflect)? Then it may describe the noun after it rather than act on it."""
    from lemminflect import getAllLemmas

    return "ADJ" in getAllLemmas(word)


@functools.lru_cache(maxsize=4096)
def is_verb(word: str) -> bool:
    """Does lemminflect know this word as a verb (base form)?"""
    from lemminflect import getAllLemmas

    return "VERB" in getAllLemmas(word) and word in getAllLemmas(word)["VERB"]


@functools.lru_cache(maxsize=4096)
def is_noun(word: str) -> bool:
    """Can lemminflect read this word as a noun?"""
    from lemminflect import getAllLemmas

    return "NOUN" in getAllLemmas(word)


def participle(tok: Token) -> bool:
    """"sitting", "located", "stored": a verb's -ing or -ed form (a reduced relative clause), not a noun such as "outfeed"."""
    if tok.kind != "word" or not tok.low.endswith(("ing", "ed")) or tok.low == tok.verb or not is_verb(tok.verb):
        return False
    return tok.low in verb_forms(tok.verb, "VBG") | verb_forms(tok.verb, "VBN") | verb_forms(tok.verb, "VBD")
