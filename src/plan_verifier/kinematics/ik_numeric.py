"""Numerical inverse kinematics for any six-joint chain: damped least squares from many seeds.

Used for chains that neither closed form covers (a user's arm), and to measure how far
an unreachable target is missed. Deterministic: the seeds are a fixed Halton sequence
over the joint ranges (clipped to one turn) plus the start configuration, all iterated
at once as one batch (Levenberg-Marquardt with a per-seed damping), so every branch
that some seed falls into is found and the answer never depends on a random state.
The pose error weighs one radian of orientation like `ORIENTATION_WEIGHT_MM` of
position, so the closest approximation of an unreachable target keeps the orientation
where it can and reports the position miss, as a controller refusing the target would.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from plan_verifier.kinematics.chain import Chain
from plan_verifier.kinematics.rigid import rotation_angle, rotation_vector, wrap

ORIENTATION_WEIGHT_MM = 1000.0
SEEDS = 96
MAX_ITERATIONS = 120
#: A seed counts as a solution when its flange is this close to the target.
POSITION_TOL_MM = 1e-6
ORIENTATION_TOL_RAD = 1e-9


@dataclass(frozen=True)
class NumericResult:
    solutions: np.ndarray  # (K, 6) distinct solutions in (-pi, pi]
    closest: np.ndarray  # (6,) the configuration with the smallest weighted error
    position_miss_mm: float
    orientation_miss_rad: float


def _halton(count: int, dims: int) -> np.ndarray:
    primes = [2, 3, 5, 7, 11, 13, 17, 19][:dims]
    out = np.empty((count, dims))
    for d, base in enumerate(primes):
        for i in range(count):
            f, r, k = 1.0, 0.0, i + 1
            while k > 0:
                f /= base
                r += f * (k % base)
                k //= base
            out[i, d] = r
    return out


def seeds(lower: np.ndarray, upper: np.ndarray, extra: list[np.ndarray]) -> np.ndarray:
    lo = np.maximum(lower, -np.pi)
    hi = np.minimum(upper, np.pi)
    grid = lo + _halton(SEEDS, 6) * (hi - lo)
    return np.vstack([*(np.asarray(e, dtype=float)[None] for e in extra), grid])


def _errors(chain: Chain, q: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    frames = chain.link_frames(q)
    flange = frames[:, 7]
    e_pos = target[:3, 3] - flange[:, :3, 3]
    e_rot = rotation_vector(target[:3, :3] @ np.swapaxes(flange[:, :3, :3], 1, 2))
    return frames, e_pos, e_rot


def solve_numeric(chain: Chain, target: np.ndarray, start: np.ndarray) -> NumericResult:
    """Minimise the weighted flange pose error from every seed in `start` (S, 6)."""
    w = ORIENTATION_WEIGHT_MM
    q = start.copy()
    frames, e_pos, e_rot = _errors(chain, q, target)
    err = np.concatenate([e_pos, w * e_rot], axis=1)
    cost = np.einsum("ni,ni->n", err, err)
    damping = np.full(len(q), 10.0)
    for _ in range(MAX_ITERATIONS):
        done = (np.linalg.norm(e_pos, axis=1) < POSITION_TOL_MM) & (np.linalg.norm(e_rot, axis=1) < ORIENTATION_TOL_RAD)
        # Only seeds still searching are iterated: one that solved the target, or whose damping no longer lets
        # it move (a local minimum, the usual end of an unreachable target's seeds), is left as it is.
        active = np.flatnonzero(~done & (damping <= 1e9))
        if not len(active):
            break
        jac = chain.jacobian(frames[active], frames[active, 7, :3, 3])
        jac[:, 3:] *= w
        jjt = jac @ np.swapaxes(jac, 1, 2) + (damping[active] ** 2)[:, None, None] * np.eye(6)
        step = np.einsum("nji,nj->ni", jac, np.linalg.solve(jjt, err[active][..., None])[..., 0])
        trial = q[active] + step
        t_frames, t_pos, t_rot = _errors(chain, trial, target)
        t_err = np.concatenate([t_pos, w * t_rot], axis=1)
        t_cost = np.einsum("ni,ni->n", t_err, t_err)
        improved = t_cost < cost[active]
        better = active[improved]
        q[better], frames[better], err[better], cost[better] = trial[improved], t_frames[improved], t_err[improved], t_cost[improved]
        e_pos[better], e_rot[better] = t_pos[improved], t_rot[improved]
        damping[active] = np.where(improved, np.maximum(damping[active] / 3.0, 1e-6), damping[active] * 4.0)
    solved = (np.linalg.norm(e_pos, axis=1) < POSITION_TOL_MM) & (np.linalg.norm(e_rot, axis=1) < ORIENTATION_TOL_RAD)
    distinct: list[np.ndarray] = []
    for candidate in wrap(q[solved]):
        if not any(np.max(np.abs(wrap(candidate - d))) < 1e-6 for d in distinct):
            distinct.append(candidate)
    best = int(np.argmin(cost))
    miss_rot = float(rotation_angle(target[:3, :3] @ frames[best, 7, :3, :3].T))
    return NumericResult(np.array(distinct).reshape(-1, 6), wrap(q[best]), float(np.linalg.norm(e_pos[best])), miss_rot)
