"""Bags of verifier traffic made by the tests themselves (no committed binaries, no ROS).

Requests are answered by the node's own serving core (`VerificationService`,
the code the ROS node calls); the outcomes become the messages the node
publishes, field for field as `plan_verifier.ros.convert` builds them, and
are written with rosbags like `plan-verify record` writes them. The ROS
round-trip test checks the same pipeline against the real node.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from plan_verifier.replay import interfaces as itf
from plan_verifier.replay.bag import BagWriter
from plan_verifier.serving.requests import VerifyRequest
from plan_verifier.serving.service import Outcome, VerificationService
from plan_verifier.serving.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
NODE = "/plan_verifier"
STATE_TOPIC = "/robot_state"
TOPICS = itf.Topics(NODE)
_SEVERITY = {"INFO": 0, "WARNING": 1, "CRITICAL": 2}


def example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


class TrafficBag:
    """Answers requests with a VerificationService and records what the node would publish."""

    def __init__(self, path: Path, workdir: Path, *, storage: str = "sqlite3", robot: str = "ur10e", cell: str = "weld_cell",
                 start_ns: int = 1_700_000_000_000_000_000, step_ns: int = 20_000_000) -> None:
        self.service = VerificationService(Settings.from_values({
            "robot": robot, "cell": cell, "audit_log_dir": str(workdir / "audit"), "actions_output_path": ""}))
        self.service.activate()
        self.writer = BagWriter(path, storage)
        for topic, typename in TOPICS.types().items():
            self.writer.add_topic(topic, typename, itf.offered_qos(transient_local=topic == TOPICS.approved_actions))
        self.writer.add_topic(STATE_TOPIC, itf.ROBOT_STATE, itf.offered_qos())
        self._now = start_ns
        self._step = step_ns
        self._sequence = 0

    def tick(self) -> int:
        self._now += self._step
        return self._now

    def robot_state(self, position: str, tool: str) -> None:
        self.service.observe_robot_state(position, tool)
        self.writer.write(STATE_TOPIC, self.tick(), itf.new(itf.ROBOT_STATE, header=_header(self._now), position=position, tool=tool))

    def topic_request(self, plan: str, **fields: Any) -> Outcome:
        stamp = self.tick()
        self.writer.write(TOPICS.plan_requests, stamp, itf.new(itf.PLAN_REQUEST, plan=plan, **fields))
        return self.service.handle(VerifyRequest(plan=plan, source="topic", **fields), stamp_ns=stamp, publish=self._publish)

    def service_request(self, plan: str, **fields: Any) -> Outcome:
        self._sequence += 1
        stamp = self.tick()
        request = itf.new(itf.VERIFY_REQUEST, plan=plan, **fields)
        self.writer.write(TOPICS.service_events, stamp, itf.new(itf.VERIFY_EVENT, info=self._info(itf.REQUEST_RECEIVED, stamp), request=[request], response=[]))
        outcome = self.service.handle(VerifyRequest(plan=plan, source="service", **fields), stamp_ns=stamp, publish=self._publish)
        stamp = self.tick()
        self.writer.write(TOPICS.service_events, stamp, itf.new(itf.VERIFY_EVENT, info=self._info(itf.RESPONSE_SENT, stamp), request=[],
                                                             response=[_response(outcome)]))
        return outcome

    def close(self) -> None:
        self.writer.close()
        self.service.close()

    def _info(self, event_type: int, stamp: int) -> Any:
        gid = np.zeros(16, dtype=np.uint8)
        gid[0] = 7
        return itf.new("service_msgs/msg/ServiceEventInfo", event_type=event_type, stamp=_time(stamp), client_gid=gid,
                       sequence_number=self._sequence)

    def _publish(self, outcome: Outcome) -> None:
        if outcome.approved:
            self.writer.write(TOPICS.approved_actions, self.tick(), itf.new(
                itf.APPROVED, header=_header(self._now), correlation_id=outcome.correlation_id, robot=self.service.robot.name,
                verdict=outcome.report.verdict, actions_yaml=outcome.actions_yaml, sha256=outcome.sha256))
        if outcome.publishes_feedback:
            self.writer.write(TOPICS.feedback, self.tick(), _feedback(outcome, self._now))
        if outcome.fallback:
            self.writer.write(TOPICS.fallback, self.tick(), _feedback(outcome, self._now))


def _time(ns: int) -> Any:
    return itf.new("builtin_interfaces/msg/Time", sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def _header(ns: int) -> Any:
    return itf.new("std_msgs/msg/Header", stamp=_time(ns))


def _findings(outcome: Outcome) -> list[Any]:
    out = []
    for f in outcome.report.findings:
        span = f.span
        out.append(itf.new(itf.FINDING, rule_id=f.rule_id, severity=_SEVERITY[f.severity.value], category=f.category.value, message=f.message,
                           line=span.line if span else 0, column=span.column if span else 0, end_line=span.end_line if span else 0,
                           end_column=span.end_column if span else 0, step=f.step or 0, suggestion=f.suggestion or "",
                           evidence=json.dumps(dict(f.evidence), ensure_ascii=False, default=str)))
    return out


def _feedback(outcome: Outcome, ns: int) -> Any:
    fields: dict[str, Any] = dict(header=_header(ns), correlation_id=outcome.correlation_id, attempt=outcome.attempt.number if outcome.attempt else 0,
                                  max_attempts=outcome.max_attempts, retry_allowed=outcome.retry_allowed, error_code=int(outcome.error_code),
                                  error_msg=outcome.error_msg, verdict="FAIL", outcome="UNKNOWN")
    report = outcome.report
    if report is not None:
        fields.update(verdict=report.verdict, outcome=report.outcome, level_failed=report.level_failed or "", findings=_findings(outcome),
                      feedback=outcome.feedback, reason_codes=list(report.reason_codes), violated_constraints=list(report.violated_constraints),
                      failure_cluster_id=report.failure_cluster_id, report_json=outcome.report_json)
    return itf.new(itf.FEEDBACK, **fields)


def _response(outcome: Outcome) -> Any:
    fields: dict[str, Any] = dict(correlation_id=outcome.correlation_id, approved=outcome.approved, attempt=outcome.attempt.number if outcome.attempt else 0,
                                  max_attempts=outcome.max_attempts, retry_allowed=outcome.retry_allowed, error_code=int(outcome.error_code),
                                  error_msg=outcome.error_msg)
    report = outcome.report
    if report is not None:
        fields.update(verdict=report.verdict, outcome=report.outcome, score=float(report.score), level_failed=report.level_failed or "",
                      findings=_findings(outcome), feedback=outcome.feedback, report_json=outcome.report_json)
    if outcome.approved:
        fields.update(actions_yaml=outcome.actions_yaml, sha256=outcome.sha256)
    return itf.new(itf.VERIFY_RESPONSE, **fields)


# A job at Pos_1 that needs the Welder in hand: approved only when the recorded robot state says so.
WELD_AT_POS_1 = json.dumps({"name": "Tack weld at Pos_1", "steps": [
    {"id": 1, "name": "Tack Weld at Pos_1", "action": "routine", "target": "tack_weld", "position": "Pos_1", "stabilize": 1.5}]})


def standard_traffic(bag: TrafficBag) -> None:
    """Approvals, a rejection then a repair, a task that exhausts its three attempts, a bad request,
    a request without correlation id, and one whose start state comes from ~/robot_state."""
    bag.topic_request(example("weld_seam_1.json"), correlation_id="weld-1")
    bag.topic_request(example("weld_seam_5_illegal_edge.json"), correlation_id="weld-5")
    bag.topic_request(example("weld_seam_5_repaired.json"), correlation_id="weld-5")
    for _ in range(4):
        bag.service_request(example("pick_and_place_unsafe.tdl"), correlation_id="unsafe")
    bag.service_request(example("pick_and_place.tdl"), correlation_id="pick")
    bag.topic_request(example("pick_and_place.tdl"), level="EXTREME", correlation_id="bad-level")
    bag.topic_request(example("pick_and_place.tdl"))
    bag.robot_state("Pos_1", "Welder")
    bag.topic_request(WELD_AT_POS_1, correlation_id="from-state")


#: What standard_traffic's requests are answered with, in bag order.
STANDARD_STATUSES = ["PASS", "FAIL", "PASS", "FAIL", "FAIL", "FAIL", "ATTEMPTS_EXHAUSTED", "PASS", "BAD_REQUEST", "PASS", "PASS"]


def make_bag(path: Path, workdir: Path, storage: str = "sqlite3") -> Path:
    bag = TrafficBag(path, workdir, storage=storage)
    try:
        standard_traffic(bag)
    finally:
        bag.close()
    return path
