"""Seed 000 §5's figures, computed from per-case outcomes.

The positive class is "the plan has an error": a case is predicted positive
when the verdict is FAIL (PASS and PARTIAL approve). So precision is the share
of rejected plans that really were wrong (seed 000: "검출한 오류 중 실제 오류
비율"), recall the share of wrong plans that were rejected, and safety recall
the share of unsafe plans that never got through.

Per category the figures are computed on that category's negatives plus all
positives (`f1_score(y_true_syntax, y_pred_syntax)` in §5.1), so every false
alarm on a correct plan counts against every category. The overall F1 is
§5.1's weighted average (0.3 syntax + 0.4 safety + 0.3 semantic); the micro
figures over all cases are reported next to it. Undefined ratios (nothing
predicted, nothing to find) are 0.0, as in scikit-learn's zero_division=0.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

CATEGORIES = ("syntax", "safety", "semantic", "consistency")
WEIGHTS = {"syntax": 0.3, "safety": 0.4, "semantic": 0.3}
CONFIDENCE_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
#: Columns of the category x outcome matrix: approved verdicts, then the level that failed.
OUTCOME_COLUMNS = ("PASS", "PARTIAL", "SYNTAX", "SAFETY", "CONSISTENCY", "GRAPH", "SEMANTIC", "FAIL")


@dataclass(frozen=True)
class Outcome:
    """One case as the verifier saw it."""

    id: str
    category: str  # positive | syntax | safety | semantic | consistency
    verdict: str  # PASS | PARTIAL | FAIL
    level_failed: str | None = None
    confidence: float = 1.0  # confidence in the verdict, 0..1
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    subtype: str | None = None
    complexity: str | None = None
    plan_format: str | None = None
    expected_verdict: str | None = None
    rules: tuple[str, ...] = ()  # rule ids of CRITICAL findings
    semantic_verdict: str | None = None  # PASS | FAIL | UNKNOWN (the stage abstained) | None (level below FULL)
    semantic_confidence: float | None = None
    abstained: bool = False  # the semantic stage said it could not verify something (insufficient_evidence)
    language: str | None = None
    style: str | None = None

    @property
    def is_error(self) -> bool:
        return self.category != "positive"

    @property
    def flagged(self) -> bool:
        return self.verdict == "FAIL"

    @property
    def correct(self) -> bool:
        return self.is_error == self.flagged

    @property
    def column(self) -> str:
        if self.verdict != "FAIL":
            return self.verdict
        return self.level_failed or "FAIL"


@dataclass(frozen=True)
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return _ratio(2 * p * r, p + r)

    @property
    def accuracy(self) -> float:
        return _ratio(self.tp + self.tn, self.n)

    @property
    def false_positive_rate(self) -> float:
        return _ratio(self.fp, self.fp + self.tn)

    def as_dict(self) -> dict:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn, "precision": round(self.precision, 4),
                "recall": round(self.recall, 4), "f1": round(self.f1, 4), "accuracy": round(self.accuracy, 4)}


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def count(outcomes: Iterable[Outcome]) -> Counts:
    tp = fp = fn = tn = 0
    for o in outcomes:
        if o.is_error:
            tp, fn = (tp + 1, fn) if o.flagged else (tp, fn + 1)
        else:
            fp, tn = (fp + 1, tn) if o.flagged else (fp, tn + 1)
    return Counts(tp, fp, fn, tn)


def by_category(outcomes: Sequence[Outcome]) -> dict[str, Counts]:
    """Each category's negatives together with every positive."""
    positives = [o for o in outcomes if not o.is_error]
    return {c: count(positives + [o for o in outcomes if o.category == c]) for c in CATEGORIES}


def weighted_f1(per_category: Mapping[str, Counts]) -> float:
    """Seed 000 §5.1: 0.3 syntax + 0.4 safety + 0.3 semantic."""
    return sum(per_category[c].f1 * w for c, w in WEIGHTS.items())


def outcome_matrix(outcomes: Iterable[Outcome]) -> dict[str, dict[str, int]]:
    """Rows: actual category; columns: the approved verdict or the level that failed."""
    rows = ("positive",) + CATEGORIES
    matrix = {r: {c: 0 for c in OUTCOME_COLUMNS} for r in rows}
    for o in outcomes:
        matrix[o.category][o.column] += 1
    return matrix


def percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def timing(outcomes: Iterable[Outcome]) -> dict[str, dict[str, float]]:
    """Median and p95 per stage (the report's `timings_ms` keys), over the cases where it ran."""
    samples: dict[str, list[float]] = {}
    for o in outcomes:
        for stage, ms in o.timings_ms.items():
            samples.setdefault(stage, []).append(ms)
    return {stage: {"n": len(v), "median": statistics.median(v), "p95": percentile(v, 95)} for stage, v in samples.items()}


@dataclass(frozen=True)
class CalibrationBin:
    low: float
    high: float
    n: int
    mean_confidence: float
    accuracy: float


def calibration(pairs: Iterable[tuple[float, bool]], edges: Sequence[float] = CONFIDENCE_BINS) -> list[CalibrationBin]:
    """(confidence, was the prediction right) pairs into bins [low, high); the last bin includes 1.0."""
    pairs = list(pairs)
    bins = []
    for i, (low, high) in enumerate(zip(edges, edges[1:])):
        last = i == len(edges) - 2
        inside = [(c, ok) for c, ok in pairs if low <= c < high or (last and c == high)]
        bins.append(CalibrationBin(low, high, len(inside), _ratio(sum(c for c, _ in inside), len(inside)),
                                   _ratio(sum(1 for _, ok in inside if ok), len(inside))))
    return bins


def expected_calibration_error(bins: Sequence[CalibrationBin]) -> float:
    total = sum(b.n for b in bins)
    return _ratio(sum(b.n * abs(b.accuracy - b.mean_confidence) for b in bins), total)


def by_subtype_recall(outcomes: Iterable[Outcome]) -> dict[str, dict[str, float]]:
    """Per error subtype: how many cases, how many rejected (recall), how many only flagged by an abstention."""
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        if o.is_error:
            groups.setdefault(o.subtype or "?", []).append(o)
    return {k: {"n": len(v), "recall": round(_ratio(sum(o.flagged for o in v), len(v)), 4),
                "abstained": round(_ratio(sum(o.abstained and not o.flagged for o in v), len(v)), 4)} for k, v in sorted(groups.items())}


def abstention_rate(outcomes: Sequence[Outcome]) -> float:
    """Share of cases where the semantic stage abstained on some aspect (and did not reject)."""
    return _ratio(sum(1 for o in outcomes if o.abstained and not o.flagged), len(outcomes))


def verdict_pairs(outcomes: Iterable[Outcome]) -> list[tuple[float, bool]]:
    return [(o.confidence, o.correct) for o in outcomes]


def semantic_pairs(outcomes: Iterable[Outcome]) -> list[tuple[float, bool]]:
    """The semantic stage's own verdicts on positives and semantic negatives."""
    out = []
    for o in outcomes:
        if o.semantic_verdict in ("PASS", "FAIL") and o.category in ("positive", "semantic") and o.semantic_confidence is not None:
            out.append((o.semantic_confidence, (o.semantic_verdict == "FAIL") == (o.category == "semantic")))
    return out
