"""The verification service: one configured verifier and its bookkeeping.

This is what the ROS node holds between `configure` and `cleanup`. Opening it
takes the robot spec (from whichever source the node read it), opens the cell
graph and reads it once (so a bad spec, an unreachable graph or a graph that
holds no cell fails the configure transition with a reason), opens the audit
log and starts the verification workers, each warmed up (`serving.workers`).
`handle` answers one request and is safe to call from many threads at once:

1. check the request (BAD_REQUEST); refuse closed tasks: approved before
   (ALREADY_APPROVED) or handed to the fallback (ATTEMPTS_EXHAUSTED);
2. resolve the start state and verify in a worker process, within
   `verify_timeout_s` (else TOO_LARGE), at the request's level or the node's,
   whichever checks more (a planner cannot ask for fewer checks than the
   integrator configured); a rejected plan is repaired in the same worker
   (`repair_rejected`, contract §8); a crash is an INTERNAL error, never an
   approval (fail closed);
3. under one commit lock: decide the attempt (counted by the node), append the
   audit record (fsync'ed, with the decision), write the approved YAML
   atomically, and hand the outcome to the caller's `publish` (refusals
   included). Doing these together keeps the audit log, the attempt count,
   the actions file and the latched ~/approved_actions in one order.

The lifecycle gate: `activate` opens it; `deactivate` closes it at once (new
requests are refused with NOT_ACTIVE, those waiting for a worker too) and
waits up to `drain_timeout_s` for the verifications already running. Those
still running then are stopped and answered CANCELLED, and only then does
`deactivate` return: a request is refused, answered completely, or cancelled
with an answer that says so, and no work goes on behind an inactive node.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Sequence

from plan_verifier.actions import write_atomic
from plan_verifier.findings import Severity
from plan_verifier.graph.open import open_graph
from plan_verifier.graph.port import GraphPort, GraphUnavailable
from plan_verifier.pipeline import LEVELS
from plan_verifier.report import Report
from plan_verifier.resources import ConfigError
from plan_verifier.robots.spec import RobotSpec, load_robot
from plan_verifier.serving.attempts import Attempt, AttemptLedger, Closed
from plan_verifier.serving.audit import AuditLog, recent_decisions, utc_now
from plan_verifier.serving.cell_graph import CellGraph
from plan_verifier.serving.joint_states import read_joint_state
from plan_verifier.serving.requests import CheckedRequest, ErrorCode, RequestError, VerifyRequest, check_request, safe_correlation_id
from plan_verifier.serving.settings import Settings
from plan_verifier.serving.start_state import StartChoice, StartStateSource, StateDbError
from plan_verifier.serving.stats import ServiceStats, StatsSnapshot
from plan_verifier.serving.workers import Cancelled, GraphSource, Job, NotAccepting, TimedOut, Verified, WorkerFailed, WorkerPool

log = logging.getLogger("plan_verifier.serving")
#: Repairs of rejected plans remembered per service (by the plan and the inputs it was verified with).
REPAIRS_REMEMBERED = 64

#: After cancelling, how long deactivate waits for the cancelled requests to be answered (audit record, publish).
CANCEL_GRACE_S = 10.0
#: How much of the audit log's end configure reads back to restore the tasks (a few thousand records at most).
RESTORE_BYTES = 64 << 20


@dataclass(frozen=True)
class Outcome:
    """The answer to one request: a report, or an error code saying why there is none."""

    correlation_id: str
    source: str
    max_attempts: int
    error_code: ErrorCode = ErrorCode.NONE
    error_msg: str = ""
    report: Report | None = None
    attempt: Attempt | None = None
    actions_yaml: str = ""
    sha256: str = ""
    feedback: str = ""
    #: The task was closed before (ALREADY_APPROVED: its approval's attempt and sha256; ATTEMPTS_EXHAUSTED).
    closed: Closed | None = None
    #: The worker's result behind `report` (step count, graph state, which worker).
    verified: Verified | None = None
    #: A rejected attempt's repair (contract §8's object: the repaired plan and its edits, verified or why not): it goes
    #: into the report JSON for the planner's next attempt; the node never runs it.
    repair: dict | None = None

    @property
    def approved(self) -> bool:
        return self.error_code is ErrorCode.NONE and self.report is not None and self.report.approved

    @property
    def rejected(self) -> bool:
        """Verified and not approved: the planner should repair the plan."""
        return self.error_code is ErrorCode.NONE and self.report is not None and not self.report.approved

    @property
    def attempt_number(self) -> int:
        """This verification's attempt; for an approved task asked again, the attempt that was approved; else 0."""
        if self.attempt is not None:
            return self.attempt.number
        return self.closed.attempt if self.closed is not None and self.closed.approved else 0

    @property
    def retry_allowed(self) -> bool:
        if self.attempt is not None:
            return self.attempt.retry_allowed
        return self.closed is None

    @property
    def fallback(self) -> bool:
        return self.error_code is ErrorCode.NONE and self.attempt is not None and self.attempt.fallback

    @property
    def decision(self) -> str:
        """What was decided, in one word (the audit record's `decision`)."""
        if self.error_code is not ErrorCode.NONE:
            return self.error_code.name.lower()
        if self.approved:
            return "approved"
        return "fallback" if self.fallback else "rejected"

    @cached_property
    def report_json(self) -> str:
        if self.report is None:
            return ""
        return json.dumps({**self.report.to_dict(), **({"repair": self.repair} if self.repair is not None else {})}, ensure_ascii=False)

    @property
    def publishes_feedback(self) -> bool:
        """~/feedback carries every rejection, and the answer to every topic request that was not verified (refusals included)."""
        return self.rejected or (self.error_code is not ErrorCode.NONE and self.source == "topic")


