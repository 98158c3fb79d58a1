"""English instructions (and program comments) read into clauses.

Imperative robot instructions have a regular shape: a verb at the head of each
clause ("move", "pick up", "don't touch"), a direct object noun phrase, and
prepositional phrases that say where ("from bin 3", "into the tray"). So the
reader finds clause heads — action verbs in a head position (sentence start,
after "and", "then", "please", "to", a comma, "don't" ...), never after a
determiner, so "the place position" is not a verb — and chunks what follows
into noun phrases and prepositional phrases. Words are compared by lemma
(lemminflect), so any inflection works. What it cannot place is left out of
the tasks, never guessed.
"""

from __future__ import annotations

from dataclasses import replace

from plan_verifier.semantic.clauses import ORIGIN, WORK, Clause, ObjectRef, PlaceRef, stop_on_the_way
from plan_verifier.semantic.english_constructions import Constructions, by_way_of, switched
from plan_verifier.semantic.english_phrases import (CONJUNCTIONS, COURTESY, DETERMINERS, EXCEPT, HEAD_BEFORE, IN_ORDER, MODALS, NEGATORS, NOT_IN_NP,
                                                    ON_THE_WAY,
                                                    PARTICLES, QUANTIFIERS, SUBJECTS, SUBORDINATORS, is_adjective, is_label, is_noun, is_past, is_verb, participle,
                                                    verb_forms)
from plan_verifier.semantic.language import Token, english_tokens, verb_lemma
from plan_verifier.semantic.places import kind_of, place_key
from plan_verifier.semantic.vocabulary import Vocabulary, vocabulary

_SENTENCE_END = frozenset({".", ";", "!", "?", "\n", ":"})
_ARTICLES = frozenset({"a", "an", "the"})
#: Verbs that take their meaning from the action noun after them: "run a seam weld", "do an inspection".
_LIGHT_VERBS = frozenset({"run", "do", "perform", "make", "execute", "conduct"})
#: Verbs whose thing is an instrument worked with, not worked on ("use the brush, then put it in tray 2").
_USING = frozenset({"use", "employ", "utilise", "utilize", "operate", "wield"})
#: Verbs of giving that are light verbs before a thing and an activity noun ("give it a quick rinse", "give the board a
#: scan"): the thing undergoes the activity, nobody is handed anything.
_LIGHT_GIVING = frozenset({"give"})
_CARRYING_ACTIONS = frozenset({"transfer", "place", "insert", "stack", "handover", "pick"})
_MOVES = frozenset({"move_to", "return_home"})
#: What a camera takes, not an object to handle ("take a picture of ...").
_NOT_OBJECTS = frozenset({"picture", "photo", "image", "snapshot", "shot", "chance", "moment", "look", "care", "time", "second", "minute"})
_BEFORE_INFINITIVE = frozenset({"you", "need", "want", "like", "have", "going", "able", "try", "asked", "order", "wish", "supposed",
                                "has", "needs", "wants", "robot", "arm", "it", "please", "and", "then"})
_LEAVE = frozenset({"leave", "keep", "ignore", "skip", "bypass"})
#: "I'll grab it", "the courier will pick them up": someone will take the thing.
_WILL = frozenset({"i'll", "we'll", "they'll", "he'll", "she'll", "will", "can", "'ll"})
_TAKE = frozenset({"grab", "take", "pick", "collect", "get", "fetch"})
#: Words for the tasks themselves in a heading that counts them ("Two jobs:").
_TASK_NOUNS = frozenset({"job", "task", "step", "move", "errand", "transfer", "run", "thing"})
#: The robot itself: "move the arm to point A" moves no object.
_SELF = frozenset({"robot", "arm", "cobot", "manipulator", "yourself", "tcp"})
#: Words that introduce the instrument or the way, not an object to handle: "with the gripper", "using the camera".
_INSTRUMENT = frozenset({"with", "using", "via", "through"})
_RECIPIENT_PRONOUNS = frozenset({"me", "us"})
_OBJECT_PRONOUNS = frozenset({"it", "them", "this", "these", "those"})
#: Nouns of being collected: "for pickup", "for collection" say a thing left there is left for someone to take.
_PICKUP_NOUNS = frozenset({"pickup", "pick-up", "collection", "dispatch", "shipping", "shipment", "delivery"})
#: Verbs of carrying a thing toward someone: "fetch it for me", "bring one for us" may well mean to the speaker.
_TOWARD_SOMEONE = frozenset({"bring", "fetch", "get", "grab", "deliver", "carry", "send", "ship", "take", "pass", "hand"})
_ROBOT_SUBJECTS = frozenset({"you", "robot", "arm", "cobot", "i", "we", "please"})
#: Words a speaker corrects a request with ("hang it… er, put it on rack 1", "take… sorry, move it to bin 2").
_CORRECTION = frozenset({"er", "erm", "uh", "um", "umm", "sorry", "scratch"})
#: Verbs of causing before the robot's instrument and a request: "have the camera look at the seam".
_CAUSERS = frozenset({"have", "let", "get", "make"})


def read_clauses(text: str) -> tuple[Clause, ...]:
    tokens = english_tokens(text)
    out: list[Clause] = []
    sentences, items = _sentences(tokens, text)
    v = vocabulary()
    k = 0
    while k < len(sentences):
        sentence = _Sentence(sentences[k], text, v)
        # (a colon of its own between them: "Step 1: … gauge. Step 2: mallet …" has a list marker there, no heading)
        colon = k + 1 < len(sentences) and text[sentences[k][-1].end:sentences[k + 1][0].start].strip() == ":"
        if colon and sentence._counts_tasks():
            k += 1  # "Two things: rung to the left jig, leg to the right jig": how many, no object
            continue
        shared = _shared_goal(sentence, sentences[k + 1], text, v) if colon else None
        if shared is not None:
            out.extend(shared)  # "Two rackets to the pickup shelf: first the badminton one from …, second the tennis one from …"
            k += 2
            continue
        dash = k + 1 < len(sentences) and text[sentences[k][-1].end:sentences[k + 1][0].start].strip() in ("-", "–", "—")
        if (colon or dash) and not sentence._heads():
            joined = _Sentence(sentences[k] + sentences[k + 1], text, v)
            # "red cube: from bin 3 to the table", "From A to B: the red block", "Case rack to the press — the veneer sheet"
            if not joined._heads() and joined._verbless() is not None and (colon or joined._thing_after_route()):
                sentence = joined
                k += 1
        sentence.named_before = any(c.objects or c.mentions for c in out)
        found = sentence.clauses()
        if k in items:
            # "1) grab the camera 2) inspect seam 1": each item of a numbered list comes after the one before
            first = next((n for n, c in enumerate(found) if c.action is not None), None)
            if first is not None and found[first].order is None:
                found[first] = Clause(**{**_fields(found[first]), "order": "sequence"})
        out.extend(c for clause in found for c in _tool_change(clause, v))
        k += 1
    return tuple(out)


def _shared_goal(heading: "_Sentence", items: list[Token], text: str, v) -> list[Clause] | None:
    """"Two rackets to the pickup shelf: first the badminton one from the grip station, second the tennis one from …": a
    heading that counts things (two or more) to one place, then the things each with where it comes from and no place
    of its own to go — each goes to the heading's place, the heading itself is no further thing. None otherwise."""
    said = heading.clauses()
    if len(said) != 1 or said[0].action not in _CARRYING_ACTIONS or len(said[0].objects) != 1 or \
            not (said[0].objects[0].count or 0) >= 2 or [role for role, _ in said[0].places] != ["goal"]:
        return None
    rest = _Sentence(items, text, v)
    rest.named_before = True
    found = rest.clauses()
    if len(found) < 2 or any(c.action not in _CARRYING_ACTIONS or not c.objects or any(role == "goal" for role, _ in c.places)
                             for c in found):
        return None
    counted = said[0].objects[0]
    named = lambda o: o if o.noun is not None or counted.noun is None else replace(  # noqa: E731
        o, noun=counted.noun, words=tuple(w for w in o.words if w != "one") + (counted.noun,))  # "the badminton one": a racket
    return [Clause(**{**_fields(c), "places": c.places + said[0].places, "objects": tuple(named(o) for o in c.objects)})
            for c in found]


