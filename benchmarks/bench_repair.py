"""Verified repair (issue 15): how many rejected plans come back repaired and verified, and how fast.

Two sets:
- generated: target-only pick-and-place programs (`evaluation.target_only`: targets checked
  against reach and height only, a home somewhere, MoveLinear everywhere; 32 motions each),
  for UR3e, UR10e and M1013, with no cell and in both shipped cells;
- corpus: the TDL programs of ../shared/corpus/tdl (UR10e, no cell).

For each rejected plan: repaired and verified (approved by the whole pipeline), reported not
repairable (every finding left is `Unrepaired.kind` "not_repairable": no solution for a target,
every solution in collision, a target or setting out of the robot's limits, a finding that is not
about motions, a motion that starts where such a target leaves the arm), or given up on (a motion
finding the strategies could not remove); the repair's time (median, p95); and
whether any repaired plan's gripper/IO events moved (task preserved, compared for every one).
The peer, measured in the same run: the hand repair of the issue — every MoveLinear made a
MoveJoint — and how many of the same rejected plans it gets approved.

    .venv/bin/python benchmarks/bench_repair.py [--seeds 8] [--robots ur3e,ur10e,m1013] [--no-warm-up]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from plan_verifier.evaluation.target_only import target_only_program  # noqa: E402
from plan_verifier.graph.open import open_graph  # noqa: E402
from plan_verifier.pipeline import Verifier  # noqa: E402
from plan_verifier.repair import Verification, repair_plan  # noqa: E402
from plan_verifier.repair.model import MotionModel  # noqa: E402
from plan_verifier.repair.result import NOT_REPAIRABLE  # noqa: E402
from plan_verifier.repair.task import task_difference, task_events  # noqa: E402
from plan_verifier.robots.spec import load_robot  # noqa: E402

CORPUS = ROOT.parent.parent / "shared" / "corpus" / "tdl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--robots", default="ur3e,ur10e,m1013")
    parser.add_argument("--cells", default="none,assembly_cell,weld_cell")
    parser.add_argument("--verbose", action="store_true", help="one line per rejected plan: its outcome and CPU time")
    parser.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                        help="time the process's first repair cold (it pays the imports and table loads)")
    args = parser.parse_args()
    cases = []
    for robot in args.robots.split(","):
        spec = load_robot(robot)
        for cell in args.cells.split(","):
            for seed in range(args.seeds):
                cases.append(("generated", spec, None if cell == "none" else cell, target_only_program(spec, seed).text,
                              f"{robot}/{cell}/{seed}"))
    corpus = Path(CORPUS) if Path(CORPUS).is_dir() else Path("/work/shared/corpus/tdl")
    for path in sorted(corpus.glob("*")):
        if path.suffix in (".tdl", ".txt"):
            cases.append(("corpus", load_robot("ur10e"), None, path.read_text(encoding="utf-8"), path.name))
    rows = {"generated": [], "corpus": []}
    verifiers: dict = {}
    if args.warm_up:
        # The process's first repair pays imports, the grammar tables, the arms' kinematics and OMPL's start: a
        # program of no set (another seed, no cell) is repaired once, untimed, first. It shares no motion with the
        # timed programs, so nothing it leaves in the process's caches is one of theirs.
        spec = load_robot(args.robots.split(",")[0])
        repair_plan(target_only_program(spec, 1000).text, Verification(Verifier(spec)))
    for kind, spec, cell, text, name in cases:
        key = (spec.name, cell)
        if key not in verifiers:
            verifiers[key] = Verifier(spec, graph=open_graph(cell=cell) if cell else None)
        verifier = verifiers[key]
        t0, c0 = time.perf_counter(), time.process_time()
        result = repair_plan(text, Verification(verifier))
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        if result.original.approved:
            rows[kind].append(("approved", seconds, None, None, cpu))
            continue
        naive = verifier.verify(re.sub(r"\bMoveLinear\(", "MoveJoint(", text)).approved
        moved = None
        if result.verified and result.edits:
            model = MotionModel(spec, result.report.cell)
            moved = task_difference(task_events(result.original.plan, model, result.original.cell),
                                    task_events(result.report.plan, model, result.report.cell)) is not None
        if result.verified:
            outcome = "repaired"
        elif all(u.kind == NOT_REPAIRABLE for u in result.unrepaired):
            outcome = "not repairable"
        else:
            outcome = "gave up"
        rows[kind].append((outcome, seconds, naive, moved, cpu))
        if args.verbose:
            print(f"  {kind:9s} {name:28s} {outcome:15s} CPU {cpu:5.2f} s, {result.candidates} plans verified", flush=True)
    for kind, found in rows.items():
        rejected = [r for r in found if r[0] != "approved"]
        if not rejected:
            print(f"{kind}: {len(found)} plans, none rejected")
            continue
        times = sorted(r[1] for r in rejected)
        p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
        share = {o: sum(1 for r in rejected if r[0] == o) for o in ("repaired", "not repairable", "gave up")}
        naive = sum(1 for r in rejected if r[2])
        moved = sum(1 for r in rejected if r[3])
        print(f"{kind}: {len(found)} plans, {len(rejected)} rejected")
        for outcome, count in share.items():
            print(f"  {outcome:<15} {count:4d}  {count / len(rejected):6.1%}")
        print(f"  peer (every MoveLinear -> MoveJoint) approved: {naive} ({naive / len(rejected):.1%}); "
              f"verified repair / peer = {share['repaired'] / max(naive, 1):.1f}x")
        print(f"  repair time: median {statistics.median(times):.2f} s, p95 {p95:.2f} s")
        cpu = sorted(r[4] for r in rejected)
        cpu95 = cpu[min(len(cpu) - 1, int(round(0.95 * (len(cpu) - 1))))]
        print(f"  repair CPU time (this process; steadier than wall time on a shared machine): median "
              f"{statistics.median(cpu):.2f} s, p95 {cpu95:.2f} s")
        print(f"  repaired plans whose gripper/IO events moved: {moved}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
