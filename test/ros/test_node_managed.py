"""The node driven as a lifecycle manager and a retrying planner drive it (issue 18), against a live ROS graph.

Each test runs the node as its own process and talks to it only through its
topics, services, parameters and lifecycle transitions. Slow verifications
are real: a large, correct program whose execution level takes seconds
(`large_plan`), never a sleep inside the node.
"""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from ros_harness import (PARAMS_FILE, NodeProcess, bring_up, change_state, example, get_state, large_plan, ros, start_node,  # noqa: F401
                         unique, verify, wait_until)

from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.msg import Transition
from plan_verifier_interfaces.msg import ApprovedActions, PlanRequest, VerificationFeedback
from plan_verifier_interfaces.srv import VerifyPlan
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import DescribeParameters, SetParameters
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from plan_verifier.ros.node import DIAGNOSTICS_NAME
from plan_verifier.serving.audit import read_records

pytestmark = pytest.mark.ros

APPROVED_TDL = example("pick_and_place.tdl")
REJECTED_TDL = example("pick_and_place_unsafe.tdl")
APPROVED_JSON = example("weld_seam_1.json")
REJECTED_JSON = example("weld_seam_5_illegal_edge.json")
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
Response = VerifyPlan.Response
#: A plan whose verification outlasts everything a test does beside it (some 40 s here; a machine 5x faster still needs 8 s).
LONGEST = large_plan(900_000)


def audit(node: NodeProcess, correlation_id: str | None = None) -> list[dict]:
    records = [r for path in sorted((node.workdir / "logs" / "verification").glob("verify_*.jsonl")) for r in read_records(path)]
    return [r for r in records if correlation_id is None or r["correlation_id"] == correlation_id]


def string_value(text: str) -> ParameterValue:
    return ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=text)


def set_parameter(ros, node: NodeProcess, name: str, value: ParameterValue):  # noqa: F811
    request = SetParameters.Request(parameters=[Parameter(name=name, value=value)])
    return ros.call(SetParameters, node.service("set_parameters"), request, server=node).results[0]


def our_status(ros, node: NodeProcess, predicate=lambda values: True, timeout: float = 30.0) -> dict[str, str]:  # noqa: F811
    """The values (and, as `message`, the summary) of this node's next /diagnostics status for which `predicate(values)` holds."""
    inbox = ros.subscribe(DiagnosticArray, "/diagnostics")

    def values(status) -> dict[str, str]:
        return {**{v.key: v.value for v in status.values}, "message": status.message}

    def ours(status) -> bool:
        return status.name == DIAGNOSTICS_NAME and values(status).get("node") == node.fqn and predicate(values(status))

    try:
        message = inbox.wait_for(lambda msg: any(ours(s) for s in msg.status), timeout)
        return next(values(s) for s in message.status if ours(s))
    finally:
        ros.node.destroy_subscription(inbox.subscription)


def verifying(values: dict[str, str]) -> bool:
    """A diagnostics predicate: a verification is running."""
    return values.get("verifying", "0") not in ("", "0")


# --------------------------------------------------------------------------- 1. refusals while inactive


def test_a_topic_request_refused_while_inactive_gets_its_feedback(ros, start_node):  # noqa: F811
    """~/plan_requests while inactive: the NOT_ACTIVE answer goes out on ~/feedback (a plain publisher, not a lifecycle one)."""
    node = start_node()
    assert change_state(ros, node, Transition.TRANSITION_CONFIGURE), node.log()
    feedback = ros.subscribe(VerificationFeedback, node.service("feedback"))
    assert feedback.wait_matched(), node.log()
    publisher = ros.node.create_publisher(PlanRequest, node.service("plan_requests"), 10)
    assert wait_until(lambda: publisher.get_subscription_count() > 0)
    cid = unique("inactive")

    def answered() -> bool:
        publisher.publish(PlanRequest(correlation_id=cid, plan=APPROVED_TDL))
        return bool(feedback.matching(lambda m: m.correlation_id == cid))

    assert wait_until(answered, timeout=30, interval=1.0), node.log()
    refusal = feedback.wait_for(lambda m: m.correlation_id == cid)
    assert (refusal.error_code, refusal.attempt, refusal.retry_allowed) == (Response.ERROR_NOT_ACTIVE, 0, True)
    assert "not active" in refusal.error_msg
    assert get_state(ros, node) == "inactive"


