"""What a program does, in the instruction's terms: the facts the program reader (`program.py`) produces.

A `Transfer` is a grasp and the release after it, each end a `Spot` with the
place and object evidence found there (`Named`: what the program says, and
where it says it). `Visit`s are the moves, `Work`s the routines (weld,
inspect, screw, tool changes). Evidence keeps its source (`identifier`,
`comment`, `cell`) because a pose name is stronger evidence than a comment.
"""

from __future__ import annotations

from dataclasses import dataclass

from plan_verifier.findings import Span
from plan_verifier.ir import Step
from plan_verifier.semantic.clauses import ObjectRef, PlaceRef

IDENTIFIER, COMMENT, CELL = "identifier", "comment", "cell"


@dataclass(frozen=True, slots=True)
class Named:
    """An object or place the program names, and where it says so."""

    quote: str
    source: str  # identifier | comment | cell
    step: int | None
    span: Span | None
    obj: ObjectRef | None = None
    place: PlaceRef | None = None
    known: bool = True  # the object noun is one the vocabulary knows (not just an unknown word in a name)


@dataclass(frozen=True)
class Spot:
    """Where a grasp, release or routine happens, with what the program says about it there."""

    step: Step
    xyz: tuple[float, float, float] | None
    places: tuple[Named, ...] = ()
    objects: tuple[Named, ...] = ()
    position: str | None = None  # the cell position (JSON plans)
    #: The identifiers of the cycle (the pose the gripper acts at first when `posed`), kept to be read again against the
    #: instruction's words for the object (`names.name_places`): `places` and `objects` hold their reading without it.
    names: tuple[Named, ...] = ()
    posed: bool = False


@dataclass(frozen=True)
class Transfer:
    index: int
    grasp: Spot
    release: Spot | None
    speeds: tuple[tuple[Step, float], ...]  # linear speeds (mm/s) from the approach of the grasp to the retreat after the release
    delay_after_grasp: bool

    @property
    def objects(self) -> tuple[Named, ...]:
        return self.grasp.objects + (self.release.objects if self.release else ())


@dataclass(frozen=True)
class Visit:
    step: Step
    xyz: tuple[float, float, float] | None
    places: tuple[Named, ...]
    home: bool
    names: tuple[Named, ...] = ()  # the target's identifier, to be read again against the carried object's words


@dataclass(frozen=True)
class Work:
    """A routine run at a place (JSON plans) or a weld command (TDL)."""

    step: Step
    action: str  # weld | inspect | screw | attach | detach | pick | place | the routine's own name
    routine: str
    spot: Spot
    tool: str | None
    tool_object: str | None  # the tool as an object class (Welder -> welder)


@dataclass(frozen=True)
class Activity:
    format: str
    transfers: tuple[Transfer, ...]
    visits: tuple[Visit, ...]
    works: tuple[Work, ...]
    speeds: tuple[tuple[Step, float], ...]  # every commanded linear speed (mm/s): moves, SetTaskVelocity, JSON velocity
    gripper_steps: int  # gripper commands the program issues
    tools: frozenset[str] = frozenset()  # the cell's tools as object classes: fetching one is attaching it
    positions: frozenset[str] = frozenset()  # the cell's position names (canonical): an instruction may name them verbatim

    @property
    def names_objects(self) -> bool:
        return any(t.objects for t in self.transfers) or any(w.tool_object for w in self.works)
