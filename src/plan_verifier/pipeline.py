"""The verification pipeline: plan text in, report out.

Stages run in the order of seed 000 §4 (syntax, safety, graph, consistency,
semantic); the level decides which run (BASIC: syntax, safety and graph;
STANDARD adds consistency and domain rules; FULL adds the semantic stage).
After a syntax error nothing else runs, because the other rules would be
reasoning about a program we could not read. Otherwise every applicable rule
runs and every finding is reported, so one repair round can fix everything.

Fail closed: a rule that raises becomes an R-SYS-001 CRITICAL finding, an
unreadable graph becomes R-GRF-000; neither can ever approve a plan.
A `Verifier` holds no per-request state and may be shared between threads.
"""

from __future__ import annotations

import contextlib
import gc
import time
from typing import Any, Iterable, Iterator, Sequence

from plan_verifier import rules as registry
from plan_verifier.context import RuleContext, StartState
from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.graph.model import NO_TOOL, Cell
from plan_verifier.graph.port import GraphPort, GraphUnavailable
from plan_verifier.inputs import decode, detect_format, too_many_commands
from plan_verifier.ir import Diagnostic, Plan
from plan_verifier.plans.json_plan import load_plan
from plan_verifier.report import Report, assemble
from plan_verifier.robots.spec import DEFAULT_ROBOT, RobotSpec, load_robot
from plan_verifier.rules.base import Rule
from plan_verifier.tdl.lower import lower_tdl

