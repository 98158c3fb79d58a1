"""The Neo4j backend: the cell graph read over Bolt with the official `neo4j` driver.

Query strategy. A verification asks for one `Cell` snapshot. The backend first
sends one cheap version query: the version that `plan-verify graph load`
stamps on a `:PlanVerifierCell` node (the cell's fingerprint). When it matches
the cached snapshot, that snapshot is used: one round trip per verification,
whatever the plan's length or the cell's size. Otherwise one `UNION ALL` query
streams the whole graph (one round trip, one statement, hence one consistent
view) and the result is cached under the version it carried. Graphs without a
version stamp are never cached, and a cached snapshot is read again after
`cache_ttl_s` whatever the stamp says: that bounds how long an edit made
without `graph load` (and without bumping the stamp) can go unseen. (Element
counts would catch more such edits, but counting several labels in one
statement scans the graph on FalkorDB: 16-40 ms at 10,000 positions against
0.5 ms for the stamp.)

`strategy="per_step"` reproduces seed 003 for comparison: three bulk queries,
then one query per move (`is_move_allowed`) and per routine check
(`get_routine_metadata`), with no cache and no consistent view.

Portability (Neo4j 5 and FalkorDB's Bolt endpoint): every query is an
auto-commit query in the default access mode with parameters only - no
explicit transactions, no read-mode sessions, no server-side query timeout, no
parameter larger than a few KB - because FalkorDB 4.x mishandles each of those
(docs/graph.md lists why). Labels and relationship types are fixed text, never
built from data.

Failures never escape as driver errors: a call that fails, or does not answer
within `timeout_s`, raises `GraphUnavailable` (reason `tool_failure` or
`tool_timeout`), which the pipeline reports as R-GRF-000. Calls run on daemon
worker threads so that a server that stops answering cannot hold the caller
beyond the timeout; a timed-out driver is closed and replaced, so the next
verification reconnects by itself once the server is back. The password comes
only from `PLAN_VERIFIER_GRAPH_PASSWORD` and is never logged or shown.
"""

from __future__ import annotations

import json
import logging
import math
import os
import queue
import threading
import time
import uuid
from concurrent.futures import Future, TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence
from urllib.parse import urlsplit, urlunsplit

import neo4j
from neo4j import exceptions as neo4j_errors

from plan_verifier.collision.shapes import Box, Capsule, Cylinder, Sphere
from plan_verifier.collision.tool_shape import ToolShape
from plan_verifier.graph.model import NO_TOOL, Cell, Position, Routine, Support, Tool, routine_kind
from plan_verifier.graph.obstacles import FLOOR, CollisionObject
from plan_verifier.graph.port import GraphUnavailable
from plan_verifier.resources import ConfigError

PASSWORD_ENV = "PLAN_VERIFIER_GRAPH_PASSWORD"
STRATEGIES = ("snapshot", "per_step")
#: Label of the node `graph load` writes: cell name, initial state and version.
META_LABEL = "PlanVerifierCell"
#: A version that marks a load in progress; verifications fail closed until it ends.
LOADING_PREFIX = "loading:"
#: Budget for one query's parameters, as JSON text. FalkorDB 4.x renders the
#: parameters into a 4096-byte buffer server-side; larger ones crash its Bolt listener.
PARAM_BUDGET = 2800
_SCHEMA_LABELS = ("Position", "Routine", "Tool", "ToolStand", "CollisionObject")

logging.getLogger("neo4j").addHandler(logging.NullHandler())  # no driver chatter on a CLI's stderr

