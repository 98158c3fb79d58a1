"""Benchmark the execution level: what the kinematic simulation adds to a verification.

Not a test: it prints figures for the README. Every program is verified in-process at
STANDARD twice per round, with the execution level on and off (`VerifyOptions.execution`),
interleaved so both share the machine's moods; the difference of the medians is the
execution level's cost, also given per simulated motion and per metre of TCP path (the
sampled path's length: the collision sweep's work grows with how far the bodies move, so
ms per metre should stay flat as programs grow). Programs: bench_core's pick-and-place
cycle (10 commands, four of them linear moves) repeated and cut to N - 1 commands, then
End() — so even the 10-command program moves — and the TDL corpus. Each is measured cold (the
execution level's result caches emptied before every verification: a plan never seen) and
warm (kept: the same plan verified again, every motion remembered).

Last, the cost of an assumed start (`motion.start`, R-KIN-010): JSON plans whose start
position has no taught joints are verified as they are (the start assumed: the plan is run
again from every other collision-free configuration of the start position) and with the
robot's joints given — the same configuration, so the same run, without the other runs —
interleaved, cold and warm; the ratio is what not knowing the robot's joints costs. Usage:
    .venv/bin/python benchmarks/bench_execution.py [--repeat N] [--sizes 10,100,1000] [--cell NAME] [--robot R]
    .venv/bin/python benchmarks/bench_execution.py --interleave ur10e,ur5e,test/fixtures/robots/ur5_urdf.yaml --sizes 100
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import CORPUS, CYCLE  # noqa: E402
from plan_verifier.context import RuleContext  # noqa: E402
from plan_verifier.graph.embedded import EmbeddedGraph  # noqa: E402
from plan_verifier.graph.open import open_graph  # noqa: E402
from plan_verifier.kinematics.arm import arm_for  # noqa: E402
from plan_verifier.motion import sweep as sweeping  # noqa: E402
from plan_verifier.options import VerifyOptions  # noqa: E402
from plan_verifier.pipeline import Verifier  # noqa: E402

ON, OFF = VerifyOptions(execution=True), VerifyOptions(execution=False)


def program(commands: int) -> str:
    """`commands` commands: the pick-and-place cycle's commands in order, cycle after cycle, and End()."""
    lines: list[str] = []
    i = 0
    while len(lines) < commands - 1:
        lines.extend(CYCLE.format(i=i, x=300 + (i * 7) % 300, y=-200 + (i * 13) % 400).splitlines(keepends=True))
        i += 1
    return "GOAL Execute_Process() {\n" + "".join(lines[:commands - 1]) + "    SPAWN End() WITH WAIT;\n}\n"


def forget(verifier: Verifier) -> None:
    """Empty the execution level's result caches (swept motions, numerical IK): every run pays the first encounter."""
    sweeping.CACHE.clear()
    arm_for(verifier.robot).clear_cache()


def measure(verifier: Verifier, text: str, repeat: int, warm: bool = False) -> dict:
    """Median ms with the execution level on and off, the execution stage's own median, and what was simulated.

    Cold (default): the result caches are emptied before every verification, as for a plan never
    seen; `warm`: they are kept, as for a plan verified again (replay, retries: every motion cached)."""
    report = verifier.verify(text, options=ON)  # warm caches (arm, bodies, grammar tables)
    verifier.verify(text, options=OFF)
    on, off, stage = [], [], []
    for _ in range(repeat):
        gc.collect()
        if not warm:
            forget(verifier)
        t0 = time.perf_counter()
        report = verifier.verify(text, options=ON)
        t1 = time.perf_counter()
        verifier.verify(text, options=OFF)
        t2 = time.perf_counter()
        on.append((t1 - t0) * 1000)
        off.append((t2 - t1) * 1000)
        stage.append(report.timings_ms.get("execution", 0.0))
    execution = report.motion
    motions = len(execution.motions) if execution is not None else 0
    metres = sum(float(np.linalg.norm(np.diff(m.tcp_mm, axis=0), axis=1).sum()) for m in execution.motions) / 1000 if motions else 0.0
    return {"on": statistics.median(on), "off": statistics.median(off), "stage": statistics.median(stage),
            "motions": motions, "metres": metres, "verdict": report.verdict,
            "ran": execution is not None and execution.unavailable is None}


