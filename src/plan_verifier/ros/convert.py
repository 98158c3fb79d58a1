"""Messages <-> core values. Nothing here decides anything."""

from __future__ import annotations

import json
from typing import Any

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from plan_verifier_interfaces.msg import ApprovedActions, Finding as FindingMsg, VerificationFeedback
from std_msgs.msg import Header

from plan_verifier.findings import Finding, Severity
from plan_verifier.serving.requests import VerifyRequest
from plan_verifier.serving.service import Outcome
from plan_verifier.serving.stats import StatsSnapshot

SEVERITY = {Severity.INFO: FindingMsg.SEVERITY_INFO, Severity.WARNING: FindingMsg.SEVERITY_WARNING, Severity.CRITICAL: FindingMsg.SEVERITY_CRITICAL}
_DIAGNOSTIC_LEVEL = {"OK": DiagnosticStatus.OK, "WARN": DiagnosticStatus.WARN, "ERROR": DiagnosticStatus.ERROR}


def request_from_msg(msg: Any, source: str) -> VerifyRequest:
    """VerifyPlan.Request and PlanRequest carry the same fields."""
    return VerifyRequest(
        plan=msg.plan,
        correlation_id=msg.correlation_id,
        plan_format=msg.plan_format,
        instruction=msg.instruction,
        level=msg.level,
        attempt=int(msg.attempt),
        start_position=msg.start_position,
        start_tool=msg.start_tool,
        source=source,
    )


def stamp(nanoseconds: int) -> Time:
    return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def finding_msg(f: Finding) -> FindingMsg:
    span = f.span
    return FindingMsg(
        rule_id=f.rule_id,
        severity=SEVERITY[f.severity],
        category=f.category.value,
        message=f.message,
        line=span.line if span else 0,
        column=span.column if span else 0,
        end_line=span.end_line if span else 0,
        end_column=span.end_column if span else 0,
        step=f.step or 0,
        suggestion=f.suggestion or "",
        evidence=json.dumps(dict(f.evidence), ensure_ascii=False, default=str),
    )


def fill_response(response: Any, outcome: Outcome) -> Any:
    report = outcome.report
    response.correlation_id = outcome.correlation_id
    response.approved = outcome.approved
    response.attempt = outcome.attempt_number
    response.max_attempts = outcome.max_attempts
    response.retry_allowed = outcome.retry_allowed
    response.error_code = int(outcome.error_code)
    response.error_msg = outcome.error_msg
    if report is not None:
        response.verdict = report.verdict
        response.outcome = report.outcome
        response.score = float(report.score)
        response.level_failed = report.level_failed or ""
        response.findings = [finding_msg(f) for f in report.findings]
        response.feedback = outcome.feedback
        response.report_json = outcome.report_json
    if outcome.approved:
        response.actions_yaml = outcome.actions_yaml
    response.sha256 = outcome.sha256  # an approval's, or (ALREADY_APPROVED) the task's earlier one
    return response


def feedback_msg(outcome: Outcome, nanoseconds: int) -> VerificationFeedback:
    report = outcome.report
    msg = VerificationFeedback(
        header=Header(stamp=stamp(nanoseconds)),
        correlation_id=outcome.correlation_id,
        attempt=outcome.attempt_number,
        max_attempts=outcome.max_attempts,
        retry_allowed=outcome.retry_allowed,
        error_code=int(outcome.error_code),
        error_msg=outcome.error_msg,
    )
    if report is not None:
        msg.verdict = report.verdict
        msg.outcome = report.outcome
        msg.level_failed = report.level_failed or ""
        msg.findings = [finding_msg(f) for f in report.findings]
        msg.feedback = outcome.feedback
        msg.reason_codes = list(report.reason_codes)
        msg.violated_constraints = list(report.violated_constraints)
        msg.failure_cluster_id = report.failure_cluster_id
        msg.report_json = outcome.report_json
    else:
        msg.verdict, msg.outcome = "FAIL", "UNKNOWN"
    return msg


def approved_msg(outcome: Outcome, robot: str, nanoseconds: int) -> ApprovedActions:
    return ApprovedActions(
        header=Header(stamp=stamp(nanoseconds)),
        correlation_id=outcome.correlation_id,
        robot=robot,
        verdict=outcome.report.verdict if outcome.report else "",
        actions_yaml=outcome.actions_yaml,
        sha256=outcome.sha256,
    )


def diagnostics_msg(snapshot: StatsSnapshot, *, name: str, hardware_id: str, active: bool, lifecycle_state: str,
                    graph: str, nanoseconds: int, extra: dict[str, str] | None = None) -> DiagnosticArray:
    level, message = snapshot.level(active)
    values = {
        **(extra or {}),
        "lifecycle_state": lifecycle_state,
        "graph": graph,
        "graph_ok": "unknown" if snapshot.graph_ok is None else str(snapshot.graph_ok).lower(),
        **{k: str(v) for k, v in sorted(snapshot.counts.items())},
        "latency_p50_ms": _ms(snapshot.latency_p50_ms),
        "latency_p99_ms": _ms(snapshot.latency_p99_ms),
        "latency_max_ms": _ms(snapshot.latency_max_ms),
    }
    status = DiagnosticStatus(
        level=_DIAGNOSTIC_LEVEL[level],
        name=name,
        message=message,
        hardware_id=hardware_id,
        values=[KeyValue(key=k, value=v) for k, v in values.items()],
    )
    return DiagnosticArray(header=Header(stamp=stamp(nanoseconds)), status=[status])


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"
