"""Requests and the answers the node gave them, paired from a bag's messages.

Service calls recorded through service introspection (`service_introspection:
contents` on the node) pair exactly: the request and response events share
the client's id and sequence number, and the response carries everything.
Requests published on ~/plan_requests are paired with the node's outputs by
correlation id, in time order: the first ~/feedback or ~/approved_actions
message with the request's id that follows it (outputs for a request without
an id carry the id the node generated, one no request used). Outputs that a
recorded service call explains are set aside first, since the node publishes
them for both inputs. What no request explains is counted as unmatched: the
approval ~/approved_actions latched before the recording began, or the
outputs of service calls recorded without introspection.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from plan_verifier.replay import interfaces as itf
from plan_verifier.replay.answer import Answer, finding_key_from_msg, sorted_keys
from plan_verifier.replay.bag import BagContents, BagMessage
from plan_verifier.robot_sequence import FROM_JOINT_STATES, FormatError, RobotSequence, Verification
from plan_verifier.serving.requests import ErrorCode, VerifyRequest, safe_correlation_id


@dataclass(frozen=True)
class RecordedRequest:
    index: int  # 0-based, in bag order
    stamp_ns: int
    source: str  # topic | service
    request: VerifyRequest
    answer: Answer | None  # None: no answer recorded


@dataclass(frozen=True)
class RobotStateSample:
    stamp_ns: int
    position: str
    tool: str


@dataclass(frozen=True)
class Traffic:
    contents: BagContents
    requests: tuple[RecordedRequest, ...]
    states: tuple[RobotStateSample, ...]
    #: Recorded outputs that no recorded request explains.
    unmatched_outputs: int = 0
    #: Service calls whose events carry no request text (introspection "metadata"): they cannot be replayed.
    without_contents: int = 0
    #: max_attempts as the node reported it, if any output says.
    max_attempts: int | None = None
    #: Robots named by the recorded approvals.
    robots: frozenset[str] = field(default_factory=frozenset)
    #: The graph fingerprint in the last recorded approval's YAML (what the node checked against then).
    graph_fingerprint: str | None = None

    @property
    def has_outputs(self) -> bool:
        t = self.contents.topics
        return bool({t.feedback, t.approved_actions, t.service_events} & self.contents.present)


@dataclass
class _Output:
    stamp_ns: int
    msg: Any
    claimed: bool = False


def read_traffic(contents: BagContents) -> Traffic:
    topics = contents.topics
    by_topic: dict[str, list[BagMessage]] = {}
    for m in contents.messages:
        by_topic.setdefault(m.topic, []).append(m)
    feedback = [_Output(m.stamp_ns, m.msg) for m in by_topic.get(topics.feedback, [])]
    approved = [_Output(m.stamp_ns, m.msg) for m in by_topic.get(topics.approved_actions, [])]
    fallback = [_Output(m.stamp_ns, m.msg) for m in by_topic.get(topics.fallback, [])]
    fallback_recorded = topics.fallback in contents.present

    calls, without_contents = _service_calls(by_topic.get(topics.service_events, []))
    entries: list[tuple[int, str, VerifyRequest, Answer | None]] = []
    for stamp, request, response in calls:
        answer = _answer_from_response(response) if response is not None else None
        if answer is not None:
            _claim_service_outputs(answer, response, feedback, approved, fallback)
        entries.append((stamp, "service", request, answer))

    known_ids = {safe_correlation_id(m.msg.correlation_id) for m in by_topic.get(topics.plan_requests, [])}
    known_ids |= {e[3].correlation_id for e in entries if e[3] is not None}
    for m in by_topic.get(topics.plan_requests, []):
        request = _request(m.msg, "topic")
        answer = _answer_for_topic_request(request, m.stamp_ns, known_ids, feedback, approved, fallback, fallback_recorded)
        entries.append((m.stamp_ns, "topic", request, answer))

    entries.sort(key=lambda e: e[0])
    requests = tuple(RecordedRequest(i, stamp, source, request, answer) for i, (stamp, source, request, answer) in enumerate(entries))
    states = tuple(RobotStateSample(m.stamp_ns, m.msg.position, m.msg.tool) for m in by_topic.get(contents.robot_state_topic or "", []))
    limits = [int(o.msg.max_attempts) for o in feedback if o.msg.max_attempts] + [int(r.max_attempts) for _, _, r in calls if r is not None and r.max_attempts]
    return Traffic(
        contents=contents,
        requests=requests,
        states=states,
        unmatched_outputs=sum(not o.claimed for o in feedback + approved + fallback),
        without_contents=without_contents,
        max_attempts=limits[-1] if limits else None,
        robots=frozenset(o.msg.robot for o in approved if o.msg.robot),
        graph_fingerprint=_fingerprint(approved[-1].msg.actions_yaml) if approved else None,
    )


def _verification(actions_yaml: str) -> Verification | None:
    """The approved YAML's verification block (None when there is none or the YAML is not an actions file)."""
    try:
        return RobotSequence.read(actions_yaml).verification
    except FormatError:
        return None


def _fingerprint(actions_yaml: str) -> str | None:
    verification = _verification(actions_yaml)
    return (verification.graph_fingerprint or None) if verification is not None else None


