"""The pipeline's aggregation contract: verdict, outcome, levels, fail-closed, thread safety."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor

from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.graph.port import GraphUnavailable
from plan_verifier.pipeline import Verifier
from plan_verifier.report import cluster_id
from plan_verifier.rules.base import Rule

PROGRAM = """DEFINE Approach = PosX(400, 0, 300, 0, 180, 0);
GOAL Execute_Process() {
    SPAWN MoveLinear(target_pose=Approach, velocity=100, acceleration=100, tool=0, blending_radius=0) WITH WAIT;
    SPAWN End() WITH WAIT;
}
"""


class _Crashes(Rule):
    """A rule with a bug.

    **Unsafe**:: x

    **Safe**:: y
    """

    id = "R-SAF-999"
    name = "crashes"
    severity = Severity.CRITICAL
    category = Category.SAFETY

    def check(self, ctx):
        raise ZeroDivisionError("bug")


class _Warns(Rule):
    """Always warns.

    **Unsafe**:: x

    **Safe**:: y
    """

    id = "R-CON-999"
    name = "warns"
    severity = Severity.WARNING
    category = Category.CONSISTENCY

    def check(self, ctx):
        yield self.finding("a warning")


class _DownGraph:
    def snapshot(self):
        raise GraphUnavailable("connection refused", reason_code="tool_failure")

    def describe(self):
        return "down"

    def close(self):
        pass


def test_a_crashing_rule_fails_closed() -> None:
    report = Verifier(rules=[*registry.all_rules(), _Crashes]).verify(PROGRAM)
    crash = [f for f in report.findings if f.rule_id == "R-SYS-001"]
    assert len(crash) == 1
    assert "ZeroDivisionError: bug" in crash[0].message
    assert (report.verdict, report.outcome, report.approved) == ("FAIL", "UNKNOWN", False)
    assert report.level_failed == "SAFETY"
    assert "tool_failure" in report.reason_codes


def test_graph_down_fails_closed_with_unknown_outcome() -> None:
    report = Verifier(graph=_DownGraph()).verify(PROGRAM)
    assert [f.rule_id for f in report.findings if f.severity is Severity.CRITICAL] == ["R-GRF-000"]
    assert (report.verdict, report.outcome, report.level_failed) == ("FAIL", "UNKNOWN", "GRAPH")
    assert report.reason_codes == ("tool_failure",)


def test_warning_gives_partial_and_is_approved_unless_strict() -> None:
    rules = [r for r in registry.all_rules() if r.category is Category.SYNTAX] + [_Warns]
    default = Verifier(rules=rules).verify(PROGRAM)
    strict = Verifier(rules=rules, profile="strict").verify(PROGRAM)
    assert (default.verdict, default.approved, default.outcome) == ("PARTIAL", True, "OK")
    assert default.violated_constraints == ("R-CON-999",)
    assert default.failure_cluster_id == cluster_id(default.reason_codes, default.violated_constraints)
    assert strict.verdict == "PARTIAL" and strict.approved is False


def test_levels_select_stages() -> None:
    rules = [r for r in registry.all_rules() if r.category is Category.SYNTAX] + [_Warns]
    assert [f.rule_id for f in Verifier(rules=rules, level="BASIC").verify(PROGRAM).findings] == []
    assert [f.rule_id for f in Verifier(rules=rules, level="STANDARD").verify(PROGRAM).findings] == ["R-CON-999"]


def test_syntax_errors_skip_later_stages() -> None:
    report = Verifier(rules=[*registry.all_rules(), _Crashes]).verify("GOAL A() { SPAWN Delay(1) WAIT; }")
    assert {f.rule_id for f in report.findings} == {"R-SYN-005"}
    assert report.level_failed == "SYNTAX"
    assert report.reason_codes == ("format_leak",)


def test_cluster_id_follows_the_contract_formula() -> None:
    expected = hashlib.sha1(b"rc=constraint_violation,format_leak|vc=R-SAF-001,R-SYN-005|st=verify").hexdigest()
    assert cluster_id(["format_leak", "constraint_violation"], ["R-SYN-005", "R-SAF-001"]) == expected


def test_pass_has_empty_cluster_and_scores_above_every_failure() -> None:
    verifier = Verifier()
    good = verifier.verify(PROGRAM)
    bad = verifier.verify("GOAL A() { SPAWN Delay(1) WAIT; }")
    assert good.verdict == "PASS" and good.failure_cluster_id == ""
    assert bad.failure_cluster_id == cluster_id(bad.reason_codes, bad.violated_constraints)
    assert bad.score < 0.5 <= good.score


def test_report_never_raises_for_any_input_type() -> None:
    verifier = Verifier()
    for plan in (b"\xff\xfe", "", "\x00", b"[1, 2", "{}", "steps: 3\n"):
        report = verifier.verify(plan)
        assert report.verdict == "FAIL"


def test_verifier_is_thread_safe() -> None:
    verifier = Verifier()
    plans = [PROGRAM, "GOAL A() { SPAWN Delay(1) WAIT; }", PROGRAM.replace("400", "4000")] * 20
    expected = [verifier.verify(p).to_dict() for p in plans]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda p: verifier.verify(p).to_dict(), plans))
    strip = lambda r: {k: v for k, v in r.items() if k != "timings_ms"}  # noqa: E731
    assert [strip(r) for r in got] == [strip(r) for r in expected]


def test_a_reader_bug_fails_closed(monkeypatch) -> None:
    from plan_verifier import pipeline

    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(pipeline, "lower_tdl", broken)
    report = Verifier().verify(PROGRAM)
    assert [f.rule_id for f in report.findings] == ["R-SYS-001"]
    assert "the plan reader" in report.findings[0].message
    assert (report.verdict, report.outcome, report.level_failed) == ("FAIL", "UNKNOWN", "SYNTAX")
