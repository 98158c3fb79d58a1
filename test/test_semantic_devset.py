"""The hand-written semantic development set (test/fixtures/semantic_dev/) is well formed and clean.

The set measures the semantic stage alone, so every program in it must be
correct robot code apart from its one labelled semantic mistake: at level
STANDARD it has no CRITICAL finding and no WARNING, except the WARNINGs a
case declares in `standard_warnings` because its injected mistake is itself
visible to a deterministic rule (a "gently" program at 800 mm/s is also
outside R-SAF-002's recommended range, and may drive a wrist joint within 20 %
of its speed limit: R-KIN-005). The declared list must be exact, so
it cannot hide anything else. The labels themselves are the author's
judgement and are not derived from the verifier; the semantic stage is never
run here.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from plan_verifier.findings import Severity
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.ir import CARTESIAN
from plan_verifier.pipeline import Verifier
from plan_verifier.tdl.lower import lower_tdl

ROOT = Path(__file__).resolve().parents[1]
DEV_DIR = ROOT / "test" / "fixtures" / "semantic_dev"
CELLS = {"weld_cell", "assembly_cell"}
SUBTYPES = {"wrong_object", "wrong_source", "wrong_destination", "swapped_locations", "wrong_order", "wrong_manner",
            "missing_step", "extra_task", "wrong_action", "negation_violated"}
STYLES = {"named_inline", "positional_assign", "define_named", "opaque_names", "json"}
LANGUAGES = {"en", "ko", "mixed"}
KEYS = ("id", "natural_language", "plan_format", "cell", "expected_verdict", "error_subtype", "error_description",
        "style", "language", "tags")
OPTIONAL_KEYS = {"pair", "standard_warnings", "tdl_code", "json_plan"}
HANGUL = re.compile(r"[\uac00-\ud7a3]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
HOME = (180.0, -90.0, 90.0, -90.0, -90.0, 0.0)


def _load() -> dict[str, list[dict]]:
    return {path.name: yaml.safe_load(path.read_text(encoding="utf-8"))["cases"] for path in sorted(DEV_DIR.glob("*.yaml"))}


FILES = _load()
CASES = [case for cases in FILES.values() for case in cases]


@functools.cache
def _verifier(cell: str | None) -> Verifier:
    graph = EmbeddedGraph.from_file(str(ROOT / "config" / "cells" / f"{cell}.yaml")) if cell else None
    return Verifier("ur10e", graph=graph, level="STANDARD")


def _plan(case: dict) -> str:
    return case["tdl_code"] if case["plan_format"] == "tdl" else case["json_plan"]


# ---------------------------------------------------------------- structure
def test_every_file_is_a_nonempty_case_list() -> None:
    assert FILES, f"no case files in {DEV_DIR}"
    for name, cases in FILES.items():
        assert isinstance(cases, list) and cases, name


def test_ids_are_unique_and_carry_their_file_prefix() -> None:
    ids = Counter(case["id"] for case in CASES)
    assert not [i for i, n in ids.items() if n > 1]
    for name, cases in FILES.items():
        prefixes = {case["id"].rsplit("-", 1)[0] for case in cases}
        assert len(prefixes) == 1, f"{name}: one id prefix per file, got {sorted(prefixes)}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_case_fields_and_labels(case: dict) -> None:
    assert set(KEYS) <= case.keys() and case.keys() <= set(KEYS) | OPTIONAL_KEYS, sorted(case.keys())
    assert isinstance(case["natural_language"], str) and case["natural_language"].strip()
    assert case["style"] in STYLES and case["language"] in LANGUAGES
    assert isinstance(case["tags"], list) and all(isinstance(t, str) for t in case["tags"])
    if case["plan_format"] == "tdl":
        assert "tdl_code" in case and "json_plan" not in case and case["cell"] is None and case["style"] != "json"
    else:
        assert case["plan_format"] == "json" and "json_plan" in case and "tdl_code" not in case
        assert case["cell"] in CELLS and case["style"] == "json"
    if case["expected_verdict"] == "PASS":
        assert case["error_subtype"] is None and case["error_description"] is None and "standard_warnings" not in case
    else:
        assert case["expected_verdict"] == "FAIL"
        assert case["error_subtype"] in SUBTYPES
        assert isinstance(case["error_description"], str) and case["error_description"].strip()
    text = case["natural_language"]
    has_hangul, has_latin = bool(HANGUL.search(text)), bool(LATIN_WORD.search(text))
    expected = {"en": (False, True), "ko": (True, None), "mixed": (True, True)}[case["language"]]
    assert has_hangul == expected[0] and (expected[1] is None or has_latin == expected[1]), (case["language"], text)


def test_pairs_share_the_instruction_and_hold_both_verdicts() -> None:
    pairs: dict[str, list[dict]] = defaultdict(list)
    for case in CASES:
        if "pair" in case:
            pairs[case["pair"]].append(case)
    assert pairs
    for key, members in pairs.items():
        assert len(members) == 2, key
        assert len({m["natural_language"] for m in members}) == 1, key
        assert len({m["cell"] for m in members}) == 1 and len({m["style"] for m in members}) == 1, key
        assert sorted(m["expected_verdict"] for m in members) == ["FAIL", "PASS"], key


def test_the_mix_the_brief_asks_for() -> None:
    verdicts = Counter(case["expected_verdict"] for case in CASES)
    languages = Counter(case["language"] for case in CASES)
    subtypes = Counter(case["error_subtype"] for case in CASES if case["error_subtype"])
    assert len(CASES) >= 240
    assert 0.4 <= verdicts["PASS"] / len(CASES) <= 0.6, verdicts
    assert languages["ko"] / len(CASES) >= 0.35, languages
    assert set(subtypes) == SUBTYPES and min(subtypes.values()) >= 4, subtypes
    assert {case["style"] for case in CASES} == STYLES


# ---------------------------------------------------------------- programs
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_program_is_clean_at_standard(case: dict) -> None:
    report = _verifier(case["cell"]).verify(_plan(case), plan_format=case["plan_format"])
    critical = [f"{f.rule_id}: {f.message}" for f in report.findings if f.severity is Severity.CRITICAL]
    warned = sorted({f.rule_id for f in report.findings if f.severity is Severity.WARNING})
    assert not critical
    assert warned == sorted(case.get("standard_warnings", [])), [f.message for f in report.findings if f.severity is Severity.WARNING]
    assert report.verdict == ("PARTIAL" if warned else "PASS")


@pytest.mark.parametrize("case", [c for c in CASES if c["plan_format"] == "tdl"], ids=lambda c: c["id"])
def test_tdl_program_stays_in_the_authoring_envelope(case: dict) -> None:
    """The brief's envelope: tool-down targets in the work area, home start/end, modest speeds."""
    plan = lower_tdl(case["tdl_code"])
    for site in plan.pose_sites:
        values = site.pose.values
        if site.pose.kind != CARTESIAN:
            assert values == HOME, site.context
            continue
        x, y, z, rx, ry, rz = values
        assert 350 <= x <= 850 and abs(y) <= 550 and 350 <= math.hypot(x, y) <= 950 and 40 <= z <= 450, values
        assert (rx, ry, rz) == (180, 0, 0), values
    moves = [s for s in plan.steps if s.command in ("MoveJoint", "MoveLinear")]
    assert moves[0].command == moves[-1].command == "MoveJoint"
    assert moves[0].target.values == moves[-1].target.values == HOME
    fast_allowed = "R-SAF-002" in case.get("standard_warnings", [])
    for step in moves:
        velocity, acceleration = step.number("velocity"), step.number("acceleration")
        assert 50 <= velocity <= 250 or (fast_allowed and velocity >= 600), (step.command, velocity)
        assert 50 <= acceleration <= 150, (step.command, acceleration)
    gripper = [s for s in plan.steps if s.command == "SetDigitalOutput"]
    assert gripper and all(s.params.get("port") == 1 for s in gripper)
