"""The QoS profiles of the node's interfaces, and the one its clients should use.

Service responses travel on one DDS topic shared by every client of the
service; each client's reader also receives (and then discards) the other
clients' responses. With the default service QoS (keep last 10) a client
that is busy while many others are answered can have its own response pushed
out of its history before it takes it: the request is verified and logged,
but the answer never arrives. Clients of ~/verify therefore keep a deeper
history (`CLIENT_QOS`); the node's own request queue is deep for the same
reason (`request_queue_depth`).

A second loss happens right after discovery: `wait_for_service` returns as
soon as the client sees the server, but the server may not yet have matched
the client's response reader; rmw_fastrtps waits 100 ms for that match and
then drops the response (ros2/rmw_fastrtps#467). On a busy machine matching
takes longer, so a new client waits `DISCOVERY_SETTLE_S` before its first
call (`wait_until_ready`).
"""

from __future__ import annotations

import time
from typing import Any

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

#: How long a new client lets the server match its response reader before the first call.
DISCOVERY_SETTLE_S = 1.0

#: ~/approved_actions: an executor that starts late still gets the last approval.
APPROVED = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: ~/feedback and ~/fallback.
FEEDBACK = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)
#: ~/robot_state: best effort + volatile matches every publisher (reliable or not, latched or not).
ROBOT_STATE = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.BEST_EFFORT,
                         durability=DurabilityPolicy.VOLATILE)
#: /joint_states: best effort + volatile (as rclpy's sensor-data profile) matches every driver's publisher; a few
#: messages deep, only the newest matters.
JOINT_STATES = QoSProfile(depth=5, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.BEST_EFFORT,
                          durability=DurabilityPolicy.VOLATILE)
#: ~/verify/_service_event (service introspection): deep, so a recorder that falls behind loses nothing.
SERVICE_EVENTS = QoSProfile(depth=1000, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                            durability=DurabilityPolicy.VOLATILE)
#: For clients of ~/verify (see the module documentation).
CLIENT = QoSProfile(depth=1000, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.VOLATILE)


def requests(depth: int) -> QoSProfile:
    """~/verify and ~/plan_requests: reliable, nothing dropped until `depth` requests wait."""
    return QoSProfile(depth=depth, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)


def wait_until_ready(client: Any, timeout: float) -> bool:
    """`wait_for_service`, then the settle time a new client needs (see the module documentation)."""
    if not client.wait_for_service(timeout_sec=timeout):
        return False
    time.sleep(DISCOVERY_SETTLE_S)
    return True

#: robot_description / robot_description_semantic as robot_state_publisher publishes them and MoveIt reads them:
#: the last message kept for late joiners.
ROBOT_DESCRIPTION = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                               durability=DurabilityPolicy.TRANSIENT_LOCAL)
