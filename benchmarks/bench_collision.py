"""Benchmark the distance engine (collision/scene.py) and the two narrow-phase libraries.

Not a test: it prints figures for docs/collision.md. Usage:
    .venv/bin/python benchmarks/bench_collision.py [--repeat N]

1. Libraries: import time (fresh interpreter, after numpy) and cost per
   signed-distance call of coal and, when it is installed, python-fcl
   (`pip install python-fcl==0.7.0.11` into the venv to compare).
2. Queries: a UR10e-sized arm (6 link capsules and a cylinder torch) moving
   through the weld cell's obstacles and floor, 10 self-collision pairs, at
   50 instants (one motion) and 1,800 instants (60 motions x 30 samples, a
   100-command program at once), with the broad phase (cut-off 50 mm) and
   without it (every pair to the library). The floor measured in the same run
   is the numpy work alone - the same query with cut-off 0, where nothing but
   what is closer than the clearance reaches the library - so the ratios say
   what the exact narrow phase adds. A last column makes the same query once
   per motion, to show what batching a whole program into one call saves.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from plan_verifier.collision import narrow  # noqa: E402
from plan_verifier.collision.scene import Body, Scene  # noqa: E402
from plan_verifier.collision.shapes import Box, Capsule, Cylinder  # noqa: E402
from plan_verifier.graph.model import load_cell_file  # noqa: E402

# UR10e standard DH rows (a, d, alpha) from config/robots/ur10e.yaml; link radii as in contract §7's example.
DH = [(0.0, 180.7, 90.0), (-612.7, 0.0, 0.0), (-571.55, 0.0, 0.0), (0.0, 174.15, 90.0), (0.0, 119.85, -90.0), (0.0, 116.55, 0.0)]
RADII = [90.0, 75.0, 65.0, 50.0, 50.0, 45.0]
TORCH = Cylinder(25.0, 250.0)
#: Non-adjacent bodies (0 base, 1 upper arm, 2 forearm, 3-5 wrists, 6 torch).
PAIRS = [(0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (1, 3), (1, 4), (1, 5), (1, 6), (2, 6)]


def _dh_frames(joints_deg: np.ndarray) -> np.ndarray:
    """(N, 7, 4, 4): base and the six joint frames for N configurations (vectorised standard DH)."""
    n = joints_deg.shape[0]
    out = np.empty((n, 7, 4, 4))
    out[:, 0] = np.eye(4)
    for k, (a, d, alpha) in enumerate(DH):
        th = np.radians(joints_deg[:, k])
        ct, st = np.cos(th), np.sin(th)
        ca, sa = math.cos(math.radians(alpha)), math.sin(math.radians(alpha))
        step = np.zeros((n, 4, 4))
        step[:, 0, 0], step[:, 0, 1], step[:, 0, 2], step[:, 0, 3] = ct, -st * ca, st * sa, a * ct
        step[:, 1, 0], step[:, 1, 1], step[:, 1, 2], step[:, 1, 3] = st, ct * ca, -ct * sa, a * st
        step[:, 2, 1], step[:, 2, 2], step[:, 2, 3] = sa, ca, d
        step[:, 3, 3] = 1.0
        out[:, k + 1] = out[:, k] @ step
    return out


def _capsule_frames(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(N, 4, 4) frames centred between p and q with z along q - p."""
    z = q - p
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    helper = np.where(np.abs(z[:, :1]) < 0.9, np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
    x = np.cross(helper, z)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    out = np.zeros((p.shape[0], 4, 4))
    out[:, :3, 0], out[:, :3, 1], out[:, :3, 2], out[:, :3, 3], out[:, 3, 3] = x, np.cross(z, x), z, (p + q) / 2, 1.0
    return out


def arm(joints_deg: np.ndarray) -> tuple[list[Body], np.ndarray]:
    """The arm's bodies and their frames (B, N, 4, 4): a capsule between consecutive joint origins, the torch on the flange."""
    frames = _dh_frames(joints_deg)
    origins = frames[:, :, :3, 3]
    bodies, placed = [], []
    for k in range(6):
        p, q = origins[:, k], origins[:, k + 1]
        length = float(np.linalg.norm(q[0] - p[0]))
        bodies.append(Body(f"link{k}", Capsule(RADII[k], length), check_floor=k > 0))
        placed.append(_capsule_frames(p, q))
    mount = np.eye(4)
    mount[2, 3] = TORCH.length / 2
    bodies.append(Body("torch", TORCH))
    placed.append(frames[:, 6] @ mount)
    return bodies, np.stack(placed)


def program(motions: int, samples: int, rng: np.random.Generator) -> np.ndarray:
    """Joint configurations along `motions` joint moves between random targets over the table, tool down."""
    low = np.array([140.0, -110.0, 70.0, -110.0, -90.0, -90.0])
    high = np.array([220.0, -70.0, 110.0, -70.0, -90.0, 90.0])
    targets = rng.uniform(low, high, size=(motions + 1, 6))
    s = np.linspace(0.0, 1.0, samples)[:, None]
    return np.concatenate([targets[i] + s * (targets[i + 1] - targets[i]) for i in range(motions)])


def best_ms(fn, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return min(samples)


def library_figures(repeat: int) -> None:
    print("== narrow-phase libraries (signed distance, one call from Python)")
    for module in ("coal", "fcl"):
        code = f"import time, numpy; t = time.perf_counter(); import {module}; print((time.perf_counter() - t) * 1000)"
        runs = []
        for _ in range(5):
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            if done.returncode != 0:
                break
            runs.append(float(done.stdout))
        if not runs:
            print(f"{module:5s} not installed")
            continue
        print(f"{module:5s} import after numpy: median {statistics.median(runs):6.1f} ms (min {min(runs):.1f})")
    rng = np.random.default_rng(1)
    k = 2000
    frames = np.array([_random_frame(rng) for _ in range(k)])
    box_frame = np.broadcast_to(np.eye(4), (k, 4, 4))
    for shape in (Capsule(50.0, 600.0), Cylinder(40.0, 150.0)):
        ms = best_ms(lambda: narrow.signed_distances(shape, frames, Box(200.0, 300.0, 250.0), box_frame), repeat)
        print(f"coal  {type(shape).__name__.lower():8s}-box: {ms * 1000 / k:5.2f} us per call (with witness points)")
    try:
        import fcl
    except ImportError:
        return
    request = fcl.DistanceRequest(enable_nearest_points=True, enable_signed_distance=True)
    box = fcl.CollisionObject(fcl.Box(200.0, 300.0, 250.0), fcl.Transform())
    for name, geometry in (("capsule", fcl.Capsule(50.0, 600.0)), ("cylinder", fcl.Cylinder(40.0, 150.0))):
        moving = fcl.CollisionObject(geometry, fcl.Transform())

        def run() -> None:
            for f in frames:
                moving.setTransform(fcl.Transform(f[:3, :3], f[:3, 3]))
                result = fcl.DistanceResult()
                fcl.distance(moving, box, request, result)
                result.nearest_points  # noqa: B018 - read the witnesses, as the engine does with coal's

        print(f"fcl   {name:8s}-box: {best_ms(run, repeat) * 1000 / k:5.2f} us per call (with witness points)")


def _random_frame(rng: np.random.Generator) -> np.ndarray:
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    out = np.eye(4)
    out[:3, :3] = q * np.sign(np.linalg.det(q))
    out[:3, 3] = rng.normal(0.0, 300.0, 3)
    return out


def query_figures(repeat: int) -> None:
    scene = Scene.from_cell(load_cell_file(ROOT / "config" / "cells" / "weld_cell.yaml"), default_floor_z_mm=0.0)
    narrow.load()
    print(f"\n== queries: 7 bodies x ({len(scene.obstacles)} obstacles + floor), {len(PAIRS)} self pairs; best of {repeat}, ms")
    print("   floor: the same query with cut-off 0 (the vectorised bounds, library calls only below the clearance)")
    print(f"{'instants':>8} {'floor':>7} {'cut-off 50':>10} {'ratio':>6} {'all exact':>9} {'ratio':>6} {'exact share':>11} {'per motion':>10}")
    rng = np.random.default_rng(7)
    for motions, samples in ((1, 50), (60, 30)):
        bodies, frames = arm(program(motions, samples, rng))
        floor = best_ms(lambda: scene.distances(bodies, frames, PAIRS, cutoff_mm=0.0), repeat)
        broad = best_ms(lambda: scene.distances(bodies, frames, PAIRS, cutoff_mm=50.0), repeat)
        full = best_ms(lambda: scene.distances(bodies, frames, PAIRS), repeat)
        per_motion = best_ms(lambda: [scene.distances(bodies, frames[:, k:k + samples], PAIRS, cutoff_mm=50.0)
                                      for k in range(0, frames.shape[1], samples)], repeat)
        result = scene.distances(bodies, frames, PAIRS, cutoff_mm=50.0)
        share = (result.world_exact.sum() + result.self_exact.sum()) / (result.world_exact.size + result.self_exact.size)
        print(f"{frames.shape[1]:8d} {floor:7.2f} {broad:10.2f} {broad / floor:6.1f} {full:9.2f} {full / floor:6.1f} {share:11.0%} "
              f"{per_motion:10.2f}")
    print("   per motion: the cut-off 50 query made once per motion (calls of 30 or 50 instants) instead of once")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    library_figures(args.repeat)
    query_figures(args.repeat)


if __name__ == "__main__":
    main()
