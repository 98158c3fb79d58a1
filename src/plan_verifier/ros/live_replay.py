"""`plan-verify replay --live`: feed recorded requests to a running node and record what it answers.

Robot states and requests go out in bag order at their recorded pacing (or
at `rate` requests per second, each robot state right after the request
before it and the request after a state no sooner than recorded, since the
node sees the two on separate channels): ~/plan_requests messages are published, VerifyPlan calls are
called. Like the planner that made the recording, a request waits until the
requests before it with the same correlation id have been answered, so the
node numbers attempts as it did then; and a robot state waits until the
node has given every answer the recording holds before it, so a state never
overtakes a verification it did not start (the execution level starts where
the start state says, and the approved joint targets depend on it). The node's outputs are recorded into
a new bag from the moment the first request leaves (an approval latched
before that belongs to no request), together with the requests and robot
states sent, so the new bag can be replayed offline in turn.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plan_verifier_interfaces.msg import PlanRequest, RobotState
from plan_verifier_interfaces.srv import VerifyPlan
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from rclpy.task import Future
from std_msgs.msg import Header

from plan_verifier.replay import interfaces as itf
from plan_verifier.replay.bag import BagWriter
from plan_verifier.replay.traffic import RecordedRequest, RobotStateSample, Traffic
from plan_verifier.ros import qos
from plan_verifier.ros.bag_recorder import BagRecorder, verifier_topics
from plan_verifier.ros.session import spinning_node
from plan_verifier.serving.requests import safe_correlation_id

_PUBLISH_QOS = QoSProfile(depth=1000, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.VOLATILE)
#: After the node's publishers are matched: time for a latched approval to arrive (it is not recorded).
_SETTLE_S = 0.3


class LiveReplayError(Exception):
    """The node could not be reached; one line for the user."""


@dataclass
class LiveResult:
    sent: int = 0
    states: int = 0
    responses: list[Any] = field(default_factory=list)  # VerifyPlan responses, in the order the calls were sent
    notes: list[str] = field(default_factory=list)


def live_replay(traffic: Traffic, *, output: Path, storage: str, rate: float | None, timeout: float) -> LiveResult:
    topics = traffic.contents.topics
    state_topic = traffic.contents.robot_state_topic
    writer = BagWriter(output, storage)
    try:
        with spinning_node("plan_verify_replay") as node:
            recorder = BagRecorder(node, writer)
            recorder.recording.clear()
            for item in verifier_topics(topics, None, requests=False):
                recorder.record(item)
            writer.add_topic(topics.plan_requests, itf.PLAN_REQUEST, itf.offered_qos(depth=1000))
            requests_pub = node.create_publisher(PlanRequest, topics.plan_requests, _PUBLISH_QOS)
            state_pub = None
            if state_topic:
                writer.add_topic(state_topic, itf.ROBOT_STATE, itf.offered_qos(depth=10))
                state_pub = node.create_publisher(RobotState, state_topic, _PUBLISH_QOS)
            client = node.create_client(VerifyPlan, topics.verify, qos_profile=qos.CLIENT)
            result = LiveResult()
            _wait_for_node(traffic, recorder, requests_pub, state_pub, client, timeout, result)
            _send(traffic, node, writer, recorder, requests_pub, state_pub, client, rate, timeout, result)
            return result
    except LiveReplayError:
        writer.close()
        shutil.rmtree(output)  # nothing was sent: no bag
        raise
    finally:
        writer.close()


def _wait_for_node(traffic: Traffic, recorder: BagRecorder, requests_pub: Any, state_pub: Any, client: Any, timeout: float,
                   result: LiveResult) -> None:
    topics = traffic.contents.topics
    deadline = time.monotonic() + timeout
    sources = {r.source for r in traffic.requests}

    def until(predicate: Any) -> bool:
        while not predicate():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    if not until(lambda: recorder.publishers(topics.feedback) and recorder.publishers(topics.approved_actions)):
        raise LiveReplayError(f"no verifier node publishes {topics.feedback} (is {topics.node} running and configured?)")
    if "topic" in sources and not until(lambda: requests_pub.get_subscription_count() > 0):
        raise LiveReplayError(f"nobody subscribes to {topics.plan_requests} (is {topics.node} running and configured?)")
    if "service" in sources and not qos.wait_until_ready(client, max(0.0, deadline - time.monotonic())):
        raise LiveReplayError(f"service {topics.verify} is not available (is {topics.node} running and configured?)")
    if state_pub is not None and traffic.states and not until(lambda: state_pub.get_subscription_count() > 0):
        result.notes.append(f"nobody subscribes to {traffic.contents.robot_state_topic}: start states may differ from the recording")
    time.sleep(_SETTLE_S)


def _send(traffic: Traffic, node: Any, writer: BagWriter, recorder: BagRecorder, requests_pub: Any, state_pub: Any, client: Any,
          rate: float | None, timeout: float, result: LiveResult) -> None:
    topics = traffic.contents.topics
    timeline = sorted([(s.stamp_ns, 0, s) for s in traffic.states] + [(r.stamp_ns, 1, r) for r in traffic.requests], key=lambda e: (e[0], e[1]))
    needed = _answers_before(traffic)
    first = timeline[0][0] if timeline else 0
    futures: dict[str, list[Future]] = {}
    pending: list[Future] = []
    started = time.monotonic()
    last_state: tuple[int, float] | None = None  # (recorded stamp, when sent) of the latest robot state
    recorder.recording.set()
    for stamp, _, event in timeline:
        if rate is None:
            _sleep_until(started + (stamp - first) / 1e9)
        elif isinstance(event, RecordedRequest):
            # The state topic and the requests are separate channels with no order between them: a request keeps
            # at least the recorded time after the state before it, or it could reach the node first.
            after_state = last_state[1] + (stamp - last_state[0]) / 1e9 if last_state else 0.0
            _sleep_until(max(started + result.sent / rate, after_state))
        if isinstance(event, RobotStateSample):
            # A state must not overtake a request the recording answered before it: the node reads the start
            # state when a verification starts, and the execution level's start (hence the approved joint
            # targets and their sha256) depends on it.
            # The calls' service events too (request received, response sent: two per call): the new bag orders a
            # call by when its event was recorded, and an event that arrives after the state would put it behind.
            before = _outputs_before(traffic, stamp)
            events = 2 * len(pending) if node.count_publishers(topics.service_events) else 0
            if not recorder.wait_for(lambda: all(f.done() for f in pending) and sum(writer.counts[t] for t in before) >= sum(before.values())
                                     and writer.counts[topics.service_events] >= events, timeout):
                result.notes.append(f"earlier requests unanswered after {timeout:g} s; sent a robot state anyway")
            if state_pub is not None:
                now = node.get_clock().now()  # after the wait: the new bag must order the state behind those answers
                msg = RobotState(header=Header(stamp=now.to_msg()), position=event.position, tool=event.tool)
                state_pub.publish(msg)
                writer.write_raw(traffic.contents.robot_state_topic, now.nanoseconds, serialize_message(msg))
                result.states += 1
            last_state = (stamp, time.monotonic())
            continue
        cid = safe_correlation_id(event.request.correlation_id)
        if cid and not _wait_answered(recorder, futures.get(cid, []), cid, needed[event.index], timeout):
            result.notes.append(f"no answer to an earlier request of {cid} within {timeout:g} s; sent request {event.index + 1} anyway")
        q = event.request
        fields = dict(correlation_id=q.correlation_id, plan=q.plan, plan_format=q.plan_format, instruction=q.instruction, level=q.level,
                      attempt=q.attempt, start_position=q.start_position, start_tool=q.start_tool)
        if event.source == "service":
            future = client.call_async(VerifyPlan.Request(**fields))
            futures.setdefault(cid, []).append(future)
            pending.append(future)
        else:
            msg = PlanRequest(**fields)
            requests_pub.publish(msg)
            writer.write_raw(topics.plan_requests, node.get_clock().now().nanoseconds, serialize_message(msg))
        result.sent += 1
    expected = _expected_outputs(traffic)
    if not recorder.wait_for(lambda: all(f.done() for f in pending) and all(writer.counts[t] >= n for t, n in expected.items()), timeout):
        result.notes.append(f"the node's answers were incomplete after {timeout:g} s")
    result.responses = [f.result() for f in pending if f.done()]
    if any(r.source == "service" for r in traffic.requests) and not writer.counts[topics.service_events]:
        result.notes.append(f"the node published no {topics.service_events} (service_introspection disabled): "
                            "the new bag cannot replay the service calls offline")


def _answers_before(traffic: Traffic) -> dict[int, int]:
    """Per request: how many outputs with its correlation id the recording holds before it (what must be seen first)."""
    topics = traffic.contents.topics
    since = traffic.requests[0].stamp_ns if traffic.requests else 0
    outputs = sorted((m.stamp_ns, m.msg.correlation_id) for m in traffic.contents.messages
                     if m.topic in (topics.feedback, topics.approved_actions) and m.stamp_ns >= since)
    return {r.index: sum(1 for stamp, cid in outputs if stamp < r.stamp_ns and cid == safe_correlation_id(r.request.correlation_id))
            for r in traffic.requests}


def _expected_outputs(traffic: Traffic) -> dict[str, int]:
    return _outputs_before(traffic, None)


def _outputs_before(traffic: Traffic, stamp: int | None) -> dict[str, int]:
    """Per output topic: how many answers the recording holds from its first request on (before `stamp`, if given)."""
    topics = traffic.contents.topics
    since = traffic.requests[0].stamp_ns if traffic.requests else 0
    counts = {topic: 0 for topic in (topics.feedback, topics.fallback, topics.approved_actions)}
    for m in traffic.contents.messages:
        if m.topic in counts and m.stamp_ns >= since and (stamp is None or m.stamp_ns < stamp):
            counts[m.topic] += 1
    return counts


def _wait_answered(recorder: BagRecorder, futures: list[Future], cid: str, outputs: int, timeout: float) -> bool:
    return recorder.wait_for(lambda: all(f.done() for f in futures) and recorder.answered[cid] >= outputs, timeout)


def _sleep_until(moment: float) -> None:
    delay = moment - time.monotonic()
    if delay > 0:
        time.sleep(delay)
