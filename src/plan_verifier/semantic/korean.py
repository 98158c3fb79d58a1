"""Korean instructions (and comments) read into clauses, from Kiwi's morphological analysis.

Korean is verb-final and marks roles with particles, which makes the reading
regular once the morphemes are known: every noun phrase before a predicate
belongs to it, and its particle says its role — 을/를 the object, 에서 the
source, 로/으로/까지 the goal, 에 a location (the goal for placing verbs),
에게/한테 a person to hand it to. A predicate ends its clause at a connective
or final ending (-고, -어서, -ㄴ 다음, -어); -지 말-/-지 않- negate it;
"X 말고", "X 빼고", "X 제외하고" exclude X; 먼저, -ㄴ 다음/후/뒤, 마지막으로 order
the clauses and -기 전에 reverses them. Auxiliaries (-어 주다, -어 놓다) do not
start a clause. Kiwi supplies lemma forms ("옮겨" -> 옮기), so the vocabulary
holds stems only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from plan_verifier.semantic.clauses import ORIGIN, ROBOT_PARTS, WORK, Clause, ObjectRef, PlaceRef
from plan_verifier.semantic.english_phrases import COURTESY, glued_label
from plan_verifier.semantic.language import Morph, canon, has_hangul, korean_morphs, noun_lemma, verb_lemma
from plan_verifier.semantic.loanwords import borrowed
from plan_verifier.semantic.places import CONTAINERS, place_key
from plan_verifier.semantic.vocabulary import Vocabulary, vocabulary

_NOMINAL = frozenset({"NNG", "NNP", "NNB", "NR", "NP", "SL", "SN", "SH", "XSN", "XPN", "SW"})
#: Morphemes that join into one noun when written together ("유리"+"컵", "용접"+"기"); numbers and counters do not.
_COMPOUND = frozenset({"NNG", "NNP", "XSN", "XPN", "SL", "SW"})
#: Relational nouns that, written before a place noun, say which level of it ("위 선반": the upper shelf).
_LEVELS = {"위": "top", "아래": "bottom", "밑": "bottom"}
_RELATIONAL = frozenset({"위", "안", "속", "옆", "앞", "뒤", "아래", "밑", "근처", "상단", "하단", "내부", "위쪽", "아래쪽"})
#: Words for the tasks themselves in a heading that counts them ("작업 두 개:", "두 가지:").
_TASK_NOUNS = frozenset({"가지", "작업", "일", "건", "개"})
_COUNTERS = frozenset({"개", "대", "장", "병", "묶음", "세트", "상자", "박스"})
_AUX_PLACE = frozenset({"놓", "두", "넣"})
#: Verbs of a relative clause that say where a thing is ("A에 있는 부품 트레이"): what they modify may be a place.
_LOCATIVE_STEMS = frozenset({"있", "놓이", "담기", "두", "놓", "꽂히", "올려지"})
#: Stems that -어 놓다/-어 두다 turn into setting the thing down somewhere: 내려놓다, 옮겨 두다, 돌려놓다 (put back).
_PLACE_STEMS = frozenset({"내리", "올리", "가지", "갖", "가져다", "내려", "옮기", "갖다", "돌리"})
_ORDER_NOUNS = {"다음": "sequence", "후": "sequence", "뒤": "sequence", "이후": "sequence", "전": "before-lead"}
#: The robot itself: "로봇을 홈으로 이동시켜" moves no object.
_SELF = frozenset({"로봇", "팔", "로봇팔", "robot", "arm", "그리퍼", "집게"})
#: Nouns that order clauses when they stand alone before 에/으로: "그 다음에", "마지막으로", "끝으로".
_ORDER_PHRASES = frozenset({"마지막", "처음", "다음", "그다음", "이후", "후", "끝", "나중", "그후", "그뒤", "뒤"})
#: Verbs that do what their object names when that object is an action noun ("가접 좀 부탁드려요", "가접만 해 주세요",
#: "inspect는 하지 마"): the action is the noun's.
_LIGHT_STEMS = frozenset({"하", "부탁", "요청", "진행", "실시", "수행"})
_NEGATING_MAG = frozenset({"안", "못", "절대"})
#: Connective endings that order their clause before the next ("-다가", "-고서"); plain "-고" (and) does not.
_THEN_ENDINGS = frozenset({"다가", "고서", "았다가", "었다가"})
#: Past-tense markers, and the endings after which a past clause tells what happened (a reason, a narrative).
_PAST = frozenset({"았", "었", "였", "었었", "았었"})
_REASON_ENDINGS = frozenset({"는데", "니까", "으니까", "지만", "서", "어서", "아서", "고", "으며", "며"})
#: Endings of a copula that give a reason ("복사본이라 버려도 돼", "불량이라서"): the clause says what the thing is.
_BECAUSE = frozenset({"라", "라서", "어서", "니까", "으니까", "라고"})
_DEPENDENT_NOUNS = frozenset({"수", "줄", "데", "때", "것", "거", "적"})
#: Nouns of time ("지금은 도색 테이블에 있어"): when something is so, never a thing or a place.
_TIME_NOUNS = frozenset({"지금", "현재", "이제", "아까", "방금", "오늘"})
#: Verbs of finishing: "끝나면", "마치고" after a work request order what follows after it.
_DONE_STEMS = frozenset({"끝나", "마치", "끝내", "완료되"})
#: Verbs that move the robot itself when what they govern is a place ("A, B 순서로 이동").
_MOVE_STEMS = frozenset({"이동", "움직이", "이동시키", "가"})
#: Nouns of order: "A, B 순서로" visits A, then B.
_SERIES = frozenset({"순서", "차례", "순"})
#: Verbs of leaving something be: without a place ("파란 큐브는 두고", "놔둬") they exclude their object.
#: Verbs of going: with a thing as their topic, the thing goes ("can은 capper 갔다가 …").
_GO_STEMS = frozenset({"가", "들르", "거치"})
#: Actions that carry a thing to a place.
_CARRIES = frozenset({"transfer", "place", "insert", "stack", "handover"})
#: Conjunctions of contrast: what follows is a clause of its own, never more of the one before ("…로, 그런데 건조기는 거치지 마").
_CONTRAST = frozenset({"그런데", "근데", "하지만", "그러나", "다만", "단"})
_LEAVE_STEMS = frozenset({"두", "놔두", "남기", "내버려두", "가만두", "냅두"})
_DASHES = frozenset({"—", "–"})
_COORDS = re.compile(r"\(\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?){2,}\s*\)")
_LABEL = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z][A-Za-z0-9_]*\d[A-Za-z0-9_]*|[A-Z](?![A-Za-z]))")


@dataclass
class _Phrase:
    morphs: list[Morph]
    text: str


@dataclass
class _Clause:
    start: int | None = None
    objects: list[ObjectRef] = field(default_factory=list)
    places: list[tuple[str, PlaceRef]] = field(default_factory=list)
    excluded: list[ObjectRef] = field(default_factory=list)
    excluded_places: list[PlaceRef] = field(default_factory=list)
    manner: list[tuple[str, str]] = field(default_factory=list)
    subjects: list[ObjectRef] = field(default_factory=list)
    topics: list[ObjectRef] = field(default_factory=list)  # 은/는: the object of this clause, or of the sentence's last one
    coordinated: list[_Phrase] = field(default_factory=list)
    #: The last object written without a particle, and where it ends: a relative clause's verb may govern it.
    bare: tuple[ObjectRef, int] | None = None
    order: str | None = None
    negated: bool = False
    swapped: bool = False  # "서로 바꿔": two things exchange places
    located: bool = False  # "A에 있는 X": the clause's source is said by a relative clause of where the thing is
    #: Where a heading sends the things it counts ("김치 통 두 개 저온 랙으로: …"): each "A 거" after it goes there too,
    #: unless it names a place of its own.
    inherited: list[tuple[str, PlaceRef]] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.objects or self.places or self.excluded or self.excluded_places or self.manner or self.subjects or self.topics)


def read_clauses(text: str) -> tuple[Clause, ...]:
    return tuple(_Reader(text, korean_morphs(text), vocabulary()).read())


class _Reader:
    def __init__(self, text: str, morphs: tuple[Morph, ...], vocab: Vocabulary) -> None:
        self.text = text
        self.m = morphs
        self.v = vocab
        self.out: list[Clause] = []
        self.cur = _Clause()
        self.next_order: str | None = None
        self.pending_topics: list[ObjectRef] = []
        #: Gapped parts of the clause being read: "X는 A에, Y는 B에 넣어" — each part shares the verb at the end.
        self.segments: list[tuple[_Clause, int]] = []
        self.items = 0  # list markers seen ("1)", "2)"): each item after the first comes after the one before
        #: A heading's counted thing and where it goes ("느타리 트레이 두 개: 선반 1 거는 …"): the thing each "A 거" after it is
        #: (its count kept: the things are as many as the heading says).
        self.heading: tuple[ObjectRef, list[tuple[str, PlaceRef]]] | None = None

    def read(self) -> list[Clause]:
        m, n = self.m, len(self.m)
        i = 0
        while i < n:
            mo = m[i]
            if self.cur.start is None:
                self.cur.start = mo.start
            if (mo.tag == "SF" or mo.form in _DASHES) and self._chooses():
                # "vase는 cure 말고 wash 먼저 — …": which of two steps comes, said of the topic; the step chosen is no
                # thing to carry, and the topic is the thing of the request that follows
                self.cur.objects = []
                self._flush(None, "", mo.start)
                i += 1
                continue
            if mo.tag == "SF" or mo.form == ";" or mo.form in _DASHES and (any(role == "goal" for role, _ in self.cur.places) or
                                                                            self.cur.start == mo.start):
                # (a dash after where the thing goes ends the request: "X는 1번 프린터로 — 둘 다 …"; one after a request
                # that has ended starts the next sentence: "…에 꽂아줘 — 1번 트레이 말고 …")
                self._flush(None, "", mo.start)
                i += 1
                continue
            if mo.form == ":" and self._heads_the_ones_at(i):
                # "느타리 트레이 두 개: 선반 1 거는 초록 상자에, 선반 2 거는 …": the heading counts the things, each "A 거"
                # after it is one of them — the one at A
                thing = self.cur.objects[0]
                self.heading = (thing, [(role, p) for role, p in self.cur.places if role == "goal"])
                self.cur = _Clause()
                i += 1
                continue
            if mo.form == ":" and self._counts_tasks(i):
                self.cur = _Clause()  # "두 가지: …", "작업 두 개: …": a heading that only counts what follows, no object
                i += 1
                continue
            if mo.form == ":" and not (self.cur.places or self.cur.topics or self.cur.excluded) and not self.segments and \
                    any(x.tag in ("JKO", "SB") or self._list_marker(k) for k, x in enumerate(m[i + 1:], start=i + 1)):
                self.cur = _Clause()  # "작업 지시: 1) ...", "작업 내용: 큐브를 ...": a heading, when what follows names its own object
                i += 1
                continue
            if mo.tag == "SP" and (self.cur.objects or self.cur.topics) and self.cur.places and i + 1 < n and not (
                    self.cur.located and all(role == "source" for role, _ in self.cur.places)) and (
                    m[i + 1].tag in _NOMINAL or m[i + 1].tag == "MM" or m[i + 1].tag == "MAG" and m[i + 1].form in self.v.ko_sequence):
                # "플라스틱 부품은 2번 빈에, 그다음 금속 부품은 1번 빈에 넣어": the part before the comma is a task of its own
                self.segments.append((self.cur, m[i - 1].end))
                self.cur = _Clause()
                i += 1
                continue
            if mo.tag == "SP" and self.cur.topics and not self.cur.places and self._gapped_place() and self._topic_follows(i + 1):
                # "배터리는 서랍 A, 액정은 왼쪽 매트에 있어": each topic has its own place, the last one's particle and verb
                # serve both
                thing = self.cur.objects.pop()
                self.cur.places.append(("location", self._as_place(thing)))
                self.segments.append((self.cur, m[i - 1].end))
                self.cur = _Clause()
                i += 1
                continue
            if self._list_marker(i):
                self._flush(None, "", mo.start)
                self.items += 1
                if self.items > 1:
                    self.next_order = "sequence"  # "1) A 2) B": a numbered list is done in its order
                i += 1 if mo.tag == "SB" else 2
                continue
            after = self._contrast(i)
            if after:
                self._flush(None, "", m[i - 1].end if i else mo.start)  # "A통에서 UV box로, 그런데 …": the route stands on its own
                i = after
                continue
            english = self._english_sentence(i) if mo.tag == "SL" and self.cur.empty() and not self.segments else None
            if english is not None:
                self._flush(None, "", mo.start)
                self.out.extend(english[0])
                self.cur = _Clause()
                i = english[1]
                continue
            if mo.tag == "MAG":
                i = self._adverb(i)
                continue
            if mo.tag == "SL" and mo.form.lower() in COURTESY:
                i += 1  # "… 넣어줘 pls": courtesy, no object
                continue
            if mo.tag == "SL" and self._english_verb(i) is not None:
                i = self._predicate(i)  # "pick해서", "tack weld 하고": an English verb made Korean with 하다
                continue
            final = self._english_final_verb(i) if mo.tag == "SL" else None
            if final is not None:
                self._flush(final[0], self.text[mo.start:m[final[1] - 1].end], m[final[1] - 1].end)
                i = final[1]
                continue
            manner_form = mo.form if mo.form in self.v.ko_manner else mo.form + "하" if mo.tag == "NNG" and mo.form + "하" in self.v.ko_manner else None
            if manner_form and i + 1 < n and m[i + 1].tag in ("XSA", "XSV", "VA", "EC"):
                # "조심스럽게", "신중하게", "부드럽게": a manner adverb built from a noun or adjective
                j = i + 1
                while j < n and m[j].tag in ("XSA", "XSV", "EC") and m[j - 1].form != "게":
                    j += 1
                self.cur.manner.append((self.v.ko_manner[manner_form], self.text[mo.start:m[j - 1].end]))
                i = j
                continue
            if mo.form == "하" and mo.tag == "VV" and i + 2 < n and m[i + 1].tag == "EC" and m[i + 1].form.endswith("도") and \
                    m[i + 2].form in ("되", "돼") and (self.cur.manner or self.cur.places):
                # "…로, 빠르게 해도 됨", "빨리 해도 돼": a permission about how, no verb of its own — the route before keeps
                # its reading and takes the manner
                i += 3
                while i < n and m[i].tag in ("EF", "EC", "EP", "JX"):
                    i += 1
                continue
            if mo.form == "있" and mo.tag in ("VA", "VV"):
                i = self._predicate(i)
                continue
            if mo.tag == "VCP" and i + 1 < n and (m[i + 1].tag == "EF" or m[i + 1].form in _BECAUSE) and not self.cur.places and \
                    not self.cur.manner and not any(self._names_place(o) for o in self.cur.objects + self.cur.topics):
                # "paprika jar 불량이야", "복사본이라 …": what the thing is — a statement, no task and no thing to carry
                self.cur.objects, self.cur.topics = [], []
                self._fact(m[i + 1].end)
                i += 2
                continue
            if mo.tag == "VCP" and i + 1 < n and m[i + 1].tag == "EF" and not self.cur.manner and \
                    {role for role, _ in self.cur.places} == {"source"} and not self.cur.excluded_places:
                # ("싱크대 말고 건조대에 있는 거요": a place ruled out with it is read as in "… 있는 거.", below)
                # "트리밍 스테이션에 있는 테스트 프레싱이야": what the thing named before is, and where it is — a statement,
                # no task; the noun restates the thing
                self.cur.objects, self.cur.topics = [], []
                self._fact(m[i + 1].end)
                i += 2
                continue
            if self._is_predicate(i) or mo.tag == "VA" and i + 1 < n and (m[i + 1].tag in ("EF", "EP") or m[i + 1].tag == "EC" and
                                                                       m[i + 1].form not in ("게", "기") and mo.form not in self.v.ko_manner):
                i = self._predicate(i)  # "시간이 없으니까": a state (context) ends its clause too
                continue
            if mo.tag in _NOMINAL or mo.tag == "MM" or (mo.tag == "VA" and i + 1 < n and m[i + 1].tag == "ETM") or mo.tag == "SS":
                i = self._phrase(i)
                continue
            if mo.tag == "VA" and i + 1 < n and m[i + 1].form in ("게",) and mo.form in self.v.ko_manner:
                self.cur.manner.append((self.v.ko_manner[mo.form], self.text[mo.start:m[i + 1].end]))
                i += 2
                continue
            i += 1
        self._flush(None, "", m[-1].end if m else 0)
        return self.out

    # ------------------------------------------------------------------ pieces
    def _counts_tasks(self, i: int) -> bool:
        """Do the words before the colon at i only count ("두 가지", "작업 세 개")?"""
        words = [x for x in self.m[:i] if self.cur.start is not None and x.start >= self.cur.start]
        return len(words) >= 2 and any(x.form in self.v.numbers for x in words) and \
            all(x.form in self.v.numbers or x.tag == "NNB" or x.form in _TASK_NOUNS or x.form in self.v.ko_generic for x in words)

    def _heads_the_ones_at(self, i: int) -> bool:
        """Is the part before the colon at i a heading that counts things ("느타리 트레이 두 개", "김치 통 두 개 저온 랙으로": one
        counted thing, perhaps where they go), and does "A 거" (the one at A) follow?"""
        cur = self.cur
        if len(cur.objects) != 1 or cur.topics or cur.excluded or cur.objects[0].count not in (None, 2, 3, 4, 5) or \
                cur.objects[0].noun is None or cur.objects[0].generic or any(role != "goal" for role, _ in cur.places):
            return False
        ones = sum(x.form in ("거", "것") and x.tag == "NNB" and k > i + 1 and self.m[k - 1].tag in ("NNG", "NNP", "NNB", "SN", "SL")
                   and self.m[k - 1].end < x.start for k, x in enumerate(self.m[i + 1:], start=i + 1))
        return ones >= (1 if cur.objects[0].count else 2)  # (without a count, "A 거 …, B 거 …" says there are several)

    def _the_one_at(self, phrase: _Phrase) -> _Phrase | None:
        """"선반 1 거", "뚜껑 체결대 거": a place, then 거/것 written apart — the one that is at that place. The place, or None.
        Read only after a heading that names the things (`_heads_the_ones_at`): which thing "거" is, the heading says."""
        morphs = phrase.morphs
        if len(morphs) < 2 or morphs[-1].form not in ("거", "것") or morphs[-1].tag != "NNB" or morphs[-2].end >= morphs[-1].start:
            return None
        where = _Phrase(morphs[:-1], self.text[morphs[0].start:morphs[-2].end])
        if any(x.tag not in ("NNG", "NNP", "SN", "SL", "NNB") for x in where.morphs) or \
                not (self._is_place(where) or _suffix_kind(where.text.split()[-1])):  # ("체결대": Kiwi may cut off the 대)
            return None
        return where

    def _list_marker(self, i: int) -> bool:
        """"1)", "2)" opening an item of a numbered list (Kiwi tags a leading one SB), not "(1)" or a label."""
        m = self.m
        if m[i].tag == "SB":
            return True
        return m[i].tag == "SN" and i + 1 < len(m) and m[i + 1].form == ")" and m[i + 1].start == m[i].end and \
            (i == 0 or m[i - 1].tag != "SSO") and not any(x.tag == "SSO" and x.form == "(" for x in m[max(0, i - 1):i])

    def _english_verb(self, i: int) -> tuple[str, int] | None:
        """An English action verb (one or more Latin words from `i`) followed by 하다: the action and the index of 하."""
        m, n = self.m, len(self.m)
        k = i
        while k < n and m[k].tag == "SL":
            k += 1
        words = [x.form.lower() for x in m[i:k]]
        if k + 1 < n and m[k].tag == "MAG" and m[k].form in self.v.ko_sequence:
            k += 1  # "screw down 먼저 하고": the order said between the verb and its 하
        if k == i or k >= n or m[k].form != "하" or m[k].tag not in ("XSV", "VV"):
            return None
        phrase = " ".join(words[:-1] + [verb_lemma(words[-1])])
        action = self.v.en_actions.get(phrase) or self.v.en_actions.get(" ".join(words))
        return (action, k) if action is not None else None

    def _english_sentence(self, i: int) -> tuple[list[Clause], int] | None:
        """"leg from bin B to the pickup tray, 그것만 하면 돼": a clause written wholly in English — Latin words from `i` to a
        comma, a full stop or the end, with an English preposition among them and no Korean particle after them — is read
        by the English reader; its clauses, and the index after it. None when it is no such clause or asks for nothing."""
        m, n = self.m, len(self.m)
        k = i
        while k < n and m[k].tag in ("SL", "SN") and (k == i or m[k - 1].end < m[k].start):
            k += 1
        if k < n and m[k].tag not in ("SP", "SF") or k - i < 4 or not any(x.form.lower() in self.v.en_prepositions for x in m[i:k]):
            return None
        from plan_verifier.semantic.english import read_clauses as read_english

        start = m[i].start
        clauses = [replace(c, start=c.start + start, end=c.end + start) for c in read_english(self.text[start:m[k - 1].end])]
        return (clauses, k) if any(c.action is not None and not c.fact for c in clauses) else None

    def _english_final_verb(self, i: int) -> tuple[str, int] | None:
        """"fixture에 place, 그 다음 ... screw down": Korean puts the verb last, so an English action verb (one or two Latin
        words from `i`) that ends a clause, before a comma, a full stop or the end, is the clause's verb without 하다."""
        m, n = self.m, len(self.m)
        k = i
        while k < n and m[k].tag == "SL" and k - i < 2:
            k += 1
        if k > i and k + 1 < n and m[k].tag == "MAG" and m[k].form.endswith("번") and m[k + 1].tag in ("SP", "SF", "SE") or \
                k > i and k + 1 == n and m[k].tag == "MAG" and m[k].form.endswith("번"):
            k += 1  # "tack weld 한 번, …": how many times, after the verb
        if k == i or not (k == n or m[k].tag in ("SP", "SF", "SE")) or i > 0 and m[i - 1].tag == "SL" and m[i - 1].end == m[i].start - 1:
            return None
        words = [x.form.lower() for x in m[i:k] if x.tag == "SL"]
        phrase = " ".join(words[:-1] + [verb_lemma(words[-1])])
        action = self.v.en_actions.get(phrase)
        return (action, k) if action is not None and (self.cur.objects or self.cur.places or self.cur.topics) else None

    def _is_predicate(self, i: int) -> bool:
        mo = self.m[i]
        if mo.tag == "VV" and mo.form not in self.v.ko_manner:
            return True
        if mo.tag == "VX" and mo.form in self.v.ko_actions and (i == 0 or self.m[i - 1].tag != "EC"):
            return True  # "팔레트에 놔": Kiwi tags the lone 놓 as an auxiliary
        if mo.tag in ("NNG", "NNP") and i + 1 < len(self.m) and mo.form not in self.v.ko_manner and (
                self.m[i + 1].tag in ("XSV", "XSA") or self.m[i + 1].form == "하" and self.m[i + 1].tag == "VV"
                or self.m[i + 1].form == "하고" and mo.form in self.v.ko_actions):
            return True  # 이동/NNG 하/XSV; "반납하고", which Kiwi may read as 반납 + 하고/JC
        if mo.tag == "NNG" and mo.form in _LIGHT_STEMS and i + 1 < len(self.m) and self.m[i + 1].form in ("드리", "하"):
            return True  # "부탁드려요", "요청합니다"
        if mo.tag == "NNG" and mo.form in self.v.ko_noun_verbs and (i + 1 == len(self.m) or self.m[i + 1].tag in ("SF", "SP", "SE")):
            return True  # "B 위치로 이동.": an action noun that ends the clause is its verb (notes and comments)
        return False

    def _adverb(self, i: int) -> int:
        mo = self.m[i]
        form = mo.form
        if form in self.v.ko_manner:
            self.cur.manner.append((self.v.ko_manner[form], form))
        elif form in self.v.ko_sequence:
            self.cur.order = "first" if form in self.v.ko_first else "sequence"
        elif form in _NEGATING_MAG:
            self.cur.negated = True
        elif form == "그대로":
            self.cur.negated = True  # "그대로 두고": leave it as it is
        elif form in self.v.constructions.ko_swap:
            self.cur.swapped = True  # "서로 바꿔 넣어": an exchange
        elif form in self.v.ko_all:
            for obj in self.cur.objects[-1:]:
                if obj.count is None:  # "상자 두 개 다": both of them, still two
                    self.cur.objects[-1] = replace(obj, count=-1)
        return i + 1

    def _contrast(self, i: int) -> int:
        """The index after a conjunction of contrast written as a word of its own at `i` (`_CONTRAST`; Kiwi may cut
        "그런데" into 그런 + 데), 0 when none starts there."""
        m, text = self.m, self.text
        start = m[i].start
        if start and not (text[start - 1].isspace() or text[start - 1] in ",."):
            return 0
        word = next((w for w in _CONTRAST if text.startswith(w, start) and (start + len(w) == len(text) or text[start + len(w)] in " ,\n")), None)
        if word is None or m[i].tag not in ("MAJ", "MM", "MAG", "NNG"):
            return 0
        j = i
        while j < len(m) and m[j].end <= start + len(word):
            j += 1
        return j

    def _distributive(self, i: int) -> int:
        """How many morphemes a count "at a time" takes at `i` ("하나씩", "두 개씩", "2개씩"), 0 when there is none: how many
        go at once, neither a thing nor a place."""
        m, n = self.m, len(self.m)
        j = i
        if j < n and m[j].tag in ("NR", "SN", "MM"):
            j += 1
            if j < n and m[j].tag == "NNB" and m[j].form in _COUNTERS:
                j += 1
            if j < n and m[j].form == "씩" and m[j].tag == "XSN":
                return j + 1 - i
        return 0

    def _phrase(self, i: int) -> int:
        """A noun phrase and its particle (or 말고/빼고/제외하고 after it)."""
        m, n = self.m, len(self.m)
        if self._distributive(i):
            return i + self._distributive(i)
        j = i
        while j < n and (m[j].tag in _NOMINAL or m[j].tag in ("MM", "SSO") or (m[j].tag == "VA" and j + 1 < n and m[j + 1].tag == "ETM")
                         or m[j].tag == "ETM" and j > i and m[j - 1].tag == "VA"):
            if m[j].tag in ("NNG", "NNP") and j + 1 < n and (m[j + 1].tag in ("XSV", "XSA") or m[j + 1].form == "하" and m[j + 1].tag == "VV"
                                                               or m[j + 1].form == "하고" and m[j].form in self.v.ko_actions):
                break  # "Pos_1 가접하고": the action noun, which Kiwi may give 하고/JC, is the verb
            if j > i and m[j].tag == "NNG" and m[j].form in self.v.ko_noun_verbs and (j + 1 == n or m[j + 1].tag in ("SF", "SP", "SE")):
                break  # "… 끝나면 용접기 반납": an action noun ending the clause is its verb, no part of the thing
            if j > i and m[j].tag == "NNG" and m[j].form in _LIGHT_STEMS and j + 1 < n and m[j + 1].form in ("드리", "하"):
                break  # "담요 하나 전달 부탁드립니다": the request ends the phrase
            if m[j].tag == "SL" and (self._english_verb(j) is not None or j > i and self._english_final_verb(j) is not None):
                break  # "seam 1 tack weld 하고", "fixture에 place": the place ends where the verb starts
            if j > i and self._distributive(j):
                break  # "Pos_5 하나씩": how many at a time ends the phrase
            if j > i and m[j].tag in ("SN", "MM") and m[j - 1].tag == "NNB" and m[j - 1].form in _COUNTERS and m[j - 1].end < m[j].start:
                break  # "볼트 2개 1번빈에": the count ends the object, the place starts
            if j > i + 1 and m[j].tag in ("NNG", "NNP") and m[j - 1].tag == "NNB" and m[j - 1].form in ("개", "장") and \
                    m[j - 2].tag in ("MM", "NR", "SN") and m[j - 1].end < m[j].start:
                break  # "김치 통 두 개 저온 창고 랙으로": a count by a counter that names no place ends the thing
            if m[j].tag == "SSO":
                if j == i:
                    break
                close = next((k for k in range(j + 1, n) if m[k].tag == "SSC"), None)
                if close is None:
                    break
                j = close + 1  # "A(0, 0, 0)", "B (100, 105, 150)": coordinates belong to the place
                continue
            j += 1
        # "그 다음 B 위치": the order words lead the phrase, the place is the rest
        k = i
        while k < j and (m[k].form in _ORDER_PHRASES or m[k].tag == "MM" and m[k].form == "그" and k + 1 < j and m[k + 1].form in _ORDER_PHRASES):
            k += 1
        if k > i and k < j:
            self.cur.order = "sequence"
            i = k
        phrase = _Phrase(list(m[i:j]), self.text[m[i].start:m[j - 1].end]) if j > i else None
        if phrase is None:
            return i + 1
        if [x.form for x in phrase.morphs] in ([w] for w in _TIME_NOUNS):
            return j + (1 if j < n and m[j].tag.startswith("J") else 0)  # "지금은": when, no thing
        if len(phrase.morphs) > 1 and phrase.morphs[-1].form in _SERIES and j < n and m[j].tag.startswith("J"):
            # "A, B 순서로": the phrase before 순서 is what to do in the order named
            self.cur.order = "sequence"
            rest = phrase.morphs[:-1]
            self._assign(_Phrase(rest, self.text[rest[0].start:rest[-1].end]), None)
            return j + 1
        if phrase.morphs[-1].form in _SERIES and j < n and m[j].tag.startswith("J"):
            self.cur.order = "sequence"  # "순서대로", "차례로"
            return j + 1
        # order nouns after a clause: "마지막으로"
        head_forms = [x.form for x in phrase.morphs if x.tag != "MM"]
        if head_forms and "".join(head_forms) in _ORDER_PHRASES:
            self.cur.order = "first" if "".join(head_forms) in self.v.ko_first else "sequence"
            return j + (1 if j < n and m[j].tag.startswith("J") else 0)
        if j < n and m[j].form == "아니" and m[j].tag == "VCN" and self._is_place(phrase):
            self.cur.excluded_places.append(self._place(phrase))  # "자투리 통 아니고", "폐기통 아님": not that place
            return j + 2
        if j < n and m[j].form in ("말", "빼") and j + 1 < n and m[j + 1].form == "고":
            if phrase.text in ("거", "것") and i >= 2 and m[i - 1].tag == "ETM" and m[i - 2].form in _LOCATIVE_STEMS:
                # "불량 통에 있는 거 말고 냉각 랙에 있는 거": not the one there — that place is no source of this clause
                self.cur.places = [(role, p) for role, p in self.cur.places if role != "source"]
                return j + 2
            sides = {self.v.ko_sides.get(w) or _LEVELS.get(w) or self.v.en_sides.get(w.lower()) for w, _ in self._words(phrase)}
            if len(sides) == 1 and None not in sides:
                # "위쪽 말고", "왼쪽 말고": a side alone rules out that side of the place the clause or the one before asks
                # for (the instruction completes it)
                side = sides.pop()
                self.cur.excluded_places.append(PlaceRef(phrase.text, side, None, side=side))
                return j + 2
            if self._is_place(phrase):
                thing, phrase = self._designated(phrase)
                if thing is not None:
                    self._assign(thing, None)  # "착륙 다리 폐기 통 말고": the landing leg, not into the scrap bin
                self.cur.excluded_places.append(self._place(phrase))  # "3번 통 말고"
            else:
                self.cur.excluded.append(self._object(phrase))  # "파란 큐브 말고", "초록 블록 빼고"
            return j + 2
        if j < n and m[j].tag.startswith("J"):
            particle = m[j].form
            k = j + 1
            if j + 1 < n and m[j + 1].tag.startswith("J"):
                k = j + 2  # "에서는", "에는"
            if m[j].tag == "JC" or particle in ("와", "과", "하고", "랑", "이랑", "및"):
                self.cur.coordinated.append(phrase)
                return k
            if k < n and m[k].form in ("빼", "제외") and (k + 1 < n and m[k + 1].form in ("고", "하")) and m[j].tag != "JKB":
                # "초록 블록을 빼고" excludes it; "완성품 팔레트로 빼고" (after a place particle) takes something out to there
                self.cur.excluded.append(self._object(phrase))
                return k + 2
            head, rest = self._split_object(phrase) if m[j].tag == "JKB" else (None, phrase)
            if head is not None:
                self._assign(head, None)  # "파란 큐브 팔레트에": the object, its particle left out, then the place
            self._assign(rest, m[j])
            return k
        if j < n and m[j].form in ("제외",):
            self.cur.excluded.append(self._object(phrase))
            return j + 1
        if len(phrase.morphs) > 1 and phrase.morphs[-1].form in _RELATIONAL:
            return j  # "seed jar 옆, 그러니까 vault rack B에": where, said by a landmark and restated; never the thing carried
        # no particle: an object the speaker left the particle off ("사과 옮겨줘")
        self._assign(phrase, None)
        if self.cur.objects:
            self.cur.bare = (self.cur.objects[-1], phrase.morphs[-1].end)
        return j

    def _split_object(self, phrase: _Phrase) -> tuple[_Phrase | None, _Phrase]:
        """A place phrase whose first words, written apart, are no place and whose last are: the speaker dropped 을/를
        ("플라스틱부품 2번빈에", "빨간 거 A에서")."""
        morphs = phrase.morphs
        for k in range(1, len(morphs)):  # "용접기 | 제자리에 갖다 놔": the thing, then where it belongs
            if morphs[k - 1].end < morphs[k].start and \
                    " ".join(self.text[morphs[k].start:morphs[-1].end].split()) in self.v.constructions.ko_back_where:
                before = _Phrase(morphs[:k], self.text[morphs[0].start:morphs[k - 1].end])
                if not self._is_place(before) and not self.cur.objects:
                    return before, _Phrase(morphs[k:], self.text[morphs[k].start:morphs[-1].end])
        for k in range(1, len(morphs) - 1):  # "핀 키 | 아래쪽 핀 서랍", "rosin cake | 오른쪽 felt mat": a side opens the place
            if morphs[k - 1].end < morphs[k].start and (morphs[k].form in self.v.ko_sides or morphs[k].form in self.v.ko_colors):
                before = _Phrase(morphs[:k], self.text[morphs[0].start:morphs[k - 1].end])
                after = _Phrase(morphs[k:], self.text[morphs[k].start:morphs[-1].end])
                if self._leveled(before, after) or self._coloured(before, after):
                    return before, after
            if morphs[k - 1].end < morphs[k].start and _ordinal(morphs, k, self.v) is not None and \
                    morphs[k - 1].tag == "SL" and not self.cur.objects and not self.cur.topics and not self._fetched():
                # "blotter pack 두 번째 샘플 트레이로": English words, then a Korean place its ordinal opens
                before = _Phrase(morphs[:k], self.text[morphs[0].start:morphs[k - 1].end])
                after = _Phrase(morphs[k:], self.text[morphs[k].start:morphs[-1].end])
                if self._is_place(after) and not self._is_place(before) and not self._object_follows(after.morphs[-1]):
                    return before, after
        for k in range(1, len(morphs)):  # "tennis racket | 스트링 머신": where the words switch language, whole words on each side
            if morphs[k - 1].end < morphs[k].start and morphs[k - 1].tag == "SL" and has_hangul(morphs[k].form):
                before = _Phrase(morphs[:k], self.text[morphs[0].start:morphs[k - 1].end])
                after = _Phrase(morphs[k:], self.text[morphs[k].start:morphs[-1].end])
                if self._switches(before, after):
                    return before, after
                break
        for k in range(2, len(morphs)):  # "셔틀콕 통 | 셔틀콕 선반에서": a noun said again starts the place named after the thing
            # (a side, colour, label or level said again is the place's own: "왼쪽 렌즈 작업 트레이 왼쪽 칸")
            if morphs[k - 1].end < morphs[k].start and morphs[k].tag in ("NNG", "NNP", "SL") and not self._designator(morphs[k]) and \
                    morphs[k].form not in _LEVELS and morphs[k].form not in _RELATIONAL and \
                    any(x.form.lower() == morphs[k].form.lower() and x.tag == morphs[k].tag for x in morphs[:k - 1]):
                before = _Phrase(morphs[:k], self.text[morphs[0].start:morphs[k - 1].end])
                after = _Phrase(morphs[k:], self.text[morphs[k].start:morphs[-1].end])
                if not self.cur.objects and not self.cur.topics and not self._fetched() and self._is_place(after) and \
                        not self._is_place(_Phrase(morphs[:1], "")) and not self._object_follows(after.morphs[-1]):
                    return before, after
                break
        for k in range(len(morphs) - 1, 0, -1):  # the shortest place at the end: "빨간색 블록 | A"
            if morphs[k - 1].end < morphs[k].start and morphs[k].tag in ("NNG", "NNP", "SN", "SL"):
                before = _Phrase(morphs[:k], self.text[morphs[0].start:morphs[k - 1].end])
                after = _Phrase(morphs[k:], self.text[morphs[k].start:morphs[-1].end])
                if all(m.form in _RELATIONAL for m in before.morphs) or before.morphs[-1].form in _LEVELS and \
                        not self._is_place(_Phrase(before.morphs[:-1], "")):
                    continue  # "아래 선반으로", "망치 위 선반에서": the level is the place's, no thing
                if self._switches(before, after) or self._packed(before, after) or self._leveled(before, after):
                    return before, after
                named = [w for w, parts in self._words(before) if parts[0].tag in ("NNG", "NNP", "SL", "NP")
                         or parts[0].tag == "NNB" and w not in _COUNTERS and w not in ("번", "번째", "째")]
                if named and all(self.v.ko_colors.get(w) for w in named) and after.morphs[0].tag in ("NNG", "NNP"):
                    continue  # "흰색 랙에 있어요": a colour alone before a place noun is its colour ("빨간색 A에서": the red one)
                if named and not self._is_place(_head(before)) and (self._is_place(after) or self._counted(before) or
                                                                     self._container(after) and self._attributed(before)) \
                        and self._stands_alone(before, after):
                    return before, after
        unnamed = self._thing_before_named_place(phrase)
        if unnamed is not None:
            return unnamed
        return None, phrase

    def _thing_before_named_place(self, phrase: _Phrase) -> tuple[_Phrase, _Phrase] | None:
        """"탱크 충전 스테이션에 꽂아", "표본 폴더 대출 카운터로 가져다줘", "고사리 표본 격리 트레이에서 …": a run of Hangul
        nouns before a place particle in an instruction that names its thing nowhere else (no 을/를 anywhere, no object
        yet, nothing fetched): a carrying verb needs a thing, so the run holds it. The last two words are the place — a
        word that says which (충전, 대출, 격리) and the place noun — the words before them the thing, its particle left off
        as with a known object ("사과 과일 상자에"). Never when a word before names a place, a side, a colour, a level or a
        qualifier (then they describe the place), unless a relative clause of being somewhere opens the run ("탱크
        거치대에 있는 탱크 충전 스테이션에": what is at the rack is a thing)."""
        words = self._words(phrase)
        if len(words) < 3 or self.cur.objects or self.cur.topics or self.cur.excluded or self.cur.excluded_places or \
                self._fetched() or any(c.objects for c in self.out) or \
                any(x.tag == "JKO" for x in self.m) or self._object_follows(phrase.morphs[-1]):
            return None
        if not all(p.tag in ("NNG", "NNP", "XSN") and has_hangul(p.form) for _, parts in words for p in parts):
            return None
        verb = self._next_predicate(phrase.morphs[-1])
        if self.v.ko_actions.get(verb or "") not in _CARRIES and verb not in _PLACE_STEMS:  # ("가져다줘": 가지 + 어다)
            return None
        if not self._only_places_before_verb(phrase.morphs[-1]) or self._thing_said_later(phrase.morphs[-1]):
            return None  # "목수 전달 위치로 테이블 다리 좀 갖다 줘요": the thing follows, bare; "… 주지 말고": no carrying;
            # "저온 보관 랙에 올려, 그 유리 화병.": the thing said after the request, the run is all place
        lead, place = words[:-2], words[-2:]
        after = _Phrase([p for _, ps in place for p in ps], self.text[place[0][1][0].start:place[-1][1][-1].end])
        before = _Phrase([p for _, ps in lead for p in ps], self.text[lead[0][1][0].start:lead[-1][1][-1].end])
        if not (self._is_place(after) or self._container(after)) or self._is_place(_Phrase(place[0][1], place[0][0])):
            return None
        at = self.m.index(before.morphs[0])
        located = at >= 2 and self.m[at - 1].tag == "ETM" and self.m[at - 2].form in _LOCATIVE_STEMS
        v = self.v
        if any(w in v.ko_qualifiers or w in v.ko_sides or w in v.ko_colors or w in _LEVELS or w in _RELATIONAL or
               w in v.ko_noun_verbs or not located and (v.ko_places.get(w) or _compound_place(w, v) or _suffix_kind(w))
               for w, _ in lead):
            return None
        return before, after

    def _relative_locates_place(self, etm: int) -> bool:
        """Does the relative clause of being somewhere ending at `etm` modify a place that takes a place particle, in a
        clause whose thing is already said ("화분은 흙 통 옆에 있는 분갈이 작업대에다 둬")? Then its place locates that place."""
        m = self.m
        if not (self.cur.objects or self.cur.topics) or not any(role == "location" for role, _ in self.cur.places):
            return False
        k = etm + 1
        while k < len(m) and m[k].tag in _NOMINAL:
            k += 1
        if k == etm + 1 or k >= len(m) or m[k].tag != "JKB" or self.v.ko_particles.get(m[k].form) not in ("goal", "location"):
            return False
        run = _Phrase(list(m[etm + 1:k]), self.text[m[etm + 1].start:m[k - 1].end])
        # (a thing at the front of the run is what lies there: "PCB 트레이에 있는 기판 조립 지그에" — the board, then the jig)
        words = [w for w, _ in self._words(run)]
        if any(self.v.ko_objects.get(w) or borrowed(w, self.v)[0] for w in words[:1]) and len(words) > 1:
            return False
        return self._is_place(run)

    def _thing_said_later(self, last: Morph) -> bool:
        """Does a noun that names no place follow anywhere after `last` — a thing said after the request ("…에 올려, 그
        유리 화병"), not a place with its particle ("지금 프런트 데스크에 있어"), a time ("지금") or "거"?"""
        m = self.m
        k = m.index(last) + 1
        while k < len(m):
            if m[k].tag not in ("NNG", "NNP", "SL"):
                k += 1
                continue
            run = k
            while k < len(m) and m[k].tag in ("NNG", "NNP", "SL", "SN", "NR", "XSN"):
                k += 1
            phrase = _Phrase(list(m[run:k]), self.text[m[run].start:m[k - 1].end])
            located = k < len(m) and m[k].tag == "JKB"
            if not located and not self._is_place(phrase) and not all(x.form in _TIME_NOUNS or x.form in _ORDER_NOUNS
                                                                      for x in m[run:k]):
                return True
        return False

    def _only_places_before_verb(self, last: Morph) -> bool:
        """From the particle after `last` to the next verb, only places with their particles and adverbs — no noun left
        bare (a thing said after the place) — and the verb not negated ("주지 말고", "넣지 않고")."""
        m = self.m
        k = m.index(last) + 1
        while k < len(m) and m[k].tag not in ("VV", "VA", "VX"):
            if m[k].tag in ("NNG", "NNP", "SL", "NNB") and (k + 1 >= len(m) or not m[k + 1].tag.startswith("J") and
                                                            m[k + 1].tag not in ("NNG", "NNP", "SL", "NNB", "SN", "NR")):
                return False
            k += 1
        return not (k + 2 < len(m) and m[k + 1].form == "지" and m[k + 2].form in ("말", "않"))

    def _designated(self, phrase: _Phrase) -> tuple[_Phrase | None, _Phrase]:
        """A place ruled out ("X 말고 Y에") is told from the one asked for by a designator — a colour, a qualifier, a side,
        a number or a label ("폐기 통", "노란 트레이", "빨간 카트"). Words before the designator that name no place, in a
        clause that has no object yet, are the thing, its particle left off ("착륙 다리 폐기 통 말고", "battery pack 노란
        트레이 말고"): the thing and the place; (None, phrase) when the phrase is the place alone ("부품 통 A 말고")."""
        morphs = phrase.morphs
        if self.cur.objects or self.cur.topics or self._fetched() or self._designator(morphs[0]):
            return None, phrase
        for k in range(1, len(morphs)):
            if morphs[k - 1].end < morphs[k].start and self._designator(morphs[k]):
                lead = _Phrase(morphs[:k], self.text[morphs[0].start:morphs[k - 1].end])
                tail = _Phrase(morphs[k:], self.text[morphs[k].start:morphs[-1].end])
                nouns = [x for x in morphs[k:] if x.tag in ("NNG", "NNP", "SL") and not self._designator(x)]
                if any(self._designator(x) for x in morphs[:k]) or self._is_place(lead) or not nouns or \
                        not self._is_place(_Phrase(nouns, "")):
                    return None, phrase  # "로드포트 1 말고": the number alone is no place with a noun of its own
                return lead, tail
        return None, phrase

    def _designator(self, mo: Morph) -> bool:
        """Does this morpheme tell a place from others of its kind (a colour, a qualifier, a side, a number, a label)?"""
        v = self.v
        return mo.form in v.ko_colors or mo.form in v.ko_qualifiers or mo.form in v.ko_sides or mo.tag == "SN" or \
            mo.tag == "SL" and (bool(_LABEL.fullmatch(mo.form)) or mo.form.lower() in v.en_colors or mo.form.lower() in v.en_sides)

    def _leveled(self, before: _Phrase, after: _Phrase) -> bool:
        """"왕관 위 선반에서", "핀 키 아래쪽 핀 서랍에", "rosin cake 오른쪽 felt mat에서": a thing, then a place named with its
        level or side (위, 아래쪽, 오른쪽) — not the shelf on the crown; the clause has no object yet and the words before
        name no place."""
        return (after.morphs[0].form in _LEVELS or after.morphs[0].form in self.v.ko_sides) and len(after.morphs) > 1 and \
            self._is_place(after) and not self._is_place(before) and not any(m.form in _RELATIONAL for m in before.morphs) \
            and not self.cur.objects and not self.cur.topics

    def _coloured(self, before: _Phrase, after: _Phrase) -> bool:
        """"계량 스쿱 초록 상자에서", "빨간 컵 초록 상자에": a thing, then a place or a container named by its colour — two
        noun phrases when the words before name no place and are no colour alone (`_stands_alone` says when)."""
        if after.morphs[0].form not in self.v.ko_colors or not (self._is_place(after) or self._container(after)):
            return False
        named = [w for w, parts in self._words(before) if parts[0].tag in ("NNG", "NNP", "SL")]
        return bool(named) and not all(self.v.ko_colors.get(w) for w in named) and not self._is_place(before) and \
            not any(m.form in _RELATIONAL for m in before.morphs) and self._stands_alone(before, after)

    def _packed(self, before: _Phrase, after: _Phrase) -> bool:
        """"와셔 세트 폐기 상자에", "볼트 묶음 2번 트레이에": a thing the vocabulary knows named by its packing (a measure noun
        after the thing's word: `measure_nouns`), then a place or a container — the packing ends the thing, the place
        starts after it (when the clause has no object yet). A word the vocabulary does not know before the measure
        ("줄 세트 오른쪽 트레이") may as well name the place: the phrase stays whole."""
        words = [w for w, _ in self._words(before)]
        return len(words) >= 2 and self.v.measured(tuple(words)) in self.v.object_classes and not self.cur.objects and not self.cur.topics and \
            (self._is_place(after) or self._container(after)) and not self._is_place(_Phrase(before.morphs[:-1], "")) and \
            not self._object_follows(after.morphs[-1])  # "부품 세트 트레이에 볼트를": the parts-set tray, the bolt is the thing

    def _switches(self, before: _Phrase, after: _Phrase) -> bool:
        """"drawer front 왼쪽 지그에 넣고", "tray 식기 건조대에": English words, then a Korean place that is a place by itself —
        where the words switch language, the thing ends and the place starts (when the clause has no other object and
        nothing was just fetched)."""
        if before.morphs[-1].tag != "SL" or not has_hangul(after.morphs[0].form) or self.cur.objects or self.cur.topics:
            return False
        if before.morphs[-1].form.lower() in self.v.en_places or noun_lemma(before.morphs[-1].form.lower()) in self.v.en_places:
            return False  # "hold shelf 2번 칸에", "feeder 부품 fixture에": an English place name, then its part
        if any(m.tag == "SL" and (_LABEL.fullmatch(m.form) or m.form.isupper() and m.form.lower() not in self.v.en_objects)
               for m in before.morphs):
            return False  # "A 위치로", "B2 지그에", "ESD 트레이에서": a label or an acronym of the place
        words = [m.form.lower() for m in before.morphs if m.tag == "SL"]
        if all(w in self.v.en_sides or any(w in pair for pair in self.v.qualifier_pairs) for w in words) or \
                after.morphs[0].form in _RELATIONAL:
            return False  # "left 지그에", "output 컨베이어에": the place's own words
        return self._is_place(after) and not self._object_follows(after.morphs[-1]) and not self._fetched()

    def _located(self, phrase: _Phrase) -> tuple[_Phrase | None, _Phrase]:
        """An object phrase whose first word names a place the vocabulary knows and the rest a thing ("조제대 약병", "A 랙
        튜브"): where the thing is, and the thing."""
        words = self._words(phrase)
        if len(words) < 2:
            return None, phrase
        first, parts = words[0]
        # a loanword guess is too weak to split an object: "프랄린 상자를" is a praline box, not a box on a planer
        kind = self.v.ko_places.get(first) or _suffix_kind(first)
        rest = [m for _, ms in words[1:] for m in ms]
        if kind in (None, "operator", "home") or kind == "position" and not _suffix_kind(first) or self._is_place(_Phrase(rest, "")) or parts[-1].end >= rest[0].start:
            return None, phrase
        return _Phrase(parts, first), _Phrase(rest, self.text[rest[0].start:rest[-1].end])

    def _counted(self, phrase: _Phrase) -> bool:
        """Does the phrase end with a count ("하나", "두 개", "한 장")? Counted words name things, not places."""
        last = phrase.morphs[-1]
        return last.form in self.v.numbers and (last.tag in ("NR", "MM", "SN") or last.form in ("하나", "둘", "셋", "넷")) or \
            last.form in _COUNTERS and len(phrase.morphs) > 1 and phrase.morphs[-2].tag in ("SN", "NR", "MM")

    def _attributed(self, phrase: _Phrase) -> bool:
        """An object named with a colour, material or size of its own ("유리병", "빨간 컵"): a noun phrase by itself."""
        obj = self._object(_head(phrase))
        return obj.noun in self.v.object_classes and any(x is not None for x in (obj.color, obj.material, obj.size))

    def _container(self, phrase: _Phrase) -> bool:
        """A thing written before a place particle that things are put into ("유리 상자에", "박스에"): a place here."""
        words = [w for w, _ in self._words(phrase)]
        return bool(words) and (self.v.ko_objects.get(words[-1]) or borrowed(words[-1], self.v)[0]) in CONTAINERS

    def _stands_alone(self, before: _Phrase, after: _Phrase) -> bool:
        """Nouns written before a place noun modify it ("키트 트레이", "왼쪽 지그", "부품 트레이": a kind of tray), unless the
        clause still lacks its object and the two parts are two noun phrases: the first an object with an attribute of
        its own ("파란 큐브", "플라스틱부품", "빨간 거") or the place a complete name by itself ("2번 빈", "A")."""
        if self.cur.objects or self.cur.topics:
            return False
        obj = self._object(_head(before))
        attributed = any(x is not None for x in (obj.color, obj.material, obj.size, obj.ordinal, obj.count)) or \
            any(m.form in _RELATIONAL for m in before.morphs)  # "팔레트 위 상자": the box on the pallet, a phrase of its own
        known = obj.noun is not None and obj.noun in self.v.object_classes and not self._guessed(before) or \
            obj.noun in self.v.measures and self.v.measured(obj.words) in self.v.object_classes  # "와셔 세트": washers
        if self._counted(before):
            return True  # "sourdough 하나 label camera에": a counted thing, then the place
        at = self.m.index(before.morphs[0])
        if at >= 2 and self.m[at - 1].tag == "ETM" and self.m[at - 2].tag in ("VV", "VA") and \
                self.m[at - 2].form not in _LOCATIVE_STEMS and obj.noun is not None and not obj.generic:
            return True  # "시든 모종 퇴비통에": a relative clause opens a noun phrase of its own (the wilted seedling), then the place
        first = after.morphs[0]
        labelled = first.tag == "SN" or first.tag == "SL" and bool(_LABEL.fullmatch(first.form))
        if not (known or obj.generic and attributed):
            return self._unknown_thing_before(before, after, labelled)
        # After a fetch ("볼트 꺼내서 부품 트레이에 넣어") the object is the fetched one and the nouns name the place; with
        # nothing fetched, a known object before the place is the object ("상자 컨베이어에 올려").
        return attributed or labelled or not self._fetched() and not self._object_follows(after.morphs[-1]) and \
            self._next_predicate(after.morphs[-1]) != "있"  # "지금 뚜껑 스테이션에 있어요": where it is, at the lidding station

    def _guessed(self, phrase: _Phrase) -> bool:
        """Is the phrase's last word a Hangul loanword the vocabulary only guesses ("스트링" as string)? A guess is too weak to
        cut a place's name in two: "스트링 머신" is the stringing machine, not a string on a machine."""
        words = self._words(phrase)
        if not words:
            return False
        last = words[-1][0]
        return has_hangul(last) and last not in self.v.ko_objects and last not in self.v.glossary and not any(
            last[k:] in self.v.ko_objects or last[k:] in self.v.glossary for k in range(1, len(last))) and bool(borrowed(last, self.v)[0])

    def _unknown_thing_before(self, before: _Phrase, after: _Phrase, labelled: bool) -> bool:
        """"반죽 그릇 2번 선반에서 …로 옮겨", "메리노 타래 두 번째 냄비에서 …": a place that is a complete name by itself (a number
        or an ordinal opens it) after Hangul nouns the vocabulary does not know, in a carrying clause that has no object yet
        and where a place follows as the goal — the nouns are the thing, its particle left off, not words of the place. Never
        when a word before could describe the place (an action noun: "조립 2번 라인", a qualifier, a side, a colour, a
        place noun)."""
        ordinal = _ordinal(after.morphs, 0, self.v) is not None
        if not (labelled or ordinal) or self._fetched():
            return False
        words = [x.form for x in before.morphs if x.tag in ("NNG", "NNP")]
        if not words or len(words) != len([x for x in before.morphs if x.tag not in ("SP",)]) or any(
                w in self.v.ko_noun_verbs or w in self.v.ko_qualifiers or w in self.v.ko_sides or w in self.v.ko_colors or
                w in self.v.ko_places or w in _LEVELS or w in _RELATIONAL for w in words):
            return False
        verb = self._next_predicate(after.morphs[-1])
        at = self.m.index(after.morphs[-1])
        particle = self.m[at + 1].form if at + 1 < len(self.m) else ""
        return particle == "에서" and self.v.ko_actions.get(verb or "") in _CARRIES | {"pick"} and \
            any(x.tag == "JKB" and x.form in ("로", "으로", "에") for x in self.m[at + 2:self.m.index(next(
                y for y in self.m[at + 1:] if y.tag in ("VV", "VA", "VX")))])

    def _fetched(self) -> bool:
        """Was a thing just taken ("볼트 꺼내서 …")? Then a later place's nouns name the place, the object is the fetched one."""
        taken = [c for c in self.out if c.action is not None and c.action not in WORK]
        return bool(taken) and taken[-1].action == "pick" and not taken[-1].negated  # a stop at a camera between changes nothing

    def _next_predicate(self, last: Morph) -> str | None:
        return next((x.form for x in self.m[self.m.index(last) + 1:] if x.tag in ("VV", "VA", "VX")), None)

    def _object_follows(self, last: Morph) -> bool:
        """Does an object with 을/를 follow in this clause ("플레이트 네스트에 있는 마이크로플레이트를 ...")? Then the nouns
        before the place particle name the place."""
        for x in self.m[self.m.index(last) + 1:]:
            if x.tag == "JKO":
                return True
            if x.tag in ("EC", "EF", "SF") and x.form not in ("어", "아"):
                return False
        return False

    def _assign(self, phrase: _Phrase, particle: Morph | None) -> None:
        phrases = self.cur.coordinated + [phrase]
        self.cur.coordinated = []
        if len(phrases) > 1:
            # "볼트랑 너트 둘 다": the number counts the coordinated objects, one each
            phrases = [_Phrase([m for k, m in enumerate(p.morphs) if not (m.tag in ("MM", "NR", "SN") and _ordinal(p.morphs, k, self.v) is None
                                                                          or m.form in _COUNTERS and m.tag == "NNB")], p.text)
                       for p in phrases]
        if particle is not None and (particle.tag == "JKO" or particle.form in ("을", "를")) and len(phrases) == 1:
            where, thing = self._located(phrases[0])
            if where is not None:
                self.cur.places.append(("source", self._place(where)))  # "조제대 약병을": the bottle on the dispensing counter
                phrases = [thing]
        if self.heading is not None and len(phrases) == 1 and (particle is None or particle.tag in ("JKO", "JX")) and \
                (where := self._the_one_at(phrases[0])) is not None:
            self.cur.places.append(("source", self._place(where)))  # "선반 1 거는": the one on shelf 1
            thing = self.heading[0]  # which thing: the one the heading counts
            self.cur.inherited = list(self.heading[1])
            (self.cur.topics if particle is not None and particle.form in ("은", "는") else self.cur.objects).append(thing)
            return
        if particle is None or particle.tag in ("JKO",) or particle.form in ("을", "를"):
            self.cur.objects.extend(self._object(p) for p in phrases)
            return
        if particle.tag == "JX" and particle.form in ("은", "는"):
            self.cur.topics.extend(self._object(p) for p in phrases)
            return
        if particle.tag == "JX" and particle.form in ("도", "만", "부터", "마저", "까지도"):
            if particle.form == "부터":
                self.cur.order = "first"  # "뚜껑부터": the lid first
            self.cur.objects.extend(self._object(p) for p in phrases)
            return
        if particle.tag == "JKS":
            self.cur.subjects.extend(self._object(p) for p in phrases)
            return
        role = self.v.ko_particles.get(particle.form)
        if particle.tag == "JKG":
            # "A 랙의 샘플 튜브": the place the thing belongs to is where it is taken from
            self.cur.places.extend(("source", self._place(p)) for p in phrases if self._is_place(p))
            return
        if role is None:
            return
        for p in phrases:
            if role == "goal" and particle.form in ("로", "으로") and not self._is_place(p):
                obj = self._object(p)
                if obj.noun in self.v.object_classes:
                    self.cur.places.append(("instrument", self._place(p)))  # "카메라로 검사해": with the camera
                    continue
            place = self._place(p)
            if role == "recipient" and place.kind != "operator":
                # "큐레이터에게": 에게/한테 mark a person, whatever the noun sounds like ("큐레이터" is no crate)
                place = replace(place, kind="operator", key="operator", obj=None)
            self.cur.places.append((role, place))

    def _robots_own(self, place: PlaceRef) -> bool:
        """A place that names the robot or its tool ("그리퍼", "로봇", "gripper")."""
        nouns = [w.lower() for w in place.words] + ([place.obj.noun] if place.obj is not None else [])
        return any(w in _SELF or w in ROBOT_PARTS or self.v.ko_objects.get(w) in ROBOT_PARTS for w in nouns)

    def _predicate(self, i: int) -> int:
        m, n = self.m, len(self.m)
        mo = m[i]
        stem = mo.form
        j = i + 1
        adjectival = False
        english = self._english_verb(i) if mo.tag == "SL" else None
        if english is not None:
            if m[english[1] - 1].tag == "MAG":
                self._adverb(english[1] - 1)
            stem, j = self.text[mo.start:m[english[1] - 1].end], english[1] + 1
        elif mo.tag in ("NNG", "NNP") and (i + 1 == n or m[i + 1].tag in ("SF", "SP", "SE")):
            self._flush(self.v.ko_actions.get(stem), stem, mo.end)  # "B 위치로 이동"
            return i + 1
        if mo.tag in ("NNG", "NNP"):
            # "필요해요": a state, not an action (unless Kiwi tagged an action noun's 하 as XSA: "반납하고")
            adjectival = m[i + 1].tag == "XSA" and stem not in self.v.ko_actions
            j = i + 2  # 이동/NNG 하/XSV
            if m[i + 1].form == "하고":
                action = self.v.ko_actions.get(stem)
                self._flush(action, stem, m[i + 1].end)
                return j
        action = english[0] if english is not None else None if adjectival else self.v.ko_actions.get(stem)
        if action is None and stem in _LIGHT_STEMS:
            action = self._action_noun()
        if stem in ("가지", "갖") and j + 1 < n and m[j].form in ("어다", "다", "아다", "어") and m[j + 1].form in ("주", "놓", "두", "오", "가"):
            action = "place" if m[j + 1].form in ("놓", "두") else "transfer"  # 가져다 주다, 갖다 놓다, 가져오다
            j += 2
        negated = False
        order = None
        past = state = False
        asked = stem in _LIGHT_STEMS and stem != "하"  # "천천히 부탁해요": a request with no verb of its own
        end = m[j - 1].end
        while j < n:
            x = m[j]
            if x.tag == "EC" and x.form in ("어도", "아도", "여도", "도") and j + 1 < n and m[j + 1].form in ("되", "괜찮") and \
                    self.cur.empty() and any(c.action is not None and not c.negated for c in self.out):
                # "(복사본이라) 버려도 돼": leave to do what was asked before — a permission, no task of its own
                k = j + 2
                while k < n and m[k].tag in ("EF", "EP", "EC", "VX", "JX"):
                    k += 1
                self._fact(m[k - 1].end)
                return k
            if x.tag == "EC" and x.form == "지" and j + 1 < n and m[j + 1].form in ("말", "않", "마"):
                negated = True
                j += 2
                continue
            if x.tag == "EC" and x.form in ("면", "으면") and j + 2 < n and m[j + 1].form == "안" and m[j + 2].form == "되":
                negated = True  # "B급 카트로 보내면 안 돼요": it must not go there
                j += 3
                continue
            if x.tag in ("EC", "EP") and x.form in ("어", "아", "어다", "아다", "다", "어서") and j + 1 < n and (
                    m[j + 1].tag == "VX" or self._benefactive(x, m[j + 1], action)):
                aux = m[j + 1].form
                if aux == "있":
                    action = None  # "물이 들어 있으니까": a state
                    state = True
                elif aux in _AUX_PLACE and stem in _PLACE_STEMS:
                    action = "place"
                elif aux in ("놓", "두") and action == "pick":
                    action = "place"  # "빼 놔", "꺼내 둬": take it out and leave it (where the 에 place says)
                elif aux in ("오", "가") and stem in ("가지", "갖"):
                    action = "transfer"
                elif aux in ("말", "않"):
                    negated = True
                elif aux in ("두", "놓") and stem in self.v.constructions.ko_keep_empty:
                    action, negated = "place", True  # "위 칸은 비워 둬": keep it empty — put nothing there
                    kept = [o for o in self.cur.topics + self.cur.objects if self._names_place(o)]
                    self.cur.places += [("location", self._as_place(o)) for o in kept]  # the place named as the topic
                    self.cur.topics = [o for o in self.cur.topics if o not in kept]
                    self.cur.objects = [o for o in self.cur.objects if o not in kept]
                asked = asked or aux == "주"  # "다뤄 주세요": asked of the robot
                j += 2
                continue
            if x.tag in ("VX", "EP", "XSV", "XSA"):
                past = past or x.tag == "EP" and x.form in _PAST
                j += 1
                continue
            if x.tag == "EC" and x.form in ("어", "아") and j + 1 < n and m[j + 1].tag == "VV" and self.v.ko_actions.get(m[j + 1].form) in (
                    "insert", "place", "stack") and action in ("insert", "place", "stack", "transfer", None):
                action = self.v.ko_actions[m[j + 1].form]  # "끼워 넣어", "올려 쌓아": one action
                j += 2
                continue
            if x.tag == "ETM" and j + 1 < n and m[j + 1].form in _ORDER_NOUNS:
                order = _ORDER_NOUNS[m[j + 1].form]
                j += 2
                if j < n and m[j].tag.startswith("J"):
                    j += 1
                break
            if x.tag == "ETN" and j + 2 < n and m[j + 1].form == "전":
                order = "before-lead"
                j += 2
                if j < n and m[j].tag.startswith("J"):
                    j += 1
                break
            if x.tag == "ETM":
                # a relative clause ("A에 있는 사과", "옮길 상자"): the clause goes on; where the object is, is its source
                if stem in _LOCATIVE_STEMS and self._relative_locates_place(j):
                    # "화분은 흙 통 옆에 있는 작업대에다 둬": where the place the thing goes is, a landmark — no source
                    k = max(i for i, (role, _) in enumerate(self.cur.places) if role == "location")
                    del self.cur.places[k]
                elif stem in ("있", "놓이", "담기", "두", "놓") or state and not (negated or self.cur.negated):
                    # ("걸려 있는", "꽂혀 있는": a state with 있 says where the thing is, as 있는 alone does)
                    self.cur.places = [("source" if role == "location" else role, p) for role, p in self.cur.places]
                    self.cur.located = True
                else:
                    self._relative_arguments(mo.start)
                return j + 1
            if x.tag == "EC" and x.form in ("게", "도록", "려고", "러", "으려고", "으러"):
                # "검사하게 ... 가져다 주세요", "작업자가 검사할 수 있게": the purpose, not a task of the robot; its subject and
                # the dependent nouns of "-ㄹ 수 있게" are no objects
                self.cur.subjects = []
                self.cur.objects = [o for o in self.cur.objects if o.text not in _DEPENDENT_NOUNS]
                return j + 1
            if x.tag in ("EC", "EF") and past and (x.tag == "EF" or x.form in _REASON_ENDINGS):
                # "어제는 파란 큐브를 2번 통에 넣었어": what was done, not what to do (but "갔다가" still asks)
                self.out.append(Clause(None, stem, self.cur.start or 0, x.end, fact=True))
                self.cur = _Clause()
                return j + 1
            if x.tag in ("EC", "EF"):
                end = x.end
                j += 1
                if x.form in ("고", "며", "면서") and j < n and m[j].form in ("나", "난") and j + 1 < n:
                    j += 2  # "-고 나서"
                    order = order or "sequence"
                elif x.form in _THEN_ENDINGS:
                    order = order or "sequence"  # "A에 갔다가 B로", "집고서": the next clause comes after this one
                break
            break
        if action is None and mo.tag == "VV" and not (negated or self.cur.negated or state) and stem not in _LEAVE_STEMS | {"있", "되", "하"} \
                and any(role in ("goal", "location") for role, _ in self.cur.places) and \
                not (self.cur.objects or self.cur.topics) and self.out and self.out[-1].action == "pick" and not self.out[-1].negated \
                and not any(role == "goal" for role, _ in self.out[-1].places):
            # "블랭크를 집어서 CNC 바이스에 물려 주세요": after a pick, a verb the vocabulary lacks with only a place completes it
            action = "place"
        if stem in _LEAVE_STEMS and not self.cur.negated and any(role == "recipient" for role, _ in self.cur.places):
            action = "handover"  # "소포를 기사님한테 두고 와": leave it with someone, a hand-over, not leaving it alone
        elif stem in _LEAVE_STEMS and (self.cur.negated or not any(role in ("goal", "location") for role, _ in self.cur.places)):
            action = None  # "그대로 두고", "가만히 둬", "파란 큐브는 놔두고": leave it where it is
            self.cur.negated = True
        if action is None and stem in ("있",):
            self._fact(end)
            return j
        if action is None and state and not (negated or self.cur.negated) and m[j - 1].tag == "EF":
            # "둘 다 탈수기에 들어 있어", "랙에 꽂혀 있어요": a state with 있 said as a sentence of its own says where the thing
            # is, as 있다 alone does ("머그컵에 물 들어 있으니까 …" gives a reason, no source)
            self.cur.places = [("location" if role == "goal" else role, p) for role, p in self.cur.places]
            self._fact(end)
            return j
        if action is None and stem in _DONE_STEMS and self.cur.empty() and not negated and self.out and self.out[-1].action in WORK:
            # "가접하고 끝나면 반납해", "검사 마치고": when the work before is done — the next clause comes after it (after a
            # transfer it stays context: what follows may carry the same thing on)
            self.next_order = "sequence"
            self.out.append(Clause(None, stem, self.cur.start or 0, end, fact=True))
            self.cur = _Clause()
            return j
        if action is None and not (negated or self.cur.negated or self.cur.excluded) and \
                any(role == "goal" for role, _ in self.cur.places):
            # a verb the vocabulary lacks with where something goes ("…에서 매장으로 내보내 주세요"): a request the
            # reader cannot place — said so (unread), never dropped as context
            self.out.append(Clause(None, stem, self.cur.start or 0, end, tuple(self.cur.topics + self.cur.objects),
                                   tuple(self.cur.places)))
            self.cur = _Clause()
            return j
        if action is None and stem in self.v.constructions.ko_via and not negated and \
                (self._via_parts() is not None or self._place_passed() is not None):
            self._flush(None, stem, end, order_after=order)  # "분석기 거쳐서": a stop on the thing's way (`_carried_via`)
            return j
        if action is None and not (negated or self.cur.negated or self.cur.excluded) and \
                not ((stem in self.v.constructions.ko_swap or self.cur.swapped) and not self.cur.empty()):
            # a verb that asks the robot for nothing ("컨베이어는 멈춰 있어요"): context; asked of the robot with a manner
            # ("아주 조심스럽게 다뤄 주십시오", "천천히 부탁해요"), how the task is done ("컨베이어는 천천히 움직여요" is not)
            self.out.append(Clause(None, stem, self.cur.start or 0, end, manner=tuple(self.cur.manner) if asked else (), fact=True))
            self.cur = _Clause()
            return j
        self._flush(action, stem, end, negated=negated or (self.cur.negated and action is None), order_after=order)
        return j

    def _benefactive(self, connective: Morph, give: Morph, action: str | None) -> bool:
        """"B로 가져와줘": Kiwi may tag the 주 of -어 주다 as a verb of its own (give), but after a carrying verb whose clause
        already says where the thing goes, it only asks the favour — no hand-over to the speaker. Without a goal ("가져와줘")
        the giving stays a verb."""
        return give.form == "주" and give.tag == "VV" and connective.form in ("어", "아") and \
            action in _CARRIES and action != "handover" and any(role == "goal" for role, _ in self.cur.places)

    def _action_noun(self) -> str | None:
        """The action a light verb's object names ("가접", "inspect"), taken out of the objects; None when it names none."""
        for group in (self.cur.objects, self.cur.topics):
            if group and group[-1].noun is None or not group:
                continue
            rest, _, word = group[-1].text.strip().rpartition(" ")
            front, _, last = rest.rpartition(" ")
            if last and f"{last} {word}" in self.v.ko_actions:
                rest, word = front, f"{last} {word}"  # "나사 체결": one action of two words, no screw to carry
            action = self.v.ko_actions.get(word) or self.v.en_actions.get(verb_lemma(word.lower()))
            if action is not None:
                group.pop()
                if rest:  # "3번 위치 용접 좀 부탁드립니다": where to do it, written before the action noun
                    where = _Phrase(list(korean_morphs(rest)), rest)
                    if self._is_place(where):
                        self.cur.places.append(("location", self._place(where)))
                    else:
                        group.append(self._object(where))  # "담요 하나 전달 부탁드립니다": what to hand over
                return action
        return None

    def _relative_arguments(self, verb_start: int) -> None:
        """"검사 끝난 PCB", "불량이 난 부품": the subject of a relative clause (with 이/가, or bare right before its verb)
        says which thing is meant; it is no object of the clause's own verb."""
        self.cur.subjects = []
        bare = self.cur.bare
        if bare is not None and self.cur.objects and self.cur.objects[-1] is bare[0] and not self.text[bare[1]:verb_start].strip():
            self.cur.objects.pop()
        self.cur.bare = None

    def _gapped_place(self) -> bool:
        """Is the clause's last object a place named bare right before a comma (its particle left to the next conjunct)?"""
        bare = self.cur.bare
        if bare is None or not self.cur.objects or self.cur.objects[-1] is not bare[0]:
            return False
        return self._is_place(_Phrase(list(korean_morphs(bare[0].text)), bare[0].text)) or self._designated_container(bare[0])

    def _topic_follows(self, i: int) -> bool:
        """Does a noun phrase marked as a topic (은/는) start at morph `i`?"""
        m = self.m
        while i < len(m) and (m[i].tag in _NOMINAL or m[i].tag == "MM"):
            i += 1
        return i < len(m) and m[i].tag == "JX" and m[i].form in ("은", "는")

    def _fact(self, end: int) -> None:
        segments, self.segments = self.segments, []
        gathered = self._gathered(segments)
        for segment, segment_end in segments:
            if gathered:
                segment.places += [(role, p) for role, p in self.cur.places if role in ("goal", "location")]
            current, self.cur = self.cur, segment
            self._fact_clause(segment_end, alone=False)
            self.cur = current
        self._fact_clause(end, alone=not segments)

    def _fact_clause(self, end: int, alone: bool) -> None:
        cur = self.cur
        objects = cur.subjects + cur.topics + cur.objects
        loc = [(r, p) for r, p in cur.places if r in ("location", "source")]
        if loc and not objects and alone:
            objects = [ObjectRef("", None, pronoun=True)]  # "지금 뚜껑 스테이션에 있어요": it (the thing just named) is there
        if objects and loc:
            self.out.append(Clause(None, "", cur.start or 0, end, tuple(objects), tuple(loc), fact=True))
        else:
            self.out.append(Clause(None, "", cur.start or 0, end, fact=True))
        self.cur = _Clause()

    def _flush(self, action: str | None, stem: str, end: int, negated: bool = False, order_after: str | None = None) -> None:
        segments, self.segments = self.segments, []
        gathered = self._gathered(segments)
        for segment, segment_end in segments:
            if gathered:
                segment.places += [(role, p) for role, p in self.cur.places if role in ("goal", "location")]
            current, self.cur = self.cur, segment
            if (action is None or negated) and stem in _LEAVE_STEMS and any(role == "goal" for role, _ in segment.places):
                self._flush_clause(None, "", segment_end)  # "cardboard는 baler chute로, PET bottle은 그대로 둬": that one goes
            else:
                self._flush_clause(action, stem, segment_end, negated)
            self.cur = current
        if gathered:
            self.next_order = "sequence" if order_after == "sequence" else None
            self.cur = _Clause()  # its things were the parts before, each now with the place
            return
        if action is None and not negated and not self.cur.negated and stem == "" and self.cur.places and \
                all(role == "source" for role, _ in self.cur.places) and (work := self._work_noun()) is not None:
            action, stem = work  # "camera inspection도 Pos_2에서", "검사도 Pos_2에서": the work, done there too
        self._flush_clause(action, stem, end, negated, order_after)

    def _work_noun(self) -> tuple[str, str] | None:
        """A clause with no verb whose only thing is a noun of work, the tool doing it before it ("camera inspection도",
        "검사도", "카메라 검사도"): (the work, its noun); the noun is no thing to carry. None otherwise."""
        things = self.cur.objects + self.cur.topics
        if len(things) != 1 or things[0].noun is None:
            return None
        *tools, word = things[0].text.split()
        low = word.lower()
        action = self.v.ko_actions.get(word) or self.v.en_actions.get(verb_lemma(low)) or \
            self.v.en_actions.get(low.removesuffix("ion") if low.endswith("ction") else low)  # "inspection": inspect
        if action not in WORK or any(noun_lemma(t.lower()) not in self.v.constructions.tools and
                                     self.v.ko_objects.get(t) not in self.v.constructions.tools for t in tools):
            return None
        self.cur.places = [("location", p) for _, p in self.cur.places]
        self.cur.objects, self.cur.topics = [], []
        return action, word

    def _put_first(self, obj: ObjectRef) -> bool:
        """Make the one task before that carries a thing of this noun the first of the tasks; False when none or several."""
        tasks = [k for k, c in enumerate(self.out) if c.action in _CARRIES | {"pick"} and not c.negated and not c.fact]
        named = [k for k in tasks if obj.noun is not None and any(o.noun == obj.noun for o in self.out[k].objects)]
        if len(named) != 1:
            return False
        clause = replace(self.out.pop(named[0]), order="first")
        self.out.insert(tasks[0], clause)
        return True

    def _afterthought(self, before: Clause | None) -> bool:
        """Is the clause being closed a thing alone (no verb, no place) right after a carrying request that named none ("…에
        올려, 그 깍두기 트레이")? Then it is that request's object, said last."""
        cur = self.cur
        if before is None or not self.out or self.out[-1] is not before or before.objects or before.negated or \
                before.action not in _CARRIES or len(cur.objects) != 1 or cur.topics or cur.places or cur.excluded or cur.excluded_places:
            return False
        obj = cur.objects[0]
        # (a word that may name a place, "트레이", is the thing when the request already says where it goes)
        return obj.noun is not None and not obj.generic and not obj.pronoun and (
            not self._names_place(obj) or any(role in ("goal", "location") for role, _ in before.places))

    def _gathered(self, segments: list[tuple[_Clause, int]]) -> bool:
        """"1번 선반에서 샘플 병, 2번 선반에서 라벨 롤, 둘 다 쟁반에 놔": the last part names no thing of its own but all those
        before ("둘 다", "모두", "전부"), each of which has a thing and no goal — the place is each one's."""
        cur = self.cur
        return bool(segments) and bool(cur.objects) and all(o.generic and o.noun is None and o.count not in (None, 0) for o in cur.objects) \
            and not cur.topics and any(role in ("goal", "location") for role, _ in cur.places) and \
            all((seg.objects or seg.topics) and not any(role in ("goal", "location") for role, _ in seg.places) for seg, _ in segments)

    def _flush_clause(self, action: str | None, stem: str, end: int, negated: bool = False, order_after: str | None = None) -> None:
        cur = self.cur
        if cur.inherited and not any(role in ("goal", "location") for role, _ in cur.places):
            cur.places += cur.inherited  # "…랙으로: 뚜껑 체결대 거 먼저": the heading's goal
        if cur.start is None or (action is None and cur.empty() and not stem):
            self.cur = _Clause()
            return
        if cur.coordinated:
            cur.objects.extend(self._object(p) for p in cur.coordinated)
        if stem and cur.objects and f"{cur.objects[-1].text.strip()} {stem}" in self.v.ko_actions:
            cur.objects.pop()  # "나사 체결해": one action of two words, no screw to carry
        elif action in WORK and stem and cur.bare is not None and cur.objects and cur.objects[-1] is cur.bare[0] and cur.places and \
                cur.bare[0].noun not in self.v.object_classes and self.text[cur.bare[1]:].lstrip().startswith(stem) and \
                not self._is_place(_Phrase(list(korean_morphs(cur.bare[0].text)), cur.bare[0].text)):
            cur.objects.pop()  # "렌즈미터로 도수 확인하고": what is measured, written into the action noun, no thing to carry
        order = cur.order or self.next_order
        if order_after == "before-lead":
            order = "before-lead"
        self.next_order = "sequence" if order_after == "sequence" else None
        negated = negated or cur.negated
        if negated and stem in self.v.constructions.ko_via and (cur.objects or cur.places or any(map(self._names_place, cur.topics))):
            # "봉투는 포장기 거치지 말고 …로 보내", "초밥은 토치 안 거치고 …": what is passed is ruled out — a place, or a tool
            # the vocabulary knows as a thing — never the topic, which is the next verb's thing; with nothing else named,
            # a place as the topic is the place passed ("그런데 건조기는 거치지 마"), and nothing of the clause before
            passed = [o for o in cur.objects if self._names_place(o)] or \
                ([] if cur.places else [o for o in cur.objects[-1:] if o.noun not in self.v.object_classes]) or \
                ([] if cur.places or cur.objects else [o for o in cur.topics if self._names_place(o)])
            tools = [] if passed or cur.places else cur.objects[-1:]  # "토치 안 거치고": a tool station named by the tool
            self.pending_topics.extend(o for o in cur.topics + cur.objects if o not in passed and o not in tools)
            self.out.append(Clause(None, stem, cur.start, end, excluded=tuple(tools), order=order,
                                   excluded_places=tuple([self._as_place(o) for o in passed] + [p for _, p in cur.places])))
            self.cur = _Clause()
            return
        if stem in self.v.constructions.ko_via and not negated and action in (None, "move_to") and self._carried_via(order, end, action):
            return  # "탱크를 충전 스테이션에서 분석기 거쳐서 …": taken, shown on the way, carried on by the next clause
        if action == "move_to" and stem in _GO_STEMS and cur.topics and not negated and \
                not any(o.count == 0 or self._is_place(_Phrase(list(korean_morphs(o.text)), o.text)) for o in cur.topics):
            # "can은 capper 갔다가 labeller로": a thing as the topic of "go" is the thing that goes there, carried
            action = "transfer"
            cur.places.extend(("goal", self._as_place(o)) for o in cur.objects)
            cur.objects, cur.topics = cur.topics, []
        if action is None and not stem and not negated and cur.order == "first" and not cur.places and not cur.topics and \
                len(cur.objects) == 1 and self._put_first(cur.objects[0]):
            self.cur = _Clause()  # "병 먼저.", "병부터.": which of the things named before goes first, no task of its own
            return
        before = next((c for c in reversed(self.out) if c.action is not None), None)
        if action is None and not stem and not negated and self._topic_to_place():
            # "jar candle는 빨간 상자, travel tin은 파란 상자.": a topic and a place, nothing else — where the topic goes
            action = "transfer"
            cur.places = [("goal", p) for _, p in cur.places] + [("goal", self._as_place(o)) for o in cur.objects]
            cur.objects = []
        if action is None and not stem and not negated and all(o.text in ("거", "것") for o in cur.objects) and not cur.topics and \
                cur.places and all(role == "source" for role, _ in cur.places) and before is not None and before.action in _CARRIES:
            # "…에 올려놔. 1번 랙에 있는 거.", "…로 전달해줘, 왼쪽 트레이에 있는 거": the one that is there; "…로 옮겨. 목재
            # 카트에서.": from there — where the thing just named is, no second thing to carry
            where = tuple(("location", p) for role, p in cur.places if role == "source")
            # ("…에 꽂아줘. 1번 트레이 말고 3번 트레이에서.": the place ruled out stays ruled out)
            self.out.append(Clause(None, "", cur.start, end, (ObjectRef("", None, pronoun=True),), where, fact=True,
                                   excluded_places=tuple(cur.excluded_places)))
            self.cur = _Clause()
            return
        if action is None and not stem and not negated and self._afterthought(before):
            # "저온 창고 랙에 올려, 그 깍두기 트레이.": the thing, said after the request that lacked it, is its object
            self.out[-1] = replace(before, objects=(cur.objects[0],), end=end)
            self.cur = _Clause()
            return
        if action is None and not stem and before is not None and (cur.places or cur.objects):
            # A closing fragment without its verb: "홈으로" (go home); "B위치 먼저 가고 그다음에 A위치" (the verb before);
            # "…에 올려서 테이프 붙이고, 끝나면 left fixture로" (what was carried, on to there)
            if any(p.key == "home" for _, p in cur.places) or any(o.noun in ("홈", "원점") for o in cur.objects):
                action = "return_home"
            elif before.action in ("move_to", "transfer", "place", "insert"):
                action = before.action
            elif (before.action in WORK or before.action == "pick") and before.objects and not cur.objects and \
                    any(role == "goal" for role, _ in cur.places):
                action = "transfer"  # "DVD 케이스 RFID 찍고 4번 분류함으로": the thing just shown or taken, on to there
            elif not negated and len(cur.objects + cur.topics) == 1 and any(role == "goal" for role, _ in cur.places):
                action = "transfer"  # "…한테 주고, 그 다음 GPS module도 bin A에서 pickup tray로": a thing of its own, on to there
        elif action is None and not stem and not negated and len(cur.objects + cur.topics) == 1 and \
                any(role in ("goal", "source") or role == "location" and cur.order for role, _ in cur.places):
            action = "transfer"  # "빨간색 블록 A에서 B로", "와사비 종지 먼저 소스대에": the verb left out, the roles say it all
            cur.places = [("goal" if role == "location" else role, p) for role, p in cur.places]
        elif action is None and not stem and not negated and not (cur.objects or cur.topics) and \
                {"goal" if role == "instrument" else role for role, _ in cur.places} >= {"source", "goal"}:
            # (a 로 place after a 에서 one is where to, never a means: "… A통에서 UV 상자로")
            action = "transfer"  # "폴리백 투입 컨베이어에서 2번 슈트로": from one place to another, the thing written into the first
        elif action is None and not stem and not negated and not (cur.objects or cur.topics) and len(cur.places) == 1 and \
                cur.places[0][0] == "goal" and self._carrying(cur.places[0][1]).carried:
            action = "transfer"  # "가로대 왼쪽 지그로, …": a thing and where it goes, its particle left off
        if negated and action in (None, "touch") and stem not in _LEAVE_STEMS:
            # "위 선반은 건드리지 마", "3번 선반은 쓰지 마": a place told apart by a designator, not to be touched, is a place
            # ruled out (a thing left alone stays an object)
            ruled_out = [o for o in cur.topics + cur.objects if self._designated_place(o)]
            cur.excluded_places.extend(self._as_place(o) for o in ruled_out)
            cur.topics = [o for o in cur.topics if o not in ruled_out]
            cur.objects = [o for o in cur.objects if o not in ruled_out]
            if ruled_out and not (cur.topics or cur.objects):
                action = None  # nothing to be put there or taken from there, whatever the verb
        if negated and cur.topics:
            topics = cur.topics  # "병은 그대로 두고": the topic is what to leave alone
        elif cur.objects or action is None:
            self.pending_topics.extend(cur.topics)  # "케이블은 센서를 ... 놓은 다음에 2번 빈에 넣어": the later verb's object
            topics = []
        else:
            topics = cur.topics + self.pending_topics
            self.pending_topics = []
        subjects = cur.subjects if action is not None and not (cur.objects or topics) else []  # "작업자가 ... 큐브를 넣어": no object
        named = topics + cur.objects + subjects
        if action in ("place", "transfer", "insert") and cur.places and named and all(o.count == 0 and o.noun for o in named):
            action = "detach"  # "그리퍼는 다시 거치대에 갖다 두고요": the robot's own tool put back on its stand
        objects = [o if o.count != 0 else ObjectRef(o.text, o.noun) for o in named
                   if o.count != 0 or action in ("attach", "detach") and o.noun]
        # "카메라로": an instrument for work and tools, a container to put things in otherwise ("상자로 옮겨")
        # the robot's own hand is never where a thing goes ("그리퍼로 … 올려", "Gripper로"): it is how
        places = [(("goal" if action not in WORK and action not in ("attach", "detach") and not self._robots_own(p) else None)
                   if role == "instrument" else role, p) for role, p in cur.places]
        places = [(role, p) for role, p in places if role is not None]
        if action == "transfer" and stem in _MOVE_STEMS and objects and not any(role == "goal" for role, _ in places) and \
                all(self._is_place(_Phrase(list(korean_morphs(o.text)), o.text)) for o in objects):
            action = "move_to"  # "A, B 순서로 이동해": the places to go, not objects to carry
        if action in ("move_to", "return_home") and not negated:
            places += [("goal", self._as_place(o)) for o in objects]  # "B위치 가": the place to go
            places.sort(key=lambda rp: self.text.find(rp[1].text, cur.start or 0))  # in the order written
            objects = []
        elif action in WORK:
            places += [("location", self._as_place(o)) for o in objects if self._is_place(_Phrase(list(korean_morphs(o.text)), o.text))]
            objects = [o for o in objects if not self._is_place(_Phrase(list(korean_morphs(o.text)), o.text))]
        if action in _CARRIES and not objects and not negated:
            places = [(role, self._carrying(p)) if role in ("goal", "location", "source") else (role, p) for role, p in places]
        if (cur.swapped or stem in self.v.constructions.ko_swap) and action not in WORK and not negated and (objects or places):
            # an exchange of two things' places: no reading of it, said so (unread) rather than read as one move
            self.out.append(Clause(None, stem, cur.start, end, tuple(objects), tuple(places)))
        elif action is None and not negated and not cur.excluded and not cur.excluded_places and not objects and not places:
            self.out.append(Clause(None, stem, cur.start, end, manner=tuple(cur.manner)))
        else:
            self.out.append(Clause(action, stem, cur.start, end, tuple(objects), tuple(places), tuple(cur.excluded), negated,
                                   tuple(cur.manner), order, excluded_places=tuple(cur.excluded_places)))
        self.cur = _Clause()

    def _carried_via(self, order: str | None, end: int, action: str | None = None) -> bool:
        """"컵을 세척기에 들러서 선반에 올려", "tank를 fill station에서 O2 analyzer 거쳐서 tank rack에 세워줘": a verb of
        passing (`constructions.via`: 거치, 들르) with a thing (its object or topic, no place) and where it passes (a place
        with its particle, or the noun said bare right before the verb): the thing is taken — from the source the clause
        names — and held or shown there on its way (`_passing`); the next clause carries it on. Emits the
        clauses and says True; False (nothing emitted) when the clause is no such passing."""
        passed = self._place_passed() if action is None else None  # ("A에 들렀다가 B로 가": the robot's own way, visits)
        if passed is not None:
            self.out.append(self._passing(passed, end, order))
            self.cur = _Clause()
            return True
        parts = self._via_parts()
        if parts is None:
            return False
        thing, via, sources = parts
        self.out.append(Clause("pick", "", self.cur.start, end, (thing,), sources, order=order))
        self.out.append(self._passing(via, end, None))
        self.cur = _Clause()
        return True

    def _passing(self, place: PlaceRef, end: int, order: str | None) -> Clause:
        """The stop of a verb of passing: held or shown there on the way ("저울 거쳐서 rider한테": weighed, then handed
        over), whatever kind of place it is — passing is no setting down."""
        return Clause("inspect", "", self.cur.start, end, (ObjectRef("", None, pronoun=True),), (("location", place),), order=order)

    def _place_passed(self) -> PlaceRef | None:
        """"…에 넣기 전에 세척 통부터 거쳐", "건조기 들렀다가 …": a clause of passing that names one place and no thing — the
        thing named around it passes there on its way. None for any other clause."""
        cur = self.cur
        if cur.excluded or cur.excluded_places or cur.negated or cur.topics or len(cur.objects) + len(cur.places) != 1:
            return None
        if cur.objects:
            return self._as_place(cur.objects[0]) if self._names_place(cur.objects[0]) else None
        role, place = cur.places[0]
        return place if role in ("goal", "location") else None

    def _via_parts(self) -> tuple[ObjectRef, PlaceRef, tuple[tuple[str, PlaceRef], ...]] | None:
        """The thing, the place passed and the sources of a clause of passing (`_carried_via`), or None."""
        cur = self.cur
        things = cur.topics + cur.objects
        if not things or cur.excluded or cur.excluded_places or cur.negated or things[0].pronoun or \
                self._names_place(things[0]) and len(things) != 2:
            return None  # (a word that may name a place, "탱크", is the thing when another is passed: "탱크를 … 분석기 거쳐서")
        thing, rest = things[0], things[1:]
        via = [p for role, p in cur.places if role in ("goal", "location")] + [self._as_place(o) for o in rest]
        if len(via) != 1 or len(rest) > 1 or rest and not (cur.bare is not None and cur.bare[0] is rest[0] or self._names_place(rest[0])):
            return None
        return thing, via[0], tuple((role, p) for role, p in cur.places if role == "source")

    def _designated_place(self, obj: ObjectRef) -> bool:
        """Does a noun read as a thing name a place of a known kind with a label, side or colour ("위 선반", "3번 선반")?"""
        if obj.noun in self.v.object_classes or not self._names_place(obj):
            return False
        place = self._as_place(obj)
        return place.kind in self.v.place_classes and place.kind != "position" and bool(place.label or place.side or place.color)

    def _topic_to_place(self) -> bool:
        """Is the clause, with no verb, one topic and one place named bare or left by a gapped list ("X는 1번 통, Y는 2번
        통.")? Nothing else: no source, no manner, no order, no ruled-out thing."""
        cur = self.cur
        if len(cur.topics) != 1 or cur.excluded or cur.excluded_places or cur.manner or cur.order or cur.subjects:
            return False
        if not cur.places and len(cur.objects) == 1:
            return self._designated_place(cur.objects[0]) or self._designated_container(cur.objects[0])
        return not cur.objects and len(cur.places) == 1 and cur.places[0][0] == "location" and bool(
            cur.places[0][1].label or cur.places[0][1].side or cur.places[0][1].color)

    def _designated_container(self, obj: ObjectRef) -> bool:
        """Does a noun read as a thing name a container told apart by a label, side or colour ("빨간 상자", "2번 박스"):
        where a thing is put when a topic stands before it ("X는 빨간 상자, Y는 파란 상자")?"""
        place = self._as_place(obj)
        return (place.kind or "").startswith("container:") and bool(place.label or place.side or place.color)

    def _chooses(self) -> bool:
        """Is the clause so far, with no verb, a choice between two steps said of its topic ("vase는 cure 말고 wash 먼저",
        "꽃병은 건조 말고 세척부터")? A topic, one thing ruled out and one bare word that the vocabulary knows as no thing,
        no place named."""
        cur = self.cur
        if not (cur.topics and len(cur.excluded) == 1 and len(cur.objects) == 1 and not cur.places and not self.segments):
            return False
        chosen = cur.objects[0]
        word = chosen.text.split()[-1] if chosen.text.split() else ""
        known = self.v.en_objects.get(noun_lemma(word.lower())) or self.v.ko_objects.get(word)
        return not known and chosen.noun not in self.v.object_classes and not self._names_place(chosen)

    def _names_place(self, obj: ObjectRef) -> bool:
        """Does a noun read as a thing (a topic, an object) name a place ("포장기", "건조기")?"""
        return self._is_place(_Phrase(list(korean_morphs(obj.text)), obj.text))

    def _carrying(self, place: PlaceRef) -> PlaceRef:
        """A place of a carrying clause without an object, written as several Hangul words ("미소국 그릇 패스 창구로
        전달해"): its leading words may be the thing's, the particle left off (`PlaceRef.carried`). Nothing was fetched
        before, or the thing would be that one."""
        words = place.text.split()
        if len(words) < 2 or self._fetched() or not all(has_hangul(w) for w in words):
            return place
        lead = []
        for word in words[:-1]:
            if word in self.v.ko_sides or word in self.v.ko_qualifiers or word in self.v.ko_colors or word in _LEVELS or \
                    any(c.isdigit() for c in word):
                break  # "왼쪽 지그", "출고 상자", "3번 통", "파란 카트": the place's own words from here
            lead.append(word)
        return replace(place, carried=tuple(lead)) if lead else place

    # ------------------------------------------------------------------ meanings
    def _words(self, phrase: _Phrase) -> list[tuple[str, list[Morph]]]:
        """The phrase's nominal words: contiguous morphemes joined ("유리"+"컵" -> 유리컵), with their morphemes."""
        words: list[tuple[str, list[Morph]]] = []
        for mo in phrase.morphs:
            if words and words[-1][1][-1].end == mo.start and mo.tag in _COMPOUND and words[-1][1][-1].tag in _COMPOUND:
                words[-1] = (words[-1][0] + mo.form, words[-1][1] + [mo])
            else:
                words.append((mo.form, [mo]))
        return words

    def _is_place(self, phrase: _Phrase) -> bool:
        words = [w for w, _ in self._words(phrase)]
        return bool(_LABEL.search(phrase.text)) or any(self.v.ko_places.get(w) or self.v.en_places.get(w.lower()) or borrowed(w, self.v)[1]
                                                       or _compound_place(w, self.v)
                                                       for w in words) \
            or any(m.tag == "SN" for m in phrase.morphs) or bool(words) and _suffix_kind(words[-1]) is not None \
            and words[-1] not in self.v.ko_objects  # "용접기 말고": a known tool, not a place because of its 기

    def _object(self, phrase: _Phrase) -> ObjectRef:
        v = self.v
        color = size = material = None
        count = ordinal = None
        nouns: list[str] = []
        generic = pronoun = False
        morphs = phrase.morphs
        for k, mo in enumerate(morphs):
            nxt = morphs[k + 1].form if k + 1 < len(morphs) else ""
            if mo.tag == "VA":
                color = color or v.ko_colors.get(mo.form)
                size = size or v.ko_sizes.get(mo.form)
            elif _ordinal(morphs, k, v) is not None:
                ordinal = _ordinal(morphs, k, v)
            elif mo.tag in ("MM", "NR", "SN") and (nxt in _COUNTERS or mo.form in v.numbers):
                count = v.numbers.get(mo.form) or (int(mo.form) if mo.form.isdigit() else None)
            elif mo.form in ("모든", "전부", "모두"):
                count = -1
        words = []
        for word, parts in self._words(phrase):
            known = word in v.ko_objects or word in v.ko_places or word in v.ko_colors or word in v.ko_generic or word in v.ko_materials
            modifiers = [p.form for p in parts[:-1]]
            if len(parts) > 1 and not known and all(f in v.ko_materials or f in v.ko_colors or f in v.ko_sizes for f in modifiers):
                words += [(p.form, [p]) for p in parts]  # "플라스틱부품" written as one word: plastic + part (not "계란판")
            else:
                words.append((word, parts))
        for word, parts in words:
            if parts[0].tag not in ("NNG", "NNP", "NP", "SL", "XSN", "XPN") or word in _RELATIONAL or word in ("번째", "째", "번") or word in _COUNTERS and nouns and _counted(morphs, parts[0]):
                continue  # "사과 한 상자": a count; but "팔레트 위 상자" is a box
            if word in v.ko_colors:
                color = color or v.ko_colors[word]
                continue
            nouns.append(word)
        if not nouns:
            return ObjectRef(phrase.text, None, color, material, size, ordinal, count, generic=True)
        head = nouns[-1]
        for mod in nouns[:-1]:
            material = material or v.ko_materials.get(mod)
            color = color or v.ko_colors.get(mod)
        if head in _SELF:
            # the robot itself (count 0: dropped), unless a tool is attached or released ("그리퍼를 장착")
            return ObjectRef(phrase.text, v.ko_objects.get(head), generic=head not in v.ko_objects, pronoun=False, count=0)
        if head in v.ko_pronouns:
            return ObjectRef(phrase.text, None, pronoun=True)
        if head in v.ko_qualifiers:
            return ObjectRef(phrase.text, None, color, material, size, ordinal, count, generic=True)  # "투입 컨베이어": which one
        if head in v.ko_generic or len(nouns) == 1 and head.isascii() and noun_lemma(head.lower()) in v.en_generic:  # "feeder에서 part 집어서"
            return ObjectRef(phrase.text, None, color, material, size, ordinal, -1 if head in ("나머지", "전부", "모두") else count, generic=True)
        cls = v.ko_objects.get(head) or v.en_objects.get(head.lower())
        if cls is None and len(nouns) > 1:
            cls = v.ko_objects.get("".join(nouns[-2:]))
        if cls is None and head not in v.ko_places:
            # "유리병", "약병": a compound written as one word whose last syllables are an object noun, its first a material
            cut = next((k for k in range(1, len(head)) if head[k:] in v.ko_objects and (head[:k] in v.ko_materials or head[:k] in v.ko_colors
                                                                                        or head[k:] in _OBJECT_SUFFIXES)), None)
            if cut is not None:
                cls = v.ko_objects[head[cut:]]
                material = material or v.ko_materials.get(head[:cut])
        if cls is None and head not in v.ko_places:
            cls = borrowed(head, v)[0] or borrowed(head, v)[1]  # "바이알": a vial, written as it sounds
        if cls is None and v.ko_places.get(head) not in (None, "position", "operator", "home"):
            cls = v.ko_places[head]  # "트레이는 움직이지 마": a place noun handled as a thing is named as the program names it
        if cls is None:
            cls = head.lower()
        words = tuple(w.lower() for w in nouns if w not in v.ko_materials and w not in v.ko_colors and w not in v.ko_sides)
        return ObjectRef(phrase.text, cls, color, material, size, ordinal, count, words=words)

    def _as_place(self, obj: ObjectRef) -> PlaceRef:
        morphs = korean_morphs(obj.text)
        return self._place(_Phrase(list(morphs), obj.text))

    def _back_where(self, phrase: _Phrase) -> bool:
        """Does the phrase, with the adverb or relative clause before it, say where the thing was ("원래 자리", "제자리",
        "있던 곳": `constructions.back_where`)? The place is named elsewhere or not at all."""
        said = " ".join(self.text[max(0, phrase.morphs[0].start - 8):phrase.morphs[-1].end].split())
        return any(said == w or said.endswith(w) and not said[-len(w) - 1].isalnum() for w in self.v.constructions.ko_back_where)

    def _place(self, phrase: _Phrase) -> PlaceRef:
        v = self.v
        if [w for w, _ in self._words(phrase)] in (["거기"], ["그곳"], ["저기"], ["그쪽"]):
            return PlaceRef(phrase.text, "there", "there")  # "거기에": the place named before
        if self._back_where(phrase):
            return PlaceRef(phrase.text, ORIGIN, ORIGIN)  # "원래 자리로", "제자리에": where the thing was taken from
        labels = _LABEL.findall(phrase.text)
        number = None
        kind = side = None
        nouns: list[str] = []
        morphs = phrase.morphs
        for k, mo in enumerate(morphs):
            counts = k + 1 < len(morphs) and (morphs[k + 1].form == "번" or _counts_place(mo, morphs[k + 1], v))
            if mo.tag == "SN" and (counts or k > 0):
                number = mo.form
            elif number is None and _ordinal(morphs, k, v) is not None:
                number = str(_ordinal(morphs, k, v))  # "세 번째 통": the third bin is bin 3
        phrase_words = self._words(phrase)
        for k, (word, parts) in enumerate(phrase_words):
            counter = parts[0].tag == "NNB" and any(_counts_place(m, parts[0], v) for m in morphs)  # "2단" (Kiwi: a bound noun)
            if word in _LEVELS and not nouns and k + 1 < len(phrase_words) and self._is_place(_Phrase(phrase_words[k + 1][1], "")):
                side = side or _LEVELS[word]  # "위 선반에서", "아래 선반으로": the upper, the lower shelf
                continue
            if word in _RELATIONAL and word in v.ko_sides and not nouns and k + 1 < len(phrase_words):
                side = side or v.ko_sides[word]  # "아래쪽 핀 서랍에": the lower pin drawer (after a noun, "선반 위쪽에": on it)
                continue
            if parts[0].tag not in ("NNG", "NNP", "NP", "SL", "XSN", "XPN") and not counter or word in _RELATIONAL:
                continue
            glued = glued_label(word, v) if parts[0].tag == "SL" else None
            if glued is not None:
                word, number = glued[0], glued[1]  # "bay1 cart에", "shelfB에": the place word and its label
            elif _LABEL.fullmatch(word):
                continue
            elif len(parts) > 1 and parts[0].tag == "SL" and _LABEL.fullmatch(parts[0].form) and \
                    (v.ko_places.get(word[len(parts[0].form):]) or _compound_place(word[len(parts[0].form):], v)):
                word = word[len(parts[0].form):]  # "A통에서", "B서랍": a label written onto the place noun (found above)
            side = side or v.ko_sides.get(word) or v.en_sides.get(word.lower())
            nouns.append(word)
        color = next((v.ko_colors.get(w) or v.en_colors.get(w.lower()) for w in nouns if w in v.ko_colors or w.lower() in v.en_colors), None) or \
            next((v.ko_colors[x.form] for x in morphs if x.tag == "VA" and x.form in v.ko_colors), None)  # "파란 카트", "green tray"
        words = tuple(w.lower() for w in nouns if w not in v.ko_colors and w not in v.ko_sides and w.lower() not in v.en_sides
                      and w.lower() not in v.en_colors)
        kind = v.ko_places.get(" ".join(nouns[-2:])) if len(nouns) > 1 else None
        classes = [v.ko_places.get(w) or v.en_places.get(w.lower()) or borrowed(w, v)[1] or _compound_place(w, v) for w in nouns]
        known = [k for k, c in enumerate(classes) if c not in (None, "position")]
        if not kind and known and any(_suffix_kind(w) for w in nouns[known[-1] + 1:]):
            kind = "position"  # "트레이 포팅기", "트레이 발아실 1단": the head is last, a place of no known kind; the tray modifies it
        kind = kind or next((c for c in reversed(classes) if c not in (None, "position")), None) or next((c for c in classes if c), None)
        kind = kind or (_suffix_kind(nouns[-1]) if nouns else None)
        if kind is None and nouns:
            obj = v.ko_objects.get(nouns[-1]) or borrowed(nouns[-1], v)[0]
            kind = f"container:{obj or nouns[-1]}" if not side else "position"
        labels = [x for x in labels if glued_label(x, v) is None]
        label = labels[-1] if labels else number
        coords = _COORDS.search(phrase.text)
        values = tuple(float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", coords.group(0))) if coords else None
        thing = self._object(phrase) if kind and kind.startswith("container:") else None
        return PlaceRef(phrase.text, place_key(kind, label, side, nouns[-1] if nouns else None), kind,
                        canon(label) if label else None, side, values, thing, color, words)


#: Object nouns that keep their meaning at the end of any compound ("약병", "페트병", "종이컵", "알루미늄캔").
_OBJECT_SUFFIXES = frozenset({"병", "컵", "캔"})
#: Suffixes that make a place of a noun of three syllables or more: 조리대, 세척대, 냉각대 (a stand, bench or rack), 재단기,
#: 세척기 (a machine), 발아실, 검사실 (a room). Which kind of stand, machine or room the suffix does not say, so the place is
#: named, but vague.
_PLACE_SUFFIXES = frozenset({"대", "기", "실"})


#: One-syllable place nouns that keep their kind at the end of a compound Kiwi does not split ("퇴비통", "부품함", "보관칸").
_PLACE_ENDINGS = frozenset({"통", "함", "칸"})


def _compound_place(word: str, v: Vocabulary) -> str | None:
    """The kind of a compound written as one word that ends in a place noun ("퇴비통": a bin), None otherwise."""
    return v.ko_places.get(word[-1]) if len(word) >= 3 and word[-1] in _PLACE_ENDINGS else None


def _suffix_kind(word: str) -> str | None:
    return "position" if len(word) >= 3 and word[-1] in _PLACE_SUFFIXES else None


def _counts_place(number: Morph, nxt: Morph, v: Vocabulary) -> bool:
    """A number written onto a place noun of one syllable numbers the place ("1단 서냉로": the annealer's first level,
    "2층 선반"), as 번 does ("2번 랙")."""
    return number.tag == "SN" and nxt.start == number.end and len(nxt.form) == 1 and v.ko_places.get(nxt.form) not in (None, "position")


def _counted(morphs: list[Morph], counter: Morph) -> bool:
    """Does a number stand right before this counter noun ("한 상자", "2 박스")?"""
    k = morphs.index(counter)
    return k > 0 and morphs[k - 1].tag in ("SN", "NR", "MM")


def _head(phrase: _Phrase) -> _Phrase:
    """The part of a noun phrase after its last relational noun ("팔레트 위 상자": 상자, the box that is on the pallet)."""
    cut = max((k for k, m in enumerate(phrase.morphs) if m.form in _RELATIONAL and 0 < k < len(phrase.morphs) - 1), default=None)
    if cut is None:
        return phrase
    rest = phrase.morphs[cut + 1:]
    return _Phrase(rest, phrase.text[rest[0].start - phrase.morphs[0].start:])


def _ordinal(morphs: list[Morph], k: int, v: Vocabulary) -> int | None:
    """"두 번째", "2번째", "셋째", "첫": the ordinal that starts at morpheme k."""
    mo = morphs[k]
    nxt = morphs[k + 1].form if k + 1 < len(morphs) else ""
    if mo.tag == "NR" and mo.form in v.ordinals:
        return v.ordinals[mo.form]
    if mo.tag in ("MM", "NR", "SN") and (nxt in ("번째", "째") or nxt == "번" and k + 2 < len(morphs) and morphs[k + 2].form == "째"):
        return v.ordinals.get(mo.form) or (int(mo.form) if mo.form.isdigit() else v.numbers.get(mo.form))
    return None
