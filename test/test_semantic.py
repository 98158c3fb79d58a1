"""The semantic stage: the issue's instructions, seed 000's few-shot examples (§2.3) and case studies (§5.4),
the instruction reader (English and Korean), abstention, the corpus, and how the language tools are loaded."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading

import pytest

from conftest import CORPUS, FIXTURES, ROOT
from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.pipeline import Verifier
from plan_verifier.rules.sem._semantic import severity_for
from plan_verifier.semantic.instruction import read_instruction

SEMANTIC_RULES = [r for r in registry.all_rules() if r.category is Category.SEMANTIC]
PLANS = FIXTURES / "plans"
#: One clean pick-and-place program that moves the red cube from the table into bin 3, in three naming styles.
RED_CUBE_TO_BIN3 = {style: (PLANS / f"red_cube_bin3_{style}.tdl").read_text(encoding="utf-8")
                    for style in ("define_named", "named_inline", "positional_assign")}


def _semantic_stage(plan: str, instruction: str):
    return Verifier(level="FULL", rules=SEMANTIC_RULES).verify(plan, instruction=instruction)


def _full(plan: str, instruction: str):
    return Verifier(level="FULL").verify(plan, instruction=instruction)


def _rules(report, severity: Severity = Severity.CRITICAL) -> list[str]:
    return sorted({f.rule_id for f in report.findings if f.severity is severity})


# --------------------------------------------------------------------------- the issue's instructions


@pytest.mark.parametrize("style", sorted(RED_CUBE_TO_BIN3))
@pytest.mark.parametrize(("instruction", "rule"), [
    ("Move the red cube from bin 3 to the table", "R-SEM-003"),         # source and destination swapped
    ("Put the red cube into bin 2", "R-SEM-003"),                        # wrong destination
    ("Pick up the red cube and hand it to the operator", "R-SEM-002"),   # wrong action and destination
    ("Place the blue cube in bin 3", "R-SEM-001"),
    ("빨간 큐브를 2번 통에 넣어줘", "R-SEM-003"),
    ("빨간 큐브를 집어서 작업자에게 건네줘", "R-SEM-002"),
], ids=["swapped", "bin-2", "hand-over", "blue-cube", "ko-bin-2", "ko-hand-over"])
def test_the_issue_instructions_that_were_approved_are_rejected(style, instruction, rule) -> None:
    report = _full(RED_CUBE_TO_BIN3[style], instruction)
    assert report.verdict == "FAIL" and report.level_failed == "SEMANTIC", [f.message for f in report.findings]
    assert _rules(report) == [rule]
    [finding] = [f for f in report.findings if f.severity is Severity.CRITICAL]
    # A finding quotes both sides: the instruction's words and the program's.
    assert "'" in finding.message and finding.evidence["confidence"] >= 0.7


@pytest.mark.parametrize("style", sorted(RED_CUBE_TO_BIN3))
@pytest.mark.parametrize("instruction", ["Put the red cube into slot 2", "빨간 큐브를 2번 슬롯에 넣어줘"], ids=["en", "ko"])
def test_issue_17_a_place_of_another_kind_is_a_location_error_not_missing_evidence(style, instruction) -> None:
    # The program says bin 3 (names and comments), the instruction slot 2: two places of two different kinds.
    report = _full(RED_CUBE_TO_BIN3[style], instruction)
    assert report.verdict == "FAIL" and _rules(report) == ["R-SEM-003"], [f.message for f in report.findings]
    [finding] = [f for f in report.findings if f.severity is Severity.CRITICAL]
    assert "slot 2" in finding.message or "2번 슬롯" in finding.message
    assert "bin 3" in finding.message.lower() or "bin3" in finding.message.lower()
    assert finding.evidence["kind"] == "other_kind" and not any(f.indeterminate for f in report.findings)


@pytest.mark.parametrize("style", sorted(RED_CUBE_TO_BIN3))
def test_issue_17_leave_it_at_is_a_destination(style) -> None:
    report = _full(RED_CUBE_TO_BIN3[style], "Take the red cube and leave it at the tray")
    assert report.verdict == "FAIL" and _rules(report) == ["R-SEM-003"], [f.message for f in report.findings]
    [finding] = [f for f in report.findings if f.severity is Severity.CRITICAL]
    assert "the tray" in finding.message


@pytest.mark.parametrize("style", sorted(RED_CUBE_TO_BIN3))
def test_issue_17_a_destination_the_reader_cannot_read_is_a_warning_not_a_pass(style) -> None:
    report = _full(RED_CUBE_TO_BIN3[style], "Take the red cube and frobnicate it at the tray")
    assert report.verdict == "PARTIAL", [f.message for f in report.findings]
    [warning] = [f for f in report.findings if f.rule_id == "R-SEM-000"]
    assert warning.severity is Severity.WARNING and warning.evidence["reason_code"] == "insufficient_evidence"
    assert "the tray" in warning.message


@pytest.mark.parametrize("style", sorted(RED_CUBE_TO_BIN3))
@pytest.mark.parametrize("instruction", [
    "Take the red cube and leave it in bin 3",
    "Grab the red cube, then set it down in bin 3.",
    "The red cube goes into bin 3.",
    "Red cube: table -> bin 3",
    "빨간 큐브 테이블에서 3번 통으로",
    "빨간 큐브를 집어서 3번 통에다 넣어 줘",
], ids=["leave-in", "set-down", "goes-into", "arrow", "ko-verbless", "ko-eda"])
def test_issue_17_constructions_approve_the_correct_plan(style, instruction) -> None:
    report = _full(RED_CUBE_TO_BIN3[style], instruction)
    assert report.verdict != "FAIL", [f.message for f in report.findings]


@pytest.mark.parametrize("style", sorted(RED_CUBE_TO_BIN3))
@pytest.mark.parametrize("instruction", [
    "Don't touch the blue cube; put the red cube into bin 3",   # the issue: negation read as a request
    "Put the red cube into bin 3",
    "Move the red cube from the table to bin 3",
    "Please drop the red block in bin three",
    "Leave the blue cube where it is and move the red one to bin 3",
    "파란 큐브는 건드리지 말고 빨간 큐브를 3번 통에 넣어",
    "빨간 큐브를 테이블에서 3번 통으로 옮겨줘",
    "The red cube is on the table. Put it in bin 3.",
])
def test_correct_plans_are_not_rejected(style, instruction) -> None:
    report = _full(RED_CUBE_TO_BIN3[style], instruction)
    assert report.verdict != "FAIL", [f.message for f in report.findings]


def test_negation_violated_is_its_own_finding() -> None:
    plan = RED_CUBE_TO_BIN3["define_named"]
    report = _full(plan, "Leave the red cube alone and put the blue ball in bin 3")
    assert report.verdict == "FAIL" and "R-SEM-007" in _rules(report)
    [finding] = [f for f in report.findings if f.rule_id == "R-SEM-007"]
    assert "Red_Cube" in finding.message and finding.evidence["kind"] == "negation_violated"


# --------------------------------------------------------------------------- seed 000


# Seed 000 §2.3 FEW_SHOT_EXAMPLES, verbatim: (nl, tdl, verdict, confidence).
FEW_SHOT_EXAMPLES = [
    ("Transfer the box from table A to table B", """
