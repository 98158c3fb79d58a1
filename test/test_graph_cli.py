"""`plan-verify graph load|export|show`, `repair`, and `check --graph-uri/--emit-yaml`."""

from __future__ import annotations

import json

import pytest
import yaml

from conftest import FIXTURES, ROOT
from graph_server import USER, FalkorServer
from plan_verifier.actions import verify_actions_file
from plan_verifier.cli.main import main
from plan_verifier.graph.model import load_cell_file
from plan_verifier.graph.neo4j_backend import PASSWORD_ENV
from plan_verifier.resources import resolve

pytestmark = pytest.mark.graph_server

SCENARIOS = {s["name"]: s for s in yaml.safe_load((FIXTURES / "graph" / "seed_003_scenarios.yaml").read_text(encoding="utf-8"))["scenarios"]}
WELD = load_cell_file(resolve("cells", "weld_cell"))


@pytest.fixture(autouse=True)
def no_password(monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, "")


def _bolt(server, database: str | None = None) -> list[str]:
    return ["--graph-uri", server.uri, "--graph-user", USER, "--graph-timeout", "3"] + (["--graph-database", database] if database else [])


def _plan_file(tmp_path, name: str) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"name": name, "steps": SCENARIOS[name]["plan"]}), encoding="utf-8")
    return str(path)


def test_load_twice_then_export(tmp_path, capsys) -> None:
    with FalkorServer(tmp_path / "falkordb") as server:
        assert main(["graph", "load", "weld_cell", *_bolt(server)]) == 0
        assert main(["graph", "load", "weld_cell", *_bolt(server)]) == 0
        second = capsys.readouterr().out.splitlines()[-1]
        assert "10 positions, 18 moves, 2 tools, 6 routines, 10 :SUPPORTED_AT, 4 collision objects; removed 0 stale elements; names indexed" in second
        assert main(["graph", "export", *_bolt(server), "-o", str(tmp_path / "exported.yaml")]) == 0
        assert load_cell_file(tmp_path / "exported.yaml") == WELD
        assert main(["graph", "export", *_bolt(server)]) == 0
        assert yaml.safe_load(capsys.readouterr().out)["name"] == "weld_cell"


def test_load_of_an_invalid_cell_file_is_exit_2(tmp_path, capsys, bolt_cells) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\npositions: [{name: A, role: kitchen}]\n", encoding="utf-8")
    assert main(["graph", "load", str(bad), *_bolt(bolt_cells["weld_cell"], "weld_cell")]) == 2
    assert "invalid cell file" in capsys.readouterr().err


def test_check_against_bolt_emits_the_approved_yaml(tmp_path, capsys, bolt_cells) -> None:
    plan = _plan_file(tmp_path, "yaml_example_sequence_is_valid")
    out = tmp_path / "actions.yaml"
    assert main(["check", plan, *_bolt(bolt_cells["weld_cell"], "weld_cell"), "--emit-yaml", str(out)]) == 0
    assert "PASS (approved" in capsys.readouterr().out
    assert verify_actions_file(out)
    verification = yaml.safe_load(out.read_text(encoding="utf-8"))["RobotSequence"]["verification"]
    assert (verification["graph_fingerprint"], verification["robot"]) == (WELD.fingerprint, "ur10e")


def test_a_rejected_plan_writes_no_yaml(tmp_path, capsys, bolt_cells) -> None:
    out = tmp_path / "actions.yaml"
    assert main(["check", _plan_file(tmp_path, "tool_stand_collision"), *_bolt(bolt_cells["weld_cell"], "weld_cell"),
                 "--start-position", "Safe_Pos_1", "--start-tool", "Camera", "--emit-yaml", str(out)]) == 1
    captured = capsys.readouterr()
    assert "R-GRF-008" in captured.out and "not written: the plan was rejected" in captured.err
    assert not out.exists()
    assert main(["check", _plan_file(tmp_path, "tool_stand_collision"), _plan_file(tmp_path, "release_while_empty"),
                 "--cell", "weld_cell", "--emit-yaml", str(out)]) == 2
    assert "exactly one plan" in capsys.readouterr().err


def test_show_draws_cell_and_plan(tmp_path, capsys, bolt_cells) -> None:
    png = tmp_path / "cell.png"
    assert main(["graph", "show", *_bolt(bolt_cells["assembly_cell"], "assembly_cell"), "--png", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["graph", "show", "weld_cell", "--png", str(png), "--plan", str(ROOT / "examples" / "weld_seam_5_illegal_edge.json")]) == 0
    assert "plan FAIL" in capsys.readouterr().out
    assert main(["graph", "show", "--png", str(png)]) == 2


def test_repair_prints_the_repaired_plan_verified_by_the_pipeline(tmp_path, capsys) -> None:
    """Contract §8: the graph's repairs, then the whole pipeline's verdict on the result (`verified`)."""
    assert main(["repair", _plan_file(tmp_path, "illegal_edge_home_to_pos_5"), "--cell", "weld_cell"]) == 0
    captured = capsys.readouterr()
    repaired = json.loads(captured.out)
    assert [s["target"] for s in repaired["steps"]] == ["Home", "Safe_Pos_2", "Pos_5"]
    assert "insert (R-GRF-002): Step 2: insert Home -> Safe_Pos_2 -> Pos_5" in captured.err and "approved" in captured.err
    out = tmp_path / "repaired.json"
    out.write_text(captured.out, encoding="utf-8")
    assert main(["check", str(out), "--cell", "weld_cell"]) == 0


def test_repair_reports_what_it_cannot_fix(tmp_path, capsys) -> None:
    assert main(["repair", _plan_file(tmp_path, "missing_position_pos_99"), "--cell", "weld_cell", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["verified"] and [u["rule_id"] for u in report["unrepaired"]] == ["R-GRF-001"]
    assert "cell graph" in report["unrepaired"][0]["why"]
    tdl = tmp_path / "p.tdl"
    tdl.write_text("GOAL Execute_Process() { MoveJoint(Home, 100, 100, 0, 0); }\n", encoding="utf-8")
    assert main(["repair", str(tdl), "--cell", "weld_cell"]) == 0  # a TDL program is repaired too: this one is approved as it is
