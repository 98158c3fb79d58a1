"""Benchmark how long `plan-verify check` takes on a small program, start to exit, against two floors.

Not a test: it prints figures. Each round runs, in turn, `python -c pass` (the interpreter), `python -c
'import numpy'` (the one library every check needs) and `plan-verify check` on a small program (the
shipped pick-and-place, with the default robot; `--robot` for another, e.g. a URDF) in fresh processes,
so the three share the machine's moods; medians and the ratios to the floors are printed. Usage:
    .venv/bin/python benchmarks/bench_cli_start.py [--rounds N] [--robot NAME|PATH] [--plan PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(command: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--robot", default=None)
    parser.add_argument("--plan", default=str(ROOT / "examples" / "pick_and_place.tdl"))
    args = parser.parse_args()
    python = sys.executable
    check = [str(Path(python).with_name("plan-verify")), "check", args.plan] + (["--robot", args.robot] if args.robot else [])
    commands = {"python -c pass": [python, "-c", "pass"], "python -c 'import numpy'": [python, "-c", "import numpy"],
                "plan-verify check": check}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.rounds):
        for name, command in commands.items():
            times[name].append(timed(command))
    print(f"{args.rounds} rounds, fresh processes; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"plan {Path(args.plan).name}, robot {args.robot or 'default'}")
    floor, numpy = statistics.median(times["python -c pass"]), statistics.median(times["python -c 'import numpy'"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:>26}: median {median:.3f} s, min {min(values):.3f} s, {median / floor:5.1f}x python, {median / numpy:5.1f}x numpy")


if __name__ == "__main__":
    main()
