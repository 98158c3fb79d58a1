"""Repairing an approved-actions file (contract §6): its steps repaired as the plan they came from, written back
as an actions file.

An actions file holds either seed 003 steps (repaired as a JSON step plan) or our
export of a TDL program, one step per executed command (written back as a TDL
program — each named pose a `DEFINE`, each GOAL's commands in order — and repaired
as one). A repaired plan that the pipeline approves comes back as a freshly
approved actions file (new `verification` block and sha256, its `verified` joint
targets those of this verification); one that is not approved comes back as its
steps only, with no `verification` block, so no executor can take it for approved.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from plan_verifier.actions import approved_yaml, plan_steps
from plan_verifier.ir import Plan, Pose, Unresolved, fmt_number
from plan_verifier.repair.result import Edit, RepairResult
from plan_verifier.repair.verifying import Verification
from plan_verifier.robot_sequence import DEFAULT_NAME, VERIFIED_KEY, RobotSequence


def repair_actions(text: str, verification: Verification) -> RepairResult:
    original = verification(text)
    if original.approved or original.plan is None or not original.plan.parsed:
        return RepairResult(text, (), (), original, original, 0.0, verification.count)
    plan = original.plan
    if plan.format == "json":
        from plan_verifier.repair.json_repair import repair_json

        steps = [{k: v for k, v in s.fields.items() if k != VERIFIED_KEY} for s in plan.steps]
        inner = repair_json(json.dumps({"name": plan.name or DEFAULT_NAME, "description": plan.description or "", "steps": steps},
                                       ensure_ascii=False, indent=2), verification, yaml=False)
    else:
        from plan_verifier.repair.tdl_repair import repair_tdl

        inner = repair_tdl(tdl_program(plan), verification)
    if not inner.edits:
        return RepairResult(text, (), inner.unrepaired, original, original, inner.seconds, verification.count)
    edits = tuple(Edit(None, e.before, e.after, e.fixes, e.why, e.step) for e in inner.edits)  # lines of the intermediate plan mean nothing here
    if inner.verified:
        cell = inner.report.cell
        out, _ = approved_yaml(inner.report, correlation_id=str(uuid.uuid4()), robot=verification.verifier.robot.name,
                               graph_fingerprint=cell.fingerprint if cell is not None else None)
    else:
        repaired = inner.report.plan
        out = RobotSequence(plan.name or DEFAULT_NAME, plan.description or "", plan_steps(repaired)).to_yaml()
    return RepairResult(out, edits, inner.unrepaired, inner.report, original, inner.seconds, verification.count)


def tdl_program(plan: Plan) -> str:
    """The TDL program an exported actions file's command steps come from: named poses DEFINEd, commands per GOAL."""
    defines: dict[str, str] = {}
    goals: list[tuple[str, list[str]]] = []
    for step in plan.steps:
        args = ", ".join(f"{name}={_value(value, defines)}" for name, value in step.params.items())
        call = f"{step.command}({args})"
        line = f"    SPAWN {call} WITH {step.spawn};" if step.spawn else f"    {call};"
        goal = step.goal or "Execute_Process"
        if not goals or goals[-1][0] != goal:
            goals.append((goal, []))
        goals[-1][1].append(line)
    out = [f"DEFINE {name} = {value};" for name, value in defines.items()]
    if out:
        out.append("")
    for goal, lines in goals:
        out.append(f"GOAL {goal}() {{")
        out.extend(lines)
        out.append("}")
    return "\n".join(out) + "\n"


def _value(value: Any, defines: dict[str, str]) -> str:
    if isinstance(value, Pose):
        literal = f"{value.constructor}({', '.join(fmt_number(v) for v in value.values)})"
        if value.name and value.name.isidentifier() and defines.get(value.name, literal) == literal:
            defines[value.name] = literal
            return value.name
        return literal
    if isinstance(value, Unresolved):
        return value.text
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float)):
        return fmt_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v, defines) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)
