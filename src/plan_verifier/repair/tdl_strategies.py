"""The repair strategies for a TDL program: for each rejecting finding, candidate changes, smallest first.

- Speeds (R-SAF-002/003/009): the number clamped into the allowed range. Joint speeds
  (R-KIN-005): the commanded velocity lowered to the largest that keeps every joint
  within its limit (estimated from the finding's measured rate, then lowered in steps
  of 10 % until the verifier agrees).
- A path a `MoveLinear` cannot follow (R-KIN-003 branch change or workspace edge,
  R-KIN-004 singularity): on a transit, `MoveJoint` (joint interpolation has neither).
- A collision on the way (R-COL-001/002/003), or a path the joint move does not fix:
  a collision-free joint path from the motion planner (`planner`), emitted as the
  fewest `PosJ` via points, the motion made a `MoveJoint`.
- A motion that fails because of the IK branch it runs on (a descent that folds the
  tool into the upper arm, a line whose branch meets the floor): the branch is changed
  where the task allows it — at the transit before the motions into and out of an event,
  or before the program's first motion — with a `MoveJoint` to the same TCP pose on
  another branch (the controller's nearest-solution rule then keeps the following
  linear moves on it), reached by a planned path.

The motions into and out of an event (the last motion before a gripper/IO command,
routine or tool change, and the first after it) keep their type unless the finding
is on them. What no motion change can fix — no solution for the target, every
solution in collision, a target out of the robot's limits, anything that is not a
motion — raises `UnrepairableError` with the reason and the nearest alternative.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

from plan_verifier import catalogue
from plan_verifier.findings import Finding
from plan_verifier.motion.program import Motion, motion_program
from plan_verifier.report import Report
from plan_verifier.repair.alternatives import clear_solutions, describe, nearest_alternatives
from plan_verifier.repair.model import MotionModel, Mount
from plan_verifier.repair.planner import Budget, PlannerUnavailable, plan_path
from plan_verifier.repair.result import NOT_REPAIRABLE
from plan_verifier.repair.rule_sets import CLAMPED, COLLISION, JOINT_SPEED, PATH, SPEED, TARGET, why_not
from plan_verifier.repair.task import EVENT_KINDS, SPEED_SETTINGS
from plan_verifier.repair.tdl_text import Key, Rendered, StatementChange, TdlProgram, Via

#: Branch alternatives tried per finding (nearest first).
MAX_BRANCHES = 3
#: Collision checks the motion planner may spend on one program's repair.
PLANNER_CHECKS = 1200
#: R-KIN-005: bisection steps for the largest velocity that passes (to within 2 % or 1 mm/s).
SPEED_STEPS = 6

_JOINT_OF = {"MoveLinear": "MoveJoint", "AMoveLinear": "AMoveJoint"}


class UnrepairableError(Exception):
    """No motion change can remove this finding: why, and the nearest alternative the planner could ask for.

    `stranded`: the motion's target has no configuration clear of the floor, the obstacles and the robot itself, so
    the arm cannot be where the motion ends, nor where the next one starts. `kind`: `Unrepaired.kind`."""

    def __init__(self, why: str, alternative: str | None = None, *, stranded: bool = False, kind: str = NOT_REPAIRABLE):
        super().__init__(why)
        self.why = why
        self.alternative = alternative
        self.stranded = stranded
        self.kind = kind


def unrepairable(finding: Finding, alternative: str | None = None) -> UnrepairableError:
    why, kind = why_not(finding)
    return UnrepairableError(why, alternative, kind=kind)


@dataclass(frozen=True)
class Located:
    """A rejecting finding of a candidate and the input statement it is about (None: no statement)."""

    finding: Finding
    key: Key | None
    origin_line: int | None


@dataclass
class MotionState:
    """One motion statement as the candidate's simulation ran it."""

    key: Key
    step: int  # the candidate's step index
    motion: Motion
    mount: Mount
    q_start: np.ndarray | None  # rad
    pose: np.ndarray | None  # the target's TCP pose (4, 4)
    q_goal: np.ndarray | None  # the controller's choice for the target from q_start


