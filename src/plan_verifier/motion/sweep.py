"""The swept-path collision check: every instant of every motion, proven by conservative advancement.

A motion is a sampled joint path. Between two samples q_k and q_k+1 (joint
space, linearly) no point of body b can travel further than
delta_b = motion_bound(q_k, q_k+1) (`kinematics.bodies`: a true upper bound,
not an estimate). Distance to anything fixed is 1-Lipschitz in the body's
displacement, so along the segment the body is never closer than

    (d_k + d_k+1 - delta_b) / 2

to it, where d are the signed distances at the two samples (exact, or lower
bounds from the distance engine — never over-estimates). For a pair of robot
bodies only the joints between their links change their distance
(`BodySet.pair_bound`). A segment whose bound is at least the clearance is
proven clear. The robot's own links are held to no clearance, only to contact:
their capsules already enclose the links, and links pass each other closely
by design. Any other segment is split at its middle and
both halves are checked again, until every segment is proven clear, or is
shorter than `RESOLUTION_MM` of body travel — then its samples' distances are
the answer to within half that. Samples (not segments) are what gets reported:
so no contact deeper than `RESOLUTION_MM` / 2 = 0.5 mm, let alone with an
obstacle 10 mm thick, can fall between two samples.

All motions of a plan that carry the same tool are evaluated together, one
batched distance query per refinement round, which is what keeps a 100-command
program within a few milliseconds. Each motion's result depends on nothing but
the scene, the bodies and the motion itself, to the last bit: the exact-distance
cut-offs are per sample (`_cutoff`), and the distance engine's arithmetic is
element-wise (`collision.bounds`), never a kernel that rounds differently with
the number of instants in the batch. So a motion swept once is remembered
(`SweepCache`, by value: the scene's floor, clearance and obstacles, the body
set, the motion's samples and path), a replayed or retried plan's identical
motions cost nothing the second time, and what a process verified before never
changes a result (test_sweep.py checks both on whole plans).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Hashable, Sequence

import numpy as np

from plan_verifier.caching import BytesLRU
from plan_verifier.collision.scene import Body, Distances, Scene
from plan_verifier.kinematics.bodies import BodySet

#: Segments are split until no body moves more than this between two samples (mm).
RESOLUTION_MM = 1.0
#: Refinement rounds (each halves every unproven segment); 2**24 is far beyond what any motion needs.
MAX_ROUNDS = 24
#: Swept motions remembered per process, by the bytes of their arrays (a motion: 10-300 kB).
CACHE_BYTES = 64 * 2**20

#: Evaluates a motion's path at fractions s (M,), near configurations (M, 6): configurations and whether they exist.
PathAt = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True, eq=False)
class SweptPath:
    """One motion's samples after the sweep, with the distances at every sample.

    `world` (B, N): each body's signed distance to the floor/obstacles, `world_target`
    (B, N) index into `Distances.targets`; `own` (P, N): each self pair's signed distance.
    `proven` is False when some segment could not be decided within `MAX_ROUNDS`.
    """

    s: np.ndarray
    q: np.ndarray
    world: np.ndarray
    world_target: np.ndarray
    world_points: np.ndarray
    own: np.ndarray
    own_points: np.ndarray
    proven: bool


class _Open:
    """A motion being refined: sorted samples, their distances, and how to add samples."""

    def __init__(self, s: np.ndarray, q: np.ndarray, at: PathAt):
        self.s, self.q, self.at = s, q, at
        self.world = self.target = self.own = None
        self.world_points = self.own_points = None
        self.proven = True


def sweep(scene: Scene, bodies: BodySet, paths: Sequence[tuple[np.ndarray, np.ndarray, PathAt]],
          keys: Sequence[Hashable | None] | None = None) -> list[SweptPath]:
    """Sweep motions with one tool: (s (N,), q (N, 6), evaluator) each, samples sorted by s.

    `keys` (one per path) say what an evaluator computes — equal keys, equal paths between
    the samples — so that a motion already swept with the same samples, bodies and scene is
    taken from the cache; None: not cached. Cached results are read-only.
    """
    keys = [None] * len(paths) if keys is None else list(keys)
    full = [None if key is None else (scene.key, bodies, key, _bytes(s), _bytes(q)) for (s, q, _), key in zip(paths, keys)]
    out: list[SweptPath | None] = [None if key is None else CACHE.get(key) for key in full]
    todo = [i for i, found in enumerate(out) if found is None]
    for i, result in zip(todo, _sweep(scene, bodies, [paths[i] for i in todo])):
        out[i] = result
        if full[i] is not None:
            CACHE.put(full[i], result)
    return out  # type: ignore[return-value]


def _sweep(scene: Scene, bodies: BodySet, paths: Sequence[tuple[np.ndarray, np.ndarray, PathAt]]) -> list[SweptPath]:
    """The refinement itself, all motions batched round by round."""
    if not paths:
        return []
    shapes = list(bodies.scene_bodies)
    pairs = list(bodies.pairs)
    opened = [_Open(np.asarray(s, dtype=float), np.asarray(q, dtype=float), at) for s, q, at in paths]
    new = [(m, np.arange(len(m.s))) for m in opened]
    for _ in range(MAX_ROUNDS + 1):
        _evaluate(scene, bodies, shapes, pairs, new)
        splits = [(m, _unproven(m, bodies, pairs, scene.clearance_mm)) for m in opened]
        splits = [(m, k) for m, k in splits if len(k)]
        if not splits:
            break
        new = [_split(m, k) for m, k in splits]
    else:
        for m, _ in splits:
            m.proven = False
    return [SweptPath(m.s, m.q, m.world, m.target, m.world_points, m.own, m.own_points, m.proven) for m in opened]


def _evaluate(scene: Scene, bodies: BodySet, shapes: list[Body], pairs: list[tuple[int, int]],
              new: list[tuple[_Open, np.ndarray]]) -> None:
    """Distances at the new samples of every motion, in one query."""
    q = np.concatenate([m.q[idx] for m, idx in new]) if new else np.zeros((0, 6))
    if not len(q):
        return
    frames = np.swapaxes(bodies.poses(q), 0, 1)  # (B, N, 4, 4)
    cutoff = np.concatenate([_cutoff(m, idx, bodies.motion_bound) for m, idx in new], axis=1) + scene.clearance_mm
    own_cutoff = np.concatenate([_cutoff(m, idx, bodies.pair_bound) for m, idx in new], axis=1) + scene.clearance_mm
    found: Distances = scene.distances(shapes, frames, pairs, cutoff_mm=cutoff, self_cutoff_mm=own_cutoff)
    first = 0
    for m, idx in new:
        part = slice(first, first + len(idx))
        first += len(idx)
        if m.world is None:
            m.world, m.target, m.world_points = found.world_mm[:, part].copy(), found.world_target[:, part].copy(), found.world_points[:, part].copy()
            m.own, m.own_points = found.self_mm[:, part].copy(), found.self_points[:, part].copy()
            continue
        m.world[:, idx], m.target[:, idx], m.world_points[:, idx] = found.world_mm[:, part], found.world_target[:, part], found.world_points[:, part]
        m.own[:, idx], m.own_points[:, idx] = found.self_mm[:, part], found.self_points[:, part]


def _unproven(m: _Open, bodies: BodySet, pairs: list[tuple[int, int]], clearance: float) -> np.ndarray:
    """Indices k of segments (k, k+1) that are neither proven clear nor short enough."""
    if len(m.s) < 2:
        return np.zeros(0, dtype=int)
    step = bodies.motion_bound(m.q[:-1], m.q[1:])  # (N-1, B)
    world = m.world
    need = _undecided(world[:, :-1], world[:, 1:], step.T, clearance).any(axis=0)
    if pairs:
        own_step = bodies.pair_bound(m.q[:-1], m.q[1:]).T
        need |= _undecided(m.own[:, :-1], m.own[:, 1:], own_step, 0.0).any(axis=0)
    return np.flatnonzero(need)


def _undecided(d0: np.ndarray, d1: np.ndarray, step: np.ndarray, clearance: float) -> np.ndarray:
    """Per (row, segment): not yet proven at least `clearance` away (or, where both ends are already
    within the clearance, not yet proven free of contact), and the bodies still travel more than
    the resolution between the two samples."""
    floor = np.where((d0 < clearance) & (d1 < clearance), 0.0, clearance)
    settled = (d0 < 0.0) & (d1 < 0.0)  # a contact on both sides: found, nothing left to prove there
    return ((d0 + d1 - step) / 2.0 < floor) & (step > RESOLUTION_MM) & ~settled


def _split(m: _Open, segments: np.ndarray) -> tuple[_Open, np.ndarray]:
    """Insert the midpoint of every listed segment; returns the motion and the new samples' indices."""
    mid_s = (m.s[segments] + m.s[segments + 1]) / 2.0
    near = (m.q[segments] + m.q[segments + 1]) / 2.0
    q, ok = m.at(mid_s, near)
    q = np.where(ok[:, None], q, near)  # a Cartesian midpoint off its branch: the joint-space chord is what the bound covers
    order = np.argsort(np.concatenate([m.s, mid_s]), kind="stable")
    m.s = np.concatenate([m.s, mid_s])[order]
    m.q = np.concatenate([m.q, q])[order]
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    added = rank[len(order) - len(mid_s):]
    for name in ("world", "target", "world_points", "own", "own_points"):
        value = getattr(m, name)
        filler = np.zeros(value.shape[:1] + (len(mid_s),) + value.shape[2:], dtype=value.dtype)
        setattr(m, name, np.concatenate([value, filler], axis=1)[:, order])
    return m, added


