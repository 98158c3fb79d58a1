"""The lifecycle node against a live ROS graph: the node runs as its own process."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
import yaml
from ros_harness import (EXAMPLES, NodeProcess, bring_up, change_state, example, get_state, ros, start_node, unique,  # noqa: F401
                         verify, wait_until)

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.msg import Transition
from plan_verifier_interfaces.msg import ApprovedActions, Finding as FindingMsg, PlanRequest, RobotState, VerificationFeedback
from plan_verifier_interfaces.srv import VerifyPlan
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import DescribeParameters, SetParameters
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Header

from plan_verifier.ros.node import DIAGNOSTICS_NAME
from plan_verifier.serving.audit import read_records
from plan_verifier.serving.requests import ErrorCode

pytestmark = pytest.mark.ros

APPROVED_TDL = example("pick_and_place.tdl")
REJECTED_TDL = example("pick_and_place_unsafe.tdl")
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)


@pytest.fixture(scope="module")
def node(ros, tmp_path_factory):  # noqa: F811
    """One configured and active node shared by the tests that do not change its state."""
    proc = NodeProcess(tmp_path_factory.mktemp("shared")).start()
    try:
        bring_up(ros, proc)
        yield proc
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def outputs(ros, node):  # noqa: F811
    inboxes = {
        "approved": ros.subscribe(ApprovedActions, node.service("approved_actions"), LATCHED),
        "feedback": ros.subscribe(VerificationFeedback, node.service("feedback")),
        "fallback": ros.subscribe(VerificationFeedback, node.service("fallback")),
    }
    assert all(inbox.wait_matched() for inbox in inboxes.values()), node.log()
    return inboxes


def audit(node: NodeProcess, correlation_id: str) -> list[dict]:
    records = [r for path in sorted((node.workdir / "logs" / "verification").glob("verify_*.jsonl")) for r in read_records(path)]
    return [r for r in records if r["correlation_id"] == correlation_id]


# --------------------------------------------------------------------------- lifecycle


def test_lifecycle_serves_only_while_active_and_releases_on_cleanup(ros, start_node):  # noqa: F811
    node = start_node()
    assert get_state(ros, node) == "unconfigured"
    assert change_state(ros, node, Transition.TRANSITION_CONFIGURE)
    assert get_state(ros, node) == "inactive"
    inactive = verify(ros, node, APPROVED_TDL, correlation_id="while-inactive")
    assert (inactive.error_code, inactive.approved) == (VerifyPlan.Response.ERROR_NOT_ACTIVE, False)
    assert "not active" in inactive.error_msg

    assert change_state(ros, node, Transition.TRANSITION_ACTIVATE)
    served = verify(ros, node, APPROVED_TDL)
    assert served.error_code == VerifyPlan.Response.ERROR_NONE and served.approved

    assert change_state(ros, node, Transition.TRANSITION_DEACTIVATE)
    assert verify(ros, node, APPROVED_TDL).error_code == VerifyPlan.Response.ERROR_NOT_ACTIVE

    assert change_state(ros, node, Transition.TRANSITION_CLEANUP)
    assert get_state(ros, node) == "unconfigured"
    assert "released the graph connection" in node.log()
    assert wait_until(lambda: node.service("verify") not in dict(ros.node.get_service_names_and_types_by_node("plan_verifier", node.namespace)))

    bring_up(ros, node)  # configure again after cleanup: the graph is opened anew
    assert verify(ros, node, APPROVED_TDL).approved
    assert change_state(ros, node, Transition.TRANSITION_DEACTIVATE)
    assert change_state(ros, node, Transition.TRANSITION_INACTIVE_SHUTDOWN)
    assert get_state(ros, node) == "finalized"
    assert node.stop() == 0


@pytest.mark.parametrize("overrides, reason", [
    ({"robot": "no_such_robot"}, "unknown robot 'no_such_robot'"),
    ({"cell": "/nonexistent/cell.yaml"}, "cell file not found"),
    ({"level": "EXTREME"}, None),  # refused at start, before any transition
    ({"max_plan_attempts": 0}, None),  # out of the declared range: refused at start
])
def test_configure_fails_with_the_reason_logged(ros, start_node, overrides, reason):  # noqa: F811
    node = start_node(overrides)
    if reason is None:
        assert node.proc.wait(30) == 2
        assert "invalid parameter" in node.log() and next(iter(overrides)) in node.log()
        return
    assert not change_state(ros, node, Transition.TRANSITION_CONFIGURE), node.log()
    assert get_state(ros, node) == "unconfigured", node.log()
    assert wait_until(lambda: reason in node.log()), node.log()
    assert "configure failed" in node.log()


def test_autostart_configures_and_activates(ros, start_node):  # noqa: F811
    node = start_node({"autostart": True})
    assert wait_until(lambda: "active: serving" in node.log(), 20), node.log()
    assert get_state(ros, node) == "active"
    assert verify(ros, node, APPROVED_TDL).approved


# --------------------------------------------------------------------------- verification and outputs


def test_approved_plan_answers_and_publishes_the_actions(ros, node, outputs):  # noqa: F811
    cid = unique("approve")
    response = verify(ros, node, APPROVED_TDL, correlation_id=cid)
    assert (response.error_code, response.approved, response.verdict, response.outcome) == (0, True, "PASS", "OK")
    assert (response.correlation_id, response.attempt, response.max_attempts, response.retry_allowed) == (cid, 1, 3, False)
    assert response.actions_yaml and len(response.sha256) == 64
    assert json.loads(response.report_json)["approved"] is True
    message = outputs["approved"].wait_for(lambda m: m.correlation_id == cid)
    assert (message.actions_yaml, message.sha256, message.robot, message.verdict) == (response.actions_yaml, response.sha256, "ur10e", "PASS")
    assert message.header.stamp.sec > 0
    assert wait_until(lambda: (node.workdir / "actions.yaml").read_text() == response.actions_yaml if (node.workdir / "actions.yaml").exists() else False)
    (record,) = audit(node, cid)
    assert (record["validation_result"], record["attempt"], record["step_count"], record["actions_sha256"]) == ("pass", 1, 15, response.sha256)
    assert record["report"]["verdict"] == "PASS" and record["error_details"] == []
    assert not outputs["feedback"].matching(lambda m: m.correlation_id == cid)


def test_rejected_plan_answers_with_findings_and_publishes_feedback(ros, node, outputs):  # noqa: F811
    cid = unique("reject")
    response = verify(ros, node, REJECTED_TDL, correlation_id=cid)
    assert (response.approved, response.verdict, response.level_failed, response.attempt, response.retry_allowed) == (False, "FAIL", "SAFETY", 1, True)
    assert response.actions_yaml == "" and response.sha256 == ""
    rules = {(f.rule_id, f.severity) for f in response.findings}
    assert {("R-SAF-002", FindingMsg.SEVERITY_CRITICAL), ("R-SAF-004", FindingMsg.SEVERITY_CRITICAL)} <= rules
    velocity = next(f for f in response.findings if f.rule_id == "R-SAF-002")
    assert (velocity.line, velocity.column) == (21, 56) and json.loads(velocity.evidence)
    assert "Line 21: Velocity 1500 mm/s is outside safe range [10-1000]" in response.feedback
    feedback = outputs["feedback"].wait_for(lambda m: m.correlation_id == cid)
    assert (feedback.attempt, feedback.max_attempts, feedback.retry_allowed, feedback.verdict, feedback.error_code) == (1, 3, True, "FAIL", 0)
    assert feedback.feedback == response.feedback and "R-SAF-002" in feedback.violated_constraints
    assert feedback.failure_cluster_id == json.loads(response.report_json)["failure_cluster_id"]
    assert not outputs["approved"].matching(lambda m: m.correlation_id == cid)
    (record,) = audit(node, cid)
    assert record["validation_result"] == "fail" and {d["rule_id"] for d in record["error_details"]} >= {"R-SAF-002", "R-SAF-004"}


def test_three_rejections_fire_the_fallback_and_close_the_task(ros, node, outputs):  # noqa: F811
    cid = unique("three")
    answers = [verify(ros, node, REJECTED_TDL, correlation_id=cid) for _ in range(3)]
    assert [(a.attempt, a.retry_allowed) for a in answers] == [(1, True), (2, True), (3, False)]
    fallback = outputs["fallback"].wait_for(lambda m: m.correlation_id == cid)
    assert (fallback.attempt, fallback.max_attempts, fallback.retry_allowed, fallback.verdict) == (3, 3, False, "FAIL")
    assert len([m for m in outputs["feedback"].matching(lambda m: m.correlation_id == cid)]) == 3
    fourth = verify(ros, node, APPROVED_TDL, correlation_id=cid)
    assert (fourth.error_code, fourth.approved, fourth.retry_allowed) == (ErrorCode.ATTEMPTS_EXHAUSTED, False, False)
    assert "fallback" in fourth.error_msg
    assert not outputs["approved"].matching(lambda m: m.correlation_id == cid)
    assert len(outputs["fallback"].matching(lambda m: m.correlation_id == cid)) == 1
    assert [r["error_code"] for r in audit(node, cid)] == ["NONE", "NONE", "NONE", "ATTEMPTS_EXHAUSTED"]


def test_a_repaired_plan_is_approved_within_the_budget(ros, node):  # noqa: F811
    cid = unique("repair")
    first = verify(ros, node, REJECTED_TDL, correlation_id=cid)
    second = verify(ros, node, APPROVED_TDL, correlation_id=cid)
    assert (first.approved, first.retry_allowed, second.approved, second.attempt, second.retry_allowed) == (False, True, True, 2, False)


def test_late_joining_subscriber_receives_the_last_approval(ros, node):  # noqa: F811
    cid = unique("latched")
    assert verify(ros, node, APPROVED_TDL, correlation_id=cid).approved
    late = ros.subscribe(ApprovedActions, node.service("approved_actions"), LATCHED)
    assert late.wait_for(lambda m: True).correlation_id == cid


def test_plan_requests_topic_is_served_like_the_service(ros, node, outputs):  # noqa: F811
    publisher = ros.node.create_publisher(PlanRequest, node.service("plan_requests"), 10)
    assert wait_until(lambda: publisher.get_subscription_count() > 0)
    good, bad = unique("topic-ok"), unique("topic-bad")
    publisher.publish(PlanRequest(correlation_id=good, plan=APPROVED_TDL))
    publisher.publish(PlanRequest(correlation_id=bad, plan=REJECTED_TDL))
    publisher.publish(PlanRequest(correlation_id=unique("topic-format"), plan=APPROVED_TDL, plan_format="xml"))
    assert outputs["approved"].wait_for(lambda m: m.correlation_id == good).actions_yaml
    rejected = outputs["feedback"].wait_for(lambda m: m.correlation_id == bad)
    assert rejected.verdict == "FAIL" and rejected.attempt == 1
    refused = outputs["feedback"].wait_for(lambda m: m.error_code == ErrorCode.BAD_REQUEST and m.correlation_id.startswith("topic-format"))
    assert "unknown plan_format 'xml'" in refused.error_msg and refused.attempt == 0


def test_robot_state_topic_sets_the_start_state(ros, start_node):  # noqa: F811
    """~/robot_state is remapped to the launch file's robot_state_topic; the latest message is the start state."""
    node = start_node()
    bring_up(ros, node)
    plan = example("weld_seam_1.json")  # starts with an empty wrist: it attaches the Welder
    assert verify(ros, node, plan).approved
    publisher = ros.node.create_publisher(RobotState, node.robot_state_topic, 10)
    assert wait_until(lambda: publisher.get_subscription_count() > 0)

    def rejected_while_holding() -> bool:
        publisher.publish(RobotState(position="Home", tool="Welder"))
        return not verify(ros, node, plan).approved

    assert wait_until(rejected_while_holding, timeout=15, interval=0.2)
    holding = verify(ros, node, plan)
    assert "R-GRF-006" in {f.rule_id for f in holding.findings}
    assert verify(ros, node, plan, start_tool="none").approved  # the request's fields come first


