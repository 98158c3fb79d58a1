"""The evaluation's figures as a dict (`--format json`) and as text tables."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from plan_verifier.evaluation import metrics
from plan_verifier.evaluation.metrics import Outcome
from plan_verifier.evaluation.runner import CONFIGURATIONS

TIMING_STAGES = ("parse", "syntax", "safety", "graph", "consistency", "semantic", "total")


def summarize(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    per = metrics.by_category(outcomes)
    total = metrics.count(outcomes)
    verdict_bins = metrics.calibration(metrics.verdict_pairs(outcomes))
    semantic_bins = metrics.calibration(metrics.semantic_pairs(outcomes))
    return {
        "cases": len(outcomes),
        "counts": {c: sum(1 for o in outcomes if o.category == c) for c in ("positive",) + metrics.CATEGORIES},
        "confusion": {"tp": total.tp, "fp": total.fp, "fn": total.fn, "tn": total.tn},
        "per_category": {c: per[c].as_dict() for c in metrics.CATEGORIES},
        "overall_f1": round(metrics.weighted_f1(per), 4),
        "micro": total.as_dict(),
        "safety_recall": round(per["safety"].recall, 4),
        "syntax_precision": round(per["syntax"].precision, 4),
        "false_positive_rate": round(total.false_positive_rate, 4),
        "exact_verdicts": round(sum(1 for o in outcomes if o.verdict == o.expected_verdict) / len(outcomes), 4) if outcomes else 0.0,
        "outcome_matrix": metrics.outcome_matrix(outcomes),
        "timing_ms": {k: {m: round(v, 3) for m, v in s.items()} for k, s in metrics.timing(outcomes).items()},
        "calibration": [_bin(b) for b in verdict_bins],
        "calibration_ece": round(metrics.expected_calibration_error(verdict_bins), 4),
        "semantic_calibration": [_bin(b) for b in semantic_bins],
        "semantic_calibration_ece": round(metrics.expected_calibration_error(semantic_bins), 4),
        "misclassified": [{"id": o.id, "category": o.category, "subtype": o.subtype, "format": o.plan_format,
                           "expected": o.expected_verdict, "verdict": o.verdict, "level_failed": o.level_failed,
                           "rules": list(o.rules)} for o in outcomes if not o.correct],
    }


def ablation(results: Mapping[str, Sequence[Outcome]]) -> list[dict[str, Any]]:
    """Seed 000 §5.3's comparison, one row per configuration, measured."""
    rows = []
    for name, outcomes in results.items():
        per = metrics.by_category(outcomes)
        total = metrics.count(outcomes)
        totals = [o.timings_ms.get("total", 0.0) for o in outcomes]
        rows.append({"configuration": name, "method": CONFIGURATIONS[name],
                     **{f"{c}_f1": round(per[c].f1, 4) for c in metrics.CATEGORIES},
                     "overall_f1": round(metrics.weighted_f1(per), 4), "recall": round(total.recall, 4),
                     "false_positive_rate": round(total.false_positive_rate, 4),
                     "median_ms": round(metrics.percentile(totals, 50), 3)})
    return rows


def _bin(b: metrics.CalibrationBin) -> dict[str, Any]:
    return {"bin": f"{b.low:.1f}-{b.high:.1f}", "n": b.n, "mean_confidence": round(b.mean_confidence, 4), "accuracy": round(b.accuracy, 4)}


# --------------------------------------------------------------------------- text


def text(summary: Mapping[str, Any], title: str, rows: list[dict[str, Any]] | None = None, misses: int = 20) -> str:
    out = [title, ""]
    counts = summary["counts"]
    out.append(f"{summary['cases']} cases: " + ", ".join(f"{n} {c}" for c, n in counts.items()))
    out.append("")
    c = summary["confusion"]
    out += ["Confusion matrix (positive class = the plan has an error; predicted = verdict FAIL)",
            f"{'':16}{'predicted FAIL':>16}{'approved':>10}",
            f"{'actual error':16}{c['tp']:>16}{c['fn']:>10}",
            f"{'actual correct':16}{c['fp']:>16}{c['tn']:>10}", ""]
    out.append(f"{'category':13}{'n':>5}{'TP':>5}{'FP':>5}{'FN':>5}{'TN':>5}{'precision':>11}{'recall':>8}{'F1':>8}")
    for name, m in list(summary["per_category"].items()) + [("all (micro)", summary["micro"])]:
        n = m["tp"] + m["fp"] + m["fn"] + m["tn"]
        out.append(f"{name:13}{n:>5}{m['tp']:>5}{m['fp']:>5}{m['fn']:>5}{m['tn']:>5}{m['precision']:>11.3f}{m['recall']:>8.3f}{m['f1']:>8.3f}")
    out += ["", f"Overall F1 (0.3 syntax + 0.4 safety + 0.3 semantic): {summary['overall_f1']:.4f}",
            f"Safety recall: {summary['safety_recall']:.4f}    Syntax precision: {summary['syntax_precision']:.4f}    "
            f"False positive rate: {summary['false_positive_rate']:.4f}    Exact verdicts: {summary['exact_verdicts']:.4f}", ""]
    matrix = summary["outcome_matrix"]
    columns = [col for col in metrics.OUTCOME_COLUMNS if any(row[col] for row in matrix.values())]
    out.append("Where verdicts came from (rows: actual; columns: approved verdict or level_failed)")
    out.append(f"{'':13}" + "".join(f"{col:>13}" for col in columns))
    for row, cells in matrix.items():
        out.append(f"{row:13}" + "".join(f"{cells[col]:>13}" for col in columns))
    out += ["", "Time per stage (ms)", f"{'stage':13}{'n':>6}{'median':>10}{'p95':>10}"]
    for stage in TIMING_STAGES:
        if stage in summary["timing_ms"]:
            t = summary["timing_ms"][stage]
            out.append(f"{stage:13}{t['n']:>6}{t['median']:>10.3f}{t['p95']:>10.3f}")
    for key, label in (("calibration", "verdict"), ("semantic_calibration", "semantic stage on positive + semantic cases")):
        out += ["", f"Confidence calibration ({label}; ECE {summary[key + '_ece']:.4f})", f"{'confidence':13}{'n':>6}{'mean conf':>11}{'accuracy':>10}"]
        for b in summary[key]:
            out.append(f"{b['bin']:13}{b['n']:>6}{b['mean_confidence']:>11.3f}{b['accuracy']:>10.3f}")
    if rows:
        out += ["", "Ablation (seed 000 §5.3), measured on this dataset",
                f"{'method':52}{'syntax F1':>10}{'safety F1':>10}{'semantic F1':>12}{'overall F1':>11}{'recall':>8}{'FP rate':>8}{'median ms':>10}"]
        for r in rows:
            out.append(f"{r['method']:52}{r['syntax_f1']:>10.3f}{r['safety_f1']:>10.3f}{r['semantic_f1']:>12.3f}"
                       f"{r['overall_f1']:>11.3f}{r['recall']:>8.3f}{r['false_positive_rate']:>8.3f}{r['median_ms']:>10.3f}")
    wrong = summary["misclassified"]
    out += ["", f"Misclassified: {len(wrong)}"]
    for m in wrong[:misses]:
        out.append(f"  {m['id']:12} {m['category']}/{m['subtype'] or '-'} ({m['format']}): expected {m['expected']}, got {m['verdict']}"
                   + (f" at {m['level_failed']}" if m["level_failed"] else "") + (f" [{', '.join(m['rules'])}]" if m["rules"] else ""))
    if len(wrong) > misses:
        out.append(f"  ... and {len(wrong) - misses} more (--format json lists all)")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- hand-written development sets