def _cutoff(m: _Open, idx: np.ndarray, bound: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """(rows, len(idx)): how far beyond the clearance each new sample's distance must be exact.

    A sample's distance decides only its own two segments; a lower bound at least the
    clearance plus the travel over the longer of them decides them as well as the exact value
    would, so only below that is the exact value worth its cost. Samples of the first round
    have no neighbours evaluated yet: exact below the clearance only. Local, so that a
    motion's samples never depend on the other motions swept with it.
    """
    if m.world is None or len(m.s) < 2:
        return np.zeros((bound(m.q[:1], m.q[:1]).shape[-1], len(idx)))
    step = bound(m.q[:-1], m.q[1:])  # (N-1, rows)
    left = step[np.maximum(idx - 1, 0)]
    right = step[np.minimum(idx, len(step) - 1)]
    return np.maximum(left, right).T


def _bytes(values: np.ndarray) -> bytes:
    return np.ascontiguousarray(values, dtype=float).tobytes()


class SweepCache(BytesLRU[SweptPath]):
    """Swept motions by key, sized by their arrays (made read-only: cached values are shared)."""

    def put(self, key: Hashable, result: SweptPath) -> None:
        arrays = (result.s, result.q, result.world, result.world_target, result.world_points, result.own, result.own_points)
        for array in arrays:
            array.setflags(write=False)
        self.store(key, result, sum(a.nbytes for a in arrays) + len(key[3]) + len(key[4]))


CACHE = SweepCache(CACHE_BYTES)