def interleave(robots: list[str], sizes: list[int], repeat: int, graph) -> None:
    """Each robot verifies the same programs in turn, round after round: the ratio survives the machine's moods."""
    verifiers = {robot: Verifier(robot, graph=graph, level="STANDARD") for robot in robots}
    print(f"execution stage, cold, median (min) ms over {repeat} interleaved rounds; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    for size in sizes:
        text = program(size)
        stage: dict[str, list[float]] = {robot: [] for robot in robots}
        for verifier in verifiers.values():
            verifier.verify(text, options=ON)
        for _ in range(repeat):
            for robot, verifier in verifiers.items():
                forget(verifier)
                stage[robot].append(verifier.verify(text, options=ON).timings_ms.get("execution", 0.0))
        first = statistics.median(stage[robots[0]])
        for robot, values in stage.items():
            model = "capsules" if verifiers[robot].robot.collision_model.conservative else "exact geometry"
            print(f"{size:>6} commands  {robot:<48} {model:<15} {statistics.median(values):8.1f} ({min(values):.1f})"
                  f"  {statistics.median(values) / first:5.2f}x")


def row(label: str, m: dict) -> str:
    cost = m["on"] - m["off"]
    per_motion = f"{cost / m['motions']:.3f}" if m["motions"] else "-"
    per_metre = f"{cost / m['metres']:.2f}" if m["metres"] else "-"
    return (f"{label:>24} {m['off']:>8.2f} {m['on']:>8.2f} {m['on'] / m['off']:>6.1f}x {cost:>8.2f} {m['stage']:>8.2f} "
            f"{m['motions']:>7} {m['metres']:>7.1f} {per_motion:>9} {per_metre:>8}  [{m['verdict']}]")


#: (label, cell, start position, start tool, plan steps) of the assumed-start rows: the weld cell's own example plan on
#: the cell with its taught joints removed (every position a pose: no run from another start ever joins the assumed
#: one), and putting the Welder away from Pos_1, the one weld position of the shipped cell without joints (the runs
#: from Pos_1's other configurations join the assumed one at the taught Safe_Pos_1).
ASSUMED = (
    ("weld_seam_1, untaught cell", "untaught", None, None, [s for s in json.loads((ROOT / "examples" / "weld_seam_1.json").read_text(
        encoding="utf-8"))["steps"]]),
    ("from Pos_1, shipped cell", "weld_cell", "Pos_1", "Welder",
     [{"id": i, "action": "move", "target": t} if t != "release" else
      {"id": i, "action": "routine", "target": "tool_release", "position": "Tool_Weld_Position", "tool": "Welder"}
      for i, t in enumerate(["Safe_Pos_1", "Home", "Tool_Weld_Safe_Position", "Tool_Weld_Position", "release",
                             "Tool_Weld_Safe_Position", "Home"], 1)]),
)


def untaught_weld_cell() -> EmbeddedGraph:
    """The shipped weld cell without its taught joints: every position only a pose."""
    document = yaml.safe_load((ROOT / "config" / "cells" / "weld_cell.yaml").read_text(encoding="utf-8"))
    for position in document["positions"]:
        position.pop("joints", None)
    path = Path(tempfile.mkdtemp()) / "weld_cell_untaught.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return EmbeddedGraph.from_file(path)


def assumed_start(robot: str, repeat: int) -> None:
    """Median ms of JSON plans verified with the start assumed and with the robot's joints given (the same start)."""
    print(f"\nassumed start ({robot}, JSON plans, STANDARD): assumed = no joints given, the plan also run from the start position's "
          f"other collision-free configurations; known = the same start given as joints")
    print(f"{'plan':>28} {'':>5} {'known ms':>9} {'assumed ms':>10} {'ratio':>6} {'others':>6} {'joined':>6}  verdict")
    graphs = {"untaught": untaught_weld_cell(), "weld_cell": open_graph(cell="weld_cell")}
    for label, cell, position, tool, steps in ASSUMED:
        verifier = Verifier(robot, graph=graphs[cell], level="STANDARD")
        text = json.dumps({"name": label, "steps": steps})
        start = {"start_position": position, "start_tool": tool}
        report = verifier.verify(text, **start)
        joints = report.motion.start.joints_deg
        others = len(report.motion.start.alternatives)
        joined = sum(run.joined_at is not None for run in _alternatives(verifier, report, start))
        from_joints = verifier.verify(text, start_joints=joints, **start)
        for warm in (False, True):
            assumed, known = [], []
            for _ in range(repeat):
                gc.collect()
                if not warm:
                    forget(verifier)
                t0 = time.perf_counter()
                report = verifier.verify(text, **start)
                t1 = time.perf_counter()
                if not warm:
                    forget(verifier)
                t2 = time.perf_counter()
                verifier.verify(text, start_joints=joints, **start)
                t3 = time.perf_counter()
                assumed.append((t1 - t0) * 1000)
                known.append((t3 - t2) * 1000)
            a, k = statistics.median(assumed), statistics.median(known)
            print(f"{label:>28} {'warm' if warm else 'cold':>5} {k:>9.2f} {a:>10.2f} {a / k:>5.1f}x {others:>6} {joined:>6}  "
                  f"{report.verdict} ({from_joints.verdict} from the joints)", flush=True)


def _alternatives(verifier: Verifier, report, start: dict) -> tuple:
    """The runs from the other configurations of the start position (what R-KIN-010 judged), to count those that joined."""
    cell = report.cell
    ctx = RuleContext(report.plan, verifier.robot, cell=cell, start=verifier.start_state(cell, start["start_position"], start["start_tool"]))
    return ctx.start_alternatives


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--cell", help="verify against this cell (its floor and collision objects); default: none (the floor only)")
    parser.add_argument("--robot", default="ur10e", help="a shipped robot, a spec file or a URDF (e.g. "
                        "test/fixtures/robots/ur5_urdf.yaml: the UR5's meshes, with AMENT_PREFIX_PATH including "
                        ".venv/lib/python3.11/site-packages/cmeel.prefix)")
    parser.add_argument("--no-corpus", action="store_true", help="the synthetic programs only")
    parser.add_argument("--interleave", help="comma-separated robots (names, spec files, URDFs): the execution stage of each "
                        "--sizes program, cold, the robots taking turns in the same rounds (exact meshes against capsules)")
    args = parser.parse_args()
    if args.interleave:
        interleave([r.strip() for r in args.interleave.split(",") if r.strip()], [int(s) for s in args.sizes.split(",")],
                   args.repeat, open_graph(cell=args.cell) if args.cell else None)
        return
    graph = open_graph(cell=args.cell) if args.cell else None
    verifier = Verifier(args.robot, graph=graph, level="STANDARD")
    model = "exact geometry" if not verifier.robot.collision_model.conservative else "capsules"
    print(f"in-process, STANDARD, {verifier.robot.model} ({model}){', cell ' + args.cell if args.cell else ', no cell (the floor only)'}; median ms; "
          f"cost = on - off; path = the sampled TCP path; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'program':>24} {'off ms':>8} {'on ms':>8} {'on/off':>7} {'cost ms':>8} {'stage ms':>8} {'motions':>7} {'path m':>7} "
          f"{'ms/motion':>9} {'ms/m':>8}")
    for size in (int(s) for s in args.sizes.split(",")):
        print(row(f"{size} commands", measure(verifier, program(size), max(3, min(args.repeat, 3000 // size)))), flush=True)
        print(row(f"{size} commands, warm", measure(verifier, program(size), max(3, min(args.repeat, 3000 // size)), warm=True)),
              flush=True)
    if args.no_corpus:
        return
    corpus = sorted(CORPUS.glob("*.t*"))
    results = [measure(verifier, p.read_text(encoding="utf-8"), max(3, args.repeat // 3)) for p in corpus]
    total = {"on": sum(r["on"] for r in results), "off": sum(r["off"] for r in results), "stage": sum(r["stage"] for r in results),
             "motions": sum(r["motions"] for r in results), "metres": sum(r["metres"] for r in results),
             "verdict": f"{sum(r['ran'] for r in results)} of {len(results)} simulated"}
    print(row(f"corpus ({len(corpus)} programs)", total))
    warm = [measure(verifier, p.read_text(encoding="utf-8"), max(3, args.repeat // 3), warm=True) for p in corpus]
    print(row("corpus, warm", {"on": sum(r["on"] for r in warm), "off": sum(r["off"] for r in warm),
                               "stage": sum(r["stage"] for r in warm), "motions": total["motions"], "metres": total["metres"],
                               "verdict": total["verdict"]}))
    worst = max(zip(results, corpus), key=lambda rc: rc[0]["on"] - rc[0]["off"])
    print(f"corpus: median cost {statistics.median(r['on'] - r['off'] for r in results):.2f} ms per program, "
          f"most {worst[0]['on'] - worst[0]['off']:.2f} ms ({worst[1].name[:60]}, {worst[0]['motions']} motions)")
    assumed_start(args.robot, max(3, args.repeat // 3))


if __name__ == "__main__":
    main()
