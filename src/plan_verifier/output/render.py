"""Human and tool output for reports: compiler-style text and SARIF 2.1.0.

Text output mirrors what C compilers print so editors and CI logs can jump to
the line: `file:line:col: SEVERITY RULE message`, the source line, a caret
under the span (East Asian wide characters count double), the hint, and a
one-line summary per plan. SARIF lets code-scanning tools gate TDL files.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Iterable, Mapping

from plan_verifier import __version__
from plan_verifier.findings import Finding, Severity
from plan_verifier.report import Report

_SARIF_LEVEL = {Severity.CRITICAL: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _width(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def caret_line(source_line: str, column: int, end_column: int | None) -> str:
    """Spaces (tabs kept) up to `column`, then ^~~~ under the span on that line."""
    prefix = "".join("\t" if ch == "\t" else " " * _width(ch) for ch in source_line[: max(column - 1, 0)])
    end = end_column if end_column and end_column > column else column + 1
    span_text = source_line[column - 1 : end - 1] or " "
    width = max(sum(_width(ch) for ch in span_text), 1)
    return prefix + "^" + "~" * (width - 1)


def _location(report: Report, f: Finding) -> str:
    path = report.path or "<plan>"
    if f.span is None:
        return f"{path}:" + (f" step {f.step}:" if f.step else "")
    return f"{path}:{f.span.line}:{f.span.column}:"


def text(report: Report) -> str:
    lines: list[str] = []
    source_lines = report.plan.source.splitlines() if report.plan is not None else []
    for f in report.findings:
        lines.append(f"{_location(report, f)} {f.severity.value} {f.rule_id} {f.message}")
        if f.span is not None and 0 < f.span.line <= len(source_lines):
            src = source_lines[f.span.line - 1]
            end = f.span.end_column if f.span.end_line == f.span.line else len(src) + 1
            lines.append("    " + src)
            lines.append("    " + caret_line(src, f.span.column, end))
        if f.suggestion:
            lines.append(f"    hint: {f.suggestion}")
    counts = ", ".join(f"{report.count(s)} {name}" for s, name in ((Severity.CRITICAL, "critical"), (Severity.WARNING, "warning"), (Severity.INFO, "info")))
    failed = f", level_failed {report.level_failed}" if report.level_failed else ""
    lines.append(f"{report.path or '<plan>'}: {report.verdict} ({'approved' if report.approved else 'rejected'}; outcome {report.outcome}{failed}; score {report.score:g}): {counts}")
    if report.execution is not None and report.execution.get("ran"):
        lines.append(_execution_line(report.execution))
    return "\n".join(lines) + "\n"


def _execution_line(execution: Mapping[str, Any]) -> str:
    """Where the execution level started (and from what), and what it measured: the run behind the verdict."""
    start = execution.get("start") or {}
    joints = ", ".join(f"{v:g}" for v in start.get("joints_deg") or ())
    closest = execution.get("closest_mm")
    return (f"    execution: start [{joints}] ({start.get('source')}), {execution.get('simulated')} of {execution.get('motions')} "
            f"motions simulated, cycle time {execution.get('cycle_time_s')} s"
            + (f", closest approach {closest} mm" if closest is not None else "")
            + ("; body model conservative (capsules enclosing the links: a contact may be one the real links do not have)"
               if execution.get("body_model") == "conservative" else ""))


def sarif(reports: Iterable[Report]) -> dict:
    from plan_verifier import rules as registry

    reports = list(reports)
    rule_classes = registry.all_rules()
    index = {r.id: i for i, r in enumerate(rule_classes)}
    driver_rules = [
        {
            "id": r.id,
            "name": r.name,
            "shortDescription": {"text": r.summary()},
            "fullDescription": {"text": r.doc()},
            "help": {"text": r.doc()},
            "defaultConfiguration": {"level": _SARIF_LEVEL[r.severity]},
            "properties": {"category": r.category.value, "severities": [s.value for s in r.severities()]},
        }
        for r in rule_classes
    ]
    results = []
    for report in reports:
        uri = report.path if report.path and report.path != "-" else "stdin"
        for f in report.findings:
            location: dict = {"physicalLocation": {"artifactLocation": {"uri": uri}}}
            if f.span is not None:
                location["physicalLocation"]["region"] = {
                    "startLine": f.span.line, "startColumn": f.span.column,
                    "endLine": f.span.end_line, "endColumn": max(f.span.end_column, f.span.column),
                }
            result = {
                "ruleId": f.rule_id,
                "level": _SARIF_LEVEL[f.severity],
                "message": {"text": f.message + (f" Hint: {f.suggestion}" if f.suggestion else "")},
                "locations": [location],
                "properties": {"step": f.step, "evidence": dict(f.evidence), "verdict": report.verdict},
            }
            if f.rule_id in index:
                result["ruleIndex"] = index[f.rule_id]
            results.append(result)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "plan-verify", "version": __version__, "informationUri": "https://github.com/plan-verifier/plan_verifier", "rules": driver_rules}},
                "results": results,
                "invocations": [{"executionSuccessful": True}],
            }
        ],
    }
