"""`plan-verify eval --plots DIR`: the confusion matrix and the calibration curve as PNGs (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from plan_verifier.evaluation import metrics


def write(summary: Mapping[str, Any], directory: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    written = [_confusion(plt, summary, directory / "confusion_matrix.png"),
               _calibration(plt, summary, directory / "calibration.png")]
    return written


def _confusion(plt, summary: Mapping[str, Any], path: Path) -> Path:
    matrix = summary["outcome_matrix"]
    rows = list(matrix)
    columns = [c for c in metrics.OUTCOME_COLUMNS if any(matrix[r][c] for r in rows)] or ["PASS"]
    values = [[matrix[r][c] for c in columns] for r in rows]
    fig, ax = plt.subplots(figsize=(1.3 * len(columns) + 2, 0.6 * len(rows) + 1.8))
    image = ax.imshow(values, cmap="Blues", aspect="auto")
    ax.set_xticks(range(len(columns)), columns, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("verdict (approved) or level_failed")
    ax.set_ylabel("actual category")
    top = max(max(v) for v in values) or 1
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            ax.text(j, i, str(v), ha="center", va="center", color="white" if v > top / 2 else "black")
    ax.set_title(f"plan_verifier on {summary['cases']} cases")
    fig.colorbar(image, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _calibration(plt, summary: Mapping[str, Any], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], linestyle="--", color="gray", label="perfect calibration")
    for key, label, marker in (("calibration", "verdict", "o"), ("semantic_calibration", "semantic stage", "s")):
        points = [(b["mean_confidence"], b["accuracy"], b["n"]) for b in summary[key] if b["n"]]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker=marker,
                    label=f"{label} (ECE {summary[key + '_ece']:.3f})")
            for x, y, n in points:
                ax.annotate(str(n), (x, y), textcoords="offset points", xytext=(4, -10), fontsize=8)
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("confidence")
    ax.set_ylabel("accuracy")
    ax.set_title("Confidence calibration")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