# --------------------------------------------------------------------------- 2. drain, then cancel


def slow_node(start_node, **overrides):  # noqa: F811
    return start_node({"drain_timeout_s": 0.5, "verify_timeout_s": 600.0, "diagnostics_period_s": 0.2, **overrides})


def test_deactivate_cancels_a_verification_that_outlasts_the_drain_timeout(ros, start_node):  # noqa: F811
    node = slow_node(start_node)
    bring_up(ros, node)
    cid = unique("slow")
    pending = ros.call_in_background(VerifyPlan, node.service("verify"), VerifyPlan.Request(correlation_id=cid, plan=LONGEST),
                                     timeout=300, server=node)
    our_status(ros, node, verifying)
    assert change_state(ros, node, Transition.TRANSITION_DEACTIVATE), node.log()
    # Success means no work is left: the cancelled request is already answered and logged.
    (record,) = audit(node, cid)
    assert (record["error_code"], record["decision"], record["attempt"]) == ("CANCELLED", "cancelled", None)
    answer = pending.result(timeout=60)
    assert (answer.error_code, answer.approved, answer.attempt, answer.correlation_id) == (Response.ERROR_CANCELLED, False, 0, cid)
    assert "drain_timeout_s" in answer.error_msg
    assert get_state(ros, node) == "inactive"
    assert verify(ros, node, APPROVED_TDL).error_code == Response.ERROR_NOT_ACTIVE
    assert change_state(ros, node, Transition.TRANSITION_ACTIVATE), node.log()
    assert verify(ros, node, APPROVED_TDL, correlation_id=cid).approved  # a cancelled request cost no attempt
    assert [r["attempt"] for r in audit(node, cid)] == [None, 1]


def test_shutdown_from_active_cancels_running_verifications_before_it_succeeds(ros, start_node):  # noqa: F811
    node = slow_node(start_node)
    bring_up(ros, node)
    cid = unique("slow-shutdown")
    pending = ros.call_in_background(VerifyPlan, node.service("verify"), VerifyPlan.Request(correlation_id=cid, plan=LONGEST),
                                     timeout=300, server=node)
    our_status(ros, node, verifying)
    assert change_state(ros, node, Transition.TRANSITION_ACTIVE_SHUTDOWN), node.log()
    assert [r["error_code"] for r in audit(node, cid)] == ["CANCELLED"]
    assert pending.result(timeout=60).error_code == Response.ERROR_CANCELLED
    assert get_state(ros, node) == "finalized"
    assert node.stop() == 0


# --------------------------------------------------------------------------- 3, 4. one approval per task, attempts counted by the node


def test_an_approved_task_is_never_approved_again(ros, start_node):  # noqa: F811
    node = start_node()
    bring_up(ros, node)
    approvals = ros.subscribe(ApprovedActions, node.service("approved_actions"), LATCHED)
    assert approvals.wait_matched(), node.log()
    cid = unique("task")
    assert not verify(ros, node, REJECTED_TDL, correlation_id=cid).approved
    approved = verify(ros, node, APPROVED_TDL, correlation_id=cid)
    assert (approved.approved, approved.attempt) == (True, 2)
    again = verify(ros, node, APPROVED_TDL, correlation_id=cid)
    assert (again.error_code, again.approved, again.attempt, again.retry_allowed) == (Response.ERROR_ALREADY_APPROVED, False, 2, False)
    assert again.sha256 == approved.sha256 and again.actions_yaml == "" and again.verdict == ""
    assert "already approved on attempt 2" in again.error_msg
    # Messages of one publisher arrive in order: once a later approval is in, a second one for `cid` would be too.
    marker = unique("marker")
    assert verify(ros, node, APPROVED_TDL, correlation_id=marker).approved
    approvals.wait_for(lambda m: m.correlation_id == marker)
    assert len(approvals.matching(lambda m: m.correlation_id == cid)) == 1
    assert [(r["decision"], r["attempt"]) for r in audit(node, cid)] == [("rejected", 1), ("approved", 2), ("already_approved", 2)]


