"""The robot cell as the verifier sees it: an immutable snapshot of the knowledge graph.

Both backends (the embedded cell file and Neo4j) produce a `Cell`; every graph
check runs against one snapshot, so a verification reads a consistent graph
and costs no round trips per step. The YAML cell file (contract §4) is
validated with pydantic; `Cell.fingerprint` is a sha256 over the canonical
content, cheap to compare and recorded in approved YAML.

Besides the graph, a cell carries what the execution level needs to move a
robot through it (contract §7): the floor height, the clearance below which
a distance is a warning, the collision objects, joint angles for positions
that the integrator taught as joints, and each tool's TCP and collision shape.
All of it is optional: a cell without it has no obstacles.
"""

from __future__ import annotations

import hashlib
import json
import types
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Mapping

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from plan_verifier import yaml_text
from plan_verifier.collision.tool_shape import SixNumbers, ToolShape, ToolShapeSpec
from plan_verifier.graph.obstacles import FLOOR, CollisionObject, ObstacleSpec
from plan_verifier.resources import ConfigError

NO_TOOL = "none"
ROLES = ("home", "safe_approach", "tool_mount", "work")
TOOL_ATTACH = "tool_attach"
TOOL_RELEASE = "tool_release"


@dataclass(frozen=True, slots=True)
class Position:
    name: str
    role: str
    pose: tuple[float, ...] | None = None
    description: str | None = None
    #: Joint angles (deg) the robot takes at this position, when the cell gives them.
    joints: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    stand: str
    position: str
    type: str | None = None
    #: The TCP in the flange frame [x, y, z, rx, ry, rz] (mm, deg), when the cell gives it.
    tcp: tuple[float, ...] | None = None
    #: The tool's collision body on the flange, when the cell gives it.
    shape: ToolShape | None = None


@dataclass(frozen=True, slots=True)
class Support:
    """A :SUPPORTED_AT edge: where a routine may run, with its execution metadata."""

    position: str
    stabilize: float | None = None
    action_after: str | None = None
    verify: str | None = None

    def metadata(self) -> dict[str, Any]:
        return {k: v for k, v in (("stabilize", self.stabilize), ("action_after", self.action_after), ("verify", self.verify)) if v is not None}


@dataclass(frozen=True, slots=True)
class Routine:
    name: str
    kind: str  # tool_attach | tool_release | work
    required_tool: str | None = None
    description: str | None = None
    supported_at: Mapping[str, Support] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "supported_at", types.MappingProxyType(dict(self.supported_at)))


