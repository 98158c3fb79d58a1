"""Approved-actions files read back: an executor or a replay re-verifies what it is about to run.

Our own actions files (of TDL programs and of JSON plans) re-verify with the
verdict and findings of the plan they were approved from, and round-trip to
the same steps; the seed system's YAML output is read as YAML, not TDL; a file
whose steps were changed after approval is rejected.
"""

from __future__ import annotations

import json

import pytest
import yaml

from conftest import CORPUS, ROOT
from plan_verifier.actions import approved_yaml, plan_steps
from plan_verifier.motion.verified import step_motions
from plan_verifier.robot_sequence import steps_sha256
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.inputs import read_plan_text
from plan_verifier.pipeline import Verifier

SEED = CORPUS.parent / "seed_003"  # the seed system's plans and its cell (see README.md there)
PROGRAMS = sorted(CORPUS.glob("*.t*")) + sorted((ROOT / "examples").glob("*.tdl"))
TDL = Verifier("ur10e")
APPROVED = [p for p in PROGRAMS if TDL.verify(p.read_bytes()).approved]  # only approved plans get an actions file


def _summary(report) -> tuple:
    return report.verdict, sorted((f.rule_id, f.severity.value) for f in report.findings)


def _exported(report, robot: str = "ur10e") -> tuple[str, str]:
    return approved_yaml(report, correlation_id="task-1", robot=robot, graph_fingerprint=None, timestamp="2026-01-01T00:00:00.000Z")


def test_the_corpus_has_approved_programs() -> None:
    assert len(APPROVED) >= 5


@pytest.mark.parametrize("path", APPROVED, ids=lambda p: p.name[:40])
def test_an_approved_tdl_program_re_verifies_the_same(path) -> None:
    original = TDL.verify(path.read_bytes())
    text, sha = _exported(original)
    again = TDL.verify(text)
    assert again.plan_format == "actions" and again.plan.format == "tdl"
    assert _summary(again) == _summary(original)
    assert steps_sha256([s.to_yaml() for s in plan_steps(again.plan, step_motions(again.motion))]) == sha  # the steps read back (and re-simulated) are the steps written


def test_the_example_pick_and_place_round_trips() -> None:
    original = TDL.verify((ROOT / "examples" / "pick_and_place.tdl").read_bytes())
    again = TDL.verify(_exported(original)[0])
    assert (original.verdict, again.verdict) == ("PASS", "PASS")
    assert [s.command for s in again.plan.steps] == [s.command for s in original.plan.steps]
    assert [s.target.values if s.target else None for s in again.plan.steps] == [s.target.values if s.target else None for s in original.plan.steps]
    assert [g.name for g in again.plan.goals] == ["Initialize_Process", "Execute_Process", "Finalize_Process"]


def test_an_approved_json_plan_re_verifies_the_same() -> None:
    verifier = Verifier("ur10e", graph=EmbeddedGraph.from_file("weld_cell"))
    original = verifier.verify((ROOT / "examples" / "weld_seam_1.json").read_bytes())
    text, sha = _exported(original)
    again = verifier.verify(text)
    assert again.plan_format == "actions" and again.plan.format == "json"
    assert _summary(again) == _summary(original) == ("PASS", [])
    assert steps_sha256([s.to_yaml() for s in plan_steps(again.plan, step_motions(again.motion))]) == sha


def test_a_plan_of_seed_steps_still_needs_a_graph() -> None:
    verifier = Verifier("ur10e", graph=EmbeddedGraph.from_file("weld_cell"))
    text, _ = _exported(verifier.verify((ROOT / "examples" / "weld_seam_1.json").read_bytes()))
    assert read_plan_text(text).steps_format == "json"
    assert [f.rule_id for f in Verifier("ur10e").verify(text).findings] == ["R-GRF-000"]


@pytest.mark.parametrize("edit", [
    lambda steps: steps[3]["args"].update(velocity=900),
    lambda steps: steps.pop(2),
    lambda steps: steps[0]["args"]["target_pose"]["PosJ"].__setitem__(1, -45),
])
def test_steps_changed_after_approval_are_rejected(edit) -> None:
    text, sha = _exported(TDL.verify((ROOT / "examples" / "pick_and_place.tdl").read_bytes()))
    document = yaml.safe_load(text)
    edit(document["RobotSequence"]["steps"])
    report = TDL.verify(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
    assert report.verdict == "FAIL"
    changed = [f for f in report.findings if f.rule_id == "R-SYN-012"]
    assert len(changed) == 1 and changed[0].evidence["expected_sha256"] == sha


@pytest.mark.parametrize("path", sorted((SEED / "plans").glob("doc*.yaml")), ids=lambda p: p.name[:40])
def test_the_seed_systems_yaml_verifies_as_its_steps_do(path) -> None:
    # The seed system's own YAML output (a RobotSequence root, or the bare plan) is read as YAML, and its
    # steps are judged exactly as the same steps in a JSON plan.
    verifier = Verifier("ur10e", graph=EmbeddedGraph.from_file(str(SEED / "seed_full.cell.yaml")))
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    steps = (data.get("RobotSequence") or data)["steps"]
    as_yaml = verifier.verify(path.read_bytes())
    as_json = verifier.verify(json.dumps({"steps": steps}))
    assert as_yaml.plan_format == ("actions" if "RobotSequence" in data else "json")
    assert not [f for f in as_yaml.findings if f.rule_id.startswith("R-SYN")]
    assert _summary(as_yaml) == _summary(as_json)
