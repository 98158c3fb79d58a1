"""Fuzzing the whole pipeline: nothing crashes, nothing is slow, and nothing unevaluated is approved.

Two kinds of test, both deterministic (fixed seeds, no example database), so CI
fuzzes the same inputs on every run and a failure is reproducible:

* the campaign (`fuzzing.campaign`): the corpus, the examples, generated plans
  and approved-actions files, mutated at the token level and run through the
  pipeline at BASIC, STANDARD and FULL with the execution level on. It runs
  once per session; each property below is its own test over all of its runs,
  and a failure lists every input that breaks the property;
* hypothesis tests (random bytes, text, truncations, token soups, JSON-shaped
  values, non-finite numbers in plans), which shrink a failure to a minimal
  input.

Hypothesis rather than atheris: the properties are pytest tests that CI runs
in a fixed time, hypothesis is already a dependency, runs derandomized and
shrinks what it finds; atheris (coverage-guided libFuzzer) pays off in long
open-ended campaigns, which the same mutators could drive, but not as a
bounded gate. Slowness is judged by work (configurations the execution level
sampled per motion), never by a clock; the pytest timeout catches a hang.
"""

from __future__ import annotations

import json
import math
import random

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzing
from conftest import CORPUS
from plan_verifier.findings import Severity
from plan_verifier.pipeline import Verifier
from plan_verifier.tdl.grammar import grammar

VERIFIER = Verifier()
PROGRAMS = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.t*"))]
TOKENS = [";", "{", "}", "(", ")", ",", "=", "SPAWN", "WITH", "WAIT", "GOAL", "DEFINE", "PosX", "PosJ", "...", "\"", "//", "\n", "-", "*", "[", "]"]
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])


def _consistent(report) -> None:
    critical = any(f.severity is Severity.CRITICAL for f in report.findings)
    assert (report.verdict == "FAIL") == critical
    assert report.approved == (report.verdict != "FAIL")
    assert 0.0 <= report.score <= 1.0
    assert not any(f.rule_id == "R-SYS-001" for f in report.findings), [f.message for f in report.findings if f.rule_id == "R-SYS-001"]


# --------------------------------------------------------------------------- the campaign's properties


@pytest.fixture(scope="module")
def campaign() -> fuzzing.Campaign:
    return fuzzing.campaign()


def _all_runs(campaign: fuzzing.Campaign):
    for name, levels in campaign.bases.items():
        for level, result in levels.items():
            yield name, level, result
    for mutant, level, result in campaign.runs():
        yield mutant.name, level, result


@pytest.mark.timeout(900)
def test_the_campaign_covers_every_family(campaign) -> None:
    families = {m.family for m in campaign.mutants}
    assert families == {"general", "unevaluable", "untouched", "json", "actions"}
    assert len(campaign.mutants) >= 400
    assert sum(1 for m in campaign.mutants if "cause" in m.mutation) >= 10  # rejected plans' causes made unevaluable


def test_no_input_raises(campaign) -> None:
    failures = [f"{name} @ {level}: {r.error}" for name, level, r in _all_runs(campaign) if r.error is not None]
    assert not failures, fuzzing.listing(failures)


def test_no_input_crashes_a_check(campaign) -> None:
    failures = [f"{name} @ {level}: {f.message}" for name, level, r in _all_runs(campaign) if r.report is not None
                for f in r.report.findings if f.rule_id == "R-SYS-001"]
    assert not failures, fuzzing.listing(failures)


def test_no_input_warns_or_writes_to_stderr(campaign) -> None:
    failures = [f"{name} @ {level}: {r.warnings[:2]} {r.stderr[:200]!r}" for name, level, r in _all_runs(campaign)
                if r.warnings or r.stderr.strip()]
    assert not failures, fuzzing.listing(failures)


def test_no_input_makes_the_execution_level_work_beyond_its_budget(campaign) -> None:
    failures = [f"{name} @ {level}: {r.samples} configurations for {r.motions} motion(s)" for name, level, r in _all_runs(campaign)
                if r.samples > fuzzing.SAMPLES_PER_MOTION * max(1, r.motions)]
    assert not failures, fuzzing.listing(failures)


def test_the_verdict_agrees_with_the_findings(campaign) -> None:
    for name, level, r in _all_runs(campaign):
        if r.report is not None:
            critical = any(f.severity is Severity.CRITICAL for f in r.report.findings)
            assert (r.report.verdict == "FAIL") == critical and r.report.approved == (not critical), name


