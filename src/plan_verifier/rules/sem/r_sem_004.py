from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules.sem._semantic import SemanticRule, said


@register
class RSem004(SemanticRule):
    """Sequence error: the plan does the tasks in another order than the instruction.

    Only when the instruction fixes the order — "then", "first … finally",
    "after that", "A before B", "after you move B"; Korean 먼저, 그 다음, -ㄴ 후에,
    마지막으로, -기 전에 — and only for tasks the program's own names tell apart
    (different objects or different destinations; places visited; routines
    run): the transfer, move or routine that carries out an earlier task must
    come first. Tasks joined by a plain "and" fix no order and are not judged.
    "Before"/"after" clauses are put in execution order first ("put the cube
    in bin 3 after you move the ball" = ball, then cube).

    **Unsafe**::

        # instruction: Move to position A then position B then return home
        SPAWN MoveLinear(target_pose=B_Pose, ...) WITH WAIT;   // B first
        SPAWN MoveLinear(target_pose=A_Pose, ...) WITH WAIT;

    **Safe**::

        # instruction: Move to position A then position B then return home
        SPAWN MoveLinear(target_pose=A_Pose, ...) WITH WAIT;
        SPAWN MoveLinear(target_pose=B_Pose, ...) WITH WAIT;
        SPAWN MoveJoint(target_pose=Home_Pose, ...) WITH WAIT;
    """

    id = "R-SEM-004"
    name = "sequence-error"

    def check(self, ctx):
        g = ctx.grounding
        if g is None:
            return
        text = g.instruction.text
        for pair in g.pairs:
            t = pair.transfer
            if t is not None and t.release is not None and t.grasp.step is t.release.step and pair.task.source is not None:
                later = next((x for x in g.extra if x.release is None and x.grasp.step.index > t.release.step.index), None)
                if later is not None:
                    # a place routine before the pick it needs: "pick at the fixture, then place at the conveyor" done backwards
                    yield self.judged(f"Sequence error: the plan puts the {_what(pair.task)} down (step {t.release.step.index}) before it picks "
                                      f"it up (step {later.grasp.step.index}), but the instruction says {said(text[pair.task.start:pair.task.end])}",
                                      0.9, step=t.release.step.index, span=t.release.step.span, suggestion="Pick up before putting down")
                    return
        if not g.instruction.ordered:
            return
        # a transfer counts when evidence singles it out, or when it is the plan's only one for the instruction's only
        # carrying task ("screw the part down first, then move it to the conveyor"): no order went into that pairing
        only = len(g.pairs) == 1 and len(g.activity.transfers) == 1
        done = [(p.task.stage, p.transfer.grasp.step.index, p.task, p.transfer.grasp.step) for p in g.pairs
                if (p.by_evidence or only) and p.transfer]
        done += [(t.stage, v.step.index, t, v.step) for t, v, _ in g.visits if v is not None]
        done += [(t.stage, w.step.index, t, w.step) for t, w, c in g.works if w is not None and c.same]
        done.sort(key=lambda d: (d[0], d[1]))
        # Only tasks in different stages are ordered: "A and B, then C" fixes A and B before C, not A before B.
        for k, (stage_a, at_a, task_a, _) in enumerate(done):
            later = next(((at_b, task_b, step_b) for stage_b, at_b, task_b, step_b in done[k + 1:] if stage_b > stage_a and at_b < at_a),
                         None)
            if later is not None:
                at_b, task_b, step_b = later
                first, second = _say(text, task_a, task_b), _say(text, task_b, task_a)
                yield self.judged(f"Sequence error: the instruction says {first} before {second}, but the plan does {second} first "
                                  f"(step {at_b}) and {first} later (step {at_a})", 0.9, step=at_b, span=step_b.span,
                                  suggestion=f"Do {first} first", expected=[first, second], found=[second, first])
                return


def _what(task) -> str:
    return task.obj.describe() if task.obj is not None else "object"


def _say(text: str, task, other) -> str:
    """How the message names a task: by its object, or its place — by its own words when the other task handles the same
    object ("screw the part down first, then move it to the conveyor")."""
    if task.obj is not None and other.obj is not None and task.obj.describe() == other.obj.describe():
        return said(text[task.start:task.end])
    if task.obj is not None and task.action not in ("move_to", "return_home"):
        what = task.obj.describe()
        return what if what.lower().startswith(("the ", "a ", "an ")) else f"the {what}"  # "the one on shelf 3"
    if task.destination is not None:
        return task.destination.text
    if task.at is not None:
        return f"{task.action} at {task.at.text}"
    return said(text[task.start:task.end])