def _tool_change(clause: Clause, v) -> tuple[Clause, ...]:
    """"Swap the welder for the camera": the first tool comes off, then the second goes on — no tool is carried.
    "Then swap to the gripper" names only the tool that goes on: the one on the arm comes off first (the detach
    without a thing is the tool attached last)."""
    c = v.constructions
    if clause.action == "transfer" and verb_lemma(clause.verb.lower()) in c.tool_change and not clause.objects and len(clause.places) == 1 and \
            clause.places[0][1].obj is not None and clause.places[0][1].obj.noun in c.tools:
        # "then swap to the gripper": the tool on the arm comes off (whichever was fitted last), the named one goes on
        return (Clause("detach", clause.verb, clause.start, clause.end, order=clause.order),
                Clause("attach", clause.verb, clause.start, clause.end, (clause.places[0][1].obj,), order="sequence"))
    if clause.action != "transfer" or verb_lemma(clause.verb.lower()) not in c.tool_change or len(clause.objects) != 1 or \
            clause.objects[0].noun not in c.tools or len(clause.places) != 1:
        return (clause,)
    place = clause.places[0][1]
    new = place.obj if place.obj is not None else None
    if new is None or new.noun not in c.tools or clause.objects and new.noun == clause.objects[0].noun:
        return (clause,)
    return (Clause("detach", clause.verb, clause.start, clause.end, clause.objects, order=clause.order),
            Clause("attach", clause.verb, clause.start, clause.end, (new,), order="sequence"))


def _sentences(tokens: tuple[Token, ...], text: str) -> tuple[list[list[Token]], set[int]]:
    """The sentences, and which of them open the second or a later item of a numbered list ("1) ... 2) ...")."""
    sentences: list[list[Token]] = [[]]
    items: list[int] = []
    resume = 0
    dotted = _dotted_markers(tokens, text)
    for i, t in enumerate(tokens):
        if i < resume:
            continue
        if _list_marker(tokens, i, text) or i in dotted or t.low in _CIRCLED or _step_heading(tokens, i):
            if sentences[-1]:
                sentences.append([])
            items.append(len(sentences) - 1)
            resume = i + (1 if t.low in _CIRCLED else 3 if _step_heading(tokens, i) else 2)
            continue
        if t.low == "(":
            close = next((k for k in range(i + 1, len(tokens)) if tokens[k].low in (")", "(")), None)
            if close is not None and tokens[close].low == ")":
                # An aside: "(the red one)", "(see note 1)" add nothing to the clause around them; a statement of its own
                # between two clauses ("... first (it goes from rack A to the decapper), and then ...") is read as one.
                aside = list(tokens[i + 1:close])
                after = tokens[close + 1] if close + 1 < len(tokens) else None
                if (after is None or after.low in (",", ";", ".", "and", "then")) and (_states(aside) or _routes(aside)):
                    sentences += [aside, []]
                resume = close + 1
                continue
        if i and "\n" in text[tokens[i - 1].end:t.start] and sentences[-1]:
            sentences.append([])
        dash = t.kind == "punct" and t.low in ("-", "–", "—") and i and text[tokens[i - 1].end:t.start] and i + 1 < len(tokens) \
            and text[t.end:tokens[i + 1].start]
        if t.low == "." and i and tokens[i - 1].low in ("no", "nr", "num") and i + 1 < len(tokens) and tokens[i + 1].kind == "number":
            continue  # "bin no. 2": an abbreviation, not the end of a sentence
        so = t.low == "so" and i and tokens[i - 1].low == "," and i + 1 < len(tokens) and tokens[i + 1].low != "that"
        switch = t.low == "," and (switched(sentences[-1]) or switched(_to_comma(tokens, i + 1)))
        if t.kind == "punct" and t.low in _SENTENCE_END or dash or so or switch:  # "X is down, so ...": a new statement
            if sentences[-1]:
                sentences.append([])
            continue
        sentences[-1].append(t)
    later = {k for k in items[1:]}
    kept = [(k, s) for k, s in enumerate(sentences) if s]
    return [s for _, s in kept], {n for n, (k, _) in enumerate(kept) if k in later}


def _to_comma(tokens: tuple[Token, ...], i: int) -> list[Token]:
    end = next((k for k in range(i, len(tokens)) if tokens[k].kind == "punct" and tokens[k].low in _SENTENCE_END | {","}), len(tokens))
    return list(tokens[i:end])


def _states(tokens: list[Token]) -> bool:
    """Do these words hold a finite verb ("it goes ...", "they are ...")?"""
    return any(t.low in ("is", "are", "'s", "goes", "go") or t.low != t.verb and t.low.endswith("s") and t.low in verb_forms(t.verb, "VBZ")
               for t in tokens[1:] if t.kind == "word")


def _routes(tokens: list[Token]) -> bool:
    """Is this a route without a verb ("tray 2 to the cleaner", "left mat → UV box")? In brackets after a request
    ("Clean the shutter first (tray 2 to the cleaner), then …") it says where the request's thing goes."""
    return len(tokens) >= 3 and tokens[0].kind != "punct" and any(t.low in ("to", "→", "->", "into", "onto") for t in tokens[1:-1])


#: Circled numbers that open list items ("① … ②").
_CIRCLED = frozenset("①②③④⑤⑥⑦⑧⑨⑩")


def _dotted_markers(tokens: tuple[Token, ...], text: str) -> set[int]:
    """"1. … 2. …": numbers written with a full stop that count 1, 2, 3 … from the start of the text (or of a line, or
    after a colon), each opening a list item — not "put it on cart 2." at a sentence's end."""
    out: set[int] = set()
    expected = 1
    for i, t in enumerate(tokens):
        if t.kind != "number" or t.low != str(expected) or i + 1 >= len(tokens) or tokens[i + 1].low != "." or \
                tokens[i + 1].start != t.end or i + 2 >= len(tokens) or tokens[i + 2].kind != "word":
            continue
        if expected == 1 and not (i == 0 or tokens[i - 1].low == ":" or "\n" in text[tokens[i - 1].end:t.start]):
            continue
        out.add(i)
        expected += 1
    return out if len(out) > 1 else set()


def _step_heading(tokens: tuple[Token, ...], i: int) -> bool:
    """"Step 1: … Step 2: …", "Task 2 - …": a task word and its number opening a sentence, then a colon or dash, count
    the items of a list like "1) … 2) …" (the number is no place: "…, step 2")."""
    return tokens[i].low in _TASK_NOUNS and (i == 0 or tokens[i - 1].low in _SENTENCE_END) and i + 2 < len(tokens) and \
        tokens[i + 1].kind == "number" and tokens[i + 2].low in (":", "-", "–", "—", ")")


def _list_marker(tokens: tuple[Token, ...], i: int, text: str) -> bool:
    """"1)" or "2)" opening a list item: a number with ")" right after it and no "(" before it."""
    t = tokens[i]
    if t.kind != "number" or not t.low.isdigit() or i + 1 >= len(tokens) or tokens[i + 1].low != ")" or tokens[i + 1].start != t.end:
        return False
    opened = text.rfind("(", 0, t.start)
    return opened < 0 or text.rfind(")", 0, t.start) > opened


def _for_the_speaker(np, action: str | None, verb_tok) -> bool:
    """"for me", "for us" after a verb of moving or putting that does not carry things toward anyone (move, swap, put,
    shift): on the speaker's behalf — no recipient, no place."""
    return np.head is not None and np.head.low in _RECIPIENT_PRONOUNS and len(np.tokens) == 1 and \
        action in ("transfer", "place", "insert", "stack") and verb_tok is not None and verb_tok.verb not in _TOWARD_SOMEONE