def test_a_plan_with_a_motion_not_simulated_is_never_approved(campaign) -> None:
    failures = []
    for name, level, r in _all_runs(campaign):
        summary = r.report.execution if r.report is not None else None
        if summary is None or not r.report.approved:
            continue
        if not summary["ran"] or summary["not_simulated"] or not summary["proven"]:
            failures.append(f"{name} @ {level}: approved, execution {summary}")
    assert not failures, fuzzing.listing(failures)


def test_an_unevaluable_value_is_never_approved(campaign) -> None:
    """A needed value (above all a rejected plan's cause) made nan, inf, a name defined nowhere or a run-time value:
    rejected at every level, with a finding that says why."""
    failures = []
    for mutant in campaign.mutants:
        if mutant.family != "unevaluable":
            continue
        for level, r in mutant.runs.items():
            if r.report is None or r.report.approved or not fuzzing.explained(r.report):
                findings = [(f.rule_id, f.message) for f in r.report.findings if f.severity is Severity.CRITICAL] if r.report else r.error
                failures.append(f"{mutant.name} @ {level}: approved={r.report.approved if r.report else None} {findings}")
    assert not failures, fuzzing.listing(failures)


def test_a_rejected_plan_stays_rejected_when_its_cause_is_untouched(campaign) -> None:
    """Seeds rejected at STANDARD, mutated only after every line their rejection depends on: still rejected at STANDARD
    and FULL (BASIC does not run the checks that may have rejected them)."""
    failures = [f"{m.name} @ {level}: approved" for m in campaign.mutants if m.family == "untouched"
                for level, r in m.runs.items() if level != "BASIC" and r.report is not None and r.report.approved]
    assert not failures, fuzzing.listing(failures)
    assert sum(1 for m in campaign.mutants if m.family == "untouched") >= 20


def test_a_branch_decided_at_run_time_before_a_motion_is_never_approved(campaign) -> None:
    """After an If, a loop or a jump the robot may take ways the text order does not show: never approved at STANDARD/FULL."""
    inserted = [m for m in campaign.mutants if m.run_time_order]
    failures = [f"{m.name} @ {level}: approved" for m in inserted for level, r in m.runs.items()
                if level != "BASIC" and r.report is not None and r.report.approved]
    assert not failures, fuzzing.listing(failures)
    assert len(inserted) >= 10


def test_basic_rejects_what_the_execution_level_could_not_evaluate(campaign) -> None:
    """BASIC has no execution level, but a target nobody could evaluate is rejected there too."""
    failures = []
    for mutant in campaign.mutants:
        standard, basic = mutant.runs.get("STANDARD"), mutant.runs.get("BASIC")
        if standard is None or basic is None or standard.report is None or basic.report is None or standard.report.motion is None:
            continue
        unevaluated = [n for n in standard.report.motion.not_simulated if "could not be evaluated" in n.reason]
        if unevaluated and basic.report.approved:
            failures.append(f"{mutant.name}: BASIC approved; STANDARD could not evaluate {[n.expression for n in unevaluated]}")
    assert not failures, fuzzing.listing(failures)


def test_a_changed_approved_file_is_never_approved(campaign) -> None:
    """An approved-actions file whose steps changed after approval (R-SYN-012) is rejected, whatever changed."""
    failures = []
    originals = {}
    for mutant in campaign.mutants:
        if mutant.family != "actions" or "no verification block" in mutant.base.name or isinstance(mutant.text, bytes):
            continue
        original = originals.setdefault(mutant.base.name, yaml.load(mutant.base.text, Loader=_LOADER)["RobotSequence"]["steps"])
        try:
            changed = yaml.load(mutant.text, Loader=_LOADER)["RobotSequence"]["steps"]
        except Exception:  # noqa: BLE001 - not even YAML any more: the reader rejects it (checked by the other properties)
            continue
        if changed != original:  # (a NaN written in counts as a change: it is one)
            report = mutant.runs["STANDARD"].report
            if report is not None and report.approved:
                failures.append(mutant.name)
    assert not failures, fuzzing.listing(failures)


# --------------------------------------------------------------------------- hypothesis: shrinking inputs


@SETTINGS
@given(st.binary(max_size=2048))
def test_random_bytes(data: bytes) -> None:
    _consistent(VERIFIER.verify(data))


@SETTINGS
@given(st.text(max_size=2048))
def test_random_text(text: str) -> None:
    _consistent(VERIFIER.verify(text))


