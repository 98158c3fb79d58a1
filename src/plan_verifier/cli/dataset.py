"""`plan-verify dataset generate --size N --seed S OUT`: a labelled test set (seed 000 §3)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("dataset", help="generate a labelled evaluation dataset",
                       description="Build test datasets for `plan-verify eval` (seed 000 §3).")
    actions = p.add_subparsers(dest="dataset_command", required=True, metavar="ACTION")
    g = actions.add_parser("generate", help="generate positives and injected-error negatives",
                           description="Positives and syntax/semantic/safety/consistency negatives with labels; "
                                       "the same --size and --seed always give the same file.")
    g.add_argument("out", metavar="OUT", help="output JSON file, or - for standard output")
    g.add_argument("--size", type=int, default=600, help="number of cases (default 600)")
    g.add_argument("--seed", type=int, required=True, help="random seed")
    g.add_argument("--robot", default="ur10e", metavar="NAME|PATH", help="robot the TDL programs are written for (default ur10e)")
    g.add_argument("--cell", action="append", metavar="NAME|PATH", dest="cells",
                   help="cell file for the JSON plans (repeatable; default: every shipped cell)")
    g.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from plan_verifier.evaluation.dataset import generate
    from plan_verifier.evaluation.runner import ProgressBar
    from plan_verifier.resources import ConfigError, resolve

    if args.size < 5:
        raise ConfigError("--size must be at least 5 (one case per category)")
    cells = [resolve("cells", c) for c in args.cells] if args.cells else None
    data = generate(args.size, args.seed, args.robot, cells, progress=ProgressBar(args.size, "generating"))
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        _write_atomically(Path(args.out), text)
        counts = ", ".join(f"{n} {k.replace('_examples', '').replace('_errors', '')}" for k, n in data["counts"].items())
        print(f"wrote {args.out}: {args.size} cases ({counts})", file=sys.stderr)
    return 0


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