def test_an_approved_task_stays_approved_when_the_node_is_killed_and_started_again(ros, start_node):  # noqa: F811
    """The audit log is what a restarted node knows: approved and fallback tasks stay closed."""
    node = start_node()
    bring_up(ros, node)
    cid = unique("task-8")
    approved = verify(ros, node, APPROVED_TDL, correlation_id=cid)
    assert approved.approved
    node.kill9()
    restarted = NodeProcess(node.workdir).start()  # same working directory, so the same audit log
    try:
        bring_up(ros, restarted)
        assert "recent task(s) restored" in restarted.log()
        again = verify(ros, restarted, APPROVED_TDL, correlation_id=cid)
        assert (again.error_code, again.attempt, again.sha256) == (Response.ERROR_ALREADY_APPROVED, 1, approved.sha256)
    finally:
        restarted.stop()


def test_the_node_counts_attempts_itself_whatever_the_client_claims(ros, start_node):  # noqa: F811
    node = start_node()
    bring_up(ros, node)
    fallback = ros.subscribe(VerificationFeedback, node.service("fallback"))
    assert fallback.wait_matched(), node.log()
    cid = unique("claims")
    answers = [verify(ros, node, REJECTED_TDL, correlation_id=cid, attempt=claimed) for claimed in (2, 1, 0)]
    assert [(a.attempt, a.retry_allowed) for a in answers] == [(1, True), (2, True), (3, False)]
    assert fallback.wait_for(lambda m: m.correlation_id == cid).attempt == 3
    records = audit(node, cid)
    assert [(r["attempt"], r["request"]["claimed_attempt"], r["decision"]) for r in records] == [
        (1, 2, "rejected"), (2, 1, "rejected"), (3, 0, "fallback")]
    assert f"task {cid} rejected 3 times: fallback" in node.log()


# --------------------------------------------------------------------------- 5, 6. parameters


@pytest.mark.parametrize("key, value, reason", [
    ("level", "ULTRA", "level must be one of BASIC, STANDARD, FULL, not 'ULTRA'"),
    ("profile", "lenient", "profile must be one of default, strict"),
    ("semantic_grader", "oracle", "semantic_grader must be one of"),
])
def test_an_invalid_parameter_file_stops_the_process_before_any_transition(start_node, tmp_path, key, value, reason):  # noqa: F811
    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["/**"]["ros__parameters"][key] = value
    path = tmp_path / "verifier.yaml"
    path.write_text(yaml.safe_dump(params))
    node = start_node(params_file=path)
    assert node.proc.wait(30) == 2, node.log()
    assert "verifier_node: invalid parameter" in node.log() and reason in node.log()


def test_robot_and_cell_are_read_at_configure_and_writable_only_while_unconfigured(ros, start_node):  # noqa: F811
    node = start_node({"robot": "no_such_robot"})
    described = ros.call(DescribeParameters, node.service("describe_parameters"),
                         DescribeParameters.Request(names=["robot", "cell", "graph_uri", "executor_threads"]), server=node,
                         resend_after=5.0).descriptors
    assert [d.read_only for d in described] == [False, False, False, True]
    assert not change_state(ros, node, Transition.TRANSITION_CONFIGURE)
    assert wait_until(lambda: "unknown robot 'no_such_robot'" in node.log()), node.log()

    assert set_parameter(ros, node, "robot", string_value("ur5e")).successful  # the manager fixes it and configures again
    bring_up(ros, node)
    cid = unique("ur5e")
    verify(ros, node, APPROVED_TDL, correlation_id=cid)
    assert audit(node, cid)[0]["robot"] == "ur5e"
    refused = set_parameter(ros, node, "robot", string_value("ur10e"))
    assert not refused.successful and "unconfigured" in refused.reason
    assert not set_parameter(ros, node, "cell", string_value("assembly_cell")).successful

    assert change_state(ros, node, Transition.TRANSITION_DEACTIVATE)
    assert not set_parameter(ros, node, "robot", string_value("ur10e")).successful  # inactive: still configured with ur5e
    assert change_state(ros, node, Transition.TRANSITION_CLEANUP)
    assert set_parameter(ros, node, "robot", string_value("ur10e")).successful
    assert set_parameter(ros, node, "cell", string_value("assembly_cell")).successful
    assert not set_parameter(ros, node, "graph_timeout_s", ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=-1.0)).successful
    bring_up(ros, node)
    cid = unique("assembly")
    verify(ros, node, APPROVED_TDL, correlation_id=cid)
    (record,) = audit(node, cid)
    assert record["robot"] == "ur10e" and "assembly_cell" in record["graph"]


