"""The swept-path check's independence of its batch, its cache, the followed Cartesian runs' cache and the numerical
solves' cache.

The sweep refines each motion until its segments are proven clear or short; how
far beyond the clearance a sample's distance must be exact depends on that
sample's own segments only, and the distance engine computes element-wise, so a
motion swept with others gives exactly what it gives alone — which is what lets
a swept motion be remembered and reused, and a plan's report be the same
whatever the process verified before.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from plan_verifier.collision.frames import pose_matrix
from plan_verifier.collision.scene import Obstacle, Scene
from plan_verifier.collision.shapes import Box, Cylinder
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.kinematics.arm import arm_for
from plan_verifier.kinematics.bodies import body_set
from plan_verifier.kinematics.ik_numeric import solve_numeric
from plan_verifier.motion import simulate as simulating
from plan_verifier.motion import sweep as sweeping
from plan_verifier.motion.paths import joint_at, joint_samples
from plan_verifier.pipeline import Verifier
from plan_verifier.robots.spec import load_robot

FIELDS = ("s", "q", "world", "world_target", "world_points", "own", "own_points")


@pytest.fixture(scope="module")
def arm():
    return arm_for(load_robot("ur10e"))


def _scene() -> Scene:
    """A fixture the motions below run into, and a column they pass close to."""
    return Scene(0.0, 10.0, (Obstacle("Jig", Box(300.0, 300.0, 700.0), pose_matrix([-560, -600, 350, 0, 0, 0])),
                             Obstacle("Column", Cylinder(60.0, 1500.0), pose_matrix([-500, 450, 750, 0, 0, 0]))))


def _motion(q0_deg, q1_deg):
    q0, q1 = np.radians(q0_deg), np.radians(q1_deg)
    samples = joint_samples(q0, q1)
    return samples.s, samples.q, lambda s, near: (joint_at(q0, q1, s), np.ones(len(s), dtype=bool))


MOTIONS = [
    _motion([90, -90, 90, -90, -90, 0], [-20, -60, 100, -120, -90, 0]),  # sweeps through the jig
    _motion([0, -120, 60, -30, -90, 0], [-90, -80, 90, -100, -90, 45]),  # past the column
    _motion([0, -90, 0, -90, 0, 0], [0, -90, 0, -90, 0, 0.1]),  # hardly moves
]


def _same(a, b) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.proven == b.proven


def test_a_motion_swept_with_others_gives_what_it_gives_alone(arm) -> None:
    bodies = body_set(arm, None)
    together = sweeping.sweep(_scene(), bodies, MOTIONS)
    assert (together[0].world < 0).any(), "the first motion must run into the jig"
    assert len(together[0].s) > len(MOTIONS[0][0]), "and be refined around it"
    for motion, result in zip(MOTIONS, together):
        _same(sweeping.sweep(_scene(), bodies, [motion])[0], result)


def test_a_cached_motion_is_the_motion_swept_afresh(arm) -> None:
    bodies = body_set(arm, None)
    sweeping.CACHE.clear()
    keys = [("test", i) for i in range(len(MOTIONS))]
    first = sweeping.sweep(_scene(), bodies, MOTIONS, keys)
    again = sweeping.sweep(_scene(), bodies, MOTIONS[:1] + [MOTIONS[2]], [keys[0], keys[2]])
    assert again[0] is first[0] and again[1] is first[2]
    assert not first[0].world.flags.writeable
    for fresh, cached in zip(sweeping.sweep(_scene(), bodies, MOTIONS), first):
        _same(fresh, cached)


def test_the_cache_key_holds_the_scene_the_samples_and_the_path(arm) -> None:
    bodies = body_set(arm, None)
    sweeping.CACHE.clear()
    key = ("test", "jig")
    (first,) = sweeping.sweep(_scene(), bodies, MOTIONS[:1], [key])
    moved = Scene(0.0, 10.0, (Obstacle("Jig", Box(300.0, 300.0, 700.0), pose_matrix([-540, -600, 350, 0, 0, 0])),))
    (elsewhere,) = sweeping.sweep(moved, bodies, MOTIONS[:1], [key])
    assert elsewhere is not first and float(elsewhere.world.min()) != float(first.world.min())
    s, q, at = MOTIONS[0]
    (shorter,) = sweeping.sweep(_scene(), bodies, [(s[:-1], q[:-1], at)], [key])
    assert shorter is not first


def test_a_small_cache_drops_the_least_recently_used(arm) -> None:
    bodies = body_set(arm, None)
    (result,) = sweeping.sweep(_scene(), bodies, MOTIONS[2:])
    size = sum(getattr(result, name).nbytes for name in FIELDS)
    cache = sweeping.SweepCache(limit=2 * size + 10 * len(result.q.tobytes()))
    for name in "abc":
        cache.put(("k", name, 0, result.s.tobytes(), result.q.tobytes()), result)
    assert cache.get(("k", "a", 0, result.s.tobytes(), result.q.tobytes())) is None
    assert cache.get(("k", "c", 0, result.s.tobytes(), result.q.tobytes())) is result


def test_an_unreachable_targets_miss_is_solved_once_and_is_the_solvers(arm) -> None:
    target = np.eye(4)
    target[:3, 3] = [2500.0, 0.0, 500.0]  # beyond the UR10e's 1.3 m reach
    first = arm.ik(target, np.eye(4), q_near=arm.home)
    again = arm.ik(target, np.eye(4), q_near=arm.home)
    assert not first.reachable and first.position_miss_mm > 1000.0
    assert again.closest is first.closest  # the same solve, not a second one
    direct = solve_numeric(arm.chain, target, arm._seeds(arm.home))
    assert first.position_miss_mm == direct.position_miss_mm
    np.testing.assert_array_equal(first.closest, direct.closest)


#: Contract §7's fixture cell: Fixture_1, a 200 x 300 x 250 mm box at x = 600.
FIXTURE_CELL = Path(__file__).parent / "fixtures" / "cells" / "fixture_cell.yaml"


def _plan(*targets: tuple[float, float, float]) -> str:
    moves = "".join(f"    SPAWN MoveLinear(PosX({x}, {y}, {z}, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n" for x, y, z in targets)
    return f"GOAL Execute_Process() {{\n{moves}    SPAWN End() WITH WAIT;\n}}\n"


#: R-COL-002's case: the tool runs through Fixture_1 (equally deep over 40-60 % of the second motion) ...
THROUGH = _plan((400, 0, 150), (800, 0, 150))
#: ... and plans that share its motions, swept with other motions in other batches.
SHARING = [
    _plan((400, 0, 150), (400, 0, 450), (800, 0, 450), (800, 0, 150)),
    _plan((400, 0, 150), (800, 0, 150), (800, 0, 450)),
    _plan((400, 0, 450), (400, 0, 150), (800, 0, 150), (800, 0, 300), (500, 200, 300)),
    "GOAL Execute_Process() {\n    SPAWN MoveJoint(PosJ(180, -90, 160, 90, -90, 0), 60, 60, 0, 0) WITH WAIT;\n"
    "    SPAWN MoveLinear(PosX(400, 0, 150, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n"
    "    SPAWN MoveLinear(PosX(800, 0, 150, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n",
]


def _verdict(verifier: Verifier, plan: str) -> dict:
    report = verifier.verify(plan).to_dict()
    report.pop("timings_ms")
    return report


def test_a_plan_gives_the_same_report_whatever_the_process_verified_before() -> None:
    """The report is a function of the inputs: verified first, after plans that share its motions (their swept
    results remembered from other batches), and again, it is the same to the last digit."""
    verifier = Verifier("ur10e", graph=EmbeddedGraph.from_file(str(FIXTURE_CELL)))
    _cold()
    alone = _verdict(verifier, THROUGH)
    contact = next(f for f in alone["findings"] if f["evidence"].get("object") == "Fixture_1")
    assert contact["evidence"]["fraction"] == 0.4 and contact["evidence"]["tcp_mm"] == [560.0, 0.0, 150.0]
    for order in (SHARING, SHARING[::-1]):
        _cold()
        for other in order:
            _verdict(verifier, other)
        assert _verdict(verifier, THROUGH) == alone
    assert _verdict(verifier, THROUGH) == alone  # every motion cached now


def _cold() -> None:
    sweeping.CACHE.clear()
    simulating.TRACKED.clear()


def test_the_same_linear_moves_from_another_configuration_are_followed_afresh() -> None:
    """A run of linear moves is remembered with the configuration it starts from: the same targets after a joint
    move to another configuration are followed from there (the cached run would put the arm on the other's path)."""
    verifier = Verifier("ur10e", graph=EmbeddedGraph.from_file(str(FIXTURE_CELL)))
    runs = [f"GOAL Execute_Process() {{\n    SPAWN MoveJoint(PosJ({joints}), 60, 60, 0, 0) WITH WAIT;\n"
            "    SPAWN MoveLinear(PosX(400, 0, 450, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n"
            "    SPAWN MoveLinear(PosX(700, 100, 450, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n"
            for joints in ("0, -90, 90, -90, -90, 0", "10, -80, 80, -90, -90, 0", "180, -90, 160, 90, -90, 0")]
    cold = []
    for text in runs:
        _cold()
        cold.append(_verdict(verifier, text))
    _cold()
    assert [_verdict(verifier, text) for text in runs] == cold
    assert [_verdict(verifier, text) for text in runs[::-1]] == cold[::-1]


def test_a_repairs_candidates_give_the_same_reports_after_each_other_as_verified_afresh(monkeypatch) -> None:
    """What the repair relies on for its speed (issue 15): candidates that differ in a motion or two share the other
    motions' followed Cartesian runs (`simulate.TRACKED`) and swept paths (`sweep.CACHE`), and each one's report is
    the one it gets in a process that verified nothing before, to the last digit."""
    from plan_verifier.evaluation.target_only import target_only_program
    from plan_verifier.repair import Verification, repair_plan

    spec = load_robot("ur3e")
    verifier = Verifier(spec)
    screened: list[str] = []
    screen = Verification.screen

    def recorded(self, text, plan_format="auto"):
        screened.append(text)
        return screen(self, text, plan_format)

    monkeypatch.setattr(Verification, "screen", recorded)
    _cold()
    repair_plan(target_only_program(spec, 1).text, Verification(verifier))
    assert len(screened) >= 4
    hits: list[bool] = []
    get = simulating.TRACKED.get

    def counted(key):
        found = get(key)
        hits.append(found is not None)
        return found

    monkeypatch.setattr(simulating.TRACKED, "get", counted)
    _cold()
    warm = [_verdict(verifier, text) for text in screened]
    assert sum(hits) >= 3  # runs a candidate shares with the one before
    for text, report in zip(screened, warm):
        _cold()
        assert _verdict(verifier, text) == report


def test_every_motion_of_real_plans_is_swept_alike_alone_and_in_its_batch(monkeypatch) -> None:
    """The property the cache relies on, on whole plans: each motion of every batched sweep gives, swept alone, the
    same samples and distances to the last bit (a batch of one instant once took other numpy kernels than a batch of
    many, and the last bits of equal depths decided the reported instant)."""
    batches = []
    sweep = sweeping._sweep

    def recorded(scene, bodies, paths):
        out = sweep(scene, bodies, paths)
        batches.append((scene, bodies, paths, out))
        return out

    monkeypatch.setattr(sweeping, "_sweep", recorded)
    verifier = Verifier("ur10e", graph=EmbeddedGraph.from_file(str(FIXTURE_CELL)))
    sweeping.CACHE.clear()
    for plan in [THROUGH, *SHARING]:
        verifier.verify(plan)
    swept = 0
    for scene, bodies, paths, out in batches:
        if len(paths) < 2:
            continue
        for path, together in zip(paths, out):
            _same(sweep(scene, bodies, [path])[0], together)
            swept += 1
    assert swept >= 10
