"""The planner-facing feedback text: one line per problem, seed 003 style.

Graph problems come as seed 003's per-step strings (`report.graph.feedback`,
e.g. "Step 2: No :ONLY_ALLOWED_MOVE_TO edge from 'Home' to 'Pos_5'"); every
other CRITICAL or WARNING finding becomes "Line N: …" (TDL) or "Step N: …"
(JSON plans) with its repair hint, so a planner that only reads text still gets everything it needs
to repair the plan in one round.
"""

from __future__ import annotations

from plan_verifier.findings import Category, Severity
from plan_verifier.report import Report


def feedback_text(report: Report) -> str:
    graph_feedback = str((report.graph or {}).get("feedback") or "").strip()
    lines = graph_feedback.splitlines() if graph_feedback else []
    for f in report.findings:
        if f.severity is Severity.INFO or (graph_feedback and f.category is Category.GRAPH):
            continue
        line = f"Line {f.span.line}: " if f.span else ""
        step = f"Step {f.step}: " if f.step else ""
        where = (line or step) if report.plan_format == "tdl" else (step or line)
        hint = f" (hint: {f.suggestion})" if f.suggestion else ""
        lines.append(f"{where}{f.message}{hint}")
    return "\n".join(lines)