# ----------------------------------------------------------------------------- queries
#: What the graph holds, kind by kind: the pattern, and one item per match in the
#: shape (a, b, c, d, nums, extra) that `build_cell` reads.
_ELEMENTS = {
    "position": ("MATCH (p:Position)", "[p.name, p.role, p.description, null, [p.x, p.y, p.z, p.rx, p.ry, p.rz], p.joints]"),
    "move": ("MATCH (s:Position)-[:ONLY_ALLOWED_MOVE_TO]->(t:Position)", "[s.name, t.name, null, null, null, null]"),
    "tool": ("MATCH (t:Tool)-[:TOOL_AVAILABLE_AT]->(s:ToolStand)-[:LOCATED_AT]->(p:Position)",
             "[t.name, s.name, p.name, t.type, [t.sx, t.sy, t.sz, t.radius, t.length], [t.shape, t.tcp, t.shape_pose]]"),
    "routine": ("MATCH (r:Routine)", "[r.name, r.kind, r.required_tool, r.description, null, null]"),
    "support": ("MATCH (r:Routine)-[e:SUPPORTED_AT]->(p:Position)", "[r.name, p.name, e.action_after, e.verify, [e.stabilize], null]"),
    "obstacle": ("MATCH (o:CollisionObject)",
                 "[o.name, o.shape, null, null, [o.x, o.y, o.z, o.rx, o.ry, o.rz, o.sx, o.sy, o.sz, o.radius, o.height], null]"),
    "meta": (f"MATCH (m:{META_LABEL})", "[m.name, m.initial_position, m.initial_tool, m.version, [m.floor_z_mm, m.clearance_mm], null]"),
}
#: Items per streamed record. One record per element costs ~30 us each on the wire and in the
#: driver (a 10,000-position cell took 1.2 s to read); FalkorDB cannot send a record beyond
#: ~64 KB, so the whole graph in one record is not an option either.
CHUNK = 100
SNAPSHOT_QUERY = " UNION ALL ".join(
    f"{match} WITH collect({item}) AS items UNWIND range(0, size(items) - 1, {CHUNK}) AS i "
    f"RETURN '{kind}' AS kind, items[i..i + {CHUNK}] AS part"
    for kind, (match, item) in _ELEMENTS.items())


def elements_query(kind: str) -> str:
    """One record per element of a kind: seed 003's bulk loads (`get_all_positions` ...)."""
    match, item = _ELEMENTS[kind]
    return f"{match} RETURN {item} AS item"


VERSION_QUERY = f"MATCH (m:{META_LABEL}) RETURN m.version AS version"
# Seed 003's per-step questions.
IS_MOVE_ALLOWED = "MATCH (a:Position {name: $src})-[:ONLY_ALLOWED_MOVE_TO]->(b:Position {name: $dst}) RETURN count(*) AS n"
ROUTINE_METADATA = ("MATCH (r:Routine {name: $routine})-[e:SUPPORTED_AT]->(p:Position {name: $position}) "
                    "RETURN e.stabilize AS stabilize, e.action_after AS action_after, e.verify AS verify")


class QueryRejected(GraphUnavailable):
    """The server answered, but refused the query (a syntax it lacks, an index that already exists)."""


@dataclass(frozen=True)
class LoadSummary:
    positions: int
    moves: int
    tools: int
    routines: int
    supports: int
    collision_objects: int
    removed: int
    schema: str  # "constraints" (Neo4j 5) or "indexes" (servers without uniqueness constraints)
    fingerprint: str


