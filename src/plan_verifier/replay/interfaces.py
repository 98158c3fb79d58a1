"""The node's messages for rosbags: read and write bags of plan_verifier traffic without ROS.

Types are built from the interface texts (`resources.interfaces_dir`) plus
the three standard types they use, so the type hashes (RIHS01) are the ones
rosidl computes and bags written here are what `ros2 bag record` writes (a
test compares them with the built interfaces). Two details make that true:

* `service_msgs/ServiceEventInfo.client_gid` is `char[16]` in its .msg file
  and `uint8[16]` in the type description ROS hashes; it is declared as
  `uint8[16]` here (same bytes on the wire, the ROS hash).
* rosbags' .msg parser knows only `pkg/msg/Type` names; the VerifyPlan
  request, response and service-event types live under `pkg/srv/`, so they
  are parsed as msg types and renamed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from rosbags.interfaces import Nodetype, Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from rosbags.typesys.store import Typestore

from plan_verifier.resources import interfaces_dir

PACKAGE = "plan_verifier_interfaces"
PLAN_REQUEST = f"{PACKAGE}/msg/PlanRequest"
FEEDBACK = f"{PACKAGE}/msg/VerificationFeedback"
APPROVED = f"{PACKAGE}/msg/ApprovedActions"
ROBOT_STATE = f"{PACKAGE}/msg/RobotState"
EXECUTION_STATUS = f"{PACKAGE}/msg/ExecutionStatus"
FINDING = f"{PACKAGE}/msg/Finding"
VERIFY_REQUEST = f"{PACKAGE}/srv/VerifyPlan_Request"
VERIFY_RESPONSE = f"{PACKAGE}/srv/VerifyPlan_Response"
VERIFY_EVENT = f"{PACKAGE}/srv/VerifyPlan_Event"

#: service_msgs/ServiceEventInfo.event_type values written by the server side.
REQUEST_RECEIVED = 1
RESPONSE_SENT = 2

_STANDARD = {
    "builtin_interfaces/msg/Time": "int32 sec\nuint32 nanosec\n",
    "std_msgs/msg/Header": "builtin_interfaces/Time stamp\nstring frame_id\n",
    "service_msgs/msg/ServiceEventInfo": (
        "uint8 REQUEST_SENT = 0\nuint8 REQUEST_RECEIVED = 1\nuint8 RESPONSE_SENT = 2\nuint8 RESPONSE_RECEIVED = 3\n"
        "uint8 event_type\nbuiltin_interfaces/Time stamp\nuint8[16] client_gid\nint64 sequence_number\n"
    ),
}
_SERVICE_TYPES = (VERIFY_REQUEST, VERIFY_RESPONSE, VERIFY_EVENT)
_SEPARATOR = "=" * 80


@dataclass(frozen=True)
class Topics:
    """The topic names of one verifier node (its fully qualified name, e.g. /plan_verifier)."""

    node: str

    @property
    def plan_requests(self) -> str:
        return f"{self.node}/plan_requests"

    @property
    def feedback(self) -> str:
        return f"{self.node}/feedback"

    @property
    def fallback(self) -> str:
        return f"{self.node}/fallback"

    @property
    def approved_actions(self) -> str:
        return f"{self.node}/approved_actions"

    @property
    def verify(self) -> str:
        return f"{self.node}/verify"

    @property
    def service_events(self) -> str:
        """Where rclpy's service introspection publishes the ~/verify events."""
        return f"{self.node}/verify/_service_event"

    def types(self) -> dict[str, str]:
        """Topic -> message type, for every topic the node publishes or serves (robot state aside)."""
        return {
            self.plan_requests: PLAN_REQUEST,
            self.feedback: FEEDBACK,
            self.fallback: FEEDBACK,
            self.approved_actions: APPROVED,
            self.service_events: VERIFY_EVENT,
        }


def _texts() -> dict[str, str]:
    """Type name -> definition text, for every type of the package and the standard ones it uses."""
    root = interfaces_dir()
    texts = dict(_STANDARD)
    for path in sorted((root / "msg").glob("*.msg")):
        texts[f"{PACKAGE}/msg/{path.stem}"] = path.read_text(encoding="utf-8")
    request, response = (root / "srv" / "VerifyPlan.srv").read_text(encoding="utf-8").split("\n---\n", 1)
    texts[VERIFY_REQUEST] = request
    texts[VERIFY_RESPONSE] = response
    texts[VERIFY_EVENT] = (f"service_msgs/ServiceEventInfo info\n{VERIFY_REQUEST}[<=1] request\n{VERIFY_RESPONSE}[<=1] response\n")
    return texts


def _as_msg_name(name: str) -> str:
    return name.replace("/srv/", "/srv/msg/") if name in _SERVICE_TYPES else name