def test_joint_states_set_the_execution_levels_start(ros, start_node):  # noqa: F811
    """The latest fresh sensor_msgs/JointState (by name, in radians) is where the simulation starts; a stale one is not."""
    topic = unique("/joint_states_")
    names = ["elbow_joint", "shoulder_lift_joint", "shoulder_pan_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]
    node = start_node({"joint_states_topic": topic, "joint_states_max_age_s": 2.0,
                       "joint_state_names": "shoulder_pan_joint,shoulder_lift_joint,elbow_joint,wrist_1_joint,wrist_2_joint,wrist_3_joint"})
    bring_up(ros, node)
    publisher = ros.node.create_publisher(JointState, topic, 10)
    assert wait_until(lambda: publisher.get_subscription_count() > 0)
    degrees = {"shoulder_pan_joint": 175, "shoulder_lift_joint": -95, "elbow_joint": 95, "wrist_1_joint": -90, "wrist_2_joint": -90,
               "wrist_3_joint": 5}

    def started_there() -> bool:
        publisher.publish(JointState(header=Header(stamp=ros.node.get_clock().now().to_msg()), name=names,
                                     position=[math.radians(degrees[n]) for n in names]))
        start = json.loads(verify(ros, node, APPROVED_TDL).report_json)["execution"]["start"]
        return start["source"] == "joint_states"

    assert wait_until(started_there, timeout=15, interval=0.2), node.log()
    response = verify(ros, node, APPROVED_TDL)
    assert json.loads(response.report_json)["execution"]["start"]["joints_deg"] == pytest.approx([175, -95, 95, -90, -90, 5], abs=1e-3)
    assert yaml.safe_load(response.actions_yaml)["RobotSequence"]["verification"]["start_joints_source"] == "joint_states"
    publisher.publish(JointState(name=names[:3], position=[0.0] * 3))  # not this robot's joints: logged, ignored
    assert wait_until(lambda: "/joint_states not used" in node.log(), timeout=10), node.log()
    stale = Time(sec=ros.node.get_clock().now().nanoseconds // 10**9 - 60)
    publisher.publish(JointState(header=Header(stamp=stale), name=names, position=[0.0] * 6))
    # Without a fresh message for longer than joint_states_max_age_s the start is no longer the robot's joints.
    assert wait_until(lambda: json.loads(verify(ros, node, APPROVED_TDL).report_json)["execution"]["start"]["source"] != "joint_states",
                      timeout=15, interval=0.5)
    # A driver that leaves the header empty: the message is as fresh as its arrival.
    degrees["wrist_3_joint"] = 15

    def unstamped_used() -> bool:
        publisher.publish(JointState(name=names, position=[math.radians(degrees[n]) for n in names]))
        start = json.loads(verify(ros, node, APPROVED_TDL).report_json)["execution"]["start"]
        return start["source"] == "joint_states" and start["joints_deg"][5] == pytest.approx(15, abs=1e-3)

    assert wait_until(unstamped_used, timeout=15, interval=0.2), node.log()


def test_joint_states_replace_an_assumed_start(ros, start_node):  # noqa: F811
    """Issue 19: at Pos_1 (no taught joints) without /joint_states the start is assumed and the report warns that the
    verdict depends on it (R-KIN-010); with the robot's joint states the real configuration decides, nothing is assumed."""
    topic = unique("/joint_states_")
    names = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]
    node = start_node({"joint_states_topic": topic, "joint_states_max_age_s": 2.0})
    bring_up(ros, node)
    plan = '{"steps": [{"id": 1, "action": "move", "target": "Safe_Pos_1"}, {"id": 2, "action": "move", "target": "Home"}]}'
    fields = {"start_position": "Pos_1", "start_tool": "Welder"}
    assumed = verify(ros, node, plan, **fields)
    report = json.loads(assumed.report_json)
    assert assumed.approved and report["execution"]["start"]["assumed"] is True, report
    (warning,) = [f for f in report["findings"] if f["rule_id"] == "R-KIN-010"]
    assert "R-KIN-010" in {f.rule_id for f in assumed.findings}
    elbow_down = warning["evidence"]["rejecting"][0]["start_deg"]
    publisher = ros.node.create_publisher(JointState, topic, 10)
    assert wait_until(lambda: publisher.get_subscription_count() > 0)

    def from_the_joints():
        publisher.publish(JointState(header=Header(stamp=ros.node.get_clock().now().to_msg()), name=names,
                                     position=[math.radians(v) for v in elbow_down]))
        return verify(ros, node, plan, **fields)

    assert wait_until(lambda: json.loads(from_the_joints().report_json)["execution"]["start"]["source"] == "joint_states",
                      timeout=15, interval=0.2), node.log()
    there = from_the_joints()
    report = json.loads(there.report_json)
    assert report["execution"]["start"]["assumed"] is False and report["execution"]["start"]["joints_deg"] == pytest.approx(elbow_down, abs=1e-3)
    assert not there.approved and {(f.rule_id, f.step) for f in there.findings if f.severity == 2} == {("R-COL-002", 1), ("R-COL-003", 1)}
    assert "R-KIN-010" not in {f.rule_id for f in there.findings}


# --------------------------------------------------------------------------- faults


def test_empty_plan_is_a_fail_report(ros, node):  # noqa: F811
    response = verify(ros, node, "", correlation_id=unique("empty"))
    assert (response.error_code, response.approved, response.verdict, response.level_failed) == (0, False, "FAIL", "SYNTAX")


def test_five_mib_plan_is_a_fail_report_not_a_hang(ros, node):  # noqa: F811
    response = verify(ros, node, "// " + "x" * (5 << 20) + "\n", correlation_id=unique("huge"), timeout=60)
    assert (response.error_code, response.verdict) == (0, "FAIL")
    assert [f.rule_id for f in response.findings] == ["R-SYN-010"]


@pytest.mark.parametrize("fields, message", [
    ({"plan_format": "xml"}, "unknown plan_format"),
    ({"level": "PARANOID"}, "unknown level"),
    ({"correlation_id": "line\nbreak"}, "correlation_id"),
])
def test_malformed_requests_are_bad_requests(ros, node, fields, message):  # noqa: F811
    response = verify(ros, node, APPROVED_TDL, **fields)
    assert (response.error_code, response.approved, response.attempt) == (ErrorCode.BAD_REQUEST, False, 0)
    assert message in response.error_msg


def test_invalid_utf8_in_string_fields_never_crashes_the_node(ros, node, outputs):  # noqa: F811
    """Raw CDR with bytes that are not UTF-8: in the plan (a FAIL report) and in the correlation id (BAD_REQUEST)."""
    publisher = ros.node.create_publisher(PlanRequest, node.service("plan_requests"), 10)
    assert wait_until(lambda: publisher.get_subscription_count() > 0)
    cid = unique("utf8")
    raw = serialize_message(PlanRequest(correlation_id=cid, plan="GOAL Initialize_Process() { QQQQ }"))
    publisher.publish(raw.replace(b"QQQQ", b"\xff\xfe\xc3\x28"))
    rejected = outputs["feedback"].wait_for(lambda m: m.correlation_id == cid)
    assert rejected.verdict == "FAIL" and rejected.error_code == 0
    bad_id = "ZZ" + unique("id")
    publisher.publish(serialize_message(PlanRequest(correlation_id=bad_id, plan=APPROVED_TDL)).replace(b"ZZ", b"\xff\xfe"))
    refused = outputs["feedback"].wait_for(lambda m: m.error_code == ErrorCode.BAD_REQUEST and "not UTF-8" in m.error_msg)
    assert refused.correlation_id == "\\ufffd\\ufffd" + bad_id[2:]  # echoed escaped, so the client can match it
    assert node.alive and verify(ros, node, APPROVED_TDL).approved


# --------------------------------------------------------------------------- parameters, diagnostics, CLI


def test_parameters_are_described_validated_and_read_only_where_it_matters(ros, node):  # noqa: F811
    described = ros.call(DescribeParameters, node.service("describe_parameters"),
                         DescribeParameters.Request(names=["robot", "max_plan_attempts", "level"]), server=node,
                         resend_after=5.0).descriptors
    assert [d.read_only for d in described] == [False, False, False]  # robot: writable, but only while unconfigured
    assert all(d.description for d in described)
    assert (described[1].integer_range[0].from_value, described[1].integer_range[0].to_value) == (1, 100)

    def set_param(name, value: ParameterValue):
        return ros.call(SetParameters, node.service("set_parameters"),
                        SetParameters.Request(parameters=[Parameter(name=name, value=value)]), server=node).results[0]

    assert not set_param("robot", ParameterValue(type=ParameterType.PARAMETER_STRING, string_value="ur5e")).successful
    refused = set_param("level", ParameterValue(type=ParameterType.PARAMETER_STRING, string_value="EXTREME"))
    assert not refused.successful and "level must be one of" in refused.reason
    assert set_param("level", ParameterValue(type=ParameterType.PARAMETER_STRING, string_value="BASIC")).successful
    try:
        assert json.loads(verify(ros, node, APPROVED_TDL).report_json)["level"] == "BASIC"
    finally:
        set_param("level", ParameterValue(type=ParameterType.PARAMETER_STRING, string_value="STANDARD"))
    assert set_param("max_plan_attempts", ParameterValue(type=ParameterType.PARAMETER_INTEGER, integer_value=1)).successful
    try:
        once = verify(ros, node, REJECTED_TDL, correlation_id=unique("budget1"))
        assert (once.max_attempts, once.retry_allowed) == (1, False)
    finally:
        set_param("max_plan_attempts", ParameterValue(type=ParameterType.PARAMETER_INTEGER, integer_value=3))


def test_diagnostics_report_graph_counts_and_latency(ros, node):  # noqa: F811
    verify(ros, node, APPROVED_TDL)
    inbox = ros.subscribe(DiagnosticArray, "/diagnostics")

    def ours(msg):
        return any(s.name == DIAGNOSTICS_NAME and s.hardware_id == "ur10e" and any(v.key == "lifecycle_state" and v.value == "active" for v in s.values)
                   for s in msg.status)

    status = next(s for s in inbox.wait_for(ours, 15).status if s.name == DIAGNOSTICS_NAME)
    values = {v.key: v.value for v in status.values}
    assert status.level == b"\x00" and values["graph_ok"] == "true" and "weld_cell" in values["graph"]
    assert int(values["verified"]) >= 1 and float(values["latency_p50_ms"]) > 0


@pytest.mark.parametrize("plan, status, verdict", [("pick_and_place.tdl", 0, "PASS"), ("pick_and_place_unsafe.tdl", 1, "FAIL")])
def test_plan_verify_call_prints_the_report_like_check(node, tmp_path, plan, status, verdict):  # noqa: F811
    emitted = tmp_path / "approved.yaml"
    result = subprocess.run([sys.executable, "-m", "plan_verifier.cli.main", "call", str(EXAMPLES / plan), "--service", node.service("verify"),
                             "--format", "json", "--emit-yaml", str(emitted), "--timeout", "30"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == status, result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"] == verdict and report["path"] == str(EXAMPLES / plan)
    assert "attempt 1 of 3" in result.stderr
    assert emitted.exists() == (status == 0)


def test_plan_verify_call_without_a_node_is_a_one_line_error(tmp_path):
    result = subprocess.run([sys.executable, "-m", "plan_verifier.cli.main", "call", str(EXAMPLES / "pick_and_place.tdl"),
                             "--service", "/nobody/verify", "--timeout", "1"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().count("\n") == 0 and "not available" in result.stderr


# --------------------------------------------------------------------------- sim time


def test_stamps_follow_a_published_clock(ros, start_node):  # noqa: F811
    """With use_sim_time every stamp comes from /clock: here a simulation starting at t = 4242 s."""
    start_ns = 4242 * 10**9
    ticks = [0]

    def tick():
        ticks[0] += 1
        now = start_ns + ticks[0] * 100_000_000  # 0.1 s of simulated time every 50 ms
        clock_pub.publish(Clock(clock=Time(sec=now // 10**9, nanosec=now % 10**9)))

    clock_pub = ros.node.create_publisher(Clock, "/clock", 10)
    timer = ros.node.create_timer(0.05, tick)
    try:
        node = start_node({"use_sim_time": True})
        bring_up(ros, node)
        approved = ros.subscribe(ApprovedActions, node.service("approved_actions"), LATCHED)
        feedback = ros.subscribe(VerificationFeedback, node.service("feedback"))
        diagnostics = ros.subscribe(DiagnosticArray, "/diagnostics")
        assert feedback.wait_matched(), node.log()

        def simulated(stamp) -> bool:
            return start_ns <= stamp.sec * 10**9 + stamp.nanosec <= start_ns + 3600 * 10**9

        def approval_stamp():
            cid = unique("sim")
            assert verify(ros, node, APPROVED_TDL, correlation_id=cid).approved
            return approved.wait_for(lambda m: m.correlation_id == cid).header.stamp

        # the node needs a moment to receive /clock after configure; then every stamp is simulated
        assert wait_until(lambda: simulated(approval_stamp()), timeout=30, interval=0.2)
        cid = unique("sim-reject")
        verify(ros, node, REJECTED_TDL, correlation_id=cid)
        assert simulated(feedback.wait_for(lambda m: m.correlation_id == cid).header.stamp)
        ours = diagnostics.wait_for(lambda m: any(s.name == DIAGNOSTICS_NAME for s in m.status) and simulated(m.header.stamp), 30)
        assert ours.status[0].hardware_id == "ur10e"
        (record,) = audit(node, cid)
        assert start_ns <= record["ros_time_ns"] <= start_ns + 3600 * 10**9
    finally:
        ros.node.destroy_timer(timer)
        ros.node.destroy_publisher(clock_pub)


# --------------------------------------------------------------------------- the example planner client


def test_example_planner_repairs_within_its_budget(node):  # noqa: F811
    result = subprocess.run([sys.executable, str(EXAMPLES / "planner_client.py"), "--service", node.service("verify"),
                             str(EXAMPLES / "weld_seam_5_illegal_edge.json"), str(EXAMPLES / "weld_seam_5_repaired.json")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "attempt 1/3: FAIL" in result.stdout and "R-GRF-002 at line 10, step 6" in result.stdout
    assert "Step 6: No :ONLY_ALLOWED_MOVE_TO edge from 'Home' to 'Pos_5'" in result.stdout
    assert "attempt 2/3: PASS" in result.stdout and "approved" in result.stdout


def test_example_planner_hands_over_to_the_fallback_after_three_rejections(node, outputs):  # noqa: F811
    result = subprocess.run([sys.executable, str(EXAMPLES / "planner_client.py"), "--service", node.service("verify"),
                             str(EXAMPLES / "pick_and_place_unsafe.tdl")], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert [line.split(":")[0] for line in result.stdout.splitlines() if line.startswith("attempt")] == ["attempt 1/3", "attempt 2/3", "attempt 3/3"]
    task = result.stdout.split("no retry allowed: task ")[1].split()[0]
    assert outputs["fallback"].wait_for(lambda m: m.correlation_id == task).attempt == 3
