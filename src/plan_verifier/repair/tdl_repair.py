"""Repairing a TDL program: the smallest motion changes the verifier itself approves.

The loop: verify the program; take the first finding that rejects it (in
execution order, speed findings first: they are one number each); ask the
strategies for that finding (`tdl_strategies`) for candidate changes, smallest
first; write each into the original text (`tdl_text`) and verify the whole
candidate with the pipeline (`verifying.Verification`); keep the first one that
removes the finding, does the same task (`task.task_difference`), keeps the
semantic verdict at level FULL and adds no rejecting finding at or before the
motion it changes. Repeat until the program is approved or no strategy is left
for any finding. What remains is reported as not repaired, with why and the
nearest alternative.

Changes are kept per statement of the input, so every candidate is the input
text plus a small set of edits, never an edit of an edit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from plan_verifier.findings import Category, Finding
from plan_verifier.report import Report
from plan_verifier.repair.model import MotionModel
from plan_verifier.repair.result import RepairResult, Unrepaired
from plan_verifier.repair.task import task_difference, task_events
from plan_verifier.repair.tdl_strategies import Context, Located, Strategies, UnrepairableError
from plan_verifier.repair.tdl_text import Key, Rendered, StatementChange, TdlProgram
from plan_verifier.repair.verifying import Verification, blocking, semantic_verdict

#: Rounds at most this many per motion of the program; candidates verified at most this many per finding and per program.
ROUNDS_PER_MOTION = 3
CANDIDATES_PER_FINDING = 6
CANDIDATES_PER_PROGRAM = 60


@dataclass
class _State:
    changes: dict[Key, StatementChange]
    rendered: Rendered
    report: Report


def repair_tdl(text: str, verification: Verification) -> RepairResult:
    t0 = time.perf_counter()
    original = verification(text, "tdl")
    if original.approved:
        return RepairResult(text, (), (), original, original, time.perf_counter() - t0, verification.count)
    plan = original.plan
    if plan is None or not plan.parsed or any(f.category is Category.SYNTAX for f in blocking(original)):
        unrepaired = tuple(Unrepaired(f.rule_id, f.span.line if f.span else None, f.step,
                                      "the program could not be read: only a corrected text can be checked for motions",
                                      f.suggestion) for f in blocking(original))
        return RepairResult(text, (), unrepaired, original, original, time.perf_counter() - t0, verification.count)
    return _TdlRepair(text, original, verification, t0).run()


class _TdlRepair:
    def __init__(self, text: str, original: Report, verification: Verification, t0: float):
        self.program = TdlProgram(text, original.plan)
        self.original = original
        self.verify = verification
        self.t0 = t0
        self.model = MotionModel(verification.verifier.robot, original.cell) if original.motion is not None and \
            original.motion.unavailable is None else None
        self.events = task_events(original.plan, self.model, original.cell) if self.model is not None else None
        self.semantic = semantic_verdict(original)
        self.reasons: dict[tuple[str, Key | None], tuple[str, str | None]] = {}  # why a finding stays, and the alternative

    def run(self) -> RepairResult:
        state = _State({}, self.program.render([]), self.original)
        context = Context(self.program, self.model, self.original)
        strategies = Strategies(context)
        tried: set[tuple[str, Key | None]] = set()
        state = self.batch(state, strategies)
        limit = ROUNDS_PER_MOTION * max(1, len(self.program.statements))
        for _ in range(limit):
            located = [self.locate(f, state) for f in blocking(state.report)]
            todo = [x for x in sorted(located, key=self.priority) if (x.finding.rule_id, x.key) not in tried]
            if not todo:
                break
            target = todo[0]
            tried.add((target.finding.rule_id, target.key))
            strategies.probe = lambda changes, state=state, target=target: self.attempt(state, changes, target) is not None
            try:
                candidates = strategies.for_finding(target, state.changes, state.report, state.rendered)
            except UnrepairableError as exc:
                self.reasons[(target.finding.rule_id, target.key)] = (exc.why, exc.alternative)
                continue
            kept = None
            tried_whys: list[str] = []
            for n, (changes, why) in enumerate(candidates):
                if n >= CANDIDATES_PER_FINDING or self.verify.count >= CANDIDATES_PER_PROGRAM or self.verify.expired:
                    self.reasons.setdefault((target.finding.rule_id, target.key),
                                            ("the repair's budget of candidates ran out before one was approved", None))
                    break
                candidate = self.attempt(state, changes, target)
                if candidate is not None:
                    kept = candidate
                    break
                tried_whys.append(why)
                self.reasons[(target.finding.rule_id, target.key)] = (
                    f"tried {', '.join(dict.fromkeys(tried_whys))}: the verifier rejected each (or it changed the task)", None)
            if kept is not None:
                state = kept
                self.reasons.pop((target.finding.rule_id, target.key), None)
        return self.result(state)

    # ------------------------------------------------------------------ candidates

    def batch(self, state: _State, strategies: Strategies) -> _State:
        """One candidate with every finding's cheapest change at once (speeds clamped, transits made joint moves):
        a verification costs as much as the program is long, and most findings of a program written line by line
        are of that kind. Kept when it does the same task and leaves fewer rejecting findings; the loop then
        takes each finding that is left on its own."""
        changes: list[StatementChange] = []
        for located in sorted((self.locate(f, state) for f in blocking(state.report)), key=self.priority):
            cheap = strategies.cheapest(located)
            if cheap is not None and all(c.key not in {d.key for d in changes} or c.numbers for c in cheap):
                changes.extend(cheap)
        if len(changes) < 2 or self.verify.expired:
            return state
        merged: dict[Key, StatementChange] = {}
        for change in changes:
            merged[change.key] = merged[change.key].merged(change) if change.key in merged else change
        rendered = self.program.render(list(merged.values()))
        report = self.verify(rendered.text, "tdl")
        if report.plan is None or not report.plan.parsed or semantic_verdict(report) != self.semantic:
            return state
        if self.events is not None and task_difference(self.events, task_events(report.plan, self.model, report.cell)) is not None:
            return state
        return _State(merged, rendered, report) if len(blocking(report)) < len(blocking(state.report)) else state

    def attempt(self, state: _State, changes: list[StatementChange], target: Located) -> _State | None:
        merged = dict(state.changes)
        for change in changes:
            merged[change.key] = merged[change.key].merged(change) if change.key in merged else change
        try:
            rendered = self.program.render(list(merged.values()))
        except ValueError:
            return None
        report = self.verify(rendered.text, "tdl")
        if report.plan is None or not report.plan.parsed:
            return None
        if self.events is not None and task_difference(self.events, task_events(report.plan, self.model, report.cell)) is not None:
            return None
        if semantic_verdict(report) != self.semantic:
            return None
        after = _State(merged, rendered, report)
        now = [self.locate(f, after) for f in blocking(report)]
        before = [self.locate(f, state) for f in blocking(state.report)]
        if any(x.key == target.key and x.finding.rule_id == target.finding.rule_id for x in now):
            return None
        order = self.order(target)
        earlier_before = {(x.finding.rule_id, x.key) for x in before if self.order(x) <= order}
        if any((x.finding.rule_id, x.key) not in earlier_before for x in now if self.order(x) <= order):
            return None
        if len(now) > len(before) + 2:
            return None
        return after

    # ------------------------------------------------------------------ where findings are

    def locate(self, finding: Finding, state: _State) -> Located:
        """The input statement a finding of a candidate is about (via motions count as their motion's)."""
        plan = state.report.plan
        span = None
        if finding.step is not None and plan is not None and 1 <= finding.step <= len(plan.steps):
            span = plan.step(finding.step).span
        span = span or finding.span
        key = None
        if span is not None and 1 <= span.line <= len(state.rendered.origins):
            origin = state.rendered.origins[span.line - 1]
            key = origin.key if origin.added else (origin.line, span.column)
            if key not in self.program.statements:
                key = None
        return Located(finding, key, origin_line=key[0] if key else (span.line if span else None))

    def order(self, located: Located) -> int:
        step = self.program.statements.get(located.key) if located.key else None
        return step.index if step is not None else 10**9

    def priority(self, located: Located) -> tuple:
        speed = located.finding.rule_id in Strategies.SPEED
        return (0 if speed else 1, self.order(located), located.finding.rule_id)

    # ------------------------------------------------------------------ result

    def result(self, state: _State) -> RepairResult:
        unrepaired = []
        for f in blocking(state.report):
            located = self.locate(f, state)
            why, alternative = self.reasons.get((f.rule_id, located.key), (None, None))
            if why is None:
                why = Strategies.why_not(f)
            original_step = self.program.statements[located.key].index if located.key in self.program.statements else None
            unrepaired.append(Unrepaired(f.rule_id, located.origin_line, original_step, why, alternative or f.suggestion,
                                         {"message": f.message}))
        return RepairResult(state.rendered.text, state.rendered.edits, tuple(unrepaired), state.report, self.original,
                            time.perf_counter() - self.t0, self.verify.count)
