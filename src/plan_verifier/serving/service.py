"""The verification service: one configured verifier and its bookkeeping.

This is what the ROS node holds between `configure` and `cleanup`. Opening it
loads the robot spec, opens the cell graph and reads it once (so a bad spec
or an unreachable graph fails the configure transition with a reason), and
opens the audit log. `handle` answers one request and is safe to call from
many threads at once:

1. check the request (BAD_REQUEST), refuse closed tasks (ATTEMPTS_EXHAUSTED);
2. resolve the start state and verify, concurrently with other requests, at
   the request's level or the node's, whichever checks more (a planner cannot
   ask for fewer checks than the integrator configured); any exception is an
   INTERNAL error, never an approval (fail closed);
3. under one commit lock: assign the attempt number, append the audit record
   (fsync'ed), write the approved YAML atomically, and hand the outcome to the
   caller's `publish`. Doing these together keeps the audit log, the attempt
   count, the actions file and the latched ~/approved_actions in one order.

The lifecycle gate: `activate` opens it, `deactivate` closes it and waits
until every request already admitted has been answered, so a request is
either refused with NOT_ACTIVE or answered completely, never half-way.
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

from plan_verifier.actions import approved_yaml, write_atomic
from plan_verifier.findings import Category, Severity
from plan_verifier.graph.open import open_graph
from plan_verifier.graph.port import GraphPort
from plan_verifier.pipeline import LEVELS, Verifier
from plan_verifier.report import Report
from plan_verifier.resources import ConfigError
from plan_verifier.robots.spec import load_robot
from plan_verifier.serving.attempts import Attempt, AttemptLedger
from plan_verifier.serving.audit import AuditLog, utc_now
from plan_verifier.serving.feedback import feedback_text
from plan_verifier.serving.requests import CheckedRequest, ErrorCode, RequestError, VerifyRequest, check_request, safe_correlation_id
from plan_verifier.serving.settings import Settings
from plan_verifier.serving.joint_states import read_joint_state
from plan_verifier.serving.start_state import StartChoice, StartStateSource, StateDbError
from plan_verifier.serving.stats import ServiceStats, StatsSnapshot

log = logging.getLogger("plan_verifier.serving")
#: Repairs of rejected plans remembered per service (by the plan and the inputs it was verified with).
REPAIRS_REMEMBERED = 64
#: A rejected plan is repaired within one answer only up to this many steps, and for at most this long (the repair's
#: candidates after that are not verified; what is left is reported as not repaired).
REPAIR_MAX_STEPS = 400
REPAIR_SECONDS = 10.0

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
    def retry_allowed(self) -> bool:
        if self.attempt is not None:
            return self.attempt.retry_allowed
        return self.error_code is not ErrorCode.ATTEMPTS_EXHAUSTED

    @property
    def fallback(self) -> bool:
        return self.error_code is ErrorCode.NONE and self.attempt is not None and self.attempt.fallback

    @cached_property
    def report_json(self) -> str:
        if self.report is None:
            return ""
        return json.dumps({**self.report.to_dict(), **({"repair": self.repair} if self.repair is not None else {})}, ensure_ascii=False)

    @property
    def publishes_feedback(self) -> bool:
        """~/feedback carries every rejection, and the answer to topic requests that could not be verified."""
        return self.rejected or (self.error_code not in (ErrorCode.NONE, ErrorCode.NOT_ACTIVE) and self.source == "topic")


def open_graph_port(settings: Settings) -> GraphPort | None:
    """The graph the settings name (graph_uri wins over cell), not yet read."""
    if settings.graph_source == "neo4j":
        return open_graph(uri=settings.graph_uri, user=settings.graph_user, database=settings.graph_database,
                          timeout_s=settings.graph_timeout_s)
    return open_graph(cell=settings.cell) if settings.graph_source == "embedded" else None


class VerificationService:
    def __init__(self, settings: Settings, robot_description: tuple[str, str | None] | None = None) -> None:
        """Open everything; ConfigError (with the reason) when the spec, graph or log directory is unusable.

        `robot_description`: the URDF and SRDF text the node received, for a `robot` read from them."""
        self.settings = settings
        urdf, srdf = robot_description or (None, None)
        self.robot = load_robot(settings.robot, urdf_text=urdf, srdf_text=srdf)
        self._graph = open_graph_port(settings)
        try:
            self.graph_description = self._graph.describe() if self._graph else "no graph (TDL checks only)"
            self.stats = ServiceStats()
            if self._graph is not None and not self.probe_graph():
                raise ConfigError(f"knowledge graph unreachable ({self.graph_description}): {self.stats.snapshot().graph_message}")
            self._verifier = Verifier(self.robot, graph=self._graph, profile=settings.profile, level=settings.level,
                                      options=settings.verifier_options())
            self.level = settings.level
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
        except BaseException:
            if self._graph is not None:
                self._graph.close()
            raise
        self._actions_path = Path(settings.actions_output_path) if settings.actions_output_path.strip() else None
        self._commit = threading.Lock()
        self._repairs: OrderedDict[tuple, dict] = OrderedDict()
        self._repairs_lock = threading.Lock()
        self._gate = threading.Condition()
        self._active = False
        self._closed = False
        self._in_flight = 0

    # ---------------------------------------------------------------- lifecycle
    def activate(self) -> None:
        with self._gate:
            self._active = True

    def deactivate(self, timeout: float | None = None) -> bool:
        """Stop admitting requests and wait for those admitted; False if some are still running."""
        with self._gate:
            self._active = False
            return self._gate.wait_for(lambda: self._in_flight == 0, timeout)

    @property
    def active(self) -> bool:
        with self._gate:
            return self._active

    def close(self) -> None:
        """Release the graph and the log; later requests are refused with NOT_ACTIVE and not logged."""
        self.deactivate(self.settings.drain_timeout_s)
        with self._gate:
            self._closed = True
        if self._graph is not None:
            self._graph.close()
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
        except Exception as exc:  # noqa: BLE001 - any backend failure means "unavailable"
            self.stats.graph(False, f"{exc.__class__.__name__}: {exc}")
            return False
        self.stats.graph(True, self.graph_description)
        return True

    def diagnostics(self) -> StatsSnapshot:
        return self.stats.snapshot()

    # ---------------------------------------------------------------- requests
    def handle(self, request: VerifyRequest, *, stamp_ns: int = 0, publish: Callable[[Outcome], None] | None = None) -> Outcome:
        """Answer one request (never raises for request content); `publish` is called inside the commit."""
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
            outcome = self._commit_outcome(outcome, request, checked, start, stamp_ns, t0, publish if admitted else None)
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
        if self._ledger.exhausted(checked.correlation_id):
            return self._exhausted(checked), checked, None
        try:
            start = self._start.resolve(checked.start_position, checked.start_tool, now_ns=stamp_ns)
        except StateDbError as exc:
            return self._error(request, ErrorCode.INTERNAL, f"start state unknown: {exc}", checked.correlation_id), checked, None
        try:
            report = self._verifier.verify(checked.plan, plan_format=checked.plan_format, level=self.level_for(checked),
                                           instruction=checked.instruction, start_position=start.position, start_tool=start.tool,
                                           start_joints=start.joints_deg, start_joints_source=start.joints_source or "request")
            self._note_graph(report)
            actions, sha = "", ""
            if report.approved:
                actions, sha = approved_yaml(report, correlation_id=checked.correlation_id, robot=self.robot.name,
                                             graph_fingerprint=report.cell.fingerprint if report.cell is not None else None,
                                             timestamp=_stamp_text(stamp_ns))
        except Exception as exc:  # noqa: BLE001 - fail closed: a crash is an error answer, never an approval
            log.exception("verification of %s failed", checked.correlation_id)
            return self._error(request, ErrorCode.INTERNAL, f"verification failed: {exc.__class__.__name__}: {exc}", checked.correlation_id), checked, start
        outcome = Outcome(checked.correlation_id, checked.source, self.max_attempts, report=report, actions_yaml=actions, sha256=sha,
                          feedback=feedback_text(report), repair=self._repair(checked, start, report))
        return outcome, checked, start

    def _repair(self, checked: CheckedRequest, start: StartChoice, report: Report) -> dict | None:
        """The repair of a rejected plan (contract §8), verified with the same inputs; None when approved, switched off
        (`repair_rejected`), or when the repair itself fails (logged: it never changes the verdict)."""
        if report.approved or not getattr(self.settings, "repair_rejected", True):
            return None
        if report.plan is None or len(report.plan.steps) > REPAIR_MAX_STEPS:
            return None  # a program that long is rewritten by its planner, not repaired within one answer
        from plan_verifier.repair import Verification, repair_plan

        level = checked.level or self.level
        key = (checked.plan, checked.plan_format, level, checked.instruction, start.position, start.tool,
               tuple(start.joints_deg) if start.joints_deg is not None else None)
        with self._repairs_lock:  # a repair takes seconds: a plan retried or replayed is repaired once
            if key in self._repairs:
                self._repairs.move_to_end(key)
                return self._repairs[key]
        try:
            verification = Verification(self._verifier, level=level, instruction=checked.instruction,
                                        start_position=start.position, start_tool=start.tool, start_joints=start.joints_deg,
                                        start_joints_source=start.joints_source or "request",
                                        deadline=time.monotonic() + REPAIR_SECONDS)
            repaired = repair_plan(checked.plan, verification, checked.plan_format).to_dict()
        except Exception:  # noqa: BLE001 - the rejection stands without its repair
            log.exception("repair of %s failed", checked.correlation_id)
            return None
        with self._repairs_lock:
            self._repairs[key] = repaired
            while len(self._repairs) > REPAIRS_REMEMBERED:
                self._repairs.popitem(last=False)
        return repaired

    def _commit_outcome(self, outcome: Outcome, request: VerifyRequest, checked: CheckedRequest | None, start: StartChoice | None,
                        stamp_ns: int, t0: float, publish: Callable[[Outcome], None] | None) -> Outcome:
        with self._commit:
            if outcome.report is not None:
                attempt = self._ledger.preview(outcome.correlation_id, outcome.report.approved, checked.attempt if checked else 0)
                outcome = self._exhausted(checked) if attempt is None else replace(outcome, attempt=attempt)
            try:
                self._audit.append(self._record(outcome, request, checked, start, stamp_ns, t0))
            except OSError as exc:
                log.error("audit log write failed: %s", exc)
                outcome = self._error(request, ErrorCode.INTERNAL, f"audit log write failed: {exc.strerror or exc}", outcome.correlation_id)
            else:
                if outcome.attempt is not None:
                    self._ledger.commit(outcome.attempt)
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

    def _exhausted(self, checked: CheckedRequest) -> Outcome:
        return Outcome(checked.correlation_id, checked.source, self.max_attempts, error_code=ErrorCode.ATTEMPTS_EXHAUSTED,
                       error_msg=f"correlation id {checked.correlation_id!r} has used up its {self.max_attempts} attempts and was handed "
                                 "to the fallback; start a new task with a new correlation id")

    def _note_graph(self, report: Report) -> None:
        """A verification that read the graph (or failed to) is the freshest news for /diagnostics."""
        if self._graph is None:
            return
        down = report.could_not_run(Category.GRAPH)
        if report.cell is not None:
            self.stats.graph(True, self.graph_description)
        elif down is not None:
            self.stats.graph(False, down.message)

    def _count(self, outcome: Outcome, latency_ms: float) -> None:
        names = ["requests"]
        if outcome.report is not None and outcome.error_code is ErrorCode.NONE:
            names += ["verified", "approved" if outcome.approved else "rejected"]
            if outcome.fallback:
                names.append("fallback")
            self.stats.latency(latency_ms)
        else:
            names.append(outcome.error_code.name.lower())
        self.stats.count(*names)

    def _record(self, outcome: Outcome, request: VerifyRequest, checked: CheckedRequest | None, start: StartChoice | None,
                stamp_ns: int, t0: float) -> dict[str, Any]:
        report = outcome.report if outcome.error_code is ErrorCode.NONE else None
        plan_bytes = request.plan.encode("utf-8", "surrogatepass")
        attempt = outcome.attempt
        return {
            "time": utc_now().isoformat(timespec="microseconds").replace("+00:00", "Z"),
            "ros_time_ns": stamp_ns,
            "correlation_id": outcome.correlation_id,
            "source": outcome.source,
            "attempt": attempt.number if attempt else None,
            "max_attempts": outcome.max_attempts,
            "retry_allowed": outcome.retry_allowed,
            "fallback": outcome.fallback,
            "step_count": len(report.plan.steps) if report is not None and report.plan is not None else 0,
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
