"""The real generator programs: what we accept, and the defects we must report.

`test/fixtures/corpus_findings.yaml` pins every finding (rule, severity, line)
for every corpus program on the default robot (UR10e) at level STANDARD, so a
rule change that alters what users see shows up as a reviewed diff. After an
intended change, regenerate it with
    PLAN_VERIFIER_UPDATE_PINS=1 scripts/test.sh test/test_corpus.py
and read the diff before committing.
"""

from __future__ import annotations

import os

import pytest
import yaml

from conftest import CORPUS, FIXTURES
from plan_verifier.pipeline import Verifier

PINS = FIXTURES / "corpus_findings.yaml"
PROGRAMS = sorted(CORPUS.glob("*.t*"))
VERIFIER = Verifier("ur10e", level="STANDARD")


def _summary(path) -> dict:
    report = VERIFIER.verify(path.read_bytes(), path=path.name)
    return {
        "verdict": report.verdict,
        "findings": [f"{f.rule_id} {f.severity.value} line {f.span.line if f.span else '-'}" for f in report.findings],
    }


def test_pins_cover_the_corpus() -> None:
    if os.environ.get("PLAN_VERIFIER_UPDATE_PINS"):
        PINS.write_text(yaml.safe_dump({p.name: _summary(p) for p in PROGRAMS}, allow_unicode=True, sort_keys=True, width=200),
                        encoding="utf-8")
    pinned = yaml.safe_load(PINS.read_text(encoding="utf-8"))
    assert sorted(pinned) == sorted(p.name for p in PROGRAMS)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name[:40])
def test_findings_are_pinned(path) -> None:
    pinned = yaml.safe_load(PINS.read_text(encoding="utf-8"))[path.name]
    assert _summary(path) == pinned


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name[:40])
def test_no_corpus_program_has_a_syntax_error(path) -> None:
    # None of the collected programs has a syntax error (checked by hand: all are
    # well-formed in one of the two dialects), so any R-SYN finding is a parser bug.
    report = VERIFIER.verify(path.read_bytes())
    assert [f.rule_id for f in report.findings if f.rule_id.startswith("R-SYN")] == []


def _rules(name: str) -> set[tuple[str, str]]:
    report = VERIFIER.verify((CORPUS / name).read_bytes())
    return {(f.rule_id, f.severity.value) for f in report.findings}


def test_excessive_task_acceleration_is_critical() -> None:
    assert ("R-SAF-009", "CRITICAL") in _rules("251204_tdl__tdl_v1_20251202_180228.txt")  # SetTaskAcceleration(1250)


@pytest.mark.parametrize("name", ["251128_TDL__tdl_v1_20251126_113807.txt", "251204_tdl__tdl_v1_20251201_113500.txt",
                                  "251204_tdl__tdl_v1_20251203_095106.txt"])
def test_ending_while_holding_the_object(name: str) -> None:
    assert ("R-SAF-005", "WARNING") in _rules(name)


@pytest.mark.parametrize("name", ["251204_tdl__tdl_v1_20251202_180357.txt", "251204_tdl__tdl_v1_20251202_182504.txt",
                                  "251204_tdl__tdl_v1_20251202_183212.txt"])
def test_opening_the_gripper_in_mid_air(name: str) -> None:
    assert ("R-SAF-006", "WARNING") in _rules(name)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name[:40])
def test_missing_end_is_reported_exactly_when_end_is_missing(path) -> None:
    has_end = "End()" in path.read_text(encoding="utf-8")
    assert (("R-CON-006", "WARNING") in _rules(path.name)) == (not has_end)


def test_declared_payload_with_nothing_grasped() -> None:
    name = next(p.name for p in PROGRAMS if p.name.startswith("20251112_NL2TDL"))
    assert {("R-CON-007", "WARNING"), ("R-SAF-008", "CRITICAL")} <= _rules(name)  # 15 kg on a 12.5 kg UR10e


def test_header_payload_never_applied() -> None:
    assert ("R-CON-007", "WARNING") in _rules("NLTDL__tdl_transfer_20251027_075238.tdl")


def test_pick_at_the_robot_base_origin() -> None:
    assert ("R-SAF-010", "CRITICAL") in _rules("NLTDL__tdl_transfer_20251027_070003.tdl")


def test_undefined_trans_frame_is_flagged() -> None:
    assert ("R-SAF-012", "WARNING") in _rules("251128_TDL__tdl_v1_20251128_105644.txt")


def test_doosan_programs_on_a_doosan_arm_have_no_floor_collision() -> None:
    # PosJ(0, 0, 90, 0, 90, 0) is Doosan's home pose: on an M1013 the flange is 651 mm up,
    # on a UR10e the same angles put it 507 mm below the base (R-SAF-004 above).
    report = Verifier("m1013").verify((CORPUS / "NLTDL__tdl_transfer_20251027_070003.tdl").read_bytes())
    assert "R-SAF-004" not in {f.rule_id for f in report.findings}
