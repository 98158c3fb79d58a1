"""The verification pipeline: plan text in, report out.

Stages run in the order of seed 000 §4 (syntax, safety, graph, consistency,
semantic), with seed 004's execution level (L3: the plan run in a kinematic
simulation of the cell) before the semantic stage; the level decides which
run (BASIC: syntax, safety and graph; STANDARD adds consistency, domain and
execution; FULL adds the semantic stage). `VerifyOptions.execution` switches
the execution level off.
After a syntax error nothing else runs, because the other rules would be
reasoning about a program we could not read. Otherwise every applicable rule
runs and every finding is reported, so one repair round can fix everything.
Rules marked `every_level` (a name defined nowhere, a value known only at run
time) run whatever the level: BASIC skips checks, but never approves a value
nobody could evaluate.

Fail closed: a rule that raises becomes a CRITICAL finding of the rule that
reports crashes (`Rule.reports_crashes`), an unreadable graph a graph finding
that could not run; neither can ever approve a plan.
A `Verifier` holds no per-request state and may be shared between threads.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import math
import threading
import time
from typing import Any, Iterator, Sequence

from plan_verifier import rules as registry
from plan_verifier.context import RuleContext, StartState
from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.graph.model import NO_TOOL, Cell
from plan_verifier.graph.port import GraphPort, GraphUnavailable
from plan_verifier.graph.result import verification_result
from plan_verifier.inputs import PlanText, read_plan_text
from plan_verifier.ir import Plan
from plan_verifier.options import Crash, VerifyOptions
from plan_verifier.report import Report, assemble
from plan_verifier.robots.spec import DEFAULT_ROBOT, RobotSpec, load_robot
from plan_verifier.rules.base import Rule
from plan_verifier.rules.grf.trace import TraceRule, trace_findings
from plan_verifier.tdl.lower import lower_tdl

LEVELS = ("BASIC", "STANDARD", "FULL")
#: The start source of an approved-actions file re-verified from the joints its verification recorded.
APPROVED_START = "approved"
PROFILES = ("default", "strict")
_LEVEL_STAGES = {
    "BASIC": (Category.SYNTAX, Category.SAFETY, Category.GRAPH),
    "STANDARD": (Category.SYNTAX, Category.SAFETY, Category.GRAPH, Category.CONSISTENCY, Category.DOMAIN, Category.EXECUTION),
    "FULL": (Category.SYNTAX, Category.SAFETY, Category.GRAPH, Category.CONSISTENCY, Category.DOMAIN, Category.EXECUTION,
             Category.SEMANTIC),
}
_STAGE_ORDER = (Category.SYNTAX, Category.SAFETY, Category.GRAPH, Category.CONSISTENCY, Category.DOMAIN, Category.EXECUTION,
                Category.SEMANTIC)


class Verifier:
    """Checks plans against one robot and (optionally) one cell graph."""

    def __init__(
        self,
        robot: RobotSpec | str = DEFAULT_ROBOT,
        *,
        graph: GraphPort | None = None,
        profile: str = "default",
        level: str = "STANDARD",
        rules: Sequence[type[Rule]] | None = None,
        options: VerifyOptions | None = None,
    ) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r} (expected one of {', '.join(PROFILES)})")
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r} (expected one of {', '.join(LEVELS)})")
        self.robot = robot if isinstance(robot, RobotSpec) else load_robot(robot)
        self.graph = graph
        self.profile = profile
        self.level = level
        self.options = options or VerifyOptions()
        #: Each stage's rule instances, made when a verification first runs the stage (the registry imports a rule
        #: family then: a check at STANDARD never loads the semantic rules and their readers).
        self._rules: dict[Category, list[Rule]] = {}
        self._chosen = [cls for cls in rules if not cls.reports_crashes] if rules is not None else None
        self._lock = threading.Lock()

    @property
    def rule_types(self) -> tuple[type[Rule], ...]:
        """The rules this verifier can run, in stage order (every stage's family loads; the rule that reports crashes
        always runs besides)."""
        return tuple(type(rule) for category in _STAGE_ORDER for rule in self._stage(category))

    # ------------------------------------------------------------------ public
    def verify(
        self,
        plan: str | bytes | PlanText,
        *,
        plan_format: str = "auto",
        level: str | None = None,
        instruction: str | None = None,
        start_position: str | None = None,
        start_tool: str | None = None,
        path: str | None = None,
        options: VerifyOptions | None = None,
        start_joints: Sequence[float] | None = None,
        start_joints_source: str = "request",
    ) -> Report:
        """Verify one plan. Never raises for bad plan input; the report says what is wrong.

        `plan` is the plan's bytes or text, or a `PlanText` already read from them (then
        `plan_format` must be "auto" or the format it was read with). `options` replace
        the verifier's own for this one call. `start_joints` (degrees, one per joint) are
        where the robot really is — the execution level starts there (`start_joints_source`
        says where they came from: `request`, `joint_states`); ValueError when they are not
        six finite numbers. Without them an approved-actions file starts at the joints its
        verification recorded (`approved`), anything else at the start position, else at the
        robot spec's `home_joints_deg`."""
        level = level or self.level
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}")
        joints = check_joints(start_joints) if start_joints is not None else None
        if isinstance(plan, PlanText) and plan_format in ("tdl", "json") and plan_format != plan.requested:
            raise ValueError(f"the plan was read as {plan.requested!r}, not {plan_format!r}")
        with _no_cycle_collection():
            return self._verify(plan, plan_format, level, instruction, start_position, start_tool, path, options,
                                (joints, start_joints_source))

    def _verify(self, plan, plan_format, level, instruction, start_position, start_tool, path, options, joints) -> Report:
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        findings: list[Finding] = []
        rules_run: list[type[Rule]] = []

        cell, graph_error = self._snapshot()
        t_parse = time.perf_counter()
        crashes: list[Crash] = []
        plan_text: PlanText | None = None
        try:
            plan_text = read_plan_text(plan, plan_format)
            parsed = self._lower(plan_text, cell)
        except Exception as exc:  # noqa: BLE001 - a reader bug must not escape; the plan is rejected
            crashes.append(Crash(None, Category.SYNTAX, exc))
            family = plan_text.steps_format if plan_text is not None else "tdl"
            parsed = Plan(format=family, source=(plan_text.text if plan_text is not None else None) or "", parsed=False)
        fmt = parsed.format  # TDL commands or seed 003 steps
        applies = {fmt, parsed.source_format}  # rules apply by how the steps are written, or to every actions file
        timings["parse"] = _ms(time.perf_counter() - t_parse)

        start = self.start_state(cell, start_position, start_tool)
        if joints[0] is not None:
            start = dataclasses.replace(start, joints=joints[0], joints_source=joints[1])
        elif parsed.approved_start_deg is not None and len(parsed.approved_start_deg) == 6:
            # An approved-actions file re-verified with no joints given starts where its approval did:
            # its joint targets (R-KIN-007) are the IK solutions nearest to that start.
            start = dataclasses.replace(start, joints=parsed.approved_start_deg, joints_source=APPROVED_START)
        run_options = options or self.options
        if graph_error is None and cell is None and fmt == "json":
            graph_error = GraphUnavailable("no knowledge graph given: a JSON plan can only be checked against a cell graph")
        if graph_error is not None:
            run_options = dataclasses.replace(run_options, graph_error=graph_error)
        ctx = RuleContext(parsed, self.robot, self.profile, level, cell, start, instruction, run_options)

        for category in _STAGE_ORDER:
            runs = category in _LEVEL_STAGES[level] and not (category is Category.EXECUTION and not run_options.execution)
            if not runs and category not in registry.EVERY_LEVEL_CATEGORIES:
                continue
            chosen = self._stage(category)
            if not runs:
                chosen = [rule for rule in chosen if rule.every_level]  # what could not be evaluated is never approved
            if not chosen:
                continue
            if category is not Category.SYNTAX and any(f.category is Category.SYNTAX and f.severity is Severity.CRITICAL for f in findings):
                break
            t_stage = time.perf_counter()
            for rule in chosen:
                if applies.isdisjoint(rule.formats):
                    continue
                if cell is None and isinstance(rule, TraceRule):
                    continue
                rules_run.append(type(rule))
                try:
                    findings.extend(rule.check(ctx))
                except Exception as exc:  # noqa: BLE001 - fail closed on any rule bug
                    crashes.append(Crash(rule.id, rule.category, exc))
            stage = category.stage.lower()
            timings[stage] = round(timings.get(stage, 0.0) + _ms(time.perf_counter() - t_stage), 3)

        if crashes:
            crashed = dataclasses.replace(ctx, options=dataclasses.replace(run_options, crashes=tuple(crashes)))
            for cls in registry.all_rules():
                if cls.reports_crashes:
                    rules_run.append(cls)
                    findings.extend(cls().check(crashed))

        graph_view = self._graph_view(ctx, cell, findings, rules_run, crashes)
        motion = ctx.__dict__.get("execution")  # computed only when the execution level ran
        timings["total"] = _ms(time.perf_counter() - t0)
        return assemble(
            findings,
            plan_format=plan_text.format if plan_text is not None else fmt,
            level=level,
            rules_run=rules_run,
            reasons={cls.id: cls.reason() for cls in rules_run},
            strict=self.profile == "strict",
            graph=graph_view,
            timings_ms=timings,
            path=path,
            plan=parsed,
            cell=cell,
            execution=motion.summary() if motion is not None else None,
            motion=motion,
        )

    # ------------------------------------------------------------------ steps
    def _stage(self, category: Category) -> list[Rule]:
        """The rules of one stage (made on first use; a Verifier is shared between threads)."""
        found = self._rules.get(category)
        if found is None:
            with self._lock:
                found = self._rules.get(category)
                if found is None:
                    chosen = self._chosen if self._chosen is not None else registry.in_categories([category])
                    found = [cls() for cls in chosen if cls.category is category and not cls.reports_crashes]
                    self._rules[category] = found
        return found

    def _snapshot(self) -> tuple[Cell | None, GraphUnavailable | None]:
        if self.graph is None:
            return None, None
        try:
            return self.graph.snapshot(), None
        except GraphUnavailable as exc:
            return None, exc
        except Exception as exc:  # noqa: BLE001 - any backend failure means "graph unreadable"
            return None, GraphUnavailable(f"{exc.__class__.__name__}: {exc}")

    def _lower(self, plan_text: PlanText, cell: Cell | None) -> Plan:
        if plan_text.text is None:
            return Plan(format=plan_text.format, source="", problems=plan_text.problems, parsed=False)
        positions = cell.poses if cell else None
        if plan_text.format == "tdl":
            return lower_tdl(plan_text.text, positions=positions, convention=self.robot.orientation_convention)
        if plan_text.format == "actions":
            from plan_verifier.plans.actions_plan import load_actions

            return load_actions(plan_text.document, positions)
        from plan_verifier.plans.json_plan import load_plan

        return load_plan(plan_text.document, positions)

    def start_state(self, cell: Cell | None, position: str | None, tool: str | None) -> StartState:
        """The simulated start: the request, else the cell's initial state, else Home with no tool."""
        if position or tool:
            default = self.start_state(cell, None, None)
            return StartState(position or default.position, tool or default.tool, "request")
        if cell is not None and cell.initial_position:
            return StartState(cell.initial_position, cell.initial_tool, "cell")
        return StartState("Home", NO_TOOL, "default")

    def _graph_view(self, ctx: RuleContext, cell: Cell | None, findings: Sequence[Finding], rules_run: Sequence[type[Rule]],
                    crashes: Sequence[Crash]) -> dict[str, Any] | None:
        """Seed 003's VerificationResult of the plan, from the graph rules' findings; graph rules the
        verification did not select are run here, so that the view always lists every problem."""
        if cell is None:
            if ctx.options.graph_error is not None and ctx.plan.format == "json":
                return _failed_view(str(ctx.options.graph_error))
            return None
        if not ctx.plan.parsed or any(f.category is Category.SYNTAX and f.severity is Severity.CRITICAL for f in findings):
            return None
        if "simulation" not in ctx.__dict__ and not ctx.plan.steps:
            return None
        try:
            trace = ctx.simulation
        except Exception as exc:  # noqa: BLE001 - the view must not break the report; the rules already failed closed
            return _failed_view(f"graph simulation failed: {exc.__class__.__name__}: {exc}")
        try:
            unselected = trace_findings(trace, cell, plan_format=ctx.plan.format, skip=rules_run)
        except Exception as exc:  # noqa: BLE001 - as above: the view says the graph checks are incomplete
            return _failed_view(f"graph checks failed: {exc.__class__.__name__}: {exc}")
        crashed = next((c for c in crashes if c.category is Category.GRAPH), None)
        if crashed is not None:  # a graph check that did not run cannot vouch for the plan
            return _failed_view(f"graph check {crashed.rule_id} failed: {crashed.error.__class__.__name__}: {crashed.error}")
        return verification_result([*findings, *unselected]).to_dict()


def check_joints(values: Sequence[float]) -> tuple[float, ...]:
    """Six finite joint angles (degrees), or ValueError naming what is wrong."""
    try:
        joints = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ValueError("start joints must be numbers (degrees)") from None
    if len(joints) != 6 or not all(math.isfinite(j) for j in joints):
        raise ValueError(f"start joints must be six finite angles in degrees, got {len(joints)} value(s)")
    return joints


def _failed_view(feedback: str) -> dict[str, Any]:
    return {"valid": False, "missing_positions": [], "illegal_edges": [], "unsupported_routines": [], "tool_conflicts": [], "feedback": feedback}


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Pause Python's cycle collector for the duration of one verification.

    A verification allocates hundreds of thousands of small acyclic objects
    (tokens, syntax nodes, IR values, findings) that all stay alive until the
    report is built. Left on, the cycle collector rescans them again and
    again: a 10,000-command program then costs 2-3x per command what a
    1,000-command one does. Nothing here creates reference cycles and
    reference counting frees everything as usual; the collector sees the
    survivors once, afterwards. Only whoever switched it off switches it back
    on, so concurrent verifications cannot leave it disabled.
    """
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)

