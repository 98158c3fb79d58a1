"""Benchmark the kinematics library: FK, Jacobians and IK, single and batched, against a floor.

Not a test: it prints figures for docs/robots.md. The floor, measured in the same run,
is one numpy batch of 4x4 matrix products of the same size, so ratios survive a noisy
machine. With `pin` (Pinocchio) importable, its FK and Jacobians of the same chain are
measured too (a Python loop per configuration: Pinocchio has no batched call).
Also prints how loose the motion bound is (bound / distance actually travelled).
Usage:
    .venv/bin/python benchmarks/bench_kinematics.py [--repeat N] [--batch N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from plan_verifier.kinematics.bodies import body_set
from plan_verifier.kinematics import arm_for  # noqa: E402
from plan_verifier.robots.spec import RobotSpec, load_robot  # noqa: E402


def timed(fn, repeat: int) -> float:
    """Median wall time of `fn` in microseconds."""
    fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples)


def configurations(arm, count: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo, hi = np.maximum(arm.lower, -np.pi), np.minimum(arm.upper, np.pi)
    return lo + rng.random((count, 6)) * (hi - lo)


def numerical_arm():
    """The M1013 with joint 6 moved 1 mm off the wrist centre: no closed form applies."""
    data = yaml.safe_load((ROOT / "config" / "robots" / "m1013.yaml").read_text(encoding="utf-8"))
    data["kinematics"]["chain"][5]["xyz_mm"][0] = 1.0
    return arm_for(RobotSpec.model_validate(data))


def pinocchio_model(arm):
    import pinocchio as pin

    model = pin.Model()
    parent = 0
    for i in range(6):
        origin = arm.chain.origins[i]
        joint = pin.JointModelRevoluteUnaligned(*arm.chain.axes[i])
        parent = model.addJoint(parent, joint, pin.SE3(origin[:3, :3], origin[:3, 3]), f"j{i + 1}")
    flange = model.addFrame(pin.Frame("flange", parent, 0, pin.SE3(arm.chain.flange[:3, :3], arm.chain.flange[:3, 3]),
                                      pin.FrameType.OP_FRAME))
    return pin, model, model.createData(), flange


def report(name: str, micros: float, floor: float, per: int = 1) -> None:
    print(f"  {name:<46} {micros:10.1f} us  {micros / per:9.2f} us/item  x{micros / floor:7.1f} floor")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    n, r = args.batch, args.repeat

    a1, b1 = np.random.default_rng(1).random((2, 1, 4, 4))
    an, bn = np.random.default_rng(2).random((2, n, 4, 4))
    floor_1 = timed(lambda: a1 @ b1, r * 10)
    floor_n = timed(lambda: an @ bn, r)
    print(f"floor: one numpy 4x4 matmul batch: N=1 {floor_1:.1f} us, N={n} {floor_n:.1f} us")

    for name in ("ur10e", "m1013"):
        arm = arm_for(load_robot(name))
        qs = configurations(arm, n)
        q1 = qs[0]
        targets = arm.tcp_pose(qs, 0)
        print(f"{name} ({arm.method})")
        report("FK, all frames, 1 configuration", timed(lambda: arm.frames(q1), r * 10), floor_1)
        report(f"FK, all frames, {n} configurations", timed(lambda: arm.frames(qs), r), floor_n, n)
        report("Jacobian at the TCP, 1 configuration", timed(lambda: arm.jacobian(q1, 0), r * 10), floor_1)
        report(f"Jacobian at the TCP, {n} configurations", timed(lambda: arm.jacobian(qs, 0), r), floor_n, n)
        report("IK (all branches), 1 target", timed(lambda: arm.ik(targets[0], 0), r * 4), floor_1)
        report(f"IK batch, {n} targets", timed(lambda: arm.ik_batch(targets, 0), max(3, r // 5)), floor_n, n)
        report(f"singularity measures, {n} configurations", timed(lambda: arm.singularity(qs, 0), r), floor_n, n)
        bodies = body_set(arm, arm.spec.tools[0].tool_shape)
        report(f"body poses, {n} configurations", timed(lambda: bodies.poses(qs), r), floor_n, n)
        report(f"self-collision distances, {n} configurations", timed(lambda: bodies.self_distances(qs), r), floor_n, n)
        try:
            pin, model, data, flange = pinocchio_model(arm)
        except ImportError:
            print("  (pin not installed: no Pinocchio comparison)")
        else:
            def pin_fk(configs):
                for q in configs:
                    pin.forwardKinematics(model, data, q)
                    pin.updateFramePlacement(model, data, flange)

            def pin_jac(configs):
                for q in configs:
                    pin.computeFrameJacobian(model, data, q, flange, pin.LOCAL_WORLD_ALIGNED)

            pin_fk(qs[:1])
            assert np.allclose(data.oMf[flange].homogeneous, arm.frames(qs[0])[-1], atol=1e-9)
            report("pin FK + flange, 1 configuration", timed(lambda: pin_fk(qs[:1]), r * 10), floor_1)
            report(f"pin FK + flange, {n} configurations (loop)", timed(lambda: pin_fk(qs), r), floor_n, n)
            report("pin frame Jacobian, 1 configuration", timed(lambda: pin_jac(qs[:1]), r * 10), floor_1)
            report(f"pin frame Jacobian, {n} configurations (loop)", timed(lambda: pin_jac(qs), r), floor_n, n)

        rng = np.random.default_rng(4)
        ratios = []
        steps = np.linspace(0.0, 1.0, 201)[:, None]
        for _ in range(50):
            qa = configurations(arm, 1, int(rng.integers(1 << 30)))[0]
            qb = qa + rng.uniform(-0.5, 0.5, 6)
            seg = bodies.segments(qa + steps * (qb - qa))  # (S, B, 2, 3)
            travelled = np.linalg.norm(np.diff(seg, axis=0), axis=-1).sum(axis=0).max(axis=-1)
            moved = travelled > 1e-6  # the base does not move
            ratios.extend(bodies.motion_bound(qa, qb)[moved] / travelled[moved])
        ratios = np.array(ratios)
        print(f"  motion bound / travelled (capsule end points of moving bodies, 50 random moves): median {np.median(ratios):.2f}, "
              f"90th percentile {np.percentile(ratios, 90):.2f}, min {ratios.min():.2f}")

    arm = numerical_arm()
    target = arm.tcp_pose(configurations(arm, 1)[0], 0)
    print(f"m1013 with joint 6 off the wrist centre ({arm.method})")
    report("IK (damped least squares, 97 seeds), 1 target", timed(lambda: arm.ik(target, 0), 5), floor_1)


if __name__ == "__main__":
    main()