def _srv_renamed(value: Any) -> Any:
    """Undo the parser's `pkg/srv/msg/X` names: the service's own types keep `pkg/srv/X`, the rest are `pkg/msg/X`."""
    if isinstance(value, str) and "/srv/msg/" in value:
        package, _, _, name = value.split("/")
        own = f"{package}/srv/{name}"
        return own if own in _SERVICE_TYPES else f"{package}/msg/{name}"
    if isinstance(value, tuple):
        return tuple(_srv_renamed(v) for v in value)
    if isinstance(value, list):
        return [_srv_renamed(v) for v in value]
    return value


@functools.lru_cache(maxsize=1)
def _store() -> tuple[Typestore, dict[str, str]]:
    texts = _texts()
    types: dict[str, Any] = {}
    for name, text in texts.items():
        for parsed_name, definition in get_types_from_msg(text, _as_msg_name(name)).items():
            types[_srv_renamed(parsed_name)] = _srv_renamed(definition)
    store = get_typestore(Stores.EMPTY)
    store.register(types)
    return store, texts


def typestore() -> Typestore:
    """A rosbags type store holding exactly the node's message and service-event types."""
    return _store()[0]


def deserialize(raw: bytes | memoryview, typename: str) -> Any:
    return typestore().deserialize_cdr(raw, typename)


def serialize(message: Any, typename: str) -> bytes:
    return bytes(typestore().serialize_cdr(message, typename))


def new(typename: str, **fields: Any) -> Any:
    """A message object with every field at its default (rosbags types have no defaults), then `fields`."""
    store = typestore()
    _, members = store.fielddefs[typename]
    values = {name: _default(store, desc) for name, desc in members}
    values.update(fields)
    return store.types[typename](**values)


def _default(store: Typestore, desc: Any) -> Any:
    kind, rest = desc
    if kind == Nodetype.BASE:
        base = rest[0]
        if base == "string":
            return ""
        if base == "bool":
            return False
        return 0.0 if base.startswith("float") else 0
    if kind == Nodetype.NAME:
        return store.types[rest](**{n: _default(store, d) for n, d in store.fielddefs[rest][1]})
    (inner_kind, inner), length = rest
    if inner_kind == Nodetype.BASE and inner[0] != "string":  # primitive arrays are numpy arrays in rosbags
        return np.zeros(length if kind == Nodetype.ARRAY else 0, dtype=np.dtype(_NUMPY.get(inner[0], inner[0])))
    return [_default(store, (inner_kind, inner)) for _ in range(length)] if kind == Nodetype.ARRAY else []


_NUMPY = {"char": "uint8", "byte": "uint8"}  # numpy has no such names; the rest are numpy dtype names too


def type_hash(typename: str) -> str:
    """The RIHS01 type hash, as rosidl computes it."""
    return typestore().hash_rihs01(typename)


def msgdef(typename: str) -> str:
    """The type's definition with every nested type appended, rosbag2's `ros2msg` encoding."""
    store, texts = _store()
    seen: list[str] = []

    def visit(name: str) -> None:
        for _, desc in store.fielddefs[name][1]:
            for nested in _nested(desc):
                if nested not in seen:
                    seen.append(nested)
                    visit(nested)

    visit(typename)
    parts = [texts[typename].rstrip("\n")]
    parts += [f"{_SEPARATOR}\nMSG: {name}\n{texts[name].rstrip(chr(10))}" for name in seen]
    return "\n".join(parts) + "\n"


def _nested(desc: Any) -> list[str]:
    kind, rest = desc
    if kind == 2:
        return [rest]
    if kind in (3, 4):
        return _nested(rest[0])
    return []


# ------------------------------------------------------------------ QoS written into bag metadata

_DEFAULT_DURATION = QosTime(2147483647, 4294967295)  # rmw's "infinite"


def offered_qos(*, reliable: bool = True, transient_local: bool = False, depth: int = 100) -> Qos:
    """A publisher's QoS as rosbag2 records it (so `ros2 bag play` latches what the node latched)."""
    return Qos(
        history=QosHistory.KEEP_LAST,
        depth=depth,
        reliability=QosReliability.RELIABLE if reliable else QosReliability.BEST_EFFORT,
        durability=QosDurability.TRANSIENT_LOCAL if transient_local else QosDurability.VOLATILE,
        deadline=_DEFAULT_DURATION,
        lifespan=_DEFAULT_DURATION,
        liveliness=QosLiveliness.AUTOMATIC,
        liveliness_lease_duration=_DEFAULT_DURATION,
        avoid_ros_namespace_conventions=False,
    )


def add_connection(writer: Any, topic: str, typename: str, qos: Qos | None = None) -> Any:
    """Register `topic` with our definition and hash on a rosbags Writer."""
    return writer.add_connection(topic, typename, msgdef=msgdef(typename), rihs01=type_hash(typename),
                                 offered_qos_profiles=[qos] if qos is not None else [])
