"""Self-corrections: a speaker takes back the place or thing just said and says another.

"Move the kettle to the blue bin? No wait - the minibar stand", "the red cube — sorry, the blue one — to bin 2",
"빨간 컵을 2번 통에, 아니 3번 통에 넣어", "파란 통으로… 아니다, 미니바 스탠드로 옮겨". Speech repairs have a regular
shape: the words taken back (the reparandum), a correction word (`constructions.corrections` of the lexicon), and a
verbless phrase that takes their place. So the reparandum and the correction word are blanked out of the text before
it is read (offsets stay as written), and the repair then stands in the reparandum's grammatical slot.

The repair replaces the phrase of its own role: in English the noun phrase the reader found right before the correction
word, checked by reading the text again (the repair must come out as a thing where a thing was, a place where a place
was); in Korean the phrase whose particle marks the same role (을/를: the thing, 에/로/에서: a place), or the fragment
cut off before the correction word. A repair that is a request of its own ("… actually no, put it in drawer 1") is left
to the reader, which drops the corrected request. When the reparandum cannot be told, the sentence is blanked and
reported as unread, so that the stage says it could not judge rather than compare against a place taken back.
"""

from __future__ import annotations

import functools
import re
from typing import Callable

from plan_verifier.semantic.clauses import Clause
from plan_verifier.semantic.english_phrases import DETERMINERS, MODALS
from plan_verifier.semantic.language import english_tokens, has_hangul, verb_lemma
from plan_verifier.semantic.vocabulary import vocabulary

Reader = Callable[[str], tuple[Clause, ...]]
#: Where an English repair phrase ends: punctuation, or the next clause.
_EN_END = re.compile(r"\.\.\.|[,.;:!?…—–()]|\s-\s|\s(?:and|then|but)\s", re.I)
_SENTENCE_END = re.compile(r"[.!?\n]")
#: "put it not in bin 2 but in bin 3": the words up to the phrase that stands (which the lookahead only checks).
_NOT_BUT = re.compile(r"\bnot\s+(?P<said>[^,.;:!?…—–]+?)\s+but\s+(?=(?P<instead>[^,.;:!?…—–]+))", re.I)
_CLAUSE_START = re.compile(r"(?:[.!?\n,;:…—–]|\s-\s)\s*")
#: Adverbs before a repair's verb ("actually no, just leave it on the tray").
_REPAIR_ADVERBS = frozenset({"just", "simply", "only", "instead", "please", "rather"})
#: A repair that opens a statement of where the thing is ("… no wait, it's in the right tray").
_SAYS_WHERE = frozenset({"it's", "its", "they're", "it’s", "they’re"})
#: Korean particles that say a phrase's role; longest first.
_KO_ROLES = (("에다가", "place"), ("에서", "place"), ("으로", "place"), ("에다", "place"), ("까지", "place"), ("에", "place"),
             ("로", "place"), ("을", "object"), ("를", "object"))
#: Interjections a Korean correction word may open with ("아 아니다", "어 아니"): part of the marker, no phrase.
_KO_INTERJECTIONS = ("아", "어", "앗", "아이")
#: Endings of a Korean word that close the phrase before it (a particle or a connective).
_KO_CLOSED = re.compile(r"(?:을|를|에|로|서|다|은|는|이|가|와|과|고|면|도|만)$")


@functools.lru_cache(maxsize=1)
def _markers() -> tuple[re.Pattern, re.Pattern]:
    c = vocabulary().constructions
    words = [re.escape(w).replace(r"\ ", r"\s+") for w in c.corrections]
    every = "|".join(words)
    alternatives = []
    for w in c.corrections:
        body = re.escape(w).replace(r"\ ", r"\s+")
        if w in c.weak_corrections:
            body += rf"\b(?=\s*(?:[,:;!—–-]|\.\.\.|…|(?:{every})\b))"  # "bin 2, no, bin 3"; not "no need", "wait for"
        elif w == "rather":
            body += r"\b(?!\s+than)"  # "rather than" compares
        elif w == "sorry":
            body += r"\b(?!\s+(?:to|for|about|if)\b)"  # "sorry to bother you" apologises
        else:
            body += r"\b"
        alternatives.append(body)
    mark = "|".join(alternatives)
    spoken = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in c.corrections if " " in w and w.split()[0] != "actually")
    # set off by punctuation, or a phrase of its own that needs none ("bin 2 or rather bin 3", "bin 2 I mean bin 3")
    en = re.compile(rf"(?:(?:\.\.\.|…|[,;?!.—–]|\s-)\s*|\s+(?={spoken}))(?:(?:{mark})[\s,:;—–-]*)+", re.I)
    # one marker however many words say it: an interjection before it ("아 아니다") and the word said again ("아니 아니")
    # take back one phrase, not one each
    word = r"(?<![가-힣])(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in c.ko_corrections) + r")(?![가-힣])"
    ko = re.compile(rf"(?:\.\.\.|…|[,.])?\s*(?<![가-힣])(?:(?:{'|'.join(_KO_INTERJECTIONS)})\s+)?{word}(?:[\s,.…]*{word})*[\s,.…]*")
    return en, ko


