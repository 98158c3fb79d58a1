"""Benchmark the core: check latency and peak memory by program size, the corpus, and CLI start-up.

Not a test: it prints figures for the README. Usage:
    .venv/bin/python benchmarks/bench_core.py [--repeat N] [--sizes 10,100,1000,10000]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from plan_verifier.pipeline import Verifier  # noqa: E402

CORPUS = ROOT / "test" / "corpus" / "tdl"

# One pick-and-place cycle in the corpus's positional dialect: 10 commands.
CYCLE = """    SPAWN Assign(approach_{i}, PosX({x}, {y}, 300, 0, 180, 0)) WITH WAIT;
    SPAWN Assign(pick_{i}, PosX({x}, {y}, 200, 0, 180, 0)) WITH WAIT;
    SPAWN MoveLinear(approach_{i}, 100, 100, 0, 0.0, None) WITH WAIT;
    SPAWN MoveLinear(pick_{i}, 50, 100, 0, 0.0, None) WITH WAIT;
    SPAWN SetDigitalOutput(1, 1) WITH WAIT;
    SPAWN Delay(0.5) WITH WAIT;
    SPAWN MoveLinear(approach_{i}, 50, 100, 0, 0.0, None) WITH WAIT;
    SPAWN MoveLinear(pick_{i}, 50, 100, 0, 0.0, None) WITH WAIT;
    SPAWN SetDigitalOutput(1, 0) WITH WAIT;
    SPAWN Delay(0.5) WITH WAIT;
"""


def program(commands: int) -> str:
    """A valid program of exactly `commands` commands (cycles of 10, plus End())."""
    body = []
    for i in range((commands - 2) // 10):
        body.append(CYCLE.format(i=i, x=300 + (i * 7) % 300, y=-200 + (i * 13) % 400))
    filler = commands - 2 - 10 * ((commands - 2) // 10)
    body.extend("    SPAWN PrintLog(\"step\") WITH WAIT;\n" for _ in range(filler))
    return ("GOAL Execute_Process() {\n    SPAWN SetDigitalOutput(1, 0) WITH WAIT;\n" + "".join(body) + "    SPAWN End() WITH WAIT;\n}\n")


def measure(verifier: Verifier, text: str, repeat: int) -> dict:
    verifier.verify(text)  # warm caches (grammar, catalogue, FK)
    samples = []
    stages: dict[str, list[float]] = {}
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        report = verifier.verify(text)
        samples.append((time.perf_counter() - t0) * 1000)
        for k, v in report.timings_ms.items():
            stages.setdefault(k, []).append(v)
    tracemalloc.start()
    verifier.verify(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    samples.sort()
    return {
        "median_ms": statistics.median(samples),
        "p95_ms": samples[min(len(samples) - 1, int(0.95 * len(samples)))],
        "peak_kib": peak / 1024,
        "stages": {k: statistics.median(v) for k, v in stages.items()},
        "verdict": report.verdict,
        "findings": len(report.findings),
    }


def cli_startup(runs: int) -> tuple[float, bool]:
    """Median wall time of `plan-verify check` on a small file, and whether rclpy got imported."""
    with tempfile.NamedTemporaryFile("w", suffix=".tdl", delete=False) as handle:
        handle.write(program(10))
    cmd = [sys.executable, "-c",
           "import sys; from plan_verifier.cli.main import main; code = main(['check', sys.argv[1]]); "
           "print('RCLPY' if 'rclpy' in sys.modules else 'NO_RCLPY', file=sys.stderr); sys.exit(code)", handle.name]
    times = []
    rclpy = False
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        rclpy = rclpy or "RCLPY" in proc.stderr.split()
    Path(handle.name).unlink()
    return statistics.median(times), rclpy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--sizes", default="10,100,1000,10000")
    args = parser.parse_args()
    verifier = Verifier("ur10e", level="STANDARD")
    print(f"{'commands':>9} {'median ms':>10} {'p95 ms':>8} {'ms/cmd':>7} {'peak KiB':>9}  stages (median ms)")
    for size in (int(s) for s in args.sizes.split(",")):
        text = program(size)
        repeat = max(3, min(args.repeat, 3000 // size))
        m = measure(verifier, text, repeat)
        stages = " ".join(f"{k}={v:.2f}" for k, v in m["stages"].items() if k != "total")
        print(f"{size:>9} {m['median_ms']:>10.2f} {m['p95_ms']:>8.2f} {m['median_ms'] / size:>7.3f} {m['peak_kib']:>9.0f}  {stages}  [{m['verdict']}]")
    corpus = sorted(CORPUS.glob("*.t*"))
    medians = [measure(verifier, p.read_text(encoding="utf-8"), args.repeat)["median_ms"] for p in corpus]
    print(f"corpus: {len(corpus)} programs, median of medians {statistics.median(medians):.2f} ms, max {max(medians):.2f} ms, "
          f"total {sum(medians):.1f} ms")
    wall, rclpy = cli_startup(10)
    print(f"process start + check of a 10-command program: median {wall * 1000:.0f} ms (rclpy imported: {rclpy})")


if __name__ == "__main__":
    main()
