"""Repairing a TDL program: the smallest motion changes the verifier itself approves.

The loop: take the first finding that rejects the program (in execution order,
speed findings first: they are one number each); ask the strategies for that
finding (`tdl_strategies`) for candidate changes, smallest first; write each
into the original text (`tdl_text`) and screen the candidate with the pipeline
(`verifying.Verification.screen`: the same pipeline less the rules that never
reject); keep the first one that removes the finding, does the same task
(`task.task_difference`), keeps the semantic verdict at level FULL and adds no
rejecting finding at or before the motion it changes. Then the next finding:
the execution level stops at the first motion that fails, so repairing it
reveals the motions after it, and the loop repairs what each verification
reveals, until the program is approved or no strategy is left. The final
program is verified by the full pipeline once: its report is the answer.

A candidate that adds a finding to a motion after its own that ran clean
before (a changed branch that a later line cannot follow) is kept only when
no other candidate for the finding is clean. A finding no motion change can
remove (`UnrepairableError`) is reported with why and the nearest
alternative; when it leaves the arm where it cannot be (a target whose every
configuration collides), the motions after it start from there, and their
findings are reported as not repairable before that one is — one mistake,
one finding, as the execution level reports it.

Changes are kept per statement of the input, so every candidate is the input
text plus a small set of edits, never an edit of an edit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from plan_verifier.findings import Category, Finding
from plan_verifier.report import Report
from plan_verifier.repair.model import MotionModel
from plan_verifier.repair.result import GAVE_UP, NOT_REPAIRABLE, RepairResult, Unrepaired
from plan_verifier.repair.rule_sets import COLLISION, JOINT_SPEED, PATH, why_not
from plan_verifier.repair.task import task_difference, task_events
from plan_verifier.repair.tdl_strategies import Context, Located, Strategies, UnrepairableError
from plan_verifier.repair.tdl_text import Key, Rendered, StatementChange, TdlProgram
from plan_verifier.repair.verifying import Verification, semantic_verdict

#: The findings of a motion that depend on where it starts (the rest are about its target or its settings).
FROM_THE_START = PATH | COLLISION | {JOINT_SPEED}
#: Rounds at most this many per motion of the program; candidates verified at most this many per finding and per program.
ROUNDS_PER_MOTION = 3
CANDIDATES_PER_FINDING = 6
CANDIDATES_PER_PROGRAM = 60


@dataclass
class _State:
    changes: dict[Key, StatementChange]
    rendered: Rendered
    report: Report


@dataclass
class _Reason:
    """Why a finding stays, the alternative the planner could ask for, and `Unrepaired.kind`."""

    why: str
    alternative: str | None
    kind: str


def repair_tdl(text: str, verification: Verification) -> RepairResult:
    t0 = time.perf_counter()
    original = verification.screen(text, "tdl")  # what the screen rejects, the whole pipeline rejects (it only adds rules)
    if not verification.blocking(original):  # approved, or not: only the whole pipeline's word
        original = verification(text, "tdl")
        if original.approved:
            return RepairResult(text, (), (), original, original, time.perf_counter() - t0, verification.count)
    plan = original.plan
    if plan is None or not plan.parsed or any(f.category is Category.SYNTAX for f in verification.blocking(original)):
        original = verification(text, "tdl")  # the answer: the whole pipeline's report
        unrepaired = tuple(Unrepaired(f.rule_id, f.span.line if f.span else None, f.step,
                                      "the program could not be read: only a corrected text can be checked for motions",
                                      f.suggestion) for f in verification.blocking(original))
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
        self.reasons: dict[tuple[str, Key | None], _Reason] = {}
        #: (order, step) of the first motion whose target no configuration reaches clear: the arm cannot be where it ends.
        self.stranded: tuple[int, int] | None = None

    def run(self) -> RepairResult:
        state = _State({}, self.program.render([]), self.original)
        context = Context(self.program, self.model, self.original)
        strategies = Strategies(context)
        tried: set[tuple[str, Key | None]] = set()
        state = self.batch(state, strategies)
        limit = ROUNDS_PER_MOTION * max(1, len(self.program.statements))
        for _ in range(limit):
            located = [self.locate(f, state) for f in self.verify.blocking(state.report)]
            todo = [x for x in sorted(located, key=self.priority) if (x.finding.rule_id, x.key) not in tried]
            if not todo:
                break
            target = todo[0]
            name = (target.finding.rule_id, target.key)
            tried.add(name)
            if self.stranded is not None and target.finding.rule_id in FROM_THE_START and target.key is not None \
                    and self.order(target) > self.stranded[0]:
                self.reasons[name] = _Reason(
                    f"the motion starts where step {self.stranded[1]} leaves the arm, and no configuration reaches that step's "
                    "target clear of the floor, the obstacles and the robot itself: nothing after it can be verified until that "
                    "target changes", None, NOT_REPAIRABLE)
                continue
            strategies.probe = lambda changes, state=state, target=target: self.attempt(state, changes, target) is not None
            try:
                candidates = strategies.for_finding(target, state.changes, state.report, state.rendered)
            except UnrepairableError as exc:
                self.reasons[name] = _Reason(exc.why, exc.alternative, exc.kind)
                if exc.stranded and self.stranded is None and target.key is not None:
                    self.stranded = (self.order(target), self.program.statements[target.key].index)
                continue
            kept = fallback = None
            tried_whys: list[str] = []
            for n, (changes, why) in enumerate(candidates):
                if n >= CANDIDATES_PER_FINDING or self.verify.count >= CANDIDATES_PER_PROGRAM or self.verify.expired:
                    self.reasons.setdefault(name, _Reason("the repair's budget of candidates ran out before one was approved",
                                                          None, GAVE_UP))
                    break
                outcome = self.attempt(state, changes, target)
                if outcome is not None and outcome[1]:
                    kept = outcome[0]
                    break
                if outcome is not None and fallback is None:
                    fallback = outcome[0]
                tried_whys.append(why)
                self.reasons[name] = _Reason(
                    f"tried {', '.join(dict.fromkeys(tried_whys))}: the verifier rejected each (or it changed the task)", None,
                    GAVE_UP)
            kept = kept or fallback
            if kept is not None:
                state = kept
                self.reasons.pop(name, None)
        # the answer: the whole pipeline's report of the final program (the input's text when nothing was kept)
        state = _State(state.changes, state.rendered, self.verify(state.rendered.text, "tdl"))
        return self.result(state)

    # ------------------------------------------------------------------ candidates

    def batch(self, state: _State, strategies: Strategies) -> _State:
        """One candidate with every finding's cheapest change at once (speeds clamped, transits made joint moves): a
        program written line by line often has several speed settings out of range. Kept when it does the same task
        and leaves fewer rejecting findings; the loop then takes each finding that is left on its own."""
        changes: list[StatementChange] = []
        for located in sorted((self.locate(f, state) for f in self.verify.blocking(state.report)), key=self.priority):
            cheap = strategies.cheapest(located)
            if cheap is not None and all(c.key not in {d.key for d in changes} or c.numbers for c in cheap):
                changes.extend(cheap)
        if len(changes) < 2 or self.verify.expired:
            return state
        merged: dict[Key, StatementChange] = {}
        for change in changes:
            merged[change.key] = merged[change.key].merged(change) if change.key in merged else change
        rendered = self.program.render(list(merged.values()))
        report = self.verify.screen(rendered.text, "tdl")
        if report.plan is None or not report.plan.parsed or semantic_verdict(report) != self.semantic:
            return state
        if self.events is not None and task_difference(self.events, task_events(report.plan, self.model, report.cell)) is not None:
            return state
        return _State(merged, rendered, report) if len(self.verify.blocking(report)) < len(self.verify.blocking(state.report)) else state

    def attempt(self, state: _State, changes: list[StatementChange], target: Located) -> tuple[_State, bool] | None:
        """The candidate's state when it removes `target`'s finding, keeps the task and adds no rejecting finding at or
        before its motion (None otherwise), and whether it is clean: no new finding on a motion after it that ran
        clean before (the motions the execution level did not reach before are new to it, not made worse)."""
        merged = dict(state.changes)
        for change in changes:
            merged[change.key] = merged[change.key].merged(change) if change.key in merged else change
        try:
            rendered = self.program.render(list(merged.values()))
        except ValueError:
            return None
        report = self.verify.screen(rendered.text, "tdl")
        if report.plan is None or not report.plan.parsed:
            return None
        if self.events is not None and task_difference(self.events, task_events(report.plan, self.model, report.cell)) is not None:
            return None
        if semantic_verdict(report) != self.semantic:
            return None
        after = _State(merged, rendered, report)
        now = {(x.finding.rule_id, x.key): x for x in (self.locate(f, after) for f in self.verify.blocking(report))}
        before = {(x.finding.rule_id, x.key) for x in (self.locate(f, state) for f in self.verify.blocking(state.report))}
        if (target.finding.rule_id, target.key) in now:
            return None
        order = self.order(target)
        new = [x for name, x in now.items() if name not in before]
        if any(self.order(x) <= order for x in new):
            return None
        ran = self.simulated(state)
        return after, not any(x.key in ran for x in new)

    def simulated(self, state: _State) -> set[Key]:
        """The input statements whose motions the execution level simulated in `state`."""
        execution = state.report.motion
        if execution is None or state.report.plan is None:
            return set()
        steps = {m.motion.step for m in execution.motions}
        return {key for key in (self.key_at(state.report.plan.step(step).span, state) for step in steps) if key is not None}

    # ------------------------------------------------------------------ where findings are

    def locate(self, finding: Finding, state: _State) -> Located:
        """The input statement a finding of a candidate is about (via motions count as their motion's)."""
        plan = state.report.plan
        span = None
        if finding.step is not None and plan is not None and 1 <= finding.step <= len(plan.steps):
            span = plan.step(finding.step).span
        span = span or finding.span
        key = self.key_at(span, state)
        return Located(finding, key, origin_line=key[0] if key else (span.line if span else None))

    def key_at(self, span, state: _State) -> Key | None:
        """The input statement at a span of the candidate's text (None: a line that is no statement of the input)."""
        if span is None or not 1 <= span.line <= len(state.rendered.origins):
            return None
        origin = state.rendered.origins[span.line - 1]
        key = origin.key if origin.added else (origin.line, span.column)
        return key if key in self.program.statements else None

    def order(self, located: Located) -> int:
        step = self.program.statements.get(located.key) if located.key else None
        return step.index if step is not None else 10**9

    def priority(self, located: Located) -> tuple:
        speed = located.finding.rule_id in Strategies.SPEED
        return (0 if speed else 1, self.order(located), located.finding.rule_id)

    # ------------------------------------------------------------------ result

    def result(self, state: _State) -> RepairResult:
        unrepaired = []
        for f in self.verify.blocking(state.report):
            located = self.locate(f, state)
            reason = self.reasons.get((f.rule_id, located.key))
            if reason is None:
                why, kind = why_not(f)
                reason = _Reason(why, None, kind)
            original_step = self.program.statements[located.key].index if located.key in self.program.statements else None
            unrepaired.append(Unrepaired(f.rule_id, located.origin_line, original_step, reason.why, reason.alternative or f.suggestion,
                                         {"message": f.message}, reason.kind))
        original = self.original if state.changes else state.report  # nothing kept: the input's whole report
        return RepairResult(state.rendered.text, state.rendered.edits, tuple(unrepaired), state.report, original,
                            time.perf_counter() - self.t0, self.verify.count)
