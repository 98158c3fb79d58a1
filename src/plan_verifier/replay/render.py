"""The replay result as a text table (one line per correlation id) or as JSON for CI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from plan_verifier.replay.compare import Row, summary, task_change, tasks

_MAX_COLUMN = 48
_CHANGE_LABEL = {"same": "same", "new": "new", "findings": "findings changed", "verdict": "VERDICT CHANGED"}


@dataclass(frozen=True)
class ReplayResult:
    bag: str
    storage: str
    node: str
    compared_with: str  # "the recorded answers" or "the baseline <path>"
    rows: tuple[Row, ...]
    verifications: int
    distinct: int
    notes: tuple[str, ...] = ()

    @property
    def regressions(self) -> int:
        return sum(r.change == "verdict" for r in self.rows)


def text(result: ReplayResult, *, changes_only: bool = False) -> str:
    rows = result.rows
    sources = {s: sum(r.record.source == s for r in rows) for s in ("topic", "service")}
    lines = [f"replay of {result.bag} ({result.storage}, node {result.node or '/'}): {len(rows)} requests "
             f"({sources['topic']} topic, {sources['service']} service), compared with {result.compared_with}",
             f"  {result.verifications} verifications, {result.distinct} distinct"]
    lines += [f"  note: {note}" for note in result.notes]
    grouped = {cid: task_rows for cid, task_rows in tasks(rows).items() if not (changes_only and task_change(task_rows) in ("same", "new"))}
    cells = {cid: (_statuses(r.before for r in task_rows), _statuses(r.after for r in task_rows)) for cid, task_rows in grouped.items()}
    width = max([len("CORRELATION ID")] + [len(cid) for cid in grouped])
    column = min(_MAX_COLUMN, max([len("BEFORE")] + [len(c) for pair in cells.values() for c in pair]))
    lines.append(f"{'CORRELATION ID':<{width}}  {'N':>3}  {'BEFORE':<{column}}  {'NOW':<{column}}  CHANGE")
    for cid, task_rows in grouped.items():
        before, after = cells[cid]
        lines.append(f"{cid:<{width}}  {len(task_rows):>3}  {_cut(before, column):<{column}}  {_cut(after, column):<{column}}  "
                     f"{_CHANGE_LABEL[task_change(task_rows)]}")
        for number, row in enumerate(task_rows, 1):
            if row.change in ("same", "new"):
                continue
            what = f"{row.before.label()} -> {row.after.label()}" if row.change == "verdict" else f"{row.after.label()}, findings changed"
            lines.append(f"    request {number} ({row.record.source}): {what}")
            lines += [f"      + {f.text()}" for f in row.added]
            lines += [f"      - {f.text()}" for f in row.removed]
            if row.change == "verdict" and row.before is not None and row.before.findings is None and row.after.findings:
                # the recording did not carry the findings (an approval): show why it is rejected now
                lines += [f"      now: {f.text()}" for f in row.after.findings if f.severity != "INFO"]
            if row.steps_changed:
                lines.append(f"      approved steps changed (sha256 {row.before.sha256[:12]} -> {row.after.sha256[:12]})")
    counts = summary(rows)
    lines.append(f"summary: {counts['requests']} requests: {counts['same']} same, {counts['verdict']} verdicts changed, "
                 f"{counts['findings']} findings changed, {counts['new']} without an earlier answer")
    return "\n".join(lines) + "\n"


def to_dict(result: ReplayResult) -> dict[str, Any]:
    return {
        "bag": result.bag,
        "storage": result.storage,
        "node": result.node,
        "compared_with": result.compared_with,
        "summary": {**summary(result.rows), "verifications": result.verifications, "distinct": result.distinct},
        "notes": list(result.notes),
        "tasks": [
            {"correlation_id": cid, "change": task_change(task_rows), "requests": [_row(r) for r in task_rows]}
            for cid, task_rows in tasks(result.rows).items()
        ],
    }


def _row(row: Row) -> dict[str, Any]:
    return {
        "index": row.record.index,
        "source": row.record.source,
        "stamp_ns": row.record.stamp_ns,
        "change": row.change,
        "before": row.before.to_dict() if row.before else None,
        "now": row.after.to_dict(),
        "added": [f.to_dict() for f in row.added],
        "removed": [f.to_dict() for f in row.removed],
        "steps_changed": row.steps_changed,
    }


def _statuses(answers: Any) -> str:
    return ", ".join(a.label() if a is not None else "-" for a in answers)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
