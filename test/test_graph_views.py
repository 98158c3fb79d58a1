"""What users see of the graph checks, pinned for every plan checked against a cell in the test data.

`test/fixtures/graph/views.json` holds, per plan, the report's `graph` field
(seed 003's `VerificationResult.to_dict()`), every R-GRF finding as the report
prints it, and the `graph show` scene (the plan's path, the failing steps,
the feedback lines under the picture). The plans: seed 003's own plans
(`test/corpus/seed_003/`, on its cell and on the weld cell), seed 003's
scenarios, steps that break several checks at once (`combined_problems.yaml`), the examples, the TDL corpus and every rule fixture case that
names a cell. The pins were written before the graph checks moved from the
simulator into the rule modules, so they prove that move changed nothing a
user sees. After an intended change, regenerate them with
    PLAN_VERIFIER_UPDATE_PINS=1 scripts/test.sh test/test_graph_views.py
and read the diff before committing.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

from conftest import CORPUS, FIXTURES, ROOT
from plan_verifier import rules as registry
from plan_verifier.findings import Category
from plan_verifier.graph.draw import scene
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.simulate import simulate
from plan_verifier.pipeline import Verifier
from plan_verifier.rules.grf.trace import TraceRule

PINS = FIXTURES / "graph" / "views.json"
SEED_003 = ROOT / "test" / "corpus" / "seed_003"
SEED_CELL = str(SEED_003 / "seed_full.cell.yaml")


def _config(value: str | None) -> str | None:
    return str(ROOT / value) if value and "/" in value else value


def _plans():
    """(id, cell, robot, plan text, verify keyword arguments) of every plan to pin."""
    for path in sorted((SEED_003 / "plans").iterdir()):
        for cell in (SEED_CELL, "weld_cell"):
            yield f"seed_003/{path.name}@{Path(cell).stem}", cell, "ur10e", path.read_text(encoding="utf-8"), {}
    for scenario in yaml.safe_load((FIXTURES / "graph" / "seed_003_scenarios.yaml").read_text(encoding="utf-8"))["scenarios"]:
        kwargs = {k: scenario[k] for k in ("start_position", "start_tool") if k in scenario}
        yield f"scenario/{scenario['name']}", "weld_cell", "ur10e", json.dumps(scenario["plan"]), kwargs
    for case in yaml.safe_load((FIXTURES / "graph" / "combined_problems.yaml").read_text(encoding="utf-8"))["cases"]:
        kwargs = {k: case[k] for k in ("start_position", "start_tool") if k in case}
        yield f"combined/{case['name']}", "weld_cell", "ur10e", case["plan"], kwargs
    for path in sorted((ROOT / "examples").iterdir()):
        if path.suffix in (".json", ".tdl", ".yaml"):
            yield f"examples/{path.name}", "weld_cell", "ur10e", path.read_text(encoding="utf-8"), {}
    for path in sorted(CORPUS.iterdir()):
        if path.suffix in (".tdl", ".txt"):
            yield f"corpus/{path.name}", "weld_cell", "ur10e", path.read_text(encoding="utf-8"), {}
    for path in sorted((FIXTURES / "rules").glob("R-*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in data["cases"]:
            cell = _config(case.get("cell", data.get("cell")))
            if cell is None or "llm_answers" in case:
                continue
            plan = case["plan"]
            if "repeat" in case:
                plan = plan.replace("{{repeat}}", case["repeat"]["text"] * case["repeat"]["times"])
            kwargs = {k: case[k] for k in ("start_position", "start_tool", "plan_format") if k in case}
            yield f"{data['rule']}/{case['name']}", cell, _config(case.get("robot", data.get("robot", "ur10e"))), plan, kwargs


@lru_cache(maxsize=None)
def _verifier(cell: str, robot: str) -> Verifier:
    return Verifier(robot, graph=EmbeddedGraph.from_file(cell), level="BASIC")


def _view(cell: str, robot: str, plan: str, kwargs: dict) -> dict:
    verifier = _verifier(cell, robot)
    report = verifier.verify(plan, **kwargs)
    out = {
        "graph": report.to_dict()["graph"],
        "findings": [f.to_dict() for f in report.findings if f.rule_id.startswith("R-GRF-")],
        "scene": None,
    }
    if report.plan is not None and report.plan.parsed and report.cell is not None:
        start = verifier.start_state(report.cell, kwargs.get("start_position"), kwargs.get("start_tool"))
        view = scene(report.cell, simulate(report.plan, report.cell, start), report.findings)
        out["scene"] = {
            "title": view.title,
            "start": view.start,
            "path": [[s.src, s.dst, s.step, s.failed, s.legal] for s in view.path],
            "failed_positions": list(view.failed_positions),
            "notes": list(view.notes),
        }
    return json.loads(json.dumps(out))  # tuples as lists, as in the pins


PLANS = list(_plans())


def test_pins_cover_every_plan() -> None:
    if os.environ.get("PLAN_VERIFIER_UPDATE_PINS"):
        pins = {pid: _view(cell, robot, plan, kwargs) for pid, cell, robot, plan, kwargs in PLANS}
        PINS.write_text(json.dumps(pins, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    pinned = json.loads(PINS.read_text(encoding="utf-8"))
    assert sorted(pinned) == sorted(p[0] for p in PLANS)
    assert len(PLANS) == len({p[0] for p in PLANS})
    # the pins exercise the graph field: every kind of problem seed 003 lists occurs
    views = [v["graph"] for v in pinned.values() if v["graph"]]
    for key in ("missing_positions", "illegal_edges", "unsupported_routines", "tool_conflicts"):
        assert any(v[key] for v in views), key
    assert {f["rule_id"] for v in pinned.values() for f in v["findings"]} == {f"R-GRF-{n:03d}" for n in range(1, 12)}


@lru_cache(maxsize=1)
def _pinned() -> dict:
    return json.loads(PINS.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("pid", "cell", "robot", "plan", "kwargs"), PLANS, ids=[p[0][:60] for p in PLANS])
def test_graph_view_findings_and_scene_are_unchanged(pid: str, cell: str, robot: str, plan: str, kwargs: dict) -> None:
    assert _view(cell, robot, plan, kwargs) == _pinned()[pid]


def test_the_graph_field_lists_every_problem_whichever_rules_run() -> None:
    """The `graph` field is seed 003's whole VerificationResult even when only some rules are selected."""
    pid, cell, robot, plan, kwargs = next(p for p in PLANS if p[0] == "combined/unknown_names_do_not_cascade")
    for chosen in ([registry.get("R-GRF-002")], [r for r in registry.all_rules() if not r.id.startswith("R-GRF-")]):
        report = Verifier(robot, graph=EmbeddedGraph.from_file(cell), level="BASIC", rules=chosen).verify(plan, **kwargs)
        assert report.to_dict()["graph"] == _pinned()[pid]["graph"]


