"""The evaluation's arithmetic on hand-labelled data where the right numbers are known.

First the metric functions on outcomes written by hand, then a small labelled
dataset of real plans (two of them deliberately beyond the verifier: a plan
labelled correct that a rule rejects, and a semantic error the plan gives no
evidence of) run end to end through `plan-verify eval`.
"""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from plan_verifier.cli.main import main
from plan_verifier.evaluation import metrics, runner, summary
from plan_verifier.evaluation.dataset import cases
from plan_verifier.evaluation.metrics import Outcome


def _o(category: str, verdict: str, level: str | None = None, confidence: float = 1.0, **kw) -> Outcome:
    return Outcome(id=f"{category}-{verdict}", category=category, verdict=verdict, level_failed=level, confidence=confidence, **kw)


HAND = [
    _o("positive", "PASS"), _o("positive", "PASS"), _o("positive", "PARTIAL"), _o("positive", "FAIL", "SAFETY"),
    _o("syntax", "FAIL", "SYNTAX"), _o("syntax", "FAIL", "SYNTAX"), _o("syntax", "FAIL", "SYNTAX"),
    _o("safety", "FAIL", "SAFETY"), _o("safety", "FAIL", "SAFETY"), _o("safety", "PARTIAL"),
    _o("semantic", "FAIL", "SEMANTIC"), _o("semantic", "PASS"),
    _o("consistency", "FAIL", "CONSISTENCY"),
]


def test_counts_and_ratios_by_hand() -> None:
    per = metrics.by_category(HAND)
    assert per["syntax"] == metrics.Counts(tp=3, fp=1, fn=0, tn=3)
    assert per["syntax"].precision == pytest.approx(0.75) and per["syntax"].recall == 1.0
    assert per["syntax"].f1 == pytest.approx(6 / 7)
    assert per["safety"] == metrics.Counts(tp=2, fp=1, fn=1, tn=3)
    assert per["safety"].f1 == pytest.approx(2 / 3)
    assert per["semantic"].f1 == pytest.approx(0.5)
    assert per["consistency"].precision == pytest.approx(0.5) and per["consistency"].recall == 1.0
    assert metrics.weighted_f1(per) == pytest.approx(0.3 * 6 / 7 + 0.4 * 2 / 3 + 0.3 * 0.5)
    total = metrics.count(HAND)
    assert (total.tp, total.fp, total.fn, total.tn) == (7, 1, 2, 3)
    assert total.f1 == pytest.approx(98 / 119)
    assert total.false_positive_rate == pytest.approx(0.25)
    assert total.accuracy == pytest.approx(10 / 13)


def test_undefined_ratios_are_zero() -> None:
    nothing = metrics.Counts(tp=0, fp=0, fn=0, tn=5)
    assert (nothing.precision, nothing.recall, nothing.f1) == (0.0, 0.0, 0.0)


def test_outcome_matrix_by_hand() -> None:
    matrix = metrics.outcome_matrix(HAND)
    assert matrix["positive"] == {**dict.fromkeys(metrics.OUTCOME_COLUMNS, 0), "PASS": 2, "PARTIAL": 1, "SAFETY": 1}
    assert matrix["safety"]["SAFETY"] == 2 and matrix["safety"]["PARTIAL"] == 1
    assert matrix["semantic"]["PASS"] == 1 and matrix["semantic"]["SEMANTIC"] == 1


def test_percentiles_and_timing() -> None:
    assert metrics.percentile([4, 1, 3, 2], 50) == pytest.approx(2.5)
    assert metrics.percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert metrics.percentile([7], 95) == 7
    outcomes = [_o("positive", "PASS", timings_ms={"total": t, "semantic": t / 10}) for t in (1.0, 2.0, 3.0, 10.0)]
    stats = metrics.timing(outcomes)
    assert stats["total"] == {"n": 4, "median": 2.5, "p95": pytest.approx(8.95)}
    assert stats["semantic"]["median"] == pytest.approx(0.25)


def test_calibration_bins_and_error_by_hand() -> None:
    bins = metrics.calibration([(0.1, True), (0.15, False), (0.9, True), (1.0, True), (0.85, False)])
    assert [b.n for b in bins] == [2, 0, 0, 0, 3]
    assert bins[0].mean_confidence == pytest.approx(0.125) and bins[0].accuracy == pytest.approx(0.5)
    assert bins[4].mean_confidence == pytest.approx(2.75 / 3) and bins[4].accuracy == pytest.approx(2 / 3)
    assert metrics.expected_calibration_error(bins) == pytest.approx((2 * 0.375 + 3 * 0.25) / 5)


