"""The semantic stage: seed 000's few-shot examples (§2.3) and case studies (§5.4), the instruction reader, the corpus."""

from __future__ import annotations

import re

import pytest

from conftest import CORPUS
from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.pipeline import Verifier
from plan_verifier.semantic.assessment import severity_for
from plan_verifier.semantic.instruction import read_instruction

SEMANTIC_RULES = [r for r in registry.all_rules() if r.category is Category.SEMANTIC]

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


def _semantic_stage(plan: str, instruction: str):
    return Verifier(level="FULL", rules=SEMANTIC_RULES).verify(plan, instruction=instruction)


@pytest.mark.parametrize(("nl", "tdl", "verdict", "confidence"), FEW_SHOT_EXAMPLES, ids=[c[0] for c in FEW_SHOT_EXAMPLES])
def test_seed_few_shot_examples_get_their_stated_semantic_verdict(nl, tdl, verdict, confidence) -> None:
    report = _semantic_stage(tdl, nl)
    assert report.verdict == verdict
    for finding in report.findings:
        # A semantic finding is CRITICAL exactly when its confidence clears the threshold.
        assert finding.severity is severity_for(finding.evidence["confidence"])
    if verdict == "FAIL":
        assert any(f.severity is Severity.CRITICAL for f in report.findings)


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
    ("Move to position B", BEYOND_REACH, "FAIL", "PASS", "FAIL"),                  # 2. Subtle Safety Issue (UR10E, 1300 mm)
    ("Move to A then B", B_THEN_A, "approved", "FAIL", "FAIL"),                    # 3. Ambiguous Case
], ids=["complex-semantic-error", "subtle-safety-issue", "ambiguous-case"])
def test_seed_case_studies(instruction, plan, rule_based, semantic, hybrid) -> None:
    rules_only = Verifier(level="STANDARD").verify(plan)
    assert (rules_only.verdict if rule_based == "FAIL" else ("approved" if rules_only.approved else "rejected")) == rule_based
    assert _semantic_stage(plan, instruction).verdict == semantic
    assert Verifier(level="FULL").verify(plan, instruction=instruction).verdict == hybrid


def _corpus_command(path) -> str:
    text = path.read_text(encoding="utf-8")
    found = re.search(r"(?:User Command|Original Command): (.*)", text)
    if found:
        return found.group(1).strip()
    import json
    return json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["raw_input"]


CORPUS_PROGRAMS = sorted(p for p in CORPUS.iterdir() if p.suffix in (".tdl", ".txt"))


@pytest.mark.parametrize("path", CORPUS_PROGRAMS, ids=lambda p: p.name[:40])
def test_corpus_programs_against_their_own_requests(path) -> None:
    report = _semantic_stage(path.read_text(encoding="utf-8"), _corpus_command(path))
    if path.name.startswith("20251112_NL2TDL"):
        # "용접기를 집어서 ... 가져와줄래?": the program never closes a gripper.
        assert [f.rule_id for f in report.findings] == ["R-SEM-005"]
        assert report.verdict == "FAIL"
    else:
        assert report.findings == (), [f.message for f in report.findings]


def test_level_full_without_an_instruction_is_unknown_not_rejected() -> None:
    plan = "GOAL Execute_Process() { SPAWN Delay(duration_sec=0.5) WITH WAIT; SPAWN End() WITH WAIT; }"
    report = Verifier(level="FULL").verify(plan)
    assert report.verdict == "PASS" and report.outcome == "UNKNOWN"
    assert report.reason_codes == ("insufficient_evidence",)


@pytest.mark.parametrize(("confidence", "severity"), [(0.95, "CRITICAL"), (0.70, "CRITICAL"), (0.69, "WARNING"), (0.5, "WARNING"), (0.49, "INFO")])
def test_only_a_confident_judgement_is_critical(confidence: float, severity: str) -> None:
    assert severity_for(confidence).value == severity


# --------------------------------------------------------------------------- reading instructions


def _places(text: str, positions: tuple[str, ...] = ()):
    return [(p.value, p.role) for p in read_instruction(text, positions).places]


@pytest.mark.parametrize(("text", "places"), [
    ("Transfer the box from table A to table B", [("a", "source"), ("b", "destination")]),
    ("Pick up the apple at A and put it down at B", [("a", "source"), ("b", "destination")]),
    ("박스를 A에서 B로 옮겨줘", [("a", "source"), ("b", "destination")]),
    ("A에 있는 사과를 들어서 B에 내려놔줘", [("a", "source"), ("b", "destination")]),
    ("Tack weld at Pos_1 and Pos_5", [("pos1", "at"), ("pos5", "at")]),
    ("Move to position 2, then return home", [("pos2", "destination"), ("home", "destination")]),
    ("A box is on table B", [("b", "at")]),
    ("로봇 A를 이용하여 B로 옮겨줘", [("b", "destination")]),
    ("Lift it by Z + 100 mm", []),
])
def test_places_and_their_roles(text, places) -> None:
    assert _places(text, ("Pos_1", "Pos_5")) == places


def test_objects_colours_containers_and_manner() -> None:
    intent = read_instruction("Gently put the red cube into the box, then slowly place the orange block on B")
    assert [(o.value, o.color) for o in intent.objects] == [("cube", "red"), ("block", "orange")]
    assert [c.value for c in intent.containers] == ["box"]
    assert [h.text for h in intent.gentle] == ["Gently", "slowly"]
    assert intent.ordered


def test_korean_objects_manner_and_order() -> None:
    intent = read_instruction("먼저 빨간 블록을 A에서 B로 천천히 옮기고, 그 다음 바나나를 C에서 D로 옮겨줘")
    assert [(o.value, o.color) for o in intent.objects] == [("block", "red"), ("banana", None)]
    assert [h.text for h in intent.gentle] == ["천천히"]
    assert intent.ordered and intent.object_sequence == ("block", "banana")


def test_before_and_after_do_not_order() -> None:
    assert not read_instruction("Move to B after you visit A").ordered
    assert read_instruction("Move to A, after that to B").ordered


def test_cell_names_are_read_verbatim() -> None:
    intent = read_instruction("Attach the gripper, place part at Fixture, then put the gripper back",
                              ("Fixture", "Home"), ("place_part", "pick_part"), (("Gripper", "gripper"),))
    assert [a.value for a in intent.actions] == ["attach", "routine:placepart", "detach"]
    assert [(o.value, o.verb) for o in intent.objects] == [("gripper", "attach"), ("gripper", "detach")]
    assert [(p.value, p.role) for p in intent.places] == [("fixture", "at")]
