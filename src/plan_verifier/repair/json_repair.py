"""Repairing a JSON/YAML step plan: the cell graph's repairs first, then the motions between positions.

A step plan names cell positions; its moves are joint moves between their
configurations (contract §7), so the levers a repair has are the graph's: the
missing waypoints and tool-change detours `graph.repair` inserts (legal moves
only), speeds clamped into the allowed range, and — for a move the execution
level rejects (a collision on the way, a target reached on a branch that runs into
something) — a detour through another position of the cell that the graph allows
and the checks pass. When the cell has no such position, the move stays
unrepaired: the reason says so, and the alternative is the collision-free joint
path the motion planner finds, as joints an integrator can teach as a position.
The plan is written back in its own syntax (JSON or YAML), its fields and their
order kept; every candidate is verified by the whole pipeline.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import numpy as np

from plan_verifier.findings import Category
from plan_verifier.graph.repair import repair_plan as graph_repair
from plan_verifier.graph.simulate import SimState
from plan_verifier.ir import fmt_number
from plan_verifier.report import Report
from plan_verifier.repair.result import GAVE_UP, Edit, RepairResult, Unrepaired
from plan_verifier.repair.rule_sets import COLLISION, PATH, STEP_FIELDS, why_not
from plan_verifier.repair.task import task_difference, task_events
from plan_verifier.repair.verifying import Verification, blocking, semantic_verdict
from plan_verifier.yaml_text import dump as dump_yaml, load as load_yaml

_SPEEDS = STEP_FIELDS
_MOTION = COLLISION | PATH


def repair_json(text: str, verification: Verification, *, yaml: bool | None = None) -> RepairResult:
    t0 = time.perf_counter()
    original = verification(text, "json")
    if original.approved:
        return RepairResult(text, (), (), original, original, time.perf_counter() - t0, verification.count)
    plan, cell = original.plan, original.cell
    if plan is None or not plan.parsed or cell is None:
        why = "the plan could not be read as a step plan" if cell is not None else "the cell graph could not be read"
        return RepairResult(text, (), tuple(Unrepaired(f.rule_id, f.span.line if f.span else None, f.step, why, f.suggestion)
                                            for f in blocking(original)), original, original, time.perf_counter() - t0,
                            verification.count)
    yaml = yaml if yaml is not None else not text.lstrip().startswith(("{", "["))
    writer = _Writer(_load(text, yaml), yaml)
    edits: list[Edit] = []
    steps = [dict(s.fields) for s in plan.steps]
    current = original
    # 1. the graph's own repairs (legal waypoints, tool-change detours)
    start = verification.verifier.start_state(cell, verification.start_position, verification.start_tool)
    fixed = graph_repair(plan, cell, SimState(start.position, start.tool))
    if fixed.changed:
        candidate_steps = [dict(s) for s in fixed.steps]
        report = verification(writer.text(candidate_steps), "json")
        if _keeps(original, report, cell, verification):
            steps, current = candidate_steps, report
            graph_rules = sorted({f.rule_id for f in blocking(original) if f.category is Category.GRAPH})
            for change in fixed.changes:
                number = _step_number(change)
                edits.append(Edit(_line(original, number), None, change, tuple(graph_rules), "the cell graph's repair (legal moves only)",
                                  step=number))
    # 2. speeds and motions, step by step
    tried: set[tuple[str, int | None]] = set()
    reasons: dict[tuple[str, int | None], tuple[str, str | None]] = {}
    for _ in range(3 * len(steps) + 3):
        todo = [f for f in blocking(current) if (f.rule_id, f.step) not in tried]
        todo = [f for f in todo if f.rule_id in _SPEEDS or f.rule_id in _MOTION] or todo
        if not todo:
            break
        finding = todo[0]
        tried.add((finding.rule_id, finding.step))
        kept = None
        for candidate_steps, edit in _candidates(finding, steps, current, cell):
            if verification.expired:
                break
            report = verification(writer.text(candidate_steps), "json")
            if _keeps(original, report, cell, verification) and not any(
                    f.rule_id == finding.rule_id and f.step == finding.step for f in blocking(report)) \
                    and len(blocking(report)) <= len(blocking(current)):
                kept = (candidate_steps, report, edit)
                break
        if kept is None:
            if finding.rule_id in _MOTION:
                reasons[(finding.rule_id, finding.step)] = _no_detour(finding, current, verification)
            continue
        steps, current, edit = kept
        edits.append(edit)
    unrepaired = []
    for f in blocking(current):
        if (f.rule_id, f.step) in reasons:
            (why, alternative), kind = reasons[(f.rule_id, f.step)], GAVE_UP
        else:
            (why, kind), alternative = why_not(f), f.suggestion
        unrepaired.append(Unrepaired(f.rule_id, f.span.line if f.span else None, f.step, why, alternative, {"message": f.message},
                                     kind))
    return RepairResult(writer.text(steps) if edits else text, tuple(edits), tuple(unrepaired), current, original,
                        time.perf_counter() - t0, verification.count)


def _candidates(finding, steps: list[dict[str, Any]], report: Report, cell):
    index = (finding.step or 0) - 1
    if not 0 <= index < len(steps):
        return
    if finding.rule_id in _SPEEDS:
        field = _SPEEDS[finding.rule_id]
        low, high = finding.evidence.get("min"), finding.evidence.get("max")
        value = steps[index].get(field)
        if isinstance(value, (int, float)) and low is not None and high is not None:
            new = min(max(float(value), float(low)), float(high))
            changed = [dict(s) for s in steps]
            changed[index][field] = int(new) if new.is_integer() else new
            yield changed, Edit(_line(report, finding.step), f"{field}: {fmt_number(value)}", f"{field}: {fmt_number(new)}",
                                (finding.rule_id,), f"{field} clamped into the allowed range [{low:g}, {high:g}]", step=finding.step)
        return
    if finding.rule_id not in _MOTION or steps[index].get("action") != "move":
        return
    target = steps[index].get("target")
    here = _position_before(report, finding.step)
    if here is None or target not in cell.positions:
        return
    for via in sorted(cell.neighbours(here)):
        if via in (here, target) or target not in cell.neighbours(via) or cell.positions[via].role == "work":
            continue
        inserted = {"name": f"Move to {via}", "action": "move", "target": via}
        if "id" in steps[index]:
            inserted = {"id": None, **inserted}
        changed = [dict(s) for s in steps[:index]] + [inserted] + [dict(s) for s in steps[index:]]
        if all(isinstance(s.get("id"), int) or s.get("id") is None for s in changed) and "id" in steps[index]:
            changed = [{**s, "id": i} for i, s in enumerate(changed, start=1)]
        yield changed, Edit(_line(report, finding.step), None, json.dumps(inserted, ensure_ascii=False), (finding.rule_id,),
                            f"the move {here} -> {target} detours through {via} (allowed both ways by the graph), whose "
                            "joint moves the checks pass", step=finding.step)


def _no_detour(finding, report: Report, verification: Verification) -> tuple[str, str | None]:
    """Why a move stays rejected, and the joint path an integrator could teach instead."""
    why = ("no position of the cell that the graph allows between the two ends gives a clear joint move: the move needs a "
           "via position the cell does not have")
    motion = report.motion
    if motion is None or finding.step is None:
        return why, None
    simulated = motion.motion_at(finding.step)
    if not simulated or not simulated[0].complete and len(simulated[0].q_deg) < 2:
        return why, None
    from plan_verifier.repair.model import MotionModel
    from plan_verifier.repair.planner import PlannerUnavailable, plan_path

    model = MotionModel(verification.verifier.robot, report.cell)
    tool = simulated[0].motion.tool
    name = re.fullmatch(r"tool '(.*)'", tool)
    mount = model.mount(cell_tool=name.group(1) if name else None)
    q0 = np.radians(np.asarray(simulated[0].q_deg[0], dtype=float))
    q1 = np.radians(np.asarray(simulated[-1].q_deg[-1], dtype=float))
    try:
        vias = plan_path(model, mount, q0, q1)
    except PlannerUnavailable:
        return why, None
    if not vias:
        return why, None
    joints = "; ".join("[" + ", ".join(fmt_number(round(float(v), 1)) for v in np.degrees(q)) + "]" for q in vias)
    return why, f"teach a via position with joints {joints} (a collision-free joint path the motion planner found) and allow " \
                "the moves to and from it"


def _keeps(original: Report, report: Report, cell, verification: Verification) -> bool:
    """The candidate does the same task (routines in order at the same poses) and keeps the semantic verdict."""
    if report.plan is None or not report.plan.parsed or semantic_verdict(report) != semantic_verdict(original):
        return False
    if original.motion is None or original.motion.unavailable is not None:
        return True
    from plan_verifier.graph.simulate import simulate
    from plan_verifier.repair.model import MotionModel

    model = MotionModel(verification.verifier.robot, cell)
    start = verification.verifier.start_state(cell, verification.start_position, verification.start_tool)
    before = task_events(original.plan, model, cell, simulate(original.plan, cell, start))
    after = task_events(report.plan, model, cell, simulate(report.plan, cell, start))
    return task_difference(before, after) is None


def _position_before(report: Report, step: int) -> str | None:
    here = None
    for s in report.plan.steps[: step - 1]:
        if s.action == "move":
            here = s.target_name
        elif s.position:
            here = s.position
    if here is None and report.cell is not None:
        here = report.cell.initial_position
    return here


def _line(report: Report, step: int | None) -> int | None:
    if step is None or report.plan is None or not 1 <= step <= len(report.plan.steps):
        return None
    span = report.plan.step(step).span
    return span.line if span else None


def _step_number(change: str) -> int | None:
    found = re.match(r"Step (\d+):", change)
    return int(found.group(1)) if found else None


def _load(text: str, yaml: bool) -> Any:
    return load_yaml(text) if yaml else json.loads(text)


class _Writer:
    """The plan's document with new steps, in its own syntax (JSON or YAML), its other fields and their order kept."""

    def __init__(self, document: Any, yaml: bool):
        self.document = document
        self.yaml = yaml

    def text(self, steps: list[dict[str, Any]]) -> str:
        steps = [{k: v for k, v in s.items() if not (k == "id" and v is None)} for s in steps]
        document: Any = steps if isinstance(self.document, list) else {**self.document, "steps": steps}
        return dump_yaml(document) if self.yaml else json.dumps(document, ensure_ascii=False, indent=2) + "\n"
