"""`plan-verify dataset generate`: a labelled test set in seed 000 §3's structure.

Proportions follow §3.3 (of 600: 200 positives, 100 syntax, 150 semantic,
100 safety, 50 consistency errors), scaled for other sizes; within every
category the complexity mix follows §3.4 (40 % simple, 40 % moderate, 15 %
complex, 5 % edge cases) and the injections of §3.2 take turns. Plans are TDL
in three dialects (see `programs`) or JSON step plans on the shipped cells
(`config/cells/`); about a third of the instructions are Korean. The same
size and seed give the same file, byte for byte.

Labels are honest by construction: a positive is a correct program for its
instruction (checked by `programs.check_correct` / `cell_plans.check_legal`,
not by the verifier under test); a negative differs from a correct program
by exactly the injected error. JSON plans that break the cell graph are
filed under consistency (the plan is inconsistent with the cell it names).
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from plan_verifier import __version__
from plan_verifier.evaluation import cell_plans, injector as inj, phrasing
from plan_verifier.evaluation.cell_plans import CellTask, Job
from plan_verifier.evaluation.injector import ErrorInjector, NotApplicable
from plan_verifier.evaluation.programs import DIALECTS, Item, Spot, Style, TdlTask, Transfer, build_program, check_correct, render
from plan_verifier.graph.model import Cell, load_cell_file
from plan_verifier.resources import config_dir
from plan_verifier.robots.spec import DEFAULT_ROBOT, load_robot

CATEGORIES = ("positive", "syntax", "semantic", "safety", "consistency")
#: Seed 000 §3.3, per 600 cases.
SHARES = {"positive": 200, "syntax": 100, "semantic": 150, "safety": 100, "consistency": 50}
#: Seed 000 §3.4.
COMPLEXITY = {"simple": 0.40, "moderate": 0.40, "complex": 0.15, "edge_case": 0.05}
SECTION = {"syntax": "syntax_errors", "semantic": "semantic_errors", "safety": "safety_errors", "consistency": "consistency_errors"}
ID_PREFIX = {"positive": "POS", "syntax": "NEG-SYN", "semantic": "NEG-SEM", "safety": "NEG-SAF", "consistency": "NEG-CON"}
INJECTIONS = {"syntax": inj.SYNTAX, "semantic": inj.SEMANTIC, "safety": inj.SAFETY,
              "consistency": inj.CONSISTENCY_TDL + inj.CONSISTENCY_JSON}
_NOUNS = ("box", "cube", "block", "apple", "banana", "orange", "glass", "cup", "bottle", "gear", "bolt", "battery")
_COLORED = ("box", "cube", "block", "cup")
_COLORS = ("red", "blue", "green", "yellow")
_KOREAN_SHARE = 0.3
_JSON_SHARE = 0.25


def quotas(total: int, shares: dict[str, float]) -> dict[str, int]:
    """Largest-remainder apportionment: the counts add up to `total` exactly."""
    weight = sum(shares.values())
    exact = {k: total * v / weight for k, v in shares.items()}
    counts = {k: math.floor(v) for k, v in exact.items()}
    for k in sorted(exact, key=lambda k: (counts[k] - exact[k], list(shares).index(k)))[: total - sum(counts.values())]:
        counts[k] += 1
    return counts


def default_cells() -> list[Path]:
    return sorted((config_dir() / "cells").glob("*.yaml"))


def generate(size: int, seed: int, robot: str = DEFAULT_ROBOT, cells: list[Path] | None = None,
             progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    if size < len(CATEGORIES):
        raise ValueError(f"size must be at least {len(CATEGORIES)}")
    rng = random.Random(seed)
    spec = load_robot(robot)
    loaded = [(path.stem, load_cell_file(path)) for path in (cells if cells is not None else default_cells())]
    loaded = [(name, cell) for name, cell in loaded if cell_plans.work_routines(cell)]
    builder = _Builder(rng, spec.reach_mm, robot, loaded)
    out: dict[str, Any] = {
        "name": "plan_verifier synthetic V&V dataset (seed 000 §3)",
        "generator": f"plan_verifier/{__version__}",
        "seed": seed,
        "size": size,
        "robot": robot,
        "cells": [name for name, _ in loaded],
        "positive_examples": [],
        "negative_examples": {section: [] for section in SECTION.values()},
    }
    done = 0
    for category, count in quotas(size, SHARES).items():
        complexities = [c for c, k in quotas(count, COMPLEXITY).items() for _ in range(k)]
        rng.shuffle(complexities)
        injections = list(INJECTIONS.get(category, (None,)))
        rng.shuffle(injections)
        for n, complexity in enumerate(complexities):
            case = builder.case(category, injections[n % len(injections)], complexity)
            case = {"id": f"{ID_PREFIX[category]}-{n + 1:03d}", **case}
            if category == "positive":
                out["positive_examples"].append(case)
            else:
                out["negative_examples"][SECTION[category]].append(case)
            done += 1
            if progress:
                progress(done)
    out["counts"] = {"positive": len(out["positive_examples"]),
                     **{k: len(v) for k, v in out["negative_examples"].items()}}
    return out


def cases(dataset: dict[str, Any]) -> list[dict[str, Any]]:
    """Every case of a dataset file, with its category (`positive`, `syntax`, ...)."""
    out = [{**c, "category": "positive"} for c in dataset.get("positive_examples", [])]
    for category, section in SECTION.items():
        out += [{**c, "category": category} for c in dataset.get("negative_examples", {}).get(section, [])]
    return out


class _Builder:
    def __init__(self, rng: random.Random, reach_mm: float, robot: str, cells: list[tuple[str, Cell]]) -> None:
        self.rng = rng
        self.reach = reach_mm
        self.robot = robot
        self.cells = cells
        self.injector = ErrorInjector(rng)

    # ------------------------------------------------------------------ one case
    def case(self, category: str, injection: str | None, complexity: str) -> dict[str, Any]:
        for _attempt in range(50):
            fmt = self._format(category, injection, complexity)
            try:
                return (self._tdl_case if fmt == "tdl" else self._json_case)(category, injection, complexity)
            except NotApplicable:
                continue
        raise RuntimeError(f"could not build a {category}/{injection}/{complexity} case")

    def _format(self, category: str, injection: str | None, complexity: str) -> str:
        if not self.cells:
            return "tdl"
        if injection in inj.CONSISTENCY_JSON:
            return "json"
        if injection in ("remove_semicolon", "exceed_reach", "negative_z") or injection in inj.CONSISTENCY_TDL:
            return "tdl"
        if injection == "swap_objects" and complexity == "simple":
            return "json"
        return "json" if self.rng.random() < _JSON_SHARE else "tdl"

    # ------------------------------------------------------------------ TDL
    def _tdl_case(self, category: str, injection: str | None, complexity: str) -> dict[str, Any]:
        rng = self.rng
        kind, extras = self._tdl_kind(complexity, injection)
        language = "ko" if rng.random() < _KOREAN_SHARE else "en"
        dialect = "positional_assign" if injection == "use_before_assign" else rng.choice(DIALECTS)
        if extras.get("header") or extras.get("korean_comments"):
            dialect = "named_inline"
            language = "ko"
        task = self._tdl_task(kind, extras, injection)
        instruction = phrasing.tdl_instruction(task, rng, language)
        style = Style(dialect, plain_calls=extras.get("plain_calls", False),
                      comment_language="ko" if extras.get("korean_comments") else "en")
        if dialect == "positional_assign":
            style.header_comment = f"Generated TDL v1\nTimestamp: 2025-12-01T{rng.randrange(8, 18):02d}:{rng.randrange(60):02d}:00\nUser Command: {instruction}"
        program = build_program(task)
        check_correct(program, self.reach)
        description, line, subtype, plan_task = None, None, injection, task
        if category == "semantic":
            program, description, plan_task = self._semantic_tdl(task, injection, program)
        if extras.get("header") and plan_task.transfers:
            item = phrasing.korean_item(plan_task.transfers[0].item)
            style.header_block = {"TASK_NAME": f"{item} 옮기기", "OBJECT": item,
                                  "DESCRIPTION": f"{item}{phrasing.object_particle(item)} 옮기는 작업입니다."}
        if category == "safety":
            program, description = self._safety_tdl(injection, program)
        text = render(program, style)
        if category == "syntax":
            text, description, line = getattr(self.injector, injection)(text, "tdl")
        elif category == "consistency":
            text, description, line = getattr(self.injector, injection)(text, dialect)
        return self._record(category, subtype, instruction, "tdl", text, description, line, {
            "complexity": complexity, "task_type": kind, "dialect": dialect, "language": language,
            "objects": list(dict.fromkeys(t.item.english for t in task.transfers)),
            "locations": [s.label for s in task.visits] + [x for t in task.transfers for x in (t.source.label, t.destination.label)],
            "gentle": task.gentle, "robot": self.robot})

    def _tdl_kind(self, complexity: str, injection: str | None) -> tuple[str, dict]:
        rng = self.rng
        if injection == "reverse_sequence":
            return {"simple": ("tour", {"places": 2}), "moderate": ("tour", {"places": 3, "home": True}),
                    "complex": ("multi_pick_place", {}), "edge_case": ("multi_pick_place", {"transfers": 3})}[complexity]
        if injection == "swap_objects" and complexity == "simple":
            raise NotApplicable("a single move names no object")
        if complexity == "simple":
            return "move_to", {}
        if complexity == "moderate":
            return "pick_place", {}
        if complexity == "complex":
            return rng.choice((("multi_pick_place", {}), ("tour", {"places": 3, "home": True}))) if injection != "swap_objects" else ("multi_pick_place", {})
        return rng.choice((("pick_place", {"plain_calls": True}), ("pick_place", {"header": True, "korean_comments": True, "coordinates": True}),
                           ("multi_pick_place", {"transfers": 3})))

    def _tdl_task(self, kind: str, extras: dict, injection: str | None) -> TdlTask:
        rng = self.rng
        gentle = injection == "change_velocity" or rng.random() < 0.25
        fast = float(rng.choice((80, 100)) if gentle else rng.choice((100, 150, 200)))
        common = dict(gentle=gentle, fast=fast, slow=float(rng.choice((50, 60, 80))) if not gentle else 50.0,
                      acceleration=float(rng.choice((50, 80, 100, 150))), grip_height=float(rng.choice((20, 25, 30))),
                      approach_height=float(rng.choice((100, 120, 150))), coordinates=extras.get("coordinates", rng.random() < 0.2))
        home = extras.get("home", rng.random() < 0.4) or (injection == "missing_step" and kind in ("move_to", "tour"))
        if kind in ("move_to", "tour"):
            spots = self._spots(extras.get("places", 1))
            return TdlTask(kind, visits=tuple(spots), return_home=home, **common)
        n = extras.get("transfers", 2 if kind == "multi_pick_place" else 1)
        spots = self._spots(2 * n)
        items = self._items(n)
        transfers = tuple(Transfer(items[i], spots[2 * i], spots[2 * i + 1]) for i in range(n))
        return TdlTask(kind, transfers=transfers, return_home=home, **common)

    def _semantic_tdl(self, task: TdlTask, injection: str, program):
        """(program, description, the task the plan carries out)."""
        i = self.injector
        if injection == "change_velocity":
            changed_program, description = i.change_velocity(program, task.gentle)
            return changed_program, description, task
        if injection == "missing_step":
            (what, n), description = i.missing_step(task)
            return build_program(task, drop_release=n if what == "release" else None, drop_home=what == "home"), description, task
        if injection == "swap_objects":
            changed, description = i.swap_objects(task)
        elif injection == "swap_locations":
            changed, description = i.swap_locations(task, spare=self._spare_spot(task))
        elif injection == "reverse_sequence":
            changed, description = i.reverse_sequence(task)
        else:
            raise ValueError(injection)
        return build_program(changed), description, changed

    def _safety_tdl(self, injection: str, program):
        i = self.injector
        if injection == "exceed_reach":
            return i.exceed_reach(program, self.reach)
        return getattr(i, injection)(program)

    def _spots(self, n: int) -> list[Spot]:
        rng = self.rng
        spots: list[Spot] = []
        while len(spots) < n:
            xyz = (float(rng.randrange(380, 621, 10)), float(rng.randrange(-320, 321, 10)), float(rng.choice((0, 20, 40, 60))))
            if math.hypot(xyz[0], xyz[1]) >= 350 and all(math.dist(xyz[:2], s.xyz[:2]) >= 150 for s in spots):
                spots.append(Spot("ABCDEFGH"[len(spots)], xyz))
        return spots

    def _spare_spot(self, task: TdlTask) -> Spot:
        taken = list(task.visits) + [s for t in task.transfers for s in (t.source, t.destination)]
        while True:
            [spot] = self._spots(1)
            if all(math.dist(spot.xyz[:2], s.xyz[:2]) >= 150 for s in taken):
                return replace(spot, label="ABCDEFGH"[len(taken)])

    def _items(self, n: int) -> list[Item]:
        nouns = self.rng.sample(_NOUNS, n)
        return [Item(noun, self.rng.choice(_COLORS) if noun in _COLORED and self.rng.random() < 0.5 else None) for noun in nouns]

    # ------------------------------------------------------------------ JSON
    def _json_case(self, category: str, injection: str | None, complexity: str) -> dict[str, Any]:
        rng = self.rng
        cell_name, cell = rng.choice(self.cells)
        task = self._cell_task(cell, complexity, injection)
        language = "ko" if rng.random() < _KOREAN_SHARE and self._korean_ok(cell, task) else "en"
        instruction = self._job_instruction(cell, task, language)
        steps = cell_plans.build_steps(cell, task)
        cell_plans.check_legal(cell, steps)
        description, line, plan_task = None, None, task
        if category == "semantic":
            steps, description = self._semantic_json(cell, task, injection, steps)
        elif category == "safety":
            if injection not in ("excessive_velocity", "excessive_acceleration"):
                raise NotApplicable("JSON plans take their coordinates from the cell")
            steps, description = getattr(self.injector, injection)(steps)
        elif category == "consistency":
            plan_task, new_steps, description = inj.cell_consistency(injection, task, steps, cell, rng)
            steps = new_steps if new_steps is not None else cell_plans.build_steps(cell, plan_task)
        name = f"{task.kind} on {cell_name}" if rng.random() < 0.5 else None
        text = cell_plans.dump(steps, name, instruction if name else None)
        if category == "syntax":
            text, description, line = getattr(self.injector, injection)(text, "json")
        tools = [j.tool for j in task.jobs] or [task.attach_only]
        return self._record(category, injection, instruction, "json", text, description, line, {
            "complexity": complexity, "task_type": task.kind, "dialect": "json", "language": language,
            "objects": list(dict.fromkeys(tools)), "locations": [j.position for j in task.jobs],
            "gentle": task.gentle, "robot": self.robot, "cell": cell_name})

    def _cell_task(self, cell: Cell, complexity: str, injection: str | None) -> CellTask:
        rng = self.rng
        jobs = [Job(*j) for j in cell_plans.work_routines(cell)]
        gentle = injection == "change_velocity" or (complexity == "edge_case" and rng.random() < 0.5)
        if complexity == "simple" and injection not in ("reverse_sequence", "swap_locations", "missing_step", "unsupported_routine", "tool_not_held"):
            return CellTask("attach_tool", attach_only=rng.choice(sorted(cell.tools)), release=False, return_home=rng.random() < 0.5, gentle=gentle)
        if complexity == "complex" or injection == "reverse_sequence":
            first = rng.choice(jobs)
            same_tool = [j for j in jobs if j.tool == first.tool and j.position != first.position]
            others = [j for j in jobs if j.tool != first.tool]
            pool = same_tool if same_tool and (rng.random() < 0.5 or not others) else others or same_tool
            if not pool:
                raise NotApplicable("the cell offers one job")
            return CellTask("two_jobs", jobs=(first, rng.choice(pool)), gentle=gentle)
        if injection == "swap_locations":
            jobs = [j for j in jobs if len(cell.routines[j.routine].supported_at) > 1] or jobs
        return CellTask("tool_job", jobs=(rng.choice(jobs),), release=True, return_home=True, gentle=gentle)

    def _korean_ok(self, cell: Cell, task: CellTask) -> bool:
        return all(phrasing.routine_phrase(j.routine, "ko") for j in task.jobs)

    def _job_instruction(self, cell: Cell, task: CellTask, language: str) -> str:
        def noun(tool: str) -> str:
            return phrasing.tool_noun(tool, cell.tools[tool].type, language)
        jobs = [(noun(j.tool), phrasing.routine_phrase(j.routine, language), j.position) for j in task.jobs]
        return phrasing.job_instruction(jobs, noun(task.attach_only) if task.attach_only else None, task.return_home,
                                        task.release, task.gentle, language, self.rng)

    def _semantic_json(self, cell: Cell, task: CellTask, injection: str, steps: list[dict]):
        i = self.injector
        if injection == "swap_objects":
            changed, description = i.swap_tool(task, cell)
        elif injection == "swap_locations":
            changed, description = i.swap_locations(task, cell)
        elif injection == "reverse_sequence":
            changed, description = i.reverse_sequence(task)
        elif injection == "change_velocity":
            return i.change_velocity(steps, task.gentle)
        elif injection == "missing_step":
            (what, n), description = i.missing_step(task)
            if what == "routine":
                built = cell_plans.build_steps(cell, task)
                job = task.jobs[n]
                drop = [k for k, s in enumerate(built) if s["action"] == "routine" and s["target"] == job.routine and s["position"] == job.position][0]
                return cell_plans.renumber(built[:drop] + built[drop + 1:]), description
            changed = replace(task, release=False)
        else:
            raise ValueError(injection)
        return cell_plans.build_steps(cell, changed), description

    # ------------------------------------------------------------------ record
    def _record(self, category, subtype, instruction, fmt, text, description, line, metadata) -> dict[str, Any]:
        case: dict[str, Any] = {"natural_language": instruction, "plan_format": fmt}
        case["tdl_code" if fmt == "tdl" else "json_plan"] = text
        case["expected_verdict"] = "PASS" if category == "positive" else "FAIL"
        if category != "positive":
            case["error_type"] = category
            case["error_subtype"] = subtype
            if line is not None:
                case["error_location"] = f"line {line}"
            case["error_description"] = description
        case["metadata"] = metadata
        return case


def plan_text(case: dict[str, Any]) -> str:
    return case.get("tdl_code") if case.get("plan_format", "tdl") == "tdl" else case.get("json_plan")
