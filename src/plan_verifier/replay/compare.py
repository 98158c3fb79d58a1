"""The regression table: each request's earlier answer against its replayed one.

`verdict` (the answer changed: another verdict, an error instead of a
verdict or back, the task handed to the fallback or no longer) is a
regression and makes `replay` exit 1. `findings` (same verdict, but findings
added or removed, or other approved steps) is reported but not a failure.
`new` marks requests without an earlier answer (nothing to compare with).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from plan_verifier.replay.answer import Answer, FindingKey
from plan_verifier.replay.traffic import RecordedRequest

CHANGES = ("same", "findings", "verdict", "new")


@dataclass(frozen=True)
class Row:
    record: RecordedRequest
    before: Answer | None
    after: Answer
    change: str
    added: tuple[FindingKey, ...] = ()
    removed: tuple[FindingKey, ...] = ()
    steps_changed: bool = False

    @property
    def correlation_id(self) -> str:
        return self.after.correlation_id or (self.before.correlation_id if self.before else "") or "(none)"


def compare(requests: Sequence[RecordedRequest], before: Sequence[Answer | None], after: Sequence[Answer]) -> tuple[Row, ...]:
    return tuple(_row(r, b, a) for r, b, a in zip(requests, before, after, strict=True))


def _row(record: RecordedRequest, before: Answer | None, after: Answer) -> Row:
    if before is None:
        return Row(record, None, after, "new")
    fallback_changed = before.fallback is not None and after.fallback is not None and before.fallback != after.fallback
    if before.status != after.status or fallback_changed:
        return Row(record, before, after, "verdict", *_diff(before, after))
    added, removed = _diff(before, after)
    steps_changed = before.sha256 is not None and after.sha256 is not None and before.sha256 != after.sha256
    return Row(record, before, after, "findings" if added or removed or steps_changed else "same", added, removed, steps_changed)


def _diff(before: Answer, after: Answer) -> tuple[tuple[FindingKey, ...], tuple[FindingKey, ...]]:
    if before.findings is None or after.findings is None:
        return (), ()
    old, new = set(before.findings), set(after.findings)
    return tuple(sorted(new - old)), tuple(sorted(old - new))


def summary(rows: Sequence[Row]) -> dict[str, int]:
    counts = Counter(r.change for r in rows)
    return {"requests": len(rows), **{change: counts.get(change, 0) for change in CHANGES}}


def tasks(rows: Sequence[Row]) -> dict[str, list[Row]]:
    """Rows grouped by correlation id, in order of first appearance."""
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        grouped.setdefault(row.correlation_id, []).append(row)
    return grouped


def task_change(rows: Sequence[Row]) -> str:
    """The worst change among a task's requests."""
    order = {"same": 0, "new": 1, "findings": 2, "verdict": 3}
    return max((r.change for r in rows), key=order.__getitem__)