class Neo4jGraph:
    """A `GraphPort` over Bolt (Neo4j 5, or FalkorDB's Bolt endpoint)."""

    def __init__(
        self,
        uri: str,
        *,
        user: str = "neo4j",
        database: str | None = None,
        timeout_s: float = 5.0,
        strategy: str = "snapshot",
        cache_ttl_s: float = 10.0,
    ) -> None:
        if strategy not in STRATEGIES:
            raise ConfigError(f"unknown graph query strategy '{strategy}' (expected one of {', '.join(STRATEGIES)})")
        if not timeout_s > 0:
            raise ConfigError("the graph timeout must be a positive number of seconds")
        self.uri = uri
        self.user = user
        self.database = database or None
        self.timeout_s = float(timeout_s)
        self.strategy = strategy
        self.cache_ttl_s = float(cache_ttl_s)
        self._auth = neo4j.basic_auth(user, os.environ.get(PASSWORD_ENV, ""))
        self._lock = threading.Lock()
        self._driver: Any = None
        self._round_trips = 0
        self._cache: tuple[str, Cell, float] | None = None  # (version stamp, snapshot, when read)
        self._closed = False
        self._new_driver()  # a malformed URI is a configuration error, reported now

    # ------------------------------------------------------------------ GraphPort
    def snapshot(self) -> Cell:
        if self.strategy == "per_step":
            return LiveCell.open(self)
        version = self._version()
        with self._lock:
            cached = self._cache
        if cached is not None and version is not None and cached[0] == version and time.monotonic() - cached[2] < self.cache_ttl_s:
            return cached[1]
        cell, version = self._read_all()
        with self._lock:
            self._cache = (version, cell, time.monotonic()) if version is not None else None
        return cell

    def describe(self) -> str:
        where = f"neo4j {_public_uri(self.uri)}"
        return where + (f" database {self.database}" if self.database else "") + ("" if self.strategy == "snapshot" else f" ({self.strategy})")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            driver, self._driver = self._driver, None
        if driver is not None:
            _close_quietly(driver)

    @property
    def round_trips(self) -> int:
        """Queries sent to the server so far (each one RUN + PULL exchange)."""
        with self._lock:
            return self._round_trips

    # ------------------------------------------------------------------ reading
    def export(self) -> Cell:
        """A fresh, uncached read of the whole graph (for `graph export` and after `graph load`)."""
        return self._read_all()[0]

    def _version(self) -> str | None:
        rows = self.query(VERSION_QUERY)
        version = _text(rows[0][0]) if len(rows) == 1 else None  # several stamps: not a graph `graph load` wrote
        _refuse_loading(version)
        return version

    def _read_all(self) -> tuple[Cell, str | None]:
        parts: dict[str, list[Sequence[Any]]] = {kind: [] for kind in _ELEMENTS}
        for kind, part in self.query(SNAPSHOT_QUERY):
            parts[kind].extend(part)
        meta = parts["meta"][0] if len(parts["meta"]) == 1 else None
        stamp = _text(meta[3]) if meta else None
        _refuse_loading(stamp)
        return self._cell(parts["position"], parts["move"], parts["tool"], parts["routine"], parts["support"], parts["obstacle"], meta), stamp

    def _cell(self, positions, moves, tools, routines, supports, obstacles, meta) -> Cell:
        support_map: dict[str, dict[str, Support]] = {}
        for routine, position, action_after, verify, nums, _ in supports:
            stabilize = nums[0] if nums else None
            support_map.setdefault(routine, {})[position] = Support(position, _number(stabilize), _text(action_after), _text(verify))
        return build_cell(self._name(meta), positions, ((a, b) for a, b, *_ in moves), tools, routines, support_map, obstacles, meta)

    def _name(self, meta: Sequence[Any] | None) -> str:
        return (_text(meta[0]) if meta else None) or self.database or "neo4j"

    # ------------------------------------------------------------------ writing
    def load(self, cell: Cell) -> LoadSummary:
        """Make the graph equal to `cell` (idempotent MERGE; elements the cell lacks are removed).

        The version stamp says "loading" until the end, so a verification that
        reads the graph half-written fails closed instead of trusting it.
        """
        schema = self._schema()
        self.query(f"MERGE (m:{META_LABEL} {{key: 'cell'}}) SET m.version = $version", version=f"{LOADING_PREFIX}{uuid.uuid4()}")
        removed = self._prune(cell)
        positions = [{"name": p.name, "role": p.role, "description": p.description, **_pose_props(p.pose),
                      "joints": list(p.joints) if p.joints else None} for p in cell.positions.values()]
        self._batched("UNWIND $rows AS row MERGE (p:Position {name: row.name}) SET p.role = row.role, p.description = row.description, "
                      "p.x = row.x, p.y = row.y, p.z = row.z, p.rx = row.rx, p.ry = row.ry, p.rz = row.rz, p.joints = row.joints", positions)
        self._batched("UNWIND $rows AS row MERGE (t:Tool {name: row.name}) SET t.type = row.type, t.tcp = row.tcp, t.shape = row.shape, "
                      "t.sx = row.sx, t.sy = row.sy, t.sz = row.sz, t.radius = row.radius, t.length = row.length, t.shape_pose = row.shape_pose "
                      "MERGE (s:ToolStand {name: row.stand}) "
                      "WITH t, s, row MATCH (p:Position {name: row.position}) MERGE (t)-[:TOOL_AVAILABLE_AT]->(s) MERGE (s)-[:LOCATED_AT]->(p)",
                      [{"name": t.name, "type": t.type, "stand": t.stand, "position": t.position, **_tool_props(t)} for t in cell.tools.values()])
        self._batched("UNWIND $rows AS row MERGE (o:CollisionObject {name: row.name}) SET o.shape = row.shape, "
                      "o.x = row.x, o.y = row.y, o.z = row.z, o.rx = row.rx, o.ry = row.ry, o.rz = row.rz, "
                      "o.sx = row.sx, o.sy = row.sy, o.sz = row.sz, o.radius = row.radius, o.height = row.height",
                      [_obstacle_props(o) for o in cell.collision_objects.values()])
        self._batched("UNWIND $rows AS row MERGE (r:Routine {name: row.name}) SET r.kind = row.kind, r.required_tool = row.required_tool, "
                      "r.description = row.description",
                      [{"name": r.name, "kind": r.kind, "required_tool": r.required_tool, "description": r.description} for r in cell.routines.values()])
        supports = [{"routine": r.name, "position": s.position, **s.metadata()} for r in cell.routines.values() for s in r.supported_at.values()]
        self._batched("UNWIND $rows AS row MATCH (r:Routine {name: row.routine}), (p:Position {name: row.position}) MERGE (r)-[e:SUPPORTED_AT]->(p) "
                      "SET e.stabilize = row.stabilize, e.action_after = row.action_after, e.verify = row.verify",
                      [{"stabilize": None, "action_after": None, "verify": None, **s} for s in supports])
        self._batched("UNWIND $rows AS e MATCH (a:Position {name: e[0]}), (b:Position {name: e[1]}) MERGE (a)-[:ONLY_ALLOWED_MOVE_TO]->(b)",
                      [list(e) for e in sorted(cell.edges)])
        self.query(f"MERGE (m:{META_LABEL} {{key: 'cell'}}) SET m.name = $name, m.initial_position = $position, m.initial_tool = $tool, "
                   "m.floor_z_mm = $floor, m.clearance_mm = $clearance, m.version = $version", name=cell.name, position=cell.initial_position,
                   tool=cell.initial_tool, floor=cell.floor_z_mm, clearance=cell.clearance_mm, version=cell.fingerprint)
        stored = self.export()
        if stored.fingerprint != cell.fingerprint:
            raise GraphUnavailable("the graph read back after loading differs from the cell file (the server may have changed values, "
                                   "e.g. rounded numbers to 6 decimals); run 'plan-verify graph export' to compare")
        return LoadSummary(len(cell.positions), len(cell.edges), len(cell.tools), len(cell.routines), len(supports),
                           len(cell.collision_objects), removed, schema, cell.fingerprint)

    def _schema(self) -> str:
        """Uniqueness constraints on the names (Neo4j 5); where the server has none, plain indexes."""
        done = "constraints"
        for label in _SCHEMA_LABELS:
            try:
                self.query(f"CREATE CONSTRAINT IF NOT EXISTS FOR (n:{label}) REQUIRE n.name IS UNIQUE")
                continue
            except QueryRejected:
                done = "indexes"
            try:
                self.query(f"CREATE INDEX FOR (n:{label}) ON (n.name)")
            except QueryRejected:
                pass  # the index exists already (servers without IF NOT EXISTS say so with an error)
        return done

    def _prune(self, cell: Cell) -> int:
        """Delete what the graph has and the cell does not; the differences are computed here, not sent as lists."""
        current = self._stored_parts()
        removed = 0
        deletions = (
            ("UNWIND $rows AS e MATCH (a:Position {name: e[0]})-[r:ONLY_ALLOWED_MOVE_TO]->(b:Position {name: e[1]}) DELETE r",
             current["moves"] - set(cell.edges)),
            ("UNWIND $rows AS e MATCH (a:Routine {name: e[0]})-[r:SUPPORTED_AT]->(b:Position {name: e[1]}) DELETE r",
             current["supports"] - {(r.name, p) for r in cell.routines.values() for p in r.supported_at}),
            ("UNWIND $rows AS e MATCH (a:Tool {name: e[0]})-[r:TOOL_AVAILABLE_AT]->(b:ToolStand {name: e[1]}) DELETE r",
             current["available"] - {(t.name, t.stand) for t in cell.tools.values()}),
            ("UNWIND $rows AS e MATCH (a:ToolStand {name: e[0]})-[r:LOCATED_AT]->(b:Position {name: e[1]}) DELETE r",
             current["located"] - {(t.stand, t.position) for t in cell.tools.values()}),
        )
        for query, pairs in deletions:
            removed += len(pairs)
            self._batched(query, [list(p) for p in sorted(pairs)])
        wanted = {"Position": set(cell.positions), "Routine": set(cell.routines), "Tool": set(cell.tools),
                  "ToolStand": {t.stand for t in cell.tools.values()}, "CollisionObject": set(cell.collision_objects)}
        for label, names in wanted.items():
            extra = sorted(current[label] - names)
            removed += len(extra)
            self._batched(f"UNWIND $rows AS name MATCH (n:{label} {{name: name}}) DETACH DELETE n", extra)
        return removed

    def _stored_parts(self) -> dict[str, set]:
        """Names and links as they are in the graph (what `_prune` compares against)."""
        out: dict[str, set] = {k: set() for k in ("Position", "Routine", "Tool", "ToolStand", "CollisionObject",
                                                  "moves", "supports", "available", "located")}
        query = " UNION ALL ".join((
            "MATCH (n:Position) RETURN 'Position' AS kind, n.name AS a, null AS b",
            "MATCH (n:CollisionObject) RETURN 'CollisionObject' AS kind, n.name AS a, null AS b",
            "MATCH (n:Routine) RETURN 'Routine' AS kind, n.name AS a, null AS b",
            "MATCH (n:Tool) RETURN 'Tool' AS kind, n.name AS a, null AS b",
            "MATCH (n:ToolStand) RETURN 'ToolStand' AS kind, n.name AS a, null AS b",
            "MATCH (a:Position)-[:ONLY_ALLOWED_MOVE_TO]->(b:Position) RETURN 'moves' AS kind, a.name AS a, b.name AS b",
            "MATCH (a:Routine)-[:SUPPORTED_AT]->(b:Position) RETURN 'supports' AS kind, a.name AS a, b.name AS b",
            "MATCH (a:Tool)-[:TOOL_AVAILABLE_AT]->(b:ToolStand) RETURN 'available' AS kind, a.name AS a, b.name AS b",
            "MATCH (a:ToolStand)-[:LOCATED_AT]->(b:Position) RETURN 'located' AS kind, a.name AS a, b.name AS b",
        ))
        for kind, a, b in self.query(query):
            out[kind].add(a if b is None and kind[0].isupper() else (a, b))
        return out

    def _batched(self, query: str, rows: Sequence[Any]) -> None:
        for batch in _batches(rows):
            self.query(query, rows=batch)

    # ------------------------------------------------------------------ the one way to the server
    def query(self, text: str, **params: Any) -> list[tuple]:
        """Run one auto-commit query; rows as tuples. Raises GraphUnavailable, never a driver error.

        A broken pooled connection (server restarted) or a connection attempt
        that stalls (FalkorDB after another client's GOODBYE) is retried on a
        new connection while the deadline allows; a refused connection is not.
        """
        deadline = time.monotonic() + self.timeout_s
        while True:
            driver = self._current_driver()
            with self._lock:
                self._round_trips += 1
            try:
                return _WORKERS.call(lambda: _run(driver, self.database, text, params), deadline - time.monotonic())
            except FutureTimeout:
                self._discard(driver)
                raise GraphUnavailable(f"no answer from {self.describe()} within {self.timeout_s:g} s", "tool_timeout") from None
            except neo4j_errors.AuthError:
                raise GraphUnavailable(f"{self.describe()} refused the credentials of user '{self.user}' "
                                       f"(the password is read from ${PASSWORD_ENV})") from None
            except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired, OSError) as exc:
                if _refused(exc):
                    raise GraphUnavailable(f"cannot reach {self.describe()}: connection refused") from None
                if deadline - time.monotonic() <= 0:
                    raise GraphUnavailable(f"cannot reach {self.describe()} within {self.timeout_s:g} s: {_one_line(exc)}", "tool_timeout") from None
            except neo4j_errors.Neo4jError as exc:
                code = _server_code(exc)
                if ".Security." in code:  # FalkorDB refuses a login with its own code, which the driver does not map to AuthError
                    raise GraphUnavailable(f"{self.describe()} refused the credentials of user '{self.user}' "
                                           f"(the password is read from ${PASSWORD_ENV}): {code}") from None
                raise QueryRejected(f"{self.describe()} rejected a query: {code}: {_one_line(exc.message or exc)}") from None
            except neo4j_errors.DriverError as exc:
                raise GraphUnavailable(f"graph driver error with {self.describe()}: {exc.__class__.__name__}: {_one_line(exc)}") from None

    def _new_driver(self) -> Any:
        connect = max(0.2, self.timeout_s / 4.0)  # leaves time to retry a stalled connection attempt
        try:
            driver = neo4j.GraphDatabase.driver(
                self.uri, auth=self._auth, connection_timeout=connect, connection_acquisition_timeout=connect,
                max_transaction_retry_time=0.0, keep_alive=True, user_agent="plan_verifier",
            )
        except (ValueError, neo4j_errors.ConfigurationError) as exc:
            raise ConfigError(f"invalid graph URI {_public_uri(self.uri)!r}: {_one_line(exc)}") from None
        self._driver = driver
        return driver

    def _current_driver(self) -> Any:
        with self._lock:  # creating a driver does no I/O
            if self._closed:
                raise GraphUnavailable("the graph connection has been closed")
            return self._driver if self._driver is not None else self._new_driver()

    def _discard(self, driver: Any) -> None:
        """Drop a driver whose call hung; closing it (on a side thread) also frees the stuck worker."""
        with self._lock:
            if self._driver is driver:
                self._driver = None
            self._cache = None
        threading.Thread(target=_close_quietly, args=(driver,), daemon=True, name="plan-verifier-graph-close").start()


