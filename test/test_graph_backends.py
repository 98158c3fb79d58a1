"""The graph port's contract, run against the embedded backend and a real Bolt server (FalkorDB).

Every question the verifier asks must get the same answer from both backends
(and from the seed 003 per-step strategy), every plan in the test data must
get the same report, and seed 003's scenarios must give the seed's feedback
strings everywhere.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml

from conftest import BOLT_CELLS, CORPUS, FIXTURES, ROOT
from graph_server import USER, FalkorServer
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.model import load_cell_file
from plan_verifier.graph.neo4j_backend import LOADING_PREFIX, META_LABEL, PASSWORD_ENV, Neo4jGraph
from plan_verifier.graph.port import GraphPort, GraphUnavailable
from plan_verifier.pipeline import Verifier
from plan_verifier.resources import resolve

pytestmark = pytest.mark.graph_server

BACKENDS = ("embedded", "bolt", "bolt_per_step")
SCENARIOS = yaml.safe_load((FIXTURES / "graph" / "seed_003_scenarios.yaml").read_text(encoding="utf-8"))["scenarios"]


@pytest.fixture(scope="session")
def open_graph(bolt_cells):
    """open_graph(backend, cell) -> a GraphPort, one per (backend, cell) for the whole session.

    Sharing them keeps the driver's pooled connections: FalkorDB stalls the
    first new connection after any client's GOODBYE (docs/graph.md), so a
    fresh driver per test would cost a connect timeout each.
    """
    opened: dict[tuple[str, str], GraphPort] = {}

    def factory(backend: str, cell: str) -> GraphPort:
        if (backend, cell) not in opened:
            if backend == "embedded":
                opened[backend, cell] = EmbeddedGraph.from_file(cell)
            else:
                with pytest.MonkeyPatch.context() as mp:  # the password is read when the graph is opened
                    mp.setenv(PASSWORD_ENV, "")
                    opened[backend, cell] = Neo4jGraph(bolt_cells[cell].uri, user=USER, database=cell, timeout_s=10,
                                                       strategy="per_step" if backend == "bolt_per_step" else "snapshot")
        return opened[backend, cell]

    yield factory
    for graph in opened.values():
        graph.close()


def _report(graph: GraphPort, plan: str, **kwargs) -> dict:
    out = Verifier("ur10e", graph=graph).verify(plan, **kwargs).to_dict()
    out.pop("timings_ms")
    return out


# ----------------------------------------------------------------------------- the questions


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cell", BOLT_CELLS)
def test_every_question_gets_the_cell_files_answer(open_graph, backend: str, cell: str) -> None:
    expected = load_cell_file(resolve("cells", cell))
    got = open_graph(backend, cell).snapshot()
    assert (got.name, dict(got.positions), dict(got.tools), got.initial_position, got.initial_tool) == \
           (expected.name, dict(expected.positions), dict(expected.tools), expected.initial_position, expected.initial_tool)
    assert {name: (r.kind, r.required_tool) for name, r in got.routines.items()} == \
           {name: (r.kind, r.required_tool) for name, r in expected.routines.items()}
    names = sorted(expected.positions)
    for a in names:
        for b in names:
            assert got.allows(a, b) == expected.allows(a, b), (a, b)
        assert got.shortest_path(names[0], a) == expected.shortest_path(names[0], a)
    for routine in expected.routines:
        assert got.supported_positions(routine) == expected.supported_positions(routine)
        for position in names:
            assert got.support(routine, position) == expected.support(routine, position), (routine, position)
    for tool in expected.tools:
        assert got.stand_of(tool) == expected.stand_of(tool)
        for position in names:
            assert got.routines_using_at(tool, position) == expected.routines_using_at(tool, position)
            assert got.tool_at(position) == expected.tool_at(position)
    assert (got.floor_z_mm, got.clearance_mm, dict(got.collision_objects)) == \
           (expected.floor_z_mm, expected.clearance_mm, dict(expected.collision_objects))
    assert got.fingerprint == expected.fingerprint


@pytest.mark.parametrize("cell", BOLT_CELLS)
def test_bolt_snapshot_equals_the_cell_file(open_graph, cell: str) -> None:
    assert open_graph("bolt", cell).snapshot() == load_cell_file(resolve("cells", cell))


# ----------------------------------------------------------------------------- identical reports


def _test_data_plans():
    """Every plan in the test data that is checked against an example cell: rule fixtures, examples, corpus."""
    for path in sorted((FIXTURES / "rules").glob("R-*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in data["cases"]:
            cell = case.get("cell", data.get("cell"))
            if cell in BOLT_CELLS and "repeat" not in case and "llm_answers" not in case:
                kwargs = {k: case[k] for k in ("start_position", "start_tool", "plan_format") if k in case}
                yield pytest.param(cell, case["plan"], kwargs, id=f"{data['rule']}::{case['name']}")
    for path in sorted((ROOT / "examples").glob("*")):
        if path.suffix in (".json", ".tdl", ".yaml"):
            yield pytest.param("weld_cell", path.read_text(encoding="utf-8"), {}, id=f"examples/{path.name}")
    for path in sorted(CORPUS.iterdir()):
        if path.suffix in (".tdl", ".txt"):
            yield pytest.param("weld_cell", path.read_text(encoding="utf-8"), {}, id=f"corpus/{path.name[:40]}")
    for scenario in SCENARIOS:
        kwargs = {k: scenario[k] for k in ("start_position", "start_tool") if k in scenario}
        yield pytest.param("weld_cell", json.dumps(scenario["plan"]), kwargs, id=f"seed003/{scenario['name']}")


@pytest.mark.parametrize(("cell", "plan", "kwargs"), list(_test_data_plans()))
def test_backends_give_identical_reports(open_graph, cell: str, plan: str, kwargs: dict) -> None:
    embedded = _report(open_graph("embedded", cell), plan, **kwargs)
    assert _report(open_graph("bolt", cell), plan, **kwargs) == embedded
    assert _report(open_graph("bolt_per_step", cell), plan, **kwargs) == embedded


# ----------------------------------------------------------------------------- seed 003 scenarios


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_seed_003_scenarios_give_the_seeds_feedback(open_graph, backend: str, scenario: dict) -> None:
    report = Verifier("ur10e", graph=open_graph(backend, "weld_cell")).verify(
        json.dumps(scenario["plan"]), start_position=scenario.get("start_position"), start_tool=scenario.get("start_tool"))
    lines = report.graph["feedback"].split("\n") if report.graph["feedback"] else []
    assert [line for line in lines if ": Hint: " not in line] == scenario["feedback"]
    view = {"valid": not scenario["feedback"], "missing_positions": [], "illegal_edges": [], "unsupported_routines": [], "tool_conflicts": []}
    view.update(scenario["graph"])
    assert {k: v for k, v in report.graph.items() if k != "feedback"} == view
    assert sorted({f.rule_id for f in report.findings}) == scenario["rules"]
    assert report.approved == (not scenario["feedback"])


# ----------------------------------------------------------------------------- query strategy


def test_snapshot_strategy_costs_one_round_trip_whatever_the_plan(open_graph) -> None:
    graph = open_graph("bolt", "weld_cell")
    verifier = Verifier("ur10e", graph=graph)
    loop = [{"action": "move", "target": t} for t in ("Safe_Pos_1", "Pos_1", "Safe_Pos_1", "Home")]
    verifier.verify(json.dumps(loop))  # fills the cache
    before = graph.round_trips
    verifier.verify(json.dumps(loop[:1]))
    one_step = graph.round_trips - before
    before = graph.round_trips
    verifier.verify(json.dumps(loop * 250))
    assert (one_step, graph.round_trips - before) == (1, 1)


def test_per_step_strategy_costs_a_round_trip_per_step(open_graph) -> None:
    graph = open_graph("bolt_per_step", "weld_cell")
    verifier = Verifier("ur10e", graph=graph)
    loop = [{"action": "move", "target": t} for t in ("Safe_Pos_1", "Pos_1", "Safe_Pos_1", "Home")]
    before = graph.round_trips
    verifier.verify(json.dumps(loop * 25))
    assert graph.round_trips - before >= 100


@pytest.fixture
def fresh_server(tmp_path, monkeypatch):
    """A server of its own, for tests that change the graph."""
    monkeypatch.setenv(PASSWORD_ENV, "")
    with FalkorServer(tmp_path / "falkordb") as server:
        assert server.load("weld_cell").returncode == 0
        yield server


def test_a_new_load_invalidates_the_cache(fresh_server, tmp_path) -> None:
    graph = Neo4jGraph(fresh_server.uri, user=USER, timeout_s=2)
    try:
        plan = json.dumps([{"action": "move", "target": "Pos_5"}])
        assert [f.rule_id for f in Verifier("ur10e", graph=graph).verify(plan, start_position="Home").findings] == ["R-GRF-002"]
        changed = yaml.safe_load(resolve("cells", "weld_cell").read_text(encoding="utf-8"))
        changed["moves"].append(["Home", "Pos_5"])
        (tmp_path / "changed.yaml").write_text(yaml.safe_dump(changed), encoding="utf-8")
        assert fresh_server.load(str(tmp_path / "changed.yaml")).returncode == 0
        assert Verifier("ur10e", graph=graph).verify(plan, start_position="Home").approved
        assert graph.snapshot().fingerprint == load_cell_file(tmp_path / "changed.yaml").fingerprint
    finally:
        graph.close()


def test_load_is_idempotent_and_removes_what_the_file_lacks(fresh_server, tmp_path) -> None:
    graph = Neo4jGraph(fresh_server.uri, user=USER, timeout_s=2)
    try:
        cell = load_cell_file(resolve("cells", "weld_cell"))
        again = graph.load(cell)
        assert (again.removed, again.fingerprint) == (0, cell.fingerprint)
        smaller = yaml.safe_load(resolve("cells", "weld_cell").read_text(encoding="utf-8"))
        smaller["positions"] = [p for p in smaller["positions"] if p["name"] != "Pos_5"]
        smaller["moves"] = [m for m in smaller["moves"] if "Pos_5" not in m]
        for routine in smaller["routines"]:
            routine["supported_at"] = [s for s in routine["supported_at"] if s["position"] != "Pos_5"]
        (tmp_path / "smaller.yaml").write_text(yaml.safe_dump(smaller), encoding="utf-8")
        summary = graph.load(load_cell_file(tmp_path / "smaller.yaml"))
        assert summary.removed == 4  # the node, its two move edges and tack_weld's :SUPPORTED_AT
        assert graph.export() == load_cell_file(tmp_path / "smaller.yaml")
    finally:
        graph.close()


def test_a_load_in_progress_fails_closed(fresh_server) -> None:
    graph = Neo4jGraph(fresh_server.uri, user=USER, timeout_s=2)
    try:
        graph.query(f"MATCH (m:{META_LABEL}) SET m.version = $v", v=f"{LOADING_PREFIX}interrupted")
        with pytest.raises(GraphUnavailable, match="being loaded"):
            graph.snapshot()
        report = Verifier("ur10e", graph=graph).verify(json.dumps([{"action": "move", "target": "Home"}]))
        assert (report.verdict, report.outcome, [f.rule_id for f in report.findings]) == ("FAIL", "UNKNOWN", ["R-GRF-000"])
    finally:
        graph.close()


def test_the_cache_follows_the_version_stamp_and_its_time_limit(fresh_server) -> None:
    cached = Neo4jGraph(fresh_server.uri, user=USER, timeout_s=2, cache_ttl_s=3600)
    uncached = Neo4jGraph(fresh_server.uri, user=USER, timeout_s=2, cache_ttl_s=0)
    try:
        assert cached.snapshot().positions["Pos_5"].role == uncached.snapshot().positions["Pos_5"].role == "work"
        cached.query("MATCH (p:Position {name: 'Pos_5'}) SET p.role = 'safe_approach'")  # an edit that forgets the stamp
        assert cached.snapshot().positions["Pos_5"].role == "work"  # within cache_ttl_s: the stamp is all that is checked
        assert uncached.snapshot().positions["Pos_5"].role == "safe_approach"
        cached.query(f"MATCH (m:{META_LABEL}) SET m.version = 'edited by hand'")
        assert cached.snapshot().positions["Pos_5"].role == "safe_approach"
    finally:
        cached.close()
        uncached.close()


def test_a_graph_without_version_stamp_is_read_every_time(fresh_server) -> None:
    graph = Neo4jGraph(fresh_server.uri, user=USER, timeout_s=2)
    try:
        graph.query(f"MATCH (m:{META_LABEL}) DELETE m")
        first = graph.snapshot()
        graph.query("MATCH (p:Position {name: 'Pos_5'}) SET p.role = 'safe_approach'")  # an edit that keeps every count
        assert first.positions["Pos_5"].role == "work"
        assert graph.snapshot().positions["Pos_5"].role == "safe_approach"
        assert graph.snapshot().name == "neo4j"  # no stamp, no database name: the graph is called what the server is
    finally:
        graph.close()


def test_export_round_trips_through_a_cell_file(open_graph, tmp_path) -> None:
    graph = open_graph("bolt", "assembly_cell")
    cell = graph.export()
    (tmp_path / "exported.yaml").write_text(yaml.safe_dump(cell.to_file_dict(), sort_keys=False), encoding="utf-8")
    assert load_cell_file(tmp_path / "exported.yaml") == load_cell_file(resolve("cells", "assembly_cell"))


# ----------------------------------------------------------------------------- collision geometry

#: Every kind of geometry a cell file can hold (contract §7 and its additions).
GEOMETRY = {
    "name": "geometry_cell",
    "floor_z_mm": -5.5,
    "clearance_mm": 12.0,
    "positions": [
        {"name": "Home", "role": "home", "pose": [0, -300, 400, 180, 0, 90], "joints": [180, -90, 90, -90, -90, 0.25]},
        {"name": "Mount", "role": "tool_mount", "pose": [-400, -400, 120, 180, 0, 90]},
    ],
    "moves": [["Home", "Mount"]],
    "tools": [
        {"name": "Welder", "stand": "Stand_W", "position": "Mount", "tcp": [0, 0, 250, 0, 0, 0],
         "shape": {"type": "cylinder", "radius_mm": 25, "length_mm": 250}},
        {"name": "Camera", "stand": "Stand_C", "position": "Mount", "tcp": [0, 30, 200, 0, 0, 0],
         "shape": {"type": "box", "size_mm": [90, 70, 120], "pose": [0, 30, 0, 0, 0, 0]}},
        {"name": "Probe", "stand": "Stand_P", "position": "Mount", "shape": {"type": "sphere", "radius_mm": 30}},
    ],
    "collision_objects": [
        {"name": "Fixture_1", "shape": "box", "size": [200, 300, 250], "pose": [600, 0, 125, 0, 0, 0]},
        {"name": "Column", "shape": "cylinder", "radius": 80, "height": 1200, "pose": [-700, 0, 600, 0, 0, 15]},
        {"name": "Dome", "shape": "sphere", "radius": 150, "pose": [0, 900, 0, 0, 0, 0]},
    ],
}


def test_collision_geometry_round_trips_and_changes_the_version_stamp(fresh_server, tmp_path) -> None:
    graph = Neo4jGraph(fresh_server.uri, user=USER, timeout_s=2)
    try:
        path = tmp_path / "geometry.yaml"
        path.write_text(yaml.safe_dump(GEOMETRY), encoding="utf-8")
        cell = load_cell_file(path)
        graph.load(cell)
        assert graph.snapshot() == cell and graph.export().fingerprint == cell.fingerprint
        assert graph.query(f"MATCH (m:{META_LABEL}) RETURN m.version")[0][0] == cell.fingerprint
        moved = {**GEOMETRY, "collision_objects": [{**GEOMETRY["collision_objects"][0], "pose": [610, 0, 125, 0, 0, 0]},
                                                   GEOMETRY["collision_objects"][2]]}
        path.write_text(yaml.safe_dump(moved), encoding="utf-8")
        summary = graph.load(load_cell_file(path))
        assert (summary.collision_objects, summary.removed) == (2, 1)  # the column is gone
        again = graph.snapshot()  # a new stamp: the cached snapshot is not reused
        assert again.collision_objects["Fixture_1"].pose[0] == 610.0 and "Column" not in again.collision_objects
        assert graph.query(f"MATCH (m:{META_LABEL}) RETURN m.version")[0][0] == again.fingerprint != cell.fingerprint
    finally:
        graph.close()


def test_a_graph_without_geometry_is_a_cell_without_obstacles(fresh_server) -> None:
    graph = Neo4jGraph(fresh_server.uri, user=USER, timeout_s=2, cache_ttl_s=0)
    try:
        assert graph.snapshot().collision_objects
        graph.query("MATCH (o:CollisionObject) DETACH DELETE o")
        graph.query(f"MATCH (m:{META_LABEL}) REMOVE m.floor_z_mm, m.clearance_mm")
        graph.query("MATCH (t:Tool) REMOVE t.tcp, t.shape, t.sx, t.sy, t.sz, t.radius, t.length, t.shape_pose")
        bare = graph.snapshot()
        assert (bare.floor_z_mm, bare.clearance_mm, dict(bare.collision_objects)) == (None, None, {})
        assert all(t.tcp is None and t.shape is None for t in bare.tools.values())
        plan = json.dumps([{"action": "move", "target": "Safe_Pos_1"}])
        assert Verifier("ur10e", graph=graph).verify(plan, start_position="Home").approved
    finally:
        graph.close()


@pytest.mark.parametrize(("edit", "message"), [
    ("MATCH (o:CollisionObject {name: 'Weld_Jig'}) SET o.shape = 'cone'", "CollisionObject 'Weld_Jig' shape is 'cone'"),
    ("MATCH (o:CollisionObject {name: 'Weld_Jig'}) SET o.sx = -1", "CollisionObject 'Weld_Jig' sx is -1"),
    ("MATCH (o:CollisionObject {name: 'Weld_Jig'}) REMOVE o.x", "CollisionObject 'Weld_Jig' pose"),
    ("MATCH (t:Tool {name: 'Welder'}) SET t.tcp = [0, 0, 250]", "Tool 'Welder' tcp must be 6 numbers"),
    ("MATCH (p:Position {name: 'Home'}) SET p.joints = ['a', 0, 0, 0, 0, 0]", "Position 'Home' joints is 'a'"),
    ("CREATE (:CollisionObject {name: 'floor', shape: 'sphere', radius: 1, x: 0, y: 0, z: 0, rx: 0, ry: 0, rz: 0})", "'floor'"),
])
def test_malformed_geometry_in_the_graph_fails_closed(fresh_server, edit: str, message: str) -> None:
    """An obstacle must never vanish because of a typo in the graph: the read fails and the plan gets R-GRF-000."""
    graph = Neo4jGraph(fresh_server.uri, user=USER, timeout_s=2, cache_ttl_s=0)
    try:
        graph.query(edit)
        with pytest.raises(GraphUnavailable, match=re.escape(message)):
            graph.snapshot()
        report = Verifier("ur10e", graph=graph).verify(json.dumps([{"action": "move", "target": "Home"}]))
        assert (report.verdict, [f.rule_id for f in report.findings]) == ("FAIL", ["R-GRF-000"])
    finally:
        graph.close()

