"""The verification report (contract §2) and how findings become a verdict.

The same report model is printed by the CLI, returned by the ROS service and
written to the audit log. Aggregation is deliberately simple and fixed:

* verdict: FAIL iff a CRITICAL finding exists (an unrunnable check is CRITICAL,
  so missing evidence never approves a robot), PARTIAL iff a WARNING exists,
  else PASS;
* outcome (seed 004): FAIL when a violation was established, UNKNOWN when a
  check could not run, else OK;
* score: weighted share of passed checks (rules that may emit CRITICAL weigh
  1.0, WARNING-only 0.5, INFO-only 0.1; a rule with a WARNING earns half its
  weight, one with only INFO 90%), halved when the verdict is FAIL so that every
  rejected plan scores below every approved one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from plan_verifier import __version__
from plan_verifier.findings import STAGE_ORDER, Category, Finding, Severity
from plan_verifier.graph.model import Cell
from plan_verifier.ir import Plan

if TYPE_CHECKING:  # the simulation's types (numpy and all) are loaded when the execution level runs, not with the report
    from plan_verifier.motion.facts import Execution

SCHEMA_VERSION = "1"
VERIFIER_ID = f"plan_verifier/{__version__}"
MAX_REASON_CODES = 3
_RULE_WEIGHT = {Severity.CRITICAL: 1.0, Severity.WARNING: 0.5, Severity.INFO: 0.1}
_CREDIT = {Severity.CRITICAL: 0.0, Severity.WARNING: 0.5, Severity.INFO: 0.9}


@dataclass(frozen=True)
class Report:
    plan_format: str
    level: str
    verdict: str
    outcome: str
    approved: bool
    score: float
    level_failed: str | None
    findings: tuple[Finding, ...]
    reason_codes: tuple[str, ...]
    violated_constraints: tuple[str, ...]
    failure_cluster_id: str
    graph: Mapping[str, Any] | None
    timings_ms: Mapping[str, float]
    path: str | None = None
    #: The execution level's run in short (start configuration and where it came from, motions simulated,
    #: cycle time, closest approach); None when the level did not run.
    execution: Mapping[str, Any] | None = None
    verifier_id: str = VERIFIER_ID
    schema_version: str = SCHEMA_VERSION
    #: The plan that was checked (for approved-YAML emission); not part of the JSON.
    plan: Plan | None = field(default=None, compare=False, repr=False)
    #: The graph snapshot it was checked against (its fingerprint goes into approved YAML); not part of the JSON.
    cell: Cell | None = field(default=None, compare=False, repr=False)
    #: The execution level's simulated run (`motion.facts.Execution`: the verified joint paths go into the
    #: approved YAML); not part of the JSON.
    motion: Execution | None = field(default=None, compare=False, repr=False)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    def could_not_run(self, category: Category) -> Finding | None:
        """The finding that says a check of `category` could not run (the graph was unreadable, ...), if any."""
        return next((f for f in self.findings if f.indeterminate and f.category is category), None)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.path is not None:
            out["path"] = self.path
        out.update(
            {
                "schema_version": self.schema_version,
                "verifier_id": self.verifier_id,
                "plan_format": self.plan_format,
                "level": self.level,
                "verdict": self.verdict,
                "outcome": self.outcome,
                "approved": self.approved,
                "score": self.score,
                "level_failed": self.level_failed,
                "findings": [f.to_dict() for f in self.findings],
                "reason_codes": list(self.reason_codes),
                "violated_constraints": list(self.violated_constraints),
                "failure_cluster_id": self.failure_cluster_id,
                "graph": dict(self.graph) if self.graph is not None else None,
                "execution": dict(self.execution) if self.execution is not None else None,
                "timings_ms": dict(self.timings_ms),
            }
        )
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, plan: Plan | None = None) -> "Report":
        """The inverse of `to_dict`; `plan` (e.g. the source text) lets the text renderer show source lines."""
        return cls(
            plan_format=data["plan_format"],
            level=data["level"],
            verdict=data["verdict"],
            outcome=data["outcome"],
            approved=bool(data["approved"]),
            score=float(data["score"]),
            level_failed=data.get("level_failed"),
            findings=tuple(Finding.from_dict(f) for f in data.get("findings", ())),
            reason_codes=tuple(data.get("reason_codes", ())),
            violated_constraints=tuple(data.get("violated_constraints", ())),
            failure_cluster_id=data.get("failure_cluster_id", ""),
            graph=data.get("graph"),
            execution=data.get("execution"),
            timings_ms=dict(data.get("timings_ms") or {}),
            path=data.get("path"),
            verifier_id=data.get("verifier_id", VERIFIER_ID),
            schema_version=data.get("schema_version", SCHEMA_VERSION),
            plan=plan,
        )


def cluster_id(reason_codes: Sequence[str], violated: Sequence[str]) -> str:
    """Seed 004 §5.2.1: the same failure always maps to the same key."""
    key = "rc=" + ",".join(sorted(reason_codes)) + "|vc=" + ",".join(sorted(violated)) + "|st=verify"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()


def assemble(
    findings: Iterable[Finding],
    *,
    plan_format: str,
    level: str,
    rules_run: Sequence[Any],
    reasons: Mapping[str, str],
    strict: bool = False,
    graph: Mapping[str, Any] | None = None,
    timings_ms: Mapping[str, float] | None = None,
    path: str | None = None,
    plan: Plan | None = None,
    cell: Cell | None = None,
    execution: Mapping[str, Any] | None = None,
    motion: Execution | None = None,
) -> Report:
    """Turn findings into a report. `reasons` maps rule id -> seed 004 reason code;
    `rules_run` are the rule classes that ran (for the score)."""
    ordered = tuple(sorted(findings, key=lambda f: f.sort_key))
    critical = [f for f in ordered if f.severity is Severity.CRITICAL]
    warnings = [f for f in ordered if f.severity is Severity.WARNING]
    verdict = "FAIL" if critical else ("PARTIAL" if warnings else "PASS")
    if any(not f.indeterminate for f in critical):
        outcome = "FAIL"
    elif any(f.indeterminate for f in ordered):
        outcome = "UNKNOWN"
    else:
        outcome = "OK"
    stages_failed = {f.category.stage for f in critical}
    level_failed = next((s for s in STAGE_ORDER if s in stages_failed), None)
    violated = tuple(sorted({f.rule_id for f in critical + warnings}))
    codes = _reason_codes(ordered, reasons)
    return Report(
        plan_format=plan_format,
        level=level,
        verdict=verdict,
        outcome=outcome,
        approved=verdict != "FAIL" and not (strict and verdict != "PASS"),
        score=_score(ordered, rules_run, verdict),
        level_failed=level_failed,
        findings=ordered,
        reason_codes=codes,
        violated_constraints=violated,
        failure_cluster_id="" if verdict == "PASS" else cluster_id(codes, violated),
        graph=graph,
        timings_ms=dict(timings_ms or {}),
        path=path,
        plan=plan,
        cell=cell,
        execution=execution,
        motion=motion,
    )


def _reason_codes(findings: Sequence[Finding], reasons: Mapping[str, str]) -> tuple[str, ...]:
    """The dominant one to three codes: most severe findings first, indeterminate always counted."""
    relevant = [f for f in findings if f.severity is not Severity.INFO or f.indeterminate]
    relevant.sort(key=lambda f: (-f.severity.rank, not f.indeterminate))
    codes: list[str] = []
    for f in relevant:
        code = f.evidence.get("reason_code") or reasons.get(f.rule_id, "constraint_violation")
        if code not in codes:
            codes.append(code)
    return tuple(sorted(codes[:MAX_REASON_CODES]))


def _score(findings: Sequence[Finding], rules_run: Sequence[Any], verdict: str) -> float:
    worst: dict[str, Severity] = {}
    for f in findings:
        if f.rule_id not in worst or f.severity.rank > worst[f.rule_id].rank:
            worst[f.rule_id] = f.severity
    total = earned = 0.0
    for rule in rules_run:
        weight = _RULE_WEIGHT[rule.severity]
        total += weight
        earned += weight * (_CREDIT[worst[rule.id]] if rule.id in worst else 1.0)
    for rule_id, severity in worst.items():  # findings from outside the rule set (should not happen)
        if rule_id not in {r.id for r in rules_run}:
            total += 1.0
            earned += _CREDIT[severity]
    score = earned / total if total else 1.0
    if verdict == "FAIL":
        score *= 0.5
    return round(score, 4)
