"""`plan-verify eval DATASET`: precision/recall/F1, timing, calibration and the ablation (seed 000 §5)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from plan_verifier.cli.semantic_args import add_semantic_arguments, semantic_options


def add_parser(sub) -> None:
    p = sub.add_parser("eval", help="measure the verifier on a labelled dataset",
                       description="Run every case of a dataset (from `plan-verify dataset generate`) through the "
                                   "verifier and print seed 000 §5's metrics.")
    p.add_argument("dataset", metavar="DATASET", help="dataset JSON file")
    p.add_argument("--ablation", action="store_true", help="also run rule-based only and semantic only (seed 000 §5.3)")
    p.add_argument("--plots", metavar="DIR", help="write confusion_matrix.png and calibration.png here")
    p.add_argument("--format", choices=("text", "json"), default="text", dest="output_format")
    p.add_argument("--misses", type=int, default=20, metavar="N", help="misclassified cases listed in text output (default 20)")
    add_semantic_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from plan_verifier.evaluation import plots, runner, summary
    from plan_verifier.evaluation.dataset import cases
    from plan_verifier.resources import ConfigError

    options = semantic_options(args)
    try:
        data = json.loads(Path(args.dataset).read_text(encoding="utf-8"))
        items = cases(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError, TypeError) as exc:
        raise ConfigError(f"{args.dataset}: not a dataset file ({exc.__class__.__name__}: {exc})") from None
    if not items:
        raise ConfigError(f"{args.dataset}: the dataset has no cases")
    configurations = ["hybrid", "rule_based", "semantic_only"] if args.ablation else ["hybrid"]
    results = {}
    for name in configurations:
        bar = runner.ProgressBar(len(items), name)
        results[name] = runner.run(items, name, options, progress=bar)
    main = summary.summarize(results["hybrid"])
    rows = summary.ablation(results) if args.ablation else None
    if args.plots:
        for path in plots.write(main, Path(args.plots)):
            print(f"wrote {path}", file=sys.stderr)
    if args.output_format == "json":
        out = {"dataset": args.dataset, "seed": data.get("seed"), "grader": options["semantic_grader"], **main}
        if rows is not None:
            out["ablation"] = rows
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        title = f"plan-verify eval {args.dataset} (seed {data.get('seed')}, grader {options['semantic_grader']})"
        sys.stdout.write(summary.text(main, title, rows, args.misses))
    return 0