class LiveCell(Cell):
    """Seed 003's strategy as a `Cell`: bulk-loaded positions, routines and tools; every edge and
    :SUPPORTED_AT question is one query at the moment the simulation asks it.

    Not a consistent snapshot (the graph may change between questions), which
    is one of the reasons the default strategy does not work this way. The
    whole graph is read (once) only for what needs all of it: repair paths,
    the fingerprint, drawing.
    """

    _graph: Neo4jGraph

    @classmethod
    def open(cls, graph: Neo4jGraph) -> "LiveCell":
        positions, routines, tools, obstacles, metas = ([row[0] for row in graph.query(elements_query(kind))]
                                                        for kind in ("position", "routine", "tool", "obstacle", "meta"))
        meta = metas[0] if len(metas) == 1 else None
        _refuse_loading(_text(meta[3]) if meta else None)
        base = build_cell(graph._name(meta), positions, (), tools, routines, {}, obstacles, meta)
        cell = cls.__new__(cls)
        for name in ("name", "positions", "edges", "tools", "routines", "initial_position", "initial_tool",
                     "floor_z_mm", "clearance_mm", "collision_objects"):
            object.__setattr__(cell, name, getattr(base, name))
        Cell.__post_init__(cell)
        object.__setattr__(cell, "_graph", graph)
        return cell

    def allows(self, src: str, dst: str) -> bool:
        if src == dst:
            return True
        return bool(self._graph.query(IS_MOVE_ALLOWED, src=src, dst=dst)[0][0])

    def support(self, routine: str, position: str) -> Support | None:
        if routine not in self.routines or position not in self.positions:
            return None  # seed 003 looks names up in its bulk dictionaries first
        rows = self._graph.query(ROUTINE_METADATA, routine=routine, position=position)
        if not rows:
            return None
        stabilize, action_after, verify = rows[0]
        return Support(position, _number(stabilize), _text(action_after), _text(verify))

    def routines_using_at(self, tool: str, position: str) -> tuple[str, ...]:
        return tuple(name for name in sorted(self.routines) if self.routines[name].required_tool == tool and self.support(name, position) is not None)

    @property
    def full(self) -> Cell:
        if "_full" not in self.__dict__:
            object.__setattr__(self, "_full", self._graph.export())
        return self.__dict__["_full"]

    def neighbours(self, name: str) -> tuple[str, ...]:
        return self.full.neighbours(name)

    def shortest_path(self, src: str, dst: str) -> list[str] | None:
        return self.full.shortest_path(src, dst)

    def supported_positions(self, routine: str) -> tuple[str, ...]:
        return self.full.supported_positions(routine)

    @property
    def fingerprint(self) -> str:  # type: ignore[override]
        return self.full.fingerprint

    def to_file_dict(self) -> dict[str, Any]:
        return self.full.to_file_dict()