# --------------------------------------------------------------------------- 7. a graph without the cell


def test_a_cell_fingerprint_the_graph_does_not_hold_fails_configure(ros, start_node):  # noqa: F811
    node = start_node({"graph_fingerprint": "0" * 64})
    assert not change_state(ros, node, Transition.TRANSITION_CONFIGURE)
    assert wait_until(lambda: "configure failed" in node.log() and "fingerprint" in node.log()), node.log()
    assert get_state(ros, node) == "unconfigured"


# --------------------------------------------------------------------------- 8. correlation ids of refused requests


def test_a_refused_correlation_id_is_echoed_escaped_and_cut(ros, start_node):  # noqa: F811
    node = start_node()
    bring_up(ros, node)
    bell = verify(ros, node, APPROVED_TDL, correlation_id="task\x07-8")
    assert (bell.error_code, bell.correlation_id) == (Response.ERROR_BAD_REQUEST, "task\\x07-8")
    long = verify(ros, node, APPROVED_TDL, correlation_id="t" * 129)
    assert (long.error_code, long.correlation_id) == (Response.ERROR_BAD_REQUEST, "t" * 128)
    feedback = ros.subscribe(VerificationFeedback, node.service("feedback"))
    assert feedback.wait_matched(), node.log()
    publisher = ros.node.create_publisher(PlanRequest, node.service("plan_requests"), 10)
    assert wait_until(lambda: publisher.get_subscription_count() > 0)
    raw = unique("line") + "\nbreak"

    def answered() -> bool:  # sent again until the node's reader has matched this new publisher
        publisher.publish(PlanRequest(correlation_id=raw, plan=APPROVED_TDL))
        return bool(feedback.matching(lambda m: m.error_code == Response.ERROR_BAD_REQUEST))

    assert wait_until(answered, timeout=30, interval=1.0), node.log()
    refused = feedback.wait_for(lambda m: m.error_code == Response.ERROR_BAD_REQUEST)
    assert refused.correlation_id == raw.replace("\n", "\\n")
    assert {r["correlation_id"] for r in audit(node) if r["error_code"] == "BAD_REQUEST"} == {"task\\x07-8", "t" * 128,
                                                                                                raw.replace("\n", "\\n")}


# --------------------------------------------------------------------------- 9. warm-up


def test_configure_warms_every_verifier_so_the_first_request_loads_nothing(ros, start_node):  # noqa: F811
    """With the semantic stage on (level FULL) the Korean model is loaded at configure too."""
    node = start_node({"level": "FULL"})
    bring_up(ros, node)
    assert "warmed up" in node.log() and "korean" in node.log()
    first = unique("first-tdl")
    verify(ros, node, APPROVED_TDL, correlation_id=first, instruction="피더에서 브래킷을 집어 고정구에 놓아라")
    second = unique("first-json")
    verify(ros, node, REJECTED_JSON, correlation_id=second)
    for cid in (first, second):
        (record,) = audit(node, cid)
        assert record["worker"]["verifications_before"] >= 1, record["worker"]
        assert record["worker"]["modules_loaded"] == [], record["worker"]


# --------------------------------------------------------------------------- 10. the time budget, and serving beside a large plan


def test_a_plan_over_the_time_budget_is_answered_as_too_large(ros, start_node):  # noqa: F811
    node = start_node({"verify_timeout_s": 1.0})
    bring_up(ros, node)
    cid = unique("huge")
    answer = verify(ros, node, large_plan(), correlation_id=cid, timeout=120)
    assert (answer.error_code, answer.approved, answer.attempt, answer.retry_allowed) == (Response.ERROR_TOO_LARGE, False, 0, True)
    assert "verify_timeout_s" in answer.error_msg
    assert [r["decision"] for r in audit(node, cid)] == ["too_large"]
    assert verify(ros, node, APPROVED_TDL, correlation_id=cid).approved  # the worker was replaced; no attempt was spent
    assert audit(node, cid)[-1]["attempt"] == 1


