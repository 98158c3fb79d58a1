"""Attempt bookkeeping per correlation id (seed 003: max 3 attempts, then fallback; one approval per task)."""

from __future__ import annotations

import threading

import pytest

from plan_verifier.serving.attempts import Attempt, AttemptLedger, Closed
from plan_verifier.serving.audit import Decision


def record(ledger: AttemptLedger, cid: str, approved: bool, sha256: str = ""):
    decision = ledger.preview(cid, approved)
    if isinstance(decision, Attempt):
        ledger.commit(decision, sha256)
    return decision


def test_three_rejections_fire_the_fallback_once_and_close_the_task():
    ledger = AttemptLedger()
    first, second, third = (record(ledger, "task", False) for _ in range(3))
    assert [a.number for a in (first, second, third)] == [1, 2, 3]
    assert [a.retry_allowed for a in (first, second, third)] == [True, True, False]
    assert [a.fallback for a in (first, second, third)] == [False, False, True]
    assert ledger.closed("task") == Closed("task", 3, approved=False)
    assert ledger.preview("task", True) == Closed("task", 3, approved=False)


def test_an_approval_allows_no_retry_no_fallback_and_no_second_approval():
    ledger = AttemptLedger()
    record(ledger, "t", False)
    approved = record(ledger, "t", True, sha256="ab" * 32)
    assert (approved.number, approved.retry_allowed, approved.fallback) == (2, False, False)
    assert ledger.closed("t") == Closed("t", 2, approved=True, sha256="ab" * 32)
    assert record(ledger, "t", True) == Closed("t", 2, approved=True, sha256="ab" * 32)  # one approval per task
    assert record(ledger, "t", False) == Closed("t", 2, approved=True, sha256="ab" * 32)


def test_preview_changes_nothing():
    ledger = AttemptLedger(max_attempts=1)
    assert ledger.preview("t", False).fallback
    assert ledger.preview("t", True).approved
    assert ledger.closed("t") is None and len(ledger) == 0


def test_ids_are_independent():
    ledger = AttemptLedger(max_attempts=2)
    record(ledger, "a", False)
    assert record(ledger, "b", False).number == 1
    assert record(ledger, "a", False).fallback


def test_lowering_the_budget_applies_to_the_next_rejection():
    ledger = AttemptLedger(max_attempts=5)
    record(ledger, "t", False)
    record(ledger, "t", False)
    ledger.max_attempts = 2
    third = record(ledger, "t", False)
    assert third.fallback and third.max_attempts == 2


def test_least_recently_used_ids_are_forgotten_beyond_capacity():
    ledger = AttemptLedger(max_attempts=3, capacity=2)
    record(ledger, "old", False)
    record(ledger, "mid", False)
    record(ledger, "old", False)  # refreshes "old"
    record(ledger, "new", False)  # evicts "mid"
    assert len(ledger) == 2
    assert record(ledger, "old", False).number == 3
    assert record(ledger, "mid", False).number == 1  # forgotten: counts from 1 again


@pytest.mark.parametrize("bad", [0, -1])
def test_budget_must_be_positive(bad):
    with pytest.raises(ValueError):
        AttemptLedger(max_attempts=bad)


def test_concurrent_attempts_get_distinct_numbers():
    ledger = AttemptLedger(max_attempts=10_000)
    lock = threading.Lock()  # callers serialise preview+commit, as the service does
    numbers: list[int] = []

    def worker():
        for _ in range(200):
            with lock:
                numbers.append(record(ledger, "shared", False).number)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(numbers) == list(range(1, 1601))


def test_a_restarted_ledger_learns_the_tasks_from_the_audit_log_newest_first():
    newest_first = [Decision("approved", 2, True, False, "ab" * 32), Decision("open", 1, False, False, ""),
                    Decision("done", 3, False, True, ""), Decision("approved", 1, False, False, "")]
    ledger = AttemptLedger(max_attempts=3)
    assert ledger.restore(newest_first) == 3
    assert ledger.closed("approved") == Closed("approved", 2, approved=True, sha256="ab" * 32)
    assert ledger.closed("done") == Closed("done", 3, approved=False)
    assert record(ledger, "open", False).number == 2


def test_a_restore_keeps_the_most_recent_ids_within_capacity():
    ledger = AttemptLedger(capacity=2)
    ledger.restore([Decision(cid, 1, False, False, "") for cid in ("newest", "middle", "oldest")])
    assert len(ledger) == 2 and record(ledger, "oldest", False).number == 1  # forgotten
    assert record(ledger, "newest", False).number == 2
