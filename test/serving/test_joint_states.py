"""/joint_states as the execution level's start: mapped by name, else by position, fresh only, degrees."""

from __future__ import annotations

import math

import pytest
import yaml
from conftest import ROOT

from plan_verifier.serving.joint_states import BY_NAME, BY_POSITION, JointStateError, fresh, read_joint_state
from plan_verifier.serving.requests import VerifyRequest
from plan_verifier.serving.service import VerificationService
from plan_verifier.serving.settings import Settings
from plan_verifier.serving.start_state import StartStateSource

SPEC = ("base", "shoulder", "elbow", "wrist_1", "wrist_2", "wrist_3")
UR_DRIVER = ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint")
HOME_RAD = [math.radians(v) for v in (180, -90, 90, -90, -90, 0)]


def test_names_map_to_the_spec_order_whatever_the_message_order() -> None:
    order = [2, 0, 5, 1, 4, 3]  # alphabetical in the driver, say, plus a gripper joint
    names = [UR_DRIVER[k] for k in order] + ["gripper_finger_joint"]
    reading = read_joint_state(names, [HOME_RAD[k] for k in order] + [0.02], UR_DRIVER, 7)
    assert reading.mapping == BY_NAME and reading.stamp_ns == 7
    assert reading.joints_deg == pytest.approx((180, -90, 90, -90, -90, 0))


def test_positional_only_for_an_unnamed_message_of_the_robots_size() -> None:
    unnamed = read_joint_state([], HOME_RAD, SPEC, 0)
    assert unnamed.mapping == BY_POSITION and unnamed.joints_deg == pytest.approx((180, -90, 90, -90, -90, 0))
    with pytest.raises(JointStateError, match="joint_state_names"):
        read_joint_state(UR_DRIVER, HOME_RAD, SPEC, 0)  # six names, none expected: never read by position
    with pytest.raises(JointStateError):
        read_joint_state([], HOME_RAD[:5], SPEC, 0)
    with pytest.raises(JointStateError, match="joint_state_names"):
        read_joint_state([*UR_DRIVER, "gripper"], [*HOME_RAD, 0.0], SPEC, 0)  # seven joints, none named as expected
    with pytest.raises(JointStateError, match="missing"):
        read_joint_state(["base", "shoulder", "x", "y", "z", "w"], HOME_RAD, SPEC, 0)  # some names match: never positional
    with pytest.raises(JointStateError, match="names but"):
        read_joint_state(SPEC[:5], HOME_RAD, SPEC, 0)
    with pytest.raises(JointStateError, match="finite"):
        read_joint_state(SPEC, [math.nan, *HOME_RAD[1:]], SPEC, 0)


def test_stale_readings_are_not_used() -> None:
    reading = read_joint_state(SPEC, HOME_RAD, SPEC, stamp_ns=10_000_000_000)
    assert fresh(reading, 10_500_000_000, 1.0) is reading
    assert fresh(reading, 11_000_000_001, 1.0) is None
    assert fresh(reading, 9_000_000_000, 1.0) is reading  # stamped ahead of the node's clock: not stale
    source = StartStateSource(joints_max_age_s=1.0)
    source.observe_joints(reading)
    source.observe_joints(read_joint_state(SPEC, [0.0] * 6, SPEC, stamp_ns=5_000_000_000))  # older, arrived late: ignored
    assert source.resolve(None, None, now_ns=10_200_000_000).joints_deg == pytest.approx((180, -90, 90, -90, -90, 0))
    late = source.resolve(None, None, now_ns=12_000_000_000)
    assert (late.joints_deg, late.joints_source) == (None, None)
    assert "joints_deg" not in late.to_dict()


