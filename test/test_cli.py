"""The command line as a user meets it: exit codes, formats, and bad input (contract §1)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import CORPUS, ROOT
from plan_verifier.cli.main import main

SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
GOOD = """DEFINE Home_Pose = PosJ(180, -90, 90, -90, -90, 0);
DEFINE Approach = PosX(400, 0, 300, 0, 180, 0);
GOAL Execute_Process() {
    SPAWN MoveJoint(target_pose=Home_Pose, velocity=100, acceleration=100, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=Approach, velocity=100, acceleration=100, tool=0, blending_radius=0) WITH WAIT;
    SPAWN End() WITH WAIT;
}
"""
BAD = "GOAL Execute_Process() {\n    SPAWN MoveLinear(PosX(2000, 1000, 500, 0, 0, 0), 100, 50, 0, 0) WITH WAIT\n}\n"


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """A real process: what a user or CI sees, stderr included."""
    return subprocess.run([sys.executable, "-m", "plan_verifier.cli.main", *args], input=stdin, capture_output=True, timeout=120)


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.tdl"
    path.write_text(GOOD, encoding="utf-8")
    return path


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.tdl"
    path.write_text(BAD, encoding="utf-8")
    return path


def test_approved_plan_exits_0(good: Path, capsys) -> None:
    assert main(["check", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith("0 critical, 0 warning, 0 info") or "approved" in out


def test_rejected_plan_exits_1_with_compiler_style_text(bad: Path, capsys) -> None:
    assert main(["check", str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    first = lines[0]
    assert first.startswith(f"{bad}:2:")
    assert " CRITICAL R-SYN-005 " in first
    assert lines[1] == "    " + BAD.splitlines()[1]
    caret = lines[2]
    assert caret.strip().startswith("^")
    assert "FAIL (rejected" in lines[-1]


def test_caret_points_at_the_column(tmp_path: Path, capsys) -> None:
    path = tmp_path / "p.tdl"
    path.write_text("GOAL A() {\n    SPAWN Dleay(0.5) WITH WAIT;\n}\n", encoding="utf-8")
    main(["check", str(path)])
    lines = capsys.readouterr().out.splitlines()
    src, caret = lines[1][4:], lines[2][4:]
    assert src[caret.index("^") :].startswith("SPAWN Dleay")


def test_json_report_matches_contract_schema(good: Path, bad: Path, capsys) -> None:
    for path, code in ((good, 0), (bad, 1)):
        assert main(["check", str(path), "--format", "json"]) == code
        report = json.loads(capsys.readouterr().out)
        jsonschema.validate(report, SCHEMA)
        assert report["path"] == str(path)
        assert report["approved"] is (code == 0)


def test_schema_rejects_a_drifted_report(bad: Path, capsys) -> None:
    main(["check", str(bad), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    report["findings"][0]["severity"] = "ERROR"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(report, SCHEMA)
    del report["findings"][0]
    report["extra"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(report, SCHEMA)


def test_several_plans_give_json_lines_and_the_worst_status(good: Path, bad: Path, capsys) -> None:
    assert main(["check", str(good), str(bad), "--format", "json"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    reports = [json.loads(line) for line in lines]
    assert [r["path"] for r in reports] == [str(good), str(bad)]
    for r in reports:
        jsonschema.validate(r, SCHEMA)


def test_corpus_reports_match_schema(capsys) -> None:
    files = sorted(CORPUS.glob("*.t*"))
    main(["check", *map(str, files), "--format", "json"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(files)
    for line in lines:
        jsonschema.validate(json.loads(line), SCHEMA)


def test_sarif_output(bad: Path, capsys) -> None:
    assert main(["check", str(bad), "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    result = run["results"][0]
    assert result["level"] == "error"
    assert rule_ids[result["ruleIndex"]] == result["ruleId"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 2
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == str(bad)


def test_stdin(capsys) -> None:
    proc = run_cli("check", "-", stdin=GOOD.encode())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().startswith("-: PASS")


def test_rules_lists_the_registry() -> None:
    proc = run_cli("rules")
    assert proc.returncode == 0
    out = proc.stdout.decode()
    from plan_verifier import rules

    for rule in rules.all_rules():
        assert rule.id in out


def test_rules_index_in_the_docs_is_the_registry(capsys) -> None:
    """docs/rules.md is `plan-verify rules --format markdown`; every rule links to a module that exists."""
    assert main(["rules", "--format", "markdown"]) == 0
    generated = capsys.readouterr().out
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert generated == committed, "docs/rules.md is out of date: regenerate it with `.venv/bin/plan-verify rules --format markdown > docs/rules.md`"
    from plan_verifier import rules

    for rule in rules.all_rules():
        (link,) = [line.split("](", 1)[1].split(")", 1)[0] for line in committed.splitlines() if line.startswith(f"| [{rule.id}](")]
        assert (ROOT / "docs" / link).resolve() == Path(sys.modules[rule.__module__].__file__).resolve(), rule.id


def test_rules_doc_prints_examples() -> None:
    proc = run_cli("rules", "--doc", "R-SYN-005")
    assert proc.returncode == 0
    assert "**Unsafe**" in proc.stdout.decode()


# ---------------------------------------------------------------- bad input: one line, exit 2, never a traceback


def _assert_one_line_error(proc: subprocess.CompletedProcess, needle: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == 2, (proc.returncode, err)
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert needle in err


def test_missing_file() -> None:
    _assert_one_line_error(run_cli("check", "/no/such/plan.tdl"), "no such file")


def test_directory(tmp_path: Path) -> None:
    _assert_one_line_error(run_cli("check", str(tmp_path)), "is a directory")


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    _assert_one_line_error(run_cli("check", str(path)), "binary file")


def test_unknown_robot(good: Path) -> None:
    _assert_one_line_error(run_cli("check", str(good), "--robot", "r2d2"), "unknown robot 'r2d2'")


def test_invalid_robot_spec_names_the_field(good: Path, tmp_path: Path) -> None:
    spec = tmp_path / "robot.yaml"
    spec.write_text((ROOT / "config" / "robots" / "ur10e.yaml").read_text().replace("reach_mm: 1300", "reach_mm: far"))
    _assert_one_line_error(run_cli("check", str(good), "--robot", str(spec)), "reach_mm")


def test_robot_spec_that_is_not_yaml(good: Path, tmp_path: Path) -> None:
    spec = tmp_path / "robot.yaml"
    spec.write_text("name: [unclosed")
    _assert_one_line_error(run_cli("check", str(good), "--robot", str(spec)), "invalid robot spec")


def test_bad_flag(good: Path) -> None:
    _assert_one_line_error(run_cli("check", str(good), "--level", "EXTREME"), "invalid choice")


def test_level_in_any_case(good: Path) -> None:
    proc = run_cli("check", str(good), "--level", "basic", "--format", "json")
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout)["level"] == "BASIC"


def test_json_plan_without_graph(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text('[{"action": "move", "target": "Pos_1"}]')
    _assert_one_line_error(run_cli("check", str(path)), "needs a cell graph")


def test_missing_file_among_good_ones_still_checks_the_rest(good: Path) -> None:
    proc = run_cli("check", str(good), "/no/such.tdl")
    assert proc.returncode == 2
    assert "PASS" in proc.stdout.decode()


# ---------------------------------------------------------------- bad input that is a verification result (exit 1)


def test_invalid_utf8_is_a_syntax_finding(tmp_path: Path) -> None:
    path = tmp_path / "latin1.tdl"
    path.write_bytes("GOAL A() {\n  // caf\xe9\n}\n".encode("latin-1"))
    proc = run_cli("check", str(path), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    finding = report["findings"][0]
    assert finding["rule_id"] == "R-SYN-009"
    assert (finding["line"], finding["column"]) == (2, 9)


def test_empty_file_is_rejected_with_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "empty.tdl"
    path.write_bytes(b"")
    proc = run_cli("check", str(path), "--format", "json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["findings"][0]["rule_id"] == "R-SYN-001"


def test_oversized_file_is_rejected_without_parsing(tmp_path: Path) -> None:
    path = tmp_path / "huge.tdl"
    path.write_bytes(b"GOAL A() {\n" + b"  SPAWN Delay(0.5) WITH WAIT;\n" * 40000 + b"}\n")
    proc = run_cli("check", str(path), "--format", "json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert [f["rule_id"] for f in report["findings"]] == ["R-SYN-010"]
