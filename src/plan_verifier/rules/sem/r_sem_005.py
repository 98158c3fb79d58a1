from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules.sem._semantic import SemanticRule, said
from plan_verifier.semantic.grounding import MATCH, compare_place

#: Commands that may drive a gripper when the timeline found none (several outputs, a tool change).
_GRIPPER_COMMANDS = frozenset({"SetDigitalOutput", "ToolChange"})


@register
class RSem005(SemanticRule):
    """Missing step: a task the instruction asks for is not in the plan.

    Every object the instruction asks to carry ("pick"/"move"/"put"/"hand
    over"; "집어", "옮겨", "건네") needs a grasp, and every one it asks to put
    somewhere a release after it ("both boxes" needs two); a final "return
    home" needs the last move to reach home; "weld"/"inspect"/"screw" at a
    place need that routine, "attach"/"put back" a tool the tool_attach /
    tool_release step (JSON plans). A plan that drives its gripper through
    commands the reader does not know is not judged (the rule abstains).

    **Unsafe**::

        # instruction: First move the apple from A to B, then the banana from C to D
        ...one grasp and one release (the apple only)...

    **Safe**::

        # instruction: First move the apple from A to B, then the banana from C to D
        ...two grasp-release cycles...
    """

    id = "R-SEM-005"
    name = "missing-step"

    def check(self, ctx):
        g = ctx.grounding
        if g is None:
            return
        text = g.instruction.text
        activity = g.activity
        unverified = []
        judged = False
        # No grasp found, but outputs the reader cannot attribute to one gripper port: it cannot say nothing was grasped.
        other_gripper = activity.format == "tdl" and activity.gripper_steps == 0 and any(
            s.command in _GRIPPER_COMMANDS for s in ctx.plan.steps)
        missing = [p for p in g.pairs if p.transfer is None]
        for pair in missing:
            task = pair.task
            what = task.obj.describe() if task.obj is not None else "object"
            if other_gripper:
                unverified.append(f"the {what}: the plan drives several outputs and none of them clearly as the gripper")
                continue
            found = len(activity.transfers)
            detail = "never grasps anything" if not found else f"has {found} grasp-and-release cycle(s) for {len(g.pairs)} object(s) to carry"
            judged = True
            yield self.judged(f"Missing step: the instruction asks to {task.text} the {what} ({said(text[task.start:task.end])}), but the "
                              f"plan {detail}", 0.9 if not found else 0.85, suggestion=f"Add the pick-and-place cycle for the {what}",
                              missing=what)
        for pair in g.pairs:
            t = pair.transfer
            if t is not None and t.release is None and pair.task.action != "pick":
                what = pair.task.obj.describe() if pair.task.obj else "object"
                judged = True
                yield self.judged(f"Missing step: the instruction asks to put the {what} down ({said(text[pair.task.start:pair.task.end])}), "
                                  f"but the plan never releases it after the grasp at step {t.grasp.step.index}", 0.85,
                                  step=t.grasp.step.index, span=t.grasp.step.span, suggestion="Add the descend, open-gripper and retreat steps",
                                  missing="release")
        for task in g.instruction.tasks:
            if task.action == "return_home":
                homes = [v for v in activity.visits if v.home]
                if homes and activity.visits and not activity.visits[-1].home:
                    last = activity.visits[-1].step
                    judged = True
                    yield self.judged("Missing step: the instruction asks to return home, but the plan ends elsewhere "
                                      f"(last move at step {last.index})", 0.8, step=last.index, span=last.span,
                                      suggestion="End with a move to the home position", missing="return home")
                elif not homes:
                    unverified.append("the return home: the plan names no home position")
        for task, work, c in g.works:
            if work is not None or c.detail != "no routine":
                continue
            name = task.obj.describe() if task.action in ("attach", "detach") and task.obj else None
            said_task = f"{task.action} the {name}" if name else f"{task.action}" + (f" at {task.at.text}" if task.at else "")
            if activity.format == "json":
                if task.at is not None and any(w.spot.position and w.action not in ("attach", "detach") for w in activity.works) and \
                        any(_same(task, w) for w in activity.works):
                    continue  # another routine at that place: R-SEM-002's action mismatch
                judged = True
                yield self.judged(f"Missing step: the instruction asks to {said_task} ({said(text[task.start:task.end])}), but the plan "
                                  "never does", 0.9, suggestion=f"Add the {said_task} step", missing=said_task)
            else:
                unverified.append(f"'{said_task}': the program has no routine the reader recognises for it")
        if unverified and not judged:
            yield self.abstain(unverified)


def _same(task, work) -> bool:
    return compare_place(task.at, work.spot).outcome == MATCH
