"""Attempt bookkeeping per correlation id (seed 003's retry loop).

A planner gets `max_plan_attempts` tries per task (default 3). Each verified
plan with the task's correlation id is one attempt; the rejection that uses up
the budget fires the fallback, exactly once, and the id is then closed: later
requests with it are refused (ATTEMPTS_EXHAUSTED) so that an executor never
receives an approval for a task the fallback handler has taken over.

A planner may state its own attempt number (say, after a restart); the count
only moves forward, so a client cannot reset its budget by sending 1 again.
Requests that were never verified (bad request, node inactive) cost nothing.

Decisions are taken in two steps so that the caller can write the audit record
first: `preview` computes the attempt without changing anything, `commit`
records it. Callers serialise preview+commit (the service's commit lock); the
ledger itself is thread-safe for every single call. Memory is bounded: the
least recently used ids beyond `capacity` are forgotten.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

DEFAULT_MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class Attempt:
    correlation_id: str
    number: int  # 1-based
    max_attempts: int
    approved: bool

    @property
    def retry_allowed(self) -> bool:
        """Another attempt makes sense: rejected, and budget left."""
        return not self.approved and self.number < self.max_attempts

    @property
    def fallback(self) -> bool:
        """This rejection used up the budget: hand the task to the fallback handler."""
        return not self.approved and self.number >= self.max_attempts


@dataclass
class _Task:
    attempts: int = 0
    closed: bool = False


class AttemptLedger:
    def __init__(self, max_attempts: int = DEFAULT_MAX_ATTEMPTS, capacity: int = 10_000) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._lock = threading.Lock()
        self._tasks: OrderedDict[str, _Task] = OrderedDict()
        self._capacity = capacity
        self.max_attempts = max_attempts

    @property
    def max_attempts(self) -> int:
        return self._max

    @max_attempts.setter
    def max_attempts(self, value: int) -> None:
        if value < 1:
            raise ValueError("max_plan_attempts must be at least 1")
        self._max = int(value)

    def exhausted(self, correlation_id: str) -> bool:
        with self._lock:
            task = self._tasks.get(correlation_id)
            return task is not None and task.closed

    def preview(self, correlation_id: str, approved: bool, claimed: int = 0) -> Attempt | None:
        """The attempt this verification would be, or None when the id is closed."""
        with self._lock:
            task = self._tasks.get(correlation_id)
            if task is not None and task.closed:
                return None
            done = task.attempts if task else 0
            return Attempt(correlation_id, max(done + 1, claimed), self._max, approved)

    def commit(self, attempt: Attempt) -> None:
        with self._lock:
            task = self._tasks.get(attempt.correlation_id)
            if task is None:
                task = self._tasks[attempt.correlation_id] = _Task()
            self._tasks.move_to_end(attempt.correlation_id)
            task.attempts = max(task.attempts, attempt.number)
            task.closed = task.closed or attempt.fallback
            while len(self._tasks) > self._capacity:
                self._tasks.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._tasks)
