"""What the R-COL rules share: the deepest contact of each motion with one kind of thing."""

from __future__ import annotations

from typing import Iterable, Iterator

from plan_verifier.motion.facts import Approach


def deepest(approaches: Iterable[Approach], kind: str, below: float = 0.0) -> Iterator[tuple[Approach, tuple[Approach, ...]]]:
    """Per motion and other thing: the deepest approach of `kind` under `below` mm, and all of them."""
    groups: dict[tuple[int, str, str], list[Approach]] = {}
    for a in approaches:
        if a.kind == kind and a.distance_mm < below:
            groups.setdefault((a.motion.step, a.motion.target, a.other if kind != "self" else ""), []).append(a)
    for group in groups.values():
        group.sort(key=lambda a: a.distance_mm)
        yield group[0], tuple(group)
