from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._semantic import SemanticRule


@register
class RSem001(SemanticRule):
    """Object mismatch: the plan handles another object than the instruction names.

    The instruction's objects (noun and colour, English or Korean: "red
    block", "빨간 블록") are compared with the objects the plan names in its
    position names, comments, log messages, HEADER and, for JSON plans, its
    tools. A different colour of the same object, or another object where the
    instructed one is never named, is reported; a plan that names no object
    gives no evidence and is not judged. Confidence 0.9 from identifiers, 0.8
    from comments only (CRITICAL from 0.7).

    **Unsafe**::

        # instruction: Pick the red block from position A
        DEFINE Blue_Block_Pose = PosX(300, 0, 60, 0, 180, 0);
        GOAL Execute_Process() {
            SPAWN MoveLinear(target_pose=Blue_Block_Pose, velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
        }

    **Safe**::

        # instruction: Pick the red block from position A
        DEFINE Red_Block_Pose_A = PosX(300, 0, 60, 0, 180, 0);
    """

    id = "R-SEM-001"
    name = "object-mismatch"
    issue_category = "object"
