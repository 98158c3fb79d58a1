from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules.sem._evidence import agrees, confidence, corroborated
from plan_verifier.rules.sem._semantic import SemanticRule, quote, said
from plan_verifier.semantic.instruction import object_in_place
from plan_verifier.semantic.matching import overlaps, same_word, text_nouns
from plan_verifier.semantic.places import OTHER_WORDS
from plan_verifier.semantic.vocabulary import vocabulary


@register
class RSem001(SemanticRule):
    """Object mismatch: the plan handles another object than the instruction names.

    Each object the instruction asks to move (noun and attributes: "the red
    cube", "빨간 큐브", "both boxes") is compared with what the program names
    around the grasp and release that carry it out: pose names
    (`Blue_Cube_Pick`), the comments and log messages of that pick-and-place
    cycle, and for JSON plans the tool a routine uses. Another colour of the
    same object, or another known object where the instructed one is never
    named, is reported (confidence 0.9 from names, 0.8 from comments only);
    the same noun with another noun before it ("the croissant tray",
    `MuffinTray`), or two nouns no vocabulary knows ("the sourdough",
    `Baguette_Pick`), only when the same transfer names its places the
    instruction's way (0.75). A measure noun at the head ("the cable
    bundle", "와셔 세트") is compared by the thing written before it: a
    bundle of cables is named by `Cables_Pick`, and a pack of washers is
    not `Bolts_Pick`. When the program names nothing there, or only
    a word that matches nothing in the instruction, the rule abstains
    (WARNING, insufficient_evidence).

    **Unsafe**::

        # instruction: Pick the red block from position A
        DEFINE Blue_Block_Pose = PosX(500, 0, 60, 180, 0, 0);
        SPAWN MoveLinear(target_pose=Blue_Block_Pose, ...) WITH WAIT;
        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;

    **Safe**::

        # instruction: Pick the red block from position A
        DEFINE Red_Block_Pose_A = PosX(500, 0, 60, 180, 0, 0);
    """

    id = "R-SEM-001"
    name = "object-mismatch"

    def check(self, ctx):
        g = ctx.grounding
        if g is None:
            return
        excluded = {id(x.transfer) for x in g.excluded}
        unverified = []
        judged = False
        for pair in g.pairs:
            task, c = pair.task, pair.object
            if pair.transfer is None or id(pair.transfer) in excluded or task.obj is None:
                continue
            want = task.obj.describe()
            sure = confidence(c, corroborated(pair, "object"))
            if sure is not None and object_in_place(task):
                unverified.append(f"the {want}: the instruction's words for it are part of a place's name")
            elif sure is not None and c.relation == OTHER_WORDS and c.found is not None and c.found.obj is not None and \
                    overlaps(_own_words(c.found.obj, task.obj), text_nouns(g.instruction.text)):
                # the instruction names the plan's thing too ("Sample jar's label smudged …"): the reader took another word
                # of it for the object
                unverified.append(f"the {want}: the plan names the {c.found.obj.describe()} ({quote(c.found)}), which the "
                                  f"instruction also names")
            elif sure is not None:
                got = c.found.obj.describe() if c.found is not None and c.found.obj is not None else "another object"
                judged = True
                yield self.judged(f"Object mismatch: the instruction asks for the {want} "
                                  f"({said(g.instruction.text[task.start:task.end])}), but the plan handles the {got} ({quote(c.found)})",
                                  sure, step=c.found.step if c.found else pair.transfer.grasp.step.index,
                                  span=c.found.span if c.found else pair.transfer.grasp.step.span,
                                  suggestion=f"Handle the {want} named in the instruction", expected=want, found=got, kind=c.detail)
            elif not agrees(c) and task.obj.noun is not None:
                step = pair.transfer.grasp.step.index
                if c.detail == "no colour":
                    unverified.append(f"the colour of the {want}: the plan does not say it at the grasp (step {step})")
                elif c.found is not None:
                    unverified.append(f"the {want}: the plan names {quote(c.found)} at the grasp (step {step}), which the instruction does not")
                else:
                    unverified.append(f"the {want}: the plan never names what it picks up at step {step}")
        for task, work, c in g.works:
            sure = confidence(c)
            if sure is not None and c.detail == "another tool" and task.obj is not None and not _a_tool(task.obj, g):
                # "나사 체결: 픽스처, 스크루드라이버 사용 후 반납" read as putting back the fixture: no tool is called so
                unverified.append(f"the {task.obj.describe()}: none of the robot's tools is called so")
            elif sure is not None and c.detail == "another tool" and task.obj is not None:
                judged = True
                yield self.judged(f"Object mismatch: the instruction asks to {task.action} the {task.obj.describe()}, but the plan "
                                  f"uses {quote(c.found)}", sure, step=c.found.step, span=c.found.span,
                                  suggestion=f"Use the {task.obj.describe()}", expected=task.obj.describe(), found=c.found.quote)
        if unverified and not judged:
            yield self.abstain(unverified)


def _own_words(found, asked) -> tuple[str, ...]:
    """The words of the plan's thing that are not the asked thing's own ("tennis" of `TennisRacket` for "the badminton
    racket"): only those say the instruction names the plan's thing elsewhere; the head noun both share says nothing."""
    words = found.words or (found.noun,)
    own = tuple(w for w in words if w and w not in asked.words and w != asked.noun)
    return own


def _a_tool(obj, g) -> bool:
    """Does the instruction's word for a tool name one of the robot's tools (the cell's, or the lexicon's tool classes)?"""
    tools = set(g.activity.tools) | set(vocabulary().constructions.tools)
    return obj.noun is not None and any(obj.noun == t or same_word(obj.noun, t) for t in tools)
