"""`plan-verify dataset generate`: structure, proportions, determinism, and honest labels."""

from __future__ import annotations

import collections
import json

import pytest

from plan_verifier.cli.main import main
from plan_verifier.evaluation import injector, runner
from plan_verifier.evaluation.dataset import COMPLEXITY, SHARES, cases, generate, plan_text, quotas

SEED = 20240611  # the README's benchmark uses another seed


@pytest.fixture(scope="module")
def dataset() -> dict:
    return generate(150, SEED)


def test_quotas_follow_seed_000_for_600() -> None:
    assert quotas(600, SHARES) == {"positive": 200, "syntax": 100, "semantic": 150, "safety": 100, "consistency": 50}
    assert quotas(100, COMPLEXITY) == {"simple": 40, "moderate": 40, "complex": 15, "edge_case": 5}
    assert sum(quotas(7, SHARES).values()) == 7 and all(quotas(7, SHARES).values())


def test_structure_of_seed_000_section_3(dataset: dict) -> None:
    assert dataset["counts"] == {"positive": 50, "syntax_errors": 25, "semantic_errors": 38, "safety_errors": 25, "consistency_errors": 12}
    for case in dataset["positive_examples"]:
        assert case["expected_verdict"] == "PASS" and "error_type" not in case
        assert case["id"].startswith("POS-")
    for section, negatives in dataset["negative_examples"].items():
        for case in negatives:
            assert case["expected_verdict"] == "FAIL"
            assert section == f"{case['error_type']}_errors"
            assert case["error_subtype"] and case["error_description"]
    for case in cases(dataset):
        assert case["natural_language"] and plan_text(case)
        assert set(case["metadata"]) >= {"complexity", "task_type", "objects", "locations", "dialect", "language", "robot"}


def test_every_injection_of_seed_000_section_3_2_is_used(dataset: dict) -> None:
    used = {c.get("error_subtype") for c in cases(dataset)}
    assert set(injector.SYNTAX + injector.SEMANTIC + injector.SAFETY) <= used
    assert used & set(injector.CONSISTENCY_TDL) and used & set(injector.CONSISTENCY_JSON)


def test_complexity_mix_per_category(dataset: dict) -> None:
    by_category = collections.defaultdict(collections.Counter)
    for case in cases(dataset):
        by_category[case["category"]][case["metadata"]["complexity"]] += 1
    for category, counts in by_category.items():
        assert dict(counts) == {k: v for k, v in quotas(sum(counts.values()), COMPLEXITY).items() if v}, category


def test_both_tdl_dialects_json_plans_and_korean(dataset: dict) -> None:
    dialects = collections.Counter(c["metadata"]["dialect"] for c in cases(dataset))
    assert set(dialects) == {"named_inline", "positional_assign", "define_named", "json"}
    assert {c["metadata"]["language"] for c in cases(dataset)} == {"en", "ko"}
    assert {c["metadata"]["cell"] for c in cases(dataset) if c["plan_format"] == "json"} >= {"weld_cell"}


def test_same_seed_same_dataset_other_seed_other_dataset() -> None:
    assert generate(40, 7) == generate(40, 7)
    assert generate(40, 7) != generate(40, 8)


def test_labels_are_honest(dataset: dict) -> None:
    """Positives pass cleanly; every negative is rejected, at the level its label names (graph for cell inconsistencies)."""
    outcomes = runner.run(cases(dataset), "hybrid")
    expected_level = {"syntax": {"SYNTAX"}, "safety": {"SAFETY"}, "semantic": {"SEMANTIC", "GRAPH"},
                      "consistency": {"CONSISTENCY", "GRAPH"}}
    for o in outcomes:
        if o.category == "positive":
            assert o.verdict == "PASS", (o.id, o.rules)
        else:
            assert o.verdict == "FAIL" and o.level_failed in expected_level[o.category], (o.id, o.subtype, o.level_failed, o.rules)


def test_semantic_negatives_are_invisible_to_the_rules_except_through_the_cell(dataset: dict) -> None:
    """A semantic negative is a correct program for another instruction: syntax and safety rules accept it."""
    outcomes = runner.run([c for c in cases(dataset) if c["category"] == "semantic"], "rule_based")
    for o in outcomes:
        assert o.level_failed in (None, "GRAPH"), (o.id, o.subtype, o.rules)


def test_dataset_command_writes_the_same_file_twice(tmp_path, capsys) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["dataset", "generate", "--size", "30", "--seed", "5", str(first)]) == 0
    assert main(["dataset", "generate", "--size", "30", "--seed", "5", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    data = json.loads(first.read_text(encoding="utf-8"))
    assert data["size"] == 30 and data["seed"] == 5 and len(cases(data)) == 30
    assert "wrote" in capsys.readouterr().err


def test_dataset_command_rejects_a_tiny_size(tmp_path, capsys) -> None:
    assert main(["dataset", "generate", "--size", "3", "--seed", "1", str(tmp_path / "x.json")]) == 2
    assert "--size" in capsys.readouterr().err