class Context:
    """The input program and what the strategies look up in it."""

    def __init__(self, program: TdlProgram, model: MotionModel | None, original: Report):
        self.program = program
        self.model = model
        self.original = original
        steps = original.plan.steps
        motion_steps = [s for s in steps if _kind(s.command) == "motion"]
        self.motion_keys: list[Key] = []
        for s in motion_steps:
            key = (s.span.line, s.span.column)
            if key not in self.motion_keys:
                self.motion_keys.append(key)
        self.constrained: set[Key] = set()
        previous: Key | None = None
        after_event = False
        for s in steps:
            kind = _kind(s.command)
            if kind == "motion":
                key = (s.span.line, s.span.column)
                if after_event:
                    self.constrained.add(key)
                previous, after_event = key, False
            elif kind in EVENT_KINDS and s.command not in SPEED_SETTINGS:
                if previous is not None:
                    self.constrained.add(previous)
                after_event = True
        self.names = program.taken_names()


class Strategies:
    SPEED = SPEED

    def __init__(self, context: Context):
        self.ctx = context
        self.budget = Budget(PLANNER_CHECKS)
        #: Whether a change set is kept when verified (set by the loop for the finding at hand).
        self.probe: Callable[[list[StatementChange]], bool] | None = None

    # ------------------------------------------------------------------ dispatch

    def for_finding(self, target: Located, changes: dict[Key, StatementChange], report: Report,
                    rendered: Rendered) -> Iterator[tuple[list[StatementChange], str]]:
        """Candidate change sets for one finding, smallest first (raises UnrepairableError up front)."""
        rule = target.finding.rule_id
        if target.key is None:
            raise unrepairable(target.finding)
        if rule in CLAMPED:
            return iter([self.clamp(target)])
        if self.ctx.model is None:
            raise unrepairable(target.finding)
        state = self.motion_state(target.key, report, rendered)
        if rule in TARGET:
            raise unrepairable(target.finding, self.alternative(state))
        if rule == JOINT_SPEED:
            return self.slower(target, state)
        if rule in PATH | COLLISION:
            if state is None or state.q_start is None:
                raise UnrepairableError("the motion could not be simulated from a known configuration")
            if state.pose is not None and not len(clear_solutions(self.ctx.model, state.pose, state.mount)):
                raise UnrepairableError(f"every solution of {state.motion.target.label} within the joint limits puts the robot into "
                                        "the floor, an obstacle or itself: no motion change can reach it, and a repair never "
                                        "moves a target", self.alternative(state), stranded=True)
            return self.motion_candidates(target, state, changes, report, rendered)
        raise unrepairable(target.finding)

    def cheapest(self, target: Located) -> list[StatementChange] | None:
        """The one-token change for a finding, when it has one: a speed clamped, a transit line made a joint move (a joint
        speed finding is not one: its change is the largest velocity that passes, found by verifying)."""
        rule = target.finding.rule_id
        if target.key is None:
            return None
        if rule in CLAMPED:
            try:
                return self.clamp(target)[0]
            except UnrepairableError:
                return None
        step = self.ctx.program.statements[target.key]
        if rule in PATH | COLLISION and target.key not in self.ctx.constrained and step.command in _JOINT_OF:
            return self.to_joint(target, "a transit: joint interpolation needs no line and keeps no branch")[0]
        return None

    # ------------------------------------------------------------------ speeds

    def clamp(self, target: Located) -> tuple[list[StatementChange], str]:
        finding = target.finding
        step = self.ctx.program.statements[target.key]
        param = next((p for p in step.args if step.arg_span(p) == finding.span), None)
        value = step.number(param) if param else None
        low, high = finding.evidence.get("min"), finding.evidence.get("max")
        if param is None or value is None or low is None or high is None:
            raise unrepairable(finding)
        new = min(max(value, float(low)), float(high))
        return ([StatementChange(target.key, numbers=((param, new),), fixes=(finding.rule_id,),
                                 why=(f"{param} {value:g} clamped into the allowed range [{low:g}, {high:g}]",))],
                f"{param} {new:g}")

    def slower(self, target: Located, state: MotionState | None) -> Iterator[tuple[list[StatementChange], str]]:
        """The largest velocity that passes: the estimate from the measured joint rate first (exact while the cruise
        speed decides the rate), then a bisection between the lowest allowed velocity and the lowest that failed,
        each probe verified (`probe`, set by the loop) — with a short move the acceleration decides the peak speed."""
        finding = target.finding
        evidence = finding.evidence
        step = self.ctx.program.statements[target.key]
        low = float(self.ctx.model.robot.limits.velocity_mm_s.min)

        def change(value: float) -> list[StatementChange]:
            return [StatementChange(target.key, numbers=(("velocity", float(value)),), fixes=(finding.rule_id,),
                                    why=(f"velocity {velocity:g} mm/s lowered to {value:g} mm/s, the largest at which every "
                                         "joint stays within its speed limit",))]

        if "velocity" in step.args and step.number("velocity") is not None and evidence.get("needed_deg_s") and self.probe:
            velocity = float(evidence["velocity_mm_s"])
            passed, failed = None, velocity
            estimate = math.floor(velocity * float(evidence["limit_deg_s"]) / float(evidence["needed_deg_s"]))
            if low <= estimate < velocity:
                if self.probe(change(estimate)):
                    passed = estimate
                else:
                    failed = estimate
            lo = passed if passed is not None else low
            for _ in range(SPEED_STEPS):
                middle = math.floor((lo + failed) / 2)
                if middle <= lo or failed - lo <= max(1.0, 0.02 * failed):
                    break
                if self.probe(change(middle)):
                    passed = lo = middle
                else:
                    failed = middle
            if passed is None and self.probe(change(low)):
                passed = low
            if passed is not None:
                yield change(passed), f"velocity {passed:g}"
        if target.key not in self.ctx.constrained and step.command in _JOINT_OF:
            yield self.to_joint(target, "a joint move needs no joint beyond its speed along a line")

    # ------------------------------------------------------------------ motions

    def motion_candidates(self, target: Located, state: MotionState, changes: dict[Key, StatementChange], report: Report,
                          rendered: Rendered) -> Iterator[tuple[list[StatementChange], str]]:
        rule = target.finding.rule_id
        step = self.ctx.program.statements[target.key]
        transit = target.key not in self.ctx.constrained
        switchable = step.command in _JOINT_OF
        if transit:
            if switchable:
                yield self.to_joint(target, "MoveLinear cannot follow this line; joint interpolation can" if rule in PATH
                                    else "a transit: the joint move to the same target clears what the line runs into")
            yield from self.routed(target, state, switch=switchable)
            yield from self.branches(target, state, report, rendered, at=target.key)
            yield from self.whole_program_branch(target, state, report, rendered)
            return
        at = self.branch_point(target.key)
        yield from self.branches(target, state, report, rendered, at=at, searches=(False,))
        if switchable and rule in PATH:
            yield self.to_joint(target, f"the finding is on this motion: {step.command} cannot follow its line on any branch "
                                        "reached without a detour")
        yield from self.branches(target, state, report, rendered, at=at, searches=(True,))
        if switchable:
            if rule not in PATH:
                yield self.to_joint(target, f"the finding is on this motion: {step.command} cannot run here on any branch the "
                                            "task allows")
            yield from self.routed(target, state, switch=True)
        yield from self.whole_program_branch(target, state, report, rendered)

    def whole_program_branch(self, target: Located, state: MotionState, report: Report,
                             rendered: Rendered) -> Iterator[tuple[list[StatementChange], str]]:
        """The branch changed before the program's first motion: every later Cartesian target is then reached by the
        solution nearest to a configuration on that branch (a program written from a start on the wrong branch)."""
        first = self.ctx.motion_keys[0] if self.ctx.motion_keys else None
        if first is not None and first not in (target.key, self.branch_point(target.key)):
            yield from self.branches(target, state, report, rendered, at=first, searches=(False,))

    def to_joint(self, target: Located, why: str) -> tuple[list[StatementChange], str]:
        step = self.ctx.program.statements[target.key]
        return ([StatementChange(target.key, command=_JOINT_OF[step.command], fixes=(target.finding.rule_id,), why=(why,))],
                _JOINT_OF[step.command])

    def routed(self, target: Located, state: MotionState, *, switch: bool) -> Iterator[tuple[list[StatementChange], str]]:
        """The motion's own way to its target replaced by a joint path: straight to the target on another branch
        first, then a planned collision-free path (to the controller's choice of target configuration, else to
        another branch)."""
        model = self.ctx.model
        goals = []
        if state.q_goal is not None and model.clearance(state.mount, state.q_goal[None])[0] >= 0.0:
            goals.append((state.q_goal, False))
        goals.extend((q, True) for q in self.other_solutions(state, state.q_start)[:MAX_BRANCHES])
        command = _JOINT_OF.get(self.ctx.program.statements[target.key].command) if switch else None
        for search in (False, True):
            for goal, pin in goals:
                vias = self.path(state, state.q_start, goal, pin=pin, search=search)
                if not vias or (not search and not pin):
                    continue  # no path; or the straight joint move to the controller's choice (`to_joint`)
                what = ("a collision-free joint path from the motion planner (OMPL RRT-Connect, shortcut)" if search else
                        "the target reached on another arm configuration (IK branch) by a clear joint move")
                yield ([StatementChange(target.key, command=command if not pin else None, vias=self.name_vias(state, vias, pinned=pin),
                                        fixes=(target.finding.rule_id,), why=(f"{what}: {len(vias)} via point(s)",))],
                       f"{len(vias)} via points")

    def branches(self, target: Located, state: MotionState, report: Report, rendered: Rendered,
                 at: Key | None, searches: tuple[bool, ...] = (False, True)) -> Iterator[tuple[list[StatementChange], str]]:
        """The IK branch changed at statement `at` (a transit whose target then gets another configuration, or the first
        motion of the program, before which the arm reconfigures at its start pose)."""
        if at is None:
            return
        point = self.motion_state(at, report, rendered)
        if point is None or point.q_start is None:
            return
        if at in self.ctx.constrained:  # the first motion of the program: reconfigure where the arm starts
            start_pose = self.ctx.model.arm.tcp_pose(point.q_start, point.mount.tcp)
            options = self._other_clear(start_pose, point.mount, point.q_start, point.q_start)
            label, what = "Start_Pose", "the start pose"
        else:
            options = self.other_solutions(point, point.q_start)
            label, what = None, point.motion.target.label
        for search in searches:
            for q in options[:MAX_BRANCHES]:
                vias = self.path(point, point.q_start, q, pin=True, search=search)
                if vias is None:
                    continue
                yield ([StatementChange(at, vias=self.name_vias(point, vias, pinned=True, label=label), fixes=(target.finding.rule_id,),
                                        why=(f"{what} reached on another arm configuration (IK branch), from which the following "
                                             "motions run clear",))], "another branch")

    def branch_point(self, key: Key) -> Key | None:
        """Where the branch may change for a motion into or out of an event: the transit before its chain of such
        motions, else the chain's first motion when it starts the program."""
        keys = self.ctx.motion_keys
        i = keys.index(key) if key in keys else -1
        while i > 0 and keys[i] in self.ctx.constrained:
            i -= 1
        if i < 0:
            return None
        if keys[i] not in self.ctx.constrained:
            return keys[i]
        return keys[i] if i == 0 else None

    # ------------------------------------------------------------------ helpers

    def path(self, state: MotionState, q0: np.ndarray, q1: np.ndarray, *, pin: bool, search: bool) -> list[np.ndarray] | None:
        """Via points of a clear joint path q0 -> q1 (with q1 itself when `pin`); `search=False`: only the straight move."""
        if not search:
            clear = self.ctx.model.clearance(state.mount, q1[None])[0] >= 0.0 and self.ctx.model.joint_move_clear(state.mount, q0, q1)
            return ([q1] if pin else []) if clear else None
        try:
            vias = plan_path(self.ctx.model, state.mount, q0, q1, budget=self.budget)
        except PlannerUnavailable:
            return None
        if not vias:
            return None  # none found, or the straight move (tried without a search)
        return vias + [q1] if pin else vias

    def other_solutions(self, state: MotionState, near: np.ndarray) -> list[np.ndarray]:
        if state.pose is None:
            return []
        return self._other_clear(state.pose, state.mount, near, state.q_goal)

    def _other_clear(self, pose: np.ndarray, mount: Mount, near: np.ndarray, current: np.ndarray | None) -> list[np.ndarray]:
        model = self.ctx.model
        found = []
        for q in clear_solutions(model, pose, mount):
            variant = model.variant_near(q, near)
            if variant is None or (current is not None and np.allclose(_wrap(variant - current), 0.0, atol=1e-6)):
                continue
            found.append(variant)
        return sorted(found, key=lambda q: float(np.linalg.norm(q - near)))

    def name_vias(self, state: MotionState, vias: list[np.ndarray], *, pinned: bool, label: str | None = None) -> tuple[Via, ...]:
        base = label or state.motion.target.label
        if not base.isidentifier():
            base = f"Step{self.ctx.program.statements[state.key].index}"
        out = []
        for k, q in enumerate(vias, start=1):
            last = pinned and k == len(vias)
            name = self.fresh(f"{base}_Joints" if last else f"{base}_Via{k}")
            out.append(Via(name, tuple(float(v) for v in np.degrees(q))))
        return tuple(out)

    def fresh(self, name: str) -> str:
        candidate, n = name, 2
        while candidate in self.ctx.names:
            candidate, n = f"{name}_{n}", n + 1
        self.ctx.names.add(candidate)
        return candidate

    def alternative(self, state: MotionState | None) -> str | None:
        if state is None or state.pose is None or self.ctx.model is None:
            return None
        return describe(nearest_alternatives(self.ctx.model, state.pose, state.mount, state.motion.target.convention))

    def motion_state(self, key: Key, report: Report, rendered: Rendered) -> MotionState | None:
        plan = report.plan
        index = next((s.index for s in plan.steps if s.span is not None and 1 <= s.span.line <= len(rendered.origins)
                      and not rendered.origins[s.span.line - 1].added
                      and (rendered.origins[s.span.line - 1].line, s.span.column) == key), None)
        if index is None:
            return None
        motions = [m for m in motion_program(plan, report.cell, None).motions if m.step == index]
        if not motions:
            return None
        model = self.ctx.model
        last = motions[-1]
        mount = model.mount(tool_number=last.tool.number, cell_tool=last.tool.name)
        simulated = report.motion.motion_at(index) if report.motion is not None else ()
        q_start = np.radians(np.asarray(simulated[0].q_deg[0], dtype=float)) if simulated else None
        target = last.target
        pose = q_goal = None
        if target.joints_deg is not None:
            q_goal = np.radians(np.asarray(target.joints_deg, dtype=float))
            pose = model.arm.tcp_pose(q_goal, mount.tcp)
        elif target.pose is not None:
            pose = model.pose(target.pose, target.convention)
            if q_start is not None:
                q_goal = model.nearest(model.solutions(pose, mount), q_start)
        return MotionState(key, index, last, mount, q_start, pose, q_goal)


def _kind(command: str) -> str | None:
    spec = catalogue.lookup(command)
    return spec.kind if spec is not None else None


def _wrap(angles: np.ndarray) -> np.ndarray:
    return (angles + np.pi) % (2.0 * np.pi) - np.pi