def corrected(text: str, language: str, read: Reader) -> tuple[str, tuple[str, ...]]:
    """The text with every self-correction applied (what was taken back blanked), and the sentences whose correction
    could not be placed (blanked too: reported as unread). A span to blank is a flat tuple of (start, end) pairs."""
    en, ko = _markers()
    read = functools.lru_cache(maxsize=None)(read)  # a text is read again only once it changed
    unsure: list[str] = []
    if language != "ko":
        text = _NOT_BUT.sub(lambda m: " " * len(m.group()) if _same_slot(m) else m.group(), text)
    # mixed text is read by its Korean particles, whichever language its correction words are in ("shelf A에, sorry, shelf B에")
    for m in [m for pattern in {"en": (en,), "ko": (ko,)}.get(language, (ko, en)) for m in pattern.finditer(text)]:
        if text[m.start():m.end()] != m.group():
            continue  # taken back with an earlier correction
        repair_end = _repair_end(text, m.end())
        if not text[m.end():repair_end].strip() and language == "en" and re.match(r",\s*\w", text[repair_end:]):
            repair_end = _repair_end(text, repair_end + 1)  # "Actually no, just leave it on her tray": the repair after the comma
        if not text[:m.start()].strip():
            continue  # "Actually, move the kettle to the blue bin": nothing said before to correct
        if not text[m.end():repair_end].strip():
            text = _without_words(text, m)  # "to the blue bin, actually.": an afterthought that replaces nothing
            continue
        relabelled = _relabelled(text, m, repair_end) if language != "en" else None
        if relabelled is not None:
            a, b, said = relabelled
            text = text[:a] + said.ljust(b - a) + text[b:]
            continue
        if language == "en":
            span = _english(text, m, repair_end, read)
        else:
            span = _dropped_stop(text, m, repair_end) or _korean(text, m, repair_end)
        if span is False:
            continue  # not a correction of a phrase (a request of its own, a remark)
        if span is None and _hesitates(m.group()):
            text = _without_words(text, m)  # "to bin 2, um, carefully": a hesitation, no object
            continue
        if span is None:
            start = _sentence_start(text, m.start())
            unsure.append(text[start:repair_end])
            span = (start, repair_end)
        for a, b in zip(span[::2], span[1::2]):
            text = text[:a] + " " * (b - a) + text[b:]
    return text, tuple(unsure)


def _same_slot(m: re.Match) -> bool:
    """"not in bin 2 but in bin 3", "not bin 2 but bin 3": the second phrase fills the first one's slot (both with a
    preposition or neither), so the first is taken back; "not only …, but also …" adds, and is left alone."""
    prepositions = vocabulary().en_prepositions
    said, instead = m.group("said").split(), m.group("instead").split()
    return bool(said) and said[0].lower() != "only" and (said[0].lower() in prepositions) == (instead[0].lower() in prepositions)


def _without_words(text: str, m: re.Match) -> str:
    """The correction words blanked, the punctuation before them kept (a "?" or "." still ends its sentence)."""
    words = m.start() + re.search(r"\w", m.group()).start()
    return text[:words] + " " * (m.end() - words) + text[m.end():]


def _hesitates(marker: str) -> bool:
    """Only hesitation words ("…, um,"): no correction unless a phrase after them was put in place of one before."""
    return set(re.findall(r"\w+", marker.lower())) <= vocabulary().constructions.fillers