def test_other_requests_are_answered_while_a_large_plan_is_verified(ros, start_node):  # noqa: F811
    node = slow_node(start_node)
    bring_up(ros, node)
    pending = ros.call_in_background(VerifyPlan, node.service("verify"), VerifyPlan.Request(plan=LONGEST), timeout=300, server=node)
    our_status(ros, node, verifying)
    for plan, approved in ((APPROVED_TDL, True), (REJECTED_TDL, False), (APPROVED_JSON, True), (REJECTED_JSON, False)) * 2:
        answer = verify(ros, node, plan)
        assert (answer.error_code, answer.approved) == (Response.ERROR_NONE, approved)
        assert not pending.done()  # answered while the large plan is still being verified
    diagnostics = our_status(ros, node)
    assert diagnostics["verifying"] == "1" and int(diagnostics["verified"]) >= 8
    assert change_state(ros, node, Transition.TRANSITION_DEACTIVATE)
    assert pending.result(timeout=60).error_code == Response.ERROR_CANCELLED


@pytest.mark.graph_server
def test_a_graph_that_answers_without_the_cell_is_unavailable(ros, start_node, tmp_path):  # noqa: F811
    """The graph server restarted empty, then loaded with another cell: R-GRF-000 (tool_output_invalid), graph_ok false."""
    from graph_server import USER, FalkorServer

    from plan_verifier.graph.embedded import EmbeddedGraph

    server = FalkorServer(tmp_path / "falkordb").start()
    try:
        assert server.load("weld_cell").returncode == 0
        fingerprint = EmbeddedGraph.from_file("weld_cell").snapshot().fingerprint
        node = start_node({"graph_uri": server.uri, "graph_user": USER, "graph_timeout_s": 2.0, "graph_fingerprint": fingerprint,
                           "diagnostics_period_s": 0.2})
        bring_up(ros, node)
        assert verify(ros, node, APPROVED_JSON).approved

        server.stop()
        (server.workdir / "graph.rdb").unlink()
        server.start()
        empty = verify(ros, node, APPROVED_JSON)
        assert (empty.error_code, empty.approved, empty.outcome) == (Response.ERROR_NONE, False, "UNKNOWN")
        assert [f.rule_id for f in empty.findings] == ["R-GRF-000"], [f.message for f in empty.findings]
        assert "holds no cell" in empty.findings[0].message
        assert json.loads(empty.report_json)["reason_codes"] == ["tool_output_invalid"]
        down = our_status(ros, node, lambda v: v.get("graph_ok") == "false")
        assert "holds no cell" in down["message"]

        assert server.load("assembly_cell").returncode == 0
        other = verify(ros, node, APPROVED_JSON)
        assert [f.rule_id for f in other.findings] == ["R-GRF-000"] and fingerprint in other.findings[0].message

        assert server.load("weld_cell").returncode == 0
        assert wait_until(lambda: verify(ros, node, APPROVED_JSON).approved, timeout=30, interval=0.5)
        our_status(ros, node, lambda v: v.get("graph_ok") == "true")
    finally:
        server.stop()
        shutil.rmtree(tmp_path / "falkordb", ignore_errors=True)



# --------------------------------------------------------------------------- repair_rejected, a live parameter


def test_repair_rejected_is_a_live_parameter(ros, start_node):  # noqa: F811
    """A rejection's report_json carries the verified repair (contract §8) while `repair_rejected` is true; set false
    on the active node, the next rejection comes without one."""
    node = start_node()
    bring_up(ros, node)
    repaired = json.loads(verify(ros, node, REJECTED_JSON, correlation_id=unique("repair-on")).report_json)
    assert repaired["repair"]["verified"] and repaired["repair"]["plan"], repaired.get("repair")
    off = ParameterValue(type=ParameterType.PARAMETER_BOOL, bool_value=False)
    assert set_parameter(ros, node, "repair_rejected", off).successful
    plain = verify(ros, node, REJECTED_JSON, correlation_id=unique("repair-off"))
    assert not plain.approved and "repair" not in json.loads(plain.report_json)
