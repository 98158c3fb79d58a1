"""Attempt bookkeeping per correlation id (seed 003's retry loop).

A planner gets `max_plan_attempts` tries per task (default 3). Each verified
plan with the task's correlation id is one attempt, numbered by the node from
what it has seen for that id: a number the client sends is recorded in the
audit log but never counted, so a client can neither reset its budget nor
spend it on attempts that were not made. The rejection that uses up the
budget fires the fallback, exactly once.

A task closes in one of two ways, and later requests with its id are refused
without a verification: after its approval (ALREADY_APPROVED: one approval
per task, so an executor can never receive two for one task) and after its
fallback (ATTEMPTS_EXHAUSTED: the fallback handler has taken the task over).
Requests that were never verified (bad request, node inactive, time budget
exceeded, cancelled) cost nothing.

What a restarted node knows comes from its audit log (`restore`, fed by
`audit.recent_decisions`): the tasks approved or handed to the fallback stay
closed, and the others keep the attempts they used.

Decisions are taken in two steps so that the caller can write the audit record
first: `preview` computes the decision without changing anything, `commit`
records it. Callers serialise preview+commit (the service's commit lock); the
ledger itself is thread-safe for every single call. Memory is bounded: the
least recently used ids beyond `capacity` are forgotten.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from plan_verifier.serving.audit import Decision

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


@dataclass(frozen=True)
class Closed:
    """A task that takes no more plans: approved on `attempt` (its approval's `sha256`), or handed to the fallback after it."""

    correlation_id: str
    attempt: int
    approved: bool
    sha256: str = ""


@dataclass
class _Task:
    attempts: int = 0
    fallback: bool = False
    approved_sha256: str | None = None


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

    def closed(self, correlation_id: str) -> Closed | None:
        """Why the task takes no more plans, or None while it does."""
        with self._lock:
            return self._closed(correlation_id, self._tasks.get(correlation_id))

    def preview(self, correlation_id: str, approved: bool) -> Attempt | Closed:
        """The attempt this verification would be, or why the task is closed (another request closed it meanwhile)."""
        with self._lock:
            task = self._tasks.get(correlation_id)
            closed = self._closed(correlation_id, task)
            if closed is not None:
                return closed
            return Attempt(correlation_id, (task.attempts if task else 0) + 1, self._max, approved)

    def commit(self, attempt: Attempt, sha256: str = "") -> None:
        """Record a verified attempt; an approval's `sha256` is what later requests for the task are told."""
        with self._lock:
            task = self._tasks.get(attempt.correlation_id)
            if task is None:
                task = self._tasks[attempt.correlation_id] = _Task()
            self._tasks.move_to_end(attempt.correlation_id)
            task.attempts = max(task.attempts, attempt.number)
            task.fallback = task.fallback or attempt.fallback
            if attempt.approved:
                task.approved_sha256 = sha256
            while len(self._tasks) > self._capacity:
                self._tasks.popitem(last=False)

    def restore(self, decisions: "Iterable[Decision]") -> int:
        """Learn the tasks of an audit log's records, newest first; returns how many tasks were learnt.

        Within the capacity, the most recently used ids are kept (as if their
        requests had come again in the log's order).
        """
        learnt: dict[str, _Task] = {}
        for decision in decisions:
            task = learnt.get(decision.correlation_id)
            if task is None:
                if len(learnt) >= self._capacity:
                    continue
                task = learnt[decision.correlation_id] = _Task()
            task.attempts = max(task.attempts, decision.attempt or 0)
            task.fallback = task.fallback or decision.fallback
            if decision.approved and task.approved_sha256 is None:
                task.approved_sha256 = decision.sha256
        with self._lock:
            for cid, task in reversed(learnt.items()):  # oldest first, so the newest end up most recently used
                self._tasks[cid] = task
                self._tasks.move_to_end(cid)
            while len(self._tasks) > self._capacity:
                self._tasks.popitem(last=False)
        return len(learnt)

    def __len__(self) -> int:
        with self._lock:
            return len(self._tasks)

    @staticmethod
    def _closed(correlation_id: str, task: _Task | None) -> Closed | None:
        if task is None:
            return None
        if task.approved_sha256 is not None:
            return Closed(correlation_id, task.attempts, True, task.approved_sha256)
        if task.fallback:
            return Closed(correlation_id, task.attempts, False)
        return None