def _repair_end(text: str, start: int) -> int:
    end = _EN_END.search(text, start)
    return end.start() if end is not None else len(text.rstrip())


def _sentence_start(text: str, before: int) -> int:
    starts = [m.end() for m in _SENTENCE_END.finditer(text, 0, before)]
    return starts[-1] if starts else 0


def _refs(clauses: tuple[Clause, ...]) -> list[tuple[str, object]]:
    return [("object", o) for c in clauses for o in c.objects + c.mentions] + [("place", p) for c in clauses for _, p in c.places]


def _english(text: str, m: re.Match, repair_end: int, read: Reader) -> tuple[int, ...] | None | bool:
    """The span to blank for an English correction: from the noun phrase right before the correction word to the repair.
    False when the repair is no phrase to put in its place, None when it cannot be placed."""
    v = vocabulary()
    repair = text[m.end():repair_end].strip()
    words = english_tokens(repair)
    if not words:
        return False
    lead_words = 0
    while lead_words < len(words) - 1 and words[lead_words].low in _REPAIR_ADVERBS:
        lead_words += 1  # "actually no, just leave it on her tray"
    first = words[lead_words].low
    if verb_lemma(first) in v.en_actions or len(words) > lead_words + 1 and f"{verb_lemma(first)} {words[lead_words + 1].low}" in v.en_actions:
        # "hang it on hook 2... actually no, put it in drawer 1": the request before is taken back, from its verb (in the
        # sentence before when the correction opens one: "Could you hand it to her? Actually no, just leave it …")
        begin = _sentence_start(text, m.start())
        if not text[begin:m.start()].strip(" ?!.,"):
            begin = _sentence_start(text, max(len(text[:begin].rstrip(" ?!.")) - 1, 0))
        if _only_interjections(text[begin:m.start()]):
            begin = _sentence_start(text, max(len(text[:begin].rstrip(" ?!.")) - 1, 0))  # "… jig. Oh wait, no, put it …"
        said = english_tokens(text[begin:m.start()])
        verbs = [k for k, t in enumerate(said) if verb_lemma(t.low) in v.en_actions and (k == 0 or said[k - 1].low not in DETERMINERS)]
        clauses = read(text[:m.start()])
        taken_back = _destination_taken_back(text, m, repair, read, clauses)
        if taken_back is not None and (not verbs or not _says_destination(clauses, begin + said[verbs[-1]].start)):
            return taken_back
        return (begin + said[verbs[-1]].start, m.end()) if verbs else False
    if first in _SAYS_WHERE or len(words) > 2 and first in ("it", "they") and words[1].low in ("is", "are"):
        # "I left it on the left tray... no wait, it's in the right tray", "It's under... sorry, it's on the photo stand":
        # a statement said again takes back the one it breaks off, from that clause's start
        before = text[:m.start()].rstrip(" .…,-—–")
        begin = max([b.end() for b in _CLAUSE_START.finditer(before)], default=0)
        return begin, m.end()
    lead = 0
    if first in v.en_prepositions and len(words) > 1:
        lead = len(words[0].text)  # "to the blue bin, sorry, to the minibar stand": the preposition comes again
    said = repair[lead:].strip().lower()
    before = text[:m.start()].rstrip()
    for role, ref, start in _reparanda(text, before, read):
        if lead:
            prep = re.search(r"(\S+)\s*$", text[:start])
            if prep is None or prep.group(1).lower() not in v.en_prepositions:
                continue
            start = prep.start(1)
        blanked = text[:start] + " " * (m.end() - start) + text[m.end():]
        if any(r_ref.text.strip().lower() == said and (ref is None or r == role and (role == "object" or _as_place(r_ref) == _as_place(ref)))
               for r, r_ref in _refs(read(blanked))):
            return (start, text.index(repair, m.end())) + _closing(text, m, repair_end)
    return _restated(text, m, repair, read)


#: Words that only open a repair, before its correction word ("Oh wait, no, …", "Hmm, actually …").
_INTERJECTIONS = frozenset({"oh", "ah", "hmm", "hm", "well", "ok", "okay", "right"})


def _only_interjections(words: str) -> bool:
    """Nothing but interjections and correction words ("Oh wait"): no request of its own before the correction."""
    found = re.findall(r"[\w']+", words.lower())
    return bool(found) and all(w in _INTERJECTIONS or w in vocabulary().constructions.corrections for w in found)