def open_graph_port(settings: Settings) -> GraphPort | None:
    """The graph the settings name (graph_uri wins over cell), not yet read; it must hold a cell (`CellGraph`)."""
    if settings.graph_source == "neo4j":
        port = open_graph(uri=settings.graph_uri, user=settings.graph_user, database=settings.graph_database,
                          timeout_s=settings.graph_timeout_s)
    elif settings.graph_source == "embedded":
        port = open_graph(cell=settings.cell)
    else:
        return None
    return CellGraph(port, settings.graph_fingerprint.strip() or None)


class VerificationService:
    def __init__(self, settings: Settings, robot: RobotSpec | None = None) -> None:
        """Open everything; ConfigError (with the reason) when the spec, graph, log directory or a worker is unusable.

        `robot`: the spec the node resolved (from `robot`, or from the URDF and SRDF on robot_description);
        None = `settings.robot` (a shipped name or a YAML path).
        """
        self.settings = settings
        self.robot = robot if robot is not None else load_robot(settings.robot)
        self._graph = open_graph_port(settings)
        self._pool: WorkerPool | None = None
        self._audit: AuditLog | None = None
        try:
            self.graph_description = self._graph.describe() if self._graph else "no graph (TDL checks only)"
            self.stats = ServiceStats()
            cell = None
            if self._graph is not None:
                if not self.probe_graph():
                    raise ConfigError(f"knowledge graph unavailable ({self.graph_description}): {self.stats.snapshot().graph_message}")
                cell = self._graph.snapshot()
            self.level = settings.level
            self.verify_timeout_s = settings.verify_timeout_s
            self.repair_rejected = settings.repair_rejected
            self._ledger = AttemptLedger(settings.max_plan_attempts, settings.max_tracked_tasks)
            self._start = StartStateSource(settings.robot_state_db or None, joints_max_age_s=settings.joint_states_max_age_s)
            self.joint_names = tuple(n.strip() for n in settings.joint_state_names.split(",") if n.strip()) or tuple(
                j.ros_name or j.name for j in self.robot.joints)
            try:
                self._audit = AuditLog(settings.audit_log_dir)
            except OSError as exc:
                raise ConfigError(f"audit log directory {settings.audit_log_dir!r} is unusable: {exc.strerror or exc}") from None
            if self._audit.repaired_bytes:
                log.warning("audit log: cut %d bytes of an incomplete record (left by a crash; that request was never answered)",
                            self._audit.repaired_bytes)
            #: Tasks learnt from the audit log's newest records (approved and fallback ones stay closed across restarts).
            self.restored_tasks = self._ledger.restore(recent_decisions(self._audit.directory, RESTORE_BYTES))
            source = GraphSource(fingerprint=settings.graph_fingerprint.strip() or None)
            if settings.graph_source == "embedded" and cell is not None:
                source = replace(source, cell=cell.to_file_dict(), origin=self.graph_description)
            elif settings.graph_source == "neo4j":
                source = replace(source, neo4j=True)
            self._pool = WorkerPool(settings, self.robot, source, settings.verification_workers)
        except BaseException:
            self._release_resources()
            raise
        self._actions_path = Path(settings.actions_output_path) if settings.actions_output_path.strip() else None
        self._commit = threading.Lock()
        self._repairs: OrderedDict[tuple, dict] = OrderedDict()
        self._repairs_lock = threading.Lock()
        self._gate = threading.Condition()
        self._active = False
        self._closed = False
        self._in_flight = 0

    @property
    def warm_up(self):
        """What each worker verified before taking requests (`workers.WarmUp`)."""
        return self._pool.warm_up

    # ---------------------------------------------------------------- lifecycle
    def activate(self) -> None:
        with self._gate:
            self._active = True
        self._pool.resume()

    def deactivate(self, drain_timeout_s: float, *, why: str = "deactivated") -> bool:
        """Stop admitting requests at once; wait up to `drain_timeout_s` for those running, then cancel the rest.

        Returns True when no request is left in progress (every one answered,
        the cancelled ones with CANCELLED), False only if cancelled requests
        could not even be answered within CANCEL_GRACE_S.
        """
        with self._gate:
            self._active = False
        self._pool.hold()
        with self._gate:
            if self._gate.wait_for(lambda: self._in_flight == 0, drain_timeout_s):
                return True
        stopped = self._pool.cancel_running(
            f"the node was {why} while this plan was being verified, and drain_timeout_s ({drain_timeout_s:g} s) elapsed: "
            "the verification was stopped; not approved, no attempt spent; send the plan again once the node is active")
        if stopped:
            log.warning("%s: %d verification(s) still running after drain_timeout_s (%g s) were cancelled", why, stopped, drain_timeout_s)
        with self._gate:
            return self._gate.wait_for(lambda: self._in_flight == 0, CANCEL_GRACE_S)

    @property
    def active(self) -> bool:
        with self._gate:
            return self._active

    def close(self, *, why: str = "shut down") -> bool:
        """Drain and cancel as `deactivate` does, then release the workers, the graph and the log.

        Later requests are refused with NOT_ACTIVE and not logged. Returns
        what the drain returned (False: some request could not be answered).
        """
        drained = self.deactivate(self.settings.drain_timeout_s, why=why)
        with self._gate:
            self._closed = True
        self._release_resources()
        return drained

    def _release_resources(self) -> None:
        if self._pool is not None:
            self._pool.close()
        if self._graph is not None:
            self._graph.close()
        if self._audit is not None:
            self._audit.close()

    # ---------------------------------------------------------------- settings that may change live
    @property
    def max_attempts(self) -> int:
        return self._ledger.max_attempts

    @max_attempts.setter
    def max_attempts(self, value: int) -> None:
        self._ledger.max_attempts = value

    # ---------------------------------------------------------------- inputs
    def observe_robot_state(self, position: str, tool: str) -> None:
        self._start.observe(position, tool)

    def observe_joint_state(self, names: Sequence[str], positions_rad: Sequence[float], stamp_ns: int) -> None:
        """Record a /joint_states message (`stamp_ns`: its header stamp, else its arrival, on the node's clock);
        JointStateError when it cannot be read as this robot's joints (the caller logs it; the old reading stays)."""
        self._start.observe_joints(read_joint_state(names, positions_rad, self.joint_names, stamp_ns))

    def probe_graph(self, *, unless_seen_within_s: float = 0.0) -> bool:
        """Read the graph once; the result feeds /diagnostics.

        With `unless_seen_within_s`, skip the read when a verification has
        read the graph that recently (a remote graph is not polled while busy).
        """
        if self._graph is None:
            return True
        seen = self.stats.graph_age_s()
        if unless_seen_within_s > 0 and seen is not None and seen < unless_seen_within_s:
            return self.stats.snapshot().graph_ok is not False
        try:
            self._graph.snapshot()
        except GraphUnavailable as exc:
            self.stats.graph(False, str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - any backend failure means "unavailable"
            self.stats.graph(False, f"{exc.__class__.__name__}: {exc}")
            return False
        self.stats.graph(True, self.graph_description)
        return True

    def diagnostics(self) -> StatsSnapshot:
        return self.stats.snapshot()

    @property
    def verifying(self) -> int:
        """Verifications running in the workers now."""
        return self._pool.running if self._pool is not None else 0

    @property
    def workers_ready(self) -> int:
        return self._pool.ready if self._pool is not None else 0

    # ---------------------------------------------------------------- requests
    def handle(self, request: VerifyRequest, *, stamp_ns: int = 0, publish: Callable[[Outcome], None] | None = None) -> Outcome:
        """Answer one request (never raises for request content); `publish` is called inside the commit, for refusals too."""
        t0 = time.perf_counter()
        with self._gate:
            admitted = self._active
            if admitted:
                self._in_flight += 1
            elif self._closed:
                return self._error(request, ErrorCode.NOT_ACTIVE, "the verifier has been cleaned up")
        try:
            if not admitted:
                outcome, checked, start = self._error(request, ErrorCode.NOT_ACTIVE, "the verifier is not active (lifecycle state is not 'active')"), None, None
            else:
                outcome, checked, start = self._verify(request, stamp_ns)
            outcome = self._commit_outcome(outcome, request, checked, start, stamp_ns, t0, publish)
        finally:
            if admitted:
                with self._gate:
                    self._in_flight -= 1
                    self._gate.notify_all()
        self._count(outcome, (time.perf_counter() - t0) * 1000.0)
        return outcome

    def _verify(self, request: VerifyRequest, stamp_ns: int) -> tuple[Outcome, CheckedRequest | None, StartChoice | None]:
        try:
            checked = check_request(request)
        except RequestError as exc:
            return self._error(request, exc.code, str(exc)), None, None
        closed = self._ledger.closed(checked.correlation_id)
        if closed is not None:
            return self._closed_outcome(checked, closed), checked, None
        try:
            start = self._start.resolve(checked.start_position, checked.start_tool, now_ns=stamp_ns)
        except StateDbError as exc:
            return self._error(request, ErrorCode.INTERNAL, f"start state unknown: {exc}", checked.correlation_id), checked, None
        level = self.level_for(checked)
        repair_key = (checked.plan, checked.plan_format, level, checked.instruction, start.position, start.tool,
                      tuple(start.joints_deg) if start.joints_deg is not None else None)
        remembered = self._remembered_repair(repair_key) if self.repair_rejected else None
        budget = self.verify_timeout_s
        job = Job(checked.correlation_id, checked.plan, checked.plan_format, level, checked.instruction, start.position,
                  start.tool, start.joints_deg, start.joints_source or "request", _stamp_text(stamp_ns),
                  repair_within_s=budget if self.repair_rejected and remembered is None else 0.0)
        try:
            verified = self._pool.run(job, budget)
        except NotAccepting:
            return self._error(request, ErrorCode.NOT_ACTIVE, "the node was deactivated before this plan's verification started",
                               checked.correlation_id), checked, start
        except TimedOut:
            log.warning("%s: not verified within verify_timeout_s (%g s): answered TOO_LARGE", checked.correlation_id, budget)
            return self._error(request, ErrorCode.TOO_LARGE, f"the plan was not verified within verify_timeout_s ({budget:g} s): too large to "
                               "verify in time; not approved, no attempt spent; split it into smaller plans", checked.correlation_id), checked, start
        except Cancelled as exc:
            return self._error(request, ErrorCode.CANCELLED, str(exc), checked.correlation_id), checked, start
        except WorkerFailed as exc:
            log.error("verification of %s failed: %s", checked.correlation_id, exc)
            return self._error(request, ErrorCode.INTERNAL, f"verification failed: {exc}", checked.correlation_id), checked, start
        self._note_graph(verified)
        report = Report.from_dict(verified.report)
        repair = None
        if not report.approved and self.repair_rejected:
            repair = remembered if remembered is not None else self._remember_repair(repair_key, verified.repair)
        outcome = Outcome(checked.correlation_id, checked.source, self.max_attempts, report=report, actions_yaml=verified.actions_yaml,
                          sha256=verified.sha256, feedback=verified.feedback, verified=verified, repair=repair)
        return outcome, checked, start

    def _remembered_repair(self, key: tuple) -> dict | None:
        """The repair already made for this plan and these inputs: a repair takes seconds, and a plan retried or
        replayed is repaired once (the worker that verifies it is then not asked to repair it again)."""
        with self._repairs_lock:
            if key in self._repairs:
                self._repairs.move_to_end(key)
                return self._repairs[key]
        return None

    def _remember_repair(self, key: tuple, repair: Any) -> dict | None:
        if repair is None:
            return None
        repaired = dict(repair)
        with self._repairs_lock:
            self._repairs[key] = repaired
            while len(self._repairs) > REPAIRS_REMEMBERED:
                self._repairs.popitem(last=False)
        return repaired

    def _commit_outcome(self, outcome: Outcome, request: VerifyRequest, checked: CheckedRequest | None, start: StartChoice | None,
                        stamp_ns: int, t0: float, publish: Callable[[Outcome], None] | None) -> Outcome:
        with self._commit:
            if outcome.report is not None:
                decision = self._ledger.preview(outcome.correlation_id, outcome.report.approved)
                if isinstance(decision, Closed):  # a request with the same id closed the task while this one was verified
                    outcome = replace(self._closed_outcome(checked, decision), verified=outcome.verified)
                else:
                    outcome = replace(outcome, attempt=decision)
            try:
                self._audit.append(self._record(outcome, request, checked, start, stamp_ns, t0))
            except OSError as exc:
                log.error("audit log write failed: %s", exc)
                outcome = self._error(request, ErrorCode.INTERNAL, f"audit log write failed: {exc.strerror or exc}", outcome.correlation_id)
            else:
                if outcome.attempt is not None:
                    self._ledger.commit(outcome.attempt, outcome.sha256)
                if outcome.approved and self._actions_path is not None:
                    outcome = self._write_actions(outcome, request, checked, start, stamp_ns, t0)
            if publish is not None:
                try:
                    publish(outcome)
                except Exception:  # noqa: BLE001 - the answer must still go out
                    log.exception("publishing the outcome for %s failed", outcome.correlation_id)
                    self.stats.count("publish_error")
        return outcome

    def _write_actions(self, outcome: Outcome, request: VerifyRequest, checked: CheckedRequest | None, start: StartChoice | None,
                       stamp_ns: int, t0: float) -> Outcome:
        try:
            write_atomic(self._actions_path, outcome.actions_yaml)
            return outcome
        except OSError as exc:
            failed = self._error(request, ErrorCode.INTERNAL, f"approved, but writing {self._actions_path} failed: {exc.strerror or exc}",
                                 outcome.correlation_id)
            try:
                self._audit.append(self._record(failed, request, checked, start, stamp_ns, t0))
            except OSError:
                log.error("audit log write failed after the actions file write failed")
            return failed

    # ---------------------------------------------------------------- helpers
    def level_for(self, checked: CheckedRequest) -> str:
        """The level a request is verified at: the one it names if that checks more than the node's `level`,
        else the node's. A planner may ask for more checks, never for fewer (a request for BASIC would
        otherwise skip the execution level the integrator configured)."""
        requested = checked.level or self.level
        return max(requested, self.level, key=LEVELS.index)

    def _error(self, request: VerifyRequest, code: ErrorCode, message: str, correlation_id: str | None = None) -> Outcome:
        cid = correlation_id if correlation_id is not None else safe_correlation_id(request.correlation_id)
        return Outcome(cid, request.source, self.max_attempts, error_code=code, error_msg=message)

    def _closed_outcome(self, checked: CheckedRequest, closed: Closed) -> Outcome:
        cid = checked.correlation_id
        if closed.approved:
            return Outcome(cid, checked.source, self.max_attempts, error_code=ErrorCode.ALREADY_APPROVED, sha256=closed.sha256, closed=closed,
                           error_msg=f"task {cid!r} was already approved on attempt {closed.attempt} (sha256 {closed.sha256}); its actions "
                                     "went out on ~/approved_actions and a task is approved once: not verified again; a new plan needs a "
                                     "new correlation id")
        return Outcome(cid, checked.source, self.max_attempts, error_code=ErrorCode.ATTEMPTS_EXHAUSTED, closed=closed,
                       error_msg=f"correlation id {cid!r} has used up its {closed.attempt} attempts and was handed to the fallback; "
                                 "start a new task with a new correlation id")

    def _note_graph(self, verified: Verified) -> None:
        """A verification that read the graph (or failed to) is the freshest news for /diagnostics."""
        if self._graph is None:
            return
        if verified.graph_read:
            self.stats.graph(True, self.graph_description)
        elif verified.graph_down is not None:
            self.stats.graph(False, verified.graph_down.removeprefix("Knowledge graph unavailable: "))

    def _count(self, outcome: Outcome, latency_ms: float) -> None:
        names = ["requests"]
        if outcome.report is not None and outcome.error_code is ErrorCode.NONE:
            names += ["verified", "approved" if outcome.approved else "rejected"]
            if outcome.fallback:
                names.append("fallback")
            self.stats.latency(latency_ms)
        else:  # the counters /diagnostics lists: not_active, bad_request, internal_error, attempts_exhausted, ...
            names.append("internal_error" if outcome.error_code is ErrorCode.INTERNAL else outcome.error_code.name.lower())
        self.stats.count(*names)

    def _record(self, outcome: Outcome, request: VerifyRequest, checked: CheckedRequest | None, start: StartChoice | None,
                stamp_ns: int, t0: float) -> dict[str, Any]:
        report = outcome.report if outcome.error_code is ErrorCode.NONE else None
        plan_bytes = request.plan.encode("utf-8", "surrogatepass")
        verified = outcome.verified
        return {
            "time": utc_now().isoformat(timespec="microseconds").replace("+00:00", "Z"),
            "ros_time_ns": stamp_ns,
            "correlation_id": outcome.correlation_id,
            "source": outcome.source,
            "decision": outcome.decision,
            "attempt": outcome.attempt_number or None,
            "max_attempts": outcome.max_attempts,
            "retry_allowed": outcome.retry_allowed,
            "fallback": outcome.fallback,
            "step_count": verified.step_count if report is not None and verified is not None else 0,
            "validation_result": "error" if report is None else ("pass" if report.approved else "fail"),
            "error_code": outcome.error_code.name,
            "error_msg": outcome.error_msg,
            "error_details": _error_details(report),
            "request": {
                "plan_sha256": hashlib.sha256(plan_bytes).hexdigest(),
                "plan_bytes": len(plan_bytes),
                "plan_format": checked.plan_format if checked else request.plan_format[:32],
                "level": self.level_for(checked) if checked else None,
                "instruction": checked.instruction if checked else None,
                "claimed_attempt": checked.attempt if checked else None,
            },
            "start_state": start.to_dict() if start else None,
            "robot": self.robot.name,
            "graph": self.graph_description,
            "actions_sha256": outcome.sha256 or None,
            "latency_ms": round((time.perf_counter() - t0) * 1000.0, 3),
            "worker": dict(verified.worker) if verified is not None else None,
            "report": report.to_dict() if report is not None else None,
        }


def _error_details(report: Report | None) -> list[dict[str, Any]]:
    """Seed 003's error_details: the problems that made the plan fail or warn, compactly."""
    if report is None:
        return []
    return [
        {"rule_id": f.rule_id, "severity": f.severity.value, "step": f.step, "line": f.span.line if f.span else None, "message": f.message}
        for f in report.findings
        if f.severity is not Severity.INFO
    ]


def _stamp_text(stamp_ns: int) -> str | None:
    """The node clock's time (sim time with use_sim_time) for the YAML; None = now."""
    if stamp_ns <= 0:
        return None
    moment = dt.datetime.fromtimestamp(stamp_ns // 1_000_000_000, dt.timezone.utc) + dt.timedelta(microseconds=stamp_ns % 1_000_000_000 // 1000)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