class _Sentence(Constructions):
    def __init__(self, tokens: list[Token], text: str, vocab: Vocabulary) -> None:
        super().__init__(tokens, text, vocab)
        #: The verb a gapped clause shares with the clause before it ("..., then the blue cube in bin 2").
        self.shared: tuple[str | None, Token | None] = (None, tokens[0] if tokens else None)
        self._frames: dict[int, str | None] = {}  # token index -> the action its caused-motion frame gives

    # ------------------------------------------------------------------ heads
    def _action(self, i: int) -> str | None:
        tok = self.t[i]
        if tok.kind != "word":
            return None
        for lemma in (tok.verb, tok.low):  # "lay" is a form of "lie" and a verb of its own
            if lemma in self.v.en_actions:
                return self.v.en_actions[lemma]
        compound = compound_verb(tok.low, self.v)
        if compound is not None:
            return compound  # "tackweld", "spotweld": a routine name written as one word
        if tok.low in self.v.constructions.place_verbs and i + 1 < len(self.t) and \
                (self.t[i + 1].low in _OBJECT_PRONOUNS or self.t[i + 1].low in _ARTICLES or self.t[i + 1].low in ("that", "this") and i == 0):
            return "place"  # "Bin it.", "compost the roses", "Scrap that cracked blank": put it where the verb's noun says
        if 0 < i < len(self.t) - 1 and self.t[i + 1].kind == "word" and is_label(self.t[i + 1]) and \
                (self.t[i - 1].low in self.v.en_sequence or self.t[i - 1].kind == "punct"):
            # "…, then seam Pos_2": the first word of a two-word action ("seam weld") before a position, heading a clause;
            # any other verb before a position ("…, leave Pos_5 alone") is read as itself below
            first_word = next((a for phrase, a in self.v.en_actions.items() if phrase.startswith(f"{tok.low} ")
                               and phrase.split()[-1] in self.v.en_actions), None)
            if first_word is not None:
                return first_word
        if tok.low in ("do", "does") and i + 1 < len(self.t) and self.t[i + 1].low in ("not", "never"):
            return None  # "Do not carry the tray through …": the auxiliary of a negation, the verb after it is the request
        if tok.verb in _LIGHT_VERBS:
            return self._nominal_action(i) or self._run_on(i) or self._caused_motion(i)
        if self._changes_to_a_tool(i):
            return "transfer"  # "then switch to the camera": `_tool_change` makes it the camera's attaching
        if tok.verb in _LEAVE:
            return "leave"
        if i + 1 < len(self.t) and f"{tok.verb} {self.t[i + 1].low}" in self.v.en_actions:
            return self.v.en_actions[f"{tok.verb} {self.t[i + 1].low}"]
        return self._split_particle(i) or self._caused_motion(i)

    def _changes_to_a_tool(self, i: int) -> bool:
        """"switch to the camera", "change over to the welder": a verb of tool change whose goal is one of the robot's
        tools (the verb alone is a noun as often: "the switch", "a change of plan")."""
        c, end = self.v.constructions, len(self.t)
        if self.t[i].verb not in c.tool_change and self.t[i].low not in c.tool_change:
            return False
        k = i + 1 + (i + 1 < end and self.t[i + 1].low == "over")
        if k >= end or self.t[k].low != "to":
            return False
        np, _ = self._noun_phrase(k + 1, end)
        return np is not None and np.head is not None and np.head.noun in c.tools

    def _caused_motion(self, i: int) -> str | None:
        """"Send the box to the line", "throw the cuvette into the bin": any verb with an object and a goal after it moves
        that object there (English's caused-motion frame), whether or not the vocabulary knows the verb."""
        if i in self._frames:
            return self._frames[i]
        self._frames[i] = None  # the noun phrase reader below asks again for later words, never for this one
        tok, end = self.t[i], len(self.t)
        if tok.kind != "word" or not is_verb(tok.low) or tok.low in NOT_IN_NP or tok.low in DETERMINERS \
                or tok.noun in self.v.en_objects or tok.noun in self.v.en_places or tok.low in self.v.en_pronouns:
            return None
        if is_adjective(tok.low) and not (i + 1 < end and self.t[i + 1].low in _ARTICLES):
            return None  # "the red, blue and green cubes onto the tray": "green" describes; "clear the PCB out ..." acts
        nxt = self.t[i + 1] if i + 1 < end else None
        if is_noun(tok.low) and nxt is not None and nxt.kind == "word" and is_noun(nxt.low) and nxt.low not in DETERMINERS \
                and nxt.low not in self.v.en_pronouns and not is_label(nxt):
            return None  # "Archive box from shelf A to …", "fin set from the cart to …": a noun before a noun names the thing
        np, j = self._noun_phrase(i + 1, end)
        prep = self._preposition(j, end) if np is not None else None
        # ("run the tub from the press through the detector …": a thing taken from somewhere or along a way is carried,
        # whatever place its noun may name elsewhere — a tub, a tray)
        routed = prep is not None and prep[0] == "source" or j < end and self.t[j].low in self.v.constructions.via
        if np is None or self._names_place(np) and not routed or np.head is None:
            return None
        if prep is not None and prep[0] == "source":  # "from the lidding station to the packing line"
            _, j = self._noun_phrase(j + prep[1], end)
            prep = self._preposition(j, end)
        while prep is None and j < end and self.t[j].low in self.v.constructions.via and self._noun_phrase(j + 1, end)[0] is not None:
            _, j = self._noun_phrase(j + 1, end)  # "run the tray past the scanner to bin 3": the way, then the goal
            j += j < end and self.t[j].low == "and"  # "… through the metal detector and onto the rack"
            prep = self._preposition(j, end)
        if prep is not None and prep[0] == "goal" and self._noun_phrase(j + prep[1], end)[0] is not None:
            self._frames[i] = "transfer"
        return self._frames[i]

    def _run_on(self, i: int) -> str | None:
        """"run it on the flow tester", "run the board under the camera": "run" with a thing and a place it is run on (and
        no goal after it) is a check there, as "test it on the tester" is; "run the box through the metal detector" (or
        past it) carries it past that place on its way."""
        if self.t[i].verb != "run":
            return None
        end = len(self.t)
        np, j = self._noun_phrase(i + 1, end)
        if np is None or self._names_place(np) or j >= end or self.t[j].low not in ("on", "under", "through", "past"):
            return None
        place, k = self._noun_phrase(j + 1, end)
        through = self.t[j].low in ("through", "past")  # whatever a thing is run through is a place ("the metal detector")
        if place is None or not (self._names_place(place) or through and place.head is not None and
                                 place.head.low not in self.v.en_pronouns and not self._is_person(place)):
            return None
        after = self._preposition(k, end)
        if after is not None and after[0] == "goal":
            return None
        if through and self.text[self.t[-1].end:].lstrip().startswith(":"):
            return None  # "Run the carton through the tape machine: infeed to …": a heading, its routes follow
        # run through it: carried past it on the way (the lexicon's `passes`: a stop there), as "pass it through …" is
        return "transfer" if through else "inspect"

    def _split_particle(self, i: int) -> str | None:
        """"hold the red cube out", "pick it up": a phrasal verb whose particle follows its object."""
        verb = self.t[i].verb
        for k in range(i + 2, min(i + 8, len(self.t))):
            tok = self.t[k]
            if tok.kind == "punct" or self._preposition(k, len(self.t)) is not None and tok.low not in PARTICLES:
                return None
            if tok.low in PARTICLES and f"{verb} {tok.low}" in self.v.en_actions:
                return self.v.en_actions[f"{verb} {tok.low}"]
        return None

    def _is_head(self, i: int) -> bool:
        if is_past(self.t[i]):
            return False  # "yesterday we moved the blue cube to bin 2": what happened, not what to do
        j = i - 1
        while j >= 0 and self.t[j].kind == "word" and (self.t[j].low in self.v.en_manner or self.t[j].low.endswith("ly")
                                                        and self.t[j].low not in self.v.en_objects):
            j -= 1
        if i >= 2 and self.t[i - 1].low in (",", "and", "or") and i + 1 < len(self.t) and (self.t[i + 1].kind == "number" or is_label(self.t[i + 1])) and \
                (i + 2 == len(self.t) or self.t[i + 2].kind == "punct" or self.t[i + 2].low in CONJUNCTIONS) and \
                not (self.t[i].verb in self.v.en_actions and self.t[i].noun not in self.v.en_places):
            return False  # "rack A, slot 2", "seam 2 and seam 3": a noun with its number after a place, not "slot" the verb
            # ("…, and inspect Pos_2": a verb that names no place heads its clause)
        nxt = self.t[i + 1] if i + 1 < len(self.t) else None
        after = self.t[i + 2] if i + 2 < len(self.t) else None
        if nxt is not None and nxt.kind == "number" and self.t[i].noun in self.v.en_places and \
                not (after is not None and after.kind == "word" and after.noun in self.v.en_objects):
            return False  # "Seam 5 isn't fixtured yet": a place noun with its number, no verb ("Slot 2 cubes into …" is one)
        if j < 0:
            return True
        causer = self._causative(i)
        if causer is not None:
            j = causer - 1  # "then have the camera look at the seam": the camera is how, the verb after it the request
            if j < 0:
                return True
        prev = self.t[j]
        if prev.low in MODALS and j > 0 and self.t[j - 1].kind == "word" and self.t[j - 1].low not in _ROBOT_SUBJECTS \
                and self.t[j - 1].low not in HEAD_BEFORE:
            return False  # "someone will pick it up there", "the operator can take it": another person's doing
        if prev.low in MODALS and j > 1 and self.t[j - 1].low in ("i", "we") and self.t[j - 2].low in ("so", "that"):
            return False  # "…, so I can check it": what the speaker will do with it, the purpose of the request
        if prev.low == "to":  # "you to move": an infinitive; "to position A": a preposition
            wanting = self.t[j - 1] if j > 0 else None
            if wanting is not None and wanting.low in ("wants", "needs", "has", "likes", "wishes") and j > 1 and \
                    self.t[j - 2].low not in _ROBOT_SUBJECTS:
                return False  # "the operator wants to check it first": what someone else will do
            return j > 0 and self.t[j - 1].low in _BEFORE_INFINITIVE
        if j > 0 and f"{self.t[j - 1].low} {prev.low}" in self.v.en_sequence:
            return True  # "after that take the vial ...", "and then"
        return prev.kind == "punct" or prev.low in HEAD_BEFORE or prev.low in COURTESY or prev.low in self.v.en_sequence \
            or prev.low in self.v.en_after or prev.low in self.v.en_before  # "pls return it to rack 1"

    def _causative(self, i: int) -> int | None:
        """"have the camera look at …", "let the gripper take …": where the verb of causing stands before the robot's own
        instrument and the verb at i, None when there is no such construction."""
        k = i - 1
        while k >= 0 and self.t[k].kind == "word" and self.t[k].low not in _CAUSERS and (self.t[k].low in DETERMINERS or self.t[k].noun in self.v.en_objects
                                                                                     or self.t[k].low in _SELF):
            k -= 1
        if k < 0 or k == i - 1 or self.t[k].low not in _CAUSERS or not any(self.t[n].noun in self.v.en_objects or self.t[n].low in _SELF
                                                                         for n in range(k + 1, i)):
            return None
        return k

    def _heads(self) -> list[int]:
        heads = []
        for i in range(len(self.t)):
            if self._action(i) is not None and self._is_head(i):
                if heads and heads[-1] == i - 1 and self.t[heads[-1]].verb in ("go", "come"):
                    heads.pop()  # "go pick up the cube": one clause
                heads.append(i)
        return heads

    def _statements(self) -> list[tuple[int, int]]:
        """A sentence without a request, in its statements of where things go: "the beaker set goes to the sink, the
        test-tube rack goes to shelf 1" is two, split where a comma opens a new subject with such a verb."""
        goes = self.v.constructions.goes_to
        # (also after a statement of its own: "That dollar's been cleaned, it goes in the reject box")
        cuts = [k for k in range(1, len(self.t) - 1) if self.t[k].low == "," and self._goes_next(k + 1) and
                (any(tok.verb in goes for tok in self.t[:k]) or any(self._is_be(n) or self.t[n].low in ("has", "have", "had")
                                                                  for n in range(1, k)))]
        bounds = [0] + [k + 1 for k in cuts] + [len(self.t) + 1]
        return [(a, b - 1) for a, b in zip(bounds, bounds[1:])]

    def _goes_next(self, i: int) -> bool:
        """Does a noun phrase at i with its own verb of going follow ("the nuts go in bin 3", "the rack goes to shelf 1")?"""
        verb = next((k for k in range(i + 1, min(len(self.t), i + 7)) if self.t[k].verb in self.v.constructions.goes_to), None)
        if verb is None:
            return False
        np, j = self._noun_phrase(i, verb)  # up to the verb: the chunker would take "go" for a noun
        return np is not None and j == verb

    def _taken_later(self, i: int) -> bool:
        """Does the sentence go on to say that a person will take the thing from there ("…, I'll grab it later", "…, the
        courier will pick it up", "the customer collects it later", "she's picking it up")? Then "leave it there" is where
        to put it, not to leave it alone."""
        rest = self.t[i:]
        return any(rest[k].verb in _TAKE and rest[k + 1].low in _OBJECT_PRONOUNS and
                   (rest[k - 1].low in _WILL or rest[k].low != rest[k].verb) for k in range(1, len(rest) - 1))

    def _done_first(self, end: int, head: int) -> Clause | None:
        """"Water the cutting tray, then put it on shelf 1", "Glaze the mug and then set it on the kiln cart": a verb the
        vocabulary lacks with its thing, before a request to carry that thing — something done to the thing before it
        is put down, read as a stop on its way with no place (as "scan it, then drop it in bin A"). None otherwise, and
        for one of the robot's tools ("Use the screwdriver and put it back"): a tool is used, not worked on."""
        if end < 3 or not self._imperative_verb(0) or self.t[0].verb in _USING or self._action(head) not in _CARRYING_ACTIONS - {"pick"}:
            return None
        thing, k = self._noun_phrase(1, end)
        if thing is None or thing.head is None or self._is_person(thing) or thing.head.noun in self.v.constructions.tools or \
                any(t.kind == "word" and t.low not in ("then", "and", "first") for t in self.t[k:end]):
            return None
        if not (head + 1 < len(self.t) and self.t[head + 1].low in ("it", "them")):
            return None  # "Water the tray, then put the pot on shelf 1": two things
        return Clause("inspect", self.t[0].text, self.t[0].start, self.t[k - 1].end, (self._object(thing),))

    def _waits_before(self, previous_head: int, start: int) -> bool:
        """Between the clause before and this one, a subordinate of time that opens a state ("once it's pressed", "after
        it has cooled", "when that's done"): this clause waits for what the one before brings about."""
        return any(self.t[j].low in SUBORDINATORS and SUBORDINATORS[self.t[j].low] == "first" and self.t[j].low != "until" and
                   j + 1 < start and self.t[j + 1].low in SUBJECTS | {"it", "they", "that", "this", "the"}
                   for j in range(previous_head + 1, start))

    def _counts_tasks(self) -> bool:
        """A heading that only counts what follows ("Two things", "Both jobs", "3 items"): no object of its own."""
        words = [t for t in self.t if t.kind != "punct"]
        return len(words) >= 2 and (words[0].low in self.v.numbers or words[0].kind == "number" or words[0].low in QUANTIFIERS) and \
            all(t.noun in self.v.en_generic or t.noun in _TASK_NOUNS for t in words[1:])

    # ------------------------------------------------------------------ clauses
    def clauses(self) -> list[Clause]:
        heads = self._heads()
        if not heads:
            done = self._put_by_someone(0, len(self.t)) if self.t and self.t[0].low in ("i", "we", "he", "she", "they") else None
            if done is not None:
                return [done]  # "I left it on the brim press": where the thing is ("left it" is no thing on a route)
            which = self._which_one(0, len(self.t))
            if which is not None:
                return [which]
            return self._verbless() or [self._fact_or_context(a, b) for a, b in self._statements()]
        out: list[Clause] = []
        starts = [self._lead_start(h, heads[k - 1] if k else -1) for k, h in enumerate(heads)]
        then = False
        if starts[0] > 0:
            preamble = self.t[:starts[0]]
            sub = self._subordinate(0, starts[0])
            if sub is not None:
                # "Once the sensor is on station B, move ...": that comes first; "When you are there, ...": this comes next
                out.extend(Clause(**{**_fields(c), "order": "sequence"}) for c in sub[1])
                then = sub[1] or preamble[0].low in {w for w, when in SUBORDINATORS.items() if when == "first"}
            elif (first := self._done_first(starts[0], heads[0])) is not None:
                out.append(first)  # "Water the cutting tray, then put it on shelf 1": watered first, then put there
                then = True
            elif any(t.kind == "word" and not self._is_filler(t) for t in preamble):
                # "Red cube to bin 3 please, and leave the blue one ...": a request without a verb, or context
                lead = _Sentence(preamble, self.text, self.v)
                lead.named_before = self.named_before
                out.extend(lead._verbless() or [self._fact_or_context(0, starts[0])])
        for k, h in enumerate(heads):
            end = starts[k + 1] if k + 1 < len(heads) else len(self.t)
            lead = {t.low for t in self.t[starts[k]:h]}
            if k + 1 < len(heads) and any(t.low in _CORRECTION for t in self.t[h + 1:end]):
                continue  # "then hang it… er, put it on rack 1": the speaker corrects the request, the next one stands
            found = self._clause(starts[k], h, end, k)
            if k == 0 and then and found:
                found[0] = Clause(**{**_fields(found[0]), "order": found[0].order or "sequence"})
            if k > 0 and found and self._waits_before(heads[k - 1], starts[k]):
                # "take it to the press, and once it's pressed, put it on the shelf": after that state, hence after the task before
                found[0] = Clause(**{**_fields(found[0]), "order": found[0].order or "sequence"})
            if lead & {w for w, when in SUBORDINATORS.items() if when is None}:
                continue  # "if you can", "because you moved it": a condition or a reason
            if lead & set(SUBORDINATORS) and not any(_asks(c) for c in found):
                continue  # "when you get a chance": asks for nothing
            out.extend(found)
        if self._phrase_anywhere(IN_ORDER):
            # "put the cup on the tray and the bowl on the shelf, in that order": every task after the one before
            out = [Clause(**{**_fields(c), "order": c.order or "sequence"}) if c.action is not None else c for c in out]
        return out

    def _lead_start(self, head: int, prev_head: int) -> int:
        """The first token of the words that lead into this head ("then", "don't", "gently", "after you", "have the camera")."""
        causer = self._causative(head)
        i = head if causer is None or causer <= prev_head else causer
        while i - 1 > prev_head and (self._is_lead(self.t[i - 1]) or
                                     i - 2 > prev_head and f"{self.t[i - 2].low} {self.t[i - 1].low}" in self.v.en_sequence):
            before = self.t[i - 2] if i - 2 >= 0 else None
            if self.t[i - 1].low in self.v.en_manner and prev_head >= 0 and before is not None and \
                    (i - 2 == prev_head or not self._is_lead(before)):
                break  # "go slowly when you approach ...": the manner word ends the clause before
            i -= 1
        return i

    def _nominal_action(self, i: int) -> str | None:
        """"run a seam weld", "do an inspection", "perform a pick": a light verb and an action noun."""
        for k in range(i + 1, min(i + 5, len(self.t))):
            tok = self.t[k]
            if tok.kind != "word":
                return None
            for word in (tok.verb, tok.noun, tok.low.removesuffix("ion")):
                if word in self.v.en_actions and self.v.en_actions[word] in WORK | {"pick", "place", "transfer"}:
                    return self.v.en_actions[word]
        return None

    def _light_giving(self, head: int, end: int) -> tuple[str | None, int, int] | None:
        """"give it a quick steam at the steamer", "give the tray a rinse": a verb of giving, a thing that is no person, then
        "a"/"an" and a noun of an activity (a verb too, neither a thing nor a place the vocabulary knows) — the activity
        done to the thing ("quick" there says how long, not how fast the robot moves), with the index of the activity's
        article and the index after its noun. The action is the activity noun's ("give it a scan": inspect); one the
        vocabulary lacks ("a mist", "a rinse in the sink") is done to the thing held, a stop on its way as "put it through
        the washer" is — when the thing is surely a thing ("it", a noun the vocabulary knows, or one carried after: "give
        the tulips a mist and then put them in the crate"); after "them" or a noun it does not know ("give the runner a
        ticket") it may be a person handed something: None, so the clause is unread."""
        if head < 0 or self.t[head].verb not in _LIGHT_GIVING or head + 1 >= end:
            return None
        k = head + 1
        if self.t[k].low in _OBJECT_PRONOUNS:
            surely_a_thing = self.t[k].low == "it"
            k += 1
        else:
            k = next((m for m in range(k + 1, end) if self.t[m].low in ("a", "an") or self.t[m].kind != "word" or
                      self._preposition(m, end) is not None or self.t[m].low in CONJUNCTIONS), end)
            thing, _ = self._noun_phrase(head + 1, k)
            if thing is None or thing.head is None or self._is_person(thing):
                return None  # "give the chef a knife": to a person, a hand-over
            surely_a_thing = thing.head.noun in self.v.en_objects or thing.head.noun in self.v.en_places
        if k >= end or self.t[k].low not in ("a", "an"):
            return None
        m = k + 1
        while m + 1 < end and self.t[m + 1].kind == "word" and (self.t[m].low in self.v.en_manner or is_adjective(self.t[m].low)):
            m += 1  # "a quick", "a good", "a gentle"
        noun = self.t[m] if m < end else None
        if noun is None or noun.kind != "word" or not is_verb(noun.low) or noun.noun in self.v.en_objects or \
                noun.noun in self.v.en_places:
            return None
        action = self.v.en_actions.get(noun.low) or self.v.en_actions.get(noun.noun)
        action = action if action != "handover" else None
        # "give the tulips a mist and then put them in the crate": what is carried after is a thing, no person
        carried_after = any(self.t[j + 1].low in ("it", "them") and self._action(j) in _CARRYING_ACTIONS - {"handover"}
                            for j in range(m + 1, len(self.t) - 1))
        return (action or ("inspect" if surely_a_thing or carried_after else None)), k, m + 1

    def _verb_phrase(self, head: int, end: int) -> tuple[str | None, int]:
        """The action of the verb at `head` and the index after it: "pick up", "tack weld", "take a picture"."""
        verb = self.t[head].verb
        if verb in _LIGHT_VERBS and self._nominal_action(head) is None:
            return self._action(head), head + 1  # "run it on the tester", "run the tray past the scanner to bin 3"
        if verb in _LIGHT_VERBS:
            action = self._nominal_action(head)
            k = head + 1
            while k < end and not (self.t[k].verb in self.v.en_actions or self.t[k].noun in self.v.en_actions
                                   or self.t[k].low.removesuffix("ion") in self.v.en_actions):
                k += 1
            return action, min(k + 1, end)
        for n in (3, 2, 1):
            words = [t.low for t in self.t[head + 1:min(head + 1 + n, end)] if t.low not in _ARTICLES]
            taken = [t for t in self.t[head + 1:min(head + 1 + n, end)]]
            if len(taken) < n or not words or taken[-1].low in _ARTICLES:
                continue
            key = " ".join([verb] + [self.t[head + 1 + k].noun if k == len(taken) - 1 else self.t[head + 1 + k].low
                                     for k in range(len(taken)) if self.t[head + 1 + k].low not in _ARTICLES])
            if key in self.v.en_actions:
                multiword_prep = self._preposition(head + 1, end)
                if n == 1 and multiword_prep is not None and multiword_prep[1] > 1:
                    continue  # "take ... out of": the preposition, not the particle
                return self.v.en_actions[key], head + 1 + n
        return self._action(head), head + 1

    def _clause(self, start: int, head: int, end: int, index: int) -> list[Clause]:
        if head < 0:  # a gapped clause: the verb is the one before the gap
            action, verb_tok = self.shared
            lead: list[str] = []
            i = 0
        else:
            lead = [t.low for t in self.t[start:head]]
            verb_tok = self.t[head]
            action, i = self._verb_phrase(head, end)
        light = self._light_giving(head, end)
        passing = head >= 0 and verb_tok.verb in self.v.constructions.passes  # "pass it under the lamp": a way, no hand-over
        if light is not None:
            action = light[0]  # "give it a quick scan": the scan is the action, "it" its thing
        negated = any(w in NEGATORS for w in lead) or (self.t[head - 1].low == "not" if head > 0 else False)
        order = self._order(lead, index)
        objects: list[ObjectRef] = []
        places: list[tuple[str, PlaceRef]] = []
        excluded: list[ObjectRef] = []
        excluded_places: list[PlaceRef] = []
        manner = self._manner_words(self.t[start:head]) if head >= 0 else []
        last_role: str | None = None
        after_place = -1  # the token after the last place read: a landmark there locates that place ("the tray by the window")
        leave_alone = keep_on = beneficiary = False
        passed_by: list[PlaceRef] = []
        subordinate: tuple[str | None, list[Clause]] | None = None
        tail: int | None = None  # where a verb the vocabulary lacks starts a clause of its own
        statement: Clause | None = None  # "…, then it goes to the saw": a statement of where the thing goes, after this task
        if head >= 0 and action == "place" and verb_tok.low in self.v.constructions.place_verbs:
            # "Bin it": some bin, by its word only (no kind: the scrap box or the reject tote is as much a bin for it)
            places.append(("goal", PlaceRef(verb_tok.text, place_key(None, None, None, verb_tok.low), words=(verb_tok.low,))))
            last_role = "goal"
        if action == "inspect" and i < end and self.t[i].low == "of":
            i += 1  # "take a picture of position 1"
        while i < end:
            tok = self.t[i]
            in_order = self._phrase(i, end, IN_ORDER) or self._phrase(i, end, ON_THE_WAY)
            if in_order:
                i += in_order  # "at Pos_1 and Pos_5, one after the other": the order of the list (`clauses`), no place "one"
                continue
            if tok.low in ("that's", "thats", "which's") and objects and i + 1 < end and self.t[i + 1].low not in ("it", "all"):
                i += 1  # "the top cover that's sitting on station 2": where the object is, said in a relative clause
                while i < end and self.t[i].low in ("already", "still", "now", "currently", "just"):
                    i += 1
                continue
            if tok.low in ("that's", "thats") or tok.low == "nothing" and i + 1 < end and self.t[i + 1].low == "else":
                break  # "and that's it", "nothing else"
            if tok.low in SUBORDINATORS and i > head + 1 and not self._gapped_after_order(i, end):
                # ("…, and after that the seed tray to bench 2": an order phrase, no subordinate clause)
                subordinate = self._subordinate(i, end)
                break
            if i > head + 1 and (tok.low in SUBJECTS or tok.low == "so" or tok.low == "to" and self._infinitive(i + 1, end)):
                said = self._fact_or_context(i, end) if tok.low in SUBJECTS else None
                if said is not None and _locates(said):
                    statement = said  # "…, it's on the left mat": where the thing is, said after its task (where it is taken from)
                break  # "..., we're in a hurry", "so the operator can ...", "to free up the table": not part of this task
            if i > head + 1 and self.t[i - 1].low in ("and", ",", "then") and tok.kind == "word" and i + 1 < end and \
                    (self.t[i + 1].low in _ARTICLES and is_verb(tok.low) or self.t[i + 1].low in _OBJECT_PRONOUNS) and \
                    tok.noun not in self.v.en_objects and \
                    tok.noun not in self.v.en_places and self._action(i) is None and not self._phrase(i, end, EXCEPT) and \
                    tok.low not in NEGATORS and tok.low not in _INSTRUMENT and tok.low not in SUBORDINATORS and \
                    self._preposition(i, end) is None:
                # "fetch the screwdriver and finish the part ...", "… and wedge it …": a verb the vocabulary lacks starts its own clause;
                # when it is about the thing carried ("it"), where it puts it is read, to be reported as not understood
                tail = i if self.t[i + 1].low in _OBJECT_PRONOUNS else None
                break
            seq = self._phrase(i, end, self._sequence_phrases) if tok.low not in ("and", ",", "or", "then") else 0
            k = i + max(seq, 1)
            while k < end and self.t[k].low in ("then", "and") and (tok.low in (",", "and", "then") or seq):
                k += 1
            if i > head + 1 and (tok.low in (",", "and", "then") or seq) and self._new_statement(k, end):
                # "..., that one stays where it is", "..., the operator wants to check it": a statement of its own; "…, then it
                # goes to the saw" says where the thing goes next
                said = self._fact_or_context(k, end)
                if said.action is not None:
                    then = seq or "then" in {x.low for x in self.t[i:k]}
                    statement = Clause(**{**_fields(said), "order": "sequence" if then else said.order})
                    break
                if _locates(said) and tok.low == ",":
                    statement = said  # "…, the case is on the left mat": where the thing is (where it is taken from)
                    break
                if tok.low == ",":
                    break
            if (tok.low in ("and", ",", "or", "then") or seq) and i + max(seq, 1) < end:
                if tok.low == "then" or seq:
                    order = order or "sequence"  # "move to A, then B", "A followed by B"
                if objects and places and self._starts_object(i + max(seq, 1), end):
                    # "put the red cube in bin 1, then the blue cube in bin 2": the verb is shared, the tasks are two
                    rest = self._clause_from(i + max(seq, 1), end, action, verb_tok)
                    gapped = bool(seq) or "then" in {x.low for x in self.t[i:i + 2]}
                    first = Clause(action, verb_tok.text, self.t[start].start, self.t[i - 1].end, tuple(objects), tuple(places),
                                   tuple(excluded), negated, tuple(manner), order or ("sequence" if gapped else None),
                                   excluded_places=tuple(excluded_places))
                    return [first] + [Clause(**{**_fields(c), "order": c.order or ("sequence" if gapped else None)}) for c in rest
                                      if c.objects or c.places or c.manner]  # ", nothing else": no second task
                i += max(seq, 1)
                continue
            back_where = self._phrase(i, end, self.v.constructions.back_where) if tok.low == "where" else 0
            if back_where:
                # "put it back where it was(, the white rack)": the place it came from, named only by an apposition
                i += back_where
                np, j = self._noun_phrase(i + 1, end) if i + 1 < end and self.t[i].low == "," else (None, i)
                if np is not None and self._names_place(np):
                    places.append(("goal", self._place(np)))
                    last_role, i = "goal", j
                elif places and places[-1][0] == "location" and self.t[i - back_where - 1].kind != "punct":
                    # "put it on shelf B where it lives": the place just named is where it goes, the words say whose it is
                    places[-1] = ("goal", places[-1][1])
                    last_role = "goal"
                elif not any(role == "goal" for role, _ in places):
                    said = self.t[i - back_where].start
                    places.append(("goal", PlaceRef(self.text[said:self.t[i - 1].end], ORIGIN, ORIGIN)))  # its source, said elsewhere
                continue
            prep = self._preposition(i, end)
            if passing and negated and not objects and not places and i == head + 2 and self.t[head + 1].low in self.v.constructions.passes_along:
                np, j = self._noun_phrase(i, end)
                if np is not None and self._names_place(np) and not self._is_person(np):
                    passed_by.append(self._place(np))  # "don't pass over the waste drum": no thing said, the way ruled out
                    action = "transfer"
                    i = j
                    continue
            if passing and objects and tok.low in self.v.constructions.passes_along and (prep is None or prep[1] == 1):
                np, j = self._noun_phrase(i + 1, end)
                if np is not None and (np.head is not None or np.labels):
                    passed_by.append(self._place(np))  # "pass it under the inspection lamp": a place on the way
                    action = action if action in _CARRYING_ACTIONS - {"handover"} else "transfer"
                    i = j
                    continue
            if action == "leave" and tok.low == "on" and (i + 1 == end or self.t[i + 1].kind == "punct" or self.t[i + 1].low in CONJUNCTIONS):
                keep_on = True  # "leave the torch on": keep it mounted (and use it), not "leave it alone"
                i += 1
                continue
            if prep is not None and prep[1] > 1:
                pass  # "out of", "next to": a preposition even after a verb with a particle
            elif tok.low in PARTICLES:
                if f"{verb_tok.verb} {tok.low}" in self.v.en_actions:
                    action = self.v.en_actions[f"{verb_tok.verb} {tok.low}"]  # "pick it up", "hand it over"
                    i += 1
                    continue
                if prep is None or i + 1 >= end or self.t[i + 1].low in ("to", "into", "onto", "on", "in", "at", "from"):
                    i += 1  # "take the wrench back to the rack": "back" adds nothing
                    continue
            n_except = self._phrase(i, end, EXCEPT)
            if n_except:
                just_placed = bool(places) and (after_place == i or after_place == i - 1 and self.t[i - 1].low == ",")
                np, i = self._noun_phrase(i + n_except, end)
                one = self._place_one(np, places[-1][1]) if np is not None and just_placed else None
                if np is not None:
                    if self._names_place(np):
                        excluded_places.append(self._place(np))  # "in a bin, but not bin 3"
                    elif one is not None:
                        excluded_places.append(one)  # "on the upper shelf, not the lower one": that place's other side
                    else:
                        excluded.append(self._object(np))
                continue
            if prep is not None:
                role, n = prep
                if action == "handover" and tok.low == "at" and n == 1:
                    role = "recipient"  # "hand the book over at the desk": where the hand-over happens, not where it is taken
                np, j = self._noun_phrase(i + n, end)
                if role == "recipient" and tok.low == "for" and np is not None and np.head is not None and \
                        np.head.low in _PICKUP_NOUNS and places:
                    beneficiary = True  # "leave the box at the counter for pickup": there for someone to collect
                    i = j
                    continue
                if role == "recipient" and tok.low == "for" and np is not None and _for_the_speaker(np, action, verb_tok):
                    i = j  # "swap the trays for me", "move it for us": done on the speaker's behalf, nobody is handed anything
                    continue
                if role == "recipient" and tok.low == "for" and places and action != "handover" and np is not None and \
                        self._is_person(np):
                    # "leave the screen on the pickup shelf for the customer": whom it is meant for, once a place says
                    # where it goes; nobody is handed anything
                    beneficiary = True
                    i = j
                    continue
                if np is not None and role == "location" and places and i == after_place and \
                        self._phrase(i, end, tuple(self.v.constructions.landmarks)):
                    i = j  # "from the tray by the window": where the tray is, no second place
                    continue
                if np is not None:
                    place, j = self._place_of(np, j, end)
                    places.append((role, place))
                    last_role = role
                    i = after_place = j
                    continue
                if role == "location" and action == "leave":
                    leave_alone = True
                i += n
                continue
            manner_n = self._manner_at(i, end)
            if manner_n:
                kind, n = manner_n
                manner.append((kind, " ".join(t.text for t in self.t[i:i + n])))
                i += n
                continue
            if tok.low in self.v.leave_alone:
                leave_alone = True
                i += 1
                continue
            if tok.kind == "word" and i + 1 < end and self.t[i + 1].low in _OBJECT_PRONOUNS and tok.low not in self.v.en_objects \
                    and is_verb(tok.low):
                i += 1  # "hold it under the scanner": a verb the vocabulary does not know, not a noun before "it"
                continue
            if participle(tok) and tok.low not in self.v.en_objects and objects and self._preposition(i + 1, end):
                i += 1  # "the gear sitting on table A": where the object is
                continue
            if tok.low == "with" and action == "leave" and objects:
                np, j = self._noun_phrase(i + 1, end)
                if np is not None and self._is_person(np):
                    # "leave the kit with the customer (at the pickup point)": hand it over to them, not leave it alone
                    action = "handover"
                    places.append(("recipient", self._place(np)))
                    i = j
                    continue
            if (tok.low in _INSTRUMENT or tok.low == "past" and objects) and action not in ("attach", "detach"):
                np, j = self._noun_phrase(i + 1, end)  # "with the gripper": how, not what
                if np is not None and tok.low in self.v.constructions.via and (np.head is not None or np.labels):
                    passed_by.append(self._place(np))  # "through the washer", "past the scanner": a place on the way
                i = j if np is not None else i + 1
                continue
            if tok.low in _RECIPIENT_PRONOUNS and i == head + 1 and head >= 0:
                places.append(("recipient", PlaceRef(tok.text, "operator", "operator")))
                i += 1
                continue
            if light is not None and i == light[1]:
                i = light[2]  # the activity's noun phrase ("a quick steam") names no thing
                continue
            np, j = self._noun_phrase(i, light[1] if light is not None and i < light[1] else end)
            if np is not None and j + 1 < end and self.t[j].low == "of" and prep is None:
                whole, k = self._noun_phrase(j + 1, end)
                # ("images of Pos_1 and Pos_2": for a work action, what the images are of is where it happens)
                if whole is not None and not (whole.head is not None and whole.head.noun in self.v.en_places) and \
                        not (action in WORK and self._names_place(whole)):
                    # "the bag of M4 screws": one thing, named by its head; "the rest of the cubes", "two of the boxes": the
                    # complement names it
                    quantity = np.head is None or np.head.low in QUANTIFIERS or np.head.noun in self.v.en_generic or np.head.low == "rest"
                    np, j = (whole, k) if quantity else (np, k)
            if np is not None:
                if last_role is not None and self._follows_and(i) and (self._names_place(np) or np.head is None):
                    if np.head is None and not np.labels and np.count and np.count > 0:
                        np.labels.append(Token(str(np.count), str(np.count), np.tokens[0].start, np.tokens[0].end, "number",
                                               str(np.count), str(np.count)))  # "seams 1 and 5": the 5 is a label
                    place = self._place(np)
                    before = places[-1][1] if places else None
                    if np.head is None and before is not None and before.kind and place.label:
                        place = PlaceRef(place.text, place_key(before.kind, place.label, None, None), before.kind, place.label,
                                         words=before.words)  # "seams 1 and 5"
                    places.append((last_role, place))  # "to A and B"
                elif (action == "move_to" or action == "return_home" and (self._names_place(np) or np.head is None) or
                      (action in WORK and self._names_place(np))) and not (light is not None and i < light[1]):
                    places.append(("location", self._place(np)))
                    last_role = "location"
                elif action == "handover" and not objects and not any(role == "recipient" for role, _ in places) and \
                        self._preposition(j, end) is None and self._noun_phrase(j, end)[0] is not None and \
                        (self._is_person(np) or self._bare_recipient(np)):
                    places.append(("recipient", self._place(np)))  # "give the operator the gear": to whom, then what
                elif not objects and verb_tok.verb in self.v.constructions.fills and self._names_place(np) and \
                        np.head is not None and np.head.noun not in self.v.en_objects:
                    places.append(("goal", self._place(np)))  # "load the centrifuge": where things go, not a thing
                    last_role = "goal"
                elif np.head is None or np.head.low not in _SELF and np.head.noun not in _NOT_OBJECTS:
                    obj = self._object(np)
                    if not (obj.pronoun and objects):  # "take the wrench ... and lay it ...": "it" is the wrench again
                        objects.append(obj)
                i = j
                continue
            i += 1
        if action == "leave" and keep_on:
            return [Clause(None, verb_tok.text, self.t[start].start, self.t[i - 1].end, fact=True)]
        if action == "leave" and verb_tok.verb in self.v.constructions.via:
            # "skip the labeller", "bypass the wrapper", "skip the thermal camera": the place (or the instrument) passed by is
            # ruled out, not a thing left alone
            # (with its number: "skip seam 3" passes seam 3, not every seam; "skip Pos_1": an identifier names a place too)
            named = {id(o): noun_phrases(o.text)[1] for o in objects if not o.pronoun and o.text}
            passed = [o for o in objects if not o.pronoun and (o.noun in self.v.en_places or o.noun in self.v.constructions.tools or
                                                               o.noun is None and named[id(o)])]
            excluded_places += [named[id(o)][0] if named[id(o)] else
                                PlaceRef(o.text, place_key(self.v.en_places.get(o.noun), None, None, o.noun), self.v.en_places.get(o.noun),
                                         words=o.words) for o in passed]
            objects = [o for o in objects if o not in passed]
            if passed and not objects:
                return [Clause(None, verb_tok.text, self.t[start].start, self.t[max(i, head + 1, 1) - 1].end,
                               excluded_places=tuple(excluded_places), order=order)]
        if negated and passed_by and action in _CARRYING_ACTIONS | _MOVES:
            # "Don't put the endoscope case through the washer", "…, but don't go via the dryer": the place on the way is
            # ruled out, the thing still goes
            return [Clause(None, verb_tok.text, self.t[start].start, self.t[max(i, head + 1, 1) - 1].end,
                           excluded_places=tuple(excluded_places + passed_by), order=order, mentions=tuple(objects))]
        if passing and passed_by and not negated and not places:
            # "pass it under the scanner on the way": the thing is shown there on its way, no move of its own
            return [Clause(**{**_fields(stop_on_the_way(place, self.t[start].start, self.t[max(i, head + 1, 1) - 1].end, order)),
                              "objects": tuple(objects[:1])}) for place in passed_by]
        if head >= 0 and action == "place" and verb_tok.low in self.v.constructions.place_verbs and len(places) > 1 and \
                places[0][1].text == verb_tok.text and all(role in ("goal", "location") for role, _ in places[1:]):
            places = [("goal", places[1][1])] + places[2:]  # "bin it in the scrap bin": the bin named is where it goes
        if action == "leave" and places and (beneficiary or self._taken_later(i)):
            action = "place"  # "Just leave the board on the hand-over shelf, I'll grab it later": put it there for them
        if action == "leave":
            negated = True
        if action == "touch" and not negated:
            action = None
        negated = negated or (leave_alone and action is None)
        if action == "inspect" and not negated and len(places) > 1 and places[0][0] == "location" and \
                all(role == "goal" for role, _ in places[1:]) and subordinate is None and statement is None:
            # "hold it over the steamer, then onto the brim press": held at the one place, then put down at the other
            at = Clause("inspect", verb_tok.text, self.t[start].start, self.t[max(i, head + 1, 1) - 1].end, tuple(objects),
                        places[:1], manner=tuple(manner), order=order)
            it = ObjectRef("", None, pronoun=True)
            return [at, Clause("place", verb_tok.text, at.start, at.end, (it,), tuple(places[1:]), order="sequence")]
        clause = Clause(action if action != "leave" else None, verb_tok.text, self.t[start].start if self.t else 0,
                        self.t[max(i, head + 1, 1) - 1].end if self.t else 0,
                        tuple(objects), tuple(places), tuple(excluded), negated, tuple(manner), order,
                        excluded_places=tuple(excluded_places))
        route = by_way_of(clause, passed_by)
        if statement is not None:
            return route + [statement]
        if tail is not None:
            # what the unknown verb says is read but not placed: if it names things or places, the stage says it could not read it
            rest = self._clause_from(tail + 1, end, None, self.t[tail])
            return route + [r for r in rest if r.objects or r.places]
        if subordinate is None or not subordinate[1]:
            return route
        when, subs = subordinate
        named = [o for o in objects if not o.pronoun]
        if len(named) == 1:
            # "Hand the fob to the customer once it's been checked on the gauge": "it" there is this clause's thing
            subs = [Clause(**{**_fields(c), "objects": tuple(named[0] if o.pronoun else o for o in c.objects)}) for c in subs]
        if when == "first":
            return [Clause(**{**_fields(s), "order": "sequence"}) for s in subs] + \
                [Clause(**{**_fields(route[0]), "order": "sequence"})] + route[1:]
        if when == "later":
            return [Clause(**{**_fields(route[0]), "order": "sequence"})] + route[1:] + [Clause(**{**_fields(s), "order": "sequence"}) for s in subs]
        return route

    def _gapped_after_order(self, i: int, end: int) -> bool:
        """"…, and after that the seed tray to bench 2": an order phrase opening with a subordinator, then the next thing of
        the shared verb (not "when done", "after that's dry": a time or a state)."""
        n = self._phrase(i, end, self._sequence_phrases)
        return bool(n) and i + n < end and self._starts_object(i + n, end)

    @property
    def _sequence_phrases(self) -> tuple[str, ...]:
        """Order words of more than one word ("followed by", "after that"), which may join two parts of one clause."""
        return tuple(p for p in self.v.en_sequence if " " in p)

    def _starts_object(self, i: int, end: int) -> bool:
        """Does an object noun phrase (not a verb, not a place) start at i (after "then"/"and")?"""
        while i < end and self.t[i].low in ("then", "and", ",", "also", "next", "finally"):
            i += 1
        if i >= end or self._preposition(i, end) is not None or (self._action(i) is not None and self._is_head(i)) \
                or self._phrase(i, end, EXCEPT) or self.t[i].low in SUBJECTS:
            return False
        np, j = self._noun_phrase(i, end)
        if np is not None and np.tokens[-1].low == "one" and np.tokens[0].low == "the" and \
                (prep := self._preposition(j, end)) is not None and prep[0] in ("location", "source"):
            return True  # "…, then the one on shelf 3 to the cart": another of the thing named before, told apart by where it is
        return np is not None and not self._names_place(np) and np.head is not None and np.head.low not in self.v.en_pronouns

    def _clause_from(self, i: int, end: int, action: str | None, verb_tok: Token) -> list[Clause]:
        """The clause after a gap ("..., then the blue cube in bin 2"), read with the verb before it."""
        while i < end and self.t[i].low in ("then", "and", ",", "also", "next", "finally"):
            i += 1
        sub = _Sentence(self.t[i:end], self.text, self.v)
        sub.shared = (action, verb_tok)
        if any(t.verb in self.v.constructions.goes_to and t.low != t.verb for t in sub.t[1:]):
            stated = sub._fact_or_context(0, len(sub.t))  # "…, then the one on shelf 3 goes to the cart as well": a statement
            if stated.action is not None:
                return [stated]
        return sub._clause(0, -1, len(sub.t), 1)

    def _subordinate(self, i: int, end: int) -> tuple[str | None, list[Clause]] | None:
        """"once/after the sensor is on station B" (that happens first), "before ..." (later), "as/because ..." (context).

        A subordinate clause either has its own action verb ("after you move the ball to the tray") or states
        where an object is to be ("once the sensor is on station B"), which is a transfer to that place.
        """
        j = i
        while j < end and (self.t[j].low in SUBORDINATORS or self.t[j].low in ("only", "but", ",", "and", "then")):
            j += 1
        words = {self.t[k].low for k in range(i, j)}
        when = next((SUBORDINATORS[w] for w in words if w in SUBORDINATORS), None)
        if when is None:
            return (None, []) if words & set(SUBORDINATORS) else None
        if j >= end:
            return None  # "Return the camera after.": an adverb, no clause after it
        sub = _Sentence(self.t[j:end], self.text, self.v)
        heads = sub._heads()
        if heads:
            found = [c for k, h in enumerate(heads) for c in sub._clause(h if k else 0, h, len(sub.t) if k + 1 == len(heads) else heads[k + 1], k)]
            # "after you move the ball to the tray" orders a task; "when you get a chance" asks for nothing
            found = [c for c in found if _asks(c)]
            return (when, found) if found else (None, [])
        worked = sub._passive_work(0, len(sub.t))
        if worked is not None:
            return when, [worked]  # "once it's been checked on the key gauge": that check comes first
        state = sub._fact_or_context(0, len(sub.t))
        if state.action is not None and state.places:
            return when, [state]  # "before the gown from the ironer goes on cart 5": that move, in its place in the order
        if state.fact and state.objects and state.places:
            # "once the sensor is on station B": the sensor must be put there first
            return when, [Clause("transfer", "", state.start, state.end, state.objects, tuple(("goal", p) for _, p in state.places))]
        return None, []

    def _order(self, lead: list[str], index: int) -> str | None:
        joined = " ".join(lead)
        if any(p in f" {joined} " for p in (f" {q} " for q in self.v.en_sequence if " " in q)):
            return "sequence"  # "and after that", "followed by": this comes next, whatever single words it contains
        if any(w in self.v.en_after for w in lead) and "then" not in lead:
            return "after" if index > 0 else "sequence"
        if any(w in self.v.en_before for w in lead):
            return "sequence" if index > 0 else "before-lead"
        firsts = [k for k, w in enumerate(lead) if w in self.v.en_first]
        if firsts and any(w in self.v.en_sequence for w in lead[firsts[0] + 1:]):
            return "sequence"  # "knife back to its crate first, then bring …": the "first" ends the clause before
        if firsts or any(p in joined for p in self.v.en_first if " " in p):
            return "first"  # "first ...", "to start, ...": what follows comes after this
        if any(w in self.v.en_sequence for w in lead) or any(p in joined for p in self.v.en_sequence if " " in p):
            return "sequence"
        tail = " ".join(t.low for t in self.t)
        if index == 0 and " first" in f" {tail}":
            return "first"  # "move the apple first, then ..."
        return None