def test_the_service_starts_the_execution_level_at_fresh_joints(tmp_path) -> None:
    settings = Settings.from_values({"audit_log_dir": str(tmp_path / "logs"), "actions_output_path": "", "cell": "",
                                     "joint_state_names": ",".join(UR_DRIVER), "joint_states_max_age_s": 0.5})
    service = VerificationService(settings)
    service.activate()
    try:
        plan = (ROOT / "examples" / "pick_and_place.tdl").read_text(encoding="utf-8")
        start = [math.radians(v) for v in (175, -95, 95, -90, -90, 5)]
        service.observe_joint_state(UR_DRIVER, start, stamp_ns=1_000_000_000)
        live = service.handle(VerifyRequest(plan=plan, correlation_id="live"), stamp_ns=1_200_000_000)
        assert live.report.execution["start"]["source"] == "joint_states"
        assert live.report.execution["start"]["joints_deg"] == pytest.approx([175, -95, 95, -90, -90, 5])
        verification = yaml.safe_load(live.actions_yaml)["RobotSequence"]["verification"]
        assert verification["start_joints_source"] == "joint_states"
        stale = service.handle(VerifyRequest(plan=plan, correlation_id="stale"), stamp_ns=2_000_000_000)
        assert stale.report.execution["start"]["source"] != "joint_states"
        with pytest.raises(JointStateError):
            service.observe_joint_state(SPEC[:3], start[:3], stamp_ns=3_000_000_000)
    finally:
        service.close()


@pytest.mark.parametrize(("robot", "driver_names"), [
    ("ur10e", ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint")),
    ("m1013", tuple(f"joint_{k}" for k in range(1, 7))),
])
def test_a_shipped_robot_reads_its_vendor_drivers_joint_states_without_configuration(tmp_path, robot, driver_names) -> None:
    settings = Settings.from_values({"audit_log_dir": str(tmp_path / "logs"), "actions_output_path": "", "cell": "", "robot": robot})
    service = VerificationService(settings)
    try:
        assert service.joint_names == driver_names
        order = sorted(range(6), key=lambda k: driver_names[k])  # the UR driver publishes sorted by name
        reading = read_joint_state([driver_names[k] for k in order], [HOME_RAD[k] for k in order], service.joint_names, 0)
        assert reading.mapping == BY_NAME and reading.joints_deg == pytest.approx((180, -90, 90, -90, -90, 0))
    finally:
        service.close()


def test_the_robots_joints_replace_an_assumed_start_and_its_alternatives(tmp_path) -> None:
    """Issue 19: without /joint_states the start at Pos_1 (no taught joints) is assumed, and the plan's verdict
    depends on which configuration of Pos_1 the arm is in (R-KIN-010); with fresh joint states the execution
    level starts at the real joints, whichever they are, and nothing is assumed or run again."""
    settings = Settings.from_values({"audit_log_dir": str(tmp_path / "logs"), "actions_output_path": "", "cell": "weld_cell",
                                     "joint_states_max_age_s": 0.5})
    service = VerificationService(settings)
    service.activate()
    plan = '{"steps": [{"id": 1, "action": "move", "target": "Safe_Pos_1"}, {"id": 2, "action": "move", "target": "Home"}]}'
    request = dict(plan=plan, start_position="Pos_1", start_tool="Welder")
    try:
        assumed = service.handle(VerifyRequest(correlation_id="assumed", **request), stamp_ns=1_000_000_000).report
        (warning,) = [f for f in assumed.findings if f.rule_id == "R-KIN-010"]
        assert assumed.approved and assumed.execution["start"] == {**assumed.execution["start"], "source": "position 'Pos_1'", "assumed": True}
        elbow_down = warning.evidence["rejecting"][0]["start_deg"]

        service.observe_joint_state(UR_DRIVER, [math.radians(v) for v in elbow_down], stamp_ns=2_000_000_000)
        there = service.handle(VerifyRequest(correlation_id="elbow-down", **request), stamp_ns=2_100_000_000)
        assert there.report.execution["start"] == {"joints_deg": pytest.approx(elbow_down, abs=1e-3), "source": "joint_states",
                                                   "assumed": False}
        assert not there.report.approved and there.actions_yaml in (None, "")
        assert {(f.rule_id, f.step) for f in there.report.findings if f.severity.name == "CRITICAL"} == {("R-COL-002", 1), ("R-COL-003", 1)}
        assert "R-KIN-010" not in {f.rule_id for f in there.report.findings}

        service.observe_joint_state(UR_DRIVER, [math.radians(v) for v in warning.evidence["assumed_deg"]], stamp_ns=3_000_000_000)
        here = service.handle(VerifyRequest(correlation_id="elbow-up", **request), stamp_ns=3_100_000_000)
        assert here.report.verdict == "PASS" and here.report.execution["start"]["source"] == "joint_states"
        assert yaml.safe_load(here.actions_yaml)["RobotSequence"]["verification"]["start_joints_source"] == "joint_states"
    finally:
        service.close()
