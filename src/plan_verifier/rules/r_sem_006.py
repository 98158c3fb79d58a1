from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules._semantic import SemanticRule


@register
class RSem006(SemanticRule):
    """LLM review: the llm grader judges that the plan does not implement the instruction.

    Only with `semantic_grader: llm`. Seed 000's quick check answers a verdict
    and a confidence; below 80 the detailed analysis names the failing
    aspects. Object, action, spatial and temporal failures are reported by
    R-SEM-001 to R-SEM-004; this rule carries the quick check's reason and the
    model's safety concerns. The deterministic checks always stand: the model
    can add a finding, never remove one. Confidence is the model's, /100.

    **Unsafe**::

        # instruction: Place the part gently         (quick check: FAIL, 85)
        SPAWN MoveLinear(target_pose=Place_Pose, velocity=1000, ...) WITH WAIT;

    **Safe**::

        # instruction: Place the part gently         (quick check: PASS, 95)
        SPAWN MoveLinear(target_pose=Place_Pose, velocity=50, ...) WITH WAIT;
    """

    id = "R-SEM-006"
    name = "llm-review"
    issue_category = "review"
