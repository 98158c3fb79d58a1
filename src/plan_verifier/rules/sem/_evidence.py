"""What the R-SEM rules make of a comparison: a confidence in a contradiction, or nothing to judge (abstain).

`semantic/grounding.py` relates what the instruction says to what the program
says (`Comparison.relation`, neutral); this is where a relation becomes a
judgement. The program's own words decide how sure it is:

| relation | confidence |
|---|---|
| another kind of place, another label/side/colour ("slot 2" / `Bin3_Place`; bin 2 / bin 3), another object class, colour or material | 0.9 from a pose name or cell position, 0.8 from a comment |
| another cell position named verbatim (JSON) | 0.9 |
| other coordinates than the instruction gives | 0.85 |
| another one of several ("the second box" / `Box_1`) | 0.75 from a name (a number in a name may count the picks), 0.8 from a comment |
| put down on a place, where the instruction says on top of an object | 0.8 from a name, 0.7 from a comment |
| only other free words ("the PET bin" / `ResidualBin`, "OCV tester" / `LaserMarker`, "croissant tray" / `MuffinTray`) | 0.75 / 0.7 — only when the same transfer names something else the way the instruction does (its object, or its other end), which shows the program's names follow the instruction's words; otherwise none |
| uncomparable, nothing named, or the program contradicting itself there (a name says one place, a comment another) | none: the rule abstains |
"""

from __future__ import annotations

from plan_verifier.semantic.activity import CELL, IDENTIFIER
from plan_verifier.semantic.grounding import (OTHER_CLASS, OTHER_COLOUR, OTHER_COORDINATES, OTHER_MATERIAL, OTHER_ORDINAL, OTHER_POSITION,
                                              OTHER_SUPPORT, Comparison, Pair)
from plan_verifier.semantic.places import OTHER_DESIGNATOR, OTHER_KIND, OTHER_WORDS

_PLAIN = frozenset({OTHER_KIND, OTHER_DESIGNATOR, OTHER_CLASS, OTHER_COLOUR, OTHER_MATERIAL})


def confidence(c: Comparison, corroborated: bool = False) -> float | None:
    """How sure the difference makes the rule that the plan contradicts the instruction; None when it cannot say."""
    if c.contradicted or not c.differs:
        return None
    named = c.found.source in (IDENTIFIER, CELL) if c.found is not None else False
    if c.relation in _PLAIN:
        return 0.9 if named else 0.8
    if c.relation == OTHER_POSITION:
        return 0.9
    if c.relation == OTHER_COORDINATES:
        return 0.85
    if c.relation == OTHER_ORDINAL:
        return 0.75 if named else 0.8
    if c.relation == OTHER_SUPPORT:
        return 0.8 if named else 0.7
    if c.relation == OTHER_WORDS and corroborated:
        return 0.75 if named else 0.7
    return None


def agrees(c: Comparison) -> bool:
    """The program names what the instruction says there, and nothing against it."""
    return c.same and not c.contradicted


def corroborated(pair: Pair, aspect: str) -> bool:
    """Does the same transfer name another aspect the way the instruction does (its object, or its other end)? Then its
    names follow the instruction's words, and a place or object it names in other words is another one."""
    others = {"object": (pair.source, pair.destination), "source": (pair.object, pair.destination),
              "destination": (pair.object, pair.source)}[aspect]
    return any(agrees(c) and c.found is not None for c in others)
