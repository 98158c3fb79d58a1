from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._semantic import SemanticRule


@register
class RSem004(SemanticRule):
    """Sequence error: the plan does things in another order than the instruction.

    When the instruction orders its steps ("then", "first", "next", "finally";
    Korean "그 다음", "먼저", "후에", "마지막으로"), the places it names must be
    reached in that order (the first visit of each; a final "return home" is
    the last visit) and the objects it names handled in that order. Sentences
    with "before"/"after" are not judged, since their order of mention is not
    the order of execution.

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
    issue_category = "sequence"