@SETTINGS
@given(st.sampled_from(PROGRAMS), st.floats(min_value=0.0, max_value=1.0))
def test_truncations(program: str, fraction: float) -> None:
    _consistent(VERIFIER.verify(program[: int(len(program) * fraction)]))


@SETTINGS
@given(st.sampled_from(PROGRAMS), st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=1, max_value=8))
def test_token_mutations(program: str, seed: int, edits: int) -> None:
    _consistent(VERIFIER.verify(_mutated(program, seed, edits)))


@SETTINGS
@given(st.lists(st.sampled_from(TOKENS + ["Delay", "MoveLinear", "1", "0.5", "x", "Assign", "End", "HEADER", "END_HEADER", ":", "nan",
                                          "inf", "1e999", "GetAnalogInput"]), max_size=300))
def test_token_soup(tokens: list[str]) -> None:
    _consistent(VERIFIER.verify(" ".join(tokens)))


@SETTINGS
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.sampled_from(["action", "target", "steps", "id", "tool", "position", "velocity"]), inner, max_size=5),
                    max_leaves=30))
def test_json_shaped_input(value) -> None:
    _consistent(VERIFIER.verify(json.dumps(value), plan_format="json"))


WELD_CELL = Verifier(graph=fuzzing.verifier("weld_cell", "STANDARD").graph)


@settings(SETTINGS, max_examples=40)
@given(st.sampled_from(["velocity", "acceleration", "stabilize", "speed"]),
       st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([math.nan, math.inf, -math.inf]), st.booleans())
def test_a_json_plan_never_carries_a_number_that_is_not_finite(field: str, value: float, as_yaml: bool) -> None:
    steps = [{"id": 1, "action": "move", "target": "Safe_Pos_1"}, {"id": 2, "action": "move", "target": "Home", field: value}]
    text = yaml.safe_dump({"steps": steps}) if as_yaml else json.dumps(steps, allow_nan=True)
    report = WELD_CELL.verify(text)
    _consistent(report)
    if not math.isfinite(value):
        assert not report.approved and any(f.rule_id == "R-SYN-008" for f in report.findings)


@SETTINGS
@given(st.sampled_from(fuzzing.UNEVALUABLE), st.integers(min_value=0, max_value=5), st.sampled_from(["BASIC", "STANDARD"]),
       st.sampled_from(["default", "strict"]))
def test_an_unevaluable_coordinate_of_the_example_is_rejected(value: str, index: int, level: str, profile: str) -> None:
    """Issue 14's own example, every coordinate, every unevaluable value, both profiles."""
    example = (fuzzing.ROOT / "examples" / "pick_and_place.tdl").read_text(encoding="utf-8")
    numbers = ["450", "-300", "300", "180", "0", "90"]
    numbers[index] = value
    mutated = example.replace("PosX(450, -300, 300, 180, 0, 90)", f"PosX({', '.join(numbers)})")
    result = fuzzing.run(mutated, None, level)
    assert result.error is None and not result.warnings and not result.stderr.strip()
    verifier = Verifier(level=level, profile=profile)
    report = verifier.verify(mutated)
    _consistent(report)
    assert not report.approved and fuzzing.explained(report), [(f.rule_id, f.message) for f in report.findings]


def _mutated(program: str, seed: int, edits: int) -> str:
    rng = random.Random(seed)
    text = program
    for _ in range(edits):
        pos = rng.randrange(len(text) + 1)
        op = rng.randrange(3)
        if op == 0:
            text = text[:pos] + rng.choice(TOKENS) + text[pos:]
        elif op == 1:
            text = text[:pos] + text[pos + rng.randrange(1, 12) :]
        else:
            text = text[:pos] + text[pos : pos + rng.randrange(1, 40)] + text[pos:]
    return text


@SETTINGS
@given(st.sampled_from(PROGRAMS), st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=0, max_value=4))
def test_statement_code_reads_as_the_token_loop(program: str, seed: int, edits: int) -> None:
    # Statement shapes seen before are fed by generated code; with that switched off every token goes
    # through the table loop. Both must give the same IR, problems included, on any input.
    from plan_verifier.tdl import parser
    from plan_verifier.tdl.lower import lower_tdl

    text = _mutated(program, seed, edits)
    lower_tdl(text)  # every shape of this text seen once at least
    replayed = repr(lower_tdl(text))
    shapes = grammar().segments
    saved, original = dict(shapes), parser._segment
    shapes.clear()
    parser._segment = lambda g, key: False
    try:
        assert repr(lower_tdl(text)) == replayed
    finally:
        parser._segment = original
        shapes.update(saved)