def _destinations(clause: Clause) -> list:
    return [p for role, p in clause.places if role in ("goal", "location")]


def _says_destination(clauses: tuple[Clause, ...], start: int) -> bool:
    """Whether a request read from `start` on says where its thing goes."""
    return any(c.action is not None and c.start >= start and _destinations(c) for c in clauses)


def _destination_taken_back(text: str, m: re.Match, repair: str, read: Reader, clauses: tuple[Clause, ...]) -> tuple[int, ...] | None:
    """"Move the bottle to the drum, it's expired. Take it from the shelf. Actually no — put it on the cart": a repair
    that is a request of its own with a destination and its thing said again by a pronoun takes back only where the
    last request with a destination sent the thing (what was said since — where it is, where it is taken from — stands);
    the destination phrase and the correction words (with the interjections before them) are blanked. None when the
    repair is no such request or no earlier request says a destination."""
    asked = [c for c in read(repair) if c.action is not None and _destinations(c)]
    if len(asked) != 1 or not asked[0].objects or not all(o.pronoun for o in asked[0].objects):
        return None
    before = [c for c in clauses if c.action is not None and _destinations(c)]
    if not before:
        return None
    last = before[-1]
    place = _destinations(last)[-1]
    at = text.lower().rfind(place.text.lower(), last.start, last.end) if place.text else -1
    prep = re.search(r"(\S+)\s*$", text[:at]) if at >= 0 else None
    if prep is None or prep.group(1).lower() not in vocabulary().en_prepositions:
        return None
    words = m.start() + re.search(r"\w", m.group()).start()
    openers = sorted(_INTERJECTIONS | vocabulary().constructions.weak_corrections, key=len, reverse=True)
    opening = re.search(r"(?:\b(?:" + "|".join(map(re.escape, openers)) + r")\b[\s,]*)+$", text[:words], re.I)
    if opening is not None and _sentence_start(text, words) >= _sentence_start(text, opening.start()) and \
            not text[_sentence_start(text, words):opening.start()].strip():
        words = opening.start()  # "Oh wait, no, …": the interjections go with the correction words
    return (prep.start(1), at + len(place.text), words, m.end())


def _restated(text: str, m: re.Match, repair: str, read: Reader) -> tuple[int, int] | None:
    """"… then the book block from shelf B to the press too? no — book block goes to tray 1": the repair says again where
    the thing goes, in a statement of its own; what was said about that thing since it was last named is taken back. None
    when the repair is no such statement or the thing was not named before it."""
    if not any(c.action is not None and c.places and any(not o.pronoun for o in c.objects) for c in read(repair)):
        return None
    v = vocabulary()
    words = english_tokens(repair)
    verb = next((k for k, t in enumerate(words) if t.verb in v.constructions.goes_to or t.low in MODALS or t.low in ("has", "needs")), 0)
    name = " ".join(t.text for t in words[:verb] if t.low not in DETERMINERS)
    if not name:
        return None
    before = text[:m.start()]
    at = [w.start() for w in re.finditer(rf"\b{re.escape(name)}\b", before, re.I)]
    if not at:
        return None
    # from the start of the clause that named it ("then the book block from …", "Move the cup to …")
    start = max([b.end() for b in _CLAUSE_START.finditer(before, 0, at[-1])], default=0)
    return start, text.index(repair, m.end())


def _reparanda(text: str, before: str, read: Reader) -> list[tuple[str | None, object, int]]:
    """What a repair may replace, places first: a thing or place the reader found that ends at the correction word (or
    that it ran on across it: "bin 2 I mean bin 3"), each with where it starts; or a phrase the speaker broke off after
    its article or preposition ("put the dowels in the... uh, the offcut bin"), which any phrase completes (no role)."""
    out: list[tuple[str | None, object, int]] = []
    for role, ref in sorted(_refs(read(text)), key=lambda r: r[0] != "place"):
        start = text.lower().rfind(ref.text.lower(), 0, len(before) + len(ref.text)) if ref.text else -1
        if start >= 0 and start + len(ref.text) >= len(before) and text[start:len(before)].strip():
            out.append((role, ref, start))
    last = re.search(r"(\S+)$", before)
    if not out and last is not None and last.group(1).lower() in DETERMINERS:
        out.append((None, None, last.start(1)))
    elif not out and last is not None and last.group(1).lower() in vocabulary().en_prepositions:
        out.append((None, None, len(before)))
    return out


