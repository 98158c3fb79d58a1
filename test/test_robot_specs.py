"""Robot specs: every shipped spec loads, bad specs fail naming the field, and
forward kinematics matches flange positions worked out by hand.

The expected flange positions below are derived on paper from the vendors'
published tables (UR DH parameters, Doosan URDF joint origins), not computed
with the code under test; each derivation is written next to its numbers.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from conftest import CONFIG
from plan_verifier.kinematics.chain import flange_position
from plan_verifier.kinematics.bodies import body_set
from plan_verifier.resources import ConfigError
from plan_verifier.robots.spec import load_robot

SHIPPED = sorted(p.stem for p in (CONFIG / "robots").glob("*.yaml"))

# UR e-series standard DH from Universal Robots' published table (mm).
UR_DH = {
    "ur3e": {"d1": 151.85, "a2": -243.55, "a3": -213.2, "d4": 131.05, "d5": 85.35, "d6": 92.1},
    "ur5e": {"d1": 162.5, "a2": -425.0, "a3": -392.2, "d4": 133.3, "d5": 99.7, "d6": 99.6},
    "ur10e": {"d1": 180.7, "a2": -612.7, "a3": -571.55, "d4": 174.15, "d5": 119.85, "d6": 116.55},
    "ur16e": {"d1": 180.7, "a2": -478.4, "a3": -360.0, "d4": 174.15, "d5": 119.85, "d6": 116.55},
}


def _close(actual, expected, tol=1e-6):
    assert actual is not None
    assert all(math.isclose(a, e, abs_tol=tol) for a, e in zip(actual, expected)), f"{actual} != {expected}"


# --------------------------------------------------------------------------- shipped specs


def test_the_brief_robots_are_shipped():
    assert {"ur3e", "ur5e", "ur10e", "ur16e", "m1013", "h2017"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_spec_loads_with_limits_for_six_joints(name):
    spec = load_robot(name)
    assert spec.name == name
    assert len(spec.joints) == 6
    for joint in spec.joints:
        assert joint.min_deg < 0 < joint.max_deg, joint
    assert spec.kinematics is not None, "every shipped robot has published kinematics"
    assert spec.sources, "every number needs a source"
    assert spec.reach_mm > 0 and spec.rated_payload_kg > 0
    assert spec.limits.velocity_mm_s.max == 1000 and spec.limits.z.min_mm == 0  # seed 000 defaults


def test_published_reach_and_payload():
    expected = {"ur3e": (500, 3), "ur5e": (850, 5), "ur10e": (1300, 12.5), "ur16e": (900, 16),
                "m1013": (1300, 10), "h2017": (1700, 20)}
    for name, (reach, payload) in expected.items():
        spec = load_robot(name)
        assert (spec.reach_mm, spec.rated_payload_kg) == (reach, payload), name


def test_orientation_conventions():
    assert {load_robot(n).orientation_convention for n in ("ur3e", "ur5e", "ur10e", "ur16e")} == {"rpy"}
    assert {load_robot(n).orientation_convention for n in ("m1013", "h2017")} == {"zyz"}


def test_ur3e_wrist_3_is_unlimited_and_others_are_not():
    assert load_robot("ur3e").joints[5].max_deg == math.inf
    assert load_robot("ur5e").joints[5].max_deg == 360


def test_load_by_path(tmp_path):
    path = tmp_path / "copy.yaml"
    path.write_text((CONFIG / "robots" / "ur5e.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    assert load_robot(str(path)).model == "UR5e"


def test_unknown_robot_name_lists_the_known_ones():
    with pytest.raises(ConfigError, match="unknown robot 'ur99'.*ur10e"):
        load_robot("ur99")


# --------------------------------------------------------------------------- bad specs


def _base() -> dict:
    return yaml.safe_load((CONFIG / "robots" / "ur5e.yaml").read_text(encoding="utf-8"))


def _write(tmp_path: Path, data: dict) -> str:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return str(path)


def _mutate(key_path, value):
    def apply(data):
        target = data
        for key in key_path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[key_path[-1]]
        else:
            target[key_path[-1]] = value
        return data
    return apply


_DELETE = object()

BAD_SPECS = {
    "wrong_type": (_mutate(["reach_mm"], "far"), r"reach_mm: Input should be a valid number"),
    "missing_field": (_mutate(["reach_mm"], _DELETE), r"reach_mm: Field required"),
    "five_joints": (lambda d: {**d, "joints": d["joints"][:5]}, r"joints: List should have at least 6 items"),
    "seven_joints": (lambda d: {**d, "joints": d["joints"] + d["joints"][:1]}, r"joints: List should have at most 6 items"),
    "min_above_max": (_mutate(["joints", 2, "min_deg"], 400), r"joints\.2: Value error, min_deg must be below max_deg"),
    "nan_limit": (_mutate(["joints", 1, "max_deg"], float("nan")), r"joints\.1: Value error, min_deg and max_deg must be numbers"),
    "unknown_key": (lambda d: {**d, "colour": "blue"}, r"colour: Extra inputs are not permitted"),
    "unknown_limit_key": (_mutate(["limits"], {"velocity": 5}), r"limits\.velocity: Extra inputs are not permitted"),
    "negative_reach": (_mutate(["reach_mm"], -1), r"reach_mm: Input should be greater than 0"),
    "infinite_reach": (_mutate(["reach_mm"], float("inf")), r"reach_mm: Input should be a finite number"),
    "five_dh_rows": (lambda d: {**d, "kinematics": {**d["kinematics"], "dh": d["kinematics"]["dh"][:5]}},
                     r"kinematics\.dh: Tuple should have at least 6 items"),
    "dh_and_chain": (lambda d: {**d, "kinematics": {**d["kinematics"], "chain": [{"xyz_mm": [0, 0, 0], "rpy_deg": [0, 0, 0]}] * 6}},
                     r"kinematics: Value error, give exactly one of dh or chain"),
    "chain_axis_not_unit": (lambda d: {**d, "kinematics": {"source": "x", "chain": [{"xyz_mm": [0, 0, 0], "rpy_deg": [0, 0, 0], "axis": [0, 0, 2]}] * 6}},
                            r"kinematics\.chain\.0: Value error, axis must be a unit vector"),
    "gripper_polarity": (_mutate(["gripper"], {"port": 1, "close_value": 2}), r"gripper\.close_value: Input should be 0 or 1"),
    "recommended_outside_hard_range": (_mutate(["limits"], {"velocity_mm_s": {"min": 10, "max": 100, "recommended_min": 50, "recommended_max": 500}}),
                                       r"limits\.velocity_mm_s: Value error, need min <= recommended_min"),
    "home_five_angles": (_mutate(["home_joints_deg"], [0, 0, 0, 0, 0]), r"home_joints_deg\.5: Field required"),
    "home_outside_limits": (_mutate(["home_joints_deg"], [0, 400, 0, 0, 0, 0]),
                            r"home_joints_deg: Value error, joint 2 at 400\.0 is outside \[-360\.0, 360\.0\]"),
    "negative_tool_number": (_mutate(["tools", -1], {"tcp": [0] * 6}), r"tools\.-1\.\[key\]: Input should be greater than or equal to 0"),
    "tcp_three_values": (_mutate(["tools", 0, "tcp"], [0, 0, 1]), r"tools\.0\.tcp\.3: Field required"),
    "cylinder_without_length": (_mutate(["tools", 0, "shape"], {"type": "cylinder", "radius_mm": 40}),
                                r"tools\.0\.shape\.cylinder\.length_mm: Field required"),
    "sphere_with_length": (_mutate(["tools", 0, "shape"], {"type": "sphere", "radius_mm": 40, "length_mm": 5}),
                           r"tools\.0\.shape\.sphere\.length_mm: Extra inputs are not permitted"),
    "unknown_shape": (_mutate(["tools", 0, "shape"], {"type": "cone", "radius_mm": 40}), r"tools\.0\.shape: Input tag 'cone' found using 'type' does not match"),
    "five_link_radii": (_mutate(["collision_model"], {"link_radii_mm": [90, 75, 65, 50, 50]}),
                        r"collision_model\.link_radii_mm: Tuple should have at least 6 items"),
    "capsule_on_link_7": (_mutate(["collision_model", "links", 0, "link"], 7), r"collision_model\.links\.0\.link: Input should be less than or equal to 6"),
    "zero_capsule_radius": (_mutate(["collision_model", "links", 0, "radius_mm"], 0),
                            r"collision_model\.links\.0\.radius_mm: Input should be greater than 0"),
    "link_without_capsule": (lambda d: {**d, "collision_model": {"links": [c for c in d["collision_model"]["links"] if c["link"] != 6]}},
                             r"collision_model: Value error, links has no capsule for link\(s\) \[6\]"),
    "radii_and_capsules": (_mutate(["collision_model", "link_radii_mm"], [90, 75, 65, 50, 50, 45]),
                           r"collision_model: Value error, give one of link_radii_mm, links or geometry"),
}


@pytest.mark.parametrize("case", sorted(BAD_SPECS))
def test_bad_spec_fails_naming_the_field(tmp_path, case):
    mutate, message = BAD_SPECS[case]
    path = _write(tmp_path, mutate(_base()))
    with pytest.raises(ConfigError, match=message):
        load_robot(path)


def test_not_a_mapping_and_not_yaml(tmp_path):
    listing = tmp_path / "list.yaml"
    listing.write_text("- ur5e\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="expected a mapping"):
        load_robot(str(listing))
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid robot spec .*broken.yaml"):
        load_robot(str(broken))


# --------------------------------------------------------------------------- forward kinematics


@pytest.mark.parametrize("name", sorted(UR_DH))
def test_ur_zero_configuration(name):
    # All joints 0: the arm lies along the base x axis (a2, a3 are negative), the two
    # wrist offsets d4 and d6 point along -y, d5 points down from the shoulder height d1.
    p = UR_DH[name]
    expected = (p["a2"] + p["a3"], -(p["d4"] + p["d6"]), p["d1"] - p["d5"])
    _close(flange_position(load_robot(name), (0, 0, 0, 0, 0, 0)), expected)


@pytest.mark.parametrize("name", sorted(UR_DH))
def test_ur_upright_configuration(name):
    # (0, -90, 0, -90, 0, 0): shoulder and forearm point straight up (height d1 - a2 - a3),
    # wrist 1 turns the wrist so that d5 also points up; d4 and d6 stay along -y.
    p = UR_DH[name]
    expected = (0.0, -(p["d4"] + p["d6"]), p["d1"] - p["a2"] - p["a3"] + p["d5"])
    _close(flange_position(load_robot(name), (0, -90, 0, -90, 0, 0)), expected)


def test_ur5e_zero_configuration_matches_the_known_pose():
    # The UR5e zero pose reported by the controller: (-817.2, -232.9, 62.8) mm.
    _close(flange_position(load_robot("ur5e"), (0, 0, 0, 0, 0, 0)), (-817.2, -232.9, 62.8))


def test_ur10e_doosan_style_home_points_into_the_table():
    # (0, 0, 90, 0, 90, 0) on a UR10e: upper arm along -x (a2), elbow 90 turns the forearm
    # down (a3 < 0 along +z means down), d4 along -y, wrist 2 at 90 puts d5 along +x and
    # d6 down: (a2 + d5, -d4, d1 + a3 - d6) = (-492.85, -174.15, -507.4).
    _close(flange_position(load_robot("ur10e"), (0, 0, 90, 0, 90, 0)), (-492.85, -174.15, -507.4))


def test_m1013_chain_zero_and_home():
    # URDF joint origins: J1 at z 152.5; J2 offset 34.5 along y; links 620 and 559 and a
    # 121 mm wrist. At zero the arm stands straight up; at (0, 0, 90, 0, 90, 0) the forearm
    # is horizontal along +x and the wrist points down: z = 152.5 + 620 - 121.
    m1013 = load_robot("m1013")
    _close(flange_position(m1013, (0, 0, 0, 0, 0, 0)), (0.0, 34.5, 152.5 + 620 + 559 + 121))
    _close(flange_position(m1013, (0, 0, 90, 0, 90, 0)), (559.0, 34.5, 651.5))  # Doosan's posx(559, 34.5, 651.5, 0, 180, 0)
    _close(flange_position(m1013, (90, 0, 90, 0, 90, 0)), (-34.5, 559.0, 651.5))  # J1 turns the same pose about z


def test_h2017_chain_home_and_stretched():
    # Links 845 and 734, wrist 121, shoulder at 344.3, offset 9.9. J2 and J3 turn about
    # parallel axes, and a positive J3 tips the forearm towards +x (the home pose), so a
    # positive J2 tips the straight arm towards +x: stretched horizontally at shoulder
    # height, the link lengths add up to the published 1700 mm reach.
    h2017 = load_robot("h2017")
    _close(flange_position(h2017, (0, 0, 90, 0, 90, 0)), (734.0, 9.9, 344.3 + 845 - 121))
    _close(flange_position(h2017, (0, 90, 0, 0, 0, 0)), (845 + 734 + 121, 9.9, 344.3))
    _close(flange_position(h2017, (0, -90, 0, 0, 0, 0)), (-1700.0, 9.9, 344.3))


def test_no_kinematics_and_non_finite_angles_give_no_position(tmp_path):
    data = _base()
    del data["kinematics"]
    spec = load_robot(_write(tmp_path, data))
    assert flange_position(spec, (0, 0, 0, 0, 0, 0)) is None
    assert flange_position(load_robot("ur5e"), (0, 0, math.inf, 0, 0, 0)) is None


def test_execution_level_fields_have_documented_defaults(tmp_path):
    data = _base()
    for key in ("collision_model", "tools", "home_joints_deg"):
        del data[key]
    spec = load_robot(_write(tmp_path, data))
    assert spec.home_joints_deg == (0, 0, 0, 0, 0, 0)
    assert list(spec.tools) == [0] and spec.tools[0].tcp == (0, 0, 0, 0, 0, 0) and spec.tools[0].shape is None
    from plan_verifier.kinematics import arm_for

    bodies = body_set(arm_for(spec), spec.tools[0].tool_shape)
    assert [b.link for b in bodies.bodies] == [1, 2, 3, 4, 5, 6]
    assert [b.radius for b in bodies.bodies] == pytest.approx([0.06 * 850, 0.05 * 850, 0.045 * 850, 0.035 * 850, 0.035 * 850, 0.03 * 850])
    lowest = bodies.segments(arm_for(spec).home)[..., 2].min(axis=1) - bodies.radii
    assert lowest.min() >= -1e-9, "the default capsules stay above the mounting plane"


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_specs_define_tool_0_home_and_capsules_for_every_link(name):
    spec = load_robot(name)
    assert 0 in spec.tools and spec.tools[0].shape is not None
    assert {c.link for c in spec.collision_model.links} == {0, 1, 2, 3, 4, 5, 6}
    assert any("collision model" in s for s in spec.sources) and any("home" in s for s in spec.sources)


def test_chain_joint_about_another_axis(tmp_path):
    # Joint 1 turns about y; the flange sits 100 mm along x from it. A right-handed
    # quarter turn about y takes +x to -z.
    data = _base()
    data["kinematics"] = {"source": "test", "chain": [
        {"xyz_mm": [0, 0, 0], "rpy_deg": [0, 0, 0], "axis": [0, 1, 0]},
        {"xyz_mm": [100, 0, 0], "rpy_deg": [0, 0, 0]},
        *[{"xyz_mm": [0, 0, 0], "rpy_deg": [0, 0, 0]}] * 4]}
    spec = load_robot(_write(tmp_path, data))
    _close(flange_position(spec, (90, 0, 0, 0, 0, 0)), (0.0, 0.0, -100.0))
    _close(flange_position(spec, (0, 0, 0, 0, 0, 0)), (100.0, 0.0, 0.0))
