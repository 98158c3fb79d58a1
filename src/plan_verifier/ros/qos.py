"""The QoS profiles of the node's interfaces, and the one its clients should use.

Service responses travel on one DDS topic shared by every client of the
service; each client's reader also receives (and then discards) the other
clients' responses. With the default service QoS (keep last 10) a client
that is busy while many others are answered can have its own response pushed
out of its history before it takes it: the request is verified and logged,
but the answer never arrives. Clients of ~/verify therefore keep a deeper
history (`CLIENT_QOS`); the node's own request queue is deep for the same
reason (`request_queue_depth`).
"""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

#: ~/approved_actions: an executor that starts late still gets the last approval.
APPROVED = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: ~/feedback and ~/fallback.
FEEDBACK = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)
#: ~/robot_state: best effort + volatile matches every publisher (reliable or not, latched or not).
ROBOT_STATE = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.BEST_EFFORT,
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
