"""What the R-COL rules share: the deepest contact of each motion with one kind of thing, each contact once."""

from __future__ import annotations

from typing import Iterable, Iterator

from plan_verifier.motion.facts import Approach

#: A contact a motion starts in is the previous motion's (reported there: one mistake, one finding), unless the motion
#: takes the body deeper into the same thing than this (mm).
CARRIED_OVER_MM = 1.0


def carried_over(a: Approach) -> bool:
    """The motion starts in this contact, where the previous motion ended and was judged, and goes no deeper."""
    return a.start_mm is not None and a.start_mm < 0.0 and a.distance_mm >= a.start_mm - CARRIED_OVER_MM


def deepest(approaches: Iterable[Approach], kind: str, below: float = 0.0) -> Iterator[tuple[Approach, tuple[Approach, ...]]]:
    """Per motion and other thing: the deepest approach of `kind` under `below` mm, and all of them."""
    groups: dict[tuple[int, str, str], list[Approach]] = {}
    for a in approaches:
        if a.kind == kind and a.distance_mm < below and not carried_over(a):
            groups.setdefault((a.motion.step, a.motion.target, a.other if kind != "self" else ""), []).append(a)
    for group in groups.values():
        group.sort(key=lambda a: a.distance_mm)
        yield group[0], tuple(group)