# ----------------------------------------------------------------------------- helpers


def build_cell(name: str, positions: Iterable[Sequence[Any]], moves: Iterable[tuple[str, str]], tools: Iterable[Sequence[Any]],
               routines: Iterable[Sequence[Any]], supports: dict[str, dict[str, Support]], obstacles: Iterable[Sequence[Any]],
               meta: Sequence[Any] | None) -> Cell:
    """A `Cell` from query rows (the contract §4/§7 schema) - the same value the cell file gives.

    Rows are the items of `_ELEMENTS`: (a, b, c, d, nums, extra). Geometry a
    graph lacks (no :CollisionObject nodes, no joints, TCP or shape
    properties, no floor on the cell node) is absent from the cell, as in a
    cell file that does not give it.
    """
    position_map = {}
    for pname, role, description, _, nums, joints in positions:
        if pname is None:
            continue
        pose = list(nums or [])
        while pose and pose[-1] is None:
            pose.pop()
        coords = tuple(_finite(v, f"Position '{pname}' pose") for v in pose) if pose and None not in pose else None
        position_map[pname] = Position(pname, role or "unknown", coords,
                                       _text(description), _vector(joints, 6, f"Position '{pname}' joints"))
    tool_map = {t: Tool(t, stand, position, _text(ttype), _vector(geometry[1], 6, f"Tool '{t}' tcp"), _tool_shape(t, geometry[0], sizes, geometry[2]))
                for t, stand, position, ttype, sizes, geometry in tools if t is not None}
    routine_map = {r: Routine(r, routine_kind(r, _text(kind)), _text(required), _text(description), supports.get(r, {}))
                   for r, kind, required, description, *_ in routines if r is not None}
    obstacle_map: dict[str, CollisionObject] = {}
    for row in obstacles:
        obstacle = _obstacle(row)
        if obstacle.name in obstacle_map or obstacle.name == FLOOR:
            raise _invalid(f"CollisionObject name '{obstacle.name}' is taken (names are unique and '{FLOOR}' is the floor's)")
        obstacle_map[obstacle.name] = obstacle
    home = next((p.name for p in position_map.values() if p.role == "home"), None)
    initial_position = (_text(meta[1]) if meta else None) or home
    initial_tool = (_text(meta[2]) if meta else None) or NO_TOOL
    floor, clearance = (meta[4] or [None, None]) if meta else (None, None)
    return Cell(name=name, positions=position_map, edges=frozenset((a, b) for a, b in moves if a is not None and b is not None),
                tools=tool_map, routines=routine_map, initial_position=initial_position, initial_tool=initial_tool,
                floor_z_mm=None if floor is None else _finite(floor, f"{META_LABEL} floor_z_mm"),
                clearance_mm=None if clearance is None else _finite(clearance, f"{META_LABEL} clearance_mm", low=0.0),
                collision_objects=obstacle_map)