def _robot_joints(actions_yaml: str) -> tuple[float, ...] | None:
    """The joints the node started the execution level from when they were the robot's (/joint_states): a start
    the bag's requests and robot states do not carry."""
    verification = _verification(actions_yaml)
    if verification is None or verification.start_joints_source != FROM_JOINT_STATES:
        return None
    return verification.start_joints_deg


def _request(msg: Any, source: str) -> VerifyRequest:
    """PlanRequest.msg and VerifyPlan_Request carry the same fields."""
    return VerifyRequest(plan=msg.plan, correlation_id=msg.correlation_id, plan_format=msg.plan_format, instruction=msg.instruction,
                         level=msg.level, attempt=int(msg.attempt), start_position=msg.start_position, start_tool=msg.start_tool,
                         source=source)


def _service_calls(events: Iterable[BagMessage]) -> tuple[list[tuple[int, VerifyRequest, Any]], int]:
    """(stamp, request, response or None) per call whose request was recorded; and the count of calls without contents."""
    calls: dict[tuple[bytes, int], dict[str, Any]] = {}
    for m in events:
        info = m.msg.info
        if info.event_type not in (itf.REQUEST_RECEIVED, itf.RESPONSE_SENT):
            continue  # client-side events, if a client enabled introspection too
        key = (bytes(info.client_gid), int(info.sequence_number))
        call = calls.setdefault(key, {"stamp": m.stamp_ns})
        if info.event_type == itf.REQUEST_RECEIVED:
            call["stamp"] = m.stamp_ns
            if len(m.msg.request):
                call["request"] = m.msg.request[0]
        elif len(m.msg.response):
            call["response"] = m.msg.response[0]
    out = [(c["stamp"], _request(c["request"], "service"), c.get("response")) for c in calls.values() if "request" in c]
    return out, len(calls) - len(out)


def _status(error_code: int, verdict: str) -> str:
    if error_code == ErrorCode.NONE:
        return verdict
    try:
        return ErrorCode(error_code).name
    except ValueError:
        return f"ERROR_{error_code}"


def _answer_from_response(response: Any) -> Answer:
    status = _status(int(response.error_code), response.verdict)
    verified = int(response.error_code) == ErrorCode.NONE
    return Answer(
        status=status,
        correlation_id=response.correlation_id,
        attempt=int(response.attempt) or None,
        fallback=verified and not response.approved and not response.retry_allowed,
        findings=sorted_keys(finding_key_from_msg(f) for f in response.findings) if verified else (),
        sha256=response.sha256 or None,
        start_joints_deg=_robot_joints(response.actions_yaml) if response.actions_yaml else None,
    )


def _answer_from_feedback(msg: Any, fallback: bool | None) -> Answer:
    verified = int(msg.error_code) == ErrorCode.NONE
    return Answer(
        status=_status(int(msg.error_code), msg.verdict),
        correlation_id=msg.correlation_id,
        attempt=int(msg.attempt) or None,
        fallback=fallback if verified else False,
        findings=sorted_keys(finding_key_from_msg(f) for f in msg.findings) if verified else (),
    )


def _answer_from_approval(msg: Any) -> Answer:
    return Answer(status=msg.verdict, correlation_id=msg.correlation_id, fallback=False, sha256=msg.sha256 or None,
                  start_joints_deg=_robot_joints(msg.actions_yaml))


def _first(outputs: list[_Output], predicate: Any, after_ns: int = 0) -> _Output | None:
    for o in outputs:
        if not o.claimed and o.stamp_ns >= after_ns and predicate(o.msg):
            o.claimed = True
            return o
    return None


def _claim_service_outputs(answer: Answer, response: Any, feedback: list[_Output], approved: list[_Output], fallback: list[_Output]) -> None:
    """The node publishes a service call's approval or rejection too: those messages are this call's."""
    cid, attempt = answer.correlation_id, int(response.attempt)
    if answer.approved:
        _first(approved, lambda m: m.correlation_id == cid and m.sha256 == response.sha256)
    elif answer.verified:
        _first(feedback, lambda m: m.correlation_id == cid and m.attempt == attempt and m.error_code == 0)
        if answer.fallback:
            _first(fallback, lambda m: m.correlation_id == cid and m.attempt == attempt)


def _answer_for_topic_request(request: VerifyRequest, stamp_ns: int, known_ids: set[str], feedback: list[_Output],
                              approved: list[_Output], fallback: list[_Output], fallback_recorded: bool) -> Answer | None:
    raw = request.correlation_id.strip()
    cid = safe_correlation_id(request.correlation_id)
    if raw and cid == raw:
        matches = lambda m: m.correlation_id == cid  # noqa: E731
    elif raw:  # an unusable id: the node answered BAD_REQUEST with it escaped and cut (before issue 18: with an empty id)
        matches = lambda m: m.correlation_id in (cid, "")  # noqa: E731
    else:  # the node generated an id that no request used
        matches = lambda m: m.correlation_id not in known_ids  # noqa: E731
    candidates = [o for o in feedback + approved if not o.claimed and o.stamp_ns >= stamp_ns and matches(o.msg)]
    if not candidates:
        return None
    chosen = min(candidates, key=lambda o: o.stamp_ns)
    chosen.claimed = True
    msg = chosen.msg
    if any(chosen is o for o in approved):
        return _answer_from_approval(msg)
    mark = _first(fallback, lambda m: m.correlation_id == msg.correlation_id and m.attempt == msg.attempt)
    return _answer_from_feedback(msg, True if mark is not None else (False if fallback_recorded else None))