def test_abstentions_and_recall_per_subtype_by_hand() -> None:
    outcomes = [_o("positive", "PARTIAL", abstained=True), _o("positive", "PASS"), _o("semantic", "FAIL", subtype="wrong_object"),
                _o("semantic", "PARTIAL", subtype="wrong_object", abstained=True), _o("semantic", "PASS", subtype="wrong_order")]
    assert metrics.abstention_rate(outcomes) == 0.4
    assert metrics.by_subtype_recall(outcomes) == {"wrong_object": {"n": 2, "recall": 0.5, "abstained": 0.5},
                                                   "wrong_order": {"n": 1, "recall": 0.0, "abstained": 0.0}}


def test_semantic_calibration_looks_at_positives_and_semantic_cases_only() -> None:
    outcomes = [_o("positive", "PASS", semantic_verdict="PASS", semantic_confidence=0.9),
                _o("semantic", "FAIL", semantic_verdict="FAIL", semantic_confidence=0.8),
                _o("semantic", "PASS", semantic_verdict="PASS", semantic_confidence=0.6),
                _o("syntax", "FAIL", semantic_verdict=None)]
    assert metrics.semantic_pairs(outcomes) == [(0.9, True), (0.8, True), (0.6, False)]


# --------------------------------------------------------------------------- a labelled dataset, end to end

GOOD = (FIXTURES / "plans" / "transfer_box_a_to_b.tdl").read_text(encoding="utf-8")
TRANSFER = "Transfer the box from table A to table B"
FAST_APPROACH = "SPAWN MoveLinear(target_pose=B_Approach_Pose, velocity=100,"


def _case(id_, nl, tdl, **labels):
    return {"id": id_, "natural_language": nl, "plan_format": "tdl", "tdl_code": tdl, **labels, "metadata": {"complexity": "moderate"}}


HAND_DATASET = {
    "seed": None,
    "positive_examples": [
        _case("POS-1", TRANSFER, GOOD, expected_verdict="PASS"),
        # labelled correct, but the plan moves at 5000 mm/s: the verifier is right to reject it (a false positive by label)
        _case("POS-2", TRANSFER, GOOD.replace(FAST_APPROACH, "SPAWN MoveLinear(target_pose=B_Approach_Pose, velocity=5000,"), expected_verdict="PASS"),
    ],
    "negative_examples": {
        "syntax_errors": [_case("SYN-1", TRANSFER, GOOD.replace("SPAWN End() WITH WAIT;", "SPAWN End() WITH WAIT"), expected_verdict="FAIL",
                                error_type="syntax", error_subtype="remove_semicolon")],
        "safety_errors": [
            _case("SAF-1", TRANSFER, GOOD.replace("PosX(400, 200, 60,", "PosX(400, 200, -50,"), expected_verdict="FAIL",
                  error_type="safety", error_subtype="negative_z"),
            # 600 mm/s is only a WARNING for the rules (at 800 the base joint could not keep up: R-KIN-005): approved
            # (PARTIAL), a miss by label
            _case("SAF-2", TRANSFER, GOOD.replace(FAST_APPROACH, "SPAWN MoveLinear(target_pose=B_Approach_Pose, velocity=600,"),
                  expected_verdict="FAIL", error_type="safety", error_subtype="excessive_velocity"),
        ],
        "semantic_errors": [
            _case("SEM-1", "Transfer the red block from table A to table B", GOOD.replace("A_Grasp_Pose", "Blue_Block_Pose"),
                  expected_verdict="FAIL", error_type="semantic", error_subtype="swap_objects"),
            # the plan's comments say it grasps the box, not the apple
            _case("SEM-2", "Transfer the apple from table A to table B", GOOD, expected_verdict="FAIL",
                  error_type="semantic", error_subtype="swap_objects"),
        ],
        "consistency_errors": [_case("CON-1", TRANSFER, GOOD.replace("target_pose=B_Place_Pose", "target_pose=B_Place_Pos"),
                                     expected_verdict="FAIL", error_type="consistency", error_subtype="undefined_reference")],
    },
}


