"""Recording the verifier's topics from a live ROS graph into a rosbag2 bag, with rosbags.

Subscriptions take the serialized bytes (`raw=True`) and write them as they
are, so the bag holds exactly what the node published; each topic is
registered with our type definition, its RIHS01 hash and the QoS the node
offers (so `ros2 bag play` latches ~/approved_actions again). On a ROS
install `ros2 bag record` writes the same bag (docs/replay-and-simulation.md):

    ros2 bag record -s sqlite3 --topics /plan_verifier/plan_requests /plan_verifier/feedback \\
        /plan_verifier/fallback /plan_verifier/approved_actions /robot_state --services /plan_verifier/verify
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from plan_verifier_interfaces.msg import ApprovedActions, PlanRequest, RobotState, VerificationFeedback
from plan_verifier_interfaces.srv import VerifyPlan
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rclpy.subscription import MessageInfo

from plan_verifier.replay import interfaces as itf
from plan_verifier.replay.bag import BagWriter
from plan_verifier.ros import qos


#: ~/approved_actions as a recorder reads it: latched, and a deep history so that approvals in quick succession
#: are not replaced in the reader's queue before the callback takes them.
LATCHED_HISTORY = QoSProfile(depth=1000, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)


@dataclass(frozen=True)
class Recorded:
    topic: str
    msg_class: Any
    typename: str
    subscription_qos: QoSProfile
    offered: Any  # rosbags Qos written into the bag metadata


def verifier_topics(topics: itf.Topics, robot_state_topic: str | None, *, requests: bool = True) -> list[Recorded]:
    """What `plan-verify record` records: the node's inputs and outputs (requests and robot state optional)."""
    out = [
        Recorded(topics.feedback, VerificationFeedback, itf.FEEDBACK, qos.FEEDBACK, itf.offered_qos()),
        Recorded(topics.fallback, VerificationFeedback, itf.FEEDBACK, qos.FEEDBACK, itf.offered_qos()),
        Recorded(topics.approved_actions, ApprovedActions, itf.APPROVED, LATCHED_HISTORY, itf.offered_qos(transient_local=True, depth=1)),
        Recorded(topics.service_events, VerifyPlan.Event, itf.VERIFY_EVENT, qos.SERVICE_EVENTS, itf.offered_qos(depth=1000)),
    ]
    if requests:
        out.insert(0, Recorded(topics.plan_requests, PlanRequest, itf.PLAN_REQUEST, qos.requests(1000), itf.offered_qos(depth=1000)))
        if robot_state_topic:
            out.append(Recorded(robot_state_topic, RobotState, itf.ROBOT_STATE, qos.ROBOT_STATE, itf.offered_qos(depth=10)))
    return out


class BagRecorder:
    """Subscribes to topics and writes what arrives (while `recording` is set) into a BagWriter."""

    def __init__(self, node: Node, writer: BagWriter) -> None:
        self.node = node
        self.writer = writer
        self.recording = threading.Event()
        self.recording.set()
        self._subscriptions: dict[str, Any] = {}
        self._classes: dict[str, Any] = {}
        self._cv = threading.Condition()
        #: Outputs per correlation id (feedback and approvals), for a live replay that waits for answers.
        self.answered: Counter[str] = Counter()

    def record(self, item: Recorded) -> None:
        self.writer.add_topic(item.topic, item.typename, item.offered)
        self._classes[item.topic] = item.msg_class
        self._subscriptions[item.topic] = self.node.create_subscription(
            item.msg_class, item.topic, functools.partial(self._on_message, item.topic), item.subscription_qos, raw=True)

    def _on_message(self, topic: str, raw: bytes, info: MessageInfo) -> None:
        """Stamped with the time the message arrived (as rosbag2 does), not when the callback ran: a recorder
        that falls behind must not reorder messages of different topics."""
        if not self.recording.is_set():
            return
        self.writer.write_raw(topic, info.get("received_timestamp") or self.node.get_clock().now().nanoseconds, raw)
        if self._classes[topic] in (VerificationFeedback, ApprovedActions) and not topic.endswith("/fallback"):
            cid = deserialize_message(raw, self._classes[topic]).correlation_id
            with self._cv:
                self.answered[cid] += 1
                self._cv.notify_all()

    def publishers(self, topic: str) -> int:
        return self._subscriptions[topic].get_publisher_count()

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until `predicate` (checked whenever an answer arrives, and every 50 ms) holds."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cv.wait(min(remaining, 0.05))
        return True
