"""Diagnostics figures and the planner-facing feedback text."""

from __future__ import annotations

import threading

import pytest
from conftest import ROOT

from plan_verifier.pipeline import Verifier
from plan_verifier.serving.feedback import feedback_text
from plan_verifier.serving.stats import ServiceStats, percentile


@pytest.mark.parametrize("q, expected", [(50, 50), (99, 99), (100, 100), (1, 1), (0, 1)])
def test_nearest_rank_percentile(q, expected):
    assert percentile([float(v) for v in range(1, 101)], q) == expected


def test_percentile_of_nothing_is_an_error():
    with pytest.raises(ValueError):
        percentile([], 50)


def test_counts_and_latencies_from_many_threads():
    stats = ServiceStats()

    def worker():
        for i in range(500):
            stats.count("requests", "verified")
            stats.latency(float(i % 10))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    snapshot = stats.snapshot()
    assert snapshot.counts == {"requests": 2000, "verified": 2000}
    assert (snapshot.latency_p50_ms, snapshot.latency_p99_ms, snapshot.latency_max_ms) == (4.0, 9.0, 9.0)


def test_diagnostic_level():
    stats = ServiceStats()
    assert stats.snapshot().level(active=True)[0] == "OK"
    assert stats.snapshot().level(active=False) == ("WARN", "not active: requests are refused")
    stats.count("internal_error")
    assert stats.snapshot().level(active=True) == ("WARN", "1 internal errors since configure")
    stats.graph(False, "connection refused")
    assert stats.snapshot().level(active=True) == ("ERROR", "knowledge graph unavailable: connection refused")
    assert stats.graph_age_s() is not None


def test_feedback_names_lines_for_tdl_with_hints_and_skips_info():
    report = Verifier("ur10e").verify((ROOT / "examples" / "pick_and_place_unsafe.tdl").read_text(encoding="utf-8"))
    lines = feedback_text(report).splitlines()
    assert lines == [
        "Line 7: Z-coordinate -20mm is below ground level (z=0) (hint: Keep targets at z >= 10 mm)",
        "Line 21: Velocity 1500 mm/s is outside safe range [10-1000] (hint: Use a value between 50 and 500 mm/s)",
        "Line 22: tool goes 20 mm below the floor (z = 0) at 100% of MoveLinear to B_Place_Pose (TCP at (450, 300, -20)) "
        "(hint: Keep the whole arm above the floor: raise the target, turn the tool to point down, or approach from above "
        "through an intermediate waypoint)",
        "Line 29: Program should end with End() command (hint: Add 'SPAWN End() WITH WAIT;' as the last statement of GOAL 'Finalize_Process')",
    ]


def test_an_approved_plan_has_no_feedback():
    assert feedback_text(Verifier("ur10e").verify((ROOT / "examples" / "pick_and_place.tdl").read_text(encoding="utf-8"))) == ""
