"""Collision-free joint paths for transits: OMPL's RRT-Connect against the checks' own collision model.

OMPL (the Open Motion Planning Library, MoveIt's planner; the `ompl` wheel's official
Python bindings) searches joint space between two configurations. What counts as a
collision is never OMPL's idea: a configuration is valid when `MotionModel.quick_clearance`
(the execution level's bodies — their bounding capsules —, floor, obstacles and self
pairs; a lower bound of the checks' distances) keeps the cell's clearance, and an
edge when that bound, sampled finely enough, proves the whole joint move clear
(`MotionModel.quick_move_clear`). The path found is then shortened with the checks'
own sweep (`MotionModel.joint_move_clear`), so what comes back is a path the checks
pass. The search is bounded by a number of collision checks, not by
time, so how far it goes does not depend on the machine's load. Every query starts
OMPL's random stream afresh from `SEED` (`ompl.util.RNG.setSeed` before the query's
planner is made: after the first seeds OMPL no longer changes the seed it reports,
but still restarts the generator that seeds each new planner and sampler), so a
query's path is a function of its inputs only — the same alone, after other
queries, or in a node that has served many requests.

The path is then shortened the way a robot programmer would want it: from each kept
configuration, the farthest later one that a straight joint move reaches clear is
the next (the fewest via points along the path). The repair verifies the result
with the whole pipeline before it keeps it.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np

from plan_verifier.repair.model import MotionModel, Mount

SEED = 15
#: Collision checks (configurations and edges) one query may spend.
CHECK_BUDGET = 400
#: Joint-space room around the start and goal the search may use (rad), within the joint limits.
ROOM_RAD = math.pi
#: A configuration the search keeps must clear the cell's clearance by this much (mm).
MARGIN_MM = 10.0
#: A search also stops after this long (a guard for slow machines; the check count is what normally ends it).
SEARCH_SECONDS = 1.5
#: The longest edge RRT-Connect adds (rad in joint space): short edges are cheap to check and seldom wasted.
RANGE_RAD = 0.8

_lock = threading.Lock()  # OMPL's Python callbacks and its global log/seed state: one query at a time


class PlannerUnavailable(RuntimeError):
    """The `ompl` package cannot be imported (the repair then says so; it never guesses a path)."""


def _ompl():
    """OMPL's modules, its random stream restarted from `SEED` (call with `_lock` held, right before a query's planner
    and space are made: every RNG they make draws its seed from that stream)."""
    try:
        from ompl import base as ob, geometric as og, util as ou
    except ImportError as exc:  # pragma: no cover - ompl is pinned in requirements/core.txt
        raise PlannerUnavailable(f"the motion planner (ompl) cannot be imported: {exc}") from None
    ou.setLogLevel(ou.LOG_NONE)  # also silences OMPL's "random number generation already started" on a later reseed
    ou.RNG.setSeed(SEED)
    return ob, og


class Budget:
    """Collision checks a whole repair may spend on searches (what keeps a hopeless program from taking minutes)."""

    def __init__(self, checks: int):
        self.left = checks


def plan_path(model: MotionModel, mount: Mount, q0: np.ndarray, q1: np.ndarray, *, budget: Budget | None = None) -> list[np.ndarray] | None:
    """Via configurations (rad; q0 and q1 excluded) of a collision-free joint path from q0 to q1, as few as the
    path allows; None when the search finds none within its collision checks (`CHECK_BUDGET`, and what is left
    of `budget`), or the goal is not clear."""
    q0, q1 = np.asarray(q0, dtype=float), np.asarray(q1, dtype=float)
    ends = model.clearance(mount, np.vstack([q0, q1]))
    if ends[1] < 0.0:
        return None  # the goal itself is in collision: no path helps
    if model.joint_move_clear(mount, q0, q1):
        return []
    checks = CHECK_BUDGET if budget is None else min(CHECK_BUDGET, budget.left)
    if checks <= 0:
        return None
    with _lock:
        raw, spent = _search(model, mount, q0, q1, checks)
    if budget is not None:
        budget.left -= spent
    if raw is None:
        return None
    kept = shortcut(model, mount, raw)
    return None if kept is None else kept[1:-1]


def shortcut(model: MotionModel, mount: Mount, path: list[np.ndarray]) -> list[np.ndarray] | None:
    """The fewest of `path`'s configurations (first and last kept) that straight joint moves join clear — proven by
    the checks' own sweep (None if a stretch of the path is not)."""
    kept = [path[0]]
    i = 0
    while i < len(path) - 1:
        j = len(path) - 1
        while j > i + 1 and not model.joint_move_clear(mount, path[i], path[j]):
            j -= 1
        if j == i + 1 and not model.joint_move_clear(mount, path[i], path[j]):
            return None
        kept.append(path[j])
        i = j
    return kept


def _search(model: MotionModel, mount: Mount, q0: np.ndarray, q1: np.ndarray, budget: int) -> tuple[list[np.ndarray] | None, int]:
    ob, og = _ompl()
    lo = np.maximum(model.arm.lower, np.minimum(q0, q1) - ROOM_RAD)
    hi = np.minimum(model.arm.upper, np.maximum(q0, q1) + ROOM_RAD)
    lo, hi = np.minimum(lo, np.minimum(q0, q1)), np.maximum(hi, np.maximum(q0, q1))
    space = ob.RealVectorStateSpace(6)
    bounds = ob.RealVectorBounds(6)
    for j in range(6):
        bounds.setLow(j, float(lo[j]))
        bounds.setHigh(j, float(hi[j]))
    space.setBounds(bounds)
    si = ob.SpaceInformation(space)
    spent = [0]

    def valid(state) -> bool:
        spent[0] += 1
        return bool(model.quick_clearance(mount, _vector(state))[0] >= MARGIN_MM)

    class _SweptEdge(ob.MotionValidator):
        def checkMotion(self, a, b) -> bool:  # noqa: N802 - OMPL's name
            spent[0] += 1
            return model.quick_move_clear(mount, _vector(a), _vector(b), step_mm=2 * MARGIN_MM)

    edges = _SweptEdge(si)  # held while OMPL plans: it keeps only a pointer to the Python object
    si.setStateValidityChecker(valid)
    si.setMotionValidator(edges)
    si.setup()
    start, goal = si.allocState(), si.allocState()
    for j in range(6):
        start[j], goal[j] = float(q0[j]), float(q1[j])
    problem = ob.ProblemDefinition(si)
    problem.setStartAndGoalStates(start, goal)
    planner = og.RRTConnect(si)
    planner.setRange(RANGE_RAD)
    planner.setProblemDefinition(problem)
    planner.setup()
    try:
        deadline = time.monotonic() + SEARCH_SECONDS
        solved = planner.solve(ob.PlannerTerminationCondition(lambda: spent[0] >= budget or time.monotonic() > deadline))
        if not problem.hasExactSolution():
            return None, spent[0]
        del solved
        path = problem.getSolutionPath()
        states = [_vector(path.getState(i)) for i in range(path.getStateCount())]
        del path  # a view into the problem's solution
    finally:
        planner.clear()
        problem.clearSolutionPaths()
    states[0], states[-1] = q0, q1
    return states, spent[0]


def _vector(state) -> np.ndarray:
    return np.array([state[j] for j in range(6)], dtype=float)