@dataclass(frozen=True)
class Cell:
    name: str
    positions: Mapping[str, Position]
    edges: frozenset[tuple[str, str]]
    tools: Mapping[str, Tool]
    routines: Mapping[str, Routine]
    initial_position: str | None = None
    initial_tool: str = NO_TOOL
    #: The floor (table) plane; None: not given (the robot spec's lowest Z applies).
    floor_z_mm: float | None = None
    #: Closer than this to anything is a warning; None: not given.
    clearance_mm: float | None = None
    collision_objects: Mapping[str, CollisionObject] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "positions", types.MappingProxyType(dict(self.positions)))
        object.__setattr__(self, "collision_objects", types.MappingProxyType(dict(self.collision_objects)))
        object.__setattr__(self, "tools", types.MappingProxyType(dict(self.tools)))
        object.__setattr__(self, "routines", types.MappingProxyType(dict(self.routines)))
        adjacency: dict[str, list[str]] = {}
        for a, b in sorted(self.edges):
            adjacency.setdefault(a, []).append(b)
        object.__setattr__(self, "_adjacency", types.MappingProxyType({k: tuple(v) for k, v in adjacency.items()}))
        object.__setattr__(self, "_stand_tool", types.MappingProxyType({t.position: t.name for t in self.tools.values()}))

    # -- questions every backend answers the same way ----------------------------
    def allows(self, src: str, dst: str) -> bool:
        """A move is allowed along an :ONLY_ALLOWED_MOVE_TO edge, or to where the robot already is."""
        return src == dst or (src, dst) in self.edges

    def neighbours(self, name: str) -> tuple[str, ...]:
        return self._adjacency.get(name, ())  # type: ignore[attr-defined]

    def tool_at(self, position: str) -> str | None:
        """The tool whose stand is at this position, if any."""
        return self._stand_tool.get(position)  # type: ignore[attr-defined]

    def support(self, routine: str, position: str) -> Support | None:
        """The :SUPPORTED_AT edge of `routine` at `position` (its execution metadata), if any."""
        found = self.routines.get(routine)
        return found.supported_at.get(position) if found is not None else None

    def supported_positions(self, routine: str) -> tuple[str, ...]:
        found = self.routines.get(routine)
        return tuple(sorted(found.supported_at)) if found is not None else ()

    def routines_using_at(self, tool: str, position: str) -> tuple[str, ...]:
        """Routines that need `tool` and are supported at `position` (seed 003's work-position check)."""
        return tuple(sorted(r.name for r in self.routines.values() if r.required_tool == tool and self.support(r.name, position) is not None))

    def stand_of(self, tool: str) -> str | None:
        """The position of `tool`'s stand, if the tool is known."""
        found = self.tools.get(tool)
        return found.position if found is not None else None

    def shortest_path(self, src: str, dst: str) -> list[str] | None:
        """Breadth-first shortest legal path (fewest moves), deterministic by name order."""
        if src == dst:
            return [src]
        previous: dict[str, str] = {src: src}
        queue = deque([src])
        while queue:
            node = queue.popleft()
            for nxt in self.neighbours(node):
                if nxt in previous:
                    continue
                previous[nxt] = node
                if nxt == dst:
                    path = [dst]
                    while path[-1] != src:
                        path.append(previous[path[-1]])
                    return path[::-1]
                queue.append(nxt)
        return None

    @cached_property
    def poses(self) -> Mapping[str, tuple[float, ...] | None]:
        """Position name -> pose (None without coordinates): the graph names a plan may move to, built once per snapshot."""
        return types.MappingProxyType({p.name: p.pose for p in self.positions.values()})

    @cached_property
    def fingerprint(self) -> str:
        """sha256 of the canonical cell file; computed once per snapshot."""
        return _fingerprint(self)

    def to_file_dict(self) -> dict[str, Any]:
        """The contract §4 cell-file shape (two-way moves folded into `moves`)."""
        two_way = sorted({tuple(sorted(e)) for e in self.edges if (e[1], e[0]) in self.edges and e[0] != e[1]})
        one_way = sorted(e for e in self.edges if (e[1], e[0]) not in self.edges)
        out: dict[str, Any] = {"name": self.name}
        if self.initial_position or self.initial_tool != NO_TOOL:
            out["initial_state"] = {"position": self.initial_position, "tool": self.initial_tool}
        if self.floor_z_mm is not None:
            out["floor_z_mm"] = self.floor_z_mm
        if self.clearance_mm is not None:
            out["clearance_mm"] = self.clearance_mm
        out["positions"] = [
            {k: v for k, v in (("name", p.name), ("role", p.role), ("pose", list(p.pose) if p.pose else None), ("description", p.description),
                               ("joints", list(p.joints) if p.joints else None)) if v is not None}
            for p in sorted(self.positions.values(), key=lambda p: p.name)
        ]
        out["moves"] = [list(e) for e in two_way]
        out["one_way_moves"] = [list(e) for e in one_way]
        out["tools"] = [
            {k: v for k, v in (("name", t.name), ("type", t.type), ("stand", t.stand), ("position", t.position),
                               ("tcp", list(t.tcp) if t.tcp else None), ("shape", t.shape.to_spec() if t.shape else None)) if v is not None}
            for t in sorted(self.tools.values(), key=lambda t: t.name)
        ]
        out["routines"] = [
            {k: v for k, v in (
                ("name", r.name), ("kind", r.kind), ("required_tool", r.required_tool), ("description", r.description),
                ("supported_at", [{"position": s.position, **s.metadata()} for s in sorted(r.supported_at.values(), key=lambda s: s.position)]),
            ) if v is not None}
            for r in sorted(self.routines.values(), key=lambda r: r.name)
        ]
        if self.collision_objects:
            out["collision_objects"] = [o.to_file_dict() for _, o in sorted(self.collision_objects.items())]
        return out


