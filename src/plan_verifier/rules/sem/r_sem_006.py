from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules.sem._semantic import SemanticRule


@register
class RSem006(SemanticRule):
    """LLM review: the optional llm grader judges that the plan does not implement the instruction.

    Only with `semantic_grader: llm` (seed 004 §0.1: model-free by default).
    Seed 000 §2.2's quick check answers a verdict and a confidence; below 80
    the detailed analysis names the failing aspects (object, action, spatial,
    temporal, safety), each one finding here with its section in the
    evidence. The deterministic R-SEM rules always run and their findings
    stand: the model can add a finding, never remove one. Confidence is the
    model's, /100, so a model that is unsure cannot reject a plan.

    **Unsafe**::

        # instruction: Place the part gently         (quick check: FAIL, 85)
        SPAWN MoveLinear(target_pose=Place_Pose, velocity=1000, ...) WITH WAIT;

    **Safe**::

        # instruction: Place the part gently         (quick check: PASS, 95)
        SPAWN MoveLinear(target_pose=Place_Pose, velocity=50, ...) WITH WAIT;
    """

    id = "R-SEM-006"
    name = "llm-review"

    def check(self, ctx):
        review = ctx.review
        if review is None:
            return
        for issue in review.issues:
            yield self.judged(issue.message, issue.confidence, suggestion=issue.suggestion, section=issue.section, grader="llm",
                              llm_verdict=review.verdict)
