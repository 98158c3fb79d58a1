"""Manner words no reader placed: "cart → designer's tray, quickly please", "프레스로 옮겨줘 — slowly, 풀이 안 말랐어".

The clause readers attach a manner word to the verb it modifies. Written after a route, behind a dash or in a heading
("살살 다뤄 줘: A → B"), it modifies no verb they read, and the request's "how" was lost. When the instruction carries one
thing only and nothing read a manner, an adverb of manner anywhere in it, not negated and not a permission ("빨리 해도
괜찮아요", "no need to hurry"), says how that thing is carried. Adjectives stay out ("a quick scan", "the slow conveyor"):
only adverbs, set phrases ("as quick as you can") and a bare "slow"/"fast"/"quick" that ends its clause count.
"""

from __future__ import annotations

import re

from plan_verifier.semantic.english_phrases import NEGATORS
from plan_verifier.semantic.language import english_tokens
from plan_verifier.semantic.vocabulary import Vocabulary, vocabulary

#: Words before an English manner word that take it back: the reader's negators, and "not too fast", "no need to hurry".
_EN_TAKEN_BACK = NEGATORS | {"too", "need", "needn't"}
#: Adjectives of manner that count only where they end their clause ("…, fast." but not "the fast conveyor").
_BARE = frozenset({"slow", "fast", "quick"})
#: Words after a bare adjective of manner that close its clause ("…, slow.", "fast please").
_EN_CLAUSE_END = frozenset({"please", "pls", "thanks", "now", "today"})
#: What after a Korean manner word negates it or makes it a permission ("빨리 하지 마", "빨리 해도 괜찮아요", "천천히 할
#: 필요는 없어", "천천히 안 해도 돼").
_KO_TAKEN_BACK = re.compile(r"^\S*\s*(?:\S+\s*)?(?:지\s*마|지\s*말|지\s*않|않게|안\s|도\s*돼|도\s*되|도\s*괜찮|면\s*안|필요\S*\s*없)")


def manner_said(text: str, language: str) -> tuple[tuple[str, str], ...]:
    """The manner the instruction's words say wherever they stand, as (kind, word); () when none or both slow and fast."""
    v = vocabulary()
    found = _english(text, v) + (_korean(text, v) if language != "en" else ())
    kinds = {kind for kind, _ in found}
    return found[:1] if len(kinds) == 1 else ()


def _english(text: str, v: Vocabulary) -> tuple[tuple[str, str], ...]:
    tokens = english_tokens(text)
    lows = [t.low for t in tokens]
    out = []
    for phrase, kind in v.en_manner_adverbs.items():
        words = phrase.split()
        for i in range(len(lows) - len(words) + 1):
            if lows[i:i + len(words)] != words or any(w in _EN_TAKEN_BACK for w in lows[max(0, i - 3):i]):
                continue
            after = tokens[i + len(words)] if i + len(words) < len(tokens) else None
            ends = after is None or after.kind == "punct" or after.low in _EN_CLAUSE_END
            if len(words) > 1 or phrase not in _BARE or ends:
                out.append((kind, " ".join(t.text for t in tokens[i:i + len(words)])))
    return tuple(out)


def _korean(text: str, v: Vocabulary) -> tuple[tuple[str, str], ...]:
    out = []
    for adverb, kind in v.ko_manner_adverbs.items():
        for m in re.finditer(re.escape(adverb), text):
            if not _KO_TAKEN_BACK.match(text[m.end():]):
                out.append((kind, adverb))
    return tuple(out)

