"""`plan-verify eval DATASET...`: precision/recall/F1, timing, calibration and the ablation (seed 000 §5).

DATASET is a generated dataset (JSON, `plan-verify dataset generate`) or
hand-written development-set YAML files or directories of them; the two are
reported apart, never mixed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from plan_verifier.cli.semantic_args import add_semantic_arguments, semantic_options


def add_parser(sub) -> None:
    p = sub.add_parser("eval", help="measure the verifier on a labelled dataset",
                       description="Run every case of a dataset through the verifier and print seed 000 §5's metrics: a generated "
                                   "dataset (JSON from `plan-verify dataset generate`) or a hand-written development set (YAML files "
                                   "or directories), which gets F1, false-alarm and abstention rates per split.")
    p.add_argument("dataset", metavar="DATASET", nargs="+", help="dataset JSON file, or development-set YAML files/directories")
    p.add_argument("--split", choices=("dev", "holdout", "all"), default=None,
                   help="development sets: which part to run (default: dev and holdout, reported apart)")
    p.add_argument("--ablation", action="store_true", help="also run rule-based only and semantic only (seed 000 §5.3)")
    p.add_argument("--plots", metavar="DIR", help="write confusion_matrix.png and calibration.png here")
    p.add_argument("--format", choices=("text", "json"), default="text", dest="output_format")
    p.add_argument("--misses", type=int, default=20, metavar="N", help="misclassified cases listed in text output (default 20)")
    add_semantic_arguments(p)
    p.set_defaults(func=run)


def _is_devset(paths: list[Path]) -> bool:
    return all(p.is_dir() or p.suffix in (".yaml", ".yml") for p in paths)


def run(args: argparse.Namespace) -> int:
    from plan_verifier.resources import ConfigError

    paths = [Path(p) for p in args.dataset]
    if _is_devset(paths):
        return _run_devset(args, paths)
    if len(paths) != 1:
        raise ConfigError("give one generated dataset (JSON), or development-set YAML files/directories")
    return _run_dataset(args, paths[0])


def _run_devset(args: argparse.Namespace, paths: list[Path]) -> int:
    from plan_verifier.evaluation import devset, runner, summary
    from plan_verifier.resources import ConfigError

    options = semantic_options(args)
    splits = [args.split] if args.split else ["dev", "holdout"]
    results = {}
    for which in splits:
        try:
            cases = devset.load(paths, which)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ConfigError(f"not a development set: {exc}") from None
        results[which] = runner.run(cases, "hybrid", options, progress=runner.ProgressBar(len(cases), which))
    if not any(results.values()):
        raise ConfigError(f"{', '.join(map(str, paths))}: no cases")
    if len(results) > 1:
        results["all"] = [o for outcomes in results.values() for o in outcomes]
    if args.output_format == "json":
        out = {"dataset": [str(p) for p in paths], "grader": options.grader.name,
               "splits": {name: summary.summarize_devset(o) for name, o in results.items()},
               "misclassified": [{"id": o.id, "expected": o.expected_verdict, "verdict": o.verdict, "subtype": o.subtype,
                                  "rules": list(o.rules), "abstained": o.abstained}
                                 for o in results.get("dev", results.get("all", [])) if not o.correct]}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        title = f"plan-verify eval {' '.join(map(str, paths))} (development set, grader {options.grader.name})"
        sys.stdout.write(summary.devset_text(results, title, args.misses))
    return 0


def _run_dataset(args: argparse.Namespace, path: Path) -> int:
    from plan_verifier.evaluation import plots, runner, summary
    from plan_verifier.evaluation.dataset import cases
    from plan_verifier.resources import ConfigError

    options = semantic_options(args)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        items = cases(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError, TypeError) as exc:
        raise ConfigError(f"{path}: not a dataset file ({exc.__class__.__name__}: {exc})") from None
    if not items:
        raise ConfigError(f"{path}: the dataset has no cases")
    configurations = ["hybrid", "rule_based", "semantic_only"] if args.ablation else ["hybrid"]
    results = {}
    for name in configurations:
        bar = runner.ProgressBar(len(items), name)
        results[name] = runner.run(items, name, options, progress=bar)
    main = summary.summarize(results["hybrid"])
    rows = summary.ablation(results) if args.ablation else None
    if args.plots:
        for written in plots.write(main, Path(args.plots)):
            print(f"wrote {written}", file=sys.stderr)
    if args.output_format == "json":
        out = {"dataset": str(path), "seed": data.get("seed"), "grader": options.grader.name, **main}
        if rows is not None:
            out["ablation"] = rows
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        title = f"plan-verify eval {path} (seed {data.get('seed')}, grader {options.grader.name})"
        sys.stdout.write(summary.text(main, title, rows, args.misses))
    return 0