LEVELS = ("BASIC", "STANDARD", "FULL")
PROFILES = ("default", "strict")
_LEVEL_STAGES = {
    "BASIC": (Category.SYNTAX, Category.SAFETY, Category.GRAPH),
    "STANDARD": (Category.SYNTAX, Category.SAFETY, Category.GRAPH, Category.CONSISTENCY, Category.DOMAIN),
    "FULL": (Category.SYNTAX, Category.SAFETY, Category.GRAPH, Category.CONSISTENCY, Category.DOMAIN, Category.SEMANTIC),
}
_STAGE_ORDER = (Category.SYNTAX, Category.SAFETY, Category.GRAPH, Category.CONSISTENCY, Category.DOMAIN, Category.SEMANTIC)
_INTERNAL_RULE = "R-SYS-001"


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
        options: dict[str, Any] | None = None,
    ) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r} (expected one of {', '.join(PROFILES)})")
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r} (expected one of {', '.join(LEVELS)})")
        self.robot = robot if isinstance(robot, RobotSpec) else load_robot(robot)
        self.graph = graph
        self.profile = profile
        self.level = level
        self.options = dict(options or {})
        chosen = list(rules) if rules is not None else registry.all_rules()
        self._rules: dict[Category, list[Rule]] = {c: [] for c in _STAGE_ORDER}
        for cls in chosen:
            if cls.id != _INTERNAL_RULE:
                self._rules[cls.category].append(cls())
        self._reasons = {cls.id: cls.reason() for cls in registry.all_rules()}

    # ------------------------------------------------------------------ public
    def verify(
        self,
        plan: str | bytes,
        *,
        plan_format: str = "auto",
        level: str | None = None,
        instruction: str | None = None,
        start_position: str | None = None,
        start_tool: str | None = None,
        path: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> Report:
        """Verify one plan. Never raises for bad plan input; the report says what is wrong."""
        level = level or self.level
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}")
        with _no_cycle_collection():
            return self._verify(plan, plan_format, level, instruction, start_position, start_tool, path, options)

    def _verify(self, plan, plan_format, level, instruction, start_position, start_tool, path, options) -> Report:
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        findings: list[Finding] = []
        rules_run: list[type[Rule]] = []

        cell, graph_error = self._snapshot()
        text, input_problems = decode(plan)
        fmt = "tdl" if text is None else detect_format(text, plan_format)
        if text is not None:
            limit = too_many_commands(text, fmt)
            if limit is not None:
                input_problems, text = [limit], None
        t_parse = time.perf_counter()
        crashes: list[tuple[Rule | None, BaseException]] = []
        try:
            parsed = self._lower(text, fmt, input_problems, cell)
        except Exception as exc:  # noqa: BLE001 - a reader bug must not escape; the plan is rejected
            crashes.append((None, exc))
            parsed = Plan(format=fmt, source=text or "", parsed=False)
        timings["parse"] = _ms(time.perf_counter() - t_parse)

        start = self.start_state(cell, start_position, start_tool)
        merged_options = {**self.options, **(options or {})}
        if graph_error is not None:
            merged_options["graph_error"] = graph_error
        elif cell is None and fmt == "json":
            merged_options["graph_error"] = GraphUnavailable("no knowledge graph given: a JSON plan can only be checked against a cell graph")
        ctx = RuleContext(parsed, self.robot, self.profile, level, cell, start, instruction, merged_options)

        for category in _STAGE_ORDER:
            if category not in _LEVEL_STAGES[level]:
                continue
            if category is not Category.SYNTAX and any(f.category is Category.SYNTAX and f.severity is Severity.CRITICAL for f in findings):
                break
            t_stage = time.perf_counter()
            for rule in self._rules[category]:
                if fmt not in rule.formats:
                    continue
                if category is Category.GRAPH and cell is None and rule.id != "R-GRF-000":
                    continue
                rules_run.append(type(rule))
                try:
                    findings.extend(rule.check(ctx))
                except Exception as exc:  # noqa: BLE001 - fail closed on any rule bug
                    crashes.append((rule, exc))
            stage = category.stage.lower()
            timings[stage] = round(timings.get(stage, 0.0) + _ms(time.perf_counter() - t_stage), 3)

        if crashes:
            internal = registry.get(_INTERNAL_RULE)()
            rules_run.append(type(internal))
            ctx.options = {**merged_options, "crashes": crashes}
            findings.extend(internal.check(ctx))

        graph_view = self._graph_view(ctx, cell, findings)
        timings["total"] = _ms(time.perf_counter() - t0)
        return assemble(
            findings,
            plan_format=fmt,
            level=level,
            rules_run=rules_run,
            reasons=self._reasons,
            strict=self.profile == "strict",
            graph=graph_view,
            timings_ms=timings,
            path=path,
            plan=parsed,
            cell=cell,
        )

    # ------------------------------------------------------------------ steps
    def _snapshot(self) -> tuple[Cell | None, GraphUnavailable | None]:
        if self.graph is None:
            return None, None
        try:
            return self.graph.snapshot(), None
        except GraphUnavailable as exc:
            return None, exc
        except Exception as exc:  # noqa: BLE001 - any backend failure means "graph unreadable"
            return None, GraphUnavailable(f"{exc.__class__.__name__}: {exc}")

    def _lower(self, text: str | None, fmt: str, problems: list[Diagnostic], cell: Cell | None) -> Plan:
        if text is None:
            return Plan(format=fmt, source="", diagnostics=tuple(problems), parsed=False)
        positions = cell.poses if cell else None
        if fmt == "json":
            return load_plan(text, positions)
        return lower_tdl(text, positions=positions, convention=self.robot.orientation_convention)

    def start_state(self, cell: Cell | None, position: str | None, tool: str | None) -> StartState:
        """The simulated start: the request, else the cell's initial state, else Home with no tool."""
        if position or tool:
            default = self.start_state(cell, None, None)
            return StartState(position or default.position, tool or default.tool, "request")
        if cell is not None and cell.initial_position:
            return StartState(cell.initial_position, cell.initial_tool, "cell")
        return StartState("Home", NO_TOOL, "default")

    def _graph_view(self, ctx: RuleContext, cell: Cell | None, findings: Iterable[Finding]) -> dict[str, Any] | None:
        if cell is None:
            if "graph_error" in (ctx.options or {}) and ctx.plan.format == "json":
                return {"valid": False, "missing_positions": [], "illegal_edges": [], "unsupported_routines": [],
                        "tool_conflicts": [], "feedback": str(ctx.options["graph_error"])}
            return None
        if not ctx.plan.parsed or any(f.category is Category.SYNTAX and f.severity is Severity.CRITICAL for f in findings):
            return None
        if "simulation" not in ctx.__dict__ and not ctx.plan.steps:
            return None
        try:
            return ctx.simulation.result.to_dict()
        except Exception as exc:  # noqa: BLE001 - the view must not break the report; the rules already failed closed
            return {"valid": False, "missing_positions": [], "illegal_edges": [], "unsupported_routines": [],
                    "tool_conflicts": [], "feedback": f"graph simulation failed: {exc.__class__.__name__}: {exc}"}


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

