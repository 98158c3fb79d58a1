"""English sentences without an action verb that still say what to do, or where things are.

"Red cube into bin 2, thanks", "I'd like the cube in bin 2", "the bolts go in bin 2",
"The red cube is in bin 3": the verbless requests, wishes, declaratives of where
a thing goes and statements of where it is. The clause reader (`english.py`)
hands a sentence here when it finds no clause head in it.
"""

from __future__ import annotations

from plan_verifier.semantic.clauses import Clause, ObjectRef, PlaceRef
from plan_verifier.semantic.english_phrases import COURTESY, EXCEPT, Phrases, is_past

#: A wish for a state ("I'd like the cube in bin 2", "I need it moved"): the speaker, and the verbs of wanting.
_WISH = frozenset({"i", "we", "i'd", "we'd", "like", "need", "want", "would", "wanna", "love"})
_BE = frozenset({"be", "sit", "lie", "rest", "stand", "stay", "remain", "belong"})


class Constructions(Phrases):
    """Sentences without a clause head: requests without a verb, wishes, declaratives, facts."""

    def _fact_or_context(self, start: int, end: int) -> Clause:
        """A sentence without an action: "the red cube is in bin 3" says where an object is, "the bolts go in bin 2"
        (a declarative of where things belong) is a transfer, anything else is context."""
        t = self.t[start:end]
        if t and t[0].low in ("it's", "they're", "its"):
            # "It's in the crate.", "It's sitting in rack A right now": where the thing named before is
            k = start + 1
            while k < end and self.t[k].low in ("sitting", "lying", "standing", "resting", "currently", "now", "still", "already", "right"):
                k += 1
            prep = self._preposition(k, end)
            place = self._noun_phrase(k + prep[1], end)[0] if prep is not None and prep[0] in ("location", "source") else None
            if place is not None:
                return Clause(None, "", t[0].start, t[-1].end, (ObjectRef(t[0].text, None, pronoun=True),),
                              (("location", self._place(place)),), fact=True)
        be = next((i for i, tok in enumerate(t) if tok.verb in ("be", "sit", "lie", "rest", "stand", "go", "belong", "stay", "remain")
                   or tok.low in ("'s", "is", "are")), None)
        if be is not None and be > 0:
            order = None
            while start < end - 1 and be > 1 and (self.t[start].low in ("today", "now", "tonight", "tomorrow", "also", "could", "can", "would",
                                                                        "will", ",") or self.t[start].low in self.v.en_sequence
                                                  or self.t[start].low == "after" and self.t[start + 1].low == "that" or
                                                  self.t[start].low == "that" and start > 0 and self.t[start - 1].low == "after"):
                if self.t[start].low in self.v.en_sequence or self.t[start].low == "that":
                    order = "sequence"  # "After that, the box goes ...": this comes next
                start, be, t = start + 1, be - 1, t[1:]  # "today the fan module goes ...": when, not what
            np, _ = self._noun_phrase(start, start + be)
            k = start + be + 1
            while k < end and self.t[k].low in ("all", "both", "each", "should", "must", "now", "also", "too", "already", "still", "currently", "usually"):
                k += 1
            prep = self._preposition(k, end) if k < end else None
            if np is not None and prep is not None and prep[0] in ("location", "source", "goal"):
                place, _ = self._noun_phrase(k + prep[1], end)
                if place is not None and all(t.kind != "word" or not is_past(t) for t in self.t[start:start + be]):
                    subject = self._subject(start, start + be)
                    objects = tuple(o for o in subject if isinstance(o, ObjectRef))
                    where = tuple(("source", p) for p in subject if isinstance(p, PlaceRef))
                    if t[be].verb in ("go", "belong"):
                        # "the fan module goes from the ESD tray to station 2": every place after the verb in its role
                        routes, k2 = [], k
                        while k2 < end and (p := self._preposition(k2, end)) is not None:
                            np2, k2 = self._noun_phrase(k2 + p[1], end)
                            if np2 is None:
                                break
                            routes.append(("goal" if p[0] == "location" else p[0], self._place(np2)))
                        return Clause("transfer", t[be].text, t[0].start, t[-1].end, objects, where + tuple(routes), order=order)
                    if t[be].verb in ("stay", "remain"):  # "the others stay on the table": leave them
                        return Clause(None, t[be].text, t[0].start, t[-1].end, objects, negated=True)
                    return Clause(None, "", t[0].start, t[-1].end, objects, (("location", self._place(place)),), fact=True)
        manner = self._manner_words(t)
        fragile = [("slow", tok.text) for tok in t if tok.low in self.v.en_fragile]
        if fragile and not (manner and len(t) <= 3):
            # "The glass is fragile.": whatever the sentence is about is to be handled gently
            subject = [o for o in self._subject(start, start + be if be else end) if isinstance(o, ObjectRef) and o.noun]
            return Clause(None, "", t[0].start, t[-1].end, tuple(subject), manner=tuple(fragile), fact=True)
        return Clause(None, "", t[0].start, t[-1].end, manner=tuple(manner)) if manner and len(t) <= 3 else \
            Clause(None, "", t[0].start, t[-1].end, fact=True)

    def _verbless(self) -> Clause | None:
        """A sentence without a verb that still asks for something: "Red cube into bin 2, thanks", "From A to B: the
        red block" (a transfer: one object and a goal or source), "Not the blue one" (an exclusion), "I'd like the red
        cube in bin 2", "I need the red cube moved to bin 3" (a wish: the place is where it should end up).

        Anything else in the sentence that is not one of these parts makes it context, never a guess."""
        t, end = self.t, len(self.t)
        i = 0
        wish = False
        while i < end and not self._phrase(i, end, EXCEPT) and (self._is_filler(t[i]) or t[i].low in COURTESY or t[i].low in _WISH):
            wish = wish or t[i].low in _WISH
            i += 1
        if i >= end or any(tok.verb in _BE or tok.verb in ("go", "belong") or tok.low in ("'s", "is", "are") for tok in t[i:]):
            return None  # a statement ("the bolt goes to bin 1"), read as one
        n_except = self._phrase(i, end, EXCEPT)
        if n_except:
            objects = [self._object(np) for np in self._coordinated(i + n_except, end) if not self._names_place(np)]
            return Clause(None, "", t[0].start, t[-1].end, tuple(objects), negated=True) if objects else None
        objects: list[ObjectRef] = []
        places: list[tuple[str, PlaceRef]] = []
        action = "transfer"
        while i < end:
            tok = t[i]
            prep = self._preposition(i, end)
            if prep is not None:
                np, j = self._noun_phrase(i + prep[1], end)
                if np is None:
                    return None
                places.append((prep[0], self._place(np)))
                i = j
                continue
            if tok.kind == "punct" or tok.low in COURTESY or tok.low in ("and", "then", "please"):
                i += 1
                continue
            if objects and tok.low != tok.verb and self._action(i) is not None:
                action = self._action(i) or action  # "the red cube moved to bin 3"
                i += 1
                continue
            np, j = self._noun_phrase(i, end)
            if np is None or self._names_place(np) or objects:
                return None
            objects.append(self._object(np))
            i = j
        roles = {role for role, _ in places}
        if len(objects) != 1 or not (roles & {"goal", "source"} or wish and "location" in roles):
            return None
        if wish:
            places = [("goal" if role == "location" else role, p) for role, p in places]
        return Clause(action, "", t[0].start, t[-1].end, tuple(objects), tuple(places))
