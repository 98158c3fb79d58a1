"""Repairs and the cell drawing, on the embedded backend."""

from __future__ import annotations

import json

import pytest
import yaml

from conftest import FIXTURES
from plan_verifier.findings import Category
from plan_verifier.graph.draw import render_png, scene
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.repair import repair_plan
from plan_verifier.graph.simulate import SimState, simulate
from plan_verifier.pipeline import Verifier

SCENARIOS = {s["name"]: s for s in yaml.safe_load((FIXTURES / "graph" / "seed_003_scenarios.yaml").read_text(encoding="utf-8"))["scenarios"]}
REPAIRABLE = ["illegal_edge_home_to_pos_5", "tool_mismatch_need_camera_have_welder", "tool_mismatch_need_welder_have_camera",
              "tool_stand_collision", "attach_while_holding", "release_while_empty"]


@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return Verifier("ur10e", graph=EmbeddedGraph.from_file("weld_cell"))


def _repair(verifier: Verifier, steps: list[dict], start_position=None, start_tool=None):
    report = verifier.verify(json.dumps(steps), start_position=start_position, start_tool=start_tool)
    start = verifier.start_state(report.cell, start_position, start_tool)
    return repair_plan(report.plan, report.cell, SimState(start.position, start.tool))


@pytest.mark.parametrize("name", REPAIRABLE)
def test_repaired_seed_scenarios_pass_the_graph_checks(verifier, name: str) -> None:
    scenario = SCENARIOS[name]
    start = {k: scenario.get(k) for k in ("start_position", "start_tool")}
    fixed = _repair(verifier, scenario["plan"], **start)
    assert fixed.changed and not fixed.unresolved
    report = verifier.verify(json.dumps(list(fixed.steps)), **start)
    assert [f.message for f in report.findings if f.category is Category.GRAPH] == []
    assert [s["id"] for s in fixed.steps] == list(range(1, len(fixed.steps) + 1))


def test_illegal_edge_gets_the_shortest_legal_path(verifier) -> None:
    fixed = _repair(verifier, SCENARIOS["illegal_edge_home_to_pos_5"]["plan"])
    assert [s["target"] for s in fixed.steps] == ["Home", "Safe_Pos_2", "Pos_5"]
    assert fixed.changes == ("Step 2: insert Home -> Safe_Pos_2 -> Pos_5",)


def test_tool_mismatch_gets_the_release_attach_detour(verifier) -> None:
    scenario = SCENARIOS["tool_mismatch_need_camera_have_welder"]
    fixed = _repair(verifier, scenario["plan"], scenario["start_position"], scenario["start_tool"])
    tail = [(s["action"], s["target"], s.get("position")) for s in fixed.steps[5:]]
    assert tail == [
        ("move", "Safe_Pos_2", None), ("move", "Home", None), ("move", "Tool_Weld_Safe_Position", None), ("move", "Tool_Weld_Position", None),
        ("routine", "tool_release", "Tool_Weld_Position"),
        ("move", "Tool_Weld_Safe_Position", None), ("move", "Home", None), ("move", "Tool_Camera_Safe_Position", None),
        ("move", "Tool_Camera_Position", None),
        ("routine", "tool_attach", "Tool_Camera_Position"),
        ("move", "Tool_Camera_Safe_Position", None), ("move", "Home", None), ("move", "Safe_Pos_2", None), ("move", "Pos_2", None),
        ("routine", "inspect", "Pos_2"),
    ]
    attach = fixed.steps[14]
    assert (attach["tool"], attach["stabilize"], attach["action_after"], attach["verify"]) == ("Camera", 1.5, "attach_tool", "Camera")


def test_what_would_change_the_task_is_left_unresolved(verifier) -> None:
    fixed = _repair(verifier, SCENARIOS["missing_position_pos_99"]["plan"])
    assert fixed.unresolved == ("Step 2: position 'Pos_99' does not exist in graph",)
    fixed = _repair(verifier, SCENARIOS["tackweld_not_supported_at_pos_2"]["plan"], start_tool="Welder")
    assert fixed.unresolved == ("Step 5: routine 'tackweld' is not supported at 'Pos_2'",)


def test_one_way_moves_are_respected(verifier) -> None:
    assembly = Verifier("ur10e", graph=EmbeddedGraph.from_file("assembly_cell"))
    steps = [{"id": 1, "action": "move", "target": "Conveyor_Drop"}, {"id": 2, "action": "move", "target": "Fixture"}]
    fixed = _repair(assembly, steps, start_position="Safe_Fixture")
    assert [s["target"] for s in fixed.steps] == ["Conveyor_Approach", "Conveyor_Drop", "Conveyor_Approach", "Home", "Safe_Fixture", "Fixture"]


def test_scene_marks_the_failing_step_and_png_is_written(verifier, tmp_path) -> None:
    scenario = SCENARIOS["tool_stand_collision"]
    report = verifier.verify(json.dumps(scenario["plan"]), start_position="Safe_Pos_1", start_tool="Camera")
    simulation = simulate(report.plan, report.cell, verifier.start_state(report.cell, "Safe_Pos_1", "Camera"))
    view = scene(report.cell, simulation, report.findings)
    assert [(s.src, s.dst, s.step, s.failed, s.legal) for s in view.path] == [
        ("Safe_Pos_1", "Home", 1, False, True), ("Home", "Tool_Weld_Safe_Position", 2, False, True),
        ("Tool_Weld_Safe_Position", "Tool_Weld_Position", 3, True, True)]
    assert view.failed_positions == ("Tool_Weld_Position",)
    assert view.notes == ("Step 3: Collision risk - must release 'Camera' before approaching 'Welder' tool stand",)
    assert {n.name: n.stand for n in view.nodes if n.stand} == {"Tool_Camera_Position": "ToolStand_Camera (Camera)",
                                                                "Tool_Weld_Position": "ToolStand_Welder (Welder)"}
    assert len(view.edges) == 9 and all(two_way for _, _, two_way in view.edges)
    out = tmp_path / "cell.png"
    render_png(view, out)
    header = out.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(header[16:20], "big") > 400


def test_scene_draws_illegal_moves_and_one_way_edges() -> None:
    cell = EmbeddedGraph.from_file("assembly_cell").snapshot()
    report = Verifier("ur10e", graph=EmbeddedGraph(cell)).verify(json.dumps([{"action": "move", "target": "Fixture"}]))
    view = scene(cell, simulate(report.plan, cell, SimState("Home")), report.findings)
    assert [(s.src, s.dst, s.failed, s.legal) for s in view.path] == [("Home", "Fixture", True, False)]
    assert sorted((a, b) for a, b, two_way in view.edges if not two_way) == [("Conveyor_Approach", "Home"), ("Safe_Fixture", "Conveyor_Approach")]