class _BrokenGraphCheck(TraceRule):
    """A graph check with a bug (not registered).

    **Unsafe**:: any plan

    **Safe**:: none
    """

    id = "R-GRF-999"
    name = "broken"
    check_order = 0

    def judge(self, trace, cell):
        raise ZeroDivisionError("bug")


def test_a_crashing_graph_check_leaves_no_valid_graph_field() -> None:
    plan = json.dumps([{"id": 1, "action": "move", "target": "Safe_Pos_1"}])
    report = Verifier(graph=EmbeddedGraph.from_file("weld_cell"), rules=[*registry.all_rules(), _BrokenGraphCheck]).verify(plan)
    assert (report.verdict, report.outcome) == ("FAIL", "UNKNOWN")
    assert report.graph["valid"] is False
    assert report.graph["feedback"] == "graph check R-GRF-999 failed: ZeroDivisionError: bug"


def test_a_crashing_simulation_fails_every_graph_check_and_the_graph_field(monkeypatch) -> None:
    def broken(*args):
        raise RuntimeError("simulator bug")

    monkeypatch.setattr("plan_verifier.graph.simulate._Simulator.run", broken)
    report = Verifier(graph=EmbeddedGraph.from_file("weld_cell")).verify(json.dumps([{"id": 1, "action": "move", "target": "Safe_Pos_1"}]))
    crashed = [f for f in report.findings if f.rule_id == "R-SYS-001" and f.category is Category.GRAPH]
    assert len(crashed) == 11 and all("simulator bug" in f.message for f in crashed)  # one per graph check that needs the trace
    assert (report.verdict, report.outcome) == ("FAIL", "UNKNOWN")
    assert report.graph == {"valid": False, "missing_positions": [], "illegal_edges": [], "unsupported_routines": [], "tool_conflicts": [],
                            "feedback": "graph simulation failed: RuntimeError: simulator bug"}
