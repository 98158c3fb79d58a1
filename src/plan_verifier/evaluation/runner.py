"""Run the verifier over a dataset, in one or several configurations (seed 000 §5.3).

Configurations:

* `hybrid`: every rule, level FULL (what `plan-verify check --level FULL` does);
* `rule_based`: syntax, safety, consistency, domain and graph rules (level STANDARD);
* `semantic_only`: the R-SEM rules alone, level FULL.

Each case is checked in-process with its own instruction, robot and cell.
The semantic stage's own verdict and confidence are read from the report's
R-SEM findings (a confident one rejects; an `insufficient_evidence` warning
is an abstention), so that they can be calibrated and counted.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Iterable, TextIO

from plan_verifier import rules as registry
from plan_verifier.evaluation.dataset import plan_text
from plan_verifier.evaluation.metrics import Outcome
from plan_verifier.findings import Category, Severity
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.options import VerifyOptions
from plan_verifier.pipeline import Verifier
from plan_verifier.report import Report

CONFIGURATIONS = {
    "rule_based": "Rule-based only (syntax, safety, consistency, graph)",
    "semantic_only": "Semantic only",
    "hybrid": "Hybrid (all validators)",
}


def verifier_for(configuration: str, robot: str, cell: str | None, options: VerifyOptions) -> Verifier:
    graph = EmbeddedGraph.from_file(cell) if cell else None
    if configuration == "hybrid":
        return Verifier(robot, graph=graph, level="FULL", options=options)
    if configuration == "rule_based":
        return Verifier(robot, graph=graph, level="STANDARD", options=options)
    if configuration == "semantic_only":
        semantic = registry.in_categories([Category.SEMANTIC])
        return Verifier(robot, graph=graph, level="FULL", rules=semantic, options=options)
    raise ValueError(f"unknown configuration {configuration!r}")


def run(cases: Iterable[dict[str, Any]], configuration: str = "hybrid", options: VerifyOptions | None = None,
        progress: Callable[[int], None] | None = None) -> list[Outcome]:
    verifiers: dict[tuple[str, str | None], Verifier] = {}
    outcomes = []
    for n, case in enumerate(cases, start=1):
        meta = case.get("metadata") or {}
        key = (meta.get("robot", "ur10e"), meta.get("cell"))
        if key not in verifiers:
            verifiers[key] = verifier_for(configuration, key[0], key[1], options or VerifyOptions())
        report = verifiers[key].verify(plan_text(case) or "", plan_format=case.get("plan_format", "auto"),
                                       instruction=case.get("natural_language"))
        outcomes.append(outcome(case, report))
        if progress:
            progress(n)
    return outcomes


def outcome(case: dict[str, Any], report: Report) -> Outcome:
    critical = [f for f in report.findings if f.severity is Severity.CRITICAL]
    deterministic = [f for f in critical if f.category is not Category.SEMANTIC]
    semantic = [f for f in report.findings if f.category is Category.SEMANTIC]
    semantic_critical = [f for f in semantic if f.severity is Severity.CRITICAL]
    abstained = any(f.severity is Severity.WARNING and f.evidence.get("reason_code") == "insufficient_evidence" for f in semantic)
    semantic_confidence = max((float(f.evidence.get("confidence", 1.0)) for f in semantic_critical), default=None)
    confidence = 1.0 if deterministic or semantic_confidence is None else semantic_confidence
    semantic_verdict = None
    if report.level == "FULL":
        semantic_verdict = "FAIL" if semantic_critical else "UNKNOWN" if abstained else "PASS"
    return Outcome(
        id=case.get("id", "?"),
        category=case["category"],
        verdict=report.verdict,
        level_failed=report.level_failed,
        confidence=confidence,
        timings_ms=dict(report.timings_ms),
        subtype=case.get("error_subtype"),
        complexity=(case.get("metadata") or {}).get("complexity"),
        plan_format=case.get("plan_format"),
        expected_verdict=case.get("expected_verdict"),
        rules=tuple(sorted({f.rule_id for f in critical})),
        semantic_verdict=semantic_verdict,
        semantic_confidence=semantic_confidence if semantic_critical else (None if abstained else 1.0),
        abstained=abstained,
        language=(case.get("metadata") or {}).get("language"),
        style=(case.get("metadata") or {}).get("dialect") or (case.get("metadata") or {}).get("style"),
    )


class ProgressBar:
    """A one-line bar on stderr when it is a terminal; silent otherwise (logs stay clean)."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last = 0.0

    def __call__(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < self.total and now - self._last < 0.1:
            return
        self._last = now
        filled = int(self.width * done / self.total)
        self.stream.write(f"\r{self.label} [{'#' * filled}{' ' * (self.width - filled)}] {done}/{self.total}")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()