def test_a_hand_labelled_dataset_end_to_end() -> None:
    outcomes = runner.run(cases(HAND_DATASET), "hybrid")
    got = {o.id: (o.verdict, o.level_failed) for o in outcomes}
    assert got == {"POS-1": ("PASS", None), "POS-2": ("FAIL", "SAFETY"), "SYN-1": ("FAIL", "SYNTAX"),
                   "SAF-1": ("FAIL", "SAFETY"), "SAF-2": ("PARTIAL", None), "SEM-1": ("FAIL", "SEMANTIC"),
                   "SEM-2": ("FAIL", "SEMANTIC"), "CON-1": ("FAIL", "CONSISTENCY")}
    s = summary.summarize(outcomes)
    assert s["confusion"] == {"tp": 5, "fp": 1, "fn": 1, "tn": 1}
    assert s["per_category"]["syntax"]["precision"] == 0.5 and s["syntax_precision"] == 0.5
    assert s["safety_recall"] == 0.5
    assert s["per_category"]["semantic"]["f1"] == pytest.approx(0.8, abs=1e-4)
    assert s["overall_f1"] == pytest.approx(0.3 * 2 / 3 + 0.4 * 0.5 + 0.3 * 0.8, abs=1e-4)
    assert s["micro"]["f1"] == pytest.approx(5 / 6, abs=1e-4)
    assert {m["id"] for m in s["misclassified"]} == {"POS-2", "SAF-2"}
    assert s["timing_ms"]["total"]["n"] == 8 and s["timing_ms"]["semantic"]["n"] == 7  # no semantic stage after a syntax error


def test_eval_command_json_ablation_and_plots(tmp_path, capsys) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(HAND_DATASET), encoding="utf-8")
    status = main(["eval", str(path), "--ablation", "--format", "json", "--plots", str(tmp_path / "plots")])
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    assert out["confusion"] == {"tp": 5, "fp": 1, "fn": 1, "tn": 1}
    rows = {r["configuration"]: r for r in out["ablation"]}
    assert rows["rule_based"]["semantic_f1"] == 0.0  # SEM-1 needs the semantic stage
    assert rows["semantic_only"]["syntax_f1"] == 0.0 and rows["semantic_only"]["semantic_f1"] > 0
    for name in ("confusion_matrix.png", "calibration.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_eval_text_output_names_the_misses(tmp_path, capsys) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(HAND_DATASET), encoding="utf-8")
    assert main(["eval", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Overall F1 (0.3 syntax + 0.4 safety + 0.3 semantic): 0.6400" in text
    assert "SAF-2" in text and "Misclassified: 2" in text


@pytest.mark.parametrize("content", ["not json", "[1, 2]", "{}"])
def test_eval_rejects_what_is_not_a_dataset(tmp_path, capsys, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert main(["eval", str(path)]) == 2
    assert "plan-verify: error:" in capsys.readouterr().err


# --------------------------------------------------------------------------- hand-written development sets (YAML)

DEV_YAML = """cases:
  - id: T-001
    natural_language: Put the box into bin 2
    plan_format: tdl
    expected_verdict: PASS
    style: named_inline
    language: en
    tdl_code: |
{good}
  - id: T-002
    natural_language: Put the apple into bin 2
    plan_format: tdl
    expected_verdict: FAIL
    error_subtype: wrong_object
    error_description: the box is moved, not the apple
    style: named_inline
    language: en
    tdl_code: |
{good}
  - id: T-003
    natural_language: 박스를 A에서 B로 옮겨줘
    plan_format: tdl
    expected_verdict: PASS
    style: define_named
    language: ko
    tdl_code: |
{good}
"""


def test_development_set_yaml_is_reported_apart_with_false_alarms_and_abstentions(tmp_path, capsys) -> None:
    indented = "\n".join("      " + line for line in GOOD.splitlines())
    folder = tmp_path / "dev"
    folder.mkdir()
    (folder / "cases.yaml").write_text(DEV_YAML.format(good=indented), encoding="utf-8")
    assert main(["eval", str(folder), "--split", "all", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    s = out["splits"]["all"]
    assert s["cases"] == 3 and s["pass_cases"] == 2 and s["fail_cases"] == 1
    assert s["false_alarm_rate"] == 0.0 and s["recall"] == 1.0 and s["f1"] == 1.0
    assert s["per_subtype"] == {"wrong_object": {"n": 1, "recall": 1.0, "abstained": 0.0}}
    assert set(s["per_language"]) == {"en", "ko"}
    assert main(["eval", str(folder / "cases.yaml")]) == 0  # default: the dev and hold-out parts, reported apart
    text = capsys.readouterr().out
    assert "dev" in text and "holdout" in text and "false alarms" in text


def test_the_holdout_split_is_fixed_by_id() -> None:
    from plan_verifier.evaluation.devset import split

    ids = [f"DEV-X-{n:03d}" for n in range(1000)]
    held = [i for i in ids if split(i) == "holdout"]
    assert 0.27 < len(held) / len(ids) < 0.33
    assert [split(i) for i in ids] == [split(i) for i in ids]  # the same every time, whatever else is in the set


def test_a_yaml_file_that_is_not_a_development_set_is_refused(tmp_path, capsys) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("just: a mapping\n", encoding="utf-8")
    assert main(["eval", str(path)]) == 2
    assert "not a development set" in capsys.readouterr().err