def _fingerprint(cell: Cell) -> str:
    canonical = json.dumps(cell.to_file_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- the cell file


class _Strict(BaseModel):
    # Validators built when a cell file is first read, not when the module is imported: a check without a cell
    # (and `import plan_verifier.report`) never pays for them.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, defer_build=True)


class _PositionModel(_Strict):
    name: str = Field(min_length=1)
    role: Literal["home", "safe_approach", "tool_mount", "work"]
    pose: list[float] | None = None
    description: str | None = None
    joints: SixNumbers | None = None

    @field_validator("pose")
    @classmethod
    def _pose_len(cls, v: list[float] | None) -> list[float] | None:
        if v is not None and len(v) not in (3, 6):
            raise ValueError("pose needs 6 numbers (x, y, z, rx, ry, rz) or 3 (x, y, z)")
        return v


class _ToolModel(_Strict):
    name: str = Field(min_length=1)
    stand: str = Field(min_length=1)
    position: str = Field(min_length=1)
    type: str | None = None
    tcp: SixNumbers | None = None
    shape: ToolShapeSpec | None = None


class _SupportModel(_Strict):
    position: str
    stabilize: float | None = None
    action_after: str | None = None
    verify: str | None = None


class _RoutineModel(_Strict):
    name: str = Field(min_length=1)
    kind: Literal["tool_attach", "tool_release", "work"] | None = None
    required_tool: str | None = None
    description: str | None = None
    supported_at: list[_SupportModel] = Field(default_factory=list)


class _InitialState(_Strict):
    position: str | None = None
    tool: str = NO_TOOL


class CellFile(_Strict):
    name: str = Field(min_length=1)
    initial_state: _InitialState | None = None
    positions: list[_PositionModel]
    moves: list[tuple[str, str]] = Field(default_factory=list)
    one_way_moves: list[tuple[str, str]] = Field(default_factory=list)
    tools: list[_ToolModel] = Field(default_factory=list)
    routines: list[_RoutineModel] = Field(default_factory=list)
    floor_z_mm: float | None = None
    clearance_mm: float | None = Field(default=None, ge=0)
    collision_objects: list[ObstacleSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references(self) -> "CellFile":
        names = [p.name for p in self.positions]
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"duplicate position names: {', '.join(dup)}")
        obstacles = [o.name for o in self.collision_objects]
        if len(set(obstacles)) != len(obstacles):
            dup = sorted({n for n in obstacles if obstacles.count(n) > 1})
            raise ValueError(f"collision_objects: duplicate names: {', '.join(dup)}")
        if FLOOR in obstacles:
            raise ValueError(f"collision_objects: '{FLOOR}' is the name of the floor plane (floor_z_mm); call the object something else")
        known = set(names)
        for kind, pairs in (("moves", self.moves), ("one_way_moves", self.one_way_moves)):
            for a, b in pairs:
                for end in (a, b):
                    if end not in known:
                        raise ValueError(f"{kind} refers to unknown position '{end}'")
        tools = {t.name for t in self.tools}
        for t in self.tools:
            if t.position not in known:
                raise ValueError(f"tool '{t.name}' stands at unknown position '{t.position}'")
        for r in self.routines:
            for s in r.supported_at:
                if s.position not in known:
                    raise ValueError(f"routine '{r.name}' is supported at unknown position '{s.position}'")
            if r.required_tool and r.required_tool not in tools:
                raise ValueError(f"routine '{r.name}' requires unknown tool '{r.required_tool}'")
        if self.initial_state and self.initial_state.position and self.initial_state.position not in known:
            raise ValueError(f"initial_state.position '{self.initial_state.position}' is not a position")
        if self.initial_state and self.initial_state.tool not in tools | {NO_TOOL}:
            raise ValueError(f"initial_state.tool '{self.initial_state.tool}' is not a tool")
        return self

    def to_cell(self) -> Cell:
        edges: set[tuple[str, str]] = set()
        for a, b in self.moves:
            edges.add((a, b))
            edges.add((b, a))
        edges.update((a, b) for a, b in self.one_way_moves)
        routines = {}
        for r in self.routines:
            routines[r.name] = Routine(
                r.name,
                routine_kind(r.name, r.kind),
                r.required_tool,
                r.description,
                {s.position: Support(s.position, s.stabilize, s.action_after, s.verify) for s in r.supported_at},
            )
        initial = self.initial_state or _InitialState()
        home = next((p.name for p in self.positions if p.role == "home"), None)
        return Cell(
            name=self.name,
            positions={p.name: Position(p.name, p.role, tuple(p.pose) if p.pose else None, p.description, _floats(p.joints))
                       for p in self.positions},
            edges=frozenset(edges),
            tools={t.name: Tool(t.name, t.stand, t.position, t.type, _floats(t.tcp), t.shape.tool_shape() if t.shape else None)
                   for t in self.tools},
            routines=routines,
            initial_position=initial.position or home,
            initial_tool=initial.tool,
            floor_z_mm=self.floor_z_mm,
            clearance_mm=self.clearance_mm,
            collision_objects={o.name: o.value() for o in self.collision_objects},
        )


def _floats(values: list[float] | None) -> tuple[float, ...] | None:
    return tuple(float(v) for v in values) if values is not None else None


def routine_kind(name: str, kind: str | None) -> str:
    """`tool_attach`/`tool_release` are recognised by kind and by name (contract §4)."""
    if kind in (TOOL_ATTACH, TOOL_RELEASE):
        return kind
    if name in (TOOL_ATTACH, TOOL_RELEASE):
        return name
    return "work"


def parse_cell(raw: Any, origin: str = "cell") -> Cell:
    if not isinstance(raw, dict):
        raise ConfigError(f"invalid cell file {origin}: expected a mapping at the top level")
    try:
        return CellFile.model_validate(raw).to_cell()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"invalid cell file {origin}: {where}: {first['msg']}{more}") from None


def load_cell_file(path: str | Path) -> Cell:
    path = Path(path)
    try:
        raw = yaml_text.load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"invalid cell file {path}: {exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
    return parse_cell(raw, str(path))