# The collision geometry as node properties (docs/graph.md): scalars where contract §7 fixes them,
# lists for whole vectors (a position's joints, a tool's TCP and shape mount). Geometry that is
# there but malformed fails the read (an obstacle must never vanish because of a typo).


def _obstacle_props(obstacle: CollisionObject) -> dict[str, Any]:
    return {"name": obstacle.name, **_pose_props(obstacle.pose),
            **_shape_props(obstacle.shape, ("sx", "sy", "sz", "radius", "height"))}


def _tool_props(tool: Tool) -> dict[str, Any]:
    shape = tool.shape.shape if tool.shape is not None else None
    return {"tcp": list(tool.tcp) if tool.tcp else None, "shape_pose": list(tool.shape.pose) if tool.shape and tool.shape.pose else None,
            **_shape_props(shape, ("sx", "sy", "sz", "radius", "length"))}


def _shape_props(shape: Box | Cylinder | Sphere | None, names: tuple[str, ...]) -> dict[str, Any]:
    """`shape` and the five size properties: box sizes, radius, cylinder length (named `height` on an obstacle)."""
    sizes: list[float | None] = [None] * 5
    kind = None
    if isinstance(shape, Box):
        kind, sizes[0:3] = "box", [shape.sx, shape.sy, shape.sz]
    elif isinstance(shape, Cylinder):
        kind, sizes[3], sizes[4] = "cylinder", shape.radius, shape.length
    elif isinstance(shape, Capsule):
        kind, sizes[3], sizes[4] = "capsule", shape.radius, shape.length
    elif isinstance(shape, Sphere):
        kind, sizes[3] = "sphere", shape.radius
    return {"shape": kind, **dict(zip(names, sizes))}


