"""English sentences without an action verb that still say what to do, or where things are.

The clause reader (`english.py`) hands a sentence here when it finds no clause
head in it. What such a sentence can be, as the lexicon's `constructions` list
its words:

* **routes without a verb** — "Red cube into bin 2, thanks", "1. muffin tray from
  the oven tray to the cooling trolley", "First the crown from A to B, then the
  bridge from C to D" (one transfer per part), "oven tray to the cooling trolley"
  after the thing was named ("Sourdough's done -"): a place, then where to,
  is a route of that thing;
* **wishes** — "I'd like the red cube in bin 2": the place is where it should end up;
* **statements of where a thing goes** (`goes_to`, with `duty` words) — "the bolts
  go in bin 2", "that swollen cell has to go straight into the NG box, not back
  into the rack": a transfer with every place after the verb in its role;
* **facts** — "The red cube is in bin 3" (where it is: its source), "The glass is
  fragile" (handle it gently), "Sourdough's done." (what a later "it" is).

Anything else is context: a sentence this reader cannot place asks for nothing,
and the stage says so rather than guess.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field, replace

from plan_verifier.semantic.clauses import CARRYING, ORIGIN, WORK, Clause, ObjectRef, PlaceRef, stop_on_the_way
from plan_verifier.semantic.english_phrases import (COURTESY, DETERMINERS, EXCEPT, SUBJECTS, SUBORDINATORS, Phrases, is_adjective, is_noun, is_past,
                                                    is_verb, participle, verb_forms)
from plan_verifier.semantic.language import Token, verb_lemma
from plan_verifier.semantic.vocabulary import vocabulary

#: Words that open a relative clause after a noun ("the coil that's on the bench", "the mug which is in sink 2").
_RELATIVE = frozenset({"that's", "thats", "that", "which", "which's", "who", "who's", "whose"})

#: A wish for a state ("I'd like the cube in bin 2", "I need it moved"): the speaker, and the verbs of wanting.
_WISH = frozenset({"i", "we", "i'd", "we'd", "like", "need", "want", "would", "wanna", "love"})
_BE = frozenset({"be", "sit", "lie", "rest", "stand", "stay", "remain", "belong"})
#: Pronouns that open a statement of their own after a request ("…, it failed the cycle").
_PRONOUN_SUBJECTS = frozenset({"it", "they", "he", "she", "we", "i", "you"})
#: A subject and its verb in one word: what follows is a statement ("we've got a board to fix"), never a route.
_SUBJECT_VERB = frozenset({"i've", "we've", "you've", "they've", "i'm", "we're", "you're", "they're"})
#: Words after a pronoun that do not make it a statement ("…, it and the lid", "…, it too").
#: Somebody unnamed as the subject of what was done with a thing ("Someone parked it in the cabinet").
_SOMEONE = frozenset({"someone", "somebody", "anyone", "anybody", "everyone", "everybody"})
_NOT_STATED = frozenset({"and", "or", "too", "also", "only", "first", "then", "now", "please"})
#: Words that join the parts of a list of routes ("A to B, then C to D").
_JOINS = frozenset({",", "and", "then", "next", "finally", "lastly", "also", ";"})


#: Words that say a route goes directly even with no thing named before them ("Straight to inspection."); the other
#: `straight` words ("both", "all", "back") only between a thing and its place.
_STRAIGHT = frozenset({"straight", "directly"})


@dataclass
class _Route:
    """One part of a sentence without a verb: what is carried, and the places it names."""

    start: int
    objects: list[ObjectRef] = field(default_factory=list)
    places: list[tuple[str, PlaceRef]] = field(default_factory=list)
    lead: PlaceRef | None = None  # a noun phrase naming a place before the first preposition ("oven tray to ...")
    order: str | None = None
    end: int = 0
    straight: bool = False  # "straight to …": a route said of the thing before, even with no source
    excluded: list[PlaceRef] = field(default_factory=list)  # "Red cube to bin 2, not bin 3": a place ruled out
    manner: list[tuple[str, str]] = field(default_factory=list)  # "…, slowly": how it is carried
    #: "Case rack to the press — the veneer sheet": the thing named after a route from a place written first
    thing_after: ObjectRef | None = None


def switched(tokens: list[Token]) -> str | None:
    """"camera on", "gripper off", "camera back on its stand": a thing the robot fits, takes off or puts back, said with
    no verb — a part of a sentence of its own between commas. The action (attach | detach | place), None for other words."""
    v = vocabulary()
    words = [t for t in tokens if t.kind == "word" and t.low not in DETERMINERS]
    cut = next((k for k, t in enumerate(words) if t.low in ("on", "off", "back")), None)
    if not cut or cut > 2 or words[cut - 1].noun not in v.en_objects or any(verb_lemma(t.low) in v.en_actions for t in words[:cut]):
        return None
    rest = words[cut + 1:]
    if words[cut].low == "back":
        return "place" if not rest or rest[0].low in ("on", "in", "to", "into", "onto", "at") else None
    return None if rest else "attach" if words[cut].low == "on" else "detach"



#: Verbs of resting somewhere, in their base form: after a duty word, where a thing is to end up.
_RESTING = frozenset({"sit", "rest", "stand", "lie"})
#: Words that make a duty to rest somewhere a guess at where a thing is ("should sit there already").
_ALREADY = frozenset({"already", "still", "now", "currently"})

#: A pronoun subject with its verb be run on: the sentence says something of a thing already named.
_PRONOUN_BE = frozenset({"it's", "it’s", "they're", "they’re"})


class Constructions(Phrases):
    """Sentences without a clause head: routes, wishes, statements of where a thing goes, facts."""

    #: Did an earlier sentence name a thing? Then a route that starts with a place ("oven tray to the cooling trolley")
    #: is that thing's, from that place; otherwise its first noun phrase is the thing.
    named_before = False
    #: Whether the last reading as a route without a verb took its thing from after the route ("… — the veneer sheet").
    thing_trailed = False

    def _fact_or_context(self, start: int, end: int) -> Clause:
        """A sentence without an action: "the red cube is in bin 3" says where an object is, "the bolts go in bin 2"
        (a statement of where things go) is a transfer, anything else is context."""
        start = self._after_time_phrase(start, end)
        t = self.t[start:end]
        lead = self._manner_at(start, end)
        k = start + lead[1] if lead is not None else start
        while lead is not None and k < end and (self.t[k].low in COURTESY or self.t[k].low == "please"):
            k += 1  # "slowly please, it's full"
        if lead is not None and k + 1 < end and self.t[k].low == "with" and self.t[k + 1].low in ("it", "them", "this", "that", "these", "those"):
            k += 2  # "Easy with it, the tip is cracked": how the thing is handled, then why
        if lead is not None and k + 1 < end and self.t[k].low in (",", "-", "—", ":"):
            # "Slowly, the elements are still wet.", "Carefully - it's hot": how the task is done, then why
            rest = self._fact_or_context(k + 1, end)
            return replace(rest, start=t[0].start, manner=((lead[0], " ".join(x.text for x in t[:lead[1]])),) + rest.manner)
        if t and t[0].low in ("it's", "they're", "its"):
            # "It's in the crate.", "It's sitting in rack A right now", "It's been charging in locker 1": where the thing
            # named before is (whatever it is doing there)
            k = start + 1
            while k < end and (self.t[k].low in ("sitting", "lying", "standing", "resting", "currently", "now", "still", "already", "right",
                                                 "been") or participle(self.t[k]) and self.t[k].verb not in self.v.en_actions and
                                                 self._preposition(k + 1, end) is not None):  # ("it's been checked on …": work)
                k += 1
            prep = self._preposition(k, end)
            place = self._noun_phrase(k + prep[1], end)[0] if prep is not None and prep[0] in ("location", "source") else None
            if place is not None:
                return Clause(None, "", t[0].start, t[-1].end, (ObjectRef(t[0].text, None, pronoun=True),),
                              (("location", self._place(place)),), fact=True)
        stated = self._stated_route(start, end)  # (before someone's doing: "the bow sight should sit in …" is no person's)
        if stated is not None:
            return stated
        put = self._put_by_someone(start, end)
        if put is not None:
            return put
        c = self.v.constructions
        be = next((i for i, tok in enumerate(t) if tok.verb in c.goes_to and self._duty_before(start, start + i)), None)  # "is to go"
        if be is None:
            # "the bearing that's sitting in the basket goes to fixture 2": a relative clause of where the subject is,
            # then the statement's own verb
            be = next((i for i, tok in enumerate(t) if i > 1 and tok.verb in c.goes_to and self._relative_before(start, start + i)), None)
        passive = be is None and self._passive(t)
        if passive:
            be = passive  # "Could the dish be moved to the left tray?", "the jar needs to be taken to rack A": a request
        if be is None:
            be = next((i for i, tok in enumerate(t) if tok.verb in ("sit", "lie", "rest", "stand", "stay", "remain") or tok.verb in c.goes_to
                       or self._is_be(start + i) or self._needs_work(start + i, end)), None)
        if be is not None and be > 0:
            order = None
            while start < end - 1 and be > 1 and (self.t[start].low in ("today", "now", "tonight", "tomorrow", "also", "could", "can", "would",
                                                                        "will", ",") or self.t[start].low in self.v.en_sequence
                                                  or self.t[start].low == "after" and self.t[start + 1].low == "that" or
                                                  self.t[start].low == "that" and start > 0 and self.t[start - 1].low == "after"):
                if self.t[start].low in self.v.en_sequence or self.t[start].low == "that":
                    order = "sequence"  # "After that, the box goes ...": this comes next
                start, be, t = start + 1, be - 1, t[1:]  # "today the fan module goes ...": when, not what
            subject_end = start + be - self._duty_before(start, start + be)  # "the vial has to go ...": the subject ends at "has"
            if passive:
                subject_end = start + be - 1 - self._duty_before(start, start + be - 1)  # "… be moved": the subject ends before "be"
            np, _ = self._noun_phrase(start, subject_end)
            k = start + be + 1
            while k < end and (self.t[k].low in c.straight or self.t[k].low in ("should", "must", "already", "still", "currently", "usually")):
                k += 1
            # "the tie was dropped in the box by mistake", "the cup got left on shelf 2": put there — that is where it is
            put = k < end and self.t[start + be].verb in ("be", "get") and is_past(self.t[k]) and \
                self.v.en_actions.get(self.t[k].verb) in ("place", "transfer", "insert") and self._preposition(k + 1, end) is not None
            k += 1 if put else 0
            prep = self._preposition(k, end) if k < end else None
            if np is not None and prep is not None and prep[0] in ("location", "source", "goal"):
                place, _ = self._noun_phrase(k + prep[1], end)
                if place is not None and (put or passive or not is_past(self.t[start + be])):  # "the box went to the tray": what happened
                    subject = self._subject(start, subject_end)
                    objects = tuple(o for o in subject if isinstance(o, ObjectRef))
                    where = tuple(("source", p) for p in subject if isinstance(p, PlaceRef))
                    if t[be].verb in c.goes_to or passive:
                        # "the fan module goes from the ESD tray to station 2": every place after the verb in its role
                        routes, excluded = self._route_after(k, end)
                        # "could the roll be taken off the shelf (and put in …)": taken from there, no more
                        taken = passive and self.v.en_actions.get(t[be].verb) == "pick" and not any(role == "goal" for role, _ in routes)
                        # (how, said anywhere in it: "the battery has to go to the bin, slowly")
                        return Clause("pick" if taken else "transfer", t[be].text, t[0].start, t[-1].end, objects, where + tuple(routes), order=order,
                                      excluded_places=tuple(excluded), manner=tuple(self._manner_words(t)))
                    if t[be].verb in ("stay", "remain"):  # "the others stay on the table": leave them
                        return Clause(None, t[be].text, t[0].start, t[-1].end, objects, negated=True)
                    return Clause(None, "", t[0].start, t[-1].end, objects, (("location", self._place(place)),), fact=True,
                                  mentions=tuple(self._mentioned(start, end, be)))  # "Customer's at the counter for her poster roll"
        manner = self._manner_words(t)
        fragile = [("slow", tok.text) for tok in t if tok.low in self.v.en_fragile]
        if fragile and not (manner and len(t) <= 3):
            # "The glass is fragile.": whatever the sentence is about is to be handled gently
            subject = [o for o in self._subject(start, start + be if be else end) if isinstance(o, ObjectRef) and o.noun]
            return Clause(None, "", t[0].start, t[-1].end, tuple(subject), manner=tuple(fragile), fact=True)
        if manner and len(t) <= 3:
            return Clause(None, "", t[0].start, t[-1].end, manner=tuple(manner))
        if be is None:
            # "The cup on shelf 1 has a crack": the subject ends at "has"; what it has is no thing a later "it" means
            be = next((i for i, tok in enumerate(t) if i > 0 and tok.low in ("has", "have", "had")), None)
        mentioned = tuple(self._mentioned(start, end, be))
        where = self._subject_place(start, start + be) if be and len(mentioned) == 1 else None
        if where is None and len(mentioned) == 1:
            where = self._relative_place(start, end)  # "The string coil that's on the tuning bench —": it is taken from there
        if where is not None:
            # "The radio on the right cart is dead", "The candle on rack 1 has set": whatever is said of it, the thing is there
            return Clause(None, "", t[0].start, t[-1].end, mentioned, (("location", where),), fact=True, mentions=mentioned)
        return Clause(None, "", t[0].start, t[-1].end, fact=True, mentions=mentioned)

    def _relative_place(self, start: int, end: int) -> PlaceRef | None:
        """The place a relative clause after the sentence's thing puts it ("the coil that's on the tuning bench", "the mug
        which is sitting in sink 2"): a relative pronoun, be or a word of where it is, a preposition of where and a place
        of a known kind; None otherwise."""
        r = next((k for k in range(start + 1, end) if self.t[k].low in _RELATIVE and self.t[k - 1].kind == "word"), None)
        if r is None:
            return None
        k = r + 1
        while k < end and (self.t[k].low in ("is", "are", "was", "still", "now", "currently", "already", "just") or
                           self.t[k].low in self.v.constructions.where_it_is):
            k += 1
        prep = self._preposition(k, end)
        if prep is None or prep[0] != "location":
            return None
        np, _ = self._noun_phrase(k + prep[1], end)
        place = self._place(np) if np is not None and self._names_place(np) else None
        return place if place is not None and place.kind is not None and place.kind != "position" else None

    def _subject_place(self, start: int, end: int) -> PlaceRef | None:
        """The place a subject locates its one thing at ("the radio on the right cart", "the mug sitting in sink 2"): a
        thing, then a preposition of where and a place of a known kind, and nothing else; None otherwise."""
        subject = self._subject(start, end)
        if len(subject) != 2 or not isinstance(subject[0], ObjectRef) or not isinstance(subject[1], PlaceRef) or subject[1].kind is None \
                or subject[1].kind == "position" or subject[1].kind.startswith("container:") or subject[0].pronoun or not subject[0].noun:
            return None
        return subject[1]

    def _put_by_someone(self, start: int, end: int) -> Clause | None:
        """"Someone parked it in the cleaning cabinet", "I had it out on tray 1", "the night shift left the jug on cart 2":
        what a person did with the thing says where it is now (where it is taken from), not where it goes. None for any
        other sentence."""
        t, k = self.t, start
        if k < end and (t[k].low in _PRONOUN_SUBJECTS - {"it"} or t[k].low in _SOMEONE):
            k += 1
        else:
            np, k = self._noun_phrase(start, end)
            if np is None or np.head is None or np.head.noun in self.v.en_objects or np.head.noun in self.v.en_places and not self._is_person(np):
                return None
        while k < end and (t[k].low in ("just", "already", "accidentally", "probably") or t[k].low.endswith("ly") and is_adjective(t[k].low[:-2])):
            k += 1
        if k + 1 >= end or not (is_past(t[k]) or t[k].low in ("put", "set", "stuck")):
            return None
        thing, k = self._noun_phrase(k + 1, end)
        while k < end and t[k].low in ("out", "back", "down", "over", "away", "up") and self._preposition(k + 1, end) is not None:
            k += 1  # "I had it out on tray 1"
        prep = self._preposition(k, end)
        if thing is None or thing.head is None and not thing.labels or self._names_place(thing) or prep is None or \
                prep[0] not in ("location", "goal"):
            return None
        place, _ = self._noun_phrase(k + prep[1], end)
        if place is None or not self._names_place(place):
            return None
        return Clause(None, "", t[start].start, t[end - 1].end, (self._object(thing),), (("location", self._place(place)),), fact=True)

    def _new_statement(self, i: int, end: int) -> bool:
        """Does a subject and its finite verb start at i ("that one stays", "the operator wants", "it is", "the customer's
        here", "it failed the cycle")?"""
        for k in range(i + 1, min(end, i + 6)):
            verb = self.t[k]
            if verb.kind != "word":
                return False
            finite = verb.low in ("is", "are", "was", "were", "has", "will", "can", "must", "should", "may", "might") or \
                verb.low != verb.verb and verb.low.endswith("s") and verb.low in verb_forms(verb.verb, "VBZ") or \
                verb.low == "'s" and self._is_be(k) or \
                k == i + 1 and self.t[i].low in _PRONOUN_SUBJECTS and (is_past(verb) or is_verb(verb.low) and verb.low not in _NOT_STATED) or \
                self._plural_present(k, end)
            if finite:
                np, j = self._noun_phrase(i, k)
                if np is not None and j == k or self.t[i].low in _PRONOUN_SUBJECTS:
                    return True
                if verb.low != verb.noun:
                    continue  # "the buttons crack easily": "buttons" is the subject's plural noun, the verb comes after it
                return False
        return False

    def _passive_work(self, start: int, end: int) -> Clause | None:
        """"(once) it's been checked on the key gauge", "after the tube is scanned at the reader": a work verb in the
        passive with where it is done — that work, there, on the thing the sentence is about. None for anything else."""
        t = self.t
        for k in range(start + 1, end - 1):
            action = self.v.en_actions.get(t[k].verb)
            if action not in WORK or not participle(t[k]) or t[k].low.endswith("ing") or \
                    not (t[k - 1].low in ("been", "be", "is", "are", "was", "were", "it's", "they're", "get", "gets", "got") or self._is_be(k - 1)):
                continue
            prep = self._preposition(k + 1, end)
            place = self._noun_phrase(k + 1 + prep[1], end)[0] if prep is not None and prep[0] == "location" else None
            if place is None or place.head is None and not place.labels:
                return None
            subject = [o for o in self._subject(start, k - 1) if isinstance(o, ObjectRef) and not o.generic and o.noun]
            thing = subject[:1] or [ObjectRef("", None, pronoun=True)]
            return Clause(action, t[k].text, t[start].start, t[end - 1].end, tuple(thing), (("location", self._place(place)),))
        return None

    def _plural_present(self, k: int, end: int) -> bool:
        """"the buttons crack easily", "the lids stick sometimes": a verb's base form after a plural noun, then an adverb in
        -ly or the end of the sentence — the finite verb of a statement, not a noun of the phrase before it."""
        verb, before = self.t[k], self.t[k - 1]
        after = self.t[k + 1] if k + 1 < end else None
        return verb.low == verb.verb and is_verb(verb.low) and before.kind == "word" and before.low != before.noun and \
            before.low.endswith("s") and (after is None or after.kind == "punct" or after.low.endswith("ly") and after.low not in self.v.en_objects)

    def _aside(self, i: int, end: int) -> int | None:
        """Where, after a request without a verb, a comma opens a sentence of its own that says why or what else ("Roses to
        compost, they're done", "Tray back to the intake cart, it failed the cycle", "…, the customer's here"): the
        comma's index, None when there is no such sentence."""
        for k in range(i + 1, end - 1):
            if self.t[k].low == "," and (self.t[k + 1].low in SUBJECTS or self._new_statement(k + 1, end)):
                return k
        return None

    def _place_of(self, np, j: int, end: int) -> tuple[PlaceRef, int]:
        """The place a noun phrase names, with the whole it is part of when "of" follows ("the left side of the table",
        "slot 2 of the tray"), and the index after it."""
        place = self._place(np)
        if j + 1 < end and self.t[j].low == "of":
            owner, k = self._noun_phrase(j + 1, end)
            if owner is not None:
                whole = self._place(owner)
                if place.kind in (None, "position"):  # "the left side of the table", "the top of the pallet"
                    place = PlaceRef(f"{np.text} of {owner.text}", place.key if place.side else whole.key,
                                     whole.kind, whole.label, place.side, whole.coords, color=whole.color,
                                     words=whole.words + place.words)
                else:  # "slot 2 of the tray", "the top shelf of the display case": the part, with the whole's words
                    place = replace(place, text=f"{np.text} of {owner.text}", words=place.words + whole.words)
                j = k
        return place, j

    def _needs_work(self, i: int, end: int) -> bool:
        """"The leg needs sanding", "the gear set needs a scan": the verb of a statement that the thing is due some work (its
        subject is the thing)."""
        if self.t[i].low not in ("needs", "need", "wants", "want") or i + 1 >= end:
            return False
        nxt = self.t[i + 1]
        if nxt.low in ("a", "an", "another") and i + 2 < end:
            nxt = self.t[i + 2]  # "needs a scan", "needs another check"
            return nxt.verb in self.v.en_actions or nxt.noun in self.v.en_actions or nxt.low.removesuffix("ion") in self.v.en_actions
        return nxt.low.endswith("ing")

    def _bare(self, i: int, end: int) -> bool:
        """Does the word at i stand alone, with nothing it could govern after it ("to compost,", "to dispatch for pick-up")?"""
        nxt = self.t[i + 1] if i + 1 < end else None
        return nxt is None or nxt.kind == "punct" or nxt.low in ("for", "and", "please", "then", "now")

    def _sub(self, start: int, end: int) -> "Constructions":
        """The words start..end read as a sentence of their own (what came before it named still counts)."""
        sub = type(self)(self.t[start:end], self.text, self.v)
        sub.named_before = self.named_before
        return sub

    def _stated_route(self, start: int, end: int) -> Clause | None:
        """Statements of where a thing is to end up that `goes_to`'s one-word verbs miss: a duty with a passive or a state
        ("the tray should be set on the bench", "the vase is to be put back in the cooler", "the sheet ought to be sitting
        on the cutter, not on the outfeed") and verbs of more than one word ("needs to end up in the cold room"). The
        subject is the thing, every place after the verb its route in its role."""
        for i in range(start + 1, end - 1):
            tok = self.t[i]
            phrase = next((p for p in self.v.constructions.goes_to if " " in p and self._phrase(i, end, (p,))), None) \
                if tok.kind == "word" else None
            if phrase is not None:
                verb_end = i + len(phrase.split())
                subject_end = i - self._duty_before(start, i)
            elif tok.low == "be" and self._duty_before(start, i) and self._participle(i + 1):
                verb_end = i + 2
                subject_end = i - self._duty_before(start, i)
            elif tok.low in _RESTING and self._duty_before(start, i) and not (i + 1 < end and self.t[i + 1].low in _ALREADY):
                # "the bow sight should sit in the bow press": where it is to rest (not "should be", which may only guess
                # where it is; not "should sit there already")
                verb_end = i + 1
                subject_end = i - self._duty_before(start, i)
            else:
                continue
            subject = self._subject(start, subject_end)  # "the six-pack on the labeller": the thing, and where it is
            objects = [o for o in subject if isinstance(o, ObjectRef)]
            where = [("source", p) for p in subject if isinstance(p, PlaceRef)]
            k = verb_end
            while k < end and (self.t[k].low in self.v.constructions.straight or phrase is not None and self.t[k].low.endswith("ing") and
                               participle(self.t[k]) and self._preposition(k + 1, end) is not None):
                k += 1  # "should end up curing in the UV station": what it does there, then where
            if len(objects) != 1 or objects[0].generic or self._preposition(k, end) is None:
                return None
            routes, excluded = self._route_after(k, end)
            if not routes:
                return None
            return Clause("transfer", self.t[i].text, self.t[start].start, self.t[end - 1].end, tuple(objects), tuple(where + routes),
                          excluded_places=tuple(excluded), manner=tuple(self._manner_words(self.t[start:end])))
        return None

    def _participle(self, i: int) -> bool:
        """"set", "put", "placed", "sitting" after "be": a passive or a state, the verb's participle."""
        tok = self.t[i] if i < len(self.t) else None
        return tok is not None and tok.kind == "word" and is_verb(tok.verb) and tok.low != "being" and \
            tok.low in verb_forms(tok.verb, "VBN") | verb_forms(tok.verb, "VBG")

    def _relative_before(self, start: int, verb: int) -> bool:
        """Does a relative clause of where the thing is (`constructions.where_it_is`) stand between start and verb?"""
        words = " ".join(tok.low for tok in self.t[start:verb])
        return any(re.search(rf"\b{re.escape(w)}\b", words) for w in self.v.constructions.where_it_is if " " in w or "'" in w or w in ("that", "which", "sitting", "lying", "located", "waiting", "kept", "stored"))

    def _is_be(self, i: int) -> bool:
        """A form of "be" ("is", "are"; "'s" when no noun follows it, so "the operator's tray" is no statement)."""
        tok = self.t[i]
        if tok.low != "'s":
            return tok.verb == "be" or tok.low in ("is", "are")
        nxt = self.t[i + 1] if i + 1 < len(self.t) else None
        after = self.t[i + 2] if i + 2 < len(self.t) else None
        if nxt is not None and is_adjective(nxt.low) and after is not None and after.kind == "word" and is_noun(after.low) and \
                not is_adjective(after.low) and i and self.t[i - 1].low not in _PRONOUN_SUBJECTS:
            return False  # "the fridge's lower shelf": an adjective and its noun after a noun's "'s" are what it owns
        return nxt is None or nxt.kind != "word" or not is_noun(nxt.low) or is_adjective(nxt.low)

    def _after_time_phrase(self, start: int, end: int) -> int:
        """"After the OCV test, the cell goes …": a leading time phrase without a verb orders nothing the program does."""
        if start < end and self.t[start].low in SUBORDINATORS:
            comma = next((k for k in range(start + 1, end) if self.t[k].low == ","), None)
            # (a verb there has a subject or stands first: "after you test it"; "the OCV test" is a noun)
            if comma is not None and comma + 1 < end and not any(self._action(k) is not None and (k == start + 1 or self.t[k - 1].low in SUBJECTS
                                                                                                   or self.t[k - 1].low in _PRONOUN_SUBJECTS)
                                                                 for k in range(start + 1, comma)):
                return comma + 1
        return start

    def _passive(self, t: list) -> int | None:
        """Where a request in the passive has its verb ("could the dish be moved …", "it needs to be taken …"): a
        participle of carrying after "be" (after a modal or "to"); None when the sentence has no such verb."""
        for i, tok in enumerate(t):
            if i > 1 and t[i - 1].low == "be" and is_past(tok) and self.v.en_actions.get(tok.verb) in ("transfer", "place", "insert", "pick"):
                return i  # (a bare "be" only follows a modal, which the sentence may have lost to its opening words)
        return None

    def _duty_before(self, start: int, verb: int) -> int:
        """How many words before a statement's verb say it has to happen ("has to", "needs to", "must")."""
        words = [tok.low for tok in self.t[start:verb]]
        for phrase in self.v.constructions.duty:
            n = len(phrase.split())
            if len(words) > n and words[-n:] == phrase.split():
                return n
        return 0

    def _route_after(self, k: int, end: int) -> tuple[list[tuple[str, PlaceRef]], list[PlaceRef]]:
        """The places after a statement's verb, each in its role ("from A to B"), and those it rules out (", not back
        into the hamper")."""
        routes: list[tuple[str, PlaceRef]] = []
        excluded: list[PlaceRef] = []
        negated = False
        while k < end:
            if self.t[k].low in (",", "and", "but") or self.t[k].low in self.v.constructions.straight:
                k += 1
                continue
            n_except = self._phrase(k, end, EXCEPT)
            if n_except:
                negated, k = True, k + n_except
                continue
            p = self._preposition(k, end)
            if p is None and routes and self.t[k - 1].low == ",":
                part, j = self._noun_phrase(k, end)
                if part is not None and self._names_place(part) and (part.labels or self._place(part).side):
                    # "the hold shelf, slot 1": which part of the place just named
                    role, whole = routes[-1]
                    place = self._place(part)
                    routes[-1] = (role, replace(place, text=f"{whole.text}, {place.text}", words=place.words + whole.words))
                    k = j
                    continue
            if p is None or self.t[k].low == "to" and routes and self._infinitive(k + 1, end):
                break  # "… goes in the kiln to fire": what for, no place
            np2, k = self._noun_phrase(k + p[1], end)
            if np2 is None:
                break
            if negated:
                excluded.append(self._place(np2))
            else:
                routes.append(("goal" if p[0] == "location" else p[0], self._place(np2)))
        return routes, excluded

    def _imperative_verb(self, i: int) -> bool:
        """A word that opens a sentence as its verb though the vocabulary has no action for it ("Steam the felt hood:",
        "Glaze the mug:"): a verb, no thing or place the vocabulary knows, and an article or a possessive right after it."""
        tok, after = self.t[i], self.t[i + 1]
        return tok.kind == "word" and is_verb(tok.low) and tok.noun not in self.v.en_objects and tok.noun not in self.v.en_places \
            and after.low in ("the", "a", "an", "this", "that", "these", "those", "its", "their", "your", "my", "our")

    def _mentioned(self, start: int, end: int, be: int | None) -> list[ObjectRef]:
        """The things a sentence that asks for nothing names ("Sourdough's done", "Weigh one carton"), for what follows."""
        if start < end and self.t[start].low in ("there", "here", "there's", "here's"):
            return []  # "There are four cubes on the table": how many, no one thing a later "it" means
        if start < end and self.t[start].low in _PRONOUN_BE:
            return []  # "It's frayed", "They're still warm": what is said of a thing named before, no thing of its own
        stop = start + be if be else end
        if start + 1 < stop and self._imperative_verb(start):
            # "Steam the felt hood: take it off …", "Weigh the bag of M4 screws: …": a verb the vocabulary lacks, then the
            # thing it is done to — its object, whatever place its noun may name elsewhere ("Mark the cylindrical cell:")
            np, _ = self._noun_phrase(start + 1, stop)
            obj = self._object(np) if np is not None and np.head is not None and not self._is_person(np) else None
            return [obj] if obj is not None and obj.noun and not obj.generic and not obj.pronoun else []
        # "The string coil that's on the tuning bench —": a relative clause says where or which, it names no thing
        stop = next((k for k in range(start + 1, stop) if self.t[k].low in _RELATIVE and self.t[k - 1].kind == "word"), stop)
        # "The cup on shelf 1 of the kiln has a crack": what stands after a preposition of place is where, not a thing
        stop = next((k for k in range(start + 1, stop) if (prep := self._preposition(k, stop)) is not None and prep[0] in ("location", "source", "goal")),
                    stop)
        out = []
        for np in self._coordinated(start, stop):
            if np.head is None or self._names_place(np) or np.head.low in self.v.en_pronouns or self._is_person(np):
                continue  # "The courier is waiting for the parcel": a person waits, the parcel is what "it" will mean
            obj = self._object(np)
            if obj.noun and not obj.generic and not obj.pronoun:
                out.append(obj)
        if not out:
            # "Customer's here for his capo", "The driver is waiting for the parcel": what someone came for
            k = next((k for k in range(start, end) if self.t[k].low == "for"), None)
            np = self._noun_phrase(k + 1, end)[0] if k is not None else None
            if np is not None and np.head is not None and not self._names_place(np) and not self._is_person(np) and \
                    np.head.low not in self.v.en_pronouns:
                obj = self._object(np)
                if obj.noun and not obj.generic and not obj.pronoun:
                    out.append(obj)
        return out

    def _not_this_but_that(self, i: int, end: int):
        """"Not A, B.", "Not the red cube, the blue one.": after "not", one phrase, a bare comma and one more phrase to the
        end of the sentence is a correction that insists on the second ("not A but B"), not a list of two things ruled
        out (a list says "A or B", "A, B or C"). The phrase ruled out, or None when the sentence is not that shape."""
        first, j = self._noun_phrase(i, end)
        if first is None or j >= end or self.t[j].low != ",":
            return None
        second, k = self._noun_phrase(j + 1, end)
        if second is None or k == j + 1 or self._names_place(first) != self._names_place(second):
            return None
        if any(tok.kind != "punct" and tok.low not in COURTESY and tok.low != "please" for tok in self.t[k:end]):
            return None
        return first

    def _verbless(self) -> list[Clause] | None:
        """A sentence without a verb that still asks for something: one or more routes ("Red cube into bin 2, thanks",
        "First the crown from A to B, then the bridge from C to D"), "Not the blue one" (an exclusion), "I'd like the
        red cube in bin 2" (a wish: the place is where it should end up).

        Anything else in the sentence that is not one of these parts makes it context, never a guess."""
        t, end = self.t, len(self.t)
        switch = switched(t)
        if switch is not None:
            # "camera on", "gripper off", "camera back on its stand": fit it, take it off, put it back
            np, j = self._noun_phrase(next(k for k, tok in enumerate(t) if tok.kind == "word" and tok.low not in DETERMINERS), end)
            prep = self._preposition(j + 1, end) if j + 1 < end else None
            place = self._noun_phrase(j + 1 + prep[1], end)[0] if prep is not None else None
            places = (("goal", self._place(place)),) if place is not None else ()
            return [Clause(switch, "", t[0].start, t[-1].end, (self._object(np),) if np is not None else (), places)]
        i = 0
        wish = False
        while i < end and not self._phrase(i, end, EXCEPT) and not self._noun_can(i, end) and not self._goal_first(i, end) and \
                (self._is_filler(t[i]) or t[i].low in COURTESY or t[i].low in _WISH):
            wish = wish or t[i].low in _WISH
            i += 1
        # "Gently: frog from drawer 2 to …", "Carefully, slowly: …": how everything that follows is done
        lead_manner = [Clause(None, "", t[0].start, t[i - 1].end, manner=tuple(self._manner_words(t[:i])))] if self._manner_words(t[:i]) else []
        aside = self._aside(i, end)
        if aside is not None:
            # "Roses to compost, they're done", "Envelope pack to the counter, the customer's here": the request, then why
            head = self._sub(0, aside)
            routes = head._verbless() if head is not None else None
            self.thing_trailed = self.thing_trailed or head is not None and head.thing_trailed
            return lead_manner + routes + [self._fact_or_context(aside + 1, end)] if routes else None
        # ("back where it belongs": a place said as a relative clause, no statement)
        said_where = {n for k in range(i, end) if t[k].low == "where" for n in range(k, k + self._phrase(k, end, self.v.constructions.back_where))}
        if i >= end or any(k not in said_where and (tok.verb in _BE and tok.low != "'s" and not (tok.low == tok.verb and self._in_place_phrase(k, end)) or
                           tok.verb in self.v.constructions.goes_to or self._is_be(k) or tok.low in _SUBJECT_VERB) for k, tok in enumerate(t[i:], start=i)) \
                or any(self._phrase(k, end, tuple(d for d in self.v.constructions.duty if d.endswith(" to"))) for k in range(i, end)):
            return None  # a statement ("the bolt goes to bin 1", "we've got a board to fix", "nothing else needs to move")
        n_except = self._phrase(i, end, EXCEPT)
        if n_except:
            phrases = self._coordinated(i + n_except, end)
            insisted = self._not_this_but_that(i + n_except, end)
            if insisted is not None:
                phrases = [insisted]
            objects = [self._object(np) for np in phrases if not self._names_place(np)]
            places = [self._place(np) for np in phrases if self._names_place(np)]
            if places and not objects:
                # "Not rack B — that's for the blues.": the place is ruled out, no thing left alone
                return [Clause(None, "", t[0].start, t[-1].end, excluded_places=tuple(places))]
            return [Clause(None, "", t[0].start, t[-1].end, tuple(objects), negated=True)] if objects else None
        routes = [_Route(i)]
        action = "transfer"
        ordered = any(tok.low in self.v.en_sequence for tok in t[:i])
        # "Map tube: first to the RFID reader, then …": after an order word, a route to a place is the thing's named before
        routes[0].straight = any(tok.low in self.v.en_sequence or tok.low in self.v.en_first for tok in t[:i])
        while i < end:
            tok = t[i]
            route = routes[-1]
            seq = self._phrase(i, end, tuple(p for p in self.v.en_sequence if " " in p))
            if tok.low in self.v.en_first and route.objects and not route.places and route.lead is None:
                route.order = "first"  # "Wreath first to the van, then …": this part before what follows
                i += 1
                continue
            if tok.low == "instead" and route.lead is not None and not route.places and self.named_before:
                # "Don't send it to the scrap bin - rack 1 instead": the place instead of the one ruled out, for that thing
                route.places.append(("goal", route.lead))
                route.lead = None
                route.objects[:] = [ObjectRef("", None, pronoun=True)]
                i += 1
                continue
            if tok.low in self.v.constructions.back_arrows and route.lead is not None and not route.places:
                # "Yellow bin ← wax bar from the counter mat": the place the arrow points back to is where the thing goes
                route.places.append(("goal", route.lead))
                route.lead = None
                route.objects.clear()
                i += 1
                continue
            if tok.low in _JOINS or tok.low in self.v.en_sequence or seq or tok.kind == "punct":
                n = max(seq, 1)
                if route.objects or route.places or route.lead:
                    route.end = i
                    routes.append(_Route(i + n))
                if seq or tok.low in self.v.en_sequence or tok.low == "then":
                    routes[-1].order = "sequence"
                i += n
                continue
            if tok.low in ("as", "too", "also") and (route.places or route.objects) and (tok.low != "as" or i + 1 < end and t[i + 1].low == "well"):
                i += 2 if tok.low == "as" else 1  # "… into pot 1 as well", "… to the rack too": one more, no part of the route
                continue
            if tok.low in COURTESY or tok.low == "please" or tok.low == "only" and (route.places or route.objects) or \
                    tok.low in self.v.constructions.straight and self._preposition(i + 1, end) and \
                    (route.objects or route.lead or tok.low in _STRAIGHT):
                route.straight = route.straight or tok.low in _STRAIGHT
                i += 1  # "bottle straight to the case", "Straight to inspection": how directly, not part of the thing
                continue
            said = next((r for r in reversed(routes) if r.objects or r.lead or r.places), None)
            manner = self._manner_at(i, end) if said is not None else None
            if manner is not None:
                said.manner.append((manner[0], " ".join(x.text for x in t[i:i + manner[1]])))
                i += manner[1]  # "Reel from A to B, slowly", "Red cube gently into bin 2": how it goes, not a place
                continue
            if tok.low == "not" and i + 1 < end:
                ruled = next((r for r in reversed(routes) if r.places), None)
                np, j = self._noun_phrase(i + 1 + (self._preposition(i + 1, end) or (None, 0))[1], end)
                one = self._place_one(np, ruled.places[-1][1]) if ruled is not None and np is not None else None
                if ruled is not None and np is not None and (self._names_place(np) or one is not None) and \
                        not (route is not ruled and (route.objects or route.lead)):
                    # "Red cube to bin 2, not bin 3", "… to drawer A, not to drawer B", "… to the upper shelf, not the lower
                    # one": the place is ruled out, the route stands
                    ruled.excluded.append(one or self._place(np))
                    i = j
                    continue
            if tok.low == "back" and i + 1 < end and t[i + 1].low == "where" and route.objects:
                i += 1
                continue
            back_where = self._phrase(i, end, self.v.constructions.back_where) if tok.low == "where" and route.objects else 0
            if back_where:
                # "Hose nozzle back where it belongs, the lower shelf": the place named after the comma, or else where it
                # came from, is where it goes
                i += back_where
                np, j = self._noun_phrase(i + 1, end) if i + 1 < end and t[i].low == "," else (None, i)
                if np is not None and self._names_place(np):
                    route.places.append(("goal", self._place(np)))
                    i = j
                else:
                    route.places.append(("goal", PlaceRef(self.text[t[i - back_where].start:t[i - 1].end], ORIGIN, ORIGIN)))
                continue
            if tok.low in self.v.constructions.via and tok.low not in ("skip", "bypass") and (route.objects or route.places) or \
                    tok.low in self.v.constructions.via and not route.objects and not route.places and not route.lead and \
                    any(r.objects for r in routes[:-1]):
                np, j = self._noun_phrase(i + 1, end)
                if np is not None and (np.head is not None or np.labels):
                    route.places.append(("via", self._place(np)))  # "…, through the wash station, then …": a stop on the way
                    i = j
                    continue
            prep = self._preposition(i, end)
            if prep is None and tok.low == "of" and len(route.objects) == 1 and not route.places and self._work_noun(route.objects[0]):
                prep = ("location", 1)  # "Camera check of Pos_1": where the routine is done
            if prep is not None:
                np, j = self._noun_phrase(i + prep[1], end)
                if tok.low == "to" and self._infinitive(i + 1, end) and not (route.objects and route.lead is None and self._bare(i + 1, end)) \
                        and not (np is not None and np.labels and self._names_place(np)):
                    # "the operator wants to check it first": what someone wants, no route ("roses to compost", "to tag bin
                    # A": one)
                    return None
                if np is None:
                    return None
                if prep[0] == "location" and route.places and self._phrase(i, end, tuple(self.v.constructions.landmarks)):
                    i = j  # "the tray by the window": where the tray is, not another place
                    continue
                place, j = self._place_of(np, j, end)
                # "Tongs back on the mordant shelf": where the thing goes back to, not where it is
                back = prep[0] == "location" and i > 0 and t[i - 1].low == "back"
                route.places.append(("goal" if back else prep[0], place))
                i = j
                continue
            if (route.objects or route.lead) and tok.low != tok.verb and self._action(i) is not None:
                action = self._action(i) or action  # "the red cube moved to bin 3"
                i += 1
                continue
            np, j = self._noun_phrase(i, end)
            if np is not None and self._trails_route(route, np, j, end):
                route.thing_after = self._object(np)  # "Case rack to the press — the veneer sheet": that thing, from the place
                self.thing_trailed = True
                i = j
                continue
            if np is None or route.objects or route.lead is not None or route.places and self._names_place(np):
                return None
            if self._names_place(np):
                route.lead = self._place(np)  # a place, or a thing named like one ("the muffin tray")
            else:
                route.objects.append(self._object(np))
            if self._names_place(np) and not np.labels:
                route.objects.append(self._object(np))
            i = j
        routes[-1].end = end
        routes = _continued([r for r in routes if r.objects or r.places or r.lead], self.named_before)
        clauses = []
        passed_before = False
        for n, route in enumerate(routes):
            passed = [p for role, p in route.places if role == "via"]
            route.places = [(role, p) for role, p in route.places if role != "via"]
            # "Vase off printer 3, through the wash station, then into the UV station": the thing of the route before goes on
            clause = self._route_clause(route, action, wish, named=bool(n and passed_before))
            if clause is None:
                return None
            # a leading order word orders the first route too: "Then the cup to tray 2" comes after the sentence before
            lead = "first" if any(tok.low in self.v.en_first for tok in t[:routes[0].start]) else "sequence"
            order = route.order or ("sequence" if n and ordered else lead if ordered else None)
            whole = Clause(clause.action, "", t[min(route.start, end - 1)].start, t[max(route.end - 1, route.start)].end,
                           clause.objects, clause.places, order=order, excluded_places=tuple(route.excluded), manner=tuple(route.manner))
            clauses.extend(by_way_of(whole, passed, carried_on=n + 1 < len(routes)))
            passed_before = bool(passed)
        return lead_manner + clauses if clauses else None

    def _which_one(self, start: int, end: int) -> Clause | None:
        """"It's the one on the service bench, not the one on the drying rack", "— the one on the cart, not the fresh one
        on the scale": which of its kind the thing named before is, told by where it is — taken from the first place, the
        second ruled out. None for any other sentence."""
        t, k = self.t, start
        if k < end and t[k].low in _PRONOUN_BE | {"that's", "that’s"}:
            k += 1
        elif k + 1 < end and t[k].low in ("it", "that") and t[k + 1].low == "is":
            k += 2
        first = self._one_at(k, end)
        if first is None:
            return None
        place, k = first
        if k == end:
            return Clause(None, "", t[start].start, t[end - 1].end, (ObjectRef("it", None, pronoun=True),), (("location", place),), fact=True)
        if k + 1 < end and t[k].low == "," and t[k + 1].low == "not":
            other = self._one_at(k + 2, end)
            if other is not None and other[1] == end:
                return Clause(None, "", t[start].start, t[end - 1].end, (ObjectRef("it", None, pronoun=True),), (("location", place),),
                              fact=True, excluded_places=(other[0],))
        return None

    def _one_at(self, k: int, end: int) -> tuple[PlaceRef, int] | None:
        """"the (fresh) one on the scale": the place where "one" of the thing named before is, and the index after it."""
        t = self.t
        if k >= end or t[k].low != "the":
            return None
        k += 1
        n = 0
        while k < end and t[k].low != "one" and t[k].kind == "word" and n < 2 and t[k].noun not in self.v.en_objects:
            k, n = k + 1, n + 1
        if k >= end or t[k].low != "one":
            return None
        prep = self._preposition(k + 1, end)
        if prep is None or prep[0] not in ("location", "source"):
            return None
        np, j = self._noun_phrase(k + 1 + prep[1], end)
        if np is None or not self._names_place(np):
            return None
        return self._place(np), j

    def _trails_route(self, route: _Route, np, j: int, end: int) -> bool:
        """Does a noun phrase that ends the sentence name the thing of a route from a place written first to a goal ("Case
        rack to the press — the veneer sheet")? Only a thing (no place, no pronoun, no person) after such a route with no
        source and no thing of its own but the place's name."""
        roles = {role for role, _ in route.places}
        return j == end and route.lead is not None and roles == {"goal"} and route.thing_after is None and \
            all(o.text == route.lead.text for o in route.objects) and np.head is not None and not self._names_place(np) and \
            np.head.low not in self.v.en_pronouns and not self._is_person(np)

    def _thing_after_route(self) -> bool:
        """Is this sentence a route from a place written first, then its thing ("Case rack to the press — the veneer sheet")?"""
        self.thing_trailed = False
        asked = [c for c in self._verbless() or [] if c.action is not None]  # (then why: "…, it was misfiled")
        return self.thing_trailed and len(asked) == 1 and any(role == "source" for role, _ in asked[0].places) and \
            len(asked[0].objects) == 1 and not asked[0].objects[0].pronoun

    def _goal_first(self, i: int, end: int) -> bool:
        """"(first) to the RFID reader": a route that opens with where to, not an infinitive's "to"."""
        return self.t[i].low == "to" and i + 1 < end and not self._infinitive(i + 1, end) and self._noun_phrase(i + 1, end)[0] is not None

    def _work_noun(self, obj: ObjectRef) -> str | None:
        """The work routine a noun names ("check", "inspection", "weld"), None for a thing."""
        noun = obj.words[-1] if obj.words else obj.noun
        for word in (noun, (noun or "").removesuffix("ion")):
            if self.v.en_actions.get(word) in WORK:
                return self.v.en_actions[word]
        return None

    def _in_place_phrase(self, k: int, end: int) -> bool:
        """Is word k inside the noun phrase after a preposition ("from the drying stand", "onto the rest")? Then a bare
        "stand" or "rest" names a place, not a verb of being."""
        for p in range(k - 1, -1, -1):
            prep = self._preposition(p, end)
            if prep is not None:
                return p + prep[1] <= k < self._noun_phrase(p + prep[1], end)[1]
        return False

    def _route_clause(self, route: _Route, action: str, wish: bool, named: bool = False) -> Clause | None:
        """One route as a transfer: its object and places; a place written first with only a goal after it is where the
        thing named before comes from ("oven tray to the cooling trolley")."""
        roles = {role for role, _ in route.places}
        places = list(route.places)
        objects = list(route.objects)
        work = self._work_noun(objects[0]) if len(objects) == 1 and route.lead is None and roles == {"location"} else None
        if work is not None:
            return Clause(work, "", 0, 0, (), tuple(places))  # "Camera check on Pos_2", "Tack weld at seam 1": that routine there
        if route.thing_after is not None:
            return Clause(action, "", 0, 0, (route.thing_after,), (("source", route.lead),) + tuple(places))
        if route.lead is not None and "source" not in roles and "goal" in roles and (not objects or self.named_before):
            places.insert(0, ("source", route.lead))  # "A to B", "oven tray to the cooling trolley": from A, the thing before
            objects = [ObjectRef("", None, pronoun=True)]
        if not objects and route.lead is None and ({"source", "goal"} <= roles or (route.straight or named) and "goal" in roles) and \
                (self.named_before or named):
            # "…, then from the sewing table to cart 4", "… Straight to inspection.": the same thing on
            objects = [ObjectRef("", None, pronoun=True)]
        if len(objects) != 1 or not (roles & {"goal", "source"} or wish and "location" in roles):
            return None
        if wish:
            places = [("goal" if role == "location" else role, p) for role, p in places]
        return Clause(action, "", 0, 0, tuple(objects), tuple(places))


def by_way_of(clause: Clause, passed_by: list[PlaceRef], carried_on: bool = False) -> list[Clause]:
    """"Put the vase through the washer and onto rack 2", "run the tray past the scanner to bin 3": a carrying request with
    a place it passes on the way is taken, stopped with there, then carried on to where it goes (the way a route with
    arrows through a stop is read); the clause alone when it passes nowhere, rules the way out, or says no goal — unless
    the next part of the sentence says where it goes on to (`carried_on`: "Vase off printer 3, through the wash station,
    then into the UV station")."""

    goals = [(role, p) for role, p in clause.places if role == "goal"]
    if not passed_by or clause.negated or clause.action not in CARRYING or not (goals or carried_on) or \
            len(clause.objects) != 1:
        return [clause]
    it = ObjectRef("", None, pronoun=True)
    taken = Clause("pick", clause.verb, clause.start, clause.end, clause.objects, tuple((r, p) for r, p in clause.places if r != "goal"),
                   manner=clause.manner, order=clause.order)
    stops = [stop_on_the_way(place, clause.start, clause.end, "sequence" if k else None) for k, place in enumerate(passed_by)]
    if not goals:
        return [taken] + stops
    return [taken] + stops + [Clause(clause.action, clause.verb, clause.start, clause.end, (it,), tuple(goals), order="sequence")]


def _continued(routes: list[_Route], named_before: bool) -> list[_Route]:
    """Parts of one route split by a comma or "and" without an order word: "Rose bouquet out of the cooler, onto the wrapping
    table", "Business cards off the press and onto the cutter" (places in other roles go on the route before), "Table leg,
    lumber cart to saw" (a thing alone, then a route from a place: that thing's route); "The leg needs sanding — from the
    saw, over to the sanding station" (the thing named before)."""
    out: list[_Route] = []
    for route in routes:
        before = out[-1] if out else None
        if before is not None and route.order is None and (before.objects or named_before and before.places) and before.lead is None:
            roles = {role for role, _ in before.places}
            if not route.objects and route.lead is None and route.places and not roles & {role for role, _ in route.places}:
                before.places.extend(route.places)
                before.end = route.end
                continue
            if not before.places and route.lead is not None and {role for role, _ in route.places} == {"goal"}:
                before.places.extend([("source", route.lead)] + route.places)
                before.end = route.end
                continue
        out.append(route)
    return out
