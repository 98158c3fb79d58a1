"""What the verification workers are given and verify before their first request: the cell, the warm-up plans."""

from __future__ import annotations

import pytest
from conftest import CONFIG

from plan_verifier.findings import Severity
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.model import parse_cell
from plan_verifier.graph.port import GraphUnavailable
from plan_verifier.pipeline import Verifier
from plan_verifier.robots.spec import load_robot
from plan_verifier.serving.cell_graph import NOT_THE_CELL, CellGraph
from plan_verifier.serving.settings import Settings
from plan_verifier.serving.warmup import warm_up_plans
from plan_verifier.serving.workers import GraphSource, Job, verify_job

ROBOTS = sorted(p.stem for p in (CONFIG / "robots").glob("*.yaml"))
CELLS = sorted(p.stem for p in (CONFIG / "cells").glob("*.yaml"))


@pytest.mark.parametrize("cell", CELLS)
def test_a_worker_serves_exactly_the_cell_configure_read(cell):
    """The embedded cell crosses to the worker as its file dict: same content, same fingerprint."""
    read = EmbeddedGraph.from_file(cell).snapshot()
    source = GraphSource(cell=read.to_file_dict(), origin=f"cell file {cell}", fingerprint=read.fingerprint)
    served = source.open(Settings.from_values({})).snapshot()  # CellGraph: would refuse another fingerprint
    assert served.fingerprint == read.fingerprint and served.to_file_dict() == read.to_file_dict()


class _Graph:
    def __init__(self, cell):
        self.cell = cell

    def snapshot(self):
        return self.cell

    def describe(self):
        return "bolt://cell-db:7687"

    def close(self):
        pass


def test_a_graph_without_positions_or_with_another_cell_is_unavailable():
    weld = EmbeddedGraph.from_file("weld_cell").snapshot()
    empty = parse_cell({"name": "empty", "positions": []})
    with pytest.raises(GraphUnavailable, match="answers but holds no cell") as info:
        CellGraph(_Graph(empty)).snapshot()
    assert info.value.reason_code == NOT_THE_CELL == "tool_output_invalid"
    assert CellGraph(_Graph(weld), weld.fingerprint).snapshot() is weld
    with pytest.raises(GraphUnavailable, match=f"not the cell this node serves \\(graph_fingerprint {'0' * 64}\\)"):
        CellGraph(_Graph(weld), "0" * 64).snapshot()


def test_an_empty_graph_is_reported_as_unavailable_not_as_plan_findings():
    verifier = Verifier("ur10e", graph=CellGraph(_Graph(parse_cell({"name": "empty", "positions": []}))))
    report = verifier.verify((CONFIG.parent / "examples" / "weld_seam_1.json").read_text())
    assert [f.rule_id for f in report.findings] == ["R-GRF-000"] and report.outcome == "UNKNOWN"
    assert report.reason_codes == ("tool_output_invalid",)


@pytest.mark.parametrize("robot", ROBOTS)
def test_warm_up_plans_are_readable_and_reach_every_stage_for_every_shipped_robot(robot):
    spec = load_robot(robot)
    cell = EmbeddedGraph.from_file("weld_cell")
    verifier = Verifier(spec, graph=cell, level="FULL")
    plans = {p.label: p for p in warm_up_plans(spec, cell.snapshot(), "FULL")}
    assert set(plans) == {"tdl", "tdl-unsafe", "tdl-unreadable", "json", "semantic", "korean"}
    assert "MoveLinear(target_pose=Target" in plans["tdl"].plan  # a Cartesian target from the robot's own kinematics
    results = {label: verify_job(verifier, Job("warm-up", p.plan, "auto", p.level or "STANDARD", p.instruction, None, None, None,
                                                "request", None)) for label, p in plans.items()}
    syntax = {label: [f["rule_id"] for f in r.report["findings"] if f["rule_id"].startswith("R-SYN") and f["severity"] == Severity.CRITICAL.value]
              for label, r in results.items()}
    assert syntax["tdl"] == syntax["tdl-unsafe"] == syntax["json"] == [] and syntax["tdl-unreadable"]
    assert results["tdl"].report["execution"] is not None  # the execution level ran: kinematics, paths, collision sweep
    assert results["json"].graph_read and any(f["rule_id"] == "R-GRF-002" for f in results["json"].report["findings"])