def noun_phrases(text: str) -> tuple[tuple[ObjectRef, ...], tuple[PlaceRef, ...]]:
    """The objects and places a text without a verb names ("Seam 2 with its inspection point", "Outfeed conveyor")."""
    sentence = _Sentence(list(english_tokens(text)), text, vocabulary())
    objects, places = [], []
    for np in sentence._coordinated(0, len(sentence.t)):
        if sentence._names_place(np):
            places.append(sentence._place(np))
        elif np.head is not None and np.head.noun in sentence.v.en_objects:
            objects.append(sentence._object(np))
    return tuple(objects), tuple(places)


def place_phrase(text: str) -> PlaceRef | None:
    """The place a text without a verb names as a whole ("right slot of the case", "folder", "the fill-level camera"),
    even one the vocabulary has no kind for; None when the words are more than one noun phrase."""
    sentence = _Sentence(list(english_tokens(text)), text, vocabulary())
    np, j = sentence._noun_phrase(0, len(sentence.t))
    if np is None or np.head is None:
        return None
    place, j = sentence._place_of(np, j, len(sentence.t))
    return place if j == len(sentence.t) else None


def compound_verb(word: str, v: Vocabulary) -> str | None:
    """"tackweld" = tack + weld: a word made of two action verbs is the last one's action."""
    if "_" in word or len(word) < 7:
        return None
    for cut in range(3, len(word) - 3):
        head, tail = word[:cut], word[cut:]
        if tail in v.en_actions and head in v.en_actions:
            return v.en_actions[tail]
    return None


def _asks(clause: Clause) -> bool:
    """A subordinate clause that orders a task ("after you move the ball to the tray", "before going to B"), not one that
    asks for nothing ("when you get a chance"): an action with a place."""
    return clause.action is not None and bool(clause.places) and (clause.action in _CARRYING_ACTIONS or clause.action in _MOVES or
                                                                   clause.action in WORK)


def _locates(said: Clause) -> bool:
    """A statement of where a thing is, at a place the vocabulary knows ("it's on the left mat", not "it's in the way")."""
    return said.fact and any(kind_of(p) is not None for _, p in said.places)


def _fields(clause: Clause) -> dict:
    return {f: getattr(clause, f) for f in Clause.__dataclass_fields__}