def _shape(kind: Any, sizes: Sequence[Any], what: str, *, capsule: bool = False) -> Box | Cylinder | Capsule | Sphere:
    """An obstacle's or (`capsule`: a capsule is allowed) a tool's shape from its node properties."""
    sx, sy, sz, radius, length = sizes
    if kind == "box":
        return Box(*(_finite(v, f"{what} {n}", positive=True) for v, n in ((sx, "sx"), (sy, "sy"), (sz, "sz"))))
    if kind == "cylinder":
        return Cylinder(_finite(radius, f"{what} radius", positive=True), _finite(length, f"{what} length/height", positive=True))
    if kind == "sphere":
        return Sphere(_finite(radius, f"{what} radius", positive=True))
    if kind == "capsule" and capsule:
        return Capsule(_finite(radius, f"{what} radius", positive=True), _finite(length, f"{what} length", positive=True))
    raise _invalid(f"{what} shape is {kind!r}, not box, cylinder{', capsule' if capsule else ''} or sphere")


def _obstacle(row: Sequence[Any]) -> CollisionObject:
    name, kind, _, _, nums, _ = row
    what = f"CollisionObject '{name}'"
    if not isinstance(name, str) or not name:
        raise _invalid("a CollisionObject without a name")
    pose = _vector(nums[:6], 6, f"{what} pose (x, y, z, rx, ry, rz)")
    if pose is None:
        raise _invalid(f"{what} has no pose (x, y, z, rx, ry, rz)")
    return CollisionObject(name, _shape(kind, nums[6:], what), pose)  # type: ignore[arg-type]


