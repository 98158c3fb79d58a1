"""Benchmark the core: check latency and peak memory by program size, the corpus, and CLI start-up.

Not a test: it prints figures for the README. Each size is measured against a
floor taken in the same run: one compiled regular expression (the grammar's
own token alternation, `findall`) over the same program text. `read` is the
whole TDL reader (scan, parse, lower to the IR); `check` the full STANDARD
verification with the execution level off (`--execution` turns it on; its own cost, per
motion and per metre of path, is `bench_execution.py`'s). Usage:
    .venv/bin/python benchmarks/bench_core.py [--repeat N] [--sizes 10,100,1000,10000] [--execution]
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from plan_verifier.options import VerifyOptions  # noqa: E402
from plan_verifier.pipeline import Verifier  # noqa: E402
from plan_verifier.tdl.grammar import grammar  # noqa: E402
from plan_verifier.tdl.lower import lower_tdl  # noqa: E402

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
    """Median wall times of the floor, the reader and the check, interleaved so that they share the machine's moods
    (the first two with the cycle collector paused, as the check pauses it)."""
    tokens = grammar().fast
    verifier.verify(text)  # warm caches (grammar tables, statement shapes, catalogue, FK)
    lower_tdl(text)
    floor, read, check = [], [], []
    stages: dict[str, list[float]] = {}
    for _ in range(repeat):
        gc.collect()
        gc.disable()  # as the pipeline does during a verification (pipeline._no_cycle_collection)
        t0 = time.perf_counter()
        tokens.findall(text)
        t1 = time.perf_counter()
        lower_tdl(text)
        t2 = time.perf_counter()
        gc.enable()
        report = verifier.verify(text)
        t3 = time.perf_counter()
        floor.append((t1 - t0) * 1000)
        read.append((t2 - t1) * 1000)
        check.append((t3 - t2) * 1000)
        for k, v in report.timings_ms.items():
            stages.setdefault(k, []).append(v)
    tracemalloc.start()
    verifier.verify(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    check.sort()
    return {
        "floor_ms": statistics.median(floor),
        "read_ms": statistics.median(read),
        "median_ms": statistics.median(check),
        "p95_ms": check[min(len(check) - 1, int(0.95 * len(check)))],
        "peak_kib": peak / 1024,
        "stages": {k: statistics.median(v) for k, v in stages.items()},
        "verdict": report.verdict,
        "findings": len(report.findings),
    }


def cli_startup(runs: int, *extra: str) -> dict:
    """`plan-verify check examples/pick_and_place.tdl` as a new process: wall and CPU time (median, best), a bare
    interpreter's wall time, and which of rclpy, lark, numpy, coal, pydantic, matplotlib the check imported.

    CPU time (user + system of the child) is what the shared machine disturbs least; wall time waits for the
    other jobs on it as well."""
    cmd = [sys.executable, "-c",
           "import sys; from plan_verifier.cli.main import main; code = main(sys.argv[1:]); "
           "print(*sorted(m for m in ('rclpy', 'lark', 'numpy', 'coal', 'pydantic', 'matplotlib') if m in sys.modules), "
           "file=sys.stderr); sys.exit(code)",
           "check", str(ROOT / "examples" / "pick_and_place.tdl"), *extra]
    wall, cpu, bare = [], [], []
    imported: set[str] = set()
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        imported.update(proc.stderr.split())
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
        bare.append(time.perf_counter() - t0)
    return {"wall": statistics.median(wall), "wall_best": min(wall), "cpu": statistics.median(cpu), "cpu_best": min(cpu),
            "bare": statistics.median(bare), "imported": imported}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--sizes", default="10,100,1000,10000")
    parser.add_argument("--execution", action="store_true", help="check with the execution level on")
    args = parser.parse_args()
    verifier = Verifier("ur10e", level="STANDARD", options=VerifyOptions(execution=args.execution))
    print("floor = one compiled regular expression tokenising the same text; read = the TDL reader; "
          f"check = STANDARD, execution {'on' if args.execution else 'off'}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'commands':>9} {'floor ms':>9} {'read ms':>8} {'check ms':>9} {'p95 ms':>8} {'ms/cmd':>7} {'read/floor':>10} {'check/floor':>11} "
          f"{'peak KiB':>9}  stages (median ms)")
    for size in (int(s) for s in args.sizes.split(",")):
        text = program(size)
        repeat = max(3, min(args.repeat, 3000 // size))
        m = measure(verifier, text, repeat)
        stages = " ".join(f"{k}={v:.2f}" for k, v in m["stages"].items() if k != "total")
        print(f"{size:>9} {m['floor_ms']:>9.3f} {m['read_ms']:>8.2f} {m['median_ms']:>9.2f} {m['p95_ms']:>8.2f} {m['median_ms'] / size:>7.3f} "
              f"{m['read_ms'] / m['floor_ms']:>9.1f}x {m['median_ms'] / m['floor_ms']:>10.1f}x {m['peak_kib']:>9.0f}  {stages}  [{m['verdict']}]")
    corpus = sorted(CORPUS.glob("*.t*"))
    medians = [measure(verifier, p.read_text(encoding="utf-8"), args.repeat)["median_ms"] for p in corpus]
    print(f"corpus: {len(corpus)} programs, median of medians {statistics.median(medians):.2f} ms, max {max(medians):.2f} ms, "
          f"total {sum(medians):.1f} ms")
    cached = not os.environ.get("PYTHONDONTWRITEBYTECODE") or (ROOT / "src" / "plan_verifier" / "__pycache__").is_dir()
    print("bytecode of plan_verifier: " + ("cached" if cached else
                                           "not cached (PYTHONDONTWRITEBYTECODE is set and src/ has none: every start compiles the package)"))
    for extra in ((), ("--level", "BASIC")):
        m = cli_startup(12, *extra)
        print(f"process start + check examples/pick_and_place.tdl {' '.join(extra)}: CPU median {m['cpu'] * 1000:.0f} ms, "
              f"best {m['cpu_best'] * 1000:.0f} ms; wall median {m['wall'] * 1000:.0f} ms, best {m['wall_best'] * 1000:.0f} ms "
              f"(a bare interpreter start: {m['bare'] * 1000:.0f} ms; imported: {', '.join(sorted(m['imported']))})")

if __name__ == "__main__":
    main()
