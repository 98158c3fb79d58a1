from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._semantic import SemanticRule


@register
class RSem002(SemanticRule):
    """Action or parameter mismatch: the plan acts differently than the instruction asks.

    Manner words that ask for low speed ("gently", "slowly", "carefully",
    "fragile"; Korean "조심스럽게", "천천히", "살살", "부드럽게") against every
    commanded speed (motion `velocity`, `SetTaskVelocity`, JSON step
    `velocity`): above 250 mm/s (option `gentle_velocity_mm_s`) is reported,
    with confidence rising from 0.6 just above the limit to 0.9 at twice it.
    "Grip tightly" ("꽉", "단단히") without a Delay after the gripper closes
    (confidence 0.75, seed 000 §2.3). A routine other than the one asked for
    at the named place ("inspect Pos_2", plan welds there; 0.85).

    **Unsafe**::

        # instruction: Place the fragile glass gently at B
        SPAWN MoveLinear(target_pose=B_Place_Pose, velocity=1000, acceleration=100, tool=0, blending_radius=0) WITH WAIT;

    **Safe**::

        # instruction: Place the fragile glass gently at B
        SPAWN MoveLinear(target_pose=B_Place_Pose, velocity=50, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    """

    id = "R-SEM-002"
    name = "action-parameter-mismatch"
    issue_category = "action"