DEFINE A_Grasp_Pose = PosX(0, 0, 60, 0, 0, 0);
DEFINE B_Place_Pose = PosX(300, 200, 60, 0, 0, 0);
GOAL Execute_Process() {
    SPAWN MoveLinear(target_pose=A_Grasp_Pose, ...) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT; // Close gripper
    SPAWN MoveLinear(target_pose=B_Place_Pose, ...) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT; // Open gripper
}
        """, "PASS", 95),
    ("Pick the red block from position A", """
DEFINE Blue_Block_Pose = PosX(0, 0, 60, 0, 0, 0);
GOAL Execute_Process() {
    SPAWN MoveLinear(target_pose=Blue_Block_Pose, ...) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
}
        """, "FAIL", 90),
    ("Slowly place the fragile glass at position B", """
DEFINE B_Place_Pose = PosX(300, 200, 60, 0, 0, 0);
GOAL Execute_Process() {
    SPAWN MoveLinear(target_pose=B_Place_Pose, velocity=500, ...) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;
}
        """, "FAIL", 85),
    ("Move to position A then position B then return home", """
DEFINE Home_Pose = PosJ(0, 0, 90, 0, 90, 0);
DEFINE A_Pose = PosX(100, 0, 150, 0, 0, 0);
DEFINE B_Pose = PosX(300, 200, 150, 0, 0, 0);
GOAL Execute_Process() {
    SPAWN MoveLinear(target_pose=B_Pose, ...) WITH WAIT;  // ERROR: B first
    SPAWN MoveLinear(target_pose=A_Pose, ...) WITH WAIT;  // Then A
    SPAWN MoveJoint(target_pose=Home_Pose, ...) WITH WAIT;
}
        """, "FAIL", 95),
    ("Grip the part tightly", """