def _closing(text: str, m: re.Match, repair_end: int) -> tuple[int, int] | tuple[()]:
    """The dash that closes a repair set off by dashes ("the red cube — sorry, the blue one — to bin 2"): blanked with it."""
    opening = text[m.start():m.end()].lstrip()[:1]
    if opening in "—–-" and text[repair_end:repair_end + 2].strip()[:1] == opening:
        return (repair_end, repair_end + text[repair_end:].index(opening) + 1)
    return ()


def _as_place(ref) -> bool:
    """A place, not a thing named as where something goes ("to the blue cube"): "bin 2, sorry, the blue cube" corrects the
    thing, not the place, and cannot be read in the place's slot."""
    return ref.obj is None or ref.obj.noun not in vocabulary().object_classes


def _korean(text: str, m: re.Match, repair_end: int) -> tuple[int, int] | None | bool:
    """The span to blank for a Korean correction: from the phrase of the repair's role (its particle) to the repair."""
    start = _sentence_start(text, m.start())
    phrases = _ko_phrases(text, start, m.start())
    if not phrases:
        return False
    repair = text[m.end():].split()
    if not repair:
        return False
    fragment_start, fragment_role = phrases[-1]
    topic = re.match(r"(\S+?)(?:은|는|이|가)$", repair[0].rstrip(",."))
    named = [s for s, _ in phrases if topic is not None and text.startswith(topic.group(1), s)]
    if named:
        return named[-1], m.end()  # "통조림을 2번 통에… 아니, 통조림은 3번 통으로 가": said again about the thing, from where it was named
    number = rf"(?:\d+|{'|'.join(re.escape(w) for w in vocabulary().numbers if has_hangul(w))})"
    if re.match(rf"{number}\s*(?:개)?만?(?:\s|$)", " ".join(w.rstrip(",.") for w in repair[:2])):
        # "soap box 두 개... 아니 하나만": the count is corrected, the thing stays
        count = re.search(rf"{number}\s*개?\s*$", text[:m.start()].rstrip(" .…,"))
        return (count.start(), m.end()) if count is not None else None
    role = next((r for word in repair[:4] for suffix, r in _KO_ROLES if word.rstrip(",.").endswith(suffix) and len(word) > len(suffix)), None)
    if role is None:
        return None
    if fragment_role == role:
        return fragment_start, m.end()
    if fragment_role is None:
        same = [s for s, r in phrases[:-1] if r == role]
        if not same:
            return fragment_start, m.end()  # "지금은 채밀기 옆... 아니, 초록 선반에": the cut-off place is replaced
        if not [s for s, r in phrases[:-1] if r is not None and s > same[-1]]:
            return same[-1], m.end()  # "loco를 DCC tester… 아니 decoder chip을": the thing said before is replaced
    return None


#: "카트는 필요 없고 …", "카트는 빼고 …", "카트 말고 …", "카트는 안 거쳐도 돼 …": a stop the repair says is not needed; `rest` is
#: what it says instead.
_NOT_NEEDED = re.compile(r"^\s*(?P<stop>[^\s,.]+?)(?:은|는|이|가)?\s+(?:필요\s*없(?:고|어|음|이|다)|빼(?:고|도\s*돼)|말고|생략(?:하고)?|"
                         r"안\s*(?:거쳐|들러)(?:도\s*(?:돼|되고|됨))?)[\s,]*(?P<rest>.*)$")
#: Words of a repair that only say the route goes on without a stop ("바로", "곧장", "그냥", "직접").
_STRAIGHT = re.compile(r"^(?:바로|곧장|곧바로|그냥|직접)\s+")
_ARROW = re.compile(r"\s*(?:-+>|=+>|→|⇒|➜|➔|⟶)\s*")


#: A Korean repair that is only a designator with a place particle ("1번으로", "B에"): another of the place said before.
_KO_DESIGNATOR_REPAIR = re.compile(r"^\s*(?P<label>\d+|[A-Za-z])\s*번?\s*(?P<particle>에다가|에다|으로|로|까지|에)(?![가-힣])")
_LABEL_WORD = re.compile(r"\d+|(?<![A-Za-z])[A-Za-z](?![A-Za-z])")


