from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._semantic import SemanticRule


@register
class RSem003(SemanticRule):
    """Location error: the plan picks, places, moves or works at another place than the instruction says.

    The instruction's places (letters "A", "table B", "position 2", cell
    positions such as `Pos_1`, coordinates "B(100, 105, 150)") get a role from
    the sentence (from/to, "에서"/"로"). Each grasp must happen at a source and
    each release at a destination; the place of a grasp or release is read from
    the name of the pose it happens at, the comment on that step, or its
    coordinates. Source and destination swapped is one finding. A plan that
    only moves must reach a named destination; a routine ("tack weld at
    Pos_1") must run at the named position.

    **Unsafe**::

        # instruction: Transfer the box from table A to table B
        SPAWN MoveLinear(target_pose=B_Grasp_Pose, ...) WITH WAIT;   // grasps at B
        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;

    **Safe**::

        # instruction: Transfer the box from table A to table B
        SPAWN MoveLinear(target_pose=A_Grasp_Pose, ...) WITH WAIT;
        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
    """

    id = "R-SEM-003"
    name = "location-error"
    issue_category = "location"
