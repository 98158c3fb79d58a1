"""Re-verify recorded requests as the node would answer them today.

The node's decisions are replayed in bag order with the serving core's own
pieces: `check_request` (BAD_REQUEST), the attempt ledger (attempt numbers
counted by the node, fallback, ATTEMPTS_EXHAUSTED, ALREADY_APPROVED) and the start-state source fed with the
recorded ~/robot_state messages. Only the verification itself is new: the
current rules, robot spec and cell graph. Where the node started the
execution level from the robot's joints (/joint_states, which the bag does
not hold), its recorded approval says which (`verification.start_joints_deg`),
and replay starts there too; a rejection does not record them, so a rejected
request is replayed from its start position. A request the node refused as
NOT_ACTIVE is not verified (nothing was, then).

What replay does not repeat: the graph is read once (one consistent snapshot
for the whole bag), and identical verifications (same plan, format, level,
instruction and start state) run once, since the verifier is a pure function
of those. The distinct ones are spread over `jobs` worker processes (forked,
so they share the parent's compiled grammar and snapshot); attempts and
start states are then assigned in bag order, as the node did.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass
from typing import Iterator, NamedTuple

from plan_verifier.actions import approved_steps
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.model import Cell
from plan_verifier.pipeline import Verifier
from plan_verifier.replay.answer import Answer, FindingKey, finding_key, sorted_keys
from plan_verifier.replay.traffic import RecordedRequest, Traffic
from plan_verifier.robot_sequence import steps_sha256
from plan_verifier.robots.spec import RobotSpec
from plan_verifier.serving.attempts import DEFAULT_MAX_ATTEMPTS, AttemptLedger
from plan_verifier.serving.requests import ErrorCode, RequestError, check_request, safe_correlation_id
from plan_verifier.serving.start_state import StartStateSource

#: Below this many distinct verifications a worker pool costs more than it saves.
PARALLEL_THRESHOLD = 64


@dataclass(frozen=True)
class ReplaySetup:
    robot: RobotSpec
    cell: Cell | None  # the graph snapshot, read once; None = no graph (as a node with cell "")
    profile: str = "default"
    level: str = "STANDARD"  # the node's default level, for requests that name none
    max_attempts: int | None = None  # None: as the recording says, else seed 003's 3
    jobs: int = 1


class Job(NamedTuple):
    plan: str
    plan_format: str
    level: str
    instruction: str | None
    start_position: str | None
    start_tool: str | None
    #: The robot's joints the node started from (/joint_states, recorded in its approval), else None.
    start_joints: tuple[float, ...] | None = None


class Verdict(NamedTuple):
    verdict: str
    approved: bool
    findings: tuple[FindingKey, ...]
    sha256: str | None


@dataclass(frozen=True)
class ReplayRun:
    answers: tuple[Answer | None, ...]  # one per request; None when the request was not replayed
    verifications: int  # requests whose plan was verified
    distinct: int  # distinct verifications actually run


def replay(traffic: Traffic, setup: ReplaySetup) -> ReplayRun:
    verifier = Verifier(setup.robot, graph=EmbeddedGraph(setup.cell, "replay snapshot") if setup.cell is not None else None,
                        profile=setup.profile, level=setup.level)
    planned = list(_plan(traffic, setup))
    jobs = [p[1] for p in planned if isinstance(p[1], Job)]
    distinct = list(dict.fromkeys(jobs))
    results = dict(zip(distinct, _verify_all(verifier, distinct, setup.jobs)))
    limit = setup.max_attempts or traffic.max_attempts or DEFAULT_MAX_ATTEMPTS
    ledger = AttemptLedger(limit, capacity=max(1, len(traffic.requests)))
    answers: list[Answer | None] = []
    for record, planned_step in planned:
        if not isinstance(planned_step, Job):
            answers.append(planned_step)
            continue
        cid = _replay_id(record)
        closed = ledger.closed(cid)
        if closed is not None and closed.approved:
            answers.append(Answer(ErrorCode.ALREADY_APPROVED.name, cid, closed.attempt, sha256=closed.sha256 or None))
            continue
        if closed is not None:
            answers.append(Answer(ErrorCode.ATTEMPTS_EXHAUSTED.name, cid))
            continue
        result = results[planned_step]
        attempt = ledger.preview(cid, result.approved)
        ledger.commit(attempt, result.sha256 or "")
        answers.append(Answer(result.verdict, cid, attempt.number, attempt.fallback, result.findings, result.sha256))
    return ReplayRun(tuple(answers), len(jobs), len(distinct))


def _plan(traffic: Traffic, setup: ReplaySetup) -> Iterator[tuple[RecordedRequest, Job | Answer | None]]:
    """Per request, in bag order: the verification it needs, or its answer when it gets none."""
    start = StartStateSource()
    states = iter(traffic.states)
    pending = next(states, None)
    for record in traffic.requests:
        while pending is not None and pending.stamp_ns <= record.stamp_ns:
            start.observe(pending.position, pending.tool)
            pending = next(states, None)
        recorded = record.answer
        if recorded is not None and recorded.status == ErrorCode.NOT_ACTIVE.name:
            yield record, recorded  # the node was not serving then: nothing to re-verify
            continue
        try:
            checked = check_request(record.request)
        except RequestError as exc:
            yield record, Answer(exc.code.name, safe_correlation_id(record.request.correlation_id))
            continue
        choice = start.resolve(checked.start_position, checked.start_tool)
        joints = recorded.start_joints_deg if recorded is not None else None
        yield record, Job(checked.plan, checked.plan_format, checked.level or setup.level, checked.instruction, choice.position, choice.tool,
                          joints)


def _replay_id(record: RecordedRequest) -> str:
    """The request's id; for a request without one, the id the node generated (recorded), else one of our own."""
    cid = safe_correlation_id(record.request.correlation_id)
    if cid:
        return cid
    if record.answer is not None and record.answer.correlation_id:
        return record.answer.correlation_id
    return f"generated-{record.index}"


# ---------------------------------------------------------------------------- verification, possibly in workers

_WORKER_VERIFIER: Verifier | None = None


def _verify(job: Job) -> Verdict:
    assert _WORKER_VERIFIER is not None
    report = _WORKER_VERIFIER.verify(job.plan, plan_format=job.plan_format, level=job.level, instruction=job.instruction,
                                     start_position=job.start_position, start_tool=job.start_tool, start_joints=job.start_joints,
                                     start_joints_source="joint_states")
    written = report.approved and report.plan is not None and report.plan.parsed
    sha = steps_sha256([step.to_yaml() for step in approved_steps(report)]) if written else None
    return Verdict(report.verdict, report.approved, sorted_keys(finding_key(f) for f in report.findings), sha)


def _verify_all(verifier: Verifier, jobs: list[Job], processes: int) -> list[Verdict]:
    global _WORKER_VERIFIER
    _WORKER_VERIFIER = verifier
    try:
        if processes <= 1 or len(jobs) < PARALLEL_THRESHOLD:
            return [_verify(job) for job in jobs]
        first = _verify(jobs[0])  # compiles the grammar and warms the caches before the workers fork
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            rest = pool.map(_verify, jobs[1:], chunksize=max(1, len(jobs) // (processes * 16)))
        return [first, *rest]
    finally:
        _WORKER_VERIFIER = None
