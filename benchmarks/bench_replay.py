"""Benchmark offline replay: plans re-verified per second from a bag of 10,000 requests (embedded weld cell).

Not a test: it prints figures for the README. The bag is generated here with
rosbags (requests only, plus robot states); its answers do not matter for the
throughput, so the replay compares with nothing (as `replay --accept` on a
fresh bag does). Request mix: the real generator programs of test/corpus/tdl,
the shipped examples and JSON weld jobs, TDL and JSON about half each.

Two bags, because what replay may skip depends on the traffic:
* distinct: every request's plan text differs (a comment or description
  carries its number), so every request is verified;
* repeated: 1,000 distinct plans sent 10 times each (nightly jobs, planner
  retries), so replay verifies each distinct request once.
Each is replayed with 1 worker process and with one per core.

Usage: .venv/bin/python benchmarks/bench_replay.py [--requests 10000] [--distinct 1000] [--storage sqlite3|mcap]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from plan_verifier.graph.open import open_graph  # noqa: E402
from plan_verifier.replay import interfaces as itf  # noqa: E402
from plan_verifier.replay.bag import BagWriter, read_bag  # noqa: E402
from plan_verifier.replay.compare import compare  # noqa: E402
from plan_verifier.replay.engine import ReplaySetup, replay  # noqa: E402
from plan_verifier.replay.traffic import read_traffic  # noqa: E402
from plan_verifier.robots.spec import load_robot  # noqa: E402

NODE = itf.Topics("/plan_verifier")
STATE_TOPIC = "/robot_state"


def plan_pool() -> list[tuple[str, str]]:
    """(format, text) of the realistic plans: corpus programs, examples, JSON weld jobs."""
    pool = [("tdl", p.read_text(encoding="utf-8")) for p in sorted((ROOT / "test" / "corpus" / "tdl").iterdir()) if p.is_file()
            and p.suffix in (".tdl", ".txt")]
    pool += [("tdl", (ROOT / "examples" / name).read_text(encoding="utf-8")) for name in ("pick_and_place.tdl", "pick_and_place_unsafe.tdl")]
    pool += [("json", (ROOT / "examples" / name).read_text(encoding="utf-8"))
             for name in ("weld_seam_1.json", "weld_seam_5_illegal_edge.json", "weld_seam_5_repaired.json")]
    return pool


def variant(fmt: str, text: str, number: int) -> str:
    """The same plan as a distinct request (the verifier does the same work for it)."""
    if fmt == "json":
        data = json.loads(text)
        data["description"] = f"{data.get('description', '')} (job {number})"
        return json.dumps(data)
    return f"// request {number}\n{text}"


def make_bag(path: Path, requests: int, distinct: int, storage: str) -> None:
    pool = plan_pool()
    tdl = [p for p in pool if p[0] == "tdl"]
    json_plans = [p for p in pool if p[0] == "json"]
    with BagWriter(path, storage) as bag:
        bag.add_topic(NODE.plan_requests, itf.PLAN_REQUEST)
        bag.add_topic(STATE_TOPIC, itf.ROBOT_STATE)
        stamp = 1_700_000_000_000_000_000
        for i in range(requests):
            number = i % distinct
            fmt, text = (tdl[number % len(tdl)] if number % 2 else json_plans[number % len(json_plans)])
            if i % 500 == 0:  # the executor reports its state now and then
                stamp += 1_000_000
                bag.write(STATE_TOPIC, stamp, itf.new(itf.ROBOT_STATE, position="Home", tool="none"))
            stamp += 1_000_000
            bag.write(NODE.plan_requests, stamp, itf.new(itf.PLAN_REQUEST, plan=variant(fmt, text, number), correlation_id=f"task-{i}"))


def run(path: Path, jobs: int, setup_base: ReplaySetup) -> dict:
    t0 = time.perf_counter()
    contents = read_bag(path)
    traffic = read_traffic(contents)
    t1 = time.perf_counter()
    setup = ReplaySetup(setup_base.robot, setup_base.cell, jobs=jobs)
    result = replay(traffic, setup)
    rows = compare(traffic.requests, [None] * len(traffic.requests), result.answers)
    t2 = time.perf_counter()
    return {"requests": len(rows), "distinct": result.distinct, "read_s": t1 - t0, "verify_s": t2 - t1, "total_s": t2 - t0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--distinct", type=int, default=1_000, help="distinct plans in the repeated bag")
    parser.add_argument("--storage", choices=("sqlite3", "mcap"), default="sqlite3")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    base = ReplaySetup(load_robot("ur10e"), open_graph(cell="weld_cell").snapshot())
    print(f"replay throughput: {args.requests} requests, embedded weld cell, {args.storage}, {cores} cores")
    print(f"{'bag':<10} {'jobs':>4} {'distinct':>8} {'read s':>7} {'verify s':>8} {'total s':>7} {'plans/s':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        bags = {"distinct": (Path(tmp) / "distinct", args.requests), "repeated": (Path(tmp) / "repeated", args.distinct)}
        for name, (path, distinct) in bags.items():
            t0 = time.perf_counter()
            make_bag(path, args.requests, distinct, args.storage)
            print(f"  ({name} bag written in {time.perf_counter() - t0:.1f} s, {sum(f.stat().st_size for f in path.iterdir()) / 1e6:.1f} MB)")
            for jobs in sorted({1, cores}):
                figures = run(path, jobs, base)
                print(f"{name:<10} {jobs:>4} {figures['distinct']:>8} {figures['read_s']:>7.2f} {figures['verify_s']:>8.2f} "
                      f"{figures['total_s']:>7.2f} {figures['requests'] / figures['total_s']:>8.0f}")


if __name__ == "__main__":
    main()