def _relabelled(text: str, m: re.Match, repair_end: int) -> tuple[int, int, str] | None:
    """"sewing machine 2로... 아 아니다, 1번으로", "3번 선반에, 아니 4번에 올려": a repair that opens with a bare designator takes back
    the designator of the place said just before, not the place: that place again with the new designator, written over
    the taken-back phrase, the marker and the repair (start, end, the phrase). None unless the phrase before is a place
    with exactly one designator."""
    repair = _KO_DESIGNATOR_REPAIR.match(text[m.end():repair_end])
    if repair is None:
        return None
    phrases = _ko_phrases(text, _sentence_start(text, m.start()), m.start())
    if not phrases or phrases[-1][1] != "place":
        return None
    start = phrases[-1][0]
    said = text[start:m.start()].rstrip(" ,.…")
    particle = next((suffix for suffix, _ in _KO_ROLES if said.endswith(suffix)), None)
    labels = list(_LABEL_WORD.finditer(said[:len(said) - len(particle or "")]))
    if particle is None or len(labels) != 1:
        return None
    label = labels[0]
    again = said[:label.start()] + repair.group("label") + said[label.end():len(said) - len(particle)] + repair.group("particle")
    again += text[m.end() + repair.end():repair_end]  # the rest of the repair ("4번에 올려")
    return (start, repair_end, again) if len(again) <= repair_end - start else None


def _dropped_stop(text: str, m: re.Match, repair_end: int) -> tuple[int, ...] | None:
    """"헬멧 랜턴: 1번 로커 → 오른쪽 카트 → 위 선반? 아니 카트는 필요 없고 바로 위 선반으로.": a repair that says a stop between the
    ends of the route before it is not needed takes that stop back (with its arrow), and what it says instead may only
    name the route's end again ("바로 위 선반으로": the route goes there directly). The spans to blank; None when the repair
    is no such thing (another place after it is left to the other readings, which report what they cannot place)."""
    repair = _NOT_NEEDED.match(text[m.end():repair_end])
    before = text[_route_start(text, m.start()):m.start()].rstrip(" ?")
    arrows = list(_ARROW.finditer(before))
    if repair is None or len(arrows) < 2:
        return None
    offset = _route_start(text, m.start())
    stops = [(arrows[k].start(), arrows[k].end(), arrows[k + 1].start()) for k in range(len(arrows) - 1)]
    named = [(a, e) for a, s, e in stops if repair.group("stop") in before[s:e].split()]
    if len(named) != 1:
        return None
    last = before[arrows[-1].end():].strip()
    rest = _STRAIGHT.sub("", repair.group("rest").strip())
    rest = re.sub(r"(?:으로|로|에다가|에|까지)$", "", rest).strip()
    if rest and rest != last:
        return None
    a, e = named[0]
    question = text.rfind("?", 0, m.start() + 1)
    start = question if question >= 0 and not text[question + 1:m.start()].strip() else m.start()  # the doubt is resolved
    return (offset + a, offset + e, start, repair_end)


def _route_start(text: str, before: int) -> int:
    """The start of the sentence before a correction word, a question mark just before it left in that sentence ("… → 위
    선반? 아니 …": the speaker questions the route just said)."""
    head = text[:before].rstrip()
    if head.endswith("?"):
        head = head[:-1]
    return _sentence_start(text, len(head))


def _ko_phrases(text: str, start: int, end: int) -> list[tuple[int, str | None]]:
    """The phrases of a Korean clause before a correction word: where each starts and its role by its particle (None:
    no particle, a fragment the speaker broke off)."""
    out: list[tuple[int, str | None]] = []
    open_at = None
    for w in re.finditer(r"\S+", text[start:end]):
        word = w.group().rstrip(",.…")
        if not word:
            continue
        if open_at is None:
            open_at = start + w.start()
        if _KO_CLOSED.search(word):
            role = next((r for suffix, r in _KO_ROLES if word.endswith(suffix) and len(word) > len(suffix)), None)
            out.append((open_at, role))
            open_at = None
    if open_at is not None:
        out.append((open_at, None))
    return out
