from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._semantic import SemanticRule


@register
class RSem005(SemanticRule):
    """Missing step: an action the instruction asks for is not in the plan.

    "pick"/"집어" needs a gripper close, "place"/"transfer"/"옮겨" a release
    after it (one per object named), "return home" a final move to a home
    position, "weld"/"inspect" a routine of that kind, "attach"/"put back" a
    tool for JSON plans a tool_attach/tool_release step. Only actions the
    instruction states are required.

    **Unsafe**::

        # instruction: Pick and place the box from A to B
        SPAWN MoveLinear(target_pose=A_Grasp_Pose, ...) WITH WAIT;
        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;    // picked, never placed

    **Safe**::

        # instruction: Pick and place the box from A to B
        SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
        SPAWN MoveLinear(target_pose=B_Place_Pose, ...) WITH WAIT;
        SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;
    """

    id = "R-SEM-005"
    name = "missing-step"
    issue_category = "missing"