def _tool_shape(tool: str, kind: Any, sizes: Sequence[Any], pose: Any) -> ToolShape | None:
    if kind is None:
        return None
    what = f"Tool '{tool}'"
    return ToolShape(_shape(kind, sizes, what, capsule=True), _vector(pose, 6, f"{what} shape_pose"))  # type: ignore[arg-type]


def _vector(values: Any, size: int, what: str) -> tuple[float, ...] | None:
    """`size` finite numbers, or None when the property is absent."""
    if values is None or (isinstance(values, (list, tuple)) and all(v is None for v in values)):
        return None
    if not isinstance(values, (list, tuple)) or len(values) != size:
        raise _invalid(f"{what} must be {size} numbers")
    return tuple(_finite(v, what) for v in values)


def _finite(value: Any, what: str, *, positive: bool = False, low: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or (positive and value <= 0) or (low is not None and value < low):
        need = "a positive number" if positive else f"a number >= {low:g}" if low is not None else "a finite number"
        raise _invalid(f"{what} is {value!r}, not {need}")
    return float(value)


def _invalid(message: str) -> GraphUnavailable:
    return GraphUnavailable(f"invalid collision geometry in the graph: {message}")


def _run(driver: Any, database: str | None, text: str, params: dict[str, Any]) -> list[tuple]:
    # A fresh session per query: no bookmarks carried from one query to the next (FalkorDB
    # would take a bookmark key for the graph name), and fetch_size=-1 pulls all rows at once.
    with driver.session(database=database, fetch_size=-1) as session:
        return [tuple(record.values()) for record in session.run(text, params)]


def _batches(rows: Sequence[Any]) -> Iterator[list[Any]]:
    batch: list[Any] = []
    size = 0
    for row in rows:
        cost = len(json.dumps(row, ensure_ascii=False)) + 2
        if batch and size + cost > PARAM_BUDGET:
            yield batch
            batch, size = [], 0
        batch.append(row)
        size += cost
    if batch:
        yield batch


def _pose_props(pose: tuple[float, ...] | None) -> dict[str, float | None]:
    values = list(pose or ()) + [None] * (6 - len(pose or ()))
    return dict(zip(("x", "y", "z", "rx", "ry", "rz"), values))


def _refuse_loading(version: str | None) -> None:
    if version is not None and version.startswith(LOADING_PREFIX):
        raise GraphUnavailable("the cell graph is being loaded (or a load was interrupted); run 'plan-verify graph load' to completion")


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _one_line(exc: Any) -> str:
    text = " ".join(str(exc).split())
    return text or exc.__class__.__name__


def _server_code(exc: Any) -> str:
    """The error code the server sent (the driver replaces codes it does not know with UnknownError)."""
    metadata = getattr(exc, "metadata", None)
    raw = metadata.get("code") if isinstance(metadata, dict) else None
    return str(raw or exc.code or "error")


def _refused(exc: BaseException) -> bool:
    """Whether a connection error (or its cause) is a refused TCP connection: nothing listens there."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _public_uri(uri: str) -> str:
    """The URI without any user:password@ part."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "<invalid URI>"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _close_quietly(driver: Any) -> None:
    try:
        driver.close()
    except Exception:  # noqa: BLE001 - closing a broken driver may fail; nothing is left to release
        pass


class _Workers:
    """Daemon threads that run blocking driver calls, so the caller can stop waiting at its deadline.

    A worker stuck on a dead server is abandoned (its driver is closed, which
    frees it); new calls get a fresh worker, and an abandoned thread can
    never keep the interpreter from exiting.
    """

    def __init__(self) -> None:
        self._idle: queue.SimpleQueue[queue.SimpleQueue] = queue.SimpleQueue()

    def call(self, fn: Callable[[], Any], timeout: float) -> Any:
        if timeout <= 0:
            raise FutureTimeout()
        try:
            inbox = self._idle.get_nowait()
        except queue.Empty:
            inbox = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(inbox,), daemon=True, name="plan-verifier-graph").start()
        future: Future = Future()
        inbox.put((fn, future))
        return future.result(timeout)

    def _serve(self, inbox: queue.SimpleQueue) -> None:
        while True:
            fn, future = inbox.get()
            try:
                future.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)
            self._idle.put(inbox)


_WORKERS = _Workers()