def summarize_devset(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The semantic stage on hand-written pairs: F1 and false alarms, abstentions, recall per mistake."""
    total = metrics.count(outcomes)
    positives = [o for o in outcomes if not o.is_error]
    return {
        "cases": len(outcomes),
        "pass_cases": len(positives),
        "fail_cases": len(outcomes) - len(positives),
        "confusion": {"tp": total.tp, "fp": total.fp, "fn": total.fn, "tn": total.tn},
        "precision": round(total.precision, 4),
        "recall": round(total.recall, 4),
        "f1": round(total.f1, 4),
        "false_alarm_rate": round(total.false_positive_rate, 4),
        "abstention_rate": round(metrics.abstention_rate(outcomes), 4),
        "abstention_rate_pass": round(metrics.abstention_rate(positives), 4),
        "per_subtype": metrics.by_subtype_recall(outcomes),
        "per_language": _groups(outcomes, lambda o: o.language or "?"),
        "per_style": _groups(outcomes, lambda o: o.style or "?"),
        "timing_ms": {k: {m: round(v, 3) for m, v in s.items()} for k, s in metrics.timing(outcomes).items() if k in ("semantic", "total")},
    }


def _groups(outcomes: Sequence[Outcome], key) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(key(o), []).append(o)
    out = {}
    for name, items in sorted(groups.items()):
        c = metrics.count(items)
        out[name] = {"n": len(items), "f1": round(c.f1, 4), "recall": round(c.recall, 4), "false_alarms": c.fp,
                     "abstention_rate": round(metrics.abstention_rate(items), 4)}
    return out


def devset_text(results: Mapping[str, Sequence[Outcome]], title: str, misses: int = 20) -> str:
    """One row per split; the misclassified cases of the development split only (the hold-out is measured, not read)."""
    out = [title, "", f"{'split':9}{'cases':>6}{'PASS':>6}{'FAIL':>6}{'precision':>11}{'recall':>8}{'F1':>8}{'false alarms':>14}{'abstained':>11}"]
    summaries = {name: summarize_devset(o) for name, o in results.items()}
    for name, s in summaries.items():
        c = s["confusion"]
        out.append(f"{name:9}{s['cases']:>6}{s['pass_cases']:>6}{s['fail_cases']:>6}{s['precision']:>11.3f}{s['recall']:>8.3f}{s['f1']:>8.3f}"
                   f"{c['fp']:>6} ({s['false_alarm_rate']:.3f}){s['abstention_rate']:>11.3f}")
    for name, s in summaries.items():
        out += ["", f"Recall per mistake ({name}): " + ", ".join(f"{k} {v['recall']:.2f} of {v['n']}" for k, v in s["per_subtype"].items())]
        out.append(f"Per language ({name}): " + ", ".join(f"{k} F1 {v['f1']:.3f} ({v['false_alarms']} false alarms, n={v['n']})"
                                                         for k, v in s["per_language"].items()))
        out.append(f"Per style ({name}): " + ", ".join(f"{k} F1 {v['f1']:.3f} ({v['false_alarms']} false alarms, {v['abstention_rate']:.2f} abstained)"
                                                      for k, v in s["per_style"].items()))
    if "dev" in results or "all" in results and "holdout" not in results:
        shown = results.get("dev", results.get("all", []))
        wrong = [o for o in shown if not o.correct]
        out += ["", f"Misclassified ({'dev' if 'dev' in results else 'all'}): {len(wrong)}"]
        for o in wrong[:misses]:
            out.append(f"  {o.id:16} expected {o.expected_verdict}, got {o.verdict}" + (f" [{', '.join(o.rules)}]" if o.rules else "")
                       + (f" ({o.subtype})" if o.subtype else ""))
        if len(wrong) > misses:
            out.append(f"  ... and {len(wrong) - misses} more (--misses N)")
    return "\n".join(out) + "\n"