GOAL Execute_Process() {
    SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
    // No delay specified
}
        """, "FAIL", 75),
]
#: The rule each failing example is about (seed 000 §2.3's reasons).
FEW_SHOT_RULE = {"Pick the red block from position A": "R-SEM-001", "Slowly place the fragile glass at position B": "R-SEM-002",
                 "Move to position A then position B then return home": "R-SEM-004", "Grip the part tightly": "R-SEM-002"}


@pytest.mark.parametrize(("nl", "tdl", "verdict", "confidence"), FEW_SHOT_EXAMPLES, ids=[c[0] for c in FEW_SHOT_EXAMPLES])
def test_seed_few_shot_examples_get_their_stated_semantic_verdict(nl, tdl, verdict, confidence) -> None:
    report = _semantic_stage(tdl, nl)
    for finding in report.findings:
        if "confidence" in finding.evidence:  # a judgement: CRITICAL exactly when its confidence clears the threshold
            assert finding.severity is severity_for(finding.evidence["confidence"])
    if verdict == "PASS":
        assert report.approved and not _rules(report)  # the box is never named: the stage may abstain, never reject
    else:
        assert report.verdict == "FAIL" and FEW_SHOT_RULE[nl] in _rules(report)


@pytest.mark.parametrize(("nl", "tdl"), [(c[0], c[1]) for c in FEW_SHOT_EXAMPLES if "..." in c[1]], ids=lambda v: v[:20] if isinstance(v, str) else "")
def test_the_full_pipeline_rejects_the_elided_arguments_of_the_seed_snippets(nl, tdl) -> None:
    report = Verifier(level="FULL").verify(tdl, instruction=nl)
    assert report.verdict == "FAIL" and report.level_failed == "SYNTAX"
    assert "R-SYN-006" in report.violated_constraints


def test_seed_few_shot_example_5_fails_the_full_pipeline_on_semantics() -> None:
    nl, tdl, _, _ = FEW_SHOT_EXAMPLES[4]
    report = Verifier(level="FULL").verify(tdl, instruction=nl)
    assert report.verdict == "FAIL" and report.level_failed == "SEMANTIC"
    [finding] = [f for f in report.findings if f.rule_id == "R-SEM-002"]
    assert finding.evidence["confidence"] == 0.75


# Seed 000 §5.4 case studies, as complete programs (the seed describes the TDL in words).
PLACE_GENTLY = """DEFINE Glass_Place_Pose = PosX(400, 200, 60, 0, 180, 0);
GOAL Execute_Process() {
    SPAWN MoveLinear(target_pose=Glass_Place_Pose, velocity=1000, acceleration=100, tool=0, blending_radius=0) WITH WAIT;
    SPAWN End() WITH WAIT;
}
"""
BEYOND_REACH = """DEFINE Target_Pose = PosX(1500, 1000, 500, 0, 180, 0);
GOAL Execute_Process() {
    SPAWN MoveLinear(target_pose=Target_Pose, velocity=100, acceleration=100, tool=0, blending_radius=0) WITH WAIT;
    SPAWN End() WITH WAIT;
}
"""
B_THEN_A = """DEFINE A_Pose = PosX(400, 0, 150, 0, 180, 0);
DEFINE B_Pose = PosX(400, 200, 150, 0, 180, 0);
GOAL Execute_Process() {
    SPAWN MoveLinear(target_pose=B_Pose, velocity=100, acceleration=100, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=A_Pose, velocity=100, acceleration=100, tool=0, blending_radius=0) WITH WAIT;
    SPAWN End() WITH WAIT;
}
"""


@pytest.mark.parametrize(("instruction", "plan", "rule_based", "semantic", "hybrid"), [
    ("Place the fragile glass gently", PLACE_GENTLY, "approved", "FAIL", "FAIL"),   # 1. Complex Semantic Error
    ("Move to position B", BEYOND_REACH, "FAIL", "approved", "FAIL"),              # 2. Subtle Safety Issue (UR10E, 1300 mm)
    ("Move to A then B", B_THEN_A, "approved", "FAIL", "FAIL"),                    # 3. Ambiguous Case
], ids=["complex-semantic-error", "subtle-safety-issue", "ambiguous-case"])
def test_seed_case_studies(instruction, plan, rule_based, semantic, hybrid) -> None:
    rules_only = Verifier(level="STANDARD").verify(plan)
    assert (rules_only.verdict if rule_based == "FAIL" else ("approved" if rules_only.approved else "rejected")) == rule_based
    semantic_only = _semantic_stage(plan, instruction)
    # "Target_Pose" names no place: the stage cannot confirm B, so it approves with an abstention (seed: "LLM: May PASS").
    assert (("approved" if semantic_only.approved else "rejected") if semantic == "approved" else semantic_only.verdict) == semantic
    assert Verifier(level="FULL").verify(plan, instruction=instruction).verdict == hybrid


def test_gently_in_korean_against_a_fast_move() -> None:
    report = _semantic_stage(PLACE_GENTLY, "유리컵을 천천히 내려놔")
    assert report.verdict == "FAIL" and "R-SEM-002" in _rules(report)


# --------------------------------------------------------------------------- abstaining


OPAQUE = """DEFINE Home = PosJ(180, -90, 90, -90, -90, 0);
DEFINE P1 = PosX(500, -200, 180, 180, 0, 0);
DEFINE P2 = PosX(500, -200, 40, 180, 0, 0);
DEFINE P3 = PosX(600, 250, 200, 180, 0, 0);
DEFINE P4 = PosX(600, 250, 80, 180, 0, 0);
GOAL Execute_Process() {
    SPAWN MoveJoint(target_pose=Home, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;
    SPAWN Delay(duration_sec=0.5) WITH WAIT;
    SPAWN MoveLinear(target_pose=P1, velocity=150, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=P2, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
    SPAWN Delay(duration_sec=0.5) WITH WAIT;
    SPAWN MoveLinear(target_pose=P1, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=P3, velocity=150, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=P4, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;
    SPAWN Delay(duration_sec=0.5) WITH WAIT;
    SPAWN MoveLinear(target_pose=P3, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveJoint(target_pose=Home, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN End() WITH WAIT;
}
"""


@pytest.mark.parametrize("instruction", ["Move the red cube from the table to bin 3", "Put the widget on the conveyor",
                                         "부품을 A에서 B로 옮겨"])
def test_a_plan_whose_names_say_nothing_is_approved_with_an_abstention(instruction) -> None:
    report = _full(OPAQUE, instruction)
    assert report.verdict == "PARTIAL" and report.outcome == "UNKNOWN", [f.message for f in report.findings]
    abstentions = [f for f in report.findings if f.evidence.get("reason_code") == "insufficient_evidence"]
    assert abstentions and all(f.severity is Severity.WARNING and f.category is Category.SEMANTIC for f in abstentions)
    assert "insufficient_evidence" in report.reason_codes


def test_a_name_that_matches_nothing_is_not_a_mismatch() -> None:
    plan = RED_CUBE_TO_BIN3["define_named"].replace("Red_Cube", "Sprocket_Blank")
    report = _full(plan, "Put the gear into bin 3")
    assert report.verdict == "PARTIAL" and not _rules(report)
    [abstention] = [f for f in report.findings if f.rule_id == "R-SEM-001"]
    assert "Sprocket_Blank" in abstention.message


def test_an_unreadable_instruction_abstains() -> None:
    report = _full(RED_CUBE_TO_BIN3["define_named"], "Do the usual, like yesterday.")
    assert report.verdict == "PARTIAL" and report.outcome == "UNKNOWN"
    [finding] = [f for f in report.findings if f.rule_id == "R-SEM-000"]
    assert finding.severity is Severity.WARNING and finding.evidence["reason_code"] == "insufficient_evidence"


def test_level_full_without_an_instruction_is_unknown_not_rejected() -> None:
    plan = "GOAL Execute_Process() { SPAWN Delay(duration_sec=0.5) WITH WAIT; SPAWN End() WITH WAIT; }"
    report = Verifier(level="FULL").verify(plan)
    assert report.verdict == "PASS" and report.outcome == "UNKNOWN"
    assert report.reason_codes == ("insufficient_evidence",)


@pytest.mark.parametrize(("confidence", "severity"), [(0.95, "CRITICAL"), (0.70, "CRITICAL"), (0.69, "WARNING"), (0.5, "WARNING"), (0.49, "INFO")])
def test_only_a_confident_judgement_is_critical(confidence: float, severity: str) -> None:
    assert severity_for(confidence).value == severity


# --------------------------------------------------------------------------- the corpus


def _corpus_command(path) -> str:
    text = path.read_text(encoding="utf-8")
    found = re.search(r"(?:User Command|Original Command): (.*)", text)
    if found:
        return found.group(1).strip()
    return json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["raw_input"]


CORPUS_PROGRAMS = sorted(p for p in CORPUS.iterdir() if p.suffix in (".tdl", ".txt"))


@pytest.mark.parametrize("path", CORPUS_PROGRAMS, ids=lambda p: p.name[:40])
def test_corpus_programs_against_their_own_requests(path) -> None:
    report = _semantic_stage(path.read_text(encoding="utf-8"), _corpus_command(path))
    if path.name.startswith("20251112_NL2TDL"):
        # "용접기를 집어서 ... 가져와줄래?": the program never closes a gripper.
        assert _rules(report) == ["R-SEM-005"] and report.verdict == "FAIL"
    else:
        assert report.approved, [f.message for f in report.findings]


# --------------------------------------------------------------------------- reading instructions


def _tasks(text: str):
    return [(t.action, t.obj.describe() if t.obj else None, t.source.key if t.source else None,
             t.destination.key if t.destination else None) for t in read_instruction(text).tasks]


@pytest.mark.parametrize(("text", "tasks"), [
    ("Move the red cube from bin 3 to the table", [("transfer", "red cube", "bin3", "table")]),
    ("Transfer the box from table A to table B", [("transfer", "box", "a", "b")]),
    ("Pick up the apple at A and put it down at B", [("place", "apple", "a", "b")]),
    ("Pick up the red cube and hand it to the operator", [("handover", "red cube", None, "operator")]),
    ("Take the battery out of bin 1 and hold it out for the operator", [("handover", "battery", "bin1", "operator")]),
    ("Could you bring me the blue mug?", [("transfer", "blue cup", None, "operator")]),
    ("Please drop the red block in bin three", [("place", "red cube", None, "bin3")]),
    ("First put the red cube in bin 1, then the blue cube in bin 2", [("place", "red cube", None, "bin1"), ("place", "blue cube", None, "bin2")]),
    ("Put the cube in bin 3 after you move the ball to the tray", [("transfer", "ball", None, "tray"), ("place", "cube", None, "bin3")]),
    ("The bolt and the nut both go in bin 2", [("transfer", "bolt", None, "bin2"), ("transfer", "nut", None, "bin2")]),
    ("The red cube is in bin 3. Move it to the tray.", [("transfer", "red cube", "bin3", "tray")]),
    ("Relocate the steel plate from the pallet to the left side of the table", [("transfer", "steel plate", "pallet", "left")]),
    ("Move the robot to point A", [("move_to", None, None, "a")]),
    ("빨간 큐브를 Pos_1에서 3번 통으로 조심스럽게 옮겨 주세요", [("transfer", "red cube", "pos1", "bin3")]),
    ("A에 있는 사과를 들어서 B에 내려놔줘", [("place", "apple", "a", "b")]),
    ("사과를 집어서 작업자에게 건네줘", [("handover", "apple", None, "operator")]),
    ("상자 두 개를 팔레트 위에 쌓아", [("stack", "box", None, "pallet")]),
    ("B를 옮기기 전에 A를 옮겨", [("transfer", "a", None, None), ("transfer", "b", None, None)]),
    ("B위치 먼저 가고 그다음에 A위치", [("move_to", None, None, "b"), ("move_to", None, None, "a")]),
    ("케이블은 센서를 B 스테이션에 놓은 다음에 2번 빈에 넣어 주세요", [("place", "sensor", None, "b"), ("insert", "cable", None, "bin2")]),
])
def test_instructions_read_as_tasks(text, tasks) -> None:
    assert _tasks(text) == tasks


def test_negation_and_exclusion_scope() -> None:
    reading = read_instruction("Don't touch the blue cube; put the red cube into bin 3")
    assert [o.describe() for o in reading.excluded] == ["blue cube"] and _tasks(reading.text) == [("place", "red cube", None, "bin3")]
    assert [o.describe() for o in read_instruction("Leave the bottle where it is and move the cup to the tray").excluded] == ["bottle"]
    assert [o.describe() for o in read_instruction("Move both boxes onto the pallet, except the green one").excluded] == ["green one"]
    assert [o.describe() for o in read_instruction("Without moving the tray, put the screws in bin 2").excluded] == ["tray"]
    assert [o.describe() for o in read_instruction("파란 큐브 말고 빨간 큐브를 B 위치에 내려놔").excluded] == ["blue cube"]
    assert [o.describe() for o in read_instruction("병은 그대로 두고 컵을 트레이로 옮겨").excluded] == ["bottle"]
    assert [(a, p.key) for a, p in read_instruction("Put the gear in a bin, but not bin 3 - it's full.").excluded_places] == [("place", "bin3")]


def test_a_planners_summary_before_its_steps_and_a_tool_change() -> None:
    steps = read_instruction("Task: weld then verify.\nSteps:\n1. Tack weld Pos_1.\n2. Swap welder for camera.\n3. Inspect Pos_1.")
    assert [(t.action, t.obj.noun if t.obj else None) for t in steps.tasks] == \
        [("weld", None), ("detach", "welder"), ("attach", "camera"), ("inspect", None)]
    ko = read_instruction("목표: 큐브 옮기기\n단계:\n1. 빨간 큐브를 1번 통에서 집기\n2. 2번 통에 놓기")
    assert len(ko.tasks) == 1 and ko.tasks[0].destination.label == "2"
    # a change named by the tool that goes on: the one on the arm comes off first; "and inspect Pos_2" is a task of its own
    assert [(t.action, t.obj.noun if t.obj else None, t.stage) for t in
            read_instruction("Tack weld Pos_2, then switch over to the camera and inspect Pos_2.").tasks] == \
        [("weld", None, 0), ("detach", None, 1), ("attach", "camera", 2), ("inspect", None, 2)]
    assert [t.action for t in read_instruction("Move the crate to the table and inspect Pos_3.").tasks] == ["transfer", "inspect"]
    assert [t.action for t in read_instruction("Flip the switch to the left.").tasks] == ["transfer"]
    # anything else swapped is carried, and a summary with no numbered steps after it stays the instruction
    assert [t.action for t in read_instruction("Swap the red cube for the blue cube.").tasks] == ["transfer"]
    assert [t.action for t in read_instruction("Task: move the cube to bin 2.").tasks] == ["transfer"]


def test_a_clause_that_rules_a_place_out_still_names_its_thing() -> None:
    from plan_verifier.rules.sem.r_sem_007 import _nouns_asked

    reading = read_instruction("Put the scarf on the green shelf, not the blue one.")
    [clause] = [c for c in reading.clauses if c.excluded_places]
    assert "scarf" in _nouns_asked(clause, reading.text)


def test_an_english_generic_noun_in_korean_text_is_generic() -> None:
    # "part" in a Korean sentence is any part, as it is in an English one: nothing to compare with a cell's pick routine
    [task] = read_instruction("투입 컨베이어에서 part 집어서 지그에 올려").tasks
    assert task.obj is not None and task.obj.generic


def test_manner_said_where_no_verb_takes_it() -> None:
    assert read_instruction("Egg crate: packing bench → dispatch cart, quickly please.").manner == (("fast", "quickly"),)
    # taken back, a permission, an adjective, or both kinds: no manner
    for text in ("Egg crate to the dispatch cart, no need to hurry.", "달걀 상자 포장대에서 출고 카트로, 빨리 해도 괜찮아요.",
                 "달걀 상자 포장대에서 출고 카트로 옮겨. 천천히 할 필요는 없어.", "Give the egg crate a quick look, then it goes to cart 2.",
                 "Egg crate to cart 2, quickly but gently."):
        assert read_instruction(text).manner == (), text


def test_order_manner_and_context() -> None:
    assert read_instruction("Move to A, then B").ordered and not read_instruction("Move the cup to A and the bowl to B").ordered
    assert read_instruction("먼저 빨간 블록을 A에서 B로 옮기고, 그 다음 바나나를 C에서 D로 옮겨줘").ordered
    assert read_instruction("Slowly place the fragile glass at position B").manner == (("slow", "Slowly"), ("slow", "fragile"))
    assert read_instruction("Move the mug to the scale - it's full, so go easy.").manner == (("slow", "easy"),)
    assert read_instruction("깨지기 쉬운 유리컵을 천천히 놓아줘").manner == (("slow", "천천히"),)
    # a statement of where the thing goes says how too; a leading "Then" orders a route without a verb
    assert read_instruction("The swollen cell has to go to the scrap bin, slowly - don't shake it.").manner == (("slow", "slowly"),)
    assert read_instruction("The mug goes to the scale gently.").manner == (("slow", "gently"),)
    # a sentence of its own that only says how: a leading manner word before a reason, a request of a manner
    assert read_instruction("Move the stencil to rack 2. Slowly, the ink is still wet.").manner == (("slow", "Slowly"),)
    assert read_instruction("Can you take the pot to the pass? Carefully - it's hot.").manner == (("slow", "Carefully"),)
    assert read_instruction("접시를 2번 선반으로 옮겨 주세요. 아주 조심스럽게 다뤄 주십시오.").manner == (("slow", "조심스럽게"),)
    assert read_instruction("화분을 창가 선반에 놓아 줘. 천천히 부탁해요.").manner == (("slow", "천천히"),)
    assert read_instruction("화분을 창가 선반에 놓아 줘. 컨베이어는 천천히 돌아가요.").manner == ()  # how the conveyor runs
    assert read_instruction("Move the box to tray 1. Then the cup to tray 2.").ordered
    assert not read_instruction("Move the box to tray 1. The cup to tray 2.").ordered
    reading = read_instruction("We're short on time. Drop the part off at station B.")
    assert reading.context == ("We're short on time",) and len(reading.tasks) == 1


# --------------------------------------------------------------------------- language tools


def test_english_only_use_never_loads_the_korean_model_and_check_imports_no_language_tool() -> None:
    code = ("import sys\n"
            "from plan_verifier.pipeline import Verifier\n"
            "assert not {'kiwipiepy', 'lemminflect', 'rapidfuzz'} & set(sys.modules), 'imported at start-up'\n"
            "Verifier(level='FULL').verify(open(sys.argv[1]).read(), instruction='Put the red cube into bin 3')\n"
            "assert 'kiwipiepy' not in sys.modules and 'lemminflect' in sys.modules\n")
    result = subprocess.run([sys.executable, "-c", code, str(PLANS / "red_cube_bin3_define_named.tdl")],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr


def test_korean_reading_is_thread_safe() -> None:
    from plan_verifier.semantic import language

    texts = [f"빨간 큐브를 {n}번 통으로 옮겨줘" for n in range(1, 9)]
    results: dict[str, tuple] = {}

    def read(text: str) -> None:
        results[text] = language.korean_morphs(text)

    threads = [threading.Thread(target=read, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    language.korean_morphs.cache_clear()
    assert all(results[t] == language.korean_morphs(t) for t in texts)
    assert [m.form for m in results[texts[2]]][:4] == ["빨갛", "ᆫ", "큐브", "를"]
