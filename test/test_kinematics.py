"""Kinematics library: FK/IK round trips on every shipped robot, the controller's choice,
unreachable targets, singularities, Jacobians, joint rates, motion bounds and bodies."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import CONFIG
from plan_verifier.kinematics import UnknownToolError, arm_for
from plan_verifier.kinematics.bodies import body_set, segment_distance
from plan_verifier.kinematics.ik_numeric import ORIENTATION_TOL_RAD, POSITION_TOL_MM
from plan_verifier.kinematics.rigid import rotation_angle, wrap
from plan_verifier.motion.facts import Proximity
from plan_verifier.robots.spec import load_robot
from plan_verifier.rules.kin.r_kin_004 import singularities_near

SHIPPED = sorted(p.stem for p in (CONFIG / "robots").glob("*.yaml"))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def kinds(measures, i: int = 0) -> tuple[str, ...]:
    """The singularities configuration `i` is close to, as R-KIN-004 names them from the measures."""
    return singularities_near(Proximity.measured(measures, i, (0.0, 0.0, 0.0)))


def _config(arm, fractions):
    lo, hi = np.maximum(arm.lower, -np.pi), np.minimum(arm.upper, np.pi)
    return lo + np.array(fractions) * (hi - lo)


_FRACTIONS = st.lists(st.floats(0.0, 1.0), min_size=6, max_size=6)


def _pose_error(arm, q, target, tool=0):
    reached = arm.tcp_pose(q, tool)
    return np.linalg.norm(reached[..., :3, 3] - target[:3, 3], axis=-1), rotation_angle(
        np.swapaxes(reached[..., :3, :3], -1, -2) @ target[:3, :3])


def _regular(arm, q):
    """Away from singularities: at one, IK has a continuum of solutions (at a wrist singularity
    joints 4 and 6 trade angle freely and one representative is returned), and within
    1e-3 of one the angles are ill-conditioned beyond the 1e-6 rad comparison."""
    m = arm.singularity(q, 0)
    return m.wrist_sin[0] > 1e-3 and m.elbow_sin[0] > 1e-3 and m.shoulder_mm[0] > 1e-1


def _contains(solutions, q):
    return any(np.max(np.abs(wrap(s.q - q))) < 1e-6 for s in solutions)


def _numeric_spec(tmp_path, name="m1013", shift_mm=1.0):
    """The spec with joint 6 moved off the wrist centre: no closed form applies any more."""
    data = yaml.safe_load((CONFIG / "robots" / f"{name}.yaml").read_text(encoding="utf-8"))
    data["kinematics"]["chain"][5]["xyz_mm"][0] = shift_mm
    path = tmp_path / f"{name}_offset.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return load_robot(str(path))


# --------------------------------------------------------------------------- structure detection


def test_every_shipped_robot_has_a_closed_form():
    methods = {name: arm_for(load_robot(name)).method for name in SHIPPED}
    assert {methods[n] for n in ("ur3e", "ur5e", "ur10e", "ur16e")} == {"ur_closed_form"}
    assert {methods[n] for n in ("m1013", "h2017")} == {"spherical_wrist_closed_form"}


def test_homes_are_over_the_work_area_tool_down():
    ur10e = arm_for(load_robot("ur10e"))
    tcp = ur10e.tcp_pose(ur10e.home, 0)
    assert np.allclose(tcp[:3, 3], [691.4, 174.15, 526.85], atol=0.01)  # contract section 7
    assert np.allclose(tcp[:3, 2], [0, 0, -1])
    m1013 = arm_for(load_robot("m1013"))
    flange = m1013.frames(m1013.home)[-1]
    # Doosan: PosJ(0, 0, 90, 0, 90, 0) is posx(559, 34.5, 651.5, 0, 180, 0), read as ZYZ.
    assert np.allclose(flange, m1013.pose_matrix([559, 34.5, 651.5, 0, 180, 0]), atol=1e-9)


def test_a_chain_without_a_known_structure_gets_the_numerical_solver(tmp_path):
    assert arm_for(_numeric_spec(tmp_path)).method == "numerical"


# --------------------------------------------------------------------------- FK -> IK round trips


@pytest.mark.parametrize("name", SHIPPED)
@SETTINGS
@given(fractions=_FRACTIONS)
def test_ik_returns_the_configuration_and_only_exact_solutions(name, fractions):
    arm = arm_for(load_robot(name))
    q = _config(arm, fractions)
    assume(_regular(arm, q))
    target = arm.tcp_pose(q, 0)
    result = arm.ik(target, 0)
    assert _contains(result.solutions, q)
    pos, rot = _pose_error(arm, np.array([s.q for s in result.solutions]), target)
    assert pos.max() <= 1e-6 and rot.max() <= 1e-6
    assert len(result.solutions) <= 8


def test_numerical_solver_finds_every_branch_the_closed_form_finds(tmp_path):
    closed = arm_for(load_robot("m1013"))
    numeric = arm_for(_numeric_spec(tmp_path, shift_mm=0.0))  # same chain, but the structure is not used
    numeric.method, numeric._wrist = "numerical", None
    rng = np.random.default_rng(7)
    for _ in range(4):
        q = _config(closed, rng.random(6))
        target = closed.tcp_pose(q, 0)
        expected = closed.ik(target, 0).solutions
        found = numeric.ik(target, 0).solutions
        assert len(found) == len(expected)
        assert all(_contains(found, s.q) for s in expected)
        pos, rot = _pose_error(numeric, np.array([s.q for s in found]), target)
        assert pos.max() <= POSITION_TOL_MM and rot.max() <= ORIENTATION_TOL_RAD


def test_numerical_solver_round_trip_on_an_arm_without_closed_form(tmp_path):
    arm = arm_for(_numeric_spec(tmp_path))
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = _config(arm, rng.random(6))
        result = arm.ik(arm.tcp_pose(q, 0), 0)
        assert _contains(result.solutions, q)


def test_batch_ik_matches_single_ik():
    arm = arm_for(load_robot("ur10e"))
    rng = np.random.default_rng(5)
    qs = np.array([_config(arm, rng.random(6)) for _ in range(5)])
    q, ok = arm.ik_batch(arm.tcp_pose(qs, 0), 0)
    for i in range(5):
        single = arm.ik(arm.tcp_pose(qs[i], 0), 0).solutions
        assert ok[i].sum() == len(single)
        assert all(_contains(single, s) for s in q[i][ok[i]])


# --------------------------------------------------------------------------- limits, variants, nearest


def test_solutions_outside_the_joint_limits_are_flagged():
    arm = arm_for(load_robot("h2017"))  # J2 +-125, J3 +-160
    result = arm.ik(arm.tcp_pose(np.radians([0, 100, 30, 0, 60, 0]), 0), 0)
    flags = {tuple(np.round(np.degrees(s.q), 6)): s.within_limits for s in result.solutions}
    assert any(flags.values()) and not all(flags.values())
    for q, inside in flags.items():
        assert inside == all(j.min_deg <= v <= j.max_deg for v, j in zip(q, arm.spec.joints))


def test_variants_of_a_360_degree_joint_are_listed():
    arm = arm_for(load_robot("ur10e"))  # every joint +-360
    variants = arm.variants(np.radians([10, -20, 30, -40, 50, -60]))
    assert variants.shape == (64, 6)
    assert np.allclose(np.mod(variants - variants[0], 2 * np.pi) * (np.abs(np.mod(variants - variants[0], 2 * np.pi) - 2 * np.pi) > 1e-9), 0)


@pytest.mark.parametrize("name", SHIPPED)
@SETTINGS
@given(fractions=_FRACTIONS, noise=st.lists(st.floats(-0.02, 0.02), min_size=6, max_size=6))
def test_nearest_picks_the_configuration_it_started_next_to(name, fractions, noise):
    arm = arm_for(load_robot(name))
    q = _config(arm, fractions)
    assume(_regular(arm, q))
    result = arm.ik(arm.tcp_pose(q, 0), 0)
    # Near a singularity two branches come close; the start (at most 0.049 rad from q)
    # decides only when every other solution is more than twice that far away.
    others = [s.q for s in result.solutions if np.max(np.abs(wrap(s.q - q))) > 1e-6]
    assume(all(np.linalg.norm(wrap(o - q)) > 0.1 for o in others))
    chosen = arm.nearest(result, q + np.array(noise))
    assert chosen is not None and np.allclose(chosen, q, atol=1e-6)


def test_nearest_takes_the_2pi_variant_next_to_the_current_angle():
    arm = arm_for(load_robot("ur10e"))
    q = np.radians([170, -100, 80, -70, -90, -10])  # 170 - 360 and -10 + 360 are within +-360
    result = arm.ik(arm.tcp_pose(q, 0), 0)
    current = q + np.array([-2 * np.pi, 0, 0, 0, 0, 2 * np.pi]) + 0.01
    chosen = arm.nearest(result, current)
    assert np.allclose(chosen, q + np.array([-2 * np.pi, 0, 0, 0, 0, 2 * np.pi]), atol=1e-6)


@pytest.mark.parametrize("name", ["ur10e", "m1013"])
def test_at_a_wrist_singularity_the_current_configuration_stays_a_solution(name):
    arm = arm_for(load_robot(name))
    q = np.array([0.3, -0.2 if name == "m1013" else -1.2, 1.4, -0.8, 0.0, 0.7])
    assert kinds(arm.singularity(q, 0)) == ("wrist",)
    result = arm.ik(arm.tcp_pose(q, 0), 0, q_near=q)
    assert _contains(result.solutions, q)
    assert np.allclose(arm.nearest(result, q), q, atol=1e-6)


def test_nearest_returns_none_when_nothing_is_within_limits():
    arm = arm_for(load_robot("m1013"))  # J3 +-160
    assert arm.nearest([np.radians([0, 0, 170, 0, 0, 0])], np.zeros(6)) is None


# --------------------------------------------------------------------------- unreachable targets


def test_a_target_inside_the_reach_sphere_can_have_no_solution():
    # The case: 1,150 mm out at shoulder height, tool pointing back at the base.
    arm = arm_for(load_robot("ur10e"))
    target = arm.pose_matrix([1150, 0, 180.7, 0, -90, 0])
    assert np.allclose(target[:3, 2], [-1, 0, 0])
    assert np.linalg.norm(target[:3, 3]) < arm.spec.reach_mm
    result = arm.ik(target, 0)
    assert not result.reachable
    assert result.position_miss_mm > 100
    assert result.orientation_miss_deg < 5
    assert result.closest is not None and result.closest.shape == (6,)


def test_a_target_beyond_reach_misses_by_about_the_distance_outside():
    arm = arm_for(load_robot("ur5e"))
    result = arm.ik(arm.pose_matrix([2000, 0, 300, 180, 0, 0]), 0)
    assert not result.reachable
    flange_reach = 425 + 392.2 + 99.7  # upper arm + forearm + wrist 2 offset, tool along the line
    assert 2000 - flange_reach - 300 < result.position_miss_mm < 2000 - 425 - 392.2 + 50


# --------------------------------------------------------------------------- tools


def test_unknown_tool_number_is_an_error_not_a_default():
    arm = arm_for(load_robot("ur10e"))
    with pytest.raises(UnknownToolError, match="tool 7 is not defined"):
        arm.tcp(7)
    with pytest.raises(UnknownToolError):
        arm.ik(np.eye(4), 7)


def test_tool_tcp_shifts_the_target_along_the_flange_axis():
    arm = arm_for(load_robot("ur10e"))
    q = np.radians([180, -90, 90, -90, -90, 0])
    flange = arm.frames(q)[-1]
    tcp = arm.tcp_pose(q, 0)
    offset = arm.tcp(0)[:3, 3]
    assert np.allclose(tcp[:3, 3], flange[:3, 3] + flange[:3, :3] @ offset)


# --------------------------------------------------------------------------- Jacobian, rates, singularities


@pytest.mark.parametrize("name", ["ur10e", "m1013"])
def test_jacobian_matches_finite_differences(name):
    arm = arm_for(load_robot(name))
    q = np.radians([20, -60, 70, -40, 50, 30])
    jac = arm.jacobian(q, 0)
    h = 1e-6
    for j in range(6):
        dq = np.zeros(6)
        dq[j] = h
        plus, minus = arm.tcp_pose(q + dq, 0), arm.tcp_pose(q - dq, 0)
        assert np.allclose((plus[:3, 3] - minus[:3, 3]) / (2 * h), jac[:3, j], atol=1e-4)
        omega = plus[:3, :3] @ minus[:3, :3].T
        axis = np.array([omega[2, 1] - omega[1, 2], omega[0, 2] - omega[2, 0], omega[1, 0] - omega[0, 1]]) / 2
        assert np.allclose(axis / (2 * h), jac[3:, j], atol=1e-6)
    assert arm.jacobian(np.array([q, q]), 0).shape == (2, 6, 6)


def test_joint_rates_reproduce_the_tcp_velocity_and_explode_near_a_singularity():
    arm = arm_for(load_robot("ur10e"))
    q = np.radians([20, -60, 70, -40, 50, 30])
    v = np.array([100.0, -50.0, 20.0, 0.1, 0.0, -0.2])
    rates = arm.joint_rates(q, v, 0)
    assert np.allclose(arm.jacobian(q, 0) @ rates, v)
    near_wrist = np.radians([20, -60, 70, -40, 0.01, 30])
    assert np.max(np.abs(arm.joint_rates(near_wrist, np.array([0, 0, 0, 0.1, 0.1, 0]), 0))) > 100


def _ur_shoulder_singular(arm):
    """UR10e wrist point straight above the base axis plane: elbow bent, wrist tilted."""
    a2, a3 = -612.7, -571.55
    q2 = math.radians(-60)
    q23 = -math.acos(-a2 * math.cos(q2) / a3)
    return np.array([0.0, q2, q23 - q2, -math.pi - q23, math.radians(60), 0.0])


def test_ur_singularities_are_classified():
    arm = arm_for(load_robot("ur10e"))
    cases = {
        "wrist": np.radians([0, -80, 100, -60, 0, 0]),
        "elbow": np.radians([0, -80, 0, -60, 70, 0]),
        "shoulder": _ur_shoulder_singular(arm),
    }
    for kind, q in cases.items():
        assert kinds(arm.singularity(q, 0)) == (kind,), kind
    regular = arm.singularity(np.radians([0, -80, 100, -60, 70, 0]), 0)
    assert kinds(regular) == () and regular.sigma_min[0] > 0.05
    assert arm.singularity(cases["wrist"], 0).sigma_min[0] < 1e-9


def test_spherical_wrist_singularities_are_classified():
    arm = arm_for(load_robot("m1013"))
    assert kinds(arm.singularity(np.radians([0, 10, 80, 0, 0, 0]), 0)) == ("wrist",)
    assert kinds(arm.singularity(np.radians([0, 30, 0, 0, 60, 0]), 0)) == ("elbow",)
    assert kinds(arm.singularity(np.radians([0, 0, 90, 0, 90, 0]), 0)) == ()


def test_generic_arm_singularity_names_the_dependent_joints(tmp_path):
    arm = arm_for(_numeric_spec(tmp_path))
    measures = arm.singularity(np.radians([[0, 10, 80, 30, 0.0, 0], [0, 10, 80, 30, 60, 0]]), 0)
    assert measures.shoulder_mm is None
    assert kinds(measures, 0) == ("generic",) and kinds(measures, 1) == ()
    assert {4, 6} <= set(measures.weakest_joints[0])


def test_a_linear_move_across_the_base_axis_reveals_the_shoulder_singularity():
    # The MoveLinear from PosX(500,-300,300,180,0,0) to PosX(-500,300,300,180,0,0).
    arm = arm_for(load_robot("ur10e"))
    start = arm.pose_matrix([500, -300, 300, 180, 0, 0])
    q = arm.nearest(arm.ik(start, 0), arm.home)
    shoulder, unreachable = [], 0
    for s in np.linspace(0.0, 1.0, 101):
        target = arm.pose_matrix([500 - 1000 * s, -300 + 600 * s, 300, 180, 0, 0])
        nxt = arm.nearest(arm.ik(target, 0), q)
        if nxt is None:
            unreachable += 1
            continue
        q = nxt
        shoulder.append(arm.singularity(q, 0).shoulder_mm[0])
    assert unreachable > 0 or min(shoulder) < 50


# --------------------------------------------------------------------------- bodies and motion bounds


def test_segment_distance():
    p = np.array
    assert segment_distance(p([0, 0, 0.0]), p([10, 0, 0.0]), p([5, 5, 0.0]), p([5, 10, 0.0])) == pytest.approx(5)
    assert segment_distance(p([0, 0, 0.0]), p([10, 0, 0.0]), p([5, -5, 3.0]), p([5, 5, 3.0])) == pytest.approx(3)
    assert segment_distance(p([0, 0, 0.0]), p([0, 0, 0.0]), p([3, 4, 0.0]), p([3, 4, 0.0])) == pytest.approx(5)
    assert segment_distance(p([0, 0, 0.0]), p([10, 0, 0.0]), p([12, 0, 0.0]), p([20, 0, 0.0])) == pytest.approx(2)
    # a point (a sphere body) against a segment, in either order: the distance to the segment, not to its end
    assert segment_distance(p([0, 0, 0.0]), p([10, 0, 0.0]), p([5, 3, 0.0]), p([5, 3, 0.0])) == pytest.approx(3)
    assert segment_distance(p([5, 3, 0.0]), p([5, 3, 0.0]), p([0, 0, 0.0]), p([10, 0, 0.0])) == pytest.approx(3)


def test_segment_distance_matches_dense_sampling():
    rng = np.random.default_rng(3)
    ends = rng.normal(size=(300, 4, 3)) * 100
    ends[:50, 3] = ends[:50, 2]  # points second
    ends[50:100, 1] = ends[50:100, 0]  # points first
    got = segment_distance(ends[:, 0], ends[:, 1], ends[:, 2], ends[:, 3])
    s = np.linspace(0.0, 1.0, 301)[None, :, None]
    on_a = ends[:, None, 0] + s * (ends[:, 1] - ends[:, 0])[:, None]
    on_b = ends[:, None, 2] + s * (ends[:, 3] - ends[:, 2])[:, None]
    sampled = np.linalg.norm(on_a[:, :, None] - on_b[:, None], axis=3).min(axis=(1, 2))
    assert np.all(got <= sampled + 1e-9)
    step = (np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1) + np.linalg.norm(ends[:, 3] - ends[:, 2], axis=1)) / 300
    assert np.all(got >= sampled - step)  # the true closest points are within one sampling step of two samples


@pytest.mark.parametrize("name", SHIPPED)
def test_motion_bound_is_never_exceeded(name):
    arm = arm_for(load_robot(name))
    bodies = body_set(arm, arm.spec.tools[0].tool_shape)
    rng = np.random.default_rng(11)
    steps = np.linspace(0.0, 1.0, 401)[:, None]
    for _ in range(20):
        q0 = _config(arm, rng.random(6))
        q1 = q0 + rng.uniform(-1.5, 1.5, 6)
        path = q0 + steps * (q1 - q0)
        frames = arm.frames(path)
        bound = bodies.motion_bound(q0, q1)
        for b, body in enumerate(bodies.bodies):
            # the capsule's end points pushed out by the radius in random directions
            dirs = rng.normal(size=(6, 3))
            dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
            points = np.vstack([body.segment[i] + body.radius * dirs for i in range(2)] + [body.segment])
            frame = frames[:, body.link]
            world = np.einsum("nij,pj->npi", frame[:, :3, :3], points) + frame[:, None, :3, 3]
            travelled = np.linalg.norm(np.diff(world, axis=0), axis=2).sum(axis=0)
            assert travelled.max() <= bound[b] + 1e-6, (body.name, travelled.max(), bound[b])


def test_self_collision_pairs_exclude_neighbours_and_keep_tool_against_base():
    arm = arm_for(load_robot("ur10e"))
    bodies = body_set(arm, arm.spec.tools[0].tool_shape)
    names = [(bodies.bodies[a].name, bodies.bodies[b].name) for a, b in bodies.pairs]
    links = [(bodies.bodies[a].link, bodies.bodies[b].link) for a, b in bodies.pairs]
    assert all(abs(a - b) > 1 for a, b in links)
    assert ("base", "tool") in names
    assert all(d > 0 for d in bodies.self_distances(arm.home))


def test_the_tool_shape_sits_on_the_flange():
    arm = arm_for(load_robot("ur10e"))
    tool = [b for b in body_set(arm, arm.spec.tools[0].tool_shape).bodies if b.name == "tool"][0]
    assert tool.link == 6
    assert tool.local[2, 3] == pytest.approx(tool.shape.length / 2)
    assert body_set(arm, arm.spec.tools[0].tool_shape).poses(arm.home).shape == (len(body_set(arm, arm.spec.tools[0].tool_shape).bodies), 4, 4)


def test_tool_pointing_up_near_the_table_puts_the_wrist_under_it():
    # The PosX(400, 0, 60, 0, 0, 0) on the UR10e: the TCP is 60 mm up, the flange and
    # wrist below it, under the table.
    arm = arm_for(load_robot("ur10e"))
    q = arm.nearest(arm.ik(arm.pose_matrix([400, 0, 60, 0, 0, 0]), 0), arm.home)
    assert q is not None
    bodies = body_set(arm, arm.spec.tools[0].tool_shape)
    lowest = bodies.segments(q)[..., 2].min(axis=1) - bodies.radii
    wrist = [i for i, b in enumerate(bodies.bodies) if b.link in (5, 6) and b.name != "tool"]
    assert lowest[wrist].min() < -50
